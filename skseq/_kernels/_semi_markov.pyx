# Filter, smoother and Viterbi of a hidden semi-Markov chain of labels written
# over expanded states (label c, phase j, duration d).
#
# The kernels only fill the arrays they are given (see semi_markov.py beside it
# for the thin wrapper that checks shapes and allocates). Layout: time is the
# first axis, C-contiguous; the sequences are packed one after the other and
# `offsets[s]:offsets[s + 1]` are the rows of sequence s. An expanded state
# (c, j, d) is the flat index e = (c * k + j) * D + d, its hidden state
# s = c * k + j = e // D; the per-step log-likelihoods have one column per
# hidden state, shared by its D durations.
#
# Model (Ferguson 1980's variable-duration chain, written as Yu 2010's
# variable-transition HMM, whose state holds the duration elapsed so far,
# capped at D): within a segment (c, j, d) goes on to (c, j, min(d + 1, D - 1))
# with probability stay[c, j, d] and to (c, j + 1, min(d + 1, D - 1)) with
# move[c, j, d] (the segment's survival 1 - h_c(d) times the phase step); with
# hazard[c, j, d] the segment ends and the next starts at (c', 0, 0) with
# switch[c, c']; the first segment starts at (c, 0, 0) with start[c]. The last
# segment of a sequence is censored: nothing asks it to end with the sequence
# (the backward variables of the last step are 1).
#
# Recursions (the forward-backward and Viterbi of the variable-transition HMM,
# Yu 2010, over the pairs (state, duration so far)):
#   pred_t(c, j, d)  = sum over the two predecessors (c, j, d - 1) and
#                      (c, j - 1, d - 1) (and at d = D - 1 also (c, j, D - 1),
#                      (c, j - 1, D - 1)) of alpha_{t-1} times stay or move;
#   pred_t(c, 0, 0) += sum_c' switch[c', c] sum_{j, d} alpha_{t-1}(c', j, d)
#                      hazard[c', j, d]                      (a segment starts)
#   alpha_t          = pred_t * b_t(c, j) / (its sum)          (the filter)
#   beta_t(c, j, d)  = stay[c, j, d] B(c, j, d + 1) + move[c, j, d]
#                      B(c, j + 1, d + 1) + hazard[c, j, d] sum_c' switch[c, c']
#                      B(c', 0, 0),  B = beta_{t+1} b_{t+1}       (the smoother)
# with d + 1 read as min(d + 1, D - 1); the smoothed distribution is
# alpha_t beta_t summed over durations and normalised. Viterbi is the forward
# recursion with max for sum, on logarithms; where two ways score the same, the
# first (in the order of the slots, of the states) is kept.
#
# Scaling: the likelihoods b_t are exp(log-likelihood - top_t), top_t the
# largest log-likelihood among the hidden states pred_t reaches, so that the
# best reachable state's is 1 and a message never underflows to 0 (a state
# pred_t does not reach would get more than 1: its likelihood is capped at 1,
# since it multiplies 0 in the forward pass and must not overflow in the
# backward one); alpha_t is normalised to sum 1, beta_t to a largest entry of 1
# (dividing by the forward's normalisers overflows where they are subnormal),
# Viterbi's log-scores shifted to a largest of 0.
# This scaling loses entries to underflow once a step's log-likelihoods lie
# hundreds of nats apart: the wrapper then runs the filter and smoother written
# on logarithms (_semi_markov_log.pyx) instead.

from libc.math cimport exp, INFINITY

cimport numpy as cnp

from ._loops cimport _dot

cnp.import_array()

ctypedef cnp.intp_t intp


cdef class ChainArrays:
    """The chain's arrays, held for the kernels: ``stay``, ``move`` and
    ``hazard`` of shape (C * k, D), ``switch`` (C, C) and ``start`` (C,), or
    for Viterbi their logarithms (C-contiguous float64; the wrapper checks
    their shapes; their fields are declared in _semi_markov.pxd)."""

    def __init__(self, const double[:, ::1] stay, const double[:, ::1] move,
                 const double[:, ::1] hazard, const double[:, ::1] switch,
                 const double[::1] start):
        self.stay, self.move, self.hazard = stay, move, hazard
        self.switch, self.start = switch, start

    cdef Chain pointers(self):
        """The arrays as pointers, the sizes read from their shapes."""
        cdef Chain chain
        chain.n_classes = self.switch.shape[0]
        chain.k = self.stay.shape[0] // self.switch.shape[0]
        chain.n_durations = self.stay.shape[1]
        chain.stay = &self.stay[0, 0]
        chain.move = &self.move[0, 0]
        chain.hazard = &self.hazard[0, 0]
        chain.switch_ = &self.switch[0, 0]
        chain.start = &self.start[0]
        return chain


# -- sums and maxima -------------------------------------------------------------

cdef inline double _sum(const double* a, Py_ssize_t n) noexcept nogil:
    """a[0] + ... + a[n - 1] with eight partial sums: a single running sum is
    a serial chain of additions the compiler may not reorder."""
    cdef double r0 = 0.0, r1 = 0.0, r2 = 0.0, r3 = 0.0
    cdef double r4 = 0.0, r5 = 0.0, r6 = 0.0, r7 = 0.0
    cdef Py_ssize_t i = 0
    while i + 8 <= n:
        r0 += a[i]
        r1 += a[i + 1]
        r2 += a[i + 2]
        r3 += a[i + 3]
        r4 += a[i + 4]
        r5 += a[i + 5]
        r6 += a[i + 6]
        r7 += a[i + 7]
        i += 8
    while i < n:
        r0 += a[i]
        i += 1
    return ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))


cdef inline void _divide(double* a, Py_ssize_t n, double x) noexcept nogil:
    """a[:n] /= x, as a product by 1 / x where that cannot overflow."""
    cdef Py_ssize_t i
    cdef double inv
    if x > 1e-300:
        inv = 1.0 / x
        for i in range(n):
            a[i] *= inv
    else:
        for i in range(n):
            a[i] /= x


cdef inline double _max(const double* a, Py_ssize_t n) noexcept nogil:
    """The largest of a[0..n-1] (n >= 1), with four running maxima."""
    cdef double m0 = a[0], m1 = a[0], m2 = a[0], m3 = a[0]
    cdef Py_ssize_t i = 0
    while i + 4 <= n:
        m0 = a[i] if a[i] > m0 else m0
        m1 = a[i + 1] if a[i + 1] > m1 else m1
        m2 = a[i + 2] if a[i + 2] > m2 else m2
        m3 = a[i + 3] if a[i + 3] > m3 else m3
        i += 4
    while i < n:
        m0 = a[i] if a[i] > m0 else m0
        i += 1
    m0 = m1 if m1 > m0 else m0
    m2 = m3 if m3 > m2 else m2
    return m2 if m2 > m0 else m0


# -- the forward pass ------------------------------------------------------------

cdef void _initial(const Chain* ch, double* pred) noexcept nogil:
    """pred_1: each label's first segment at (c, 0, 0) with start[c]."""
    cdef Py_ssize_t e, c, per_label = ch.k * ch.n_durations
    for e in range(ch.n_classes * per_label):
        pred[e] = 0.0
    for c in range(ch.n_classes):
        pred[c * per_label] = ch.start[c]


cdef void _predict(const Chain* ch, const double* alpha, double* pred,
                   double* ends) noexcept nogil:
    """pred_t from alpha_{t-1} (see the recursions at the top); ``ends``
    (C,) scratch: the mass of the segments of each label that end."""
    cdef Py_ssize_t c, c2, j, d, b, p, D = ch.n_durations, k = ch.k
    cdef double x
    for c in range(ch.n_classes):
        ends[c] = 0.0
        for j in range(k):
            b = (c * k + j) * D
            pred[b] = 0.0
            for d in range(1, D):
                pred[b + d] = alpha[b + d - 1] * ch.stay[b + d - 1]
            pred[b + D - 1] += alpha[b + D - 1] * ch.stay[b + D - 1]
            if j > 0:  # the phase steps on from j - 1
                p = b - D
                for d in range(1, D):
                    pred[b + d] += alpha[p + d - 1] * ch.move[p + d - 1]
                pred[b + D - 1] += alpha[p + D - 1] * ch.move[p + D - 1]
            ends[c] += _dot(alpha + b, ch.hazard + b, D)
    for c in range(ch.n_classes):
        x = 0.0
        for c2 in range(ch.n_classes):
            x += ends[c2] * ch.switch_[c2 * ch.n_classes + c]
        pred[c * k * D] += x


cdef double _top(const Chain* ch, const double* pred, const double* log_emit
                 ) noexcept nogil:
    """The largest log-likelihood among the hidden states ``pred`` reaches."""
    cdef Py_ssize_t s, d, D = ch.n_durations
    cdef double top = -INFINITY
    for s in range(ch.n_classes * ch.k):
        for d in range(D):
            if pred[s * D + d] > 0.0:
                if log_emit[s] > top:
                    top = log_emit[s]
                break
    return top


cdef void _weigh(const Chain* ch, double* alpha, const double* log_emit,
                 double* like) noexcept nogil:
    """alpha_t from pred_t, in place: times the scaled likelihoods (written
    into ``like``, (C * k,)), normalised to sum 1."""
    cdef Py_ssize_t s, d, D = ch.n_durations
    cdef Py_ssize_t n = ch.n_classes * ch.k * D
    cdef double top = _top(ch, alpha, log_emit), x
    for s in range(ch.n_classes * ch.k):
        x = log_emit[s] - top
        if x > 0.0:  # only at states pred_t does not reach
            x = 0.0
        like[s] = exp(x)
        for d in range(D):
            alpha[s * D + d] *= like[s]
    _divide(alpha, n, _sum(alpha, n))


cdef void _states(const Chain* ch, const double* alpha, double* out
                  ) noexcept nogil:
    """``alpha`` summed over the durations, per hidden state."""
    cdef Py_ssize_t s, D = ch.n_durations
    for s in range(ch.n_classes * ch.k):
        out[s] = _sum(alpha + s * D, D)


cdef void _forward(const Chain* ch, const double* log_emit, intp t0, intp t1,
                   double* alpha, Py_ssize_t alpha_rows, double* like,
                   Py_ssize_t like_rows, double* proba, double* ends
                   ) noexcept nogil:
    """The filter over rows ``t0..t1-1``: alpha_t into row ``(t - t0) %
    alpha_rows`` of ``alpha``, the scaled likelihoods into row ``(t - t0) %
    like_rows`` of ``like``, and, unless ``proba`` is NULL, the filtered
    distributions of the hidden states into its rows ``t0..t1-1``."""
    cdef Py_ssize_t t, E = ch.n_classes * ch.k * ch.n_durations
    cdef Py_ssize_t S = ch.n_classes * ch.k
    cdef double* a
    cdef double* prev = NULL
    for t in range(t0, t1):
        a = alpha + ((t - t0) % alpha_rows) * E
        if prev == NULL:
            _initial(ch, a)
        else:
            _predict(ch, prev, a, ends)
        _weigh(ch, a, log_emit + t * S, like + ((t - t0) % like_rows) * S)
        if proba != NULL:
            _states(ch, a, proba + t * S)
        prev = a


def filter_fill(
    ChainArrays chain,                  # IN
    const double[:, ::1] log_emit,      # IN (n_steps, C * k)
    const intp[::1] offsets,            # IN (n_sequences + 1,)
    double[:, ::1] alpha,               # scratch (2, C * k * D)
    double[::1] like,                   # scratch (C * k,)
    double[::1] ends,                   # scratch (C,)
    double[:, ::1] proba,               # OUT (n_steps, C * k)
):
    """Fill the filtered distributions P(x_t | u_1..t) of the hidden states.

    Releases the GIL.
    """
    cdef Chain ch = chain.pointers()
    cdef Py_ssize_t s
    with nogil:
        for s in range(offsets.shape[0] - 1):
            _forward(&ch, &log_emit[0, 0], offsets[s], offsets[s + 1],
                     &alpha[0, 0], 2, &like[0], 1, &proba[0, 0], &ends[0])


# -- the backward pass -----------------------------------------------------------

cdef void _beta_step(const Chain* ch, double* beta, const double* like,
                     double* b, double* new) noexcept nogil:
    """beta_t from beta_{t+1} (``beta``, overwritten) and the scaled
    likelihoods of step t + 1, scaled to a largest entry of 1; ``b``
    (C * k * D,) and ``new`` (C,) scratch."""
    cdef Py_ssize_t c, c2, d, s, e, D = ch.n_durations, k = ch.k
    cdef Py_ssize_t E = ch.n_classes * k * D
    cdef double x
    for s in range(ch.n_classes * k):
        for d in range(D):
            b[s * D + d] = beta[s * D + d] * like[s]
    for c in range(ch.n_classes):  # a segment of label c ends: the next starts
        x = 0.0
        for c2 in range(ch.n_classes):
            x += b[c2 * k * D] * ch.switch_[c * ch.n_classes + c2]
        new[c] = x
    for s in range(ch.n_classes * k):
        e = s * D  # the durations go on by one; the last stays
        for d in range(D - 1):
            beta[e + d] = ch.stay[e + d] * b[e + d + 1]
        beta[e + D - 1] = ch.stay[e + D - 1] * b[e + D - 1]
        if s % k < k - 1:  # the phase steps on (the last does not)
            for d in range(D - 1):
                beta[e + d] += ch.move[e + d] * b[e + D + d + 1]
            beta[e + D - 1] += ch.move[e + D - 1] * b[e + 2 * D - 1]
        for d in range(D):
            beta[e + d] += ch.hazard[e + d] * new[s // k]
    _divide(beta, E, _max(beta, E))


cdef void _smoothed(const Chain* ch, const double* alpha, const double* beta,
                    double* out) noexcept nogil:
    """alpha_t beta_t summed over the durations, normalised over the hidden
    states."""
    cdef Py_ssize_t s, D = ch.n_durations, S = ch.n_classes * ch.k
    cdef double x, total = 0.0
    for s in range(S):
        x = _dot(alpha + s * D, beta + s * D, D)
        out[s] = x
        total += x
    for s in range(S):
        out[s] /= total


def smoother_fill(
    ChainArrays chain,                  # IN
    const double[:, ::1] log_emit,      # IN (n_steps, C * k)
    const intp[::1] offsets,            # IN (n_sequences + 1,)
    double[:, ::1] alpha,               # scratch (longest, C * k * D)
    double[:, ::1] like,                # scratch (longest, C * k)
    double[:, ::1] beta,                # scratch (2, C * k * D)
    double[::1] ends,                   # scratch (C,)
    double[:, ::1] proba,               # OUT (n_steps, C * k)
):
    """Fill the smoothed distributions P(x_t | u_1..T) of the hidden states
    (forward-backward over the expanded states, one sequence at a time).

    Releases the GIL.
    """
    cdef Chain ch = chain.pointers()
    cdef Py_ssize_t s, t, e
    cdef Py_ssize_t E = alpha.shape[1]
    cdef intp t0, t1
    with nogil:
        for s in range(offsets.shape[0] - 1):
            t0, t1 = offsets[s], offsets[s + 1]
            _forward(&ch, &log_emit[0, 0], t0, t1, &alpha[0, 0], alpha.shape[0],
                     &like[0, 0], like.shape[0], NULL, &ends[0])
            for e in range(E):  # the last segment is censored
                beta[0, e] = 1.0
            for t in range(t1 - 1, t0 - 1, -1):
                if t < t1 - 1:
                    _beta_step(&ch, &beta[0, 0], &like[t + 1 - t0, 0], &beta[1, 0],
                               &ends[0])
                _smoothed(&ch, &alpha[t - t0, 0], &beta[0, 0], &proba[t, 0])


# -- Viterbi ---------------------------------------------------------------------

cdef inline void _last_duration(const Chain* ch, const double* delta,
                                Py_ssize_t e, bint moves, double* out,
                                signed char* slot) noexcept nogil:
    """The best way into the last duration ``e`` of a state: all four slots
    of :func:`_viterbi_within` (the first two only if D > 1)."""
    cdef Py_ssize_t D = ch.n_durations
    cdef double best = -INFINITY, x
    cdef signed char arg = 0
    if D > 1:
        best = delta[e - 1] + ch.stay[e - 1]
        if moves:
            x = delta[e - D - 1] + ch.move[e - D - 1]
            if x > best:
                best, arg = x, 1
    x = delta[e] + ch.stay[e]
    if x > best:
        best, arg = x, 2
    if moves:
        x = delta[e - D] + ch.move[e - D]
        if x > best:
            best, arg = x, 3
    out[e] = best
    slot[e] = arg


cdef void _viterbi_within(const Chain* ch, const double* delta, double* out,
                          signed char* slot) noexcept nogil:
    """The best way into every expanded state within a segment, from the
    log-scores ``delta`` of the step before: ``out`` its score, ``slot`` where
    from (0: same phase, one duration back; 1: previous phase, one back; 2, 3:
    the same at the last duration, which stays; the first best on ties; none
    into a first duration: -inf, slot 0)."""
    cdef Py_ssize_t s, d, b, D = ch.n_durations
    cdef double best, x
    cdef bint moves
    for s in range(ch.n_classes * ch.k):
        b = s * D
        moves = s % ch.k > 0  # phase 0 has no phase before it
        out[b] = -INFINITY
        slot[b] = 0
        for d in range(1, D - 1):
            best = delta[b + d - 1] + ch.stay[b + d - 1]
            x = delta[b + d - D - 1] + ch.move[b + d - D - 1] if moves else best
            out[b + d] = x if x > best else best
            slot[b + d] = 1 if x > best else 0
        _last_duration(ch, delta, b + D - 1, moves, out, slot)


cdef inline Py_ssize_t _argmax_sum(const double* a, const double* b, Py_ssize_t n,
                                   double* best) noexcept nogil:
    """The first i at which a[i] + b[i] is largest (n >= 1), its value into
    ``best``: four running maxima, each the first of its own, then the
    largest of them, the first on ties."""
    cdef double v[4]
    cdef Py_ssize_t at[4]
    cdef Py_ssize_t i, lane, m = n if n < 4 else 4
    cdef double x
    v[0] = v[1] = v[2] = v[3] = -INFINITY  # (only the first m are read)
    at[0] = at[1] = at[2] = at[3] = 0
    for lane in range(m):
        v[lane] = a[lane] + b[lane]
        at[lane] = lane
    i = 4
    while i + 4 <= n:
        for lane in range(4):
            x = a[i + lane] + b[i + lane]
            if x > v[lane]:
                v[lane], at[lane] = x, i + lane
        i += 4
    while i < n:
        x = a[i] + b[i]
        if x > v[0]:
            v[0], at[0] = x, i
        i += 1
    i = 0
    for lane in range(1, m):
        if v[lane] > v[i] or (v[lane] == v[i] and at[lane] < at[i]):
            i = lane
    best[0] = v[i]
    return at[i]


cdef void _viterbi_starts(const Chain* ch, const double* delta, double* out,
                          intp* came, intp* within, double* best_end
                          ) noexcept nogil:
    """The best way into every segment's first state (c, 0, 0): ``within[c]``
    the state (index within label c) of the best segment of label c to end,
    ``came[c']`` the label whose end starts c' best; ``best_end`` (C,)
    scratch."""
    cdef Py_ssize_t c, c2, per_label = ch.k * ch.n_durations
    cdef Py_ssize_t C = ch.n_classes
    cdef double best, x
    for c in range(C):
        within[c] = _argmax_sum(delta + c * per_label, ch.hazard + c * per_label,
                                per_label, &best_end[c])
    for c2 in range(C):
        best = best_end[0] + ch.switch_[c2]
        came[c2] = 0
        for c in range(1, C):
            x = best_end[c] + ch.switch_[c * C + c2]
            if x > best:
                best, came[c2] = x, c
        out[c2 * per_label] = best


cdef void _emit_and_shift(const Chain* ch, double* delta, const double* log_emit
                          ) noexcept nogil:
    """delta += the step's log-likelihoods, then shifted to a largest of 0."""
    cdef Py_ssize_t s, d, e, D = ch.n_durations
    cdef Py_ssize_t E = ch.n_classes * ch.k * D
    cdef double top
    for s in range(ch.n_classes * ch.k):
        for d in range(D):
            delta[s * D + d] = delta[s * D + d] + log_emit[s]
    top = _max(delta, E)
    for e in range(E):
        delta[e] -= top


cdef Py_ssize_t _first_max(const double* a, Py_ssize_t n) noexcept nogil:
    """The first i at which a[i] is largest (n >= 1)."""
    cdef Py_ssize_t i, arg = 0
    for i in range(1, n):
        if a[i] > a[arg]:
            arg = i
    return arg


cdef Py_ssize_t _source(const Chain* ch, Py_ssize_t e, signed char slot
                        ) noexcept nogil:
    """The expanded state from which ``slot`` (see :func:`_viterbi_within`)
    reaches ``e`` (0 where none)."""
    cdef Py_ssize_t D = ch.n_durations, d = e % D, j = (e // D) % ch.k
    if slot == 0:
        return e - 1 if d > 0 else 0
    if slot == 1:
        return e - D - 1 if (j > 0 and d > 0) else 0
    if slot == 2:
        return e if d == D - 1 else 0
    return e - D if (j > 0 and d == D - 1) else 0


cdef void _backtrack(const Chain* ch, Py_ssize_t last, intp t0, intp t1,
                     const signed char* slot, const intp* came,
                     const intp* within, intp* path) noexcept nogil:
    """Follow the pointers of rows ``1..t1-t0-1`` back from the best last
    expanded state ``last`` and write the hidden states into ``path[t0:t1]``."""
    cdef Py_ssize_t t, i, label, per_label = ch.k * ch.n_durations
    cdef Py_ssize_t E = ch.n_classes * per_label, C = ch.n_classes
    cdef Py_ssize_t current = last
    for t in range(t1 - 1, t0 - 1, -1):
        path[t] = current // ch.n_durations
        if t == t0:
            break
        i = t - t0
        if current % per_label == 0:  # a segment started: where the last ended
            label = came[i * C + current // per_label]
            current = label * per_label + within[i * C + label]
        else:
            current = _source(ch, current, slot[i * E + current])


def viterbi_fill(
    ChainArrays chain,                  # IN its logarithms
    const double[:, ::1] log_emit,      # IN (n_steps, C * k)
    const intp[::1] offsets,            # IN (n_sequences + 1,)
    double[:, ::1] delta,               # scratch (2, C * k * D)
    signed char[:, ::1] slot,           # scratch (longest, C * k * D)
    intp[:, ::1] came,                  # scratch (longest, C)
    intp[:, ::1] within,                # scratch (longest, C)
    double[::1] best_end,               # scratch (C,)
    intp[::1] path,                     # OUT (n_steps,)
):
    """Fill the hidden states (``c * k + j``) of every sequence's most likely
    path over the expanded states (its durations dropped).

    Releases the GIL.
    """
    cdef Chain ch = chain.pointers()
    cdef Py_ssize_t s, t, e, E = delta.shape[1], C = ch.n_classes
    cdef double* prev = NULL
    cdef double* cur
    with nogil:
        for s in range(offsets.shape[0] - 1):
            for t in range(offsets[s], offsets[s + 1]):
                cur = &delta[(t - offsets[s]) % 2, 0]
                if t == offsets[s]:
                    for e in range(E):
                        cur[e] = -INFINITY
                    for e in range(C):
                        cur[e * (E // C)] = ch.start[e]
                else:
                    _viterbi_within(&ch, prev, cur, &slot[t - offsets[s], 0])
                    _viterbi_starts(&ch, prev, cur, &came[t - offsets[s], 0],
                                    &within[t - offsets[s], 0], &best_end[0])
                _emit_and_shift(&ch, cur, &log_emit[t, 0])
                prev = cur
            if offsets[s + 1] > offsets[s]:
                _backtrack(&ch, _first_max(prev, E), offsets[s], offsets[s + 1],
                           &slot[0, 0], &came[0, 0], &within[0, 0], &path[0])
