"""The recursions (forward-backward, Viterbi) against brute-force enumeration of
every state path."""

import ctypes
import gc
import itertools
import os
import tracemalloc

import numpy as np
import pytest
from _builds import kernel_build_fixture
from numpy.testing import assert_allclose, assert_array_equal

import skseq._kernels.forward_backward as wrapper
from skseq._kernels import _build
from skseq._kernels.forward_backward import (
    XI_GRAD,
    XI_NONE,
    XI_STEP,
    XI_SUM,
    forward_backward,
    viterbi,
)

kernel_build = kernel_build_fixture("_forward_backward", wrapper)


def _random_problem(rng, lengths, n, emit_scale=1.0, mask=None):
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.intp)
    T = offsets[-1]
    logits = rng.normal(size=(T, n, n)) * 2
    if mask is not None:
        logits[:, ~mask] = -np.inf
    trans = np.exp(logits - logits.max(axis=2, keepdims=True))
    trans /= trans.sum(axis=2, keepdims=True)
    log_emit = -np.abs(rng.normal(size=(T, n))) * emit_scale
    startprob = rng.dirichlet(np.ones(n))
    return startprob, trans, log_emit, offsets


def _brute_force(startprob, trans, log_emit, t0, t1):
    """Enumerate all paths x_0..x_T of one sequence (x_0 before the first input)."""
    n = startprob.shape[0]
    T = t1 - t0
    joint = {}
    for path in itertools.product(range(n), repeat=T + 1):
        p = startprob[path[0]]
        for k in range(T):
            step = t0 + k
            p *= trans[step, path[k], path[k + 1]] * np.exp(log_emit[step, path[k + 1]])
        joint[path] = p
    L = sum(joint.values())
    gamma = np.zeros((T, n))
    xi = np.zeros((T, n, n))
    start = np.zeros(n)
    for path, p in joint.items():
        start[path[0]] += p / L
        for k in range(T):
            gamma[k, path[k + 1]] += p / L
            xi[k, path[k], path[k + 1]] += p / L
    best = max(joint, key=joint.get)
    return np.log(L), gamma, xi, start, np.array(best[1:]), np.log(joint[best])


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("seed", [0, 1])
def test_forward_backward_matches_enumeration(n, seed):
    rng = np.random.default_rng(seed)
    lengths = [1, 4, 2, 5]
    sp, trans, log_emit, offsets = _random_problem(rng, lengths, n)
    weight = rng.uniform(0.5, 2.0, size=len(lengths))
    ll, gamma, start_post, xi = forward_backward(
        sp, trans, log_emit, offsets, weight=weight, xi_mode=XI_STEP
    )
    _, _, _, grad = forward_backward(
        sp, trans.copy(), log_emit, offsets, weight=weight, xi_mode=XI_GRAD
    )
    _, _, _, xi_sum = forward_backward(
        sp, trans, log_emit, offsets, weight=weight, xi_mode=XI_SUM
    )
    for s in range(len(lengths)):
        t0, t1 = offsets[s], offsets[s + 1]
        ll_bf, g_bf, xi_bf, st_bf, _, _ = _brute_force(sp, trans, log_emit, t0, t1)
        w = weight[s]
        assert_allclose(ll[s], ll_bf, rtol=1e-12, atol=1e-10)
        assert_allclose(gamma[t0:t1], w * g_bf, rtol=1e-10, atol=1e-12)
        assert_allclose(xi[t0:t1], w * xi_bf, rtol=1e-10, atol=1e-12)
        assert_allclose(start_post[s], w * st_bf, rtol=1e-10, atol=1e-12)
        # gradient w.r.t. the logits: xi_t - gamma_{t-1} * trans_t
        prev = np.vstack([st_bf, g_bf[:-1]])
        expected = xi_bf - prev[:, :, None] * trans[t0:t1]
        assert_allclose(grad[t0:t1], w * expected, rtol=1e-10, atol=1e-12)
    assert_allclose(xi_sum[0], xi.sum(axis=0), rtol=1e-12, atol=1e-12)


def test_gradient_mode_is_derivative_of_loglik():
    """XI_GRAD is d loglik / d logits: check against central differences."""
    rng = np.random.default_rng(3)
    n, T = 3, 5
    offsets = np.array([0, T], dtype=np.intp)
    logits = rng.normal(size=(T, n, n))
    log_emit = -np.abs(rng.normal(size=(T, n)))
    sp = rng.dirichlet(np.ones(n))

    def loglik(z):
        tr = np.exp(z - z.max(axis=2, keepdims=True))
        tr /= tr.sum(axis=2, keepdims=True)
        return forward_backward(sp, tr, log_emit, offsets, backward=False)[0][0], tr

    _, tr = loglik(logits)
    grad = forward_backward(sp, tr, log_emit, offsets, xi_mode=XI_GRAD)[3]
    eps = 1e-6
    num = np.zeros_like(logits)
    for idx in np.ndindex(logits.shape):
        zp, zm = logits.copy(), logits.copy()
        zp[idx] += eps
        zm[idx] -= eps
        num[idx] = (loglik(zp)[0] - loglik(zm)[0]) / (2 * eps)
    assert_allclose(grad, num, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("n", [2, 3])
def test_viterbi_matches_enumeration(n):
    rng = np.random.default_rng(7)
    lengths = [3, 1, 5]
    sp, trans, log_emit, offsets = _random_problem(rng, lengths, n, emit_scale=3)
    with np.errstate(divide="ignore"):
        best, path = viterbi(np.log(sp), np.log(trans), log_emit, offsets)
    for s in range(len(lengths)):
        t0, t1 = offsets[s], offsets[s + 1]
        *_, path_bf, best_bf = _brute_force(sp, trans, log_emit, t0, t1)
        assert_array_equal(path[t0:t1], path_bf)
        assert_allclose(best[s], best_bf, rtol=1e-12)


def test_masked_transitions_match_enumeration():
    """Zero transitions (a topology mask) and unreachable states give no NaN."""
    rng = np.random.default_rng(11)
    mask = np.triu(np.ones((3, 3), dtype=bool))  # left-to-right
    sp, trans, log_emit, offsets = _random_problem(rng, [4, 3], 3, mask=mask)
    sp = np.array([1.0, 0.0, 0.0])
    ll, gamma, start_post, xi = forward_backward(
        sp, trans, log_emit, offsets, xi_mode=XI_STEP
    )
    for s in range(2):
        t0, t1 = offsets[s], offsets[s + 1]
        ll_bf, g_bf, xi_bf, st_bf, _, _ = _brute_force(sp, trans, log_emit, t0, t1)
        assert_allclose(ll[s], ll_bf, rtol=1e-12)
        assert_allclose(gamma[t0:t1], g_bf, atol=1e-12)
        assert_allclose(xi[t0:t1], xi_bf, atol=1e-12)
        assert_allclose(start_post[s], st_bf, atol=1e-12)


def test_extreme_emissions_stay_finite_and_exact():
    """Emission log-likelihoods down to -1e4: compare with a log-space reference."""
    rng = np.random.default_rng(5)
    n, T = 3, 200
    offsets = np.array([0, T], dtype=np.intp)
    sp, trans, _, _ = _random_problem(rng, [T], n)
    log_emit = rng.uniform(-1e4, 0, size=(T, n))
    # The best state of every step is often hard to reach: stresses the shift.
    ll, gamma, _, _ = forward_backward(sp, trans, log_emit, offsets, xi_mode=XI_STEP)
    log_a = np.log(sp)
    for t in range(T):
        log_a = np.logaddexp.reduce(log_a[:, None] + np.log(trans[t]), axis=0)
        log_a = log_a + log_emit[t]
    ref = np.logaddexp.reduce(log_a)
    assert np.isfinite(ll).all() and np.isfinite(gamma).all()
    assert_allclose(ll[0], ref, rtol=1e-12)
    assert_allclose(gamma.sum(axis=1), 1.0, rtol=1e-10)


def _log_brute_force(startprob, trans, log_emit):
    """Every path of one sequence (shared matrix) in log space: the
    log-likelihood and the smoothed state distributions."""
    T, n = log_emit.shape
    with np.errstate(divide="ignore"):
        log_trans, log_start = np.log(trans[0]), np.log(startprob)
    paths = list(itertools.product(range(n), repeat=T + 1))
    ends = np.array(paths)[:, 1:]

    log_p = np.array([log_start[p[0]] + sum(
        log_trans[p[k], p[k + 1]] + log_emit[k, p[k + 1]] for k in range(T))
        for p in paths])
    w = np.exp(log_p - np.logaddexp.reduce(log_p))
    smoothed = np.array([np.bincount(ends[:, t], weights=w, minlength=n)
                         for t in range(T)])
    return np.logaddexp.reduce(log_p), smoothed


def test_emissions_thousands_of_nats_apart_under_forced_transitions():
    """Where the scaled passes leave the float range (a reachable state whose
    filtered probability underflows), the posteriors are still those of every
    path enumerated in log space, not NaN."""
    trans = np.array([[[1e-300, 1.0], [1.0, 1e-300]]])
    sp = np.array([0.5, 0.5])
    log_emit = np.array([[223.19, 223.16], [-344.0, -2013.5], [-482.4, 1522.5],
                         [-1280.8, -1842.1], [-218.9, -412.4], [-1292.8, -752.6]])
    offsets = np.array([0, 6], dtype=np.intp)
    raw = wrapper._fill(sp, trans, log_emit, offsets, np.ones(1),
                        [(0, 1)], XI_NONE, None, True)
    assert not np.isfinite(raw.gamma).all()  # what the kernel alone gives
    ll_bf, smoothed = _log_brute_force(sp, trans, log_emit)
    post = forward_backward(sp, trans, log_emit, offsets)
    assert_allclose(post.loglik[0], ll_bf, rtol=1e-12)
    assert_allclose(post.gamma, smoothed, atol=1e-12)


def test_impossible_targets_give_minus_inf_without_nan():
    sp = np.array([1.0, 0.0])
    trans = np.tile(np.eye(2), (2, 1, 1))
    log_emit = np.array([[0.0, 0.0], [-np.inf, 0.0]])
    offsets = np.array([0, 2], dtype=np.intp)
    ll, gamma, start_post, xi = forward_backward(
        sp, trans, log_emit, offsets, xi_mode=XI_STEP
    )
    assert ll[0] == -np.inf
    assert not np.isnan(gamma).any() and not np.isnan(xi).any()


def test_threads_give_identical_results(monkeypatch):
    monkeypatch.setattr(wrapper, "_MIN_STEPS_PER_THREAD", 1)
    rng = np.random.default_rng(2)
    lengths = rng.integers(1, 30, size=50)
    sp, trans, log_emit, offsets = _random_problem(rng, lengths, 4)
    one = forward_backward(sp, trans, log_emit, offsets, xi_mode=XI_SUM, n_jobs=1)
    two = forward_backward(sp, trans, log_emit, offsets, xi_mode=XI_SUM, n_jobs=2)
    for a, b in zip(one, two, strict=True):
        assert_allclose(a, b, rtol=1e-13)
    with np.errstate(divide="ignore"):
        p1 = viterbi(np.log(sp), np.log(trans), log_emit, offsets, n_jobs=1)
        p2 = viterbi(np.log(sp), np.log(trans), log_emit, offsets, n_jobs=2)
    assert_array_equal(p1[1], p2[1])


def test_shared_transition_matrix_equals_tiled():
    """A (1, n, n) transition array is shared by every step."""
    rng = np.random.default_rng(4)
    sp, trans, log_emit, offsets = _random_problem(rng, [3, 6, 1], 3)
    one = trans[:1].copy()
    tiled = np.repeat(one, trans.shape[0], axis=0)
    shared = forward_backward(sp, one, log_emit, offsets, xi_mode=XI_SUM)
    full = forward_backward(sp, tiled, log_emit, offsets, xi_mode=XI_SUM)
    for a, b in zip(shared, full, strict=True):
        assert_allclose(a, b, rtol=1e-13)
    with np.errstate(divide="ignore"):
        p1 = viterbi(np.log(sp), np.log(one), log_emit, offsets)
        p2 = viterbi(np.log(sp), np.log(tiled), log_emit, offsets)
    assert_array_equal(p1[1], p2[1])


@pytest.mark.parametrize("shift", [800.0, -800.0, -1e4])
def test_per_step_emission_constants_only_shift_loglik(shift):
    """Adding c_t to every state's log-likelihood at step t adds sum c_t to the
    log-likelihood and changes no posterior; +-800 and -1e4 leave the range of
    exp (the kernel then shifts that step itself), 0 stays in it."""
    rng = np.random.default_rng(8)
    lengths = [3, 5, 1]
    sp, trans, log_emit, offsets = _random_problem(rng, lengths, 3)
    consts = np.where(rng.random(offsets[-1]) < 0.5, shift, 0.0)
    ref = forward_backward(sp, trans.copy(), log_emit, offsets, xi_mode=XI_STEP)
    got = forward_backward(sp, trans.copy(), log_emit + consts[:, None], offsets,
                           xi_mode=XI_STEP)
    sums = np.add.reduceat(consts, offsets[:-1])
    assert_allclose(got[0], ref[0] + sums, rtol=1e-13)
    for a, b in zip(got[1:], ref[1:], strict=True):
        assert_allclose(a, b, rtol=1e-10, atol=1e-13)
    for s in range(len(lengths)):
        t0, t1 = offsets[s], offsets[s + 1]
        ll_bf, g_bf, xi_bf, _, _, _ = _brute_force(sp, trans, log_emit, t0, t1)
        assert_allclose(got[0][s], ll_bf + sums[s], rtol=1e-12)
        assert_allclose(got[1][t0:t1], g_bf, rtol=1e-10, atol=1e-12)
        assert_allclose(got[3][t0:t1], xi_bf, rtol=1e-10, atol=1e-12)


def test_million_steps_stay_finite():
    rng = np.random.default_rng(9)
    T, n = 1_000_000, 2
    offsets = np.array([0, T], dtype=np.intp)
    trans = np.broadcast_to(rng.dirichlet(np.ones(n), size=n), (T, n, n)).copy()
    log_emit = rng.uniform(-1e4, 0, size=(T, n))
    log_emit[::3] = 0.0  # steps without target
    ll, gamma, start_post, xi = forward_backward(
        np.full(n, 0.5), trans, log_emit, offsets, xi_mode=XI_STEP, xi_out=trans
    )
    assert np.isfinite(ll).all() and ll[0] < -1e9
    assert_allclose(gamma.sum(axis=1), 1.0, rtol=1e-9)
    assert_allclose(xi.sum(axis=(1, 2)), 1.0, rtol=1e-9)


# The leak tests run on the build in use only (each takes about a second).
_DEFAULT_BUILD = pytest.mark.parametrize(
    "kernel_build", _build.available("_forward_backward")[:1], indirect=True)


def _rss():
    """Resident set size in bytes (Linux: /proc/self/statm), after the C
    allocator has handed its free memory back to the system (glibc's
    malloc_trim), so that it counts memory still in use, not how the
    allocations of earlier tests left the heap."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: RSS as it stands
        pass
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _kernel_inputs(n_steps, n_states, n_seq, seed=0):
    rng = np.random.default_rng(seed)
    trans = rng.random((n_steps, n_states, n_states))
    trans /= trans.sum(axis=2, keepdims=True)
    log_emit = np.log(rng.random((n_steps, n_states)))
    cuts = np.sort(rng.choice(np.arange(1, n_steps), n_seq - 1, replace=False))
    offsets = np.concatenate([[0], cuts, [n_steps]]).astype(np.intp)
    startprob = np.full(n_states, 1.0 / n_states)
    return startprob, trans, log_emit, offsets


def _kernel_calls(startprob, trans, log_emit, offsets, n_jobs):
    weight = np.linspace(0.5, 2.0, offsets.shape[0] - 1)
    for mode in (XI_NONE, XI_STEP, XI_GRAD, XI_SUM):
        out = forward_backward(startprob, trans.copy(), log_emit, offsets,
                               weight=weight, xi_mode=mode, n_jobs=n_jobs)
        assert np.isfinite(out[0]).all()
    forward_backward(startprob, trans, log_emit, offsets, backward=False,
                     n_jobs=n_jobs)
    best, path = viterbi(np.log(startprob), np.log(trans), log_emit, offsets,
                         n_jobs=n_jobs)
    assert np.isfinite(best).all() and path.min() >= 0


@_DEFAULT_BUILD
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_kernels_do_not_leak_c_memory(n_jobs):
    """Large inputs (each call allocates ~35 MB of outputs): a leak of any one
    output array would grow RSS by MBs per call; it must stay flat."""
    args = _kernel_inputs(100_000, 4, 50)
    for _ in range(3):  # warm-up: allocator pools, thread pools
        _kernel_calls(*args, n_jobs)
    gc.collect()
    before = _rss()
    for _ in range(15):
        _kernel_calls(*args, n_jobs)
    gc.collect()
    growth = _rss() - before
    assert growth < 16e6, f"RSS grew by {growth / 1e6:.1f} MB over 15 rounds"


@_DEFAULT_BUILD
def test_kernels_do_not_leak_python_objects():
    """Tiny inputs, many calls: a reference leak of even one small object per call
    shows up in the traced memory and in the number of live objects."""
    args = _kernel_inputs(20, 3, 4)
    for _ in range(20):
        _kernel_calls(*args, 1)
    gc.collect()
    tracemalloc.start()
    try:
        n_objects = len(gc.get_objects())
        start, _ = tracemalloc.get_traced_memory()
        for _ in range(500):
            _kernel_calls(*args, 1)
        gc.collect()
        end, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert end - start < 50_000, f"traced memory grew by {end - start} bytes"
    assert len(gc.get_objects()) - n_objects < 100
