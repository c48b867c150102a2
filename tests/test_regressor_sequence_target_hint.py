"""IOHMMRegressor on raw steps says so when given one real target per sequence:
the output networks then read only the last step's raw values."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from skseq import IOHMMRegressor
from skseq.exceptions import InputHintWarning

FAST = {"n_init": 1, "max_iter": 3, "random_state": 0}


def _series():
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(12, 2)) for _ in range(10)]
    return X, np.array([x[:, 0].mean() for x in X])


def _hints(est, X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y)
    return [w for w in caught if issubclass(w.category, InputHintWarning)]


def test_one_target_per_sequence_on_raw_steps_is_hinted():
    X, y = _series()
    hints = _hints(IOHMMRegressor(**FAST), X, y)
    assert len(hints) == 1
    assert "features='shape'" in str(hints[0].message)
    assert hints[0].filename == __file__  # points at the caller's fit


@pytest.mark.parametrize("case", ["step-level", "shape", "one-step rows", "symbols"])
def test_no_hint_where_the_raw_steps_read_everything(case):
    X, y = _series()
    est = IOHMMRegressor(**FAST)
    if case == "step-level":  # regimes: a target at every step
        y = [x[:, 0] for x in X]
    elif case == "shape":
        est.set_params(features="shape")
    elif case == "one-step rows":  # a table: the last step is the whole row
        X = np.array([x[0] for x in X])
    else:  # +-1 codes: the shape representation is not chosen either
        X = [np.sign(x) for x in X]
    assert _hints(est, X, y) == []
