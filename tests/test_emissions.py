"""The output families (skseq._families.emissions) against independent
references: the rank of their Jacobians, SciPy's densities, finite differences,
the expected log-likelihood computed directly."""

import numpy as np
import pytest
from _jacobian import jacobian_rank
from numpy.testing import assert_allclose
from scipy.special import log_softmax

from skseq._families.emissions import GaussianEmission, SoftmaxEmission
from skseq._families.layers import LAYERS


@pytest.mark.parametrize("layer", list(LAYERS))
def test_softmax_emission_free_parameters_are_the_jacobian_rank(layer):
    rng = np.random.default_rng(2)
    family = SoftmaxEmission(3, LAYERS[layer](2, 3), 4)
    theta = family.init(rng, 1.0)
    U = rng.normal(size=(40, 2))
    rank = jacobian_rank(lambda t: family.predict_proba(t, U), theta)
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
    rank = jacobian_rank(lambda t: family.log_prob(t, U, y), theta)
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


@pytest.mark.parametrize("emission", list(LAYERS))
@pytest.mark.parametrize("scale", [1.0, 400.0])
def test_emission_objective_matches_direct_computation(emission, scale):
    rng = np.random.default_rng(1)
    n, d, k, T = 3, 2, 4, 2000
    family = SoftmaxEmission(n, LAYERS[emission](d, 4), k)
    theta = family.init(rng, 1.0) * scale
    U = rng.normal(size=(T, d))
    y = rng.integers(0, k, size=T)
    y[:5] = 0  # class 3 may be absent from some draws: keep every class present
    y[5:9] = np.arange(4)
    w = rng.random((T, n))
    value, grad = family.m_step_objective(U, y, w)(theta)
    logp = log_softmax(family._affine(family.unpack(theta), U), axis=2)
    direct = np.sum(w * np.take_along_axis(logp, y[:, None, None], axis=2)[:, :, 0])
    assert_allclose(value, direct, rtol=1e-10)
    assert_allclose(grad, family.expected_log(theta, U, y, w)[1], rtol=1e-9,
                    atol=1e-9 * np.abs(grad).max())
    # central differences on a few coordinates
    objective = family.m_step_objective(U, y, w)
    for i in rng.choice(theta.size, 4, replace=False):
        h = 1e-6 * max(1.0, abs(theta[i]))
        e = np.zeros_like(theta)
        e[i] = h
        fd = (objective(theta + e)[0] - objective(theta - e)[0]) / (2 * h)
        assert_allclose(grad[i], fd, rtol=1e-5, atol=1e-6 * abs(value) / T)
