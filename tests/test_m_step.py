"""The M-step's shared-work objectives against the direct expected log-likelihoods
and against finite differences."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.special import log_softmax

from skseq._families.emissions import SoftmaxEmission
from skseq._families.layers import LAYERS
from skseq._families.transitions import TRANSITIONS


def _direct_q_trans(family, theta, U, xi):
    """sum xi log softmax(z) by SciPy, from the family's logits."""
    return float(np.sum(xi * log_softmax(family.logits(theta, U), axis=2)))


@pytest.mark.parametrize("name", ["input", "additive", "gated", "mlp"])
@pytest.mark.parametrize("scale", [1.0, 400.0])  # 400: logits beyond +-690
@pytest.mark.parametrize("masked", [False, True])
def test_transition_objective_matches_direct_computation(name, scale, masked):
    rng = np.random.default_rng(0)
    n, d, T = 3, 2, 3000
    family = TRANSITIONS[name](n, d, 4)
    theta = family.init(rng, 1.0)
    U = rng.normal(size=(T, d)) * scale
    mask = np.ones((n, n), bool)
    if masked:
        mask[0, 2] = mask[2, 0] = False
    xi = rng.random((T, n, n)) * mask
    objective = family.m_step_objective(U, xi, mask if masked else None)
    value, grad = objective(theta)
    ref_value, ref_grad = family.expected_log(theta, U, xi.copy(),
                                              mask if masked else None)
    assert_allclose(value, ref_value, rtol=1e-12)
    assert_allclose(grad, ref_grad, rtol=1e-10, atol=1e-10 * np.abs(ref_grad).max())
    if not masked:
        assert_allclose(value, _direct_q_trans(family, theta, U, xi), rtol=1e-10)


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
