"""The multilayer networks (Bengio & Frasconi 1996, §3.3.2): transition="mlp"
and emission="mlp"."""

import numpy as np
import pytest

from skseq import IOHMMClassifier, IOHMMRegressor
from skseq._families.transitions import TRANSITIONS


def magnitude_data(n, rng):
    """Class 1 iff some step has |u| > 1.5: not a linear function of u_t."""
    X = [rng.uniform(-1, 1, size=(10, 1)) for _ in range(n)]
    y = rng.integers(0, 2, size=n)
    for x, label in zip(X, y, strict=True):
        if label:
            x[rng.integers(10)] = rng.choice([-1, 1]) * rng.uniform(1.5, 2.5)
    return X, y


def test_mlp_learns_what_linear_state_networks_cannot():
    # The paper's GEM (solver="em"); L-BFGS stops in a local optimum here.
    rng = np.random.default_rng(0)
    X, y = magnitude_data(100, rng)
    X_test, y_test = magnitude_data(300, rng)
    params = dict(n_states=2, features="raw", emission="state", solver="em",
                  n_init=2, random_state=0)
    mlp = IOHMMClassifier(transition="mlp", **params).fit(X, y)
    linear = IOHMMClassifier(transition="input", **params).fit(X, y)
    assert "mlp" in TRANSITIONS
    assert mlp.score(X_test, y_test) >= 0.95
    assert mlp.score(X_test, y_test) > linear.score(X_test, y_test) + 0.1
    assert mlp.transition_hidden_coef_.shape == (1, mlp.n_hidden)


@pytest.mark.parametrize("solver", ["lbfgs", "em"])
def test_mlp_monotonic_objective(solver):
    # One more iteration from a warm start never raises the objective.
    rng = np.random.default_rng(1)
    X, y = magnitude_data(50, rng)
    clf = IOHMMClassifier(2, features="raw", transition="mlp", solver=solver,
                          max_iter=1,
                          warm_start=True, random_state=0)
    objectives = []
    with pytest.warns(Warning):
        for _ in range(5):
            objectives.append(clf.fit(X, y).objective_)
    assert np.all(np.diff(objectives) <= 1e-10)


def band_data(n, rng):
    """Class 1 iff the last input lies in the band |u| > 1: not a monotone
    function of u, so no linear softmax output network can give it."""
    X = [rng.uniform(-2, 2, size=(5, 1)) for _ in range(n)]
    y = np.array([int(abs(x[-1, 0]) > 1) for x in X])
    return X, y


@pytest.mark.parametrize("solver", ["lbfgs", "em"])
def test_mlp_outputs_learn_what_linear_outputs_cannot(solver):
    rng = np.random.default_rng(2)
    X, y = band_data(200, rng)
    X_test, y_test = band_data(300, rng)
    params = dict(n_states=2, features="raw", transition="homogeneous",
                  solver=solver, n_init=2, random_state=0)
    mlp = IOHMMClassifier(emission="mlp", n_hidden=4, **params).fit(X, y)
    linear = IOHMMClassifier(emission="input", **params).fit(X, y)
    assert mlp.score(X_test, y_test) >= 0.95
    assert mlp.score(X_test, y_test) > linear.score(X_test, y_test) + 0.15
    assert mlp.emission_hidden_coef_.shape == (1, 4)
    assert mlp.emission_coef_.shape == (4, 2, 2)


def test_mlp_regression_outputs_fit_a_nonlinear_law():
    rng = np.random.default_rng(3)
    X = [rng.uniform(-2, 2, size=(6, 1)) for _ in range(60)]
    y = [np.abs(x[:, 0]) + 0.05 * rng.normal(size=6) for x in X]
    params = dict(n_states=1, n_init=2, max_iter=1000, random_state=0)
    mlp = IOHMMRegressor(emission="mlp", n_hidden=6, **params).fit(X, y)
    linear = IOHMMRegressor(emission="input", **params).fit(X, y)
    assert mlp.score(X, y) > 0.95 > linear.score(X, y) + 0.5


@pytest.mark.parametrize("solver", ["lbfgs", "em"])
@pytest.mark.parametrize("Estimator", [IOHMMClassifier, IOHMMRegressor])
def test_mlp_outputs_monotonic_objective(solver, Estimator):
    rng = np.random.default_rng(4)
    X, y = band_data(40, rng)
    if Estimator is IOHMMRegressor:
        y = y + 0.1 * rng.normal(size=len(y))
    est = Estimator(2, emission="mlp", n_hidden=3, solver=solver, max_iter=1,
                    warm_start=True, random_state=0)
    objectives = []
    with pytest.warns(Warning):
        for _ in range(5):
            objectives.append(est.fit(X, y).objective_)
    assert np.all(np.diff(objectives) <= 1e-10)
