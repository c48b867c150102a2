"""Thin wrapper around ``_select.pyx``: a few order statistics of every column
of a matrix, by counting its values into parts of their range."""

import numpy as np

from ._build import build

_select = build("_select")

# Values per part of a column's range, on average: few to select among, and
# the parts' counts of a (10,000 x 84) matrix stay within the L2 cache.
_PER_PART = 8
# The range is that of every _STRIDE-th row (see _select.pyx).
_STRIDE = 32


def column_order_statistics(values, ranks):
    """The values of ranks ``ranks[m]`` (from 0, in any order) of every
    column ``m`` of ``values``, and which columns have them.

    Parameters
    ----------
    values : ndarray of shape (n_rows, n_columns)
    ranks : ndarray of shape (n_columns, n_ranks) of int
        In ``0..n_rows - 1``.

    Returns
    -------
    statistics : ndarray of shape (n_columns, n_ranks)
        ``np.sort(values, axis=0)[ranks[m, j], m]`` at ``[m, j]`` where
        ``found[m]``.
    found : ndarray of shape (n_columns,) of bool
        False where the column holds a NaN, its range has no finite width
        (where it is sampled), or its order defeats the selection's pivots
        (its row of ``statistics`` is then undefined: select those columns
        another way).
    """
    values = np.ascontiguousarray(values, dtype=np.float64)
    ranks = np.asarray(ranks, dtype=np.intp)
    n_rows, n_columns = values.shape
    if ranks.ndim != 2 or ranks.shape[0] != n_columns:
        raise ValueError(f"ranks must be (n_columns={n_columns}, n_ranks), got "
                         f"shape {ranks.shape}.")
    if ranks.size and (ranks.min() < 0 or ranks.max() >= n_rows):
        raise ValueError(f"ranks must be in 0..{n_rows - 1}.")
    order = np.argsort(ranks, axis=1, kind="stable")
    increasing = np.ascontiguousarray(np.take_along_axis(ranks, order, axis=1))
    found = np.zeros(n_columns, dtype=np.uint8)
    statistics = np.empty(ranks.shape)
    if n_rows and ranks.size:
        out = np.empty(ranks.shape)
        n_parts = min(max(1, n_rows // _PER_PART), (2**31 - 1) // n_columns)
        _select.bucket_select_fill(values, increasing, n_parts, _STRIDE, out, found)
        np.put_along_axis(statistics, order, out, axis=1)
    return statistics, found.astype(bool)
