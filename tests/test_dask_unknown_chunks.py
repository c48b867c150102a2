"""Predictions on a Dask array whose blocks' sizes are unknown (NaN), as a
boolean mask leaves them: the local predictions of the sequences kept. They
raised Dask's "Arrays chunk sizes are unknown" (``predict``, ``score``),
while ``fit`` read such an array."""

import logging

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skseq import IOHMMClassifier

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(n_workers=1, threads_per_worker=1,
                                 processes=False, dashboard_address=":0",
                                 silence_logs=logging.ERROR) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_predict_and_score_on_masked_dask_array(client):
    rng = np.random.default_rng(0)
    lengths = rng.integers(2, 6, 30)
    X = np.full((30, 5, 2), np.nan)
    for i, length in enumerate(lengths):
        X[i, :length] = rng.normal(size=(length, 2))
    y = np.arange(30) % 2
    model = IOHMMClassifier(2, features="raw", n_init=1, max_iter=5,
                            random_state=0).fit(X, y)
    # the middle block filtered out whole, the last one in part
    keep = np.r_[np.ones(10, bool), np.zeros(10, bool), np.arange(10) % 3 > 0]
    masked = da.from_array(X, chunks=(10, -1, -1))[da.from_array(keep, chunks=10)]
    assert np.isnan(masked.shape[0])
    assert_array_equal(model.predict(masked).compute(), model.predict(X[keep]))
    assert_allclose(model.predict_proba(masked).compute(),
                    model.predict_proba(X[keep]), rtol=0, atol=0)
    expected = np.mean(model.predict(X[keep]) == y[keep])
    assert model.score(masked, y[keep]).compute() == pytest.approx(expected,
                                                                   abs=1e-15)
    # one-step rows (2-D) of unknown sizes too
    rows = da.from_array(X[:, 0], chunks=10)[da.from_array(keep, chunks=10)]
    assert_array_equal(model.predict(rows).compute(),
                       model.predict(X[keep, :1]))
