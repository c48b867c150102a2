"""Comparing the states of estimators, for the tests: one recursive comparison
of everything a fit records (arrays, estimators, families, representations)."""

import copy
import pickle

import numpy as np
from numpy.testing import assert_allclose, assert_array_equal


def snapshot(est):
    """The instance dict, deep-copied: everything a call could change."""
    return copy.deepcopy(vars(est))


def fitted_state(est, public_only=False, deep=False):
    """The fitted attributes (ending in an underscore; public ones only if
    ``public_only``; deep copies if ``deep``), but the packed parameters: a
    cache of the public ones, keyed by their hash."""
    state = {k: v for k, v in vars(est).items()
             if k.endswith("_") and k != "_packed_"
             and not (public_only and k.startswith("_"))}
    return copy.deepcopy(state) if deep else state


def assert_same_state(a, b, rtol=0.0, atol=0.0, where="state"):
    """States equal: exactly, or to a tolerance for floating-point values;
    objects (estimators, families, representations) by their attributes."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for k in a:
            assert_same_state(a[k], b[k], rtol, atol, f"{where}.{k}")
    elif hasattr(a, "__dict__") and not isinstance(a, np.ndarray):
        assert type(a) is type(b), where
        assert_same_state(vars(a), vars(b), rtol, atol, where)
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (u, v) in enumerate(zip(a, b, strict=True)):
            assert_same_state(u, v, rtol, atol, f"{where}[{i}]")
    elif rtol + atol > 0 and np.asarray(a).dtype.kind == "f":
        assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=where)
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype, where
        assert_array_equal(a, b, err_msg=where, strict=True)
    elif not (a == b or (a != a and b != b)):
        # objects compiled without an instance dict or an equality (random
        # generators, scikit-learn's Cython losses): by their pickled state,
        # as a copy is another object
        assert type(a) is type(b) and _pickled(a) == _pickled(b), where


def _pickled(obj):
    try:
        return pickle.dumps(obj)
    except (TypeError, AttributeError, pickle.PicklingError):
        return id(obj)
