# Forward-backward and Viterbi over time-varying transition matrices.
#
# The kernels only fill the arrays they are given (see skseq/_inference.py for the
# thin wrapper that checks shapes, allocates and spreads sequences over threads).
# Layout: time is the first axis, C-contiguous; all sequences are packed one after
# the other and `offsets[s]:offsets[s + 1]` are the rows of sequence s. A transition
# array with a single matrix (1, n, n) is shared by every step (input-free chain).
#
# Model (Bengio & Frasconi 1996, paper 000): x_0 ~ startprob, then at every step t
# (including the first) x_t | x_{t-1}=j, u_t ~ trans[t, j, :] and the supervised
# output contributes log_emit[t, i] = log P(y_t | x_t = i, u_t) (0 where no target).
# The forward recursion is eq. 24, the backward eq. 27, the pairwise posteriors
# eq. 28 and the state posteriors eq. 29.
#
# Scaling: alpha_t is normalised at every step; the emission log-likelihoods are
# shifted by their maximum over the states reachable at t, so the per-step scale
# c_t is at least the predicted probability of that state and never underflows for
# finite emissions (checked for log-likelihoods down to -1e4).

from libc.math cimport exp, log, INFINITY
from libc.stdlib cimport malloc, free

cimport numpy as cnp

cnp.import_array()

ctypedef cnp.intp_t intp


cdef int XI_NONE = 0
cdef int XI_STEP = 1
cdef int XI_GRAD = 2
cdef int XI_SUM = 3


cdef double _forward_one(
    const double[::1] startprob,
    const double[:, :, ::1] trans,
    const double[:, ::1] log_emit,
    intp t0,
    intp t1,
    double[:, ::1] alpha,       # OUT: normalised forward variables
    double[::1] lognorm,        # OUT: log of each step's normaliser
    double* pred,               # scratch (n,)
) noexcept nogil:
    """Scaled forward pass over rows t0..t1-1; returns the log-likelihood."""
    cdef Py_ssize_t n = startprob.shape[0]
    cdef bint shared = trans.shape[0] == 1
    cdef Py_ssize_t t, i, j
    cdef const double* prev = &startprob[0]
    cdef const double* row
    cdef double pj, m, c, a, loglik = 0.0
    for t in range(t0, t1):
        for i in range(n):
            pred[i] = 0.0
        for j in range(n):
            pj = prev[j]
            if pj == 0.0:
                continue
            row = &trans[0 if shared else t, j, 0]
            for i in range(n):
                pred[i] += pj * row[i]
        # Shift by the largest emission among the states reachable at t.
        m = -INFINITY
        for i in range(n):
            if pred[i] > 0.0 and log_emit[t, i] > m:
                m = log_emit[t, i]
        if m == -INFINITY:
            return -INFINITY
        c = 0.0
        for i in range(n):
            a = pred[i] * exp(log_emit[t, i] - m) if pred[i] > 0.0 else 0.0
            alpha[t, i] = a
            c += a
        for i in range(n):
            alpha[t, i] /= c
        lognorm[t] = m + log(c)
        loglik += lognorm[t]
        prev = &alpha[t, 0]
    return loglik


cdef void _backward_one(
    const double[::1] startprob,
    const double[:, :, ::1] trans,
    const double[:, ::1] log_emit,
    intp t0,
    intp t1,
    double weight,
    double[:, ::1] gamma,       # IN: alpha from the forward pass; OUT: weight * posteriors
    const double[::1] lognorm,
    double[::1] start_post,     # OUT: weight * P(x_0 | y, u)
    double[:, :, ::1] xi,       # OUT (may alias trans): see xi_mode
    int xi_mode,
    double* beta,               # scratch (n,)
    double* v,                  # scratch (n,)
    double* newbeta,            # scratch (n,)
) noexcept nogil:
    """Scaled backward pass; turns alpha into posteriors and fills xi.

    xi_mode: XI_STEP writes the pairwise posteriors xi_t[j, i] = P(x_{t-1}=j,
    x_t=i | y, u) (eq. 28); XI_GRAD writes the gradient of the log-likelihood with
    respect to the transition logits, xi_t[j, i] - gamma_{t-1, j} trans[t, j, i];
    XI_SUM adds xi_t into xi[0]; all multiplied by `weight`.
    """
    cdef Py_ssize_t n = startprob.shape[0]
    cdef bint shared = trans.shape[0] == 1
    cdef Py_ssize_t t, i, j
    cdef const double* prev_alpha
    cdef const double* row
    cdef double s, w
    cdef double* tmp
    for i in range(n):
        beta[i] = 1.0
    for t in range(t1 - 1, t0 - 1, -1):
        # v_i = P(y_t | x_t=i) beta_t,i / c_t; unreachable states (alpha = 0) are
        # zeroed so that their possibly huge scaled emission never meets a 0.
        for i in range(n):
            if gamma[t, i] > 0.0:
                v[i] = exp(log_emit[t, i] - lognorm[t]) * beta[i]
            else:
                v[i] = 0.0
        prev_alpha = &gamma[t - 1, 0] if t > t0 else &startprob[0]
        for j in range(n):
            row = &trans[0 if shared else t, j, 0]
            s = 0.0
            for i in range(n):
                s += row[i] * v[i]
            newbeta[j] = s
            w = weight * prev_alpha[j]
            if xi_mode == XI_STEP:
                for i in range(n):
                    xi[t, j, i] = w * row[i] * v[i]
            elif xi_mode == XI_GRAD:
                for i in range(n):
                    xi[t, j, i] = w * row[i] * (v[i] - s)
            elif xi_mode == XI_SUM:
                for i in range(n):
                    xi[0, j, i] += w * row[i] * v[i]
        for i in range(n):
            gamma[t, i] = weight * gamma[t, i] * beta[i]
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
    double[::1] lognorm,                     # OUT/scratch (T,)
    double[:, ::1] start_post,               # OUT (n_seq, n)
    double[:, :, ::1] xi,                    # OUT (T, n, n) or (1, n, n); may alias trans
    int xi_mode,                             # IN 0 none, 1 step, 2 logit gradient, 3 sum
    bint backward,                           # IN False: forward only (gamma = alpha)
):
    """Fill log-likelihoods, posteriors and pairwise statistics for a sequence range.

    Releases the GIL, so disjoint sequence ranges can run in parallel threads. A
    sequence whose targets are impossible under the model gets loglik -inf and
    zero posteriors.
    """
    cdef Py_ssize_t n = startprob.shape[0]
    cdef Py_ssize_t s, t, i
    cdef intp t0, t1
    cdef double ll
    cdef double* work
    with nogil:
        work = <double*> malloc(4 * n * sizeof(double))
        if work == NULL:
            with gil:
                raise MemoryError()
        for s in range(seq_start, seq_stop):
            t0 = offsets[s]
            t1 = offsets[s + 1]
            ll = _forward_one(startprob, trans, log_emit, t0, t1, gamma, lognorm, work)
            loglik[s] = ll
            if not backward:
                continue
            if ll == -INFINITY:
                for t in range(t0, t1):
                    for i in range(n):
                        gamma[t, i] = 0.0
                for i in range(n):
                    start_post[s, i] = 0.0
                if xi_mode == XI_STEP or xi_mode == XI_GRAD:
                    for t in range(t0, t1):
                        for i in range(n * n):
                            xi[t, i // n, i % n] = 0.0
                continue
            _backward_one(
                startprob, trans, log_emit, t0, t1, weight[s], gamma, lognorm,
                start_post[s], xi, xi_mode, work + n, work + 2 * n, work + 3 * n,
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
