"""A line search that fails at the very start (no step taken, the gradient far
from zero) is no convergence: the fit says so, and names the inputs' scales."""

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from skseq import IOHMMRegressor


def _regime_series(scale):
    rng = np.random.default_rng(0)
    states = np.cumsum(rng.random(150) > 0.93) % 2
    x = rng.normal(size=150)
    y = np.where(states == 0, 1.0 + 0.5 * x, 4.0 - x) + 0.8 * rng.normal(size=150)
    return [x[:, None] * scale], [y]


def test_inputs_of_a_huge_scale_are_reported_not_converged():
    X, y = _regime_series(1e8)
    est = IOHMMRegressor(2, n_init=3, random_state=0)
    with pytest.warns(ConvergenceWarning, match="standardize the inputs"):
        est.fit(X, y)
    # every restart's line search failed before its first step
    assert est.n_iter_ == 0 and not est.converged_


def test_a_fit_of_standardized_inputs_still_converges():
    X, y = _regime_series(1.0)
    est = IOHMMRegressor(2, n_init=3, random_state=0).fit(X, y)
    assert est.converged_ and est.n_iter_ > 0
