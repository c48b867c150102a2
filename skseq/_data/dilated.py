"""MiniRocket's dilated kernels fitted on packed sequences: the dilations, the
channels each (kernel, dilation) pair reads and the indicators' thresholds.

Shared by the public transformer :class:`skseq.preprocessing.DilatedConvolution`
(which validates its input, then fits these) and the estimators' shape
representation (:class:`~skseq._data.representation.ShapeFeatures`, whose
sequences are already packed and checked). The kernels themselves are compiled
(``skseq._kernels.convolution``).
"""

import functools

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state

from .._fit.resources import check_allocation
from .._kernels import _parallel, convolution, select
from .lifecycle import is_number

# The golden ratio: the bias quantiles are the fractional parts of j * phi, a
# low-discrepancy sequence in (0, 1), as in MiniRocket (Dempster et al. 2021, §3.2).
_GOLDEN = (1.0 + np.sqrt(5.0)) / 2.0

# The largest dilation whose taps the compiled kernels can index without
# overflow (they refuse larger ones).
MAX_DILATION = int(np.iinfo(np.intp).max // (4 * convolution.N_TAPS))


def dilation_grid(n_dilations, max_dilation):
    """The distinct dilations of :class:`DilatedKernels`: ``n_dilations``
    exponentially spaced from 1 to ``max_dilation``, rounded down (MiniRocket's
    spacing)."""
    # Spaced closer than half the narrowest gap between the logarithms of
    # consecutive integers, the grid holds every integer up to max_dilation
    # (however many points: a huge n_dilations allocates nothing).
    if max_dilation == 1 or (n_dilations - 1) * np.log2(1 + 1 / max_dilation) > (
            2 * np.log2(max_dilation)):
        return np.arange(1, max_dilation + 1, dtype=np.intp)
    # + 1e-9: 2 ** log2(8) may land just below 8.
    exponents = np.linspace(0.0, np.log2(max_dilation), n_dilations)
    grid = np.floor(2.0 ** exponents + 1e-9).astype(np.intp)
    # the last is max_dilation itself, which that rounding misses from about
    # 9e5 on (2 ** log2(m) just below m)
    grid[-1] = max_dilation if n_dilations > 1 else 1
    return np.unique(np.minimum(grid, max_dilation))


# float64 arrays of the thresholds' size that fitting them holds at once (the
# levels and their golden-ratio multiples, the levels' positions and ranks,
# the order statistics below and above them, the thresholds)
TABLE_COPIES = 8


def check_indicator_memory(owner, parameter, n_indicators, copies, rows=False):
    """ValueError, before allocating, if ``copies`` float64 arrays of
    ``n_indicators`` values (a quantile table, or the ``rows`` of a feature
    matrix) cannot fit in memory, naming ``parameter`` (``"name=value"``),
    which sets their number."""
    name = parameter.split("=")[0]
    check_allocation(
        owner, 8 * n_indicators * copies,
        f"{parameter} ({n_indicators:,} indicator thresholds, {copies:,} "
        "float64 values each)", f"lower {name}"
        + (" or transform fewer steps at a time." if rows else "."))


def check_quantile_range(lo_hi):
    """ValueError unless ``lo_hi`` is ``(low, high)`` with 0 <= low < high <= 1."""
    if (len(lo_hi) != 2 or not all(is_number(v) for v in lo_hi)
            or not 0.0 <= lo_hi[0] < lo_hi[1] <= 1.0):
        raise ValueError(
            f"quantile_range must be (low, high) with 0 <= low < high <= 1, "
            f"got {lo_hi!r}."
        )


class DilatedKernels(BaseEstimator):
    """MiniRocket's kernels with fitted dilations, channels and biases.

    The parameters are those of :class:`skseq.preprocessing.DilatedConvolution`
    (which describes them), but for its ``pooling``; :meth:`fit_packed` fits
    them on packed :class:`~skseq._data.sequences.Sequences` without checking
    them again.

    Attributes
    ----------
    dilations_ : ndarray of shape (n_dilations_,)
    combinations_ : ndarray of shape (n_combinations, 2)
        ``(kernel, dilation)`` of each combination, in output order.
    channels_ : list of ndarray
        The channels each combination sums its kernel over.
    biases_ : ndarray of shape (n_combinations, n_biases)
        The thresholds of the indicators (0 columns for ``output="value"``).
    """

    def __init__(self, n_dilations=4, *, max_dilation=None, n_biases=2,
                 output="indicator", causal=True, padding="edge",
                 channels="combine", quantile_levels="golden",
                 quantile_range=(0.0, 1.0), subsample=10_000,
                 threshold_sample="steps", random_state=None, n_jobs=None):
        self.n_dilations = n_dilations
        self.max_dilation = max_dilation
        self.n_biases = n_biases
        self.output = output
        self.causal = causal
        self.padding = padding
        self.channels = channels
        self.quantile_levels = quantile_levels
        self.quantile_range = quantile_range
        self.subsample = subsample
        self.threshold_sample = threshold_sample
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit_packed(self, seqs, owner=None, parameter=None, copies=TABLE_COPIES):
        """Choose the dilations and channels, and fit the biases on packed
        sequences ``seqs`` (already checked). ValueError, before the quantile
        table is allocated, if ``copies`` float64 values per threshold cannot
        fit in memory (:func:`check_indicator_memory`), naming ``owner`` and
        ``parameter`` (by default this object and its ``n_biases``)."""
        rng = check_random_state(self.random_state)
        max_d = self.max_dilation
        if max_d is None:
            max_d = max(1, int((np.median(seqs.lengths) - 1) // 8))
        self.dilations_ = dilation_grid(self.n_dilations, max_d)
        self.combinations_, self.channels_ = self._draw_combinations(
            seqs.n_features, rng)
        self.biases_ = np.empty((len(self.channels_), 0))
        if self.output == "indicator":
            check_indicator_memory(owner or self,
                                   parameter or f"n_biases={self.n_biases}",
                                   len(self.channels_) * self.n_biases, copies)
            self.biases_ = self._fit_biases(seqs, rng)
        return self

    def _draw_combinations(self, n_ch, rng):
        """``(kernel, dilation)`` of every combination and the channels it
        reads: all channels one by one (``channels="each"``), or a random
        subset of ``floor(2 ** u)`` of them (MiniRocket's rule)."""
        n_kernels = convolution.KERNEL_POSITIONS.shape[0]
        combinations = np.column_stack([
            np.tile(np.arange(n_kernels), self.dilations_.size),
            np.repeat(self.dilations_, n_kernels)]).astype(np.intp)
        if self.channels == "each":
            return (np.repeat(combinations, n_ch, axis=0),
                    [np.array([c]) for _ in combinations for c in range(n_ch)])
        top = np.log2(min(n_ch, 9) + 1)
        if n_ch == 1:  # the draws of the rule, in one call: one channel each
            rng.uniform(0.0, top, size=combinations.shape[0])
            return combinations, [np.zeros(1, dtype=np.intp) for _ in combinations]
        channels = []
        for _ in combinations:
            size = min(int(2.0 ** rng.uniform(0.0, top)), n_ch)
            # (what rng.choice(n_ch, size, replace=False) draws, a third of its cost)
            channels.append(np.sort(rng.permutation(n_ch)[:size]))
        return combinations, channels

    def _fit_biases(self, seqs, rng):
        """Quantiles of each combination's convolution, at the levels of
        ``quantile_levels``: on (a subsample of) the training steps
        (``threshold_sample="steps"``), or on the steps of one training
        sequence drawn at random for each combination (``"series"``,
        MiniRocket's rule: Dempster, Schmidt & Webb 2021, §3.2; at most
        ``subsample`` steps of it, drawn at random)."""
        series = self.threshold_sample == "series"
        n_steps = seqs.data.shape[0]
        rows = np.arange(n_steps)
        if n_steps > self.subsample and not series:
            rows = np.sort(rng.choice(n_steps, self.subsample, replace=False))
        n_comb = len(self.channels_)
        lo, hi = self.quantile_range
        if self.quantile_levels == "random":
            levels = rng.uniform(size=(n_comb, self.n_biases))
        else:
            levels = np.modf(np.arange(1, n_comb * self.n_biases + 1) * _GOLDEN)[0]
        levels = lo + (hi - lo) * levels.reshape(n_comb, self.n_biases)
        if series:
            return series_quantiles(seqs, rng.randint(seqs.n_sequences, size=n_comb),
                                    levels, kernel_arguments(self), rng,
                                    self.subsample)
        return convolution_quantiles(seqs, rows, levels, kernel_arguments(self))

    def _kernel_arguments(self):
        return kernel_arguments(self)

    def _convolve(self, seqs, rows, biases):
        """The kernel on packed steps ``rows``, with the fitted combinations."""
        return convolution.dilated_convolution(seqs.data, seqs.offsets, rows,
                                             biases=biases, **kernel_arguments(self))


def kernel_arguments(fitted):
    """The fitted combinations of ``fitted`` (a :class:`DilatedKernels` or a
    fitted :class:`~skseq.preprocessing.DilatedConvolution`) as the arguments of
    the kernels in ``skseq._kernels.convolution`` (all but the data, the rows and the
    biases)."""
    dilation_of = fitted.combinations_[:, 1]
    sizes = np.fromiter((c.shape[0] for c in fitted.channels_), dtype=np.intp,
                        count=len(fitted.channels_))
    return dict(
        dilations=fitted.dilations_,
        combination_ptr=np.searchsorted(
            dilation_of, np.append(fitted.dilations_, dilation_of.max() + 1)),
        positions=convolution.KERNEL_POSITIONS[fitted.combinations_[:, 0]],
        channel_ptr=np.concatenate([[0], np.cumsum(sizes)]),
        channels=np.concatenate(fitted.channels_),
        causal=fitted.causal, zero_pad=fitted.padding == "zero",
        n_jobs=fitted.n_jobs,
    )


def _one_dilation(arguments, d):
    """The kernel arguments of dilation ``d``'s combinations alone."""
    c0, c1 = arguments["combination_ptr"][d : d + 2]
    channel_ptr = arguments["channel_ptr"]
    return {**arguments, "dilations": arguments["dilations"][d : d + 1],
            "combination_ptr": np.array([0, c1 - c0]),
            "positions": arguments["positions"][c0:c1],
            "channel_ptr": channel_ptr[c0 : c1 + 1] - channel_ptr[c0],
            "channels": arguments["channels"][channel_ptr[c0] : channel_ptr[c1]],
            "n_jobs": None}


def content_order(seqs):
    """The sequences' indices ordered by their content (length, then a fixed
    random projection of their steps' sum, then, among equal ones, their
    steps themselves), not by their position: sequences drawn by index from
    it are the same whatever the order of the collection."""
    # (each step's key summed alone: a matrix product may round a row by its
    # position; values near float64's limit divided by a power of two first,
    # exactly, so that their sums stay finite and in the same order)
    data = seqs.data
    top = np.abs(data).max()
    if top > 2.0**512:
        data = np.ldexp(data, -int(np.frexp(top)[1]))
    key = np.add.reduceat(
        (data * np.random.RandomState(0).standard_normal(seqs.n_features)
         ).sum(axis=1), seqs.offsets[:-1])
    order = np.lexsort((key, seqs.lengths))
    # Equal sums need not be equal steps (rotations of an integer series):
    # such runs ordered by their steps' bytes.
    k, n = key[order], seqs.lengths[order]
    tied = (n[1:] == n[:-1]) & (k[1:] == k[:-1])
    edges = np.flatnonzero(np.diff(np.concatenate([[0], tied, [0]]).astype(np.int8)))
    for first, last in zip(edges[::2], edges[1::2], strict=True):
        order[first : last + 1] = sorted(
            order[first : last + 1],
            key=lambda s: seqs.data[seqs.offsets[s] : seqs.offsets[s + 1]].tobytes())
    return order


def _some_combinations(arguments, kept):
    """The kernel arguments of the combinations ``kept`` (increasing) alone,
    every dilation kept (those without a kept combination have none)."""
    ptr, channel_ptr = arguments["combination_ptr"], arguments["channel_ptr"]
    sizes = np.diff(channel_ptr)[kept]
    reads = np.repeat(channel_ptr[kept] - np.cumsum(np.r_[0, sizes[:-1]]), sizes)
    return {**arguments, "combination_ptr": np.searchsorted(kept, ptr),
            "positions": arguments["positions"][kept],
            "channel_ptr": np.concatenate([[0], np.cumsum(sizes)]),
            "channels": arguments["channels"][reads + np.arange(sizes.sum())],
            "n_jobs": None}


def series_quantiles(seqs, picks, levels, arguments, rng, most):
    """Quantiles of every combination's convolution over the steps of one
    sequence, at its ``levels`` (n_combinations, n_levels), with the kernel
    ``arguments`` of :func:`kernel_arguments`. Combination ``m`` reads the
    sequence at position ``picks[m]`` of :func:`content_order` (so the same
    sequences whatever the order of the collection), all its steps or, of a
    longer one, ``most`` drawn with ``rng``: one call of the kernel per
    sequence, for the combinations that picked it."""
    order = content_order(seqs)
    out = np.empty(levels.shape)
    for p in np.unique(picks):
        kept = np.flatnonzero(picks == p)
        s = order[p]
        rows = np.arange(seqs.offsets[s], seqs.offsets[s + 1])
        if rows.size > most:
            rows = np.sort(rng.choice(rows, most, replace=False))
        values = convolution.dilated_convolution(
            seqs.data, seqs.offsets, rows, biases=np.empty((kept.size, 0)),
            **_some_combinations(arguments, kept))
        out[kept] = column_quantiles(values, levels[kept])
    return out


# Below this many convolution values per thread, a thread costs more than it saves.
_MIN_VALUES_PER_THREAD = 1 << 20


def convolution_quantiles(seqs, rows, levels, arguments):
    """Quantiles of every combination's convolution at the packed steps
    ``rows`` of ``seqs``, at its own ``levels`` (n_combinations, n_levels),
    with the kernel ``arguments`` of :func:`kernel_arguments`.

    A dilation at a time: its values (rows x 84 combinations) stay in the
    cache while they are selected, where all of them at once (9,036 x 1,008 on
    ArrowHead, 73 MB) were fresh memory from the system, written then read
    again from main memory. On threads (``arguments["n_jobs"]``) over
    dilations, each computing the same values as alone.
    """
    ptr = arguments["combination_ptr"]
    n_dilations = ptr.shape[0] - 1
    n_threads = _parallel.n_threads(arguments["n_jobs"], n_dilations,
                                    rows.shape[0] * int(ptr[-1]),
                                    _MIN_VALUES_PER_THREAD)
    out = np.empty(levels.shape)

    def task(first, end):
        for d in range(first, end):
            c0, c1 = ptr[d : d + 2]
            values = convolution.dilated_convolution(
                seqs.data, seqs.offsets, rows, biases=np.empty((c1 - c0, 0)),
                **_one_dilation(arguments, d))
            out[c0:c1] = column_quantiles(values, levels[c0:c1])

    _parallel.run([functools.partial(task, a, b)
                   for a, b in _parallel.balanced_ranges(ptr, n_threads)])
    return out


# Up to this many rows one sort of each block of columns is faster than a
# selection per column (whose Python overhead, a few microseconds a column,
# then dominates); beyond, a selection is faster (np.partition at the needed
# ranks: 3x on BasicMotions' 4,000 x 840 convolution values).
_SORT_UP_TO = 512
# Columns transposed at once: 128 columns of 10,000 rows are 10 MB.
_BLOCK = 128


def column_quantiles(values, levels):
    """Quantiles of every column of ``values`` at its own ``levels``.

    Linear interpolation between the order statistics ``floor(p)`` and
    ``floor(p) + 1`` at ``p = level * (n_rows - 1)`` (the method
    ``np.quantile`` calls "linear", its default), computed as
    ``below + (p - floor(p)) * (above - below)``. The order statistics are
    sorted out of short columns, and counted into parts of the range of long
    ones (``skseq._kernels.select``; the few columns it leaves, of many equal
    values or a far outlier, selected by ``np.partition`` of a contiguous
    copy at the needed ranks).

    Parameters
    ----------
    values : ndarray of shape (n_rows, n_columns)
    levels : ndarray of shape (n_columns, n_levels)
        In [0, 1].

    Returns
    -------
    quantiles : ndarray of shape (n_columns, n_levels)
    """
    n_rows, n_columns = values.shape
    pos = levels * (n_rows - 1)
    below_rank = np.floor(pos).astype(np.intp)
    above_rank = np.minimum(below_rank + 1, n_rows - 1)
    below = np.empty(levels.shape)
    above = np.empty(levels.shape)
    left = np.arange(n_columns)
    if n_rows > _SORT_UP_TO:
        # counted into parts of their range, without a transposed copy: a
        # third of the selections' time on ArrowHead's 9,036 x 84 values
        both, found = select.column_order_statistics(
            values, np.concatenate([below_rank, above_rank], axis=1))
        below[found], above[found] = np.split(both[found], 2, axis=1)
        left = np.flatnonzero(~found)
    for first in range(0, left.size, _BLOCK):
        cols = left[first : first + _BLOCK]
        block = np.ascontiguousarray(values[:, cols].T)
        if n_rows <= _SORT_UP_TO:
            block.sort(axis=1)
            within = np.arange(cols.size)[:, None]
            below[cols] = block[within, below_rank[cols]]
            above[cols] = block[within, above_rank[cols]]
            continue
        kth = np.sort(np.concatenate([below_rank[cols], above_rank[cols]], axis=1),
                      axis=1)
        for i, (j, column) in enumerate(zip(cols, block, strict=True)):
            column.partition(kth[i])
            below[j] = column[below_rank[j]]
            above[j] = column[above_rank[j]]
    return below + (pos - below_rank) * (above - below)
