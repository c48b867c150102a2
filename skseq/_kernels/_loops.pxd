# Inline loops shared by the compiled modules (_forward_backward.pyx,
# _softmax.pyx, _fused.pyx, _semi_markov.pyx).
#
from libc.math cimport exp, log, INFINITY

# Short rows (a few states) are summed with independent partial sums: a single
# running sum is a serial chain the compiler may not reorder, hence not vectorise.


cdef inline double _dot(const double* a, const double* b, Py_ssize_t n) noexcept nogil:
    """a . b with four independent partial sums."""
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef Py_ssize_t i = 0
    while i + 4 <= n:
        s0 += a[i] * b[i]
        s1 += a[i + 1] * b[i + 1]
        s2 += a[i + 2] * b[i + 2]
        s3 += a[i + 3] * b[i + 3]
        i += 4
    while i < n:
        s0 += a[i] * b[i]
        i += 1
    return (s0 + s1) + (s2 + s3)


# -- one scaled forward step (Bengio & Frasconi 1996, eq. 24) --------------------
# An unshifted c_t within (1e-280, 1e280) is used as is (the terms lost to
# underflow are then below 1e-27 of it); below 1e-300, 1 / c_t may overflow, so
# it divides instead; c_t within (1e-100, 1e100) enters a running product kept
# within (1e-200, 1e200), so that a log is taken once per ~200 decades rather
# than per step.

cdef inline double _shifted_step(
    Py_ssize_t n, const double* pred, const double* le, double* a, double* e
) noexcept nogil:
    """Slow path of one forward step: emissions shifted by their maximum m over the
    reachable states. Fills a = pred * exp(le - m) and e = exp(le - m) (0 where
    unreachable, never their possibly huge shifted emission); returns m, or -inf
    if no reachable state can emit."""
    cdef Py_ssize_t i
    cdef double m = -INFINITY, x
    for i in range(n):
        if pred[i] > 0.0 and le[i] > m:
            m = le[i]
    if m == -INFINITY:
        return -INFINITY
    for i in range(n):
        x = exp(le[i] - m) if pred[i] > 0.0 else 0.0
        e[i] = x
        a[i] = pred[i] * x
    return m


cdef inline bint _scaled_step(
    Py_ssize_t n,
    const double* pred,             # IN (n,) predicted state distribution
    const double* le,               # IN (n,) log_emit of this step
    double* a,                      # OUT (n,) alpha_t
    double* e,                      # IN exp(le); OUT exp(le) / c_t (0: unreachable)
    double* loglik,                 # IN/OUT the log-likelihood so far
    double* prod,                   # IN/OUT scales not yet taken the log of
) noexcept nogil:
    """alpha_t = pred * emit / c_t with c_t its sum; adds log c_t to the
    log-likelihood. False if no reachable state can emit."""
    cdef Py_ssize_t i
    cdef double x, c = 0.0, inv
    for i in range(n):
        x = e[i] if pred[i] > 0.0 else 0.0
        e[i] = x
        a[i] = pred[i] * x
        c += a[i]
    if not 1e-280 < c < 1e280:
        # Out of range, or NaN (an overflowing exp met an impossible state).
        x = _shifted_step(n, pred, le, a, e)
        if x == -INFINITY:
            return False
        loglik[0] += x
        c = 0.0
        for i in range(n):
            c += a[i]
    if c > 1e-300:
        inv = 1.0 / c
        for i in range(n):
            a[i] *= inv
            e[i] *= inv
    else:
        for i in range(n):
            a[i] /= c
            e[i] /= c
    if 1e-100 < c < 1e100:
        prod[0] *= c
        if not 1e-200 < prod[0] < 1e200:
            loglik[0] += log(prod[0])
            prod[0] = 1.0
    else:
        loglik[0] += log(c)
    return True
