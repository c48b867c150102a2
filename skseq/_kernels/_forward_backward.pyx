# Forward-backward and Viterbi over time-varying transition matrices.
#
# The kernels only fill the arrays they are given (see forward_backward.py beside it for the
# thin wrapper that checks shapes, allocates and spreads sequences over threads).
# The row operations of the networks (softmax, log-likelihood gradients) live in
# _softmax.pyx.
# Layout: time is the first axis, C-contiguous; all sequences are packed one after
# the other and `offsets[s]:offsets[s + 1]` are the rows of sequence s. A transition
# array with a single matrix (1, n, n) is shared by every step (input-free chain).
#
# Model (Bengio & Frasconi 1996): x_0 ~ startprob, then at every step t
# (including the first) x_t | x_{t-1}=j, u_t ~ trans[t, j, :] and the supervised
# output contributes log_emit[t, i] = log P(y_t | x_t = i, u_t) (0 where no target).
# The forward recursion is eq. 24, the backward eq. 27, the pairwise posteriors
# eq. 28 and the state posteriors eq. 29.
#
# Scaling: alpha_t is normalised at every step. The forward pass receives
# emit[t, i] = exp(log_emit[t, i]), computed beforehand by NumPy's vectorised exp,
# and uses it directly (c_t = sum_i pred_t,i emit[t, i]) whenever c_t is far from
# under- and overflow, which is the common case; otherwise (emission log-likelihoods
# beyond about +-700, e.g. down to -1e4) that step falls back to shifting the
# log-likelihoods by their maximum over the states reachable at t, so that c_t is at
# least the predicted probability of that state and never underflows for finite
# emissions. Either way the forward pass leaves emit[t, i] / c_t in `emit` for the
# backward pass, so no exp is ever computed twice.
#
# Speed: with a transition matrix per step the kernels stream `trans` once forward
# and once backward (reading it and writing xi over it), which bounds their speed;
# the arithmetic is arranged so that it hides behind that memory traffic: the next
# matrices are prefetched, the inner loops run over raw pointers along the contiguous
# last axis with independent partial sums (a single running sum is a serial chain
# the compiler may not reorder, hence not vectorise), and no log or division is
# taken per state.

from libc.math cimport exp, log, INFINITY
from libc.stdlib cimport malloc, free

cimport numpy as cnp

from ._loops cimport _dot, _scaled_step

cnp.import_array()

ctypedef cnp.intp_t intp

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define SKSEQ_PREFETCH(p) __builtin_prefetch((const void *)(p))
    #else
    #define SKSEQ_PREFETCH(p) ((void)0)
    #endif
    """
    void SKSEQ_PREFETCH(const double*) noexcept nogil


# What the backward pass writes into `xi` (the one declaration; Python code imports
# these names from here): nothing, the pairwise posteriors per step, the gradient of
# the log-likelihood with respect to the transition logits per step, or the pairwise
# posteriors summed over all steps.
cpdef enum:
    XI_NONE = 0
    XI_STEP = 1
    XI_GRAD = 2
    XI_SUM = 3

# How far ahead (in doubles, 2 KiB) the transition stream is prefetched: from 1 to
# 8 KiB, 2 KiB measured best at 8 and 32 states.
cdef Py_ssize_t _AHEAD = 256


cdef inline void _prefetch(const double* p, Py_ssize_t count) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(0, count, 8):  # one cache line holds 8 doubles
        SKSEQ_PREFETCH(p + k)


cdef inline void _vecmat(
    const double* x, const double* A, Py_ssize_t n, double* out
) noexcept nogil:
    """out = x @ A for a row-major (n, n) A.

    Up to 8 states, eight columns at a time in registers; beyond, row by row
    (out += x_j A_j), which reads A in memory order, as the prefetcher likes."""
    cdef Py_ssize_t i0 = 0, i, j
    cdef const double* r
    cdef double xj, p0, p1, p2, p3, p4, p5, p6, p7
    if n > 8:
        for i in range(n):
            out[i] = 0.0
        for j in range(n):
            xj = x[j]
            r = A + j * n
            for i in range(n):
                out[i] += xj * r[i]
        return
    while i0 + 8 <= n:
        p0 = p1 = p2 = p3 = p4 = p5 = p6 = p7 = 0.0
        for j in range(n):
            xj = x[j]
            r = A + j * n + i0
            p0 += xj * r[0]
            p1 += xj * r[1]
            p2 += xj * r[2]
            p3 += xj * r[3]
            p4 += xj * r[4]
            p5 += xj * r[5]
            p6 += xj * r[6]
            p7 += xj * r[7]
        out[i0] = p0
        out[i0 + 1] = p1
        out[i0 + 2] = p2
        out[i0 + 3] = p3
        out[i0 + 4] = p4
        out[i0 + 5] = p5
        out[i0 + 6] = p6
        out[i0 + 7] = p7
        i0 += 8
    while i0 + 2 <= n:
        p0 = p1 = 0.0
        for j in range(n):
            xj = x[j]
            r = A + j * n + i0
            p0 += xj * r[0]
            p1 += xj * r[1]
        out[i0] = p0
        out[i0 + 1] = p1
        i0 += 2
    for i in range(i0, n):
        p0 = 0.0
        for j in range(n):
            p0 += x[j] * A[j * n + i]
        out[i] = p0


cdef inline double _dot_scaled(
    const double* a, const double* b, double w, double* out, Py_ssize_t n
) noexcept nogil:
    """out = w * (a * b) elementwise (out may be a) and return a . b, in one pass."""
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef double p0, p1, p2, p3
    cdef Py_ssize_t i = 0
    while i + 4 <= n:
        p0 = a[i] * b[i]
        p1 = a[i + 1] * b[i + 1]
        p2 = a[i + 2] * b[i + 2]
        p3 = a[i + 3] * b[i + 3]
        s0 += p0
        s1 += p1
        s2 += p2
        s3 += p3
        out[i] = w * p0
        out[i + 1] = w * p1
        out[i + 2] = w * p2
        out[i + 3] = w * p3
        i += 4
    while i < n:
        p0 = a[i] * b[i]
        s0 += p0
        out[i] = w * p0
        i += 1
    return (s0 + s1) + (s2 + s3)


cdef double _forward_one(
    Py_ssize_t n,
    const double* startprob,    # IN (n,)
    const double* trans,        # IN matrix of step t at trans + t * trans_step
    Py_ssize_t trans_step,      # IN n * n, or 0 for one shared matrix
    const double* log_emit,     # IN (T, n)
    intp t0,
    intp t1,
    double* alpha,              # OUT (T, n): normalised forward variables
    double* emit,               # IN exp(log_emit); OUT emit[t] / c_t (0: unreachable)
    double* pred,               # scratch (n,)
) noexcept nogil:
    """Scaled forward pass over rows t0..t1-1; returns the log-likelihood."""
    cdef Py_ssize_t t
    cdef const double* prev = startprob
    cdef const double* A
    cdef double* a
    cdef double* e
    cdef double loglik = 0.0, prod = 1.0
    for t in range(t0, t1):
        A = trans + t * trans_step
        a = alpha + t * n
        e = emit + t * n
        if trans_step:
            _prefetch(A + _AHEAD, trans_step)
        _vecmat(prev, A, n, pred)
        if not _scaled_step(n, pred, log_emit + t * n, a, e, &loglik, &prod):
            return -INFINITY
        prev = a
    return loglik + log(prod)


cdef void _backward_one(
    Py_ssize_t n,
    const double* startprob,    # IN (n,)
    const double* trans,        # IN matrix of step t at trans + t * trans_step
    Py_ssize_t trans_step,      # IN n * n, or 0 for one shared matrix
    const double* emit,         # IN (T, n): emit[t] / c_t from the forward pass
    intp t0,
    intp t1,
    double weight,
    double* gamma,              # IN alpha of the forward pass; OUT weight * posteriors
    double* start_post,         # OUT (n,): weight * P(x_0 | y, u)
    double* xi,                 # OUT (T, n, n) or (n, n) for XI_SUM; may alias trans
    int xi_mode,
    double* beta,               # scratch (n,)
    double* v,                  # scratch (n,)
    double* newbeta,            # scratch (n,)
) noexcept nogil:
    """Scaled backward pass; turns alpha into posteriors and fills xi.

    xi_mode: XI_STEP writes the pairwise posteriors xi_t[j, i] = P(x_{t-1}=j,
    x_t=i | y, u) (eq. 28); XI_GRAD writes the gradient of the log-likelihood with
    respect to the transition logits, xi_t[j, i] - gamma_{t-1, j} trans[t, j, i];
    XI_SUM adds xi_t into xi; all multiplied by `weight`.
    """
    cdef Py_ssize_t t, i, j
    cdef const double* prev_alpha
    cdef const double* A
    cdef const double* row
    cdef const double* e
    cdef double* g
    cdef double* X
    cdef double* xr
    cdef double s, w
    cdef double* tmp
    for i in range(n):
        beta[i] = 1.0
    for t in range(t1 - 1, t0 - 1, -1):
        A = trans + t * trans_step
        e = emit + t * n
        g = gamma + t * n
        X = xi if xi_mode == XI_SUM else xi + t * n * n
        if trans_step:
            _prefetch(A - _AHEAD, trans_step)
        # v_i = P(y_t | x_t=i) beta_t,i / c_t; 0 for states unreachable at t.
        for i in range(n):
            v[i] = e[i] * beta[i]
        prev_alpha = gamma + (t - 1) * n if t > t0 else startprob
        # Rows in descending order keep the whole backward stream descending,
        # which the hardware prefetcher follows.
        for j in range(n - 1, -1, -1):
            row = A + j * n
            xr = X + j * n
            w = weight * prev_alpha[j]
            if xi_mode == XI_STEP:
                s = _dot_scaled(row, v, w, xr, n)
            else:
                s = _dot(row, v, n)
                if xi_mode == XI_GRAD:
                    for i in range(n):
                        xr[i] = w * row[i] * (v[i] - s)
                elif xi_mode == XI_SUM:
                    for i in range(n):
                        xr[i] += w * row[i] * v[i]
            newbeta[j] = s
        for i in range(n):
            g[i] = weight * g[i] * beta[i]
        tmp = beta
        beta = newbeta
        newbeta = tmp
    for j in range(n):
        start_post[j] = weight * startprob[j] * beta[j]


def forward_backward_fill(
    const double[::1] startprob,             # IN (n,)
    const double[:, :, ::1] trans,           # IN (T, n, n) or (1, n, n) shared
    const double[:, ::1] log_emit,           # IN (T, n)
    const intp[::1] offsets,                 # IN (n_seq + 1,)
    const double[::1] weight,                # IN (n_seq,)
    Py_ssize_t seq_start,                    # IN first sequence of this call
    Py_ssize_t seq_stop,                     # IN one past the last
    double[::1] loglik,                      # OUT (n_seq,)
    double[:, ::1] gamma,                    # OUT (T, n)
    double[:, ::1] emit,                     # IN exp(log_emit) (T, n); OUT scratch
    double[:, ::1] start_post,               # OUT (n_seq, n)
    double[:, :, ::1] xi,                    # OUT (T, n, n) or (1, n, n); may alias trans
    int xi_mode,                             # IN 0 none, 1 step, 2 logit gradient, 3 sum
    bint backward,                           # IN False: forward only (gamma = alpha)
):
    """Fill log-likelihoods, posteriors and pairwise statistics for a sequence range.

    ``emit`` must hold ``exp(log_emit)`` (overflow to inf and underflow to 0 are
    fine) on the rows of the range; it is overwritten. Releases the GIL, so
    disjoint sequence ranges can run in parallel threads. A sequence whose targets
    are impossible under the model gets loglik -inf and zero posteriors.
    """
    cdef Py_ssize_t n = startprob.shape[0]
    cdef Py_ssize_t trans_step = 0 if trans.shape[0] == 1 else n * n
    cdef Py_ssize_t s, i
    cdef intp t0, t1
    cdef double ll
    cdef double* work
    cdef double* gamma_ptr = &gamma[0, 0]
    cdef double* xi_ptr = &xi[0, 0, 0]
    with nogil:
        work = <double*> malloc(4 * n * sizeof(double))
        if work == NULL:
            with gil:
                raise MemoryError()
        for s in range(seq_start, seq_stop):
            t0 = offsets[s]
            t1 = offsets[s + 1]
            ll = _forward_one(
                n, &startprob[0], &trans[0, 0, 0], trans_step, &log_emit[0, 0], t0, t1,
                gamma_ptr, &emit[0, 0], work,
            )
            loglik[s] = ll
            if not backward:
                continue
            if ll == -INFINITY:
                for i in range(t0 * n, t1 * n):
                    gamma_ptr[i] = 0.0
                for i in range(n):
                    start_post[s, i] = 0.0
                if xi_mode == XI_STEP or xi_mode == XI_GRAD:
                    for i in range(t0 * n * n, t1 * n * n):
                        xi_ptr[i] = 0.0
                continue
            _backward_one(
                n, &startprob[0], &trans[0, 0, 0], trans_step, &emit[0, 0], t0, t1,
                weight[s], gamma_ptr, &start_post[s, 0], xi_ptr, xi_mode,
                work + n, work + 2 * n, work + 3 * n,
            )
        free(work)


def viterbi_fill(
    const double[::1] log_startprob,         # IN (n,)
    const double[:, :, ::1] log_trans,       # IN (T, n, n) or (1, n, n) shared
    const double[:, ::1] log_emit,           # IN (T, n)
    const intp[::1] offsets,                 # IN (n_seq + 1,)
    Py_ssize_t seq_start,
    Py_ssize_t seq_stop,
    double[::1] best_logprob,                # OUT (n_seq,)
    intp[:, ::1] backpointer,                # OUT/scratch (T, n)
    intp[::1] path,                          # OUT (T,)
):
    """Most likely state path of every sequence in the range (log space).

    x_0 is marginalised out of nothing: like the forward pass, the path starts in
    x_0 ~ startprob and the returned path is x_1..x_T.
    """
    cdef Py_ssize_t n = log_startprob.shape[0]
    cdef bint shared = log_trans.shape[0] == 1
    cdef Py_ssize_t s, t, i, j, best_j
    cdef intp t0, t1
    cdef double best, cand
    cdef double* delta
    cdef double* new_delta
    cdef double* tmp
    with nogil:
        delta = <double*> malloc(2 * n * sizeof(double))
        if delta == NULL:
            with gil:
                raise MemoryError()
        new_delta = delta + n
        for s in range(seq_start, seq_stop):
            t0 = offsets[s]
            t1 = offsets[s + 1]
            for i in range(n):
                delta[i] = log_startprob[i]
            for t in range(t0, t1):
                for i in range(n):
                    best = -INFINITY
                    best_j = 0
                    for j in range(n):
                        cand = delta[j] + log_trans[0 if shared else t, j, i]
                        if cand > best:
                            best = cand
                            best_j = j
                    new_delta[i] = best + log_emit[t, i]
                    backpointer[t, i] = best_j
                tmp = delta
                delta = new_delta
                new_delta = tmp
            best = -INFINITY
            best_j = 0
            for i in range(n):
                if delta[i] > best:
                    best = delta[i]
                    best_j = i
            best_logprob[s] = best
            for t in range(t1 - 1, t0 - 1, -1):
                path[t] = best_j
                best_j = backpointer[t, best_j]
        # delta and new_delta may have been swapped: free the block's start.
        free(delta if delta < new_delta else new_delta)
