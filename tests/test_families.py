"""The families' parameter counts (``aic``/``bic``) against the rank of their
Jacobians: a parameter counts as free exactly when it can move the model."""

import numpy as np
import pytest

from skseq._families.emissions import GaussianEmission, SoftmaxEmission
from skseq._families.hierarchy import HierarchicalTransitions
from skseq._families.layers import LAYERS
from skseq._families.transitions import TRANSITIONS


def _jacobian_rank(f, theta, eps=1e-5):
    """Numerical rank of the Jacobian of f at theta (central differences)."""
    cols = []
    for k in range(theta.size):
        e = np.zeros_like(theta)
        e[k] = eps
        cols.append((f(theta + e) - f(theta - e)).ravel() / (2 * eps))
    J = np.column_stack(cols)
    s = np.linalg.svd(J, compute_uv=False)
    return int(np.sum(s > 1e-6 * s[0]))


@pytest.mark.parametrize("name", list(TRANSITIONS))
@pytest.mark.parametrize("masked", [False, True])
def test_transition_free_parameters_are_the_jacobian_rank(name, masked):
    rng = np.random.default_rng(0)
    n, d = 3, 2
    family = TRANSITIONS[name](n, d, 3)
    mask = np.ones((n, n), bool)
    if masked:
        mask[0, 2] = mask[2, 1] = False
    theta = family.init(rng, 1.0)
    U = rng.normal(size=(40, d))
    rank = _jacobian_rank(lambda t: family.probs(t, U, mask), theta)
    assert family.n_free_params(mask) == rank


@pytest.mark.parametrize("learn", [False, True])
def test_hierarchical_free_parameters_are_the_jacobian_rank(learn):
    rng = np.random.default_rng(1)
    family = HierarchicalTransitions((2, 3), 2, (4.0, 2.0), learn)
    theta = family.init(rng, 1.0)
    U = rng.normal(size=(40, 2))
    assert family.n_free_params() == _jacobian_rank(
        lambda t: family.probs(t, U), theta)


@pytest.mark.parametrize("layer", list(LAYERS))
def test_softmax_emission_free_parameters_are_the_jacobian_rank(layer):
    rng = np.random.default_rng(2)
    family = SoftmaxEmission(3, LAYERS[layer](2, 3), 4)
    theta = family.init(rng, 1.0)
    U = rng.normal(size=(40, 2))
    rank = _jacobian_rank(lambda t: family.predict_proba(t, U), theta)
    assert family.n_free_params() == rank


@pytest.mark.parametrize("layer", list(LAYERS))
@pytest.mark.parametrize("cov", ["spherical", "diag", "full", "tied"])
def test_gaussian_emission_free_parameters_are_the_jacobian_rank(layer, cov):
    rng = np.random.default_rng(3)
    family = GaussianEmission(2, LAYERS[layer](2, 3), 2, cov, 1e-3,
                              y_mean=np.zeros(2), y_scale=np.ones(2))
    theta = family.init(rng, 1.0) + rng.normal(scale=0.3, size=family.n_params)
    U = rng.normal(size=(40, 2))
    y = rng.normal(size=(40, 2))
    rank = _jacobian_rank(lambda t: family.log_prob(t, U, y), theta)
    assert family.n_free_params() == rank


@pytest.mark.parametrize("layer", list(LAYERS))
@pytest.mark.parametrize("cov", ["spherical", "diag", "full", "tied"])
def test_gaussian_emission_batches_against_direct_densities(layer, cov):
    """log_prob_batch / grad_batch of R parameter sets (the lockstep restarts)
    against scipy's normal density of every row, state and set, and the gradient
    against central differences of sum weights * log-density."""
    from scipy.stats import multivariate_normal

    rng = np.random.default_rng(4)
    n, k, R = 3, 2, 4
    family = GaussianEmission(n, LAYERS[layer](2, 3), k, cov, 1e-3,
                              y_mean=np.array([0.5, -1.0]),
                              y_scale=np.array([2.0, 0.5]))
    thetas = np.stack([family.init(rng, 1.0)
                       + rng.normal(scale=0.3, size=family.n_params) for _ in range(R)])
    U, y = rng.normal(size=(15, 2)), rng.normal(size=(15, k))
    weights = rng.random((R, 15, n))
    got = family.log_prob_batch(thetas, U, y)
    for r, theta in enumerate(thetas):
        means, covs = family.moments(theta, U)
        direct = [[multivariate_normal(means[t, i], covs[i]).logpdf(y[t])
                   for i in range(n)] for t in range(len(U))]
        np.testing.assert_allclose(got[r], direct, rtol=1e-10, atol=1e-10)
    grads = family.grad_batch(thetas, U, y, weights)
    # and bitwise the one-set-at-a-time formulas (a fit's bits do not depend on
    # whether its restarts ran together)
    from skseq._families.emissions import EmissionFamily

    np.testing.assert_array_equal(got, EmissionFamily.log_prob_batch(family, thetas,
                                                                     U, y))
    np.testing.assert_array_equal(grads, EmissionFamily.grad_batch(family, thetas, U,
                                                                   y, weights))
    eps = 1e-6
    for r in (0, R - 1):
        fd = np.empty(family.n_params)
        for j in range(family.n_params):
            e = np.zeros(family.n_params)
            e[j] = eps
            up = np.vdot(weights[r], family.log_prob(thetas[r] + e, U, y))
            down = np.vdot(weights[r], family.log_prob(thetas[r] - e, U, y))
            fd[j] = (up - down) / (2 * eps)
        np.testing.assert_allclose(grads[r], fd, rtol=1e-6, atol=1e-6)
