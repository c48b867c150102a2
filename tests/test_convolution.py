"""The convolution kernels called directly (``skseq._kernels.convolution``):
the prefix means of the dilated-convolution and amplitude-level indicators,
projected.

References: every step's indicators from ``dilated_convolution`` (itself
checked against a loop over the taps in test_representations.py) and the
levels' indicators, cumulated by hand; the same call on one thread and in one
chunk.
"""

import numpy as np
import pytest
from _series import level_means, random_walks
from numpy.testing import assert_allclose, assert_array_equal

from skseq._data import check_sequences
from skseq._kernels import convolution
from skseq.preprocessing import DilatedConvolution


def _prefix_means(seqs, X, biases, levels, args):
    """Every step's prefix means of the indicators, by hand: the convolutions'
    (from the unfused kernel), then the levels'."""
    indicators = convolution.dilated_convolution(
        seqs.data, seqs.offsets, np.arange(seqs.data.shape[0]), biases=biases,
        **args)
    return np.hstack([
        np.concatenate([np.cumsum(indicators[a:b], axis=0)
                        / np.arange(1, b - a + 1)[:, None]
                        for a, b in zip(seqs.offsets[:-1], seqs.offsets[1:],
                                        strict=True)]),
        level_means(levels, X)])


@pytest.mark.parametrize("n_biases", [1, 2, 3])
def test_kernel_on_any_number_of_combinations_and_biases(n_biases):
    """Dilations with an odd number of combinations (the kernel adds the
    projections of pairs of combinations when they have few biases), against
    every step's indicators from the unfused kernel, cumulated by hand."""
    X = random_walks((50, 1, 130, 17), n_channels=2, seed=6)
    conv = DilatedConvolution(3, n_biases=n_biases, random_state=0).fit(X)
    args = conv._kernel_arguments()
    # keep 83 combinations of the first dilation, 1 of the second, 84 of the third
    keep = np.r_[0:83, 84, 168:252]
    args["combination_ptr"] = np.array([0, 83, 84, 168])
    args["positions"] = args["positions"][keep]
    sizes = np.diff(args["channel_ptr"])[keep]
    args["channels"] = np.concatenate([conv.channels_[m] for m in keep])
    args["channel_ptr"] = np.concatenate([[0], np.cumsum(sizes)])
    biases = conv.biases_[keep]
    levels = np.array([[0.5, -1.0, 0.0, 2.0], [0.0, 1.0, 0.0, -3.0]])  # a tie
    seqs = check_sequences(X)
    means = _prefix_means(seqs, X, biases, levels, args)
    rng = np.random.default_rng(0)
    projection = rng.normal(size=(means.shape[1], 9))
    offset = rng.normal(size=9)
    rows = np.array([3, 0, seqs.data.shape[0] - 1, 60, 60])
    steps, at_rows = convolution.prefix_indicators(
        seqs.data, seqs.offsets, rows, biases=biases, levels=levels,
        step_projection=projection, step_offset=offset, **args)
    assert_allclose(steps, means @ projection - offset, rtol=0, atol=1e-12)
    assert_array_equal(at_rows, means[rows])


def test_threads_and_row_chunks_give_identical_results(monkeypatch):
    """Threads over ranges of sequences, and row chunks that cut a sequence
    (its state carried from one chunk to the next), change nothing."""
    X = random_walks((300, 7, 260, 1, 90, 150), n_channels=2, seed=5)
    conv = DilatedConvolution(2, n_biases=2, random_state=0).fit(X)
    rng = np.random.default_rng(0)
    # amplitude levels at quantiles of X, in no order
    quantiles = rng.permutation((np.arange(3) + 0.5) / 3)
    levels = np.quantile(np.concatenate(X), quantiles, axis=0).T
    projection = rng.normal(size=(conv.biases_.size + levels.size, 5))
    offset = rng.normal(size=5)
    seqs = check_sequences(X)
    rows = np.sort(np.random.default_rng(1).choice(seqs.data.shape[0], 40,
                                                   replace=False))

    def call(n_jobs):
        return convolution.prefix_indicators(
            seqs.data, seqs.offsets, rows, biases=conv.biases_, levels=levels,
            step_projection=projection[:, :3], step_offset=offset[:3],
            row_projection=projection, row_offset=offset,
            **{**conv._kernel_arguments(), "n_jobs": n_jobs})

    one = call(n_jobs=1)
    monkeypatch.setattr(convolution, "_MIN_VALUES_PER_THREAD", 1)
    two = call(n_jobs=2)
    for a, b in zip(one, two, strict=True):
        assert_array_equal(a, b)
    # 3 rows per chunk: chunks end inside sequences
    monkeypatch.setattr(convolution, "_ROWS_PER_CHUNK", 3)
    chunked = call(n_jobs=2)
    assert_array_equal(chunked[0], one[0])
    means = _prefix_means(seqs, X, conv.biases_, levels, conv._kernel_arguments())
    assert_allclose(chunked[1], means[rows] @ projection - offset, rtol=0,
                    atol=1e-12)
    assert_allclose(chunked[0], means @ projection[:, :3] - offset[:3], rtol=0,
                    atol=1e-12)


def _convolution_by_hand(data, offsets, rows, args):
    """Every combination's convolution at the packed steps ``rows``: the taps
    read directly (the sequence's end value beyond its ends), times the
    kernel's weights, summed over the combination's channels."""
    seq = np.searchsorted(offsets, rows, side="right") - 1
    lo, hi = offsets[seq], offsets[seq + 1] - 1
    ptr, cptr = args["combination_ptr"], args["channel_ptr"]
    out = np.empty((rows.size, args["positions"].shape[0]))
    for d, dilation in enumerate(args["dilations"]):
        taps = np.clip(rows[:, None] + (np.arange(9) - 8) * dilation,
                       lo[:, None], hi[:, None])  # (rows, 9), causal
        for m in range(ptr[d], ptr[d + 1]):
            weights = np.full(9, -1.0)
            weights[args["positions"][m]] = 2.0
            chans = args["channels"][cptr[m] : cptr[m + 1]]
            out[:, m] = (data[taps][:, :, chans] * weights[:, None]).sum(axis=(1, 2))
    return out


def test_convolution_at_rows_in_any_order(monkeypatch):
    """Rows in no order, repeated, in blocks that span sequences and thread
    ranges that start inside a block: every value equals the direct sum
    (small integers: exact), and its indicators the comparisons with the
    biases."""
    rng = np.random.default_rng(3)
    X = [rng.integers(-4, 5, size=(n, 3)).astype(float) for n in (40, 1, 9, 75)]
    conv = DilatedConvolution(3, max_dilation=4, n_biases=2,
                              random_state=0).fit(X)
    seqs = check_sequences(X)
    args = conv._kernel_arguments()
    rows = np.r_[rng.permutation(seqs.data.shape[0]), 7, 7, 0]
    monkeypatch.setattr(convolution, "_MIN_VALUES_PER_THREAD", 1)
    values = convolution.dilated_convolution(
        seqs.data, seqs.offsets, rows, biases=np.empty((len(conv.channels_), 0)),
        **{**args, "n_jobs": 3})
    expected = _convolution_by_hand(seqs.data, seqs.offsets, rows, args)
    assert_array_equal(values, expected)
    indicators = convolution.dilated_convolution(
        seqs.data, seqs.offsets, rows, biases=conv.biases_, **{**args, "n_jobs": 3})
    assert_array_equal(indicators, (expected[:, :, None] > conv.biases_).reshape(
        rows.size, -1))


def test_a_row_projection_still_coming_gives_the_same_rows(monkeypatch):
    """A row projection computed meanwhile (a callable, None until it comes):
    the chunks walked before it are kept, on one thread, at most
    ``_PENDING_BYTES`` of them, then projected; the same values bit for bit
    as with the projection known, which equal a direct product."""
    X = random_walks((40, 7, 60, 1, 30, 50, 20), n_channels=2, seed=3)
    conv = DilatedConvolution(2, n_biases=2, random_state=0).fit(X)
    rng = np.random.default_rng(0)
    n_ind = conv.biases_.size
    projection, offset = rng.normal(size=(n_ind, 4)), rng.normal(size=4)
    seqs = check_sequences(X)
    rows = seqs.offsets[1:] - 1  # the last steps, two per chunk
    monkeypatch.setattr(convolution, "_ROWS_PER_CHUNK", 2)
    monkeypatch.setattr(convolution, "_MIN_VALUES_PER_THREAD", 1)
    monkeypatch.setattr(convolution, "_PENDING_BYTES", 2 * 2 * n_ind * 8)
    asked, threads = [], []
    walk_chunk = convolution._walk_chunk

    def recorded(*args):
        threads.append(args[-1])
        return walk_chunk(*args)

    monkeypatch.setattr(convolution, "_walk_chunk", recorded)

    def coming(block):  # comes when asked to block (the third chunk)
        asked.append(block)
        return (projection, offset) if block else None

    def call(row_projection):
        return convolution.prefix_indicators(
            seqs.data, seqs.offsets, rows, biases=conv.biases_,
            step_projection=projection[:, :2], row_projection=row_projection,
            row_offset=offset, **{**conv._kernel_arguments(), "n_jobs": 2})

    known = call(projection)
    threads.clear()
    late = call(coming)
    assert asked == [False, False, True] and threads == [None, None, 2, 2]
    for a, b in zip(known, late, strict=True):
        assert_array_equal(a, b)
    means = call(None)[1]
    assert_allclose(late[1], means @ projection - offset, rtol=0, atol=1e-12)


def test_prefix_indicators_rejects_bad_arguments():
    X = random_walks((20, 10), n_channels=1)
    conv = DilatedConvolution(2, n_biases=2, random_state=0).fit(X)
    seqs = check_sequences(X)
    args = (seqs.data, seqs.offsets)
    kwargs = {**conv._kernel_arguments(), "biases": conv.biases_}
    n_ind = conv.biases_.size
    with pytest.raises(ValueError, match="rows outside"):
        convolution.prefix_indicators(*args, [30], **kwargs)
    with pytest.raises(ValueError, match="step_projection must be"):
        convolution.prefix_indicators(*args, [0], step_projection=np.ones((3, 2)),
                                    **kwargs)
    with pytest.raises(ValueError, match="row_offset must be"):
        convolution.prefix_indicators(*args, [0], row_projection=np.ones((n_ind, 2)),
                                    row_offset=np.ones(3), **kwargs)
    with pytest.raises(ValueError, match="at least one bias"):
        convolution.prefix_indicators(*args, [0], **{
            **kwargs, "biases": np.empty((conv.biases_.shape[0], 0))})
    with pytest.raises(ValueError, match="offsets do not partition"):
        convolution.prefix_indicators(seqs.data, [0, 5, 5, 30], [0], **kwargs)


def test_a_quantile_table_or_feature_matrix_too_large_is_refused(monkeypatch):
    # n_biases=10**12: 252 x 10**12 thresholds (84 kernels, 3 dilations),
    # refused before numpy's MemoryError, naming the parameter; the fitted
    # transformer is unchanged
    rng = np.random.RandomState(0)
    X = [rng.standard_normal((30, 2)) for _ in range(3)]
    conv = DilatedConvolution(n_biases=2, random_state=0).fit(X)
    biases = conv.biases_.copy()
    with pytest.raises(ValueError, match=r"DilatedConvolution with n_biases=10+ "
                       r"\(252,000,000,000,000 indicator thresholds.*lower n_biases"):
        conv.set_params(n_biases=10**12).fit(X)
    assert_array_equal(conv.set_params(n_biases=2).biases_, biases)
    # transform: 90 steps x 504 indicators (twice: output and container)
    # need 725,760 bytes; with 700,000 available it is refused
    from skseq._fit import resources
    monkeypatch.setattr(resources, "_available_memory", lambda: 700_000)
    with pytest.raises(ValueError, match=r"n_biases=2 \(504 indicator thresholds, "
                       r"180 float64 values each\).*fewer steps"):
        conv.transform(X)
    monkeypatch.setattr(resources, "_available_memory", lambda: 750_000)
    assert conv.transform(X)[0].shape == (30, 504)
