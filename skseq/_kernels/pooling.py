"""Thin wrapper around the kernels of ``_pooling.pyx``: the running mean,
maximum and standard deviation of every feature along each packed sequence.

:func:`running_pool` checks its arguments, allocates, scales values near the
float64 limit by a power of two (exactly) and spreads whole sequences over
threads (the kernels release the GIL, so threads run them in parallel). The
kernels' numerics: a compensated prefix sum (Kahan 1965) for the mean, the
corrected two-pass algorithm over every window (Chan, Golub & LeVeque 1983)
for the standard deviation, and van Herk's (1992) and Gil & Werman's (1993)
blocks for the maximum. A window holding a NaN gives NaN, as NumPy's mean,
maximum and standard deviation over it: the kernels run on the values with
every NaN replaced, and the windows that held one are set to NaN after.
"""

import functools

import numpy as np

from . import _parallel
from ._build import build
from ._packed import SAFE_EXPONENT, check_offsets, overflow_scale

_pooling = build("_pooling")

# Below this many output values per thread, starting a thread costs more than it
# saves.
_MIN_VALUES_PER_THREAD = 1 << 20


def running_pool(data, offsets, window, statistic, n_jobs=None, out=None, *,
                 finite=False):
    """Running mean, maximum or standard deviation of every feature along each
    sequence.

    Parameters
    ----------
    data : ndarray of shape (n_steps, n_features)
        Packed sequences: finite values, or NaN. An infinite value is not
        pooled correctly (the trailing sums subtract it, giving NaN, and a
        window's spread reads 0): the callers pool checked sequences (their
        check refuses +-inf, naming its sequence, step and feature) or
        values computed from them and checked finite.
    offsets : ndarray of shape (n_sequences + 1,)
    window : int or None
        Steps per trailing window; None: the whole prefix (not for "std").
    statistic : {"mean", "max", "std"}
        "std": the standard deviation over each window (divided by its number
        of steps, as ``numpy.std``), from the deviations from the window's own
        mean: exact to a few ulps of the spread whatever the features' offset.
        For every statistic, a window (or prefix) holding a NaN of a feature
        gives NaN for that feature, as NumPy's functions over it do.
    n_jobs : int or None
    out : ndarray of shape (n_steps, n_features) or None
        Where to write; may be ``data`` itself for the whole prefix
        (``window=None``), whose kernels read each value before writing it.
    finite : bool, default=False
        True when the caller knows ``data`` holds no NaN (sequences checked on
        input, and what is computed from them): the pass that looks for NaN,
        as long as a running maximum itself, is skipped.

    Returns
    -------
    out : ndarray of shape (n_steps, n_features)
    """
    data = np.ascontiguousarray(data, dtype=np.float64)
    offsets = np.ascontiguousarray(offsets, dtype=np.intp)
    n_steps = data.shape[0]
    check_offsets(offsets, n_steps)
    if window is not None and window < 1:
        raise ValueError(f"window must be at least 1, got {window}.")
    if window is None and statistic == "std":
        raise ValueError("a running standard deviation needs a trailing window.")
    nan = None if finite else _nan_steps(data)
    if nan is not None:  # pooled as any finite value, then set to NaN below
        data = np.where(nan, 0.0, data)
    func = {"mean": _pooling.running_mean_fill,
            "max": _pooling.running_max_fill,
            "std": _pooling.running_std_fill}[statistic]
    if out is None:
        out = np.empty_like(data)
    elif (out.shape != data.shape or out.dtype != np.float64
          or not out.flags.c_contiguous):
        raise ValueError("out must be a C-contiguous float64 array like data.")
    elif window is not None and np.shares_memory(out, data):
        raise ValueError("a trailing window cannot be pooled in place.")
    n_threads = _parallel.n_threads(n_jobs, n_steps, n_steps * data.shape[1],
                                    _MIN_VALUES_PER_THREAD)
    chunks = np.searchsorted(offsets, _parallel.split_at_sequences(
        offsets, 0, n_steps, n_threads)).tolist()
    scale = 1.0  # values near 1e308 (2**500 for "std"): summed scaled down
    if statistic != "max":
        scale = (overflow_scale(data, n_steps) if statistic == "mean"
                 else _spread_scale(data, window))
    if np.any(scale != 1.0):
        data = np.divide(data, scale, out=data if out is data else None)
    # A window longer than every sequence reads whole prefixes: given to the
    # kernels as the number of steps, the same windows, where a larger one
    # overflows their index arithmetic (from 2**62 on) or a C integer.
    steps = 0 if window is None else min(window, max(n_steps, 1))
    _parallel.run([functools.partial(func, data, offsets, steps, a, b, out)
                   for a, b in chunks])
    if np.any(scale != 1.0):
        out *= scale
    if nan is not None:
        out[running_pool(nan.astype(np.float64), offsets, window, "max", n_jobs,
                         finite=True) > 0] = np.nan
    return out


def _nan_steps(data):
    """Where ``data`` is NaN, or None if nowhere: found in one pass (NumPy's
    maximum is NaN if a value is), as the kernels' comparisons and running
    sums would carry a NaN to windows it is not in, or drop it."""
    if not data.size or not np.isnan(data.max()):
        return None
    return np.isnan(data)


def _spread_scale(data, window):
    """Per feature, a power of two by which to divide ``data`` so that the
    squared deviations of ``window`` values from their mean (each at most twice
    the largest value) sum to less than 2 ** ``SAFE_EXPONENT``; 1 where they
    do already. Dividing by a power of two, and multiplying the spreads back,
    rounds nothing (but values pushed below the normal range, whose squares
    underflow anyway), and only the features holding such values change."""
    largest = np.abs(data).max(axis=0) if data.shape[0] else np.zeros(data.shape[1])
    room = (SAFE_EXPONENT - int(window).bit_length()) // 2
    exponent = np.frexp(largest)[1] + 1 - room
    return np.ldexp(1.0, np.maximum(exponent, 0))
