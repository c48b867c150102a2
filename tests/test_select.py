"""Order statistics of every column by counting into parts of its range
(``skseq._kernels.select``), against a full sort of each column."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from skseq._data.dilated import column_quantiles
from skseq._kernels import select


def _columns(kind, n_rows, rng):
    n = (n_rows, 7)
    if kind == "normal":
        return rng.normal(size=n)
    if kind == "ties":  # few distinct values, and both zeros
        values = rng.integers(-2, 3, size=n).astype(float)
        values[values == 0] = np.where(rng.random(np.sum(values == 0)) < 0.5, 0.0, -0.0)
        return values
    if kind == "heavy":  # a range thousands of times the middle's spread
        return rng.standard_cauchy(size=n) ** 3
    if kind == "walks":  # values in the order of a random walk
        return rng.normal(size=n).cumsum(axis=0)
    if kind == "constant":
        return np.full(n, 2.5)
    # tiny, wide and infinite values
    values = rng.normal(size=n) * 1e-300
    values[rng.integers(n_rows), 1] = 1e308
    values[rng.integers(n_rows), 1] = -1e308
    values[rng.integers(n_rows), 2] = np.inf
    values[rng.integers(n_rows), 3] = -np.inf
    return values


@pytest.mark.parametrize("kind", ["normal", "ties", "heavy", "walks", "constant",
                                  "extreme"])
@pytest.mark.parametrize("n_rows", [1, 2, 31, 600, 3000])
def test_order_statistics_equal_a_full_sort(kind, n_rows):
    rng = np.random.default_rng(n_rows)
    values = _columns(kind, n_rows, rng)
    ranks = rng.integers(0, n_rows, size=(7, 5))  # in no order, repeats
    ranks[0] = [0, n_rows - 1, 0, n_rows // 2, n_rows - 1]
    got, found = select.column_order_statistics(values, ranks)
    expected = np.take_along_axis(np.sort(values, axis=0).T, ranks, axis=1)
    # every column whose range is finite where it is sampled
    assert found.sum() >= 7 - (kind == "extreme") * 3
    assert_array_equal(got[found], expected[found])


def test_a_column_with_a_nan_is_left_to_the_caller():
    rng = np.random.default_rng(0)
    values = rng.normal(size=(1000, 3))
    values[517, 1] = np.nan  # not a sampled row
    got, found = select.column_order_statistics(values, np.tile([100, 900], (3, 1)))
    assert_array_equal(found, [True, False, True])
    expected = np.sort(values, axis=0)[[100, 900]].T
    assert_array_equal(got[[0, 2]], expected[[0, 2]])
    # column_quantiles selects it another way (NaN sorted last, as np.sort)
    levels = np.tile([0.25, 0.5, 1.0], (3, 1))
    quantiles = column_quantiles(values, levels)
    ordered = np.sort(values, axis=0)
    pos = levels * 999
    lo = np.floor(pos).astype(int)
    hi = np.minimum(lo + 1, 999)
    below = np.take_along_axis(ordered.T, lo, axis=1)
    above = np.take_along_axis(ordered.T, hi, axis=1)
    assert_array_equal(quantiles, below + (pos - lo) * (above - below))
    assert np.isnan(quantiles[1, 2])


@pytest.mark.parametrize(("ranks", "match"), [
    (np.zeros((2, 2), dtype=int), "n_columns=3"),
    (np.zeros(3, dtype=int), "n_columns=3"),
    (np.full((3, 1), 10), r"0\.\.9"),
    (np.full((3, 1), -1), r"0\.\.9"),
])
def test_bad_ranks_are_refused(ranks, match):
    with pytest.raises(ValueError, match=match):
        select.column_order_statistics(np.zeros((10, 3)), ranks)
