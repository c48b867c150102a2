"""The checks of steps of symbols that read every value: which hold strings,
which are missing (values of every kind, against hand-written answers)."""

from decimal import Decimal

import numpy as np
import pandas as pd
from numpy.testing import assert_array_equal

from skseq._data.sequences import _missing_symbols
from skseq.preprocessing._stepwise import _text_features, _text_values

nan = np.nan


class _Word(str):
    """A subclass of str: a string all the same."""


def test_text_values_and_features_by_value_kind():
    data = np.array([
        ["a", 1.0, nan, Decimal("2")],
        [np.str_("b"), 2, nan, None],
        [_Word("c"), True, "late", b"d"],
    ], dtype=object)
    expected = np.array([[True, False, False, False],
                         [True, False, False, False],
                         [True, False, True, False]])
    assert_array_equal(_text_values(data), expected)
    assert_array_equal(_text_features(data), [True, False, True, False])
    # numbers: no strings
    assert_array_equal(_text_features(np.ones((3, 2))), [False, False])
    assert_array_equal(_text_values(np.ones((1, 2))), [[False, False]])


def test_missing_symbols_by_value_kind():
    # plain strings, numbers and None: read by comparisons
    plain = np.array(["a", None, nan, 1, 2.5, np.float32("nan"), np.str_("x"),
                      True, np.float64("nan"), 0], dtype=object)
    assert_array_equal(_missing_symbols(plain),
                       [False, True, True, False, False, True, False, False,
                        True, False])
    # pandas' NA and NaT, NumPy's NaT, a Decimal NaN (not missing, as before)
    other = np.array(["a", pd.NA, pd.NaT, np.datetime64("NaT"), None,
                      Decimal("nan"), 3], dtype=object)
    assert_array_equal(_missing_symbols(other),
                       [False, True, True, True, True, False, False])
