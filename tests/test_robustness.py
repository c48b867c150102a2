"""Kernels and state under repetition and failure (issue 9).

* repeated kernel calls (forward-backward in every xi mode, Viterbi) and repeated
  predict_proba keep memory flat: no leak of arrays, Python objects or C memory;
* a fit that fails on bad input - of any estimator, including Stepwise - leaves
  a fitted model exactly as it was, and it still predicts the same.
"""

import gc
import os
import tracemalloc
import warnings

import numpy as np
import pytest
from _states import assert_same_state, snapshot
from numpy.testing import assert_array_equal
from sklearn.base import is_classifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from skseq import (
    DiscretizedRNNClassifier,
    HierarchicalIOHMM,
    IOHMMClassifier,
    IOHMMRegressor,
)
from skseq._inference import (
    XI_GRAD,
    XI_NONE,
    XI_STEP,
    XI_SUM,
    forward_backward,
    viterbi,
)
from skseq.preprocessing import Stepwise

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _rss():
    """Resident set size in bytes (Linux: /proc/self/statm)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _kernel_inputs(n_steps, n_states, n_seq, seed=0):
    rng = np.random.default_rng(seed)
    trans = rng.random((n_steps, n_states, n_states))
    trans /= trans.sum(axis=2, keepdims=True)
    log_emit = np.log(rng.random((n_steps, n_states)))
    cuts = np.sort(rng.choice(np.arange(1, n_steps), n_seq - 1, replace=False))
    offsets = np.concatenate([[0], cuts, [n_steps]]).astype(np.intp)
    startprob = np.full(n_states, 1.0 / n_states)
    return startprob, trans, log_emit, offsets


def _kernel_calls(startprob, trans, log_emit, offsets, n_jobs):
    weight = np.linspace(0.5, 2.0, offsets.shape[0] - 1)
    for mode in (XI_NONE, XI_STEP, XI_GRAD, XI_SUM):
        out = forward_backward(startprob, trans.copy(), log_emit, offsets,
                               weight=weight, xi_mode=mode, n_jobs=n_jobs)
        assert np.isfinite(out[0]).all()
    forward_backward(startprob, trans, log_emit, offsets, backward=False,
                     n_jobs=n_jobs)
    best, path = viterbi(np.log(startprob), np.log(trans), log_emit, offsets,
                         n_jobs=n_jobs)
    assert np.isfinite(best).all() and path.min() >= 0


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_kernels_do_not_leak_c_memory(n_jobs):
    """Large inputs (each call allocates ~35 MB of outputs): a leak of any one
    output array would grow RSS by MBs per call; it must stay flat."""
    args = _kernel_inputs(100_000, 4, 50)
    for _ in range(3):  # warm-up: allocator pools, thread pools
        _kernel_calls(*args, n_jobs)
    gc.collect()
    before = _rss()
    for _ in range(15):
        _kernel_calls(*args, n_jobs)
    gc.collect()
    growth = _rss() - before
    assert growth < 16e6, f"RSS grew by {growth / 1e6:.1f} MB over 15 rounds"


def test_kernels_do_not_leak_python_objects():
    """Tiny inputs, many calls: a reference leak of even one small object per call
    shows up in the traced memory and in the number of live objects."""
    args = _kernel_inputs(20, 3, 4)
    for _ in range(20):
        _kernel_calls(*args, 1)
    gc.collect()
    tracemalloc.start()
    try:
        n_objects = len(gc.get_objects())
        start, _ = tracemalloc.get_traced_memory()
        for _ in range(500):
            _kernel_calls(*args, 1)
        gc.collect()
        end, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert end - start < 50_000, f"traced memory grew by {end - start} bytes"
    assert len(gc.get_objects()) - n_objects < 100


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
    ref = est.predict_proba(X)
    for _ in range(20):
        est.predict_proba(X)
    gc.collect()
    tracemalloc.start()
    try:
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
FAST = {"n_init": 1, "max_iter": 5, "random_state": 0}
MODELS = {
    "clf": (lambda: IOHMMClassifier(n_states=2, **FAST), {"n_states": 0}),
    "reg": (lambda: IOHMMRegressor(n_states=2, **FAST), {"covariance_type": "x"}),
    "hier-clf": (lambda: HierarchicalIOHMM(n_states=(2, 2), timescales=(4, 1),
                                           **FAST), {"timescales": (4,)}),
    "hier-reg": (lambda: HierarchicalIOHMM(n_states=(2, 2), timescales=(4, 1),
                                           task="regression", **FAST),
                 {"n_states": ()}),
    "rnn": (lambda: DiscretizedRNNClassifier(n_hidden=3, **FAST),
            {"low": 0.9, "high": 0.1}),
    "stepwise": (lambda: Stepwise(StandardScaler()), {"transformer": "scaler"}),
}


def _bad_fits(name, X, y, bad_params):
    X_nan = [x.copy() for x in X]
    X_nan[2][1, 0] = np.nan
    X_3 = [np.ones((2, 3))] * len(X)
    calls = {
        "NaN in X": lambda est: est.fit(X_nan, y),
        "X of 3 features": lambda est: est.fit(X_3 + [np.ones((2, 2))], y),
        "X None": lambda est: est.fit(None, y),
        "params": lambda est: est.set_params(**bad_params).fit(X, y),
    }
    if name != "stepwise":
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
