"""to_padded, to_list and sequence_lengths on steps of symbols and missing
values, and how padding is told from a missing step."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal

from skseq.utils import sequence_lengths, to_list, to_padded

nan = np.nan


def assert_same(got, expected):
    """Equal dtype, shape and values, NaN matching NaN (in object arrays too)."""
    expected = np.asarray(expected, dtype=got.dtype)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert_array_equal(pd.isna(got), pd.isna(expected))
    assert_array_equal(got[~pd.isna(got)], expected[~pd.isna(expected)])


def test_to_padded_of_symbols_is_an_object_array_padded_with_nan():
    X = [np.array(["a", "b", "c"]), np.array(["d"])]
    assert_same(to_padded(X), np.array([[["a"], ["b"], ["c"]],
                                        [["d"], [nan], [nan]]], dtype=object))
    # a 2-D object array with a missing symbol, and numbers among the symbols
    X = [np.array([["a", 1.0], [None, 2.0]], dtype=object),
         np.array([["b", nan]], dtype=object)]
    assert_same(to_padded(X), np.array([[["a", 1.0], [nan, 2.0]],
                                        [["b", nan], [nan, nan]]], dtype=object))


def test_to_list_of_a_padded_object_array():
    X = np.array([[["a"], [None], ["b"]], [["c"], [None], [None]]], dtype=object)
    got = to_list(X)
    assert len(got) == 2
    assert_same(got[0], np.array([["a"], [nan], ["b"]], dtype=object))
    assert_same(got[1], np.array([["c"]], dtype=object))


def test_to_list_of_numbers_with_gaps_stays_float():
    X = np.array([[[1.0, nan], [nan, nan], [3.0, 4.0]],
                  [[nan, 5.0], [nan, nan], [nan, nan]]])
    got = to_list(X)
    assert_same(got[0], [[1.0, nan], [nan, nan], [3.0, 4.0]])  # row 1 is a step
    assert_same(got[1], [[nan, 5.0]])


def test_a_collection_holding_symbols_comes_back_as_objects():
    X = [np.array([[1.0], [2.0]]), np.array(["a"])]
    got = to_list(X)
    assert_same(got[0], np.array([[1.0], [2.0]], dtype=object))
    assert_same(got[1], np.array([["a"]], dtype=object))


def test_categorical_dataframes_and_their_missing_values():
    frames = [pd.DataFrame({"event": pd.Categorical(["view", None, "buy"]),
                            "amount": [1.0, 2.0, pd.NA]}),
              pd.DataFrame({"event": pd.Categorical(["buy"]), "amount": [3.0]})]
    assert_same(to_padded(frames),
                np.array([[["view", 1.0], [nan, 2.0], ["buy", nan]],
                          [["buy", 3.0], [nan, nan], [nan, nan]]], dtype=object))
    assert_array_equal(sequence_lengths(frames), [3, 1])


@pytest.mark.parametrize("X, lengths", [
    ([np.array(["a", "b", "c"]), np.array(["d"])], [3, 1]),
    ([np.array([1.0, nan, nan]), np.array([nan])], [3, 1]),  # a list: no padding
    (np.array([[["a"], [None], ["b"], [None]], [["c"], [nan], [nan], [nan]]],
              dtype=object), [3, 1]),
    (np.array([[[nan, 1.0], [nan, nan], [2.0, nan]]]), [3]),
    (np.array([["a", "b"], ["c", None]], dtype=object), [1, 1]),
])
def test_sequence_lengths_of_symbols_and_gaps(X, lengths):
    got = sequence_lengths(X)
    assert_array_equal(got, lengths)
    assert got.dtype.kind == "i"


@pytest.mark.parametrize("X", [
    [np.array([[1.0, nan], [nan, nan], [2.0, 3.0]]), np.array([[nan, 4.0]])],
    [np.array(["a", None, "b"], dtype=object), np.array(["c", "d"])],
])
def test_list_to_padded_and_back_keeps_every_step(X):
    padded = to_padded(X)
    back = to_list(padded)
    assert len(back) == len(X)
    for got, x in zip(back, X, strict=True):
        assert_same(got, np.asarray(x, dtype=padded.dtype).reshape(len(x), -1))
    assert_same(to_padded(back), padded)


def test_padded_to_list_and_back_is_the_same_array():
    X = np.array([[[nan, 1.0], [nan, nan], [2.0, nan]],
                  [[3.0, nan], [nan, nan], [nan, nan]]])
    assert_same(to_padded(to_list(X)), X)
    X = np.array([[["a"], [nan], ["b"]], [["c"], [nan], [nan]]], dtype=object)
    assert_same(to_padded(to_list(X)), X)


@pytest.mark.parametrize("X, match, lengths", [
    ([np.array([[1.0], [2.0]]), np.array([[3.0], [nan]])],
     r"last step of sequence 1 \(step 1\) is missing in every feature", [2, 2]),
    ([np.array(["a", None], dtype=object)],
     r"last step of sequence 0 \(step 1\) is missing in every feature", [2]),
    (np.array([[1.0, 2.0], [nan, nan]]),  # one-step rows: row 1 is all missing
     r"last step of sequence 1 \(step 0\) is missing in every feature", [1, 1]),
])
def test_to_padded_refuses_a_last_step_it_would_read_as_padding(X, match, lengths):
    with pytest.raises(ValueError, match=match + ".*Keep such sequences as a list"):
        to_padded(X)
    # as a list, the step is kept
    assert_array_equal(sequence_lengths(X), lengths)
    assert [len(x) for x in to_list(X)] == lengths
