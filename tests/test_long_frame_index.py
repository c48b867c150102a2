"""from_long_frame reads the sequence id, time, target and features from
index levels too, as pandas' groupby does."""

import numpy as np
import pandas as pd
import pytest

from skseq.utils import from_long_frame


def _frame():
    return pd.DataFrame({"id": ["b", "b", "a", "a", "a"], "t": [2, 1, 3, 1, 2],
                         "x": [1.0, 2.0, 3.0, 4.0, 5.0],
                         "y": [0.5, 0.5, 1.5, 1.5, 1.5]})


def _check(X, y, ids):
    # sequences in order of first appearance (b, a), steps sorted by t
    assert ids.tolist() == ["b", "a"]
    assert [x.ravel().tolist() for x in X] == [[2.0, 1.0], [4.0, 5.0, 3.0]]
    assert y.tolist() == [0.5, 1.5]


@pytest.mark.parametrize("levels", [["id", "t"], ["id"], ["t"], ["id", "t", "y"]])
def test_index_levels_read_as_columns(levels):
    X, y, ids = from_long_frame(_frame().set_index(levels), "id", time="t",
                                target="y", return_ids=True)
    _check(X, y, ids)


def test_feature_in_index_level():
    df = _frame().set_index(["id", "x"])
    X, y, ids = from_long_frame(df, "id", time="t", target="y", features="x",
                                return_ids=True)
    _check(X, y, ids)


def test_column_taken_before_level_of_same_name():
    df = _frame()
    df.index = pd.Index(np.arange(5)[::-1], name="t")  # a decoy level "t"
    X, y, ids = from_long_frame(df, "id", time="t", target="y", return_ids=True)
    _check(X, y, ids)


def test_unnamed_column_still_refused_naming_it():
    with pytest.raises(ValueError, match=r"Columns \['session'\] are not in"):
        from_long_frame(_frame().set_index("id"), "session", time="t")
