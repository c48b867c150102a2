"""The spreads of the window summaries (``running_pool(..., "std")`` and the
standard-deviation columns of ``window_summaries``) and the running mean
beside them, far from zero.

References: every window's slice taken in a plain loop, its standard deviation
computed exactly in rational arithmetic (``fractions``) and rounded once, or
``numpy.std`` over the slices where the offset is small; tolerances are
relative to that true spread (a flat window must give exactly 0).
"""

import math
from fractions import Fraction

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view
from numpy.testing import assert_allclose, assert_array_equal

from skseq._data import check_sequences
from skseq._data.window import window_summaries
from skseq._kernels import pooling

OFFSETS = [0.0, 1e4, 1e8, 1e12, -1e12]


def _exact_std(values):
    """Standard deviation (divided by n) of float values, in exact rational
    arithmetic, rounded once to float and square-rooted."""
    exact = [Fraction(float(v)) for v in values]
    mean = sum(exact, Fraction(0)) / len(exact)
    return math.sqrt(sum((v - mean) ** 2 for v in exact) / len(exact))


def _trailing(x, t, window):
    return x[max(0, t - window + 1): t + 1]


def _sequences(offset):
    """Sequences of lengths 1, 3, 6 and 13 (shorter and longer than the
    windows), two channels: unit noise, and steps between flat levels."""
    rng = np.random.default_rng(0)
    out = []
    for n in (1, 3, 6, 13):
        noise = rng.normal(size=n)
        levels = np.repeat([0.1, 0.7, -0.3], [n // 3, n // 3, n - 2 * (n // 3)])
        out.append(offset + np.column_stack([noise, levels]))
    return out


@pytest.mark.parametrize("offset", OFFSETS)
def test_summary_spreads_are_exact_far_from_zero(offset):
    X = _sequences(offset)
    window = 8  # spreads over the last 2 and the last 8 steps
    got = window_summaries(check_sequences(X), window)
    n_channels = 2
    spreads = np.hstack([got[:, 4 * n_channels: 5 * n_channels],
                         got[:, 8 * n_channels:]])
    expected = []
    for x in X:
        for t in range(len(x)):
            expected.append([_exact_std(_trailing(x[:, c], t, w))
                             for w in (2, window) for c in range(n_channels)])
    # a few ulps of the spread itself (a flat window: exactly 0), whatever the offset
    assert_allclose(spreads, np.array(expected), rtol=1e-14, atol=0)


@pytest.mark.parametrize("window", [1, 2, 5])
@pytest.mark.parametrize("offset", [1e8, -1e12])
def test_running_std_against_exact_slices(window, offset):
    X = _sequences(offset)
    seqs = check_sequences(X)
    got = pooling.running_pool(seqs.data, seqs.offsets, window, "std")
    expected = [[_exact_std(_trailing(x[:, c], t, window)) for c in range(2)]
                for x in X for t in range(len(x))]
    assert_allclose(got, np.array(expected), rtol=1e-14, atol=0)
    if window == 1:
        assert_array_equal(got, 0.0)


def test_nan_padded_sequences_give_the_spreads_of_their_steps():
    X = _sequences(1e4)[1:]  # lengths 3, 6, 13
    padded = np.full((3, 13, 2), np.nan)
    for i, x in enumerate(X):
        padded[i, : len(x)] = x
    from_padded = window_summaries(check_sequences(padded), 4)
    assert_array_equal(from_padded, window_summaries(check_sequences(X), 4))
    last = X[2]  # its last step's spread over the last 4 steps, channel 0
    assert_allclose(from_padded[-1, 8 * 2], _exact_std(last[-4:, 0]), rtol=1e-14)


def test_long_sequence_far_from_zero_does_not_drift():
    # 10^5 steps at 1e9: no sum carries from one window to the next, so the
    # last windows are as exact as the first
    rng = np.random.default_rng(3)
    x = 1e9 + rng.normal(size=100_000)
    offsets = np.array([0, x.size])
    window = 32
    spread = pooling.running_pool(x[:, None], offsets, window, "std")[:, 0]
    mean = pooling.running_pool(x[:, None], offsets, window, "mean")[:, 0]
    full = sliding_window_view(x, window)
    # numpy's two-pass spread over every full window: within 1e-12 at 1e9
    assert_allclose(spread[window - 1:], full.std(axis=1), rtol=1e-12)
    for t in [*range(0, x.size, 4_999), x.size - 1]:
        past = _trailing(x, t, window)
        assert_allclose(spread[t], _exact_std(past), rtol=1e-14, atol=0)
        # the running mean (a sliding sum, summed afresh every window steps):
        # within a few ulps of the mean's own scale, here too
        exact_mean = math.fsum(past) / len(past)
        assert abs(mean[t] - exact_mean) <= 4 * np.spacing(exact_mean)


def test_spreads_of_huge_values_stay_finite_and_exact():
    big = np.array([2.0**1000, -(2.0**1000), 2.0**1000, 1.7e308, 1.7e308, 1.7e308])
    noise = np.random.default_rng(4).normal(size=6)
    x = np.column_stack([big, noise])
    offsets = np.array([0, 6])
    got = pooling.running_pool(x, offsets, 3, "std")
    assert np.isfinite(got).all()
    assert got[0, 0] == got[5, 0] == 0.0  # one step; a flat window at 1.7e308
    for t in range(6):  # exact on the values divided by 2**1000 (exactly)
        scaled = [v / 2.0**1000 for v in _trailing(big, t, 3)]
        assert_allclose(got[t, 0] / 2.0**1000, _exact_std(scaled), rtol=1e-14)
    # the other channel's spreads are those it has alone, bit for bit
    alone = pooling.running_pool(noise[:, None], offsets, 3, "std")[:, 0]
    assert_array_equal(got[:, 1], alone)
    with pytest.raises(ValueError, match="needs a trailing window"):
        pooling.running_pool(x, offsets, None, "std")
