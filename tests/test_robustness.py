"""Estimators under repetition and failure (the kernels' own leak tests are in
test_forward_backward.py).

* repeated predict_proba keeps memory flat: no leak of arrays, Python objects
  or C memory;
* a fit that fails on bad input - of any estimator, including Stepwise - leaves
  a fitted model exactly as it was, and it still predicts the same.
"""

import gc
import tracemalloc
import warnings

import numpy as np
import pytest
from _states import assert_same_state, snapshot
from conftest import ESTIMATORS
from numpy.testing import assert_array_equal
from sklearn.base import is_classifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from skseq import (
    DiscretizedRNNClassifier,
    HierarchicalIOHMM,
    IOHMMClassifier,
)
from skseq.preprocessing import Stepwise

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


@pytest.mark.parametrize("make", [
    lambda: IOHMMClassifier(n_states=3, n_init=1, max_iter=5, random_state=0),
    lambda: HierarchicalIOHMM(n_states=(2, 2), timescales=(4, 1), n_init=1,
                              max_iter=5, random_state=0),
    lambda: DiscretizedRNNClassifier(n_hidden=3, n_init=1, max_iter=5,
                                     random_state=0),
])
def test_repeated_predict_proba_keeps_memory_flat(make):
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(k, 2)) for k in rng.integers(1, 30, size=40)]
    y = np.arange(40) % 2
    est = make().fit(X, y)
    X = X[:12]  # predicted over and over: a leak of 28 bytes a sequence shows
    ref = est.predict_proba(X)
    tracemalloc.start()
    try:
        # traced from here, the interpreter's free lists and caches fill up
        # over the first calls (tens of kB, bounded): a leak is what still
        # grows after them
        for _ in range(150):
            est.predict_proba(X)
        gc.collect()
        n_objects = len(gc.get_objects())
        start, _ = tracemalloc.get_traced_memory()
        for _ in range(150):  # a leak of 333 bytes a call would show
            proba = est.predict_proba(X)
        del proba
        gc.collect()
        end, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert end - start < 50_000, f"traced memory grew by {end - start} bytes"
    assert len(gc.get_objects()) - n_objects < 100
    assert_array_equal(est.predict_proba(X), ref)


# -- a failed fit changes nothing -----------------------------------------------------
MODELS = {
    "clf": (ESTIMATORS["clf"], {"n_states": 0}),
    "reg": (ESTIMATORS["reg"], {"covariance_type": "x"}),
    "hier-clf": (ESTIMATORS["hier-clf"], {"timescales": (4,)}),
    "hier-reg": (ESTIMATORS["hier-reg"], {"n_states": ()}),
    "rnn": (ESTIMATORS["rnn"], {"low": 0.9, "high": 0.1}),
    "stepwise": (lambda: Stepwise(StandardScaler()), {"transformer": "scaler"}),
}


def _bad_fits(name, X, y, bad_params):
    X_nan = [x.copy() for x in X]
    X_nan[2][1, 0] = np.nan
    X_inf = [x.copy() for x in X]
    X_inf[2][1, 0] = np.inf
    X_3 = [np.ones((2, 3))] * len(X)
    calls = {
        "NaN in X": lambda est: est.fit(X_nan, y),
        "inf in X": lambda est: est.fit(X_inf, y),
        "X of 3 features": lambda est: est.fit(X_3 + [np.ones((2, 2))], y),
        "X None": lambda est: est.fit(None, y),
        "params": lambda est: est.set_params(**bad_params).fit(X, y),
    }
    if name == "stepwise":  # its StandardScaler takes NaN (and passes it on)
        del calls["NaN in X"]
    else:
        calls |= {
            "y too short": lambda est: est.fit(X, y[:-1]),
            "y None": lambda est: est.fit(X, None),
            "negative weight": lambda est: est.fit(
                X, y, sample_weight=-np.ones(len(y))),
            "ragged weight": lambda est: est.fit(
                X, y, sample_weight=[1.0, [2.0]] + [1.0] * (len(y) - 2)),
        }
    return calls


@pytest.mark.parametrize("name", MODELS)
def test_a_failed_fit_leaves_every_fitted_model_as_it_was(name):
    make, bad_params = MODELS[name]
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(k, 2)) for k in (3, 1, 4, 2, 5, 2)]
    est = make()
    y = (np.arange(6) % 2 if name == "stepwise" or is_classifier(est)
         else rng.normal(size=6))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y)
    method = "transform" if name == "stepwise" else "predict"
    params, state = est.get_params(), snapshot(est)
    expected = getattr(est, method)(X)
    for case, bad_fit in _bad_fits(name, X, y, bad_params).items():
        with pytest.raises((ValueError, TypeError)):
            bad_fit(est)
        changed = {k: v for k, v in snapshot(est).items() if k in bad_params}
        assert_same_state(snapshot(est), {**state, **changed}, where=case)
        est.set_params(**params)  # predict reads the constructor parameters again
        assert_same_state(snapshot(est), state, where=case)
        got = getattr(est, method)(X)
        for a, b in zip(got, expected, strict=True):
            assert_array_equal(a, b, err_msg=case)
