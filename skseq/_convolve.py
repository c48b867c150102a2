"""Thin wrappers around the kernels of ``_convolution.pyx``: shape checks,
allocation, and rows or sequences spread over threads (the kernels release the
GIL, so joblib's threading backend runs them in parallel)."""

import itertools

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs

from . import _convolution

# The 84 MiniRocket kernels (Dempster et al. 2021, section 3.1): row k lists the
# three taps (of 9) with weight 2; the other six have weight -1.
KERNEL_POSITIONS = np.array(list(itertools.combinations(range(9), 3)), dtype=np.intp)
N_TAPS = 9

# Below this many output values per thread, starting a thread costs more than it
# saves.
_MIN_VALUES_PER_THREAD = 1 << 20


def kernel_weights(kernel):
    """The 9 weights of kernel ``kernel`` (an index into ``KERNEL_POSITIONS``)."""
    weights = np.full(N_TAPS, -1.0)
    weights[KERNEL_POSITIONS[kernel]] = 2.0
    return weights


def _n_chunks(n_items, n_values, n_jobs):
    return max(1, min(effective_n_jobs(n_jobs), n_items,
                      n_values // _MIN_VALUES_PER_THREAD))


def _run(calls, n_chunks):
    """Run kernel calls (``(func, args)`` pairs) on ``n_chunks`` threads."""
    if n_chunks == 1:
        for func, args in calls:
            func(*args)
        return
    Parallel(n_jobs=n_chunks, backend="threading")(
        delayed(func)(*args) for func, args in calls
    )


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
    data = np.ascontiguousarray(data, dtype=np.float64)
    offsets = np.ascontiguousarray(offsets, dtype=np.intp)
    rows = np.ascontiguousarray(rows, dtype=np.intp)
    dilations = np.ascontiguousarray(dilations, dtype=np.intp)
    combination_ptr = np.ascontiguousarray(combination_ptr, dtype=np.intp)
    positions = np.ascontiguousarray(positions, dtype=np.intp)
    channel_ptr = np.ascontiguousarray(channel_ptr, dtype=np.intp)
    channels = np.ascontiguousarray(channels, dtype=np.intp)
    biases = np.ascontiguousarray(biases, dtype=np.float64)
    n_steps, n_channels = data.shape
    n_comb = positions.shape[0]
    # The kernel does not check bounds: everything it indexes is checked here.
    if not (offsets[0] == 0 and offsets[-1] == n_steps
            and np.all(np.diff(offsets) > 0)):
        raise ValueError("offsets do not partition the steps into sequences.")
    if rows.size and (rows.min() < 0 or rows.max() >= n_steps):
        raise ValueError("rows outside the packed steps.")
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
    seq = np.searchsorted(offsets, rows, side="right") - 1
    first = offsets[seq]
    last = offsets[seq + 1] - 1
    n_rows = rows.shape[0]
    out = np.empty((n_rows, n_comb * max(biases.shape[1], 1)))
    n_chunks = _n_chunks(n_rows, out.size, n_jobs)
    bounds = np.linspace(0, n_rows, n_chunks + 1).astype(np.intp).tolist()
    func = _convolution.dilated_convolution_fill
    _run([(func, (data, rows, first, last, dilations, combination_ptr, positions,
                  channel_ptr, channels, biases, causal, zero_pad, a, b, out))
          for a, b in zip(bounds[:-1], bounds[1:], strict=True)], n_chunks)
    return out


def running_pool(data, offsets, window, statistic, n_jobs=None, out=None):
    """Running mean or maximum of every feature along each sequence.

    Parameters
    ----------
    data : ndarray of shape (n_steps, n_features)
        Packed sequences.
    offsets : ndarray of shape (n_sequences + 1,)
    window : int or None
        Steps per trailing window; None: the whole prefix.
    statistic : {"mean", "max"}
    n_jobs : int or None
    out : ndarray of shape (n_steps, n_features) or None
        Where to write; may be ``data`` itself for the whole prefix
        (``window=None``), whose kernels read each value before writing it.

    Returns
    -------
    out : ndarray of shape (n_steps, n_features)
    """
    data = np.ascontiguousarray(data, dtype=np.float64)
    offsets = np.ascontiguousarray(offsets, dtype=np.intp)
    n_steps = data.shape[0]
    if not (offsets[0] == 0 and offsets[-1] == n_steps
            and np.all(np.diff(offsets) > 0)):
        raise ValueError("offsets do not partition the steps into sequences.")
    if window is not None and window < 1:
        raise ValueError(f"window must be at least 1, got {window}.")
    func = {"mean": _convolution.running_mean_fill,
            "max": _convolution.running_max_fill}[statistic]
    if out is None:
        out = np.empty_like(data)
    elif (out.shape != data.shape or out.dtype != np.float64
          or not out.flags.c_contiguous):
        raise ValueError("out must be a C-contiguous float64 array like data.")
    elif window is not None and np.shares_memory(out, data):
        raise ValueError("a trailing window cannot be pooled in place.")
    n_seq = offsets.shape[0] - 1
    n_chunks = _n_chunks(n_seq, data.size, n_jobs)
    # Contiguous ranges of sequences holding about equal numbers of steps.
    targets = np.arange(1, n_chunks) * (n_steps / n_chunks)
    bounds = np.unique(np.concatenate(
        [[0], np.searchsorted(offsets, targets), [n_seq]])).tolist()
    _run([(func, (data, offsets, window or 0, a, b, out))
          for a, b in zip(bounds[:-1], bounds[1:], strict=True)], len(bounds) - 1)
    return out
