"""The multilayer state networks (transition="mlp", paper 000 §3.3.2)."""

import numpy as np
import pytest

from skseq import IOHMMClassifier
from skseq._transitions import TRANSITIONS


def test_mlp_backward_matches_finite_differences():
    family = TRANSITIONS["mlp"](3, 2, 8)
    rng = np.random.default_rng(0)
    theta = family.init(rng, 1.0, permutation=True)
    U, G = rng.normal(size=(7, 2)), rng.normal(size=(7, 3, 3))
    eps = 1e-6
    numeric = [
        (np.sum(G * family.logits(theta + eps * e, U))
         - np.sum(G * family.logits(theta - eps * e, U))) / (2 * eps)
        for e in np.eye(family.n_params)
    ]
    np.testing.assert_allclose(family.backward(theta, U, G), numeric, atol=1e-6)


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
    X, y = magnitude_data(200, rng)
    X_test, y_test = magnitude_data(300, rng)
    params = dict(n_states=2, emission="state", solver="em", n_init=3,
                  random_state=0)
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
    clf = IOHMMClassifier(2, transition="mlp", solver=solver, max_iter=1,
                          warm_start=True, random_state=0)
    objectives = []
    with pytest.warns(Warning):
        for _ in range(5):
            objectives.append(clf.fit(X, y).objective_)
    assert np.all(np.diff(objectives) <= 1e-10)
