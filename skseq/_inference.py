"""Thin wrappers around the Cython kernels: shape checks, allocation, threads.

The kernels in ``_forward_backward.pyx`` only fill the arrays they are handed and
release the GIL; here sequences are split into contiguous chunks of about equal
total length and run on ``n_jobs`` threads.
"""

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from joblib import effective_n_jobs

from . import _forward_backward


def _kernel_module():
    """The AVX2 + FMA build of the kernels when the CPU has both, else the portable
    one (``SKSEQ_KERNELS=portable`` forces the latter)."""
    if os.environ.get("SKSEQ_KERNELS", "") == "portable":
        return _forward_backward
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # NumPy < 2
        from numpy.core._multiarray_umath import __cpu_features__
    if __cpu_features__.get("AVX2") and __cpu_features__.get("FMA3"):
        try:
            from . import _forward_backward_avx2
        except ImportError:  # not built on this platform
            return _forward_backward
        return _forward_backward_avx2
    return _forward_backward


_kernels = _kernel_module()
# The kernels used below (tests swap them for another build's).
add_bias = _kernels.add_bias
add_outer = _kernels.add_outer
categorical_gradient_rows = _kernels.categorical_gradient_rows
categorical_shift_rows = _kernels.categorical_shift_rows
forward_backward_fill = _kernels.forward_backward_fill
row_sums = _kernels.row_sums
softmax_normalize_rows = _kernels.softmax_normalize_rows
softmax_scale_rows = _kernels.softmax_scale_rows
softmax_shift_rows = _kernels.softmax_shift_rows
viterbi_fill = _kernels.viterbi_fill
_KERNEL_NAMES = (
    "add_bias",
    "add_outer",
    "categorical_gradient_rows",
    "categorical_shift_rows",
    "forward_backward_fill",
    "row_sums",
    "softmax_normalize_rows",
    "softmax_scale_rows",
    "softmax_shift_rows",
    "viterbi_fill",
)

XI_NONE, XI_STEP, XI_GRAD, XI_SUM = 0, 1, 2, 3

_NO_PICK = np.empty((0, 0))

# Entries per block of the row softmax: its three passes then stay in the L2 cache.
_SOFTMAX_BLOCK = 1 << 15
# Logits within +-this need no shift by their row maximum: exp stays within
# 1e-300..1e300, so a row sum neither overflows nor leaves the normal range.
_EXP_SAFE = 690.0

# Below this many steps per thread (with 2 states; fewer with more states, in
# proportion to the work per step, about n (n + 4) entries), starting a thread
# costs more than it saves.
_MIN_STEPS_PER_THREAD = 20_000


def _chunks(offsets, n_jobs, n_states=1):
    """Split sequences into at most ``n_jobs`` contiguous ranges of similar length."""
    n_seq = offsets.shape[0] - 1
    n_steps = int(offsets[-1])
    work = n_steps * n_states * (n_states + 4) // 12  # in 2-state steps
    n_chunks = max(1, min(effective_n_jobs(n_jobs), n_seq,
                          work // _MIN_STEPS_PER_THREAD))
    if n_chunks == 1:
        return [(0, n_seq)]
    targets = np.arange(1, n_chunks) * (n_steps / n_chunks)
    bounds = np.unique(np.concatenate(
        [[0], np.searchsorted(offsets, targets, side="left"), [n_seq]]
    ))
    return list(zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True))


def _run(func, chunks):
    """Call ``func(k, start, stop)`` for every chunk: the first in this thread, the
    others in worker threads (the kernels release the GIL)."""
    if len(chunks) == 1:
        func(0, *chunks[0])
        return
    with ThreadPoolExecutor(max_workers=len(chunks) - 1) as pool:
        futures = [pool.submit(func, k, a, b)
                   for k, (a, b) in enumerate(chunks) if k > 0]
        func(0, *chunks[0])
        for future in futures:
            future.result()


def forward_backward(startprob, trans, log_emit, offsets, *, weight=None,
                     xi_mode=XI_NONE, xi_out=None, backward=True, n_jobs=None):
    """Run the scaled forward-backward over all sequences.

    Parameters
    ----------
    startprob : ndarray of shape (n_states,)
        Distribution of x_0, before the first input.
    trans : ndarray of shape (n_steps, n_states, n_states) or (1, n_states, n_states)
        ``trans[t, j, i] = P(x_t = i | x_{t-1} = j, u_t)``; a single matrix is
        shared by every step (homogeneous chain).
    log_emit : ndarray of shape (n_steps, n_states)
        ``log P(y_t | x_t = i, u_t)``, 0 at steps without target.
    offsets : ndarray of shape (n_sequences + 1,)
    weight : ndarray of shape (n_sequences,), default=None
        Multiplies each sequence's posteriors and pairwise statistics.
    xi_mode : {XI_NONE, XI_STEP, XI_GRAD, XI_SUM}
        What to write into ``xi_out``: nothing, pairwise posteriors per step,
        the log-likelihood gradient with respect to the transition logits per step,
        or the pairwise posteriors summed over all steps (shape (1, n, n)).
    xi_out : ndarray, default=None
        Output for ``xi_mode``: ``(n_steps, n, n)`` (may be ``trans`` itself, which
        is then overwritten in place); allocated if None. Ignored for XI_SUM.
    backward : bool, default=True
        If False only the forward pass runs and ``gamma`` holds the filtered
        distributions P(x_t | y_1..t, u_1..t).
    n_jobs : int, default=None
        Threads over sequences.

    Returns
    -------
    loglik : ndarray of shape (n_sequences,)
    gamma : ndarray of shape (n_steps, n_states)
        Weighted state posteriors (or filtered distributions if not ``backward``).
    start_post : ndarray of shape (n_sequences, n_states)
        Weighted posteriors of x_0.
    xi : ndarray or None
    """
    n_steps, n_states = log_emit.shape
    n_seq = offsets.shape[0] - 1
    if (trans.shape[0] not in (1, n_steps) or trans.shape[1:] != (n_states, n_states)
            or startprob.shape != (n_states,)):
        raise ValueError(
            f"Inconsistent kernel shapes: trans {trans.shape}, log_emit "
            f"{log_emit.shape}, startprob {startprob.shape}."
        )
    if offsets[-1] != n_steps:
        raise ValueError("offsets do not cover the packed steps.")
    weight = np.ones(n_seq) if weight is None else np.ascontiguousarray(weight, float)
    chunks = _chunks(offsets, n_jobs, n_states)
    if xi_mode == XI_SUM:
        partial = np.zeros((len(chunks), 1, n_states, n_states))
    elif xi_mode != XI_NONE:
        if xi_out is None:
            xi_out = np.empty((n_steps, n_states, n_states))
        if xi_out.shape != (n_steps, n_states, n_states):
            raise ValueError(f"xi_out has shape {xi_out.shape}, expected "
                             f"{(n_steps, n_states, n_states)}.")
    dummy = np.empty((1, n_states, n_states))
    loglik = np.empty(n_seq)
    gamma = np.empty((n_steps, n_states))
    # exp(log_emit) for the kernel, which leaves in it what the backward pass needs.
    emit = np.empty((n_steps, n_states))
    start_post = np.empty((n_seq, n_states))

    def one(k, a, b):
        out = partial[k] if xi_mode == XI_SUM else (dummy if xi_out is None else xi_out)
        rows = slice(offsets[a], offsets[b])
        with np.errstate(over="ignore"):  # the kernel handles inf
            np.exp(log_emit[rows], out=emit[rows])
        forward_backward_fill(startprob, trans, log_emit, offsets, weight, a, b,
                              loglik, gamma, emit, start_post, out, xi_mode,
                              backward)

    _run(one, chunks)
    if xi_mode == XI_SUM:
        xi_out = partial.sum(axis=0)
    return loglik, gamma, start_post, (xi_out if xi_mode != XI_NONE else None)


def viterbi(log_startprob, log_trans, log_emit, offsets, *, n_jobs=None):
    """Most likely state path (x_1..x_T) of every sequence.

    Returns
    -------
    best_logprob : ndarray of shape (n_sequences,)
        ``max over paths of log P(x_1..x_T, y | u)``.
    path : ndarray of shape (n_steps,), dtype=intp
    """
    n_steps, n_states = log_emit.shape
    n_seq = offsets.shape[0] - 1
    best = np.empty(n_seq)
    backpointer = np.empty((n_steps, n_states), dtype=np.intp)
    path = np.empty(n_steps, dtype=np.intp)
    chunks = _chunks(offsets, n_jobs, n_states)

    def one(k, a, b):
        viterbi_fill(log_startprob, log_trans, log_emit, offsets, a, b, best,
                     backpointer, path)

    _run(one, chunks)
    return best, path


def _softmax_blocks(z, mask, weight):
    n, m = z.shape[1:]
    allowed = np.ones((n, m), np.uint8) if mask is None else (
        np.ascontiguousarray(mask, dtype=np.uint8))
    dense = bool(allowed.all())
    no_weight = np.empty((0, 0, 0))
    block = max(1, _SOFTMAX_BLOCK // (n * m))
    norm = np.empty((min(block, z.shape[0]), n))
    rows = np.empty_like(norm)
    total = 0.0
    with np.errstate(under="ignore"):
        for b0 in range(0, z.shape[0], block):
            zb = z[b0 : b0 + block]
            wb = no_weight if weight is None else weight[b0 : b0 + block]
            nb, rb = norm[: zb.shape[0]], rows[: zb.shape[0]]
            if dense and -_EXP_SAFE < zb.min() and zb.max() < _EXP_SAFE:
                # No row can overflow or vanish: exp without the max shift (two
                # vectorised reductions instead of a pass over short rows).
                if weight is not None:
                    total += np.vdot(wb, zb)
            else:
                total += softmax_shift_rows(zb, allowed, wb)
            np.exp(zb, out=zb)
            softmax_normalize_rows(zb, wb, nb, rb)
            if weight is not None:
                total -= np.vdot(rb, np.log(nb))
    return total


def softmax_(z, mask=None):
    """In place: softmax over the last axis of a C-contiguous (B, n, m) array.

    ``mask`` (n, m), if given, marks the entries row j may use; the others get
    probability 0 (each row needs at least one allowed entry).
    """
    _softmax_blocks(z, mask, None)
    return z


def log_softmax_gradient_(z, weight, mask=None):
    """sum(weight * log softmax(z)) and, in place of z, its gradient with respect to
    the logits, ``weight - rowsum(weight) * softmax(z)`` (masked as in
    :func:`softmax_`, where ``weight`` must be 0 on forbidden entries)."""
    return _softmax_blocks(z, mask, np.ascontiguousarray(weight, dtype=np.float64))


def log_softmax_gradient_categorical_(z, y, weight):
    """sum_b,j weight[b, j] log softmax(z[b, j])[y_b] and, in place of z, its
    gradient with respect to the logits, weight[b, j] (onehot(y_b) - softmax(z[b, j])).

    :func:`log_softmax_gradient_` with the one-hot weights implied by class
    indices ``y`` (B,) and row weights ``weight`` (B, n), never materialised.
    """
    n, k = z.shape[1:]
    y = np.ascontiguousarray(y, dtype=np.intp)
    weight = np.ascontiguousarray(weight, dtype=np.float64)
    block = max(1, _SOFTMAX_BLOCK // (n * k))
    norm = np.empty((min(block, z.shape[0]), n))
    total = 0.0
    with np.errstate(under="ignore"):
        for b0 in range(0, z.shape[0], block):
            zb, yb, wb = (a[b0 : b0 + block] for a in (z, y, weight))
            nb = norm[: zb.shape[0]]
            total += categorical_shift_rows(zb, yb, wb, _NO_PICK)
            np.exp(zb, out=zb)
            categorical_gradient_rows(zb, yb, wb, nb)
            total -= np.vdot(wb, np.log(nb, out=nb))
    return total


def add_bias_(z, bias):
    """In place: z[b] += bias for a C-contiguous (B, n, m) z and bias (n, m)."""
    add_bias(z, np.ascontiguousarray(bias, dtype=np.float64))
    return z


def outer_sum(a, bias):
    """z[b, j, i] = a[b, i] + bias[j, i], a new (B, n, m) array."""
    a = np.ascontiguousarray(a, dtype=np.float64)
    bias = np.ascontiguousarray(bias, dtype=np.float64)
    z = np.empty((a.shape[0], *bias.shape))
    add_outer(z, a, bias)
    return z


def log_softmax_categorical(z, y):
    """log softmax(z[b, j])[y_b], shape (B, n); z (B, n, k) is overwritten.

    The output networks' log-likelihoods of class indices ``y`` without the full
    (B, n, k) log-softmax.
    """
    B, n, k = z.shape
    y = np.ascontiguousarray(y, dtype=np.intp)
    out = np.empty((B, n))
    norm = np.empty((B, n))
    categorical_shift_rows(z, y, _NO_PICK, out)
    with np.errstate(under="ignore"):
        np.exp(z, out=z)
    row_sums(z, norm)
    out -= np.log(norm, out=norm)
    return out


def row_sums_(a):
    """Sums over the last axis of a C-contiguous (B, n, m) array, (B, n)."""
    out = np.empty(a.shape[:2])
    row_sums(np.ascontiguousarray(a, dtype=np.float64), out)
    return out


def weighted_log_normalizer_(z, rows):
    """sum_b,j rows[b, j] log sum_i exp z[b, j, i] and, in place of z, its
    gradient with respect to z, rows[b, j] softmax(z[b, j]) (every entry allowed).

    With sum xi z computed apart, this is :func:`log_softmax_gradient_` for
    weights xi whose row sums are ``rows`` (the M-step's split, see
    ``skseq._transitions.transition_objective``).
    """
    n, m = z.shape[1:]
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    block = max(1, _SOFTMAX_BLOCK // (n * m))
    norm = np.empty((min(block, z.shape[0]), n))
    total = 0.0
    with np.errstate(under="ignore"):
        for b0 in range(0, z.shape[0], block):
            zb, rb = z[b0 : b0 + block], rows[b0 : b0 + block]
            nb = norm[: zb.shape[0]]
            if not (-_EXP_SAFE < zb.min() and zb.max() < _EXP_SAFE):
                top = zb.max(axis=2)  # rare: logits beyond +-690
                zb -= top[:, :, None]
                total += np.vdot(rb, top)
            np.exp(zb, out=zb)
            softmax_scale_rows(zb, rb, nb)
            total += np.vdot(rb, np.log(nb, out=nb))
    return total
