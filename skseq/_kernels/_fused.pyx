# Fused value-and-gradient pass for the state networks whose logits are linear in
# their parameters (the "input" and "additive" families of skseq/_families/transitions.py).
#
# The kernel only fills the arrays it is given (fused.py beside it is the thin wrapper
# that checks shapes, allocates and spreads the work over threads). Layout as in
# _forward_backward.pyx: time first, C-contiguous, sequences packed one after
# the other (`offsets[s]:offsets[s + 1]` are the rows of sequence s).
#
# Model and recursions: Bengio & Frasconi (1996). The transition matrices
# are not read from memory but formed from the inputs inside the pass:
#   input    z_t[j, i] = sum_k u_t[k] W[k, j, i] + b[j, i]   (Buys et al. 2018, eq. 22)
#   additive z_t[j, i] = sum_k u_t[k] V[k, i] + B[j, i]      (Buys et al. 2018, eq. 23)
#   A_t[j, :] = softmax over the allowed entries of z_t[j, :]   (Bengio & Frasconi, eq. 2)
# then the scaled forward recursion (eq. 24) and the backward one (eq. 27), which
# yields the gradient of log P(y | u) with respect to the logits,
#   G_t[j, i] = xi_t[j, i] - gamma_{t-1, j} A_t[j, i]   (eqs. 28-29 and 36),
# pushed straight into the parameter gradient: dW[k] += u_t[k] G_t, db += G_t
# (additive: dV[k, i] += u_t[k] sum_j G_t[j, i]). Nothing of size T n^2 is stored:
# the matrices of a block of steps live in a cache-sized buffer; the backward pass
# reuses the block the forward pass ended on and recomputes the others (a sequence
# shorter than a block is computed once).
#
# Numerical safeguards (the same as the unfused path):
# - logits: in a block whose inputs may overflow them (near the float64 limit,
#   beyond the caller's bound), each product saturates at +-1e300 (NaN from
#   inf - inf at 0), as skseq._families.params.linear_map does, before the intercept;
# - softmax: without a shift when every logit of the block is within +-690 (exp
#   then neither overflows nor leaves the normal range), else shifted by the row
#   maximum over the allowed entries; forbidden transitions get probability 0;
# - emissions: c_t = sum_i pred_t,i exp(log_emit[t, i]) is used directly when far
#   from under- and overflow, else that step shifts the emission log-likelihoods by
#   their maximum over the reachable states (emissions down to -1e4 or beyond
#   +700); a sequence whose targets are impossible gets loglik -inf and zero
#   posteriors and gradient.
#
# exp: a vectorisable exp (below) instead of one libm call per entry, whose
# scalar cost would be most of the pass: exp(x) = 2^k exp(r), k = round(x / ln 2),
# |r| <= ln(2) / 2, exp(r) by its Taylor polynomial of degree 13 (truncation error
# below 1e-17 relative; measured within 1 ulp of libm's). The branch-free selects
# vectorise only without -ftrapping-math (setup.py adds -fno-trapping-math, which
# changes no result: it only lets the compiler assume no floating-point traps).

from libc.math cimport exp, log, fabs, INFINITY
from libc.stdlib cimport malloc, free
from libc.string cimport memset

cimport numpy as cnp

from ._loops cimport _dot, _scaled_step

cnp.import_array()

ctypedef cnp.intp_t intp

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    /* exp(x) within 1 ulp; 0 below -707 (exp(-707) ~ 9e-308: nothing the
       callers add it to can notice), inf beyond 709.78, NaN for NaN. */
    static inline double skseq_exp(double x)
    {
        const double shifter = 6755399441055744.0;  /* 1.5 * 2^52 */
        double xc = x < -707.0 ? -707.0 : x;
        xc = xc > 709.79 ? 709.79 : xc;
        /* kd's low mantissa bits hold k = round(x / ln 2) */
        double kd = xc * 1.4426950408889634 + shifter;
        double k = kd - shifter;
        double r = xc - k * 0.6931471803691238;  /* ln 2, upper bits: k * it is exact */
        r = r - k * 1.9082149292705877e-10;      /* ln 2, the rest */
        double p = 1.0 / 6227020800.0;
        p = p * r + 1.0 / 479001600.0;
        p = p * r + 1.0 / 39916800.0;
        p = p * r + 1.0 / 3628800.0;
        p = p * r + 1.0 / 362880.0;
        p = p * r + 1.0 / 40320.0;
        p = p * r + 1.0 / 5040.0;
        p = p * r + 1.0 / 720.0;
        p = p * r + 1.0 / 120.0;
        p = p * r + 1.0 / 24.0;
        p = p * r + 1.0 / 6.0;
        p = p * r + 0.5;
        p = p * r + 1.0;
        p = p * r + 1.0;
        /* 2^(k - 1) from its exponent bits, then * 2: k = 1024 near the top of the
           range would not fit the exponent field; the product overflows to inf. */
        uint64_t bits;
        memcpy(&bits, &kd, sizeof bits);
        bits = (bits + 1022) << 52;
        double scale;
        memcpy(&scale, &bits, sizeof scale);
        double y = (p * scale) * 2.0;
        return x < -707.0 ? 0.0 : y;
    }

    /* The two small matrix products of the pass, with their partial sums held in
       registers while the inner dimension runs (GCC/Clang vector extensions;
       plain loops elsewhere). W is the number of doubles in a vector register. */
    #if defined(__GNUC__) || defined(__clang__)
    #if defined(__AVX512F__)
    #define SKSEQ_W 8
    #else
    #define SKSEQ_W 4
    #endif
    typedef double skseq_vd __attribute__((vector_size(8 * SKSEQ_W), aligned(8)));
    #define SKSEQ_LOAD(p) (*(const skseq_vd *)(p))
    #define SKSEQ_STORE(p, v) (*(skseq_vd *)(p) = (v))
    #define SKSEQ_SPLAT(x) ((skseq_vd){0} + (x))
    /* four doubles, for the column tails */
    typedef double skseq_v4 __attribute__((vector_size(32), aligned(8)));
    #define SKSEQ_LOAD4(p) (*(const skseq_v4 *)(p))
    #define SKSEQ_STORE4(p, v) (*(skseq_v4 *)(p) = (v))
    #define SKSEQ_SPLAT4(x) ((skseq_v4){0} + (x))
    #endif

    /* Z (nb, m) = U (nb, d) @ C (d, m) + bias (m,), all row-major. */
    static void skseq_matmul(const double *U, Py_ssize_t nb, Py_ssize_t d,
                             const double *C, Py_ssize_t m, const double *bias,
                             double *Z)
    {
        Py_ssize_t b = 0, i0, k, i;
    #ifdef SKSEQ_W
        const Py_ssize_t w = SKSEQ_W;
        /* two steps x four vectors of columns: 8 partial sums, 6 loads per 8 FMA */
        for (; b + 2 <= nb; b += 2) {
            const double *u0 = U + b * d, *u1 = u0 + d;
            double *z0 = Z + b * m, *z1 = z0 + m;
            for (i0 = 0; i0 + 4 * w <= m; i0 += 4 * w) {
                skseq_vd a0 = SKSEQ_LOAD(bias + i0), a1 = SKSEQ_LOAD(bias + i0 + w);
                skseq_vd a2 = SKSEQ_LOAD(bias + i0 + 2 * w);
                skseq_vd a3 = SKSEQ_LOAD(bias + i0 + 3 * w);
                skseq_vd c0 = a0, c1 = a1, c2 = a2, c3 = a3;
                for (k = 0; k < d; k++) {
                    const double *r = C + k * m + i0;
                    skseq_vd x0 = SKSEQ_SPLAT(u0[k]), x1 = SKSEQ_SPLAT(u1[k]);
                    skseq_vd r0 = SKSEQ_LOAD(r), r1 = SKSEQ_LOAD(r + w);
                    skseq_vd r2 = SKSEQ_LOAD(r + 2 * w), r3 = SKSEQ_LOAD(r + 3 * w);
                    a0 += x0 * r0; a1 += x0 * r1; a2 += x0 * r2; a3 += x0 * r3;
                    c0 += x1 * r0; c1 += x1 * r1; c2 += x1 * r2; c3 += x1 * r3;
                }
                SKSEQ_STORE(z0 + i0, a0); SKSEQ_STORE(z0 + i0 + w, a1);
                SKSEQ_STORE(z0 + i0 + 2 * w, a2); SKSEQ_STORE(z0 + i0 + 3 * w, a3);
                SKSEQ_STORE(z1 + i0, c0); SKSEQ_STORE(z1 + i0 + w, c1);
                SKSEQ_STORE(z1 + i0 + 2 * w, c2); SKSEQ_STORE(z1 + i0 + 3 * w, c3);
            }
            for (; i0 + 4 <= m; i0 += 4) {
                skseq_v4 a0 = SKSEQ_LOAD4(bias + i0), c0 = a0;
                for (k = 0; k < d; k++) {
                    skseq_v4 r0 = SKSEQ_LOAD4(C + k * m + i0);
                    a0 += SKSEQ_SPLAT4(u0[k]) * r0;
                    c0 += SKSEQ_SPLAT4(u1[k]) * r0;
                }
                SKSEQ_STORE4(z0 + i0, a0);
                SKSEQ_STORE4(z1 + i0, c0);
            }
            for (i = i0; i < m; i++) {
                double s0 = bias[i], s1 = bias[i];
                for (k = 0; k < d; k++) {
                    s0 += u0[k] * C[k * m + i];
                    s1 += u1[k] * C[k * m + i];
                }
                z0[i] = s0;
                z1[i] = s1;
            }
        }
    #endif
        for (; b < nb; b++) {
            for (i = 0; i < m; i++) {
                double s0 = bias[i];
                for (k = 0; k < d; k++)
                    s0 += U[b * d + k] * C[k * m + i];
                Z[b * m + i] = s0;
            }
        }
    }

    /* G (d, m) += U (nb, d)^T @ H (nb, m), all row-major. */
    static void skseq_matmul_tn_add(const double *U, Py_ssize_t nb, Py_ssize_t d,
                                    const double *H, Py_ssize_t m, double *G)
    {
        Py_ssize_t k0 = 0, i0, k, i, b;
    #ifdef SKSEQ_W
        const Py_ssize_t w = SKSEQ_W;
        /* four rows of G x two vectors of columns: 8 partial sums, 6 loads per 8 FMA */
        for (; k0 + 4 <= d; k0 += 4) {
            for (i0 = 0; i0 + 2 * w <= m; i0 += 2 * w) {
                skseq_vd a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
                skseq_vd c0 = {0}, c1 = {0}, c2 = {0}, c3 = {0};
                for (b = 0; b < nb; b++) {
                    const double *u = U + b * d + k0;
                    skseq_vd h0 = SKSEQ_LOAD(H + b * m + i0);
                    skseq_vd h1 = SKSEQ_LOAD(H + b * m + i0 + w);
                    skseq_vd x0 = SKSEQ_SPLAT(u[0]), x1 = SKSEQ_SPLAT(u[1]);
                    skseq_vd x2 = SKSEQ_SPLAT(u[2]), x3 = SKSEQ_SPLAT(u[3]);
                    a0 += x0 * h0; c0 += x0 * h1;
                    a1 += x1 * h0; c1 += x1 * h1;
                    a2 += x2 * h0; c2 += x2 * h1;
                    a3 += x3 * h0; c3 += x3 * h1;
                }
                double *g = G + k0 * m + i0;
                SKSEQ_STORE(g, SKSEQ_LOAD(g) + a0);
                SKSEQ_STORE(g + w, SKSEQ_LOAD(g + w) + c0);
                SKSEQ_STORE(g + m, SKSEQ_LOAD(g + m) + a1);
                SKSEQ_STORE(g + m + w, SKSEQ_LOAD(g + m + w) + c1);
                SKSEQ_STORE(g + 2 * m, SKSEQ_LOAD(g + 2 * m) + a2);
                SKSEQ_STORE(g + 2 * m + w, SKSEQ_LOAD(g + 2 * m + w) + c2);
                SKSEQ_STORE(g + 3 * m, SKSEQ_LOAD(g + 3 * m) + a3);
                SKSEQ_STORE(g + 3 * m + w, SKSEQ_LOAD(g + 3 * m + w) + c3);
            }
            for (; i0 + 4 <= m; i0 += 4) {
                skseq_v4 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
                for (b = 0; b < nb; b++) {
                    const double *u = U + b * d + k0;
                    skseq_v4 h0 = SKSEQ_LOAD4(H + b * m + i0);
                    a0 += SKSEQ_SPLAT4(u[0]) * h0;
                    a1 += SKSEQ_SPLAT4(u[1]) * h0;
                    a2 += SKSEQ_SPLAT4(u[2]) * h0;
                    a3 += SKSEQ_SPLAT4(u[3]) * h0;
                }
                double *g = G + k0 * m + i0;
                SKSEQ_STORE4(g, SKSEQ_LOAD4(g) + a0);
                SKSEQ_STORE4(g + m, SKSEQ_LOAD4(g + m) + a1);
                SKSEQ_STORE4(g + 2 * m, SKSEQ_LOAD4(g + 2 * m) + a2);
                SKSEQ_STORE4(g + 3 * m, SKSEQ_LOAD4(g + 3 * m) + a3);
            }
            for (i = i0; i < m; i++) {
                double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
                for (b = 0; b < nb; b++) {
                    double h = H[b * m + i];
                    const double *u = U + b * d + k0;
                    s0 += u[0] * h; s1 += u[1] * h; s2 += u[2] * h; s3 += u[3] * h;
                }
                G[k0 * m + i] += s0;
                G[(k0 + 1) * m + i] += s1;
                G[(k0 + 2) * m + i] += s2;
                G[(k0 + 3) * m + i] += s3;
            }
        }
        /* the last rows of G (d not a multiple of 4), two vectors at a time */
        for (; k0 < d; k0++) {
            for (i0 = 0; i0 + 2 * w <= m; i0 += 2 * w) {
                skseq_vd a0 = {0}, c0 = {0};
                for (b = 0; b < nb; b++) {
                    skseq_vd x0 = SKSEQ_SPLAT(U[b * d + k0]);
                    a0 += x0 * SKSEQ_LOAD(H + b * m + i0);
                    c0 += x0 * SKSEQ_LOAD(H + b * m + i0 + w);
                }
                double *g = G + k0 * m + i0;
                SKSEQ_STORE(g, SKSEQ_LOAD(g) + a0);
                SKSEQ_STORE(g + w, SKSEQ_LOAD(g + w) + c0);
            }
            for (; i0 + 4 <= m; i0 += 4) {
                skseq_v4 a0 = {0};
                for (b = 0; b < nb; b++)
                    a0 += SKSEQ_SPLAT4(U[b * d + k0]) * SKSEQ_LOAD4(H + b * m + i0);
                SKSEQ_STORE4(G + k0 * m + i0, SKSEQ_LOAD4(G + k0 * m + i0) + a0);
            }
            for (i = i0; i < m; i++) {
                double s0 = 0.0;
                for (b = 0; b < nb; b++)
                    s0 += U[b * d + k0] * H[b * m + i];
                G[k0 * m + i] += s0;
            }
        }
    #endif
        for (k = k0; k < d; k++) {
            for (i = 0; i < m; i++) {
                double s0 = 0.0;
                for (b = 0; b < nb; b++)
                    s0 += U[b * d + k] * H[b * m + i];
                G[k * m + i] += s0;
            }
        }
    }
    """
    double skseq_exp(double x) noexcept nogil
    void skseq_matmul(const double* U, Py_ssize_t nb, Py_ssize_t d, const double* C,
                      Py_ssize_t m, const double* bias, double* Z) noexcept nogil
    void skseq_matmul_tn_add(const double* U, Py_ssize_t nb, Py_ssize_t d,
                             const double* H, Py_ssize_t m, double* G) noexcept nogil


cdef enum:
    # Sequences whose steps run interleaved (see _short_sequences).
    LANES = 4

cdef int FAMILY_INPUT = 0
cdef int FAMILY_ADDITIVE = 1

# Transition entries held per thread (a block of steps, 1 MiB): fits the L2
# cache, and sequences up to 131072 / n^2 steps are computed once, not twice
# (measured against 256 KiB: 1.4x faster on sequences of 1,000 steps at 8 states,
# the same on shorter ones).
cdef Py_ssize_t _BLOCK_ENTRIES = 1 << 17
# Logits within +-this need no shift by their row maximum (see above).
cdef double _EXP_SAFE = 690.0
# |logit| bound at which an overflowing product saturates (skseq._families.params).
cdef double _LOGIT_LIMIT = 1e300
# Additive family: a row sum of the factored exponentials below this falls back to
# the direct, shifted softmax of that row (the factors may have underflowed).
cdef double _FACTORED_MIN = 1e-100


cdef struct Net:
    # One restart's state networks and the shared data, as raw pointers.
    int family
    Py_ssize_t n, d, nn             # states, input features, n * n
    Py_ssize_t width                # logits of one input: n * n (input), n (additive)
    const double* coef              # (d, width)
    const double* intercept         # (n, n)
    const double* U                 # (T, d)
    const unsigned char* mask       # (n, n)
    const double* maskd             # (n, n): 1.0 allowed, 0.0 forbidden
    double u_limit                  # |u| beyond this may overflow u @ coef
    bint dense                      # every transition allowed
    const double* zeros             # (width,) zeros: no bias
    double* expb                    # additive: (n, n) masked exp(B - row max of B)


cdef inline double _saturated(double x) noexcept nogil:
    """A product as skseq._families.params.linear_map leaves it: +-1e300 where it
    overflowed to +-inf, 0 where NaN (inf - inf)."""
    if x != x:
        return 0.0
    if x == INFINITY:
        return _LOGIT_LIMIT
    if x == -INFINITY:
        return -_LOGIT_LIMIT
    return x


cdef bint _linear_rows(
    const Net* net,
    Py_ssize_t t0,
    Py_ssize_t nb,
    const double* bias,             # IN (width,)
    double* Z,                      # OUT (nb, width): u_t @ coef + bias
) noexcept nogil:
    """The logits' linear part; in a block whose inputs may overflow it (near the
    float64 limit), u_t @ coef saturates (as in skseq._families.params.linear_map) before
    the bias is added, and True is returned."""
    cdef Py_ssize_t i, b, width = net.width
    cdef const double* u = net.U + t0 * net.d
    cdef double wide = 0.0
    for i in range(nb * net.d):
        wide += 0.0 if fabs(u[i]) <= net.u_limit else 1.0
    if wide == 0.0:
        skseq_matmul(u, nb, net.d, net.coef, width, bias, Z)
        return False
    skseq_matmul(u, nb, net.d, net.coef, width, net.zeros, Z)
    for b in range(nb):
        for i in range(width):
            Z[b * width + i] = _saturated(Z[b * width + i]) + bias[i]
    return True


cdef void _softmax_row_shifted(
    Py_ssize_t n, double* r, const unsigned char* ok
) noexcept nogil:
    """r <- exp(r - max over allowed entries), 0 where forbidden (rare path)."""
    cdef Py_ssize_t i
    cdef double top = -INFINITY
    for i in range(n):
        if ok[i] and r[i] > top:
            top = r[i]
    for i in range(n):
        r[i] = skseq_exp(r[i] - top) if ok[i] else 0.0


cdef void _normalize_rows(Py_ssize_t rows, Py_ssize_t n, double* E, double* inv) noexcept nogil:
    """Each row of E (rows, n) divided by its sum (one division per row, taken in
    a separate, vectorised pass)."""
    cdef Py_ssize_t q, i
    cdef double s
    cdef double* r
    for q in range(rows):
        r = E + q * n
        s = 0.0
        for i in range(n):
            s += r[i]
        inv[q] = s
    for q in range(rows):
        inv[q] = 1.0 / inv[q]
    for q in range(rows):
        r = E + q * n
        s = inv[q]
        for i in range(n):
            r[i] *= s


cdef void _input_probs(
    const Net* net, Py_ssize_t t0, Py_ssize_t nb,
    double* A,                      # OUT (nb, n, n) transition matrices
    double* rows,                   # scratch (nb * n,)
) noexcept nogil:
    cdef Py_ssize_t n = net.n, nn = net.nn
    cdef Py_ssize_t b, i, q
    cdef double* z
    cdef double x, wide = 0.0
    _linear_rows(net, t0, nb, net.intercept, A)
    # exp without shift and the count of logits beyond +-690, in one vectorised
    # pass; a block with such logits (rare) is then redone shifted.
    for q in range(nb * nn):
        x = A[q]
        wide += 0.0 if fabs(x) <= _EXP_SAFE else 1.0
        A[q] = skseq_exp(x)
    if wide != 0.0:
        _linear_rows(net, t0, nb, net.intercept, A)
        for q in range(nb * n):
            _softmax_row_shifted(n, A + q * n, net.mask + (q % n) * n)
    elif not net.dense:
        for b in range(nb):
            z = A + b * nn
            for i in range(nn):
                z[i] *= net.maskd[i]
    _normalize_rows(nb * n, n, A, rows)


cdef void _additive_probs(
    const Net* net, Py_ssize_t t0, Py_ssize_t nb,
    double* A,                      # OUT (nb, n, n) transition matrices
    double* rows,                   # scratch (nb * n,)
    double* ea,                     # scratch (nb * n,): the input part of the logits
) noexcept nogil:
    """exp(a_i + B[j, i] - m_j) = exp(a_i - max a) exp(B[j, i] - max_i B[j, i]) up to
    a row constant: n exponentials per step instead of n^2. (Where the inputs
    saturated the logits, rows are formed directly from a_t + B[j], as the unfused
    path does: B is then lost in the rounding of the sum.)"""
    cdef Py_ssize_t n = net.n, nn = net.nn
    cdef Py_ssize_t b, j, i
    cdef double* a
    cdef double* z
    cdef const double* eb
    cdef double top, s
    if _linear_rows(net, t0, nb, net.zeros, ea):
        for b in range(nb):
            for j in range(n):
                _additive_row_direct(net, t0 + b, j, A + (b * n + j) * n)
        _normalize_rows(nb * n, n, A, rows)
        return
    for b in range(nb):
        a = ea + b * n
        top = a[0]
        for i in range(1, n):
            top = a[i] if a[i] > top else top
        for i in range(n):
            a[i] -= top
    for i in range(nb * n):
        ea[i] = skseq_exp(ea[i])
    for b in range(nb):
        a = ea + b * n
        z = A + b * nn
        for j in range(n):
            eb = net.expb + j * n
            s = 0.0
            for i in range(n):
                z[j * n + i] = a[i] * eb[i]
                s += z[j * n + i]
            if not s >= _FACTORED_MIN:
                _additive_row_direct(net, t0 + b, j, z + j * n)
    _normalize_rows(nb * n, n, A, rows)


cdef void _additive_row_direct(
    const Net* net, Py_ssize_t t, Py_ssize_t j, double* r
) noexcept nogil:
    """Row j of step t from its logits a_t + B[j] (the factors underflowed)."""
    cdef Py_ssize_t n = net.n, i
    _linear_rows(net, t, 1, net.intercept + j * n, r)
    _softmax_row_shifted(n, r, net.mask + j * n)


cdef void _additive_setup(Net* net) noexcept nogil:
    """expb = exp(B - row max over the allowed entries), 0 where forbidden."""
    cdef Py_ssize_t n = net.n, j, i
    for j in range(n):
        for i in range(n):
            net.expb[j * n + i] = net.intercept[j * n + i]
        _softmax_row_shifted(n, net.expb + j * n, net.mask + j * n)


cdef void _block_probs(
    const Net* net, Py_ssize_t t0, Py_ssize_t nb, double* A, double* scratch
) noexcept nogil:
    if net.family == FAMILY_INPUT:
        _input_probs(net, t0, nb, A, scratch)
    else:
        _additive_probs(net, t0, nb, A, scratch, scratch + nb * net.n)


cdef inline void _vecmat(
    const double* x, const double* A, Py_ssize_t n, double* out
) noexcept nogil:
    """out = x @ A for a row-major (n, n) A: rows added in memory order."""
    cdef Py_ssize_t i, j
    cdef const double* r
    cdef double xj
    for i in range(n):
        out[i] = x[0] * A[i]
    for j in range(1, n):
        xj = x[j]
        r = A + j * n
        for i in range(n):
            out[i] += xj * r[i]


cdef struct Chain:
    # The forward recursion's running state within one sequence.
    double loglik
    double prod                     # product of scales not yet taken the log of
    const double* prev              # alpha_{t-1} (startprob before the first step)
    bint possible                   # False once the targets proved impossible


cdef inline void _chain_start(Chain* chain, const double* startprob) noexcept nogil:
    chain.loglik = 0.0
    chain.prod = 1.0
    chain.prev = startprob
    chain.possible = True


cdef inline void _forward_step(
    Py_ssize_t n,
    const double* A,                # IN (n, n) this step's transition matrix
    const double* le,               # IN (n,) log_emit of this step
    double* a,                      # OUT (n,) alpha_t
    double* e,                      # IN exp(le); OUT exp(le) / c_t (0: unreachable)
    double* pred,                   # scratch (n,)
    Chain* chain,
) noexcept nogil:
    """One scaled forward step (eq. 24); marks the chain impossible if no reachable
    state can emit."""
    _vecmat(chain.prev, A, n, pred)
    if not _scaled_step(n, pred, le, a, e, &chain.loglik, &chain.prod):
        chain.possible = False
        return
    chain.prev = a


cdef inline void _backward_step(
    Py_ssize_t n,
    double* A,                      # IN (n, n) A_t; OUT the logit gradient G_t
    const double* e,                # IN (n,) emit / c_t of the forward pass
    const double* pa,               # IN alpha_{t-1} (startprob at the first step)
    double* g,                      # IN alpha_t; OUT weight * gamma_t
    double weight,
    double* beta,                   # IN beta_t; OUT beta_{t-1}
    double* v,                      # scratch (n,)
    double* newbeta,                # scratch (n,)
) noexcept nogil:
    """One backward step (eqs. 27-29): G_t[j, i] = weight (xi_t[j, i] -
    gamma_{t-1, j} A_t[j, i]) written over A_t."""
    cdef Py_ssize_t i, j
    cdef double* row
    cdef double s, w
    for i in range(n):
        v[i] = e[i] * beta[i]
    for j in range(n):
        row = A + j * n
        s = _dot(row, v, n)
        w = weight * pa[j]
        for i in range(n):
            row[i] = w * row[i] * (v[i] - s)
        newbeta[j] = s
    for i in range(n):
        g[i] = weight * g[i] * beta[i]
        beta[i] = newbeta[i]


cdef void _accumulate_block(
    const Net* net, Py_ssize_t t0, Py_ssize_t nb,
    double* G,                      # IN (nb, n, n) logit gradients; additive: OUT
                                    #    their column sums in the first nb * n
    double* grad_coef,              # IN/OUT (d, width)
    double* grad_intercept,         # IN/OUT (n, n)
) noexcept nogil:
    """grad_intercept += sum_t G_t; grad_coef += U_block^T G (additive: of the
    column sums sum_j G_t[j, i])."""
    cdef Py_ssize_t n = net.n, nn = net.nn
    cdef Py_ssize_t b, i, j
    cdef double* g
    cdef double* h
    for b in range(nb):
        g = G + b * nn
        for i in range(nn):
            grad_intercept[i] += g[i]
    if net.family == FAMILY_ADDITIVE:
        # In place, step by step: row b of the sums ends before G_b is read.
        for b in range(nb):
            g = G + b * nn
            h = G + b * n
            for i in range(n):
                h[i] = g[i]
            for j in range(1, n):
                for i in range(n):
                    h[i] += g[j * n + i]
    skseq_matmul_tn_add(net.U + t0 * net.d, nb, net.d, G, net.width, grad_coef)


cdef struct Scratch:
    # Per-thread buffers.
    Py_ssize_t block                # steps per block of transition matrices
    double* A                       # (block, n, n)
    double* emit                    # (max(block, longest sequence), n)
    double* rows                    # (2 * block * n,)
    double* lanes                   # (LANES, 4, n): pred, beta, v, newbeta


cdef struct Sequences:
    # One restart's view of the data and its outputs.
    const double* startprob         # (n,)
    const double* log_emit          # (T, n)
    const intp* offsets             # (S + 1,)
    const double* weight            # (S,)
    double* loglik                  # (S,)
    double* gamma                   # (T, n)
    double* start_post              # (S, n)
    double* grad_coef               # (d, width)
    double* grad_intercept          # (n, n)


cdef void _impossible(const Net* net, const Sequences* q, Py_ssize_t s) noexcept nogil:
    """Sequence s cannot produce its targets: loglik -inf, zero posteriors."""
    cdef Py_ssize_t i, n = net.n
    q.loglik[s] = -INFINITY
    for i in range(q.offsets[s] * n, q.offsets[s + 1] * n):
        q.gamma[i] = 0.0
    for i in range(n):
        q.start_post[s * n + i] = 0.0


cdef void _long_sequence(
    const Net* net, const Sequences* q, Py_ssize_t s, Scratch* w
) noexcept nogil:
    """A sequence longer than a block: its blocks of matrices are formed for the
    forward pass, and again (but the last) for the backward pass."""
    cdef Py_ssize_t n = net.n, nn = net.nn, block = w.block
    cdef Py_ssize_t t0 = q.offsets[s], t1 = q.offsets[s + 1]
    cdef Py_ssize_t i, t, tb, nb, last = t0
    cdef double* pred = w.lanes
    cdef double* beta = pred + n
    cdef double* v = beta + n
    cdef double* newbeta = v + n
    cdef Chain chain
    _chain_start(&chain, q.startprob)
    tb = t0
    while tb < t1 and chain.possible:
        nb = min(block, t1 - tb)
        _block_probs(net, tb, nb, w.A, w.rows)
        for i in range((tb - t0) * n, (tb - t0 + nb) * n):
            w.emit[i] = skseq_exp(q.log_emit[t0 * n + i])
        for t in range(tb, tb + nb):
            _forward_step(n, w.A + (t - tb) * nn, q.log_emit + t * n,
                          q.gamma + t * n, w.emit + (t - t0) * n, pred, &chain)
            if not chain.possible:
                break
        last = tb
        tb += nb
    if not chain.possible:
        _impossible(net, q, s)
        return
    q.loglik[s] = chain.loglik + log(chain.prod)
    for i in range(n):
        beta[i] = 1.0
    tb = last
    while tb >= t0 and t1 > t0:
        nb = min(block, t1 - tb)
        if tb != last:
            _block_probs(net, tb, nb, w.A, w.rows)
        for t in range(tb + nb - 1, tb - 1, -1):
            _backward_step(n, w.A + (t - tb) * nn, w.emit + (t - t0) * n,
                           q.gamma + (t - 1) * n if t > t0 else q.startprob,
                           q.gamma + t * n, q.weight[s], beta, v, newbeta)
        _accumulate_block(net, tb, nb, w.A, q.grad_coef, q.grad_intercept)
        tb -= block
    for i in range(n):
        q.start_post[s * n + i] = q.weight[s] * q.startprob[i] * beta[i]


cdef inline void _lanes(
    Py_ssize_t n, const Net* net, const Sequences* q, Py_ssize_t g0, Py_ssize_t m,
    Py_ssize_t tb, Scratch* w
) noexcept nogil:
    """Sequences g0..g0+m-1 (m <= LANES) of a block: forward, then backward steps,
    the sequences' steps interleaved. Inlined with n a constant for the common
    sizes (see _short_sequences), so the short loops over states unroll."""
    cdef Py_ssize_t nn = n * n
    cdef Py_ssize_t i, p, t, step, longest = 0
    cdef Py_ssize_t t0[LANES]
    cdef Py_ssize_t length[LANES]
    cdef Chain chain[LANES]
    cdef double* lane
    cdef double weight
    for p in range(m):
        t0[p] = q.offsets[g0 + p]
        length[p] = q.offsets[g0 + p + 1] - t0[p]
        longest = max(longest, length[p])
        _chain_start(&chain[p], q.startprob)
    for t in range(longest):
        for p in range(m):
            if t < length[p] and chain[p].possible:
                step = t0[p] + t
                _forward_step(n, w.A + (step - tb) * nn, q.log_emit + step * n,
                              q.gamma + step * n, w.emit + (step - tb) * n,
                              w.lanes + p * 4 * n, &chain[p])
    for p in range(m):
        if chain[p].possible:
            q.loglik[g0 + p] = chain[p].loglik + log(chain[p].prod)
            for i in range(n):
                w.lanes[(p * 4 + 1) * n + i] = 1.0
        else:
            _impossible(net, q, g0 + p)
            # no gradient from it: its matrices' rows become zero G rows
            for i in range((t0[p] - tb) * nn, (t0[p] + length[p] - tb) * nn):
                w.A[i] = 0.0
    for t in range(longest - 1, -1, -1):
        for p in range(m):
            if t < length[p] and chain[p].possible:
                step = t0[p] + t
                lane = w.lanes + p * 4 * n
                _backward_step(n, w.A + (step - tb) * nn, w.emit + (step - tb) * n,
                               q.gamma + (step - 1) * n if t > 0 else q.startprob,
                               q.gamma + step * n, q.weight[g0 + p],
                               lane + n, lane + 2 * n, lane + 3 * n)
    for p in range(m):
        if chain[p].possible:
            weight = q.weight[g0 + p]
            for i in range(n):
                q.start_post[(g0 + p) * n + i] = (
                    weight * q.startprob[i] * w.lanes[(p * 4 + 1) * n + i])


cdef void _short_sequences(
    const Net* net, const Sequences* q, Py_ssize_t s0, Py_ssize_t s1, Scratch* w
) noexcept nogil:
    """Whole sequences s0..s1-1 that fit one block together: their matrices are
    formed once, in one pass, then LANES sequences at a time run their forward
    and backward steps interleaved (independent chains, which the CPU overlaps:
    alone, each step would wait on the previous one)."""
    cdef Py_ssize_t n = net.n
    cdef Py_ssize_t tb = q.offsets[s0], te = q.offsets[s1]
    cdef Py_ssize_t i, g0, m
    _block_probs(net, tb, te - tb, w.A, w.rows)
    for i in range(0, (te - tb) * n):
        w.emit[i] = skseq_exp(q.log_emit[tb * n + i])
    g0 = s0
    while g0 < s1:
        m = min(LANES, s1 - g0)
        if n == 2:
            _lanes(2, net, q, g0, m, tb, w)
        elif n == 3:
            _lanes(3, net, q, g0, m, tb, w)
        elif n == 4:
            _lanes(4, net, q, g0, m, tb, w)
        elif n == 8:
            _lanes(8, net, q, g0, m, tb, w)
        else:
            _lanes(n, net, q, g0, m, tb, w)
        g0 += LANES
    _accumulate_block(net, tb, te - tb, w.A, q.grad_coef, q.grad_intercept)


cdef void _item(
    const Net* net, const Sequences* q, Py_ssize_t s0, Py_ssize_t s1, Scratch* w
) noexcept nogil:
    """Sequences s0..s1-1: runs of whole sequences filling a block, or one long
    sequence at a time."""
    cdef Py_ssize_t s = s0, e
    while s < s1:
        if q.offsets[s + 1] - q.offsets[s] > w.block:
            _long_sequence(net, q, s, w)
            s += 1
            continue
        e = s + 1
        while e < s1 and q.offsets[e + 1] - q.offsets[s] <= w.block:
            e += 1
        _short_sequences(net, q, s, e, w)
        s = e


def block_steps(Py_ssize_t n_states):
    """Steps per block of transition matrices: longer sequences take the path that
    forms their matrices twice (once for each pass)."""
    return max(1, _BLOCK_ENTRIES // (n_states * n_states))


def linear_transition_fill(
    int family,                              # IN 0 input, 1 additive
    const double[:, ::1] startprob,          # IN (R, n)
    const double[:, ::1] coef,               # IN (R, d * n * n) input, (R, d * n) additive
    const double[:, ::1] intercept,          # IN (R, n * n)
    const unsigned char[:, ::1] mask,        # IN (n, n) allowed transitions j -> i
    const double[:, ::1] U,                  # IN (T, d)
    const double[:, :, ::1] log_emit,        # IN (R, T, n)
    const intp[::1] offsets,                 # IN (S + 1,)
    const double[::1] weight,                # IN (S,)
    const double[::1] u_limit,               # IN (R,): inputs beyond +-this may
                                             #    overflow the logits
    const intp[:, ::1] items,                # IN (n_items, 4): restart, first
                                             #    sequence, end sequence, chunk
    Py_ssize_t item_start,                   # IN first item of this call
    Py_ssize_t item_stop,                    # IN one past the last
    double[:, ::1] loglik,                   # OUT (R, S)
    double[:, :, ::1] gamma,                 # OUT (R, T, n) weighted posteriors
    double[:, :, ::1] start_post,            # OUT (R, S, n) weighted P(x_0 | y, u)
    double[:, :, ::1] grad_coef,             # OUT (R, n_chunks, d * width) partials
    double[:, :, ::1] grad_intercept,        # OUT (R, n_chunks, n * n) partials
):
    """Fill log-likelihoods, posteriors and the per-chunk partial gradients of
    sum_s weight[s] log P(y^(s) | u^(s)) for the items item_start..item_stop-1.

    An item is one restart's parameters on one chunk of consecutive sequences; its
    partial gradient is written (not added) at [restart, chunk], so the result does
    not depend on how items are spread over threads. A sequence whose targets are
    impossible gets loglik -inf and zero posteriors and gradient. Releases the GIL.
    """
    cdef Py_ssize_t n = mask.shape[0]
    cdef Py_ssize_t d = U.shape[1]
    cdef Py_ssize_t nn = n * n
    cdef Py_ssize_t width = nn if family == FAMILY_INPUT else n
    cdef Py_ssize_t it, r, s, i, longest = 0
    cdef Net net
    cdef Scratch w
    cdef Sequences q
    cdef double* maskd = NULL
    w.block = block_steps(n)
    net.family = family
    net.n = n
    net.d = d
    net.nn = nn
    net.width = width
    net.U = &U[0, 0] if U.shape[0] > 0 and d > 0 else NULL
    net.mask = &mask[0, 0]
    for it in range(item_start, item_stop):
        for s in range(items[it, 1], items[it, 2]):
            longest = max(longest, offsets[s + 1] - offsets[s])
    q.offsets = &offsets[0]
    q.weight = &weight[0] if weight.shape[0] > 0 else NULL
    with nogil:
        w.A = <double*> malloc(w.block * nn * sizeof(double))
        w.emit = <double*> malloc(max(w.block, longest) * n * sizeof(double))
        w.rows = <double*> malloc(2 * w.block * n * sizeof(double))
        w.lanes = <double*> malloc(LANES * 4 * n * sizeof(double))
        maskd = <double*> malloc(3 * nn * sizeof(double))
        if (w.A == NULL or w.emit == NULL or w.rows == NULL or w.lanes == NULL
                or maskd == NULL):
            free(w.A)
            free(w.emit)
            free(w.rows)
            free(w.lanes)
            free(maskd)
            with gil:
                raise MemoryError()
        net.dense = True
        for i in range(nn):
            maskd[i] = 1.0 if net.mask[i] else 0.0
            maskd[2 * nn + i] = 0.0
            net.dense = net.dense and net.mask[i]
        net.maskd = maskd
        net.expb = maskd + nn
        net.zeros = maskd + 2 * nn
        for it in range(item_start, item_stop):
            r = items[it, 0]
            net.coef = &coef[r, 0]
            net.intercept = &intercept[r, 0]
            net.u_limit = u_limit[r]
            if family == FAMILY_ADDITIVE:
                _additive_setup(&net)
            q.startprob = &startprob[r, 0]
            q.log_emit = &log_emit[r, 0, 0]
            q.loglik = &loglik[r, 0] if loglik.shape[1] > 0 else NULL
            q.gamma = &gamma[r, 0, 0]
            q.start_post = &start_post[r, 0, 0] if start_post.shape[1] > 0 else NULL
            q.grad_coef = &grad_coef[r, items[it, 3], 0]
            q.grad_intercept = &grad_intercept[r, items[it, 3], 0]
            memset(q.grad_coef, 0, d * width * sizeof(double))
            memset(q.grad_intercept, 0, nn * sizeof(double))
            _item(&net, &q, items[it, 1], items[it, 2], &w)
        free(w.A)
        free(w.emit)
        free(w.rows)
        free(w.lanes)
        free(maskd)


# -- The GEM M-step's log-normaliser ----------------------------------------------------
# The M-step maximises Q(theta) = sum_t,j,i xi_t[j, i] z_t[j, i]
#                                 - sum_t,j rows_t[j] log sum_i exp z_t[j, i]
# (Bengio & Frasconi 1996, eq. 36; rows_t[j] = sum_i xi_t[j, i] = gamma_{t-1, j}).
# For logits linear in theta the first term and its gradient are fixed during an M-step; the
# second is what each of its evaluations needs: its value and the gradient
# sum_t rows_t[j] softmax(z_t[j]) pushed into the parameters. Here it is formed a
# block of steps at a time, the logits and exponentials never leaving the cache.

cdef double _normalizer_block(
    const Net* net, Py_ssize_t t0, Py_ssize_t nb,
    const double* rows,             # IN (nb, n) weights of the rows of each step
    double* Z,                      # scratch (nb, n, n): logits, then the gradient
                                    #    rows_t[j] softmax(z_t[j]) (OUT)
    double* ea,                     # scratch (nb * n,)
) noexcept nogil:
    """sum_b,j rows[b, j] logsumexp(z_b[j]) over the block; Z <- its gradient with
    respect to the logits."""
    cdef Py_ssize_t n = net.n, nn = net.nn
    cdef Py_ssize_t b, j, i, q
    cdef double* z
    cdef double x, top, s, value = 0.0, wide = 0.0
    if net.family == FAMILY_INPUT:
        _linear_rows(net, t0, nb, net.intercept, Z)
    else:
        # z_t[j, i] = a_t[i] + B[j, i], a_t = u_t @ V (saturated where needed)
        _linear_rows(net, t0, nb, net.zeros, ea)
        for b in range(nb):
            for j in range(n):
                for i in range(n):
                    Z[b * nn + j * n + i] = ea[b * n + i] + net.intercept[j * n + i]
    # Unshifted exp in one vectorised pass when every logit is within +-690
    # (the common case); else each row shifted by its maximum.
    for q in range(nb * nn):
        x = Z[q]
        wide += 0.0 if fabs(x) <= _EXP_SAFE else 1.0
        Z[q] = skseq_exp(x)
    if wide != 0.0:  # redo the logits, to shift them
        if net.family == FAMILY_INPUT:
            _linear_rows(net, t0, nb, net.intercept, Z)
        else:
            for b in range(nb):
                for j in range(n):
                    for i in range(n):
                        Z[b * nn + j * n + i] = (ea[b * n + i]
                                                 + net.intercept[j * n + i])
    if wide == 0.0:
        for q in range(nb * n):
            z = Z + q * n
            s = 0.0
            for i in range(n):
                s += z[i]
            ea[q] = s
        for q in range(nb * n):
            value += rows[q] * log(ea[q])
            ea[q] = rows[q] / ea[q]
    else:
        for q in range(nb * n):
            z = Z + q * n
            top = z[0]
            for i in range(1, n):
                top = z[i] if z[i] > top else top
            s = 0.0
            for i in range(n):
                z[i] = skseq_exp(z[i] - top)
                s += z[i]
            value += rows[q] * (top + log(s))
            ea[q] = rows[q] / s
    for q in range(nb * n):
        z = Z + q * n
        x = ea[q]
        for i in range(n):
            z[i] *= x
    return value


def linear_normalizer_fill(
    int family,                              # IN 0 input, 1 additive
    const double[::1] coef,                  # IN (d * n * n) input, (d * n) additive
    const double[::1] intercept,             # IN (n * n)
    const double[:, ::1] U,                  # IN (T, d)
    const double[:, ::1] rows,               # IN (T, n) row weights (gamma_{t-1})
    double u_limit,                          # IN inputs beyond +-this may overflow
                                             #    the logits
    double[::1] grad_coef,                   # OUT (d * width)
    double[::1] grad_intercept,              # OUT (n * n)
):
    """Return sum_t,j rows[t, j] log sum_i exp z_t[j, i] and fill its gradient with
    respect to the state networks' parameters (every transition allowed).
    Releases the GIL."""
    cdef Py_ssize_t n = rows.shape[1]
    cdef Py_ssize_t T = U.shape[0], d = U.shape[1]
    cdef Py_ssize_t nn = n * n
    cdef Py_ssize_t width = nn if family == FAMILY_INPUT else n
    cdef Py_ssize_t block = block_steps(n), t0, nb
    cdef double value = 0.0
    cdef Net net
    cdef double* Z = NULL
    cdef double* ea = NULL
    cdef double* zeros = NULL
    cdef double* gc = NULL
    net.family = family
    net.n = n
    net.d = d
    net.nn = nn
    net.width = width
    net.U = &U[0, 0] if T > 0 and d > 0 else NULL
    net.coef = &coef[0] if coef.shape[0] > 0 else NULL
    net.intercept = &intercept[0]
    net.u_limit = u_limit
    net.dense = True
    with nogil:
        Z = <double*> malloc(block * nn * sizeof(double))
        ea = <double*> malloc(block * n * sizeof(double))
        zeros = <double*> malloc(width * sizeof(double))
        if Z == NULL or ea == NULL or zeros == NULL:
            free(Z)
            free(ea)
            free(zeros)
            with gil:
                raise MemoryError()
        memset(zeros, 0, width * sizeof(double))
        net.zeros = zeros
        if d > 0:
            memset(&grad_coef[0], 0, d * width * sizeof(double))
            gc = &grad_coef[0]
        memset(&grad_intercept[0], 0, nn * sizeof(double))
        t0 = 0
        while t0 < T:
            nb = min(block, T - t0)
            value += _normalizer_block(&net, t0, nb, &rows[t0, 0], Z, ea)
            _accumulate_block(&net, t0, nb, Z, gc, &grad_intercept[0])
            t0 += nb
        free(Z)
        free(ea)
        free(zeros)
    return value
