# Row operations of the networks: softmax and the gradients of log-softmax terms.
#
# The logits of the state and output networks are (B, n, m) arrays: B steps, n
# rows (previous states, or states), m entries (next states, or classes). A row
# softmax takes three passes over a block held in cache: shift by the row maximum
# (here), exp (NumPy's vectorised exp, far faster than one libm call per entry),
# normalise (here). softmax.py beside it holds the thin wrappers that walk the blocks.
# The kernels only fill the arrays they are given and release the GIL.

from libc.math cimport INFINITY

cimport numpy as cnp

from ._loops cimport _dot

cnp.import_array()

ctypedef cnp.intp_t intp


cdef inline double _sum_and_scale(double* r, Py_ssize_t m, double c) noexcept nogil:
    """Return s = sum(r) and scale r by c / s in place: one division per row, then
    products (s is a sum of exps, never 0 for a row with an allowed entry)."""
    cdef Py_ssize_t i
    cdef double s = 0.0
    for i in range(m):
        s += r[i]
    c = c / s
    for i in range(m):
        r[i] *= c
    return s


def softmax_shift_rows(
    double[:, :, ::1] z,                     # IN logits (B, n, m); OUT z - row max
    const unsigned char[:, ::1] allowed,     # IN (n, m): row j of every z[b] may use
    const double[:, :, ::1] weight,          # IN (B, n, m) or (0, 0, 0): no weights
):
    """Subtract each row's maximum over its allowed entries; forbidden entries get
    -inf (probability 0). Returns sum(weight * shifted z) over allowed entries."""
    cdef Py_ssize_t B = z.shape[0], n = z.shape[1], m = z.shape[2]
    cdef bint weighted = weight.shape[0] != 0
    cdef Py_ssize_t b, j, i
    cdef double* r
    cdef const unsigned char* ok
    cdef const double* w
    cdef double top, total = 0.0
    cdef bint dense = True
    for j in range(n):
        for i in range(m):
            dense = dense and allowed[j, i]
    with nogil:
        for b in range(B):
            for j in range(n):
                r = &z[b, j, 0]
                ok = &allowed[j, 0]
                top = -INFINITY
                if dense:  # branch-free loops for the common all-allowed case
                    for i in range(m):
                        top = r[i] if r[i] > top else top
                    for i in range(m):
                        r[i] -= top
                else:
                    for i in range(m):
                        if ok[i] and r[i] > top:
                            top = r[i]
                    for i in range(m):
                        r[i] = r[i] - top if ok[i] else -INFINITY
                if weighted:
                    w = &weight[b, j, 0]
                    if dense:
                        total += _dot(w, r, m)
                    else:
                        for i in range(m):
                            if ok[i]:
                                total += w[i] * r[i]
    return total


def normalize_rows(
    double[:, :, ::1] e,                     # IN exp(z) (B, n, m); OUT see below
    const double[:, ::1] scale,              # IN (B, n) or (0, 0): every row 1
    double[:, ::1] norm,                     # OUT (B, n): row sums of exp(z)
):
    """e[b, j] <- scale[b, j] * e[b, j] / sum(e[b, j]): the row softmax (no scale),
    or each row's weight times its softmax."""
    cdef Py_ssize_t B = e.shape[0], n = e.shape[1], m = e.shape[2]
    cdef bint scaled = scale.shape[0] != 0
    cdef Py_ssize_t b, j
    with nogil:
        for b in range(B):
            for j in range(n):
                norm[b, j] = _sum_and_scale(&e[b, j, 0], m,
                                            scale[b, j] if scaled else 1.0)


def softmax_gradient_rows(
    double[:, :, ::1] e,                     # IN exp(shifted z) (B, n, m); OUT grad
    const double[:, :, ::1] weight,          # IN (B, n, m)
    double[:, ::1] norm,                     # OUT (B, n): row sums of exp(shifted z)
    double[:, ::1] rows,                     # OUT (B, n): row sums of weight
):
    """e becomes the gradient of sum(W * log softmax) with respect to the logits,
    W - rowsum(W) * softmax; the rest of that sum after ``softmax_shift_rows`` is
    -sum(rows * log(norm)), left to NumPy's vectorised log."""
    cdef Py_ssize_t B = e.shape[0], n = e.shape[1], m = e.shape[2]
    cdef Py_ssize_t b, j, i
    cdef double* r
    cdef const double* w
    cdef double s, rs
    with nogil:
        for b in range(B):
            for j in range(n):
                r = &e[b, j, 0]
                w = &weight[b, j, 0]
                s = 0.0
                for i in range(m):
                    s += r[i]
                norm[b, j] = s
                rs = 0.0
                for i in range(m):
                    rs += w[i]
                rows[b, j] = rs
                rs /= s  # one division per row: the gradient needs no exact rounding
                for i in range(m):
                    r[i] = w[i] - rs * r[i]


def categorical_shift_rows(
    double[:, :, ::1] z,                     # IN logits (B, n, k); OUT z - row max
    const intp[::1] y,                       # IN (B,) class index per step
    const double[:, ::1] weight,             # IN (B, n) weight of row (b, j), or (0, 0)
    double[:, ::1] picked,                   # OUT (B, n) shifted z[b, j, y_b], or (0, 0)
):
    """Subtract each row's maximum; return sum_b,j weight[b, j] * shifted z[b, j, y_b]
    and, if ``picked`` is given, store the shifted z[b, j, y_b].

    The first half of sum weight log softmax(z)[y] for categorical targets (the
    output networks' objective), without a one-hot (B, n, k) weight array."""
    cdef Py_ssize_t B = z.shape[0], n = z.shape[1], k = z.shape[2]
    cdef bint weighted = weight.shape[0] != 0
    cdef bint pick = picked.shape[0] != 0
    cdef Py_ssize_t b, j, i
    cdef double* r
    cdef double top, total = 0.0
    with nogil:
        for b in range(B):
            for j in range(n):
                r = &z[b, j, 0]
                top = r[0]
                for i in range(1, k):
                    top = r[i] if r[i] > top else top
                for i in range(k):
                    r[i] -= top
                if weighted:
                    total += weight[b, j] * r[y[b]]
                if pick:
                    picked[b, j] = r[y[b]]
    return total


def categorical_gradient_rows(
    double[:, :, ::1] e,                     # IN exp(shifted z) (B, n, k); OUT grad
    const intp[::1] y,                       # IN (B,)
    const double[:, ::1] weight,             # IN (B, n)
    double[:, ::1] norm,                     # OUT (B, n): row sums of exp(shifted z)
):
    """e becomes the gradient of sum weight log softmax(z)[y] with respect to z,
    weight[b, j] (onehot(y_b) - softmax(z[b, j])); the rest of the value after
    ``categorical_shift_rows`` is -sum(weight * log(norm)), left to NumPy."""
    cdef Py_ssize_t B = e.shape[0], n = e.shape[1], k = e.shape[2]
    cdef Py_ssize_t b, j
    with nogil:
        for b in range(B):
            for j in range(n):
                norm[b, j] = _sum_and_scale(&e[b, j, 0], k, -weight[b, j])
                e[b, j, y[b]] += weight[b, j]


def row_sums(
    const double[:, :, ::1] e,               # IN (B, n, k)
    double[:, ::1] out,                      # OUT (B, n)
):
    """out[b, j] = sum_i e[b, j, i] (short rows: no NumPy loop call per row)."""
    cdef Py_ssize_t B = e.shape[0], n = e.shape[1], k = e.shape[2]
    cdef Py_ssize_t b, j, i
    cdef const double* r
    cdef double s
    with nogil:
        for b in range(B):
            for j in range(n):
                r = &e[b, j, 0]
                s = 0.0
                for i in range(k):
                    s += r[i]
                out[b, j] = s


def add_bias(
    double[:, :, ::1] z,                     # IN (B, n, m); OUT z + bias[None]
    const double[:, ::1] bias,               # IN (n, m)
):
    """z[b] += bias for every b (NumPy's broadcasting pays a loop call per short
    row: ~5x slower for the logits of a few states)."""
    cdef Py_ssize_t B = z.shape[0], n = z.shape[1], m = z.shape[2]
    cdef Py_ssize_t b, i
    cdef Py_ssize_t nm = n * m
    cdef double* r
    cdef const double* c = &bias[0, 0]
    if B == 0 or nm == 0:
        return
    with nogil:
        for b in range(B):
            r = &z[b, 0, 0]
            for i in range(nm):
                r[i] += c[i]


def add_outer(
    double[:, :, ::1] z,                     # OUT (B, n, m): a[b, None, :] + bias
    const double[:, ::1] a,                  # IN (B, m)
    const double[:, ::1] bias,               # IN (n, m)
):
    """z[b, j, i] = a[b, i] + bias[j, i] (additive state networks' logits)."""
    cdef Py_ssize_t B = z.shape[0], n = z.shape[1], m = z.shape[2]
    cdef Py_ssize_t b, j, i
    cdef double* r
    cdef const double* ab
    cdef const double* c
    if B == 0 or n == 0 or m == 0:
        return
    with nogil:
        for b in range(B):
            ab = &a[b, 0]
            for j in range(n):
                r = &z[b, j, 0]
                c = &bias[j, 0]
                for i in range(m):
                    r[i] = ab[i] + c[i]
