"""Threads over packed sequences: how many pay, how to cut the work, how to run it.

The kernels release the GIL, so threads run them in parallel. Every wrapper
decides how many threads its work pays for (:func:`n_threads`), cuts it into
contiguous ranges (:func:`balanced_ranges` for ranges of similar size,
:func:`split_at_sequences` for packed steps cut at sequence starts) and runs
one call per range (:func:`run`), or maps fixed blocks of rows over them
(:func:`map_blocks`); :func:`one_blas_thread` keeps BLAS threads from competing
with them.
"""

import functools
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np
import threadpoolctl
from joblib import effective_n_jobs
from threadpoolctl import ThreadpoolController


def n_threads(n_jobs, n_items, work, min_work):
    """Threads worth starting for ``n_items`` items of total ``work``: at most
    ``n_jobs`` (joblib's meaning, None for 1) and ``n_items``, and none with
    less than ``min_work`` (starting a thread costs more than it saves)."""
    cap = min(n_items, work // min_work)
    if cap <= 1:  # one thread whatever n_jobs says: skip joblib's look-up
        return 1
    return max(1, min(effective_n_jobs(n_jobs), cap))


def balanced_ranges(offsets, n_ranges):
    """Consecutive items cut into at most ``n_ranges`` ranges ``(first, end)``
    of similar total size, item i being ``offsets[i]:offsets[i + 1]`` (e.g.
    sequences and their packed steps).

    The cut depends on ``offsets`` and ``n_ranges`` alone.
    """
    n_items = offsets.shape[0] - 1
    if n_ranges == 1:
        return [(0, n_items)]
    targets = np.arange(1, n_ranges) * (int(offsets[-1]) / n_ranges)
    bounds = np.unique(np.concatenate(
        [[0], np.searchsorted(offsets, targets, side="left"), [n_items]]
    ))
    return list(zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True))


def split_at_sequences(offsets, first, end, n_ranges):
    """Packed steps ``first:end`` cut at the sequence starts (``offsets``)
    within them into at most ``n_ranges`` ranges ``(first, end)`` of about
    equal numbers of steps."""
    # the parts of sequences within first:end
    pieces = np.concatenate(
        [[first], offsets[(offsets > first) & (offsets < end)], [end]])
    return [(int(pieces[a]), int(pieces[b]))
            for a, b in balanced_ranges(pieces - first, n_ranges)]


def run(tasks):
    """Call every task (a function of no arguments): the first in this thread,
    the others in worker threads; returns when all are done, raising the error
    of a task that failed."""
    if len(tasks) <= 1:
        for task in tasks:
            task()
        return
    with ThreadPoolExecutor(max_workers=len(tasks) - 1) as pool:
        futures = [pool.submit(task) for task in tasks[1:]]
        tasks[0]()
        for future in futures:
            future.result()


def map_blocks(func, n_rows, rows_per_block, n_jobs):
    """``[func(a, b) for each block a:b]``: rows cut into blocks of
    ``rows_per_block`` (the last shorter), the blocks into ranges over
    ``n_jobs`` threads. The blocks do not depend on ``n_jobs``, so neither
    does a sum of the results taken in their order."""
    bounds = np.append(np.arange(0, max(n_rows, 1), rows_per_block), n_rows)
    blocks = list(zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True))
    results = [None] * len(blocks)

    def fill(first, end):
        for i in range(first, end):
            results[i] = func(*blocks[i])

    ranges = balanced_ranges(bounds, n_threads(n_jobs, len(blocks), len(blocks), 1))
    run([functools.partial(fill, first, end) for first, end in ranges])
    return results


@functools.cache
def _threadpool_controller():
    # Built once: finding the loaded BLAS libraries takes ~2 ms, a small fit ~20 ms.
    return ThreadpoolController()


# The BLAS thread count is one setting of the process: the contexts of
# one_blas_thread open in any thread share one limit, set by the first to
# enter and restored by the last to leave.
_BLAS_LOCK = threading.Lock()
_blas_limit = {"users": 0, "limiter": None}


def _as_blas_controller(action):
    """``action()``, setting or restoring the BLAS limit, as the thread that
    controls OpenBLAS's process-wide pool: threadpoolctl (>= 3.8) lets only
    one thread set it and silently ignores the others, so the control is
    taken for the call and given up after it."""
    clear = getattr(getattr(threadpoolctl, "OpenBLASController", None),
                    "clear_controlling_thread", None)
    if clear is not None:
        clear(force=True)
    try:
        return action()
    finally:
        if clear is not None:
            clear(force=True)


@contextmanager
def one_blas_thread():
    """Context: one BLAS thread. The products of a fit are tall and skinny, and
    L-BFGS-B's vector operations on long parameter vectors ran 30-50x slower
    with OpenBLAS threads on a loaded 2-core machine; parallelism comes from
    ``n_jobs``, over sequences, instead.

    The limit holds while any thread is inside, whichever entered first (a
    prediction that ends in one thread does not give BLAS its threads back
    under a fit in another, whose products would then round otherwise)."""
    with _BLAS_LOCK:
        if not _blas_limit["users"]:
            _blas_limit["limiter"] = _as_blas_controller(functools.partial(
                _threadpool_controller().limit, limits=1, user_api="blas"))
        _blas_limit["users"] += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _blas_limit["users"] -= 1
            if not _blas_limit["users"]:
                _as_blas_controller(_blas_limit["limiter"].restore_original_limits)
                _blas_limit["limiter"] = None
