"""Predictions on a list of Dask delayed collections, one of which holds no
sequences (``fit`` leaves such a shard out): an output of none for it, in
the form and type of the others, so that the chunks' outputs join into the
local predictions of all the sequences. The empty chunk raised "X is empty"
when computed."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from skseq import IOHMMClassifier

dask = pytest.importorskip("dask")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(n, 2)) for n in rng.integers(2, 6, 12)]
    steps = [rng.integers(0, 2, len(x)) for x in X]
    return X, np.arange(12) % 2, steps


def _chunks(X, empty):
    return [dask.delayed(X[:5]), dask.delayed(empty), dask.delayed(X[5:])]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("method", ["predict", "predict_proba"])
def test_empty_chunk_of_sequence_level_model(data, method):
    X, y, _ = data
    model = IOHMMClassifier(2, features="raw", n_init=1, max_iter=3,
                            random_state=0).fit(X, y)
    expected = getattr(model, method)(X)
    with dask.config.set(scheduler="synchronous"):
        for empty in ([], np.zeros((0, 2))):
            parts = dask.compute(*getattr(model, method)(_chunks(X, empty)))
            assert parts[1].shape == (0, *expected.shape[1:])
            assert parts[1].dtype == expected.dtype
            assert_array_equal(np.concatenate(parts), expected)
        assert model.score(_chunks(X, []), y).compute() == model.score(X, y)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_empty_chunk_of_step_level_model(data):
    X, _, steps = data
    model = IOHMMClassifier(2, features="raw", n_init=1, max_iter=3,
                            random_state=0).fit(X, steps)
    expected = model.predict(X)
    with dask.config.set(scheduler="synchronous"):
        parts = dask.compute(*model.predict(_chunks(X, [])))
    assert parts[1] == []
    for got, want in zip(parts[0] + parts[2], expected, strict=True):
        assert_array_equal(got, want)
