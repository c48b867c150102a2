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


def _padded():
    """The data of ``_data``, sequence 3 cut to 2 steps (NaN-padded), and the
    sequences as a list."""
    X, y = _data()
    X[3, 2:] = np.nan
    return X, y, [x[~np.isnan(x).all(axis=1)] for x in X]


def _steps(lengths):
    return [np.zeros(length, dtype=int) for length in lengths]


# y for a model fitted on one target per sequence: (task, y from (y, lengths))
BAD_Y = {
    "short": ("classification", lambda y, n: y[:11]),
    "long": ("classification", lambda y, n: np.r_[y, 0]),
    "nan": ("classification", lambda y, n: np.r_[np.nan, y[1:]]),
    "none": ("classification", lambda y, n: None),
    "two columns": ("classification", lambda y, n: np.c_[y, y]),
    "strings": ("classification", lambda y, n: np.where(y == 1, "a", "b")),
    "unseen": ("classification", lambda y, n: np.r_[7, y[1:]]),  # scored
    "steps, wrong lengths": ("classification", lambda y, n: _steps([4] * 12)),
    "steps": ("classification", lambda y, n: _steps(n)),
    "regression nan": ("regression", lambda y, n: np.r_[np.nan, y[1:]]),
    "regression short": ("regression", lambda y, n: y[:11]),
    "regression padded 3-D": ("regression", lambda y, n: np.zeros((12, 4, 1))),
    "regression steps": ("regression", lambda y, n: [np.zeros(k) for k in n]),
    "regression three outputs": ("regression", lambda y, n: np.c_[y, y, y]),
}


def _outcome(call):
    """The score, or the message of the ValueError the call (and compute)
    raises, and whether it was raised at the call."""
    try:
        score = call()
    except ValueError as exc:
        return str(exc), True
    if not hasattr(score, "compute"):  # a local score
        return score, True
    try:
        return float(score.compute(scheduler="sync")), False
    except ValueError as exc:
        return str(exc), False


@pytest.mark.parametrize("case", list(BAD_Y))
def test_dask_score_checks_y_as_local_score(clf, case):
    task, make = BAD_Y[case]
    X, labels, seqs = _padded()
    est = clf if task == "classification" else IOHMMRegressor(**KW).fit(
        X, X[:, 0, 1])
    y = make(labels if task == "classification" else X[:, 0, 1],
             [len(s) for s in seqs])
    local, _ = _outcome(lambda: est.score(X, y))
    if case != "unseen":
        assert isinstance(local, str)
    on_array, at_call = _outcome(lambda: est.score(da.from_array(X, chunks=5), y))
    on_bag, _ = _outcome(lambda: est.score(db.from_sequence(seqs, npartitions=3), y))
    assert on_array == on_bag == local
    # refused at the call where the number of sequences is all it takes (a
    # y of two columns is refused as ambiguous if every sequence has 2 steps)
    assert at_call == (case in ("short", "long", "nan", "none", "regression nan",
                                "regression short"))


def test_dask_score_refuses_y_as_wide_as_the_sequences_are_long():
    # every sequence of 3 steps in an array padded to 4: a y of 3 columns is
    # ambiguous, which only the sequences' lengths tell (known at compute)
    X, _ = _data()
    X[:, 3] = np.nan
    reg = IOHMMRegressor(**KW).fit(X, X[:, 0, :])
    y = X[:, :3, 0]
    local, _ = _outcome(lambda: reg.score(X, y))
    on_array, at_call = _outcome(lambda: reg.score(da.from_array(X, chunks=5), y))
    assert on_array == local and "ambiguous" in local and not at_call
    assert _outcome(lambda: reg.score(da.from_array(X, chunks=5), X[:, 0, :]))[0] == (
        reg.score(X, X[:, 0, :]))


@pytest.mark.parametrize("case", ["steps", "dask y"])
def test_dask_score_names_y_before_the_weights_as_local_score(clf, case):
    # y and the weights both wrong: local score names y; on a Dask array, a y
    # whose check waits for compute (per-step targets need the lengths, a
    # Dask y its values) named the weights at the call
    X, labels = _data()
    y = _steps([4] * 12) if case == "steps" else np.r_[labels, 0]
    weight = BAD_WEIGHTS["short"]
    local, _ = _outcome(lambda: clf.score(X, y, sample_weight=weight))
    y_on_dask = y if case == "steps" else da.from_array(y, chunks=5)
    on_array, at_call = _outcome(lambda: clf.score(
        da.from_array(X, chunks=5), y_on_dask, sample_weight=weight))
    assert on_array == local and not at_call
    assert "y " in local and "sample_weight" not in local


def test_a_method_that_reads_local_data_names_a_bag_or_delayed_list(clf):
    # decode, HierarchicalIOHMM's per-level state probabilities and the
    # transformers read local sequences only: a bag (or a list of delayed)
    # failed deep in the float conversion ("float() argument must be ...,
    # not 'Bag'; encode them first, e.g. with Stepwise(OneHotEncoder())")
    import dask
    from sklearn.preprocessing import StandardScaler

    from skseq import HierarchicalIOHMM
    from skseq.preprocessing import Stepwise

    X, y = _data()
    bag = db.from_sequence(list(X), npartitions=2)
    delayed = [dask.delayed(x) for x in X]
    hier = HierarchicalIOHMM((2, 2), features="raw", n_init=1, max_iter=2,
                             random_state=0).fit(X, y)
    scaler = Stepwise(StandardScaler()).fit(X)
    for call in (clf.decode, hier.predict_state_proba, scaler.transform):
        with pytest.raises(TypeError, match=r"^X is a Dask bag, which this method "
                           r"does not read: .* compute it first for this one: "
                           r"list\(X\.compute\(\)\)\.$"):
            call(bag)
        with pytest.raises(TypeError, match=r"^X is a list of Dask delayed objects"
                           r".*: list\(dask\.compute\(\*X\)\)\.$"):
            call(delayed)
    assert isinstance(clf.predict(bag), type(bag))  # a Dask-aware method
