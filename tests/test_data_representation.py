"""The fused walk of ``features="shape"`` (``ShapeFeatures._walk`` through
``skseq._kernels.convolution.prefix_indicators``, whose direct calls are tested
in test_convolution.py): prefix means of the dilated-convolution and
amplitude-level indicators, projected at every step and kept at given rows,
without writing any step's indicators.

References: the unfused public pieces, ``DilatedConvolution(pooling="prefix")``
(every step's indicators, then their running means) next to the levels'
indicators cumulated by hand, followed by the projection; exact rational
arithmetic (``fractions.Fraction``) for long sums.
"""

import copy
import math
from fractions import Fraction

import numpy as np
import pytest
from _series import level_means, random_walks
from numpy.testing import assert_allclose, assert_array_equal
from threadpoolctl import threadpool_limits

from skseq._data import check_sequences, dilated
from skseq._data.shape import _principal_axes, _standardized
from skseq._kernels import convolution
from skseq.preprocessing import DilatedConvolution
from skseq.representations import ShapeFeatures

LENGTHS = (1, 2, 9, 40, 127, 128, 129, 300, 3)


def _representation(conv, X, n_components, n_levels=3, seed=0):
    """A ShapeFeatures around a fitted convolution, with amplitude levels at
    quantiles of X (in no order) and a random projection."""
    rng = np.random.default_rng(seed)
    rep = ShapeFeatures(n_components=n_components)
    rep.convolution_ = conv
    quantiles = rng.permutation((np.arange(n_levels) + 0.5) / n_levels)
    rep.levels_ = np.quantile(np.concatenate(X), quantiles, axis=0).T
    n_ind = conv.biases_.size + rep.levels_.size
    rep.projection_ = rng.normal(size=(n_ind, n_components))
    rep.offset_ = rng.normal(size=n_components)
    return rep


def _unfused(rep, X):
    """Every step's prefix-mean indicators: the convolutions' from the public
    transformer (with the representation's kernels: fitted on X, alike, or the
    transformer it was given), then the levels'."""
    conv = rep.convolution_
    if isinstance(conv, DilatedConvolution):
        pooled = copy.deepcopy(conv).set_params(pooling="prefix")
    else:
        pooled = DilatedConvolution(**conv.get_params(), pooling="prefix").fit(X)
        assert_array_equal(pooled.biases_, conv.biases_)
    return np.hstack([np.concatenate(pooled.transform(X)),
                      level_means(rep.levels_, X)])


def _rows(seqs):
    """First steps, middle steps, last steps, block edges (steps 127 and 128 of
    a sequence), several in one sequence, repeats, in no particular order."""
    starts, ends = seqs.offsets[:-1], seqs.last_steps
    long = int(np.argmax(seqs.lengths))
    picked = [ends[-1], starts[0], ends[1], starts[long] + 127, starts[long] + 128,
              starts[long] + 5, ends[long], starts[long] + 128, starts[3] + 20,
              ends[0]]
    return np.array(picked, dtype=np.intp)


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("padding", ["edge", "zero"])
@pytest.mark.parametrize("n_channels", [1, 3])
def test_walk_equals_the_unfused_pieces(causal, padding, n_channels):
    X = random_walks(LENGTHS, n_channels)
    conv = DilatedConvolution(3, max_dilation=12, n_biases=3, causal=causal,
                              padding=padding, random_state=0).fit(X)
    if n_channels > 1:  # some kernels sum several channels
        assert max(len(c) for c in conv.channels_) > 1
    rep = _representation(conv, X, n_components=6)
    seqs = check_sequences(X)
    pooled = _unfused(rep, X)
    projected = pooled @ rep.projection_ - rep.offset_
    rows = _rows(seqs)
    for k in (0, 2, 6):
        steps, at_rows = rep._walk(seqs, rows, k)
        assert steps.shape == (seqs.data.shape[0], k)
        assert_allclose(steps, projected[:, :k], rtol=0, atol=1e-12)
        assert_allclose(at_rows, projected[rows], rtol=0, atol=1e-12)
    # before a projection exists: the prefix means themselves, exactly
    steps, at_rows = rep._walk(seqs, rows, None)
    assert steps is None
    assert_array_equal(at_rows, pooled[rows])
    # no rows at all
    steps, at_rows = rep._walk(seqs, np.array([], dtype=np.intp), 6)
    assert at_rows.shape == (0, 6)
    assert_allclose(steps, projected, rtol=0, atol=1e-12)


def test_fitted_representation_inputs_equal_the_unfused_pieces():
    X = random_walks((30, 45, 12, 80, 1), n_channels=2, seed=3)
    seqs = check_sequences(X)
    rep = ShapeFeatures(n_components=10, n_state_components=4).fit(seqs, 0)
    projected = _unfused(rep, X) @ rep.projection_ - rep.offset_
    rows = seqs.last_steps
    steps, at_rows = rep.inputs(seqs, rows)
    assert_allclose(steps, projected[:, :4], rtol=0, atol=1e-10)
    assert_allclose(at_rows, projected[rows], rtol=0, atol=1e-10)


def test_sampled_steps_are_walked_in_their_own_sequences_only():
    """The fit walks only the sequences that hold its sampled steps: their
    prefix means there are those of the unfused pieces on all sequences."""
    X = random_walks((30, 45, 12, 80, 1, 17), n_channels=2, seed=4)
    seqs = check_sequences(X)
    rows = np.array([3, 40, 41, 160, 183])  # in sequences 0, 1, 3 and 5
    held, held_rows = seqs.holding(rows)
    assert_array_equal(held.lengths, [30, 45, 80, 17])
    assert_array_equal(held.data[held_rows], seqs.data[rows])
    rep = ShapeFeatures(n_components=10).fit(seqs, 0)
    assert_allclose(rep._walk(held, held_rows, None)[1], _unfused(rep, X)[rows],
                    rtol=0, atol=1e-12)
    assert_allclose(rep.indicator_means(seqs, rows), _unfused(rep, X)[rows],
                    rtol=0, atol=1e-12)


def test_prefix_means_read_beside_the_fit_equal_the_unfused_pieces():
    """During fit, ``beside`` (the supervised read-out) reads the prefix means
    the projection's sample holds from it, and walks the others: at the last
    steps (all held, of the sequences holding sampled steps) and at steps of
    sequences holding none, they are the unfused pieces', and exactly what a
    walk after the fit gives."""
    X = random_walks((30, 45, 12, 80, 1, 17, 25), n_channels=2, seed=5)
    seqs = check_sequences(X)
    rows = np.concatenate([seqs.last_steps, [3, 40, 41, 160, 183]])
    seen = []

    def beside(rep, sampled):
        assert sampled.seqs is seqs
        held = np.isin(rows, sampled.steps)
        assert held.any() and not held.all()
        seen.append(rep.indicator_means(seqs, rows, sampled=sampled))

    rep = ShapeFeatures(n_components=6, sample_steps=20).fit(seqs, 0, beside=beside)
    assert_allclose(seen[0], _unfused(rep, X)[rows], rtol=0, atol=1e-12)
    assert_array_equal(seen[0], rep.indicator_means(seqs, rows))


@pytest.mark.parametrize("threshold_sample", ["steps", "series"])
def test_an_integer_weight_equals_repeating_the_sequence(threshold_sample):
    X = random_walks((30, 45, 12, 80, 1, 17), n_channels=2, seed=6)
    weight = np.array([2, 0, 1, 3, 1, 2])
    repeated = [x for x, w in zip(X, weight, strict=True) for _ in range(w)]
    # The last steps enter the projection as sqrt(w)-scaled rows on one side
    # and as repeated rows on the other: equal Gram matrices, so the same
    # axes in exact arithmetic, but the randomized SVD's trailing axes (close
    # variances) amplify the rounding of BLAS's thread-dependent sums to
    # ~1e-3. One BLAS thread sums both in one order.
    with threadpool_limits(limits=1, user_api="blas"):
        shape = ShapeFeatures(n_components=8, threshold_sample=threshold_sample)
        weighted = shape.fit(check_sequences(X), 0, sample_weight=weight)
        plain = copy.deepcopy(shape).fit(check_sequences(repeated[::-1]), 0)
    assert_array_equal(weighted.levels_, plain.levels_)
    assert_array_equal(weighted.convolution_.biases_, plain.convolution_.biases_)
    assert_allclose(weighted.projection_, plain.projection_, rtol=1e-10, atol=1e-12)


def test_threads_in_fit_and_inputs_change_nothing(monkeypatch):
    X = random_walks((300, 7, 260, 1, 90, 150), n_channels=2, seed=5)
    seqs = check_sequences(X)
    one = ShapeFeatures(n_components=6, sample_steps=200).fit(seqs, 0)
    monkeypatch.setattr(convolution, "_MIN_VALUES_PER_THREAD", 1)
    monkeypatch.setattr(dilated, "_MIN_VALUES_PER_THREAD", 1)  # the thresholds
    two = ShapeFeatures(n_components=6, sample_steps=200).fit(seqs, 0, n_jobs=2)
    assert_array_equal(one.projection_, two.projection_)
    assert_array_equal(one.convolution_.biases_, two.convolution_.biases_)
    for a, b in zip(one.inputs(seqs, seqs.last_steps),
                    two.inputs(seqs, seqs.last_steps, n_jobs=2), strict=True):
        assert_array_equal(a, b)


def test_a_sequence_does_not_depend_on_the_others():
    """Bit for bit: alone, in a batch, in reverse order (the estimators'
    predictions must not depend on what else is predicted)."""
    X = random_walks((300, 7, 260, 1, 90, 2), n_channels=2, seed=4)
    conv = DilatedConvolution(3, n_biases=2, random_state=0).fit(X)
    rep = _representation(conv, X, n_components=20)
    seqs = check_sequences(X)
    steps, at_rows = rep._walk(seqs, seqs.last_steps, 4)
    backwards = check_sequences(X[::-1])
    steps_back, rows_back = rep._walk(backwards, backwards.last_steps, 4)
    for s, x in enumerate(X):
        alone = check_sequences([x])
        one_steps, one_row = rep._walk(alone, alone.last_steps, 4)
        assert_array_equal(one_steps, steps[seqs.offsets[s] : seqs.offsets[s + 1]])
        assert_array_equal(one_row[0], at_rows[s])
        b = len(X) - 1 - s
        assert_array_equal(one_steps,
                           steps_back[backwards.offsets[b] : backwards.offsets[b + 1]])
        assert_array_equal(one_row[0], rows_back[b])


def test_long_sequences_keep_their_accuracy():
    """2 x 10^5 steps: the running sums are compensated. A constant series
    (every window flat, so the same indicators at every step) has prefix means
    equal to its step vector at every step, which plain summation misses by
    ~1e-12 after 10^5 steps; a noisy periodic series is checked against exact
    rational sums of the counts."""
    rng = np.random.default_rng(2)
    n = 200_000
    noisy = (np.sin(np.arange(n) * (2 * np.pi / 7.3)) + 0.3 * rng.normal(size=n))
    X = [noisy[:, None], np.full((n, 1), 5.0)]
    conv = DilatedConvolution(1, max_dilation=1, n_biases=1,
                              random_state=0).fit([noisy[:5000, None]])
    rep = ShapeFeatures()
    rep.convolution_ = conv
    rep.levels_ = np.array([[0.0, 10.0]])
    rep.projection_ = 1.0 + 0.3 * rng.normal(size=(86, 3))
    rep.offset_ = np.zeros(3)
    seqs = check_sequences(X)
    steps, _ = rep._walk(seqs, np.array([], dtype=np.intp), 3)
    assert np.isfinite(steps).all()

    # the constant series: flat windows give convolutions of exactly 0, and
    # 5 is above the first level only
    on = np.append(conv.biases_[:, 0] < 0, [True, False])
    expected = [math.fsum(rep.projection_[on, f]) for f in range(3)]
    constant = steps[n:]
    for t in (0, 999, 99_999, n - 1):
        assert_allclose(constant[t], expected, rtol=1e-14)

    # the noisy one: counts from the public transformer, 10^4 steps at a time
    # (each piece with the 8 steps before it, so that every window is whole)
    checked = (999, 99_999, n - 1)
    counts, total, start = {}, np.zeros(86, dtype=np.int64), 0
    for stop in range(10_000, n + 1, 10_000):
        piece = noisy[max(0, start - 8) : stop, None]
        indicators = np.hstack([
            conv.transform([piece])[0][start - max(0, start - 8):],
            noisy[start:stop, None] > rep.levels_])
        running = total + np.cumsum(indicators.astype(np.int64), axis=0)
        for t in checked:
            if start <= t < stop:
                counts[t] = running[t - start]
        total, start = running[-1], stop
    for t in checked:
        for f in range(3):
            exact = sum(Fraction(float(w)) * int(c) for w, c in
                        zip(rep.projection_[:, f], counts[t], strict=True)) / (t + 1)
            assert abs(steps[t, f] - float(exact)) <= 1e-14 * abs(float(exact))


def test_one_step_and_constant_sequences_give_finite_values():
    X = [np.full((1, 2), 3.0), np.full((50, 2), -7.0), np.zeros((4, 2))]
    fit_on = random_walks((60, 40), n_channels=2, seed=9)
    conv = DilatedConvolution(2, n_biases=2, random_state=0).fit(fit_on)
    rep = _representation(conv, fit_on, n_components=4)
    seqs = check_sequences(X)
    steps, at_rows = rep._walk(seqs, seqs.last_steps, 4)
    assert np.isfinite(steps).all() and np.isfinite(at_rows).all()
    assert_allclose(at_rows, _unfused(rep, X)[seqs.last_steps] @ rep.projection_
                    - rep.offset_, rtol=0, atol=1e-12)
    # a representation fitted on constant series: every bias 0, every
    # indicator off, the inputs finite
    flat = check_sequences([np.full((30, 1), 2.0), np.full((20, 1), -1.0)])
    fitted = ShapeFeatures(n_components=4, n_state_components=2).fit(flat, 0)
    steps, at_rows = fitted.inputs(flat, flat.last_steps)
    assert np.isfinite(steps).all() and np.isfinite(at_rows).all()


def test_weighted_standardization_and_axes_equal_repeated_rows():
    # A sample of rank 4 (plus a constant column, left out) with integer
    # weights: the randomized SVD then spans it exactly, and must give the
    # axes and variances of the SVD of the rows repeated as often.
    rng = np.random.default_rng(0)
    pooled = rng.normal(size=(60, 4)) @ rng.normal(size=(4, 12)) + rng.normal(size=12)
    pooled[:, 5] = 0.25
    weight = rng.integers(1, 4, size=60).astype(float)
    repeated = np.repeat(pooled, weight.astype(int), axis=0)
    mean, std = repeated.mean(axis=0), repeated.std(axis=0)
    varying = np.flatnonzero(std > 1e-12)
    direct = (repeated[:, varying] - mean[varying]) / std[varying]
    Z = _standardized(pooled, varying, mean, std, weight, "float64",
                      np.empty_like(pooled))
    assert_allclose(Z.T @ Z, direct.T @ direct, rtol=1e-10, atol=1e-10)
    axes, variances = _principal_axes(Z, 4, 0, weight.sum())
    _, s, vt = np.linalg.svd(direct, full_matrices=False)
    assert_allclose(variances, s[:4] ** 2 / repeated.shape[0], rtol=1e-10)
    assert_allclose(np.abs(np.sum(axes * vt[:4], axis=1)), 1.0, rtol=1e-10)


@pytest.mark.parametrize(("dtype", "atol"), [("float64", 1e-8), ("float32", 1e-5)])
def test_projection_whitens_the_steps_and_the_last_steps_weighed_alike(dtype, atol):
    """On every training step (28: all sampled) and every last step, weighted
    so that the four last steps weigh as much as the 28 steps, the fitted
    features have mean 0 and the identity covariance (the sample spans fewer
    dimensions than the SVD's subspace, so it is exact up to the SVD's
    precision: single precision's rounding, ~1e-7 relative, leaves
    covariances within 1e-5 of the identity)."""
    X = random_walks((8, 6, 9, 5), n_channels=1, seed=2)
    seqs = check_sequences(X)
    rep = ShapeFeatures(n_indicators=84, n_levels=2, projection_dtype=dtype).fit(
        seqs, 0)
    prefix = _unfused(rep, X)
    rows = np.concatenate([np.arange(28), seqs.last_steps])
    weight = np.concatenate([np.ones(28), np.full(4, 7.0)])
    Y = prefix[rows] @ rep.projection_ - rep.offset_
    assert rep.projection_.shape[1] > 3
    assert_allclose(weight @ Y / 56, 0.0, atol=1e-9)
    assert_allclose((Y * weight[:, None]).T @ Y / 56, np.eye(Y.shape[1]), atol=atol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_principal_axes_resolve_small_components_in_either_precision(dtype):
    """Rows of rank 12 whose singular values fall from 1 to 0.002: the
    randomized SVD spans them all, so its axes and variances are the exact
    SVD's (np.linalg.svd), to single precision's accuracy too. Unnormalized
    power iterations scale the last by 0.002**5, below float32's rounding:
    they would lose it."""
    rng = np.random.default_rng(0)
    sigma = np.geomspace(1.0, 0.002, 12)
    left = np.linalg.qr(rng.normal(size=(300, 12)))[0]
    right = np.linalg.qr(rng.normal(size=(200, 12)))[0]
    Z = (left * sigma) @ right.T
    axes, var = _principal_axes(np.asfortranarray(Z, dtype=dtype), 12, 0, 1.0)
    _, S, Vt = np.linalg.svd(Z, full_matrices=False)
    assert_allclose(var, S[:12] ** 2, rtol=1e-3)
    assert_allclose(np.abs(np.sum(axes * Vt[:12], axis=1)), 1.0, atol=1e-4)
