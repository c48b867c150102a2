# Standardization of a sample's columns: the squared deviations from the
# columns' means (whose weighted sums give their variances), and the
# standardized, row-weighted columns that a principal component analysis reads,
# written in Fortran order.
#
# The kernels only fill the arrays they are given (standardize.py beside it is
# the thin wrapper that checks the arguments and allocates) and release the GIL.
# Every value is computed with the same operations in the same order as the
# NumPy expressions they replace ((x - m) ** 2 as a product; ((x - m) / s) * r,
# then rounded once to the output's precision), so the results are the same bit
# for bit: what they save is NumPy's passes over temporary arrays and its
# strided writes of a Fortran-ordered result.

cimport numpy as cnp

cnp.import_array()

ctypedef cnp.intp_t intp

ctypedef fused real:
    float
    double

# Rows written together: the tile's rows are read as as many sequential
# streams, and every column of the output receives a run of this many values
# (two cache lines in single precision).
cdef enum:
    _ROWS = 32


def squared_deviations_fill(
    const double[:, ::1] data,   # IN (n_rows, n_columns)
    const double[::1] mean,      # IN (n_columns,)
    double[:, ::1] out,          # OUT (n_rows, n_columns); may be data itself
):
    """Fill ``out`` with ``(data - mean) ** 2``, every difference squared by
    multiplying it by itself (as ``numpy.square``)."""
    cdef Py_ssize_t n_rows = data.shape[0], n_columns = data.shape[1]
    cdef Py_ssize_t i, j
    cdef double d
    cdef const double* x
    cdef double* o
    with nogil:
        for i in range(n_rows):
            x = &data[i, 0]
            o = &out[i, 0]
            for j in range(n_columns):
                d = x[j] - mean[j]
                o[j] = d * d


def standardized_fill(
    const double[:, ::1] data,   # IN (n_rows, n_features)
    const intp[::1] columns,     # IN (n_columns,) the features to standardize
    const double[::1] mean,      # IN (n_features,)
    const double[::1] std,       # IN (n_features,)
    const double[::1] root,      # IN (n_rows,) every row's factor
    real[::1, :] out,            # OUT (n_rows, n_columns), Fortran order
):
    """Fill ``out[i, j]`` with ``((data[i, c] - mean[c]) / std[c]) * root[i]``
    at ``c = columns[j]``, computed in double precision and rounded once to
    ``out``'s.

    The rows are taken ``_ROWS`` at a time, and within such a tile column by
    column: ``data`` is read along its rows (the tile's rows as sequential
    streams, which the hardware prefetches; a column's values, a row apart,
    are not) and every column of ``out`` is written a run of values at a time.
    """
    cdef Py_ssize_t n_rows = data.shape[0], n_columns = columns.shape[0]
    cdef Py_ssize_t n_features = data.shape[1]
    cdef Py_ssize_t b, a, z, i, j, c
    cdef double m, s
    cdef const double* x = &data[0, 0] if n_rows and n_features else NULL
    cdef real* o = &out[0, 0] if n_rows and n_columns else NULL
    cdef real* o_j
    with nogil:
        for b in range((n_rows + _ROWS - 1) // _ROWS):
            a = b * _ROWS
            z = min(a + _ROWS, n_rows)
            for j in range(n_columns):
                c = columns[j]
                m = mean[c]
                s = std[c]
                o_j = o + j * n_rows
                for i in range(a, z):
                    o_j[i] = <real> (((x[i * n_features + c] - m) / s) * root[i])
