"""Conversions between the forms of X, and long DataFrames to (X, y)."""

import copy
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal

from skseq import IOHMMClassifier
from skseq.utils import (
    from_channels_first,
    from_long_frame,
    sequence_lengths,
    to_channels_first,
    to_list,
    to_padded,
)

nan = np.nan

PADDED = np.array([
    [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
    [[7.0, 8.0], [nan, nan], [nan, nan]],
    [[9.0, 0.0], [1.0, 1.0], [nan, nan]],
])
LIST = [np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), np.array([[7.0, 8.0]]),
        np.array([[9.0, 0.0], [1.0, 1.0]])]


def test_list_and_padded_round_trip():
    assert_array_equal(to_padded(to_list(PADDED)), PADDED)  # NaN == NaN here
    for got, expected in zip(to_list(to_padded(LIST)), LIST, strict=True):
        assert_array_equal(got, expected)
    assert_array_equal(to_padded(LIST), PADDED)


def test_univariate_and_one_step_forms():
    X_1d = [np.array([1.0, 2.0]), np.array([3.0])]
    assert_array_equal(to_padded(X_1d), [[[1.0], [2.0]], [[3.0], [nan]]])
    assert [x.shape for x in to_list(X_1d)] == [(2, 1), (1, 1)]
    rows = np.arange(6.0).reshape(3, 2)
    assert_array_equal(to_padded(rows), rows[:, None, :])
    assert [x.tolist() for x in to_list(rows)] == [[[0, 1]], [[2, 3]], [[4, 5]]]


@pytest.mark.parametrize("X", [LIST, PADDED, np.ones((3, 2))])
def test_to_list_and_to_padded_return_copies(X):
    before = copy.deepcopy(X)
    to_list(X)[0][0, 0] = -1.0
    to_padded(X)[0, 0, 0] = -1.0
    assert_array_equal(np.concatenate(X) if isinstance(X, list) else X,
                       np.concatenate(before) if isinstance(X, list) else before)


@pytest.mark.parametrize("X, lengths", [
    (PADDED, [3, 1, 2]), (LIST, [3, 1, 2]), (np.ones((4, 2)), [1, 1, 1, 1]),
    ([np.ones(5), np.ones(2)], [5, 2]),
])
def test_sequence_lengths(X, lengths):
    got = sequence_lengths(X)
    assert_array_equal(got, lengths)
    assert got.dtype.kind == "i"


@pytest.mark.parametrize("helper", [to_padded, to_list, sequence_lengths])
@pytest.mark.parametrize("X, error, match", [
    ([], ValueError, "X is empty"),
    (None, TypeError, "X is None"),
    ([np.ones((2, 2)), np.ones((2, 3))], ValueError, "sequence 1 has 3 features"),
    (np.array([[[1.0], [np.inf], [2.0]]]), ValueError,
     "sequence 0 contains inf at step 1 .feature 0.; infinite values"),
    ([np.array(["a", b"b"], dtype=object)], ValueError, "holds bytes"),
])
def test_helpers_validate_like_the_estimators(helper, X, error, match):
    with pytest.raises(error, match=match):
        helper(X)


def _transposed(X):
    """(n, channels, length) -> (n, length, channels), one element at a time."""
    n, c, length = X.shape
    out = np.empty((n, length, c))
    for i in range(n):
        for k in range(c):
            for t in range(length):
                out[i, t, k] = X[i, k, t]
    return out


def test_from_channels_first_is_the_transposition():
    X = np.random.default_rng(0).normal(size=(4, 3, 5))
    got = from_channels_first(X)
    assert got.dtype == np.float64 and got.flags.c_contiguous
    assert_array_equal(got, _transposed(X))
    assert_array_equal(to_channels_first(got), X)


def test_from_channels_first_keeps_trailing_nan_padding():
    X = np.random.default_rng(1).normal(size=(3, 2, 6))
    X[1, :, 4:] = nan  # case 1 has 4 time points
    X[2, :, 1:] = nan  # case 2 has 1
    got = from_channels_first(X)
    assert_array_equal(got, _transposed(X))  # NaN == NaN here
    assert_array_equal(sequence_lengths(got), [6, 4, 1])
    assert_array_equal(to_list(got)[1], X[1, :, :4].T)
    assert_array_equal(to_channels_first(to_list(got)), X)


def test_from_channels_first_rejects_nan_that_is_not_padding():
    X = np.ones((2, 2, 4))
    X[1, 0, 3] = nan  # only channel 0 ends early
    with pytest.raises(ValueError, match="sequence 1 contains NaN at step 3 "
                                         r"\(feature 0\)"):
        from_channels_first(X)


def test_from_channels_first_univariate_table_and_list_of_cases():
    table = np.arange(6.0).reshape(2, 3)  # 2 univariate series of 3 points
    assert_array_equal(from_channels_first(table), table[:, :, None])
    cases = [np.arange(8.0).reshape(2, 4), np.arange(6.0).reshape(2, 3)]
    got = from_channels_first(cases)
    assert [x.shape for x in got] == [(4, 2), (3, 2)]
    assert_array_equal(got[0], cases[0].T)
    assert_array_equal(got[1], cases[1].T)
    univariate = from_channels_first([[1.0, 2.0], np.array([3.0])])
    assert [x.tolist() for x in univariate] == [[[1.0], [2.0]], [[3.0]]]


@pytest.mark.parametrize("X, match", [
    (np.ones(3), r"X has shape \(3,\); expected \(n_cases, n_channels"),
    (np.ones((1, 1, 1, 1)), r"X has shape \(1, 1, 1, 1\)"),
    ([np.ones((2, 2)), np.ones((1, 2, 2))], r"case 1 has shape \(1, 2, 2\)"),
    ([np.ones((2, 3)), np.ones((3, 3))], "sequence 1 has 3 features but sequence 0 "
                                         "has 2"),
])
def test_from_channels_first_errors(X, match):
    with pytest.raises(ValueError, match=match):
        from_channels_first(X)


def test_to_channels_first_pads_ragged_lists_at_the_end():
    X = [np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[5.0, 6.0]])]
    expected = np.array([[[1.0, 3.0], [2.0, 4.0]], [[5.0, nan], [6.0, nan]]])
    assert_array_equal(to_channels_first(X), expected)


def _frame():
    # Sequence "b" appears first; rows of a sequence are out of time order and
    # interleaved with other sequences.
    return pd.DataFrame({
        "sid": ["b", "a", "b", "a", "c", "b"],
        "t": [2, 1, 0, 0, 5, 1],
        "x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        "z": [0, 1, 0, 1, 0, 1],
        "label": ["p", "q", "p", "q", "p", "p"],
    })


def test_from_long_frame_orders_sequences_by_appearance_and_steps_by_time():
    X, y = from_long_frame(_frame(), "sid", time="t", target="label")
    assert [x.tolist() for x in X] == [
        [[3.0, 0.0], [6.0, 1.0], [1.0, 0.0]],  # "b" at t = 0, 1, 2
        [[4.0, 1.0], [2.0, 1.0]],  # "a" at t = 0, 1
        [[5.0, 0.0]],  # "c"
    ]
    assert y.tolist() == ["p", "q", "p"]  # constant per sequence: sequence-level


def test_from_long_frame_without_time_keeps_row_order_and_ties_are_stable():
    X, y = from_long_frame(_frame(), "sid", features=["x"])
    assert [x.ravel().tolist() for x in X] == [[1.0, 3.0, 6.0], [2.0, 4.0], [5.0]]
    assert y is None
    df = _frame().assign(t=0)
    X_tied, _ = from_long_frame(df, "sid", time="t", features="x")
    for a, b in zip(X_tied, X, strict=True):
        assert_array_equal(a, b)


def test_from_long_frame_step_level_targets():
    df = _frame().assign(label=["p", "q", None, "q", "p", "q"])
    X, y = from_long_frame(df, "sid", time="t", target="label")
    assert isinstance(y, list)
    assert [v.tolist() for v in y] == [[None, "q", "p"], ["q", "q"], ["p"]]
    clf = IOHMMClassifier(n_states=2, n_init=1, max_iter=5, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert clf.fit(X, y).step_level_


def test_from_long_frame_nullable_numeric_target_uses_nan():
    df = _frame().assign(label=pd.array([0, 1, pd.NA, 1, 0, 0], dtype="Int64"))
    _, y = from_long_frame(df, "sid", time="t", target="label")
    assert y[0].dtype == np.float64
    assert_array_equal(y[0], [nan, 0.0, 0.0])


def test_from_long_frame_accepts_multiindex_columns_without_warnings():
    df = pd.DataFrame([[1, 0.5], [1, 0.7], [2, 0.1]],
                      columns=pd.MultiIndex.from_tuples([("id", ""), ("f", "x")]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        X, _ = from_long_frame(df, ("id", ""))
    assert [x.ravel().tolist() for x in X] == [[0.5, 0.7], [0.1]]


@pytest.mark.parametrize("df, kwargs, error, match", [
    (_frame().to_numpy(), {}, TypeError, "df must be a pandas DataFrame, got ndarray"),
    (_frame()["x"], {}, TypeError, "got Series"),
    (_frame(), {"time": "when"}, ValueError, r"Columns \['when'\] are not in"),
    (_frame(), {"target": "y"}, ValueError, r"Columns \['y'\] are not in"),
    (_frame(), {"features": ["x", "w"]}, ValueError, r"Columns \['w'\] are not in"),
    (_frame().assign(d=pd.Timestamp("2020-01-01")), {"target": "label"}, ValueError,
     r"Feature columns 'd' \(datetime64\[\w+\]\) hold complex numbers, dates or "
     r"durations, neither real numbers nor symbols"),
    # the default feature columns took a column that is not one: say how to
    # leave it out
    (_frame().assign(d=pd.Timedelta(1, "s")), {"time": "t", "target": "label"},
     ValueError, r"'d' \(timedelta64\[\w+\]\) hold .* convert them to real "
     r"numbers first \(dates: e\.g\. seconds since a reference time\), or name "
     r"the feature columns with features= .*, e\.g\. features=\['x', 'z'\]\.$"),
    (_frame().assign(d=pd.Timestamp("2020-01-01", tz="UTC")),
     {"features": ["x", "d"]}, ValueError,
     r"'d' \(datetime64\[\w+, UTC\]\) hold .* reference time\)\.$"),
    (_frame().assign(x=1j), {"target": "label"}, ValueError,
     r"'x' \(complex128\) hold complex numbers"),
    # a column of symbols beside it: the numbers are checked as well
    (_frame().assign(x=list("uvuuvu"), z=[0, 1, 0, 0, 0, np.inf]),
     {"target": "label"}, ValueError, r"Column 'z' has inf at row 5 "
     r"\(sequence 'b'\); replace or drop infinite values first\.$"),
    (_frame().assign(z=[0, 1, 0, np.inf, 0, 1]), {"target": "label"},
     ValueError, r"Column 'z' has inf at row 3 \(sequence 'a'\)"),
    (_frame().assign(sid=[2, 1, 2, 1, 3, 2], x=[1.0, -np.inf, 3, 4, 5, 6])
     .set_index(pd.Index([10, 11, 12, 13, 14, 15], dtype="int64")),
     {"target": "label"}, ValueError,
     r"Column 'x' has -inf at row 11 \(sequence 1\)"),
    (_frame().assign(sid=["b", None, "b", "a", "c", "b"]), {}, ValueError,
     r"Column 'sid' has a missing sequence id at row 1"),
    (_frame().assign(t=[2, 1, nan, 0, 5, 1]), {"time": "t", "features": ["x"]},
     ValueError,
     r"Column 't' has a missing time at row 2"),
    # one target per sequence, and sequence "a" (rows 3 then 1 in time order)
    # has none: named there, not at the fit by its position
    (_frame().assign(label=["p", None, "p", None, "q", "p"]),
     {"time": "t", "target": "label"}, ValueError,
     r"Column 'label' has no value on any row of sequence 'a' \(rows \[3, 1\]\)"),
    (_frame().assign(label=[0.5, 1.5, 0.5, 1.5, nan, 0.5], sid=[7, 8, 7, 8, 9, 7])
     .set_index(pd.Index(list("uvwxyz"))), {"target": "label"}, ValueError,
     r"Column 'label' has no value on any row of sequence 9 \(rows \['y'\]\)"),
    (_frame().iloc[:0], {"target": "label"}, ValueError, "no rows"),
    (_frame()[["sid", "t"]], {"time": "t"}, ValueError, "No feature columns"),
    (_frame().set_axis(["sid", "t", "x", "x", "label"], axis=1), {"target": "label"},
     ValueError, r"duplicate column names: \['x'\]"),
    (_frame(), {"sequence_id": ["sid"]}, TypeError,
     "sequence_id must be one column name"),
])
def test_from_long_frame_errors(df, kwargs, error, match):
    kwargs = {"sequence_id": "sid", **kwargs}
    with pytest.raises(error, match=match):
        from_long_frame(df, **kwargs)


def test_from_long_frame_returns_the_ids_of_the_sequences_in_order():
    df = _frame()
    X, y, ids = from_long_frame(df, "sid", time="t", target="label",
                                return_ids=True)
    assert ids.tolist() == ["b", "a", "c"]
    for x, sid in zip(X, ids, strict=True):  # each X[i] holds the rows of ids[i]
        rows = df[df["sid"] == sid].sort_values("t", kind="stable")
        assert_array_equal(x, rows[["x", "z"]].to_numpy(dtype=float))
    X_none, y_none, ids_none = from_long_frame(df, "sid", features="x",
                                               return_ids=True)
    assert y_none is None and ids_none.tolist() == ["b", "a", "c"]
    steps = df.assign(label=["p", "q", None, "q", "p", "q"])
    _, y_steps, ids_steps = from_long_frame(steps, "sid", time="t", target="label",
                                            return_ids=True)
    assert isinstance(y_steps, list) and ids_steps.tolist() == ["b", "a", "c"]


def test_from_long_frame_ids_join_predictions_and_group_folds():
    from sklearn.model_selection import GroupKFold

    df = pd.DataFrame({"user": np.repeat([7, 3, 5, 9], 3),
                       "session": np.repeat(np.arange(4), 3),
                       "x": np.arange(12.0)})
    X, _, ids = from_long_frame(df, "session", features="x", return_ids=True)
    users = df.groupby("session")["user"].first().loc[ids].to_numpy()
    assert users.tolist() == [7, 3, 5, 9]
    for train, test in GroupKFold(n_splits=2).split(X, groups=users):
        assert not set(users[train]) & set(users[test])
    first_steps = pd.Series([x[0, 0] for x in X], index=ids)
    assert first_steps.loc[2] == 6.0  # session 2 starts at row 6
