"""The thread helper of the kernels (``skseq._kernels._parallel``): how many
threads, the cut of the work into ranges (against a loop over the items), and
the runner."""

import threading

import numpy as np
import pytest

from skseq._kernels import _parallel


def _ranges_by_loop(offsets, n_ranges):
    """Range k ends at the first item whose start reaches k / n_ranges of the
    total size; empty ranges dropped."""
    size, bounds = offsets[-1] / n_ranges, [0]
    for k in range(1, n_ranges):
        bounds.append(next(i for i, start in enumerate(offsets) if start >= k * size))
    bounds.append(len(offsets) - 1)
    bounds = sorted(set(bounds))
    return list(zip(bounds[:-1], bounds[1:], strict=True))


@pytest.mark.parametrize("n_ranges", [1, 2, 3, 7])
def test_balanced_ranges_cut_where_a_loop_cuts(n_ranges):
    rng = np.random.default_rng(n_ranges)
    for lengths in ([5], [1] * 10, rng.integers(1, 50, size=30), [100, 1, 1, 1]):
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.intp)
        ranges = _parallel.balanced_ranges(offsets, n_ranges)
        assert ranges == _ranges_by_loop(offsets, n_ranges)
        assert ranges[0][0] == 0 and ranges[-1][1] == len(lengths)
        assert all(a < b for a, b in ranges) and len(ranges) <= n_ranges


def test_n_threads_is_capped_by_jobs_items_and_work():
    assert _parallel.n_threads(None, 100, 10**9, 10) == 1
    assert _parallel.n_threads(4, 100, 10**9, 10) == 4
    assert _parallel.n_threads(4, 3, 10**9, 10) == 3
    assert _parallel.n_threads(4, 100, 25, 10) == 2
    assert _parallel.n_threads(4, 100, 5, 10) == 1
    assert _parallel.n_threads(4, 0, 10**9, 10) == 1


def test_run_calls_every_task_the_first_in_this_thread():
    seen = []
    tasks = [lambda k=k: seen.append((k, threading.get_ident())) for k in range(4)]
    _parallel.run(tasks)
    assert sorted(k for k, _ in seen) == [0, 1, 2, 3]
    assert dict(seen)[0] == threading.get_ident()
    _parallel.run([])  # nothing to do


def test_run_raises_the_error_of_a_failed_task():
    def fail():
        raise RuntimeError("task failed")

    with pytest.raises(RuntimeError, match="task failed"):
        _parallel.run([lambda: None, fail])
    with pytest.raises(RuntimeError, match="task failed"):
        _parallel.run([fail, lambda: None])


@pytest.mark.parametrize("n_rows", [0, 1, 9, 10, 23])
def test_map_blocks_maps_the_same_fixed_blocks_whatever_n_jobs(n_rows):
    """Blocks of 5 rows (the last shorter; one empty block for no rows), in
    order, the same for 1, 2 and 4 threads, which really run (this one and
    workers)."""
    expected = [(a, min(a + 5, n_rows)) for a in range(0, max(n_rows, 1), 5)]
    for n_jobs in (1, 2, 4):
        where = {}

        def func(a, b, where=where):
            where[a] = threading.get_ident()
            return (a, b)

        assert _parallel.map_blocks(func, n_rows, 5, n_jobs) == expected
        assert (len(set(where.values())) > 1) == (n_jobs > 1 and len(expected) > 1)


@pytest.mark.parametrize("first, end", [(0, 40), (3, 40), (7, 29), (12, 13)])
@pytest.mark.parametrize("n_ranges", [1, 2, 3, 8])
def test_split_at_sequences_cuts_only_at_sequence_starts(first, end, n_ranges):
    offsets = np.array([0, 5, 7, 12, 20, 21, 33, 40])
    ranges = _parallel.split_at_sequences(offsets, first, end, n_ranges)
    assert ranges[0][0] == first and ranges[-1][1] == end
    assert all(a < b for a, b in ranges)
    assert all(b == c for (_, b), (c, _) in zip(ranges[:-1], ranges[1:], strict=True))
    assert {b for _, b in ranges[:-1]} <= set(offsets.tolist())
    assert len(ranges) <= n_ranges
    # the cut of the pieces (parts of sequences) within first:end
    pieces = [first, *[o for o in offsets if first < o < end], end]
    expected = _ranges_by_loop(np.array(pieces) - first, n_ranges)
    assert ranges == [(pieces[a], pieces[b]) for a, b in expected]


def test_one_blas_thread_holds_while_any_thread_is_inside():
    """Thread A enters, thread B enters, A leaves: B still runs on one BLAS
    thread (its products round as a fit alone does), and the last to leave
    gives BLAS its threads back."""
    from threadpoolctl import threadpool_info, threadpool_limits

    def blas_threads():
        return {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}

    steps = [threading.Event() for _ in range(3)]
    seen = {}

    def first():
        with _parallel.one_blas_thread():
            steps[0].set()
            steps[1].wait(5)
        steps[2].set()

    def second():
        steps[0].wait(5)
        with _parallel.one_blas_thread():
            steps[1].set()
            steps[2].wait(5)
            seen["inside"] = blas_threads()

    with threadpool_limits(limits=2, user_api="blas"):
        threads = [threading.Thread(target=f) for f in (first, second)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        seen["after"] = blas_threads()
    assert all(step.is_set() for step in steps)
    assert seen == {"inside": {1}, "after": {2}}
