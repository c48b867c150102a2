# The filter and smoother of _semi_markov.pyx written on logarithms, for the
# sequences whose steps' log-likelihoods lie too far apart for its scaled
# recursions (the wrapper, semi_markov.py, picks them).
#
# Same model, layout and recursions as there (see its header), with products
# as sums and sums as log-sum-exp: every message is held as the logarithm of
# its entries, shifted per step to a largest of 0, so that no entry is lost to
# underflow however far apart the likelihoods are. A scaled pass loses such
# entries: a likelihood e^-800 below the step's largest is 0 in double
# precision, and the backward variables of every state whose successors are
# all that unlikely become 0 together (0 / 0 in the smoothed distribution), or
# the forward variables of a state that a later step favours. It costs an exp
# and a log1p per term, hence used only where needed.

from libc.math cimport exp, log1p, INFINITY

cimport numpy as cnp

from ._semi_markov cimport Chain, ChainArrays

cnp.import_array()

ctypedef cnp.intp_t intp


cdef inline double _add(double a, double b) noexcept nogil:
    """log(exp(a) + exp(b)), exact where either is -inf."""
    if a < b:
        a, b = b, a
    if b == -INFINITY:
        return a
    return a + log1p(exp(b - a))


cdef void _shift(double* a, Py_ssize_t n) noexcept nogil:
    """a[:n] -= its largest (unless that is -inf: no way there)."""
    cdef Py_ssize_t i
    cdef double top = -INFINITY
    for i in range(n):
        if a[i] > top:
            top = a[i]
    if top > -INFINITY:
        for i in range(n):
            a[i] -= top


cdef void _log_predict(const Chain* ch, const double* alpha, double* pred,
                       double* ends) noexcept nogil:
    """log pred_t from log alpha_{t-1} (the chain's arrays are logarithms);
    ``ends`` (C,) scratch."""
    cdef Py_ssize_t c, c2, j, d, b, p, D = ch.n_durations, k = ch.k
    cdef double x
    for c in range(ch.n_classes):
        ends[c] = -INFINITY
        for j in range(k):
            b = (c * k + j) * D
            pred[b] = -INFINITY
            for d in range(1, D):
                pred[b + d] = alpha[b + d - 1] + ch.stay[b + d - 1]
            pred[b + D - 1] = _add(pred[b + D - 1],
                                   alpha[b + D - 1] + ch.stay[b + D - 1])
            if j > 0:  # the phase steps on from j - 1
                p = b - D
                for d in range(1, D):
                    pred[b + d] = _add(pred[b + d],
                                       alpha[p + d - 1] + ch.move[p + d - 1])
                pred[b + D - 1] = _add(pred[b + D - 1],
                                       alpha[p + D - 1] + ch.move[p + D - 1])
            for d in range(D):
                ends[c] = _add(ends[c], alpha[b + d] + ch.hazard[b + d])
    for c in range(ch.n_classes):
        x = -INFINITY
        for c2 in range(ch.n_classes):
            x = _add(x, ends[c2] + ch.switch_[c2 * ch.n_classes + c])
        pred[c * k * D] = _add(pred[c * k * D], x)


cdef void _states(const Chain* ch, const double* x, double* out) noexcept nogil:
    """exp(x) summed over the durations and normalised over the hidden states
    (x a log alpha_t, or log alpha_t + log beta_t, shifted to a largest of 0)."""
    cdef Py_ssize_t s, d, D = ch.n_durations, S = ch.n_classes * ch.k
    cdef double total = 0.0
    for s in range(S):
        out[s] = 0.0
        for d in range(D):
            out[s] += exp(x[s * D + d])
        total += out[s]
    for s in range(S):
        out[s] /= total


cdef void _log_forward(const Chain* ch, const double* log_emit, intp t0, intp t1,
                       double* alpha, Py_ssize_t alpha_rows, double* proba,
                       double* ends) noexcept nogil:
    """log alpha_t over rows ``t0..t1-1`` into row ``(t - t0) % alpha_rows``
    of ``alpha`` (shifted to a largest of 0), and unless ``proba`` is NULL the
    filtered distributions of the hidden states into its rows ``t0..t1-1``."""
    cdef Py_ssize_t t, c, e, D = ch.n_durations
    cdef Py_ssize_t S = ch.n_classes * ch.k, E = S * D
    cdef double* a
    cdef double* prev = NULL
    for t in range(t0, t1):
        a = alpha + ((t - t0) % alpha_rows) * E
        if prev == NULL:
            for e in range(E):
                a[e] = -INFINITY
            for c in range(ch.n_classes):
                a[c * ch.k * D] = ch.start[c]
        else:
            _log_predict(ch, prev, a, ends)
        for e in range(E):
            a[e] += log_emit[t * S + e // D]
        _shift(a, E)
        if proba != NULL:
            _states(ch, a, proba + t * S)
        prev = a


def filter_fill(
    ChainArrays chain,                  # IN its logarithms
    const double[:, ::1] log_emit,      # IN (n_steps, C * k)
    const intp[::1] offsets,            # IN (n_sequences + 1,)
    double[:, ::1] alpha,               # scratch (2, C * k * D)
    double[::1] ends,                   # scratch (C,)
    double[:, ::1] proba,               # OUT (n_steps, C * k)
):
    """Fill the filtered distributions P(x_t | u_1..t) of the hidden states,
    the forward variables held as logarithms (releases the GIL)."""
    cdef Chain ch = chain.pointers()
    cdef Py_ssize_t s
    with nogil:
        for s in range(offsets.shape[0] - 1):
            _log_forward(&ch, &log_emit[0, 0], offsets[s], offsets[s + 1],
                         &alpha[0, 0], 2, &proba[0, 0], &ends[0])


cdef void _log_beta_step(const Chain* ch, double* beta, const double* log_emit,
                         double* b, double* new) noexcept nogil:
    """log beta_t from log beta_{t+1} (``beta``, overwritten) and the
    log-likelihoods of step t + 1, shifted to a largest of 0; ``b``
    (C * k * D,) and ``new`` (C,) scratch."""
    cdef Py_ssize_t c, c2, d, s, e, D = ch.n_durations, k = ch.k
    cdef Py_ssize_t E = ch.n_classes * k * D
    cdef double x
    for e in range(E):
        b[e] = beta[e] + log_emit[e // D]
    for c in range(ch.n_classes):  # a segment of label c ends: the next starts
        x = -INFINITY
        for c2 in range(ch.n_classes):
            x = _add(x, b[c2 * k * D] + ch.switch_[c * ch.n_classes + c2])
        new[c] = x
    for s in range(ch.n_classes * k):
        e = s * D  # the durations go on by one; the last stays
        for d in range(D - 1):
            beta[e + d] = ch.stay[e + d] + b[e + d + 1]
        beta[e + D - 1] = ch.stay[e + D - 1] + b[e + D - 1]
        if s % k < k - 1:  # the phase steps on (the last does not)
            for d in range(D - 1):
                beta[e + d] = _add(beta[e + d], ch.move[e + d] + b[e + D + d + 1])
            beta[e + D - 1] = _add(beta[e + D - 1],
                                   ch.move[e + D - 1] + b[e + 2 * D - 1])
        for d in range(D):
            beta[e + d] = _add(beta[e + d], ch.hazard[e + d] + new[s // k])
    _shift(beta, E)


def smoother_fill(
    ChainArrays chain,                  # IN its logarithms
    const double[:, ::1] log_emit,      # IN (n_steps, C * k)
    const intp[::1] offsets,            # IN (n_sequences + 1,)
    double[:, ::1] alpha,               # scratch (longest, C * k * D)
    double[:, ::1] beta,                # scratch (3, C * k * D)
    double[::1] ends,                   # scratch (C,)
    double[:, ::1] proba,               # OUT (n_steps, C * k)
):
    """Fill the smoothed distributions P(x_t | u_1..T) of the hidden states,
    the forward and backward variables held as logarithms (releases the
    GIL)."""
    cdef Chain ch = chain.pointers()
    cdef Py_ssize_t s, t, e, E = alpha.shape[1]
    cdef intp t0, t1
    with nogil:
        for s in range(offsets.shape[0] - 1):
            t0, t1 = offsets[s], offsets[s + 1]
            _log_forward(&ch, &log_emit[0, 0], t0, t1, &alpha[0, 0],
                         alpha.shape[0], NULL, &ends[0])
            for e in range(E):  # the last segment is censored
                beta[0, e] = 0.0
            for t in range(t1 - 1, t0 - 1, -1):
                if t < t1 - 1:
                    _log_beta_step(&ch, &beta[0, 0], &log_emit[t + 1, 0],
                                   &beta[1, 0], &ends[0])
                for e in range(E):
                    beta[2, e] = alpha[t - t0, e] + beta[0, e]
                _shift(&beta[2, 0], E)
                _states(&ch, &beta[2, 0], &proba[t, 0])
