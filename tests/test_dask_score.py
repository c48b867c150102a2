"""``score`` on a Dask collection checks ``sample_weight`` as ``score`` on
local data does, with the same messages, and gives the same value: that of
scikit-learn's metrics on the local predictions. Computed with the
synchronous scheduler (no cluster: the score is a small graph)."""

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, r2_score

from skseq import IOHMMClassifier, IOHMMRegressor

da = pytest.importorskip("dask.array")
db = pytest.importorskip("dask.bag")

pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning")

KW = dict(n_states=2, features="raw", n_init=1, max_iter=3, random_state=0)


def _data(n=12):
    X = np.random.default_rng(0).normal(size=(n, 4, 2))
    return X, (X[:, :, 0].sum(axis=1) > 0).astype(int)


@pytest.fixture(scope="module")
def clf():
    return IOHMMClassifier(**KW).fit(*_data())


BAD_WEIGHTS = {
    "negative": np.r_[np.ones(5), -1.0, np.ones(6)],
    "nan": np.r_[np.ones(3), np.nan, np.ones(8)],
    "inf": np.r_[np.inf, np.ones(11)],
    "short": np.ones(11),
    "zero": np.zeros(12),
    "subnormal": np.full(12, 1e-320),
    "overflowing": np.full(12, 1e308),
    "strings": np.array(["1"] * 12),
}


@pytest.mark.parametrize("case", list(BAD_WEIGHTS))
def test_dask_score_refuses_the_weights_local_score_refuses(clf, case):
    X, y = _data()
    weight = BAD_WEIGHTS[case]
    with pytest.raises(ValueError) as local:
        clf.score(X, y, sample_weight=weight)
    with pytest.raises(ValueError) as on_dask:  # at the call: X's shape known
        clf.score(da.from_array(X, chunks=5), y, sample_weight=weight)
    assert str(on_dask.value) == str(local.value)
    score = clf.score(db.from_sequence(list(X), npartitions=3), y,
                      sample_weight=weight)
    with pytest.raises(ValueError) as on_dask:  # once the sequences are counted
        score.compute(scheduler="sync")
    assert str(on_dask.value) == str(local.value)
    assert "sample_weight" in str(local.value)


def test_dask_score_is_the_weighted_accuracy(clf):
    X, y = _data()
    weight = np.linspace(0.0, 2.0, 12)
    expected = accuracy_score(y, clf.predict(X), sample_weight=weight)
    seqs = list(X)
    for Xd in (da.from_array(X, chunks=5), db.from_sequence(seqs, npartitions=3)):
        got = clf.score(Xd, y, sample_weight=weight).compute(scheduler="sync")
        assert float(got) == expected == clf.score(X, y, sample_weight=weight)
    # weights held by the cluster too
    got = clf.score(da.from_array(X, chunks=5), y,
                    sample_weight=da.from_array(weight, chunks=5))
    assert float(got.compute(scheduler="sync")) == expected


def test_dask_score_of_targets_near_the_float64_limit():
    # R^2 does not change when targets and predictions are divided by one
    # number; targets of magnitude 1e200 (squares beyond float64) compared
    # at magnitude 1
    X, _ = _data()
    y = X[:, :, 1].sum(axis=1)
    reg = IOHMMRegressor(**KW).fit(X, y)
    y = y * 1e200
    weight = np.linspace(0.5, 2.0, 12)
    expected = r2_score(y / 1e200, reg.predict(X) / 1e200, sample_weight=weight)
    got = reg.score(da.from_array(X, chunks=5), y, sample_weight=weight)
    got = float(got.compute(scheduler="sync"))
    assert np.isclose(got, expected, rtol=1e-12)
    assert got == reg.score(X, y, sample_weight=weight)
