"""Thin wrappers around the kernels of ``_convolution.pyx``, the dilated
convolutions (Dempster, Schmidt & Webb 2021) and the prefix means of their
indicators: shape checks, allocation, and rows or sequences spread over threads
(the kernels release the GIL, so threads run them in parallel). The running
pooling is in ``pooling.py``."""

import functools
import itertools

import numpy as np

from . import _parallel
from ._build import build
from ._packed import check_offsets, overflow_scale

_convolution = build("_convolution")

# The 84 MiniRocket kernels (Dempster et al. 2021, section 3.1): row k lists the
# three taps (of 9) with weight 2; the other six have weight -1.
KERNEL_POSITIONS = np.array(list(itertools.combinations(range(9), 3)), dtype=np.intp)
N_TAPS = 9

# Below this many output values per thread, starting a thread costs more than it
# saves.
_MIN_VALUES_PER_THREAD = 1 << 20
# Rows whose prefix-mean indicators prefix_indicators holds at once before
# projecting them: 1,024 x 2,688 indicators are 22 MB.
_ROWS_PER_CHUNK = 1024
# The most prefix means prefix_indicators keeps while its row projection is
# being computed (six chunks of 2,704 indicators).
_PENDING_BYTES = 6 * 1024 * 2704 * 8
# prefix_indicator_fill adds one projected vector per pair of combinations when
# they have at most 2 biases: a pair's table has (n_biases + 1)**2 rows, few
# enough to stay in the cache (13% faster on 2 biases, as fast on 3).
_GROUP_SIZE = 2
_GROUP_MAX_BIASES = 2


def kernel_weights(kernel):
    """The 9 weights of kernel ``kernel`` (an index into ``KERNEL_POSITIONS``)."""
    weights = np.full(N_TAPS, -1.0)
    weights[KERNEL_POSITIONS[kernel]] = 2.0
    return weights


def _n_chunks(n_items, n_values, n_jobs):
    return _parallel.n_threads(n_jobs, n_items, n_values, _MIN_VALUES_PER_THREAD)


def _run(calls):
    """Run kernel calls (``(func, args)`` pairs), one per thread."""
    _parallel.run([functools.partial(func, *args) for func, args in calls])


def _checked_combinations(data, offsets, dilations, combination_ptr, positions,
                          channel_ptr, channels, biases):
    """The arguments of the convolution kernels as contiguous arrays, checked:
    the kernels do not check bounds, so everything they index is checked here."""
    data = np.ascontiguousarray(data, dtype=np.float64)
    offsets = np.ascontiguousarray(offsets, dtype=np.intp)
    dilations = np.ascontiguousarray(dilations, dtype=np.intp)
    combination_ptr = np.ascontiguousarray(combination_ptr, dtype=np.intp)
    positions = np.ascontiguousarray(positions, dtype=np.intp)
    channel_ptr = np.ascontiguousarray(channel_ptr, dtype=np.intp)
    channels = np.ascontiguousarray(channels, dtype=np.intp)
    biases = np.ascontiguousarray(biases, dtype=np.float64)
    n_steps, n_channels = data.shape
    n_comb = positions.shape[0]
    check_offsets(offsets, n_steps)
    if dilations.size and dilations.max() > np.iinfo(np.intp).max // (4 * N_TAPS):
        raise ValueError(f"dilation {dilations.max()} is too large: the kernel's "
                         "step indices would overflow.")
    if (dilations.ndim != 1 or np.any(dilations < 1)
            or combination_ptr.shape != (dilations.shape[0] + 1,)
            or combination_ptr[0] != 0 or combination_ptr[-1] != n_comb
            or np.any(np.diff(combination_ptr) < 0)):
        raise ValueError("dilations and combination_ptr do not match.")
    if positions.ndim != 2 or positions.shape[1] != 3 or np.any(
            (positions < 0) | (positions >= N_TAPS)):
        raise ValueError("positions must be (n_combinations, 3) taps in 0..8.")
    if (channel_ptr.shape != (n_comb + 1,) or channel_ptr[0] != 0
            or channel_ptr[-1] != channels.shape[0]
            or np.any(np.diff(channel_ptr) < 0)
            or np.any((channels < 0) | (channels >= n_channels))):
        raise ValueError("channel_ptr and channels do not match the data.")
    if biases.ndim != 2 or biases.shape[0] != n_comb:
        raise ValueError("biases must be (n_combinations, n_biases).")
    return (data, offsets, dilations, combination_ptr, positions, channel_ptr,
            channels, biases)


def _checked_rows(rows, n_steps):
    rows = np.ascontiguousarray(rows, dtype=np.intp)
    if rows.ndim != 1:
        raise ValueError("rows must be one-dimensional.")
    if rows.size and (rows.min() < 0 or rows.max() >= n_steps):
        raise ValueError("rows outside the packed steps.")
    return rows


def _checked_levels(levels, biases, n_channels):
    """The amplitude levels of :func:`prefix_indicators` as a (n_channels,
    n_levels) array, checked; its convolutions need a bias each."""
    if biases.shape[1] == 0:
        raise ValueError("prefix_indicators needs at least one bias per "
                         "combination.")
    levels = np.empty((n_channels, 0)) if levels is None else (
        np.ascontiguousarray(levels, dtype=np.float64))
    if levels.ndim != 2 or levels.shape[0] != n_channels:
        raise ValueError(f"levels must be (n_channels={n_channels}, n_levels), got "
                         f"shape {levels.shape}.")
    return levels


def _checked_projections(n_ind, step_projection, step_offset, row_projection,
                         row_offset):
    """The projections of :func:`prefix_indicators` and their offsets, checked;
    a missing step projection is empty, a missing row projection stays None."""
    step_projection, step_offset = _checked_projection(
        step_projection, step_offset, n_ind, "step")
    if row_projection is not None and not callable(row_projection):
        row_projection, row_offset = _checked_projection(
            row_projection, row_offset, n_ind, "row")
    return step_projection, step_offset, row_projection, row_offset


def _checked_projection(projection, offset, n_ind, name):
    if projection is None:
        projection = np.empty((n_ind, 0))
    projection = np.ascontiguousarray(projection, dtype=np.float64)
    if projection.ndim != 2 or projection.shape[0] != n_ind:
        raise ValueError(f"{name}_projection must be (n_indicators={n_ind}, k), "
                         f"got shape {projection.shape}.")
    k = projection.shape[1]
    offset = np.zeros(k) if offset is None else np.ascontiguousarray(
        offset, dtype=np.float64)
    if offset.shape != (k,):
        raise ValueError(f"{name}_offset must be ({k},), got shape {offset.shape}.")
    return projection, offset


def _padded(n, multiple):
    """n rounded up to a multiple of ``multiple``: the kernels sum that many
    columns at once, so the weights' rows are padded with zeros to it."""
    return -(-n // multiple) * multiple


def _sorted_thresholds(thresholds, weights, width):
    """Each row of thresholds in increasing order, their columns, and the sums
    of the weight rows of the j lowest (j = 0..n_thresholds) of each row,
    padded with zeros to ``width`` columns and followed by a row of zeros:
    (n_rows + 1, n_thresholds + 1, width)."""
    n_rows, n_thresholds = thresholds.shape
    k = weights.shape[1]
    order = np.argsort(thresholds, axis=1, kind="stable").astype(np.intp)
    cum = np.zeros((n_rows + 1, n_thresholds + 1, width))
    np.cumsum(weights.reshape(n_rows, n_thresholds, k)[
        np.arange(n_rows)[:, None], order], axis=1, out=cum[:n_rows, 1:, :k])
    return order, np.take_along_axis(thresholds, order, axis=1), cum


def _group_table(cum_weights, combination_ptr, group_size):
    """Consecutive combinations of each dilation in groups of ``group_size``
    (fewer at the end), and the table of their summed weights:
    ``table[G * n_states + sum_p n_p * (n_biases + 1)**(g - 1 - p)]`` sums
    ``cum_weights[m_p, n_p]`` over group G's members ``m_p``.

    ``cum_weights`` is (n_combinations + 1, n_biases + 1, width), its last
    combination zeros (it stands for the members a last group lacks).
    Returns ``group_ptr`` (n_dilations + 1,), the groups of each dilation,
    and the table (n_groups * (n_biases + 1)**group_size, width)."""
    phantom = cum_weights.shape[0] - 1
    members = []
    for c0, c1 in zip(combination_ptr[:-1], combination_ptr[1:], strict=True):
        n_groups = -(-(c1 - c0) // group_size)
        padded = np.full(n_groups * group_size, phantom)
        padded[: c1 - c0] = np.arange(c0, c1)
        members.append(padded.reshape(n_groups, group_size))
    members = np.concatenate(members)
    group_ptr = np.concatenate([[0], np.cumsum(
        -(-np.diff(combination_ptr) // group_size))]).astype(np.intp)
    width = cum_weights.shape[2]
    table = cum_weights[members[:, 0]]
    for p in range(1, group_size):
        table = table[:, :, None, :] + cum_weights[members[:, p]][:, None, :, :]
        table = table.reshape(members.shape[0], -1, width)
    return group_ptr, np.ascontiguousarray(
        table.reshape(members.shape[0] * table.shape[1], width))


def dilated_convolution(data, offsets, rows, *, dilations, combination_ptr,
                        positions, channel_ptr, channels, biases, causal,
                        zero_pad, n_jobs=None):
    """Dilated convolutions, or their indicators, at the packed steps ``rows``.

    Parameters
    ----------
    data : ndarray of shape (n_steps, n_channels)
        Packed sequences.
    offsets : ndarray of shape (n_sequences + 1,)
    rows : ndarray of shape (n_rows,)
        Packed steps at which to evaluate (any order).
    dilations : ndarray of shape (n_dilations,)
    combination_ptr : ndarray of shape (n_dilations + 1,)
        The combinations of dilation ``d`` are
        ``combination_ptr[d]:combination_ptr[d + 1]``.
    positions : ndarray of shape (n_combinations, 3)
        Taps of weight 2 of every combination's kernel.
    channel_ptr : ndarray of shape (n_combinations + 1,)
    channels : ndarray of shape (channel_ptr[-1],)
        Combination ``m`` sums its kernel over
        ``channels[channel_ptr[m]:channel_ptr[m + 1]]``.
    biases : ndarray of shape (n_combinations, n_biases)
        ``n_biases == 0``: return the convolution values.
    causal, zero_pad : bool
    n_jobs : int or None

    Returns
    -------
    out : ndarray of shape (n_rows, n_combinations * max(n_biases, 1))
    """
    (data, offsets, dilations, combination_ptr, positions, channel_ptr, channels,
     biases) = _checked_combinations(data, offsets, dilations, combination_ptr,
                                     positions, channel_ptr, channels, biases)
    rows = _checked_rows(rows, data.shape[0])
    seq = np.searchsorted(offsets, rows, side="right") - 1
    first = offsets[seq]
    last = offsets[seq + 1] - 1
    n_rows = rows.shape[0]
    out = np.empty((n_rows, positions.shape[0] * max(biases.shape[1], 1)))
    n_chunks = _n_chunks(n_rows, out.size, n_jobs)
    bounds = np.linspace(0, n_rows, n_chunks + 1).astype(np.intp).tolist()
    func = _convolution.dilated_convolution_fill
    # A kernel sums 9 taps of weight -1 and 3 of weight 3 over each channel.
    scale = overflow_scale(data, 18 * data.shape[1]) if not biases.shape[1] else 1.0
    if scale != 1.0:
        data = data / scale
    _run([(func, (data, rows, first, last, dilations, combination_ptr, positions,
                  channel_ptr, channels, biases, causal, zero_pad, a, b, out))
          for a, b in zip(bounds[:-1], bounds[1:], strict=True)])
    if scale != 1.0:
        with np.errstate(over="ignore"):
            out *= scale
        if not np.isfinite(out).all():
            raise ValueError(
                "The convolution values exceed the float64 range: the inputs reach "
                f"{np.abs(data).max() * scale:.3g} in magnitude. Scale the features "
                "first, e.g. with skseq.preprocessing.Stepwise(StandardScaler())."
            )
    return out


def prefix_indicators(data, offsets, rows, *, dilations, combination_ptr,
                      positions, channel_ptr, channels, biases, causal, zero_pad,
                      levels=None, step_projection=None, step_offset=None,
                      row_projection=None, row_offset=None, n_jobs=None):
    """Prefix means of the indicators of :func:`dilated_convolution` (and of
    amplitude levels), projected at every step and at the packed steps
    ``rows``, without writing any step's indicators.

    With ``on_i(u)`` the indicators at step u (first the convolutions',
    ``i = m * n_biases + b``, as :func:`dilated_convolution` orders them; then
    the levels', ``data[u, c] > levels[c, l]`` at
    ``i = n_combinations * n_biases + c * n_levels + l``) and
    ``p_i(t) = sum_{u=t0..t} on_i(u) / (t - t0 + 1)`` their means over the
    steps ``t0..t`` of t's sequence so far, every step t gets
    ``p(t) @ step_projection - step_offset`` and ``rows[r]`` gets
    ``p(rows[r]) @ row_projection - row_offset`` (or ``p(rows[r])``).

    Parameters
    ----------
    data, offsets, dilations, combination_ptr, positions, channel_ptr, channels
        As in :func:`dilated_convolution`.
    rows : ndarray of shape (n_rows,)
        Packed steps (any order, repeats allowed).
    biases : ndarray of shape (n_combinations, n_biases)
        At least one bias per combination.
    causal, zero_pad : bool
    levels : ndarray of shape (n_channels, n_levels) or None
        Thresholds of every channel's values; None: no level indicators.
    step_projection : ndarray of shape (n_indicators, k) or None
        None: k = 0, no output at every step.
    row_projection : ndarray of shape (n_indicators, n_out) or None
        None: the prefix means themselves at ``rows``; else they are projected
        ``_ROWS_PER_CHUNK`` rows at a time (memory stays bounded), each summed
        in a fixed order, so that its values depend on that row alone.
    step_offset, row_offset : ndarray of shape (k,), (n_out,) or None
        None: zeros.
    n_jobs : int or None
        Threads, over ranges of whole sequences (and of rows, for their
        projection). A sequence's values are the same, bit for bit, whatever
        ``n_jobs`` and the other sequences in the call.

    Returns
    -------
    at_steps : ndarray of shape (n_steps, k)
    at_rows : ndarray of shape (n_rows, n_out or n_indicators)
    """
    (data, offsets, dilations, combination_ptr, positions, channel_ptr, channels,
     biases) = _checked_combinations(data, offsets, dilations, combination_ptr,
                                     positions, channel_ptr, channels, biases)
    rows = _checked_rows(rows, data.shape[0])
    levels = _checked_levels(levels, biases, data.shape[1])
    n_ind = biases.size + levels.size
    step_projection, step_offset, row_projection, row_offset = _checked_projections(
        n_ind, step_projection, step_offset, row_projection, row_offset)
    tables = _threshold_tables(biases, levels, step_projection, combination_ptr)
    fixed = (data, offsets, dilations, combination_ptr, positions, channel_ptr,
             channels, *tables, step_offset)
    return _walk(fixed, rows, (step_projection.shape[1], n_ind), row_projection,
                 row_offset, causal, zero_pad, n_jobs)


def _threshold_tables(biases, levels, step_projection, combination_ptr):
    """What :func:`prefix_indicators`' kernel reads of the thresholds: every
    combination's biases (and every channel's levels) in increasing order,
    their order, the group size, the groups of each dilation and the table of
    the projected indicators' sums.

    The indicators on at a step are those of the lowest thresholds, so a sum of
    the weight rows of the j lowest is the combination's (channel's) share of
    the step's projected vector; and a group's share is one row of the table of
    their sums over its members.
    """
    n_conv, k = biases.size, step_projection.shape[1]
    width = _padded(k, _convolution.LANES)
    bias_order, sorted_biases, cum_biases = _sorted_thresholds(
        biases, step_projection[:n_conv], width)
    level_order, sorted_levels, cum_levels = _sorted_thresholds(
        levels, step_projection[n_conv:], width)
    group_size = _GROUP_SIZE if biases.shape[1] <= _GROUP_MAX_BIASES and k else 1
    group_ptr, table = _group_table(cum_biases, combination_ptr, group_size)
    table = np.concatenate([table, cum_levels.reshape(
        cum_levels.shape[0] * cum_levels.shape[1], width)])
    return (sorted_biases, bias_order, sorted_levels, level_order, group_size,
            group_ptr, table)


def _walk(fixed, rows, sizes, row_projection, row_offset, causal, zero_pad, n_jobs):
    """Walk the packed steps for :func:`prefix_indicators` (``fixed``: the
    kernel's leading arguments; ``sizes``: k and n_indicators).

    Chunks of packed steps holding ``_ROWS_PER_CHUNK`` rows (one chunk if the
    rows are not projected: their prefix means are then the output), each on
    threads over ranges of whole sequences but the first and the last, which may
    continue the state the previous chunk left and leave theirs. A row
    projection still being computed (a callable, see :func:`_row_weights`):
    the chunks are walked on one thread (another computes it) and their prefix
    means kept until it comes, at most ``_PENDING_BYTES`` of them.
    """
    (k, n_ind), n_steps = sizes, fixed[0].shape[0]
    order = np.argsort(rows, kind="stable")
    rows = rows[order]
    at_steps = np.empty((n_steps, k))
    projected = row_projection is not None
    weights = None if projected else (None, None, np.empty((rows.shape[0], n_ind)))
    resolve = row_projection if callable(row_projection) else (
        lambda block: (row_projection, row_offset))
    carry = np.empty(n_ind, dtype=np.intp), np.empty((2, k))
    per_chunk = _ROWS_PER_CHUNK if projected else rows.shape[0]
    ends = rows[per_chunk - 1 :: per_chunk] + 1 if per_chunk else rows[:0]
    ends = np.unique(np.append(ends, n_steps)).tolist()
    c0 = r0 = 0
    pending = []  # (prefix means, their rows' places) not yet projected
    for c1 in ends:
        r1 = int(np.searchsorted(rows, c1))
        if weights is None:
            block = (len(pending) + 1) * per_chunk * n_ind * 8 > _PENDING_BYTES
            weights = _row_weights(resolve(block), n_ind, rows.shape[0])
        if not projected:  # straight into the output
            out, dest, base = weights[2], order, 0
        else:
            out, dest, base = np.empty((r1 - r0, n_ind)), np.arange(r1 - r0), r0
        carry = _walk_chunk(fixed, rows, dest, base, (c0, c1), carry, causal,
                            zero_pad, (at_steps, out),
                            None if weights is None else n_jobs)
        if projected and r1 > r0:
            pending.append((out, order[r0:r1]))
        if weights is None and c1 == n_steps:  # the last chunk: wait for it
            weights = _row_weights(resolve(True), n_ind, rows.shape[0])
        if weights is not None:
            for means, places in pending:
                _project_rows(means, *weights, places, n_jobs)
            pending = []
        c0, r0 = c1, r1
    return at_steps, weights[2]


def _row_weights(projection, n_ind, n_rows):
    """``(row_weights, row_offset, at_rows)`` of a row projection
    ``(projection, offset)`` (None: not yet computed, and so the result):
    the projection padded with zero columns for the kernel, the rows'
    output."""
    if projection is None:
        return None
    projection, offset = _checked_projection(*projection, n_ind, "row")
    n_out = projection.shape[1]
    row_weights = np.zeros((n_ind, _padded(n_out, _convolution.ROW_LANES)))
    row_weights[:, :n_out] = projection
    return row_weights, offset, np.empty((n_rows, n_out))


def _walk_chunk(fixed, rows, dest, base, steps, carry, causal, zero_pad, outputs,
                n_jobs):
    """The kernel over the packed steps ``steps`` (c0, c1), on threads over
    ranges of whole sequences, the first continuing from ``carry`` (its counts
    and running sums); returns the state the last range leaves."""
    offsets = fixed[1]
    n_ind, k = carry[0].shape[0], carry[1].shape[1]
    c0, c1 = steps
    pieces = _parallel.split_at_sequences(
        offsets, c0, c1, _n_chunks(c1 - c0, (c1 - c0) * n_ind, n_jobs))
    states = [carry] + [(np.empty(n_ind, dtype=np.intp), np.empty((2, k)))
                        for _ in pieces[1:]]
    calls = []
    for (p0, p1), (counts, running) in zip(pieces, states, strict=True):
        a, b = np.searchsorted(rows, [p0, p1])
        seq = int(np.searchsorted(offsets, p0, side="right")) - 1
        calls.append((_convolution.prefix_indicator_fill, (
            *fixed, rows[a:b], dest[a - base : b - base], causal, zero_pad,
            seq, p0, p1, counts, running, *outputs)))
    _run(calls)
    return states[-1]


def _project_rows(means, row_weights, row_offset, at_rows, dest, n_jobs):
    """``at_rows[dest[r]] = means[r] @ row_weights - row_offset``, on threads
    over ranges of rows."""
    n = means.shape[0]
    n_threads = _n_chunks(n, n * row_weights.size, n_jobs)
    bounds = np.linspace(0, n, n_threads + 1).astype(np.intp).tolist()
    _run([(_convolution.project_rows_fill,
           (means, row_weights, row_offset, dest, a, b, at_rows))
          for a, b in zip(bounds[:-1], bounds[1:], strict=True)])
