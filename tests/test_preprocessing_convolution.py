"""DilatedConvolution, a per-step representation.

References are slow obvious loops written here: the kernels' weights from
``itertools.combinations``, every tap read by hand, ``np.quantile`` for the
biases, ``math.fsum`` for long sums.
"""

import itertools
import pickle
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skseq._data.dilated import DilatedKernels, column_quantiles
from skseq.preprocessing import (
    DilatedConvolution,
    RunningPooling,
)
from skseq.utils import to_padded

nan = np.nan


GOLDEN = (1 + 5**0.5) / 2
TAPS = list(itertools.combinations(range(9), 3))


def _integers(lengths, n_channels, seed=0):
    """Small integers: every sum is exact, so indicators compare exactly."""
    rng = np.random.default_rng(seed)
    return [rng.integers(-4, 5, size=(k, n_channels)).astype(float) for k in lengths]


def _conv_by_hand(x, t, kernel, dilation, channels, causal, zero):
    """sum_p w_p sum_ch x[step of tap p, ch], every tap read one by one."""
    weights = [2.0 if p in TAPS[kernel] else -1.0 for p in range(9)]
    total = 0.0
    for p in range(9):
        s = t + (p - 8) * dilation if causal else t + (p - 4) * dilation
        for ch in channels:
            if 0 <= s < len(x):
                value = x[s, ch]
            elif zero:
                value = 0.0
            else:
                value = x[0, ch] if s < 0 else x[-1, ch]
            total += weights[p] * value
    return total


def _values_by_hand(conv, X):
    """(len_i, n_combinations) convolution values of every sequence."""
    causal, zero = conv.causal, conv.padding == "zero"
    return [np.array([[_conv_by_hand(x, t, k, d, ch, causal, zero)
                       for (k, d), ch in zip(conv.combinations_, conv.channels_,
                                             strict=True)]
                      for t in range(len(x))]) for x in X]


def _indicators(values, biases):
    """Column m * n_biases + b is values[:, m] > biases[m, b]."""
    return (values[:, :, None] > biases[None]).reshape(values.shape[0], -1)


# -- DilatedConvolution -----------------------------------------------------------
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("padding", ["edge", "zero"])
@pytest.mark.parametrize("channels", ["combine", "each"])
def test_convolution_equals_direct_loop(causal, padding, channels):
    X = _integers((1, 5, 23, 12), n_channels=3)
    conv = DilatedConvolution(n_dilations=3, max_dilation=3, n_biases=2, causal=causal,
                              padding=padding, channels=channels, random_state=0)
    out = conv.fit_transform(X)
    values = _values_by_hand(conv, X)
    pooled = np.concatenate(values)
    # Biases: np.quantile of every combination's values over all training steps
    # at the levels frac(j * golden ratio), j = 1, 2, ...
    levels = (np.arange(1, pooled.shape[1] * 2 + 1) * GOLDEN) % 1.0
    expected = np.array([np.quantile(pooled[:, m], levels[2 * m : 2 * m + 2])
                         for m in range(pooled.shape[1])])
    assert_allclose(conv.biases_, expected, rtol=1e-12, atol=1e-12)
    for got, v in zip(out, values, strict=True):
        assert_array_equal(got, _indicators(v, conv.biases_))
    raw = conv.set_params(output="value").fit(X).transform(X)
    for got, v in zip(raw, values, strict=True):
        assert_array_equal(got, v)


@pytest.mark.parametrize("n_rows", [1, 2, 3, 9, 150, 5000])
def test_column_quantiles_equal_a_full_sort(n_rows):
    # Many ties (small integers), and more columns than one transposed block
    # (150 rows: sorted; 5,000: selected).
    rng = np.random.default_rng(n_rows)
    values = rng.integers(-3, 4, size=(n_rows, 140)).astype(float)
    values[:, 1] = rng.normal(size=n_rows)
    levels = rng.uniform(size=(140, 4))
    levels[0] = [0.0, 1.0, 0.5, 0.5]  # the ends, and a repeated level
    got = column_quantiles(values, levels)
    # the same interpolation read from a full sort, and np.quantile's own
    ordered = np.sort(values, axis=0)
    pos = levels * (n_rows - 1)
    lo = np.floor(pos).astype(int)
    hi = np.minimum(lo + 1, n_rows - 1)
    col = np.arange(140)[:, None]
    below, above = ordered[lo, col], ordered[hi, col]
    assert_array_equal(got, below + (pos - lo) * (above - below))
    expected = np.array([np.quantile(values[:, j], levels[j]) for j in range(140)])
    assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_biases_on_threads_equal_one_thread(monkeypatch):
    # Threads over dilations (made worth it on small data) give the same
    # biases, bit for bit, as one thread; and they do run.
    from skseq._data import dilated

    monkeypatch.setattr(dilated, "_MIN_VALUES_PER_THREAD", 1)
    n_tasks = []
    run = dilated._parallel.run
    monkeypatch.setattr(dilated._parallel, "run",
                        lambda tasks: n_tasks.append(len(tasks)) or run(tasks))
    X = _integers((30, 5, 23, 12), n_channels=2)
    fits, most = [], []
    for n_jobs in (None, 2):
        n_tasks.clear()
        fits.append(DilatedConvolution(n_dilations=3, max_dilation=3, n_biases=2,
                                       random_state=0, n_jobs=n_jobs).fit(X))
        most.append(max(n_tasks))
    assert most == [1, 2]
    assert_array_equal(fits[0].biases_, fits[1].biases_)


def test_combinations_dilations_and_channels():
    X = _integers((20, 40, 100), n_channels=12)
    conv = DilatedConvolution(n_dilations=3, random_state=0).fit(X)
    # Median length 40: the largest window of 8 d + 1 steps that fits has d = 4.
    assert_array_equal(conv.dilations_, [1, 2, 4])
    assert conv.combinations_.shape == (3 * 84, 2)
    assert_array_equal(conv.combinations_[:, 1], np.repeat([1, 2, 4], 84))
    assert_array_equal(conv.combinations_[:84, 0], np.arange(84))
    sizes = [len(ch) for ch in conv.channels_]
    assert min(sizes) >= 1 and max(sizes) <= 9  # MiniRocket: at most 9 channels
    assert len(set(sizes)) > 3  # the count itself is drawn
    for ch in conv.channels_:
        assert_array_equal(ch, np.unique(ch))
        assert ch.min() >= 0 and ch.max() < 12
    again = DilatedConvolution(n_dilations=3, random_state=0).fit(X)
    other = DilatedConvolution(n_dilations=3, random_state=1).fit(X)
    assert all(np.array_equal(a, b) for a, b in zip(conv.channels_, again.channels_,
                                                    strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(conv.channels_, other.channels_,
                                                        strict=True))
    each = DilatedConvolution(n_dilations=1, channels="each").fit(X)
    assert each.combinations_.shape == (84 * 12, 2)
    assert [c.tolist() for c in each.channels_[:13]] == [[c] for c in range(12)] + [[0]]


@pytest.mark.parametrize("n_channels", [1, 2, 12])
def test_channels_are_drawn_as_minirocket_draws_them(n_channels):
    """Each (dilation, kernel) in turn draws u ~ U(0, log2(min(n, 9) + 1))
    and then floor(2 ** u) channels without replacement (Dempster, Schmidt &
    Webb 2021): the same draws, from the same stream, as that loop with
    ``choice``, leaving the generator in the same state (a single channel
    too, whose draws change nothing but the stream)."""
    kernels = DilatedKernels(random_state=0)
    kernels.dilations_ = np.array([1, 3, 7])
    rng, reference = np.random.RandomState(5), np.random.RandomState(5)
    combinations, channels = kernels._draw_combinations(n_channels, rng)
    top = np.log2(min(n_channels, 9) + 1)
    for i, (d, k) in enumerate(itertools.product([1, 3, 7], range(84))):
        assert combinations[i].tolist() == [k, d]
        size = min(int(2.0 ** reference.uniform(0.0, top)), n_channels)
        expected = (reference.choice(n_channels, size, replace=False)
                    if n_channels > 1 else [0])
        assert channels[i].dtype == np.intp
        assert channels[i].tolist() == sorted(expected)
    assert len(channels) == combinations.shape[0] == 3 * 84
    assert rng.randint(2**31) == reference.randint(2**31)


@pytest.mark.parametrize("n_dilations, max_dilation, expected", [
    (4, 8, [1, 2, 4, 8]),  # 2 ** log2(8) must not round down to 7
    (4, 2, [1, 2]),        # 1, 1.26, 1.59, 2: two distinct values
    (1, 30, [1]),
    (5, 32, [1, 2, 5, 13, 32]),  # 2 ** (0, 1.25, 2.5, 3.75, 5)
])
def test_dilations_are_exponentially_spaced(n_dilations, max_dilation, expected):
    X = _integers((30,), n_channels=1)
    conv = DilatedConvolution(n_dilations, max_dilation=max_dilation, n_biases=1,
                              output="value").fit(X)
    assert_array_equal(conv.dilations_, expected)
    assert conv.transform(X)[0].shape == (30, 84 * len(expected))


def test_the_largest_dilation_is_the_kernels_and_larger_ones_are_refused():
    # 2**70 failed in np.log2 with a TypeError naming no parameter; 2**62 was
    # fitted with output="value" and refused by the kernel at transform; and
    # from about 9e5 on, the largest dilation was max_dilation - 1 (2 ** log2
    # rounded down)
    x = np.arange(1.0, 6.0)[:, None]
    top = np.iinfo(np.intp).max // 36  # 4 * 9 taps: the kernel's index range
    conv = DilatedConvolution(2, max_dilation=top, output="value").fit([x])
    assert_array_equal(conv.dilations_, [1, top])
    # every tap but the last reads before the start: the first value (edge)
    taps = np.full((84, 9), -1.0)
    for k, chosen in enumerate(itertools.combinations(range(9), 3)):
        taps[k, list(chosen)] = 2.0
    expected = x * taps[:, 8] + x[0, 0] * taps[:, :8].sum(axis=1)
    assert_allclose(conv.transform([x])[0][:, 84:], expected, atol=1e-13)
    for m in (894831, 1023644713):
        assert DilatedConvolution(3, max_dilation=m).fit([x]).dilations_[-1] == m
    for big in (top + 1, 2**62, 2**70):
        with pytest.raises(ValueError, match="'max_dilation' parameter"):
            DilatedConvolution(2, max_dilation=big, output="value").fit([x])


def test_feature_count_and_names():
    X = _integers((30, 20), n_channels=2)
    conv = DilatedConvolution(n_dilations=2, max_dilation=2, n_biases=3).fit(X)
    names = conv.get_feature_names_out()
    assert conv.transform(X)[0].shape == (30, 84 * 2 * 3) == (30, len(names))
    assert list(names[:4]) == ["k0_d1_q0", "k0_d1_q1", "k0_d1_q2", "k1_d1_q0"]
    each = DilatedConvolution(n_dilations=1, channels="each", output="value").fit(X)
    assert list(each.get_feature_names_out(["u", "v"])[:3]) == ["k0_d1_u", "k0_d1_v",
                                                                 "k1_d1_u"]


def test_causal_outputs_do_not_see_the_future():
    rng = np.random.default_rng(1)
    X = [rng.normal(size=(60, 2)), rng.normal(size=(35, 2))]
    t = 20
    future = [X[0].copy(), X[1]]
    future[0][t + 1 :] = rng.normal(size=(39, 2)) * 10.0
    for output in ("indicator", "value"):
        conv = DilatedConvolution(output=output, random_state=0).fit(X)
        before, after = conv.transform(X), conv.transform(future)
        assert_array_equal(before[0][: t + 1], after[0][: t + 1])
        assert not np.array_equal(before[0][t + 1 :], after[0][t + 1 :])
        assert_array_equal(before[1], after[1])
        centred = conv.set_params(causal=False).fit(X)
        assert not np.array_equal(centred.transform(X)[0][: t + 1],
                                  centred.transform(future)[0][: t + 1])


def test_forms_lengths_and_padding():
    X = _integers((7, 1, 30), n_channels=2, seed=2)
    conv = DilatedConvolution(n_dilations=2, max_dilation=2, random_state=0).fit(X)
    out = conv.transform(X)
    assert isinstance(out, list) and [len(o) for o in out] == [7, 1, 30]
    padded = conv.transform(to_padded(X))
    assert padded.shape == (3, 30, 84 * 2 * 2)
    assert_array_equal(padded, to_padded(out))  # NaN padding after each end
    rows = np.concatenate(X)
    with pytest.warns(UserWarning, match="2-D table"):  # rows after sequences
        out_rows = conv.transform(rows)
    assert out_rows.shape == (38, 84 * 2 * 2)
    # A one-step sequence is a flat window: every convolution is exactly 0.
    assert_array_equal(out_rows, np.broadcast_to(_indicators(
        np.zeros((1, 168)), conv.biases_), out_rows.shape))
    assert_array_equal(conv.set_params(output="value").fit(rows).transform(rows), 0.0)


def test_flat_windows_give_exact_zeros_at_any_level():
    # 0.1 + 0.1 + ... is not 9 * 0.1 in floating point; differences to the
    # anchor step are, so a flat stretch gives 0 and no random indicator bits.
    X = [np.full((40, 1), 0.1), np.full((10, 1), 1e9 + 0.3)]
    out = DilatedConvolution(output="value").fit(X).transform(X)
    assert_array_equal(np.concatenate(out), 0.0)


def test_transform_uses_the_biases_fitted_on_training_data():
    X_train = _integers((30, 25, 40), n_channels=1, seed=3)
    X_test = [3.0 * x + 2.0 for x in _integers((35, 12), n_channels=1, seed=4)]
    conv = DilatedConvolution(n_dilations=2, max_dilation=3, random_state=0)
    out = conv.fit(X_train).transform(X_test)
    values = _values_by_hand(conv, X_test)
    for got, v in zip(out, values, strict=True):
        assert_array_equal(got, _indicators(v, conv.biases_))
    refit = DilatedConvolution(n_dilations=2, max_dilation=3, random_state=0)
    assert not np.allclose(refit.fit(X_test).biases_, conv.biases_)


def test_subsample_draws_training_steps_for_the_biases():
    X = _integers((200, 150), n_channels=1, seed=5)
    full = DilatedConvolution(n_dilations=1, random_state=0).fit(X)
    values = np.concatenate(_values_by_hand(full, X))
    subs = [DilatedConvolution(n_dilations=1, subsample=50, random_state=seed).fit(X)
            for seed in (0, 0, 1)]
    assert_array_equal(subs[0].biases_, subs[1].biases_)
    assert not np.array_equal(subs[0].biases_, subs[2].biases_)
    assert not np.array_equal(subs[0].biases_, full.biases_)
    assert np.all(subs[0].biases_ >= values.min(axis=0)[:, None])
    assert np.all(subs[0].biases_ <= values.max(axis=0)[:, None])


@pytest.mark.parametrize("channels", ["combine", "each"])
def test_series_thresholds_are_quantiles_of_one_training_series(channels):
    # threshold_sample="series" (MiniRocket's rule): each combination's biases
    # are np.quantile of its by-hand convolution over ONE training series, at
    # the golden levels; the series differ between combinations; the same
    # series are drawn whatever the order of the collection.
    rng = np.random.default_rng(3)
    X = [rng.normal(size=(k, 2)) for k in (5, 13, 8, 11, 3)]
    kernels = DilatedConvolution(n_dilations=2, max_dilation=2, n_biases=3,
                                 channels=channels, threshold_sample="series",
                                 random_state=0)
    got = kernels.fit(X).biases_
    values = _values_by_hand(kernels, X)
    n_comb = got.shape[0]
    levels = ((np.arange(1, 3 * n_comb + 1) * GOLDEN) % 1.0).reshape(n_comb, 3)
    chosen = []
    for m in range(n_comb):
        by_series = [np.quantile(v[:, m], levels[m]) for v in values]
        match = [s for s, q in enumerate(by_series)
                 if np.allclose(q, got[m], rtol=1e-12, atol=1e-12)]
        assert len(match) == 1, m
        chosen.append(match[0])
    assert len(set(chosen)) == len(X)
    perm = [3, 0, 4, 2, 1]
    again = kernels.fit([X[i] for i in perm]).biases_
    assert_array_equal(again, got)


def test_series_thresholds_read_at_most_subsample_steps_of_a_series(monkeypatch):
    # A series longer than ``subsample``: its thresholds come from that many of
    # its steps (the kernel is never called on more), within its values'
    # range, not its full quantiles; the same draws in any order of the
    # collection.
    from skseq._data import dilated

    rng = np.random.default_rng(4)
    X = [rng.normal(size=(k, 1)) for k in (60, 4, 7)]
    calls = []
    convolve = dilated.convolution.dilated_convolution
    monkeypatch.setattr(dilated.convolution, "dilated_convolution",
                        lambda *a, **k: calls.append(a[2].size) or convolve(*a, **k))
    kernels = DilatedConvolution(n_dilations=1, n_biases=2, subsample=20,
                                 threshold_sample="series", random_state=0)
    got = kernels.fit(X).biases_
    assert max(calls) == 20
    values = _values_by_hand(kernels, X)[0]
    levels = ((np.arange(1, 2 * 84 + 1) * GOLDEN) % 1.0).reshape(84, 2)
    full = np.array([np.quantile(values[:, m], levels[m]) for m in range(84)])
    inside = (got >= values.min(axis=0)[:, None]) & (got <= values.max(axis=0)[:, None])
    long_ones = [m for m in range(84) if np.all(inside[m])
                 and not np.allclose(got[m], full[m])]
    assert len(long_ones) > 10
    again = kernels.fit(X[::-1]).biases_
    assert_array_equal(again, got)


def test_series_thresholds_ignore_order_among_series_of_equal_sums():
    # Integer series that are rotations of one another have the same length and
    # the same sum of every channel (a tie of any summary of their steps'
    # sums): the series drawn must still be the same in any order of the
    # collection (they were the ones at the drawn positions).
    base = np.arange(9.0)[:, None] % 4 * [1.0, -1.0] + [0.0, 3.0]
    X = [np.roll(base, r, axis=0) for r in (0, 2, 5, 7)]
    kernels = DilatedConvolution(n_dilations=1, n_biases=1,
                                 threshold_sample="series", random_state=0)
    got = kernels.fit(X).biases_
    for perm in ([3, 2, 1, 0], [1, 3, 0, 2]):
        assert_array_equal(kernels.fit([X[i] for i in perm]).biases_, got)


def test_series_thresholds_of_huge_values_are_those_of_the_values_scaled():
    # Values near float64's limit, whose convolution is finite but whose sum
    # over a long series is not: no overflow warning (an error for the package's
    # own code), and the thresholds those of the values divided by a power of
    # two (exact), times it.
    rng = np.random.default_rng(7)
    X = [1.0 + rng.normal(size=(k, 1)) ** 2 for k in (1500, 40, 900)]
    kernels = DilatedConvolution(n_dilations=1, n_biases=2,
                                 threshold_sample="series", random_state=0)
    small = kernels.fit(X).biases_
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        huge = kernels.fit([x * 2.0**1015 for x in X]).biases_
    assert_array_equal(huge, small * 2.0**1015)


def test_unequal_lengths_from_20_to_1400_steps():
    rng = np.random.default_rng(6)
    X = [np.cumsum(rng.integers(-3, 4, size=(k, 2)), axis=0).astype(float)
         for k in (20, 1400, 333)]
    conv = DilatedConvolution(output="value", random_state=0).fit(X)
    # Median 333: d <= 41; 2 ** (0, 1.79, 3.57, 5.36).
    assert_array_equal(conv.dilations_, [1, 3, 11, 41])
    out = conv.transform(X)
    assert [o.shape for o in out] == [(20, 336), (1400, 336), (333, 336)]
    for s, t in [(0, 0), (0, 19), (1, 5), (1, 700), (1, 1399), (2, 332)]:
        expected = [_conv_by_hand(X[s], t, k, d, ch, True, False)
                    for (k, d), ch in zip(conv.combinations_, conv.channels_,
                                          strict=True)]
        assert_array_equal(out[s][t], expected)


def test_threads_pooling_pickle_and_determinism():
    rng = np.random.default_rng(7)
    X = [rng.normal(size=(k, 1)) for k in (900, 1300, 400)]
    conv = DilatedConvolution(random_state=0).fit(X)
    out = conv.transform(X)
    threaded = DilatedConvolution(random_state=0, n_jobs=2).fit(X).transform(X)
    for a, b in zip(out, threaded, strict=True):
        assert_array_equal(a, b)
    restored = pickle.loads(pickle.dumps(conv))
    for a, b in zip(out, restored.transform(X), strict=True):
        assert_array_equal(a, b)
    for pooling, window in ((5, 5), ("prefix", None)):
        pooled = DilatedConvolution(random_state=0, pooling=pooling).fit(X).transform(X)
        for a, b in zip(RunningPooling(window).fit_transform(out), pooled,
                        strict=True):
            assert_array_equal(a, b)


def test_convolution_rejects_bad_input():
    X = _integers((10, 8), n_channels=2)
    conv = DilatedConvolution().fit(X)
    with pytest.raises(ValueError, match="X has 3 features, but DilatedConvolution "
                                         "is expecting 2"):
        conv.transform([np.ones((5, 3))])
    with pytest.raises(ValueError, match="sequence 1 contains NaN at step 2"):
        conv.transform([np.ones((4, 2)), np.array([[0, 1], [1, 1], [np.nan, 1]])])
    with pytest.raises(ValueError, match="sequence 0 is empty"):
        conv.transform([np.ones((0, 2))])
    with pytest.raises(ValueError, match="'n_dilations' parameter"):
        DilatedConvolution(n_dilations=0).fit(X)
    with pytest.raises(ValueError, match="'max_dilation' parameter"):
        DilatedConvolution(n_dilations=2, max_dilation=2**62).fit(X)
    with pytest.raises(ValueError, match="'padding' parameter"):
        DilatedConvolution(padding="reflect").fit(X)
    before = conv.biases_
    with pytest.raises(ValueError, match="'output' parameter"):
        conv.set_params(output="ppv").fit(X)
    assert conv.biases_ is before  # a failed fit leaves the fitted state
    conv.set_params(output="value", causal=False)
    with pytest.raises(ValueError, match="causal, output changed since fit"):
        conv.transform(X)
    conv.set_params(output="indicator", causal=True, n_jobs=2, pooling=3)
    assert conv.transform(X)[0].shape == (10, 84 * 2)  # not structural
