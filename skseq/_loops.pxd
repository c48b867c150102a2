# Inline loops shared by the compiled modules (_recursions.pyx, _rows.pyx).
#
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
