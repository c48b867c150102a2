"""The row kernels of the networks (softmax and its log-likelihood gradients)
against SciPy and NumPy."""

import numpy as np
import pytest
from _builds import kernel_build_fixture
from numpy.testing import assert_allclose

import skseq._kernels.softmax as wrapper

kernel_build = kernel_build_fixture("_softmax", wrapper)


@pytest.mark.parametrize("masked", [False, True])
def test_softmax_kernels_match_numpy(masked):
    from scipy.special import log_softmax, softmax

    from skseq._kernels.softmax import log_softmax_gradient_, softmax_

    rng = np.random.default_rng(10)
    z = rng.normal(scale=30, size=(5000, 3, 4))  # many blocks, large logits
    z[0, 0, 0] = 1e4
    mask = rng.random((3, 4)) < 0.6 if masked else np.ones((3, 4), bool)
    mask[:, 1] = True
    forbidden = np.where(mask, 0.0, -np.inf)
    assert_allclose(softmax_(z.copy(), mask if masked else None),
                    softmax(z + forbidden, axis=2), rtol=1e-12, atol=1e-300)
    w = rng.random(z.shape) * mask
    grad = z.copy()
    value = log_softmax_gradient_(grad, w, mask if masked else None)
    logp = np.where(mask, log_softmax(z + forbidden, axis=2), 0.0)
    assert_allclose(value, np.sum(w * logp), rtol=1e-12)
    assert_allclose(grad, w - w.sum(axis=2, keepdims=True) * np.exp(logp) * mask,
                    rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("scale", [3.0, 300.0])
def test_categorical_kernels_match_scipy(scale):
    # scale 3: every block takes the unshifted path; 300: the shifted one.
    from scipy.special import log_softmax

    from skseq._kernels.softmax import (
        log_softmax_categorical_,
        log_softmax_categorical_gradient_,
    )

    rng = np.random.default_rng(12)
    z = rng.normal(scale=scale, size=(20000, 2, 3))
    y = rng.integers(0, 3, size=20000)
    w = rng.random((20000, 2))
    logp = log_softmax(z, axis=2)
    picked = np.take_along_axis(logp, y[:, None, None], axis=2)[:, :, 0]
    assert_allclose(log_softmax_categorical_(z.copy(), y), picked, rtol=1e-12,
                    atol=1e-12)
    onehot = np.eye(3)[y][:, None, :]
    grad = z.copy()
    value = log_softmax_categorical_gradient_(grad, y, w)
    assert_allclose(value, np.sum(w * picked), rtol=1e-12)
    assert_allclose(grad, w[:, :, None] * (onehot - np.exp(logp)), rtol=1e-10,
                    atol=1e-12)


def test_bias_kernels_match_broadcasting():
    from skseq._kernels.softmax import add_bias_, outer_sum

    rng = np.random.default_rng(13)
    z, bias, a = (rng.normal(size=s) for s in [(50, 3, 4), (3, 4), (50, 4)])
    assert_allclose(add_bias_(z.copy(), bias), z + bias, rtol=0, atol=0)
    assert_allclose(outer_sum(a, bias), a[:, None, :] + bias, rtol=0, atol=0)
    assert outer_sum(a[:0], bias).shape == (0, 3, 4)


def test_weighted_log_normalizer_matches_scipy():
    from scipy.special import logsumexp, softmax

    from skseq._kernels.softmax import row_sums, weighted_log_normalizer_

    rng = np.random.default_rng(14)
    z = rng.normal(scale=3, size=(3000, 3, 4))
    z[5, 1, 2] = 900.0  # a block beyond +-690 takes the shifted path
    rows = rng.random((3000, 3))
    grad = z.copy()
    value = weighted_log_normalizer_(grad, rows)
    assert_allclose(value, np.sum(rows * logsumexp(z, axis=2)), rtol=1e-12)
    assert_allclose(grad, rows[:, :, None] * softmax(z, axis=2), rtol=1e-10,
                    atol=1e-300)
    assert_allclose(row_sums(z), z.sum(axis=2), rtol=1e-13)
