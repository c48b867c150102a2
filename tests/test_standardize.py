"""The standardization passes called directly (``skseq._kernels.standardize``):
the same values, bit for bit, as the NumPy expressions they replace, with
row weights, a constant column left out, one row, in place; and the refusal
of bad arguments.

Reference: the direct NumPy computation on small random inputs.
"""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from skseq._data.shape import _standardized
from skseq._kernels import standardize


def _sample(n_rows, n_features, seed=0):
    rng = np.random.default_rng(seed)
    data = rng.normal(size=(n_rows, n_features)) * rng.uniform(0.1, 50, n_features)
    data[:, 1] = 0.75  # a constant column
    weight = rng.uniform(0.5, 30.0, n_rows)
    mean = weight @ data / weight.sum()
    std = np.sqrt(weight @ np.square(data - mean) / weight.sum())
    return data, weight, mean, std


@pytest.mark.parametrize("n_rows", [1, 5, 70])
def test_squared_deviations_equal_numpy(n_rows):
    data, _, mean, _ = _sample(n_rows, 7)
    expected = np.square(data - mean)
    assert_array_equal(standardize.squared_deviations(data, mean), expected)
    inplace = data.copy()
    assert standardize.squared_deviations(inplace, mean, out=inplace) is inplace
    assert_array_equal(inplace, expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_rows", [1, 5, 70])
def test_standardized_columns_equal_numpy(n_rows, dtype):
    # 70 rows: two whole tiles of the kernel's rows and a part
    data, weight, mean, std = _sample(n_rows, 9, seed=n_rows)
    if n_rows == 1:  # (a single row has no spread of its own)
        std = np.linspace(0.5, 2.0, 9)
    columns = np.array([0, 2, 3, 5, 6, 8])  # the constant column left out
    root = np.sqrt(weight)
    expected = ((data[:, columns] - mean[columns]) / std[columns]
                * root[:, None]).astype(dtype)
    out = np.empty((n_rows, columns.size), dtype=dtype, order="F")
    assert standardize.standardized(data, columns, mean, std, root, out) is out
    assert_array_equal(out, expected)


def test_standardized_sample_reuses_the_memory_given():
    data, weight, mean, std = _sample(12, 6)
    columns = np.array([0, 2, 3, 4, 5])
    memory = np.empty_like(data)
    Z = _standardized(data, columns, mean, std, weight, "float32", memory)
    assert np.shares_memory(Z, memory) and Z.flags.f_contiguous
    assert_array_equal(Z, ((data[:, columns] - mean[columns]) / std[columns]
                           * np.sqrt(weight)[:, None]).astype(np.float32))


@pytest.mark.parametrize("change, match", [
    ({"columns": np.array([0, 6])}, "columns must be in 0..5"),
    ({"mean": np.zeros(5)}, "Expected columns"),
    ({"root": np.ones(3)}, "Expected columns"),
    ({"out": np.empty((4, 2))}, "Fortran-contiguous float32 or float64"),
    ({"out": np.empty((4, 3), dtype=np.int64, order="F")}, "Fortran-contiguous"),
])
def test_bad_standardization_arguments_are_refused(change, match):
    args = {"data": np.ones((4, 6)), "columns": np.array([0, 2, 5]),
            "mean": np.zeros(6), "std": np.ones(6), "root": np.ones(4),
            "out": np.empty((4, 3), order="F"), **change}
    with pytest.raises(ValueError, match=match):
        standardize.standardized(**args)


def test_bad_deviation_arguments_are_refused():
    with pytest.raises(ValueError, match="mean \\(n_columns,\\)"):
        standardize.squared_deviations(np.ones((3, 4)), np.zeros(3))
    with pytest.raises(ValueError, match="out must be a C-contiguous float64"):
        standardize.squared_deviations(np.ones((3, 4)), np.zeros(4),
                                       out=np.empty((4, 3)).T)
