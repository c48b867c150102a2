"""Thin wrapper around ``_standardize.pyx``: the squared deviations of a
sample's columns from their means, and its standardized, row-weighted columns
in Fortran order, each in one pass with no temporary array.

Both give, bit for bit, what the NumPy expressions in their docstrings give
(the same operations in the same order); the compiled passes only avoid
NumPy's temporaries and its strided writes of a Fortran-ordered result.
"""

import numpy as np

from ._build import build

_standardize = build("_standardize")


def squared_deviations(data, mean, out=None):
    """``np.square(data - mean)``, in one pass.

    Parameters
    ----------
    data : ndarray of shape (n_rows, n_columns)
    mean : ndarray of shape (n_columns,)
    out : ndarray of shape (n_rows, n_columns) or None
        C-contiguous float64; may be ``data`` itself.

    Returns
    -------
    out : ndarray of shape (n_rows, n_columns)
    """
    data = np.ascontiguousarray(data, dtype=np.float64)
    mean = np.ascontiguousarray(mean, dtype=np.float64)
    if data.ndim != 2 or mean.shape != data.shape[1:]:
        raise ValueError(f"data must be (n_rows, n_columns) and mean (n_columns,), "
                         f"got shapes {data.shape} and {mean.shape}.")
    if out is None:
        out = np.empty_like(data)
    elif (out.shape != data.shape or out.dtype != np.float64
          or not out.flags.c_contiguous):
        raise ValueError("out must be a C-contiguous float64 array like data.")
    _standardize.squared_deviations_fill(data, mean, out)
    return out


def standardized(data, columns, mean, std, root, out):
    """``(data[:, columns] - mean[columns]) / std[columns] * root[:, None]``,
    computed in float64, written into ``out`` in its precision, in one pass.

    Parameters
    ----------
    data : ndarray of shape (n_rows, n_features)
    columns : ndarray of shape (n_columns,) of int
        In ``0..n_features - 1``.
    mean, std : ndarray of shape (n_features,)
    root : ndarray of shape (n_rows,)
        Every row's factor.
    out : ndarray of shape (n_rows, n_columns)
        Fortran-contiguous float32 or float64; must not overlap ``data``.

    Returns
    -------
    out : ndarray of shape (n_rows, n_columns)
    """
    data = np.ascontiguousarray(data, dtype=np.float64)
    columns = np.ascontiguousarray(columns, dtype=np.intp)
    vectors = [np.ascontiguousarray(v, dtype=np.float64) for v in (mean, std, root)]
    n_rows, n_features = data.shape
    if (columns.ndim != 1 or vectors[0].shape != (n_features,)
            or vectors[1].shape != (n_features,) or vectors[2].shape != (n_rows,)):
        raise ValueError(
            f"Expected columns (n_columns,), mean and std ({n_features},) and root "
            f"({n_rows},), got shapes {columns.shape}, {vectors[0].shape}, "
            f"{vectors[1].shape} and {vectors[2].shape}.")
    if columns.size and (columns.min() < 0 or columns.max() >= n_features):
        raise ValueError(f"columns must be in 0..{n_features - 1}.")
    if (out.shape != (n_rows, columns.size) or not out.flags.f_contiguous
            or out.dtype not in (np.float32, np.float64)):
        raise ValueError(f"out must be a Fortran-contiguous float32 or float64 array "
                         f"of shape {(n_rows, columns.size)}.")
    if np.shares_memory(out, data):
        raise ValueError("out must not overlap data.")
    _standardize.standardized_fill(data, columns, *vectors, out)
    return out
