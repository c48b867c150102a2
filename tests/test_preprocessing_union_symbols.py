"""SequenceUnion on steps of symbols and on missing values: its transformers
receive them, its own output is numbers."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler
from sklearn.utils import get_tags

from skseq.preprocessing import ForwardFill, SequenceFeatures, SequenceUnion, Stepwise

nan = np.nan


def _encoders():
    return SequenceUnion([
        ("onehot", Stepwise(OneHotEncoder(sparse_output=False))),
        ("ordinal", Stepwise(OrdinalEncoder())),
    ])


def test_union_of_encoders_reads_symbols_in_every_form():
    X = [np.array(["b", "a", "c"]), np.array(["c"])]
    # a, b, c one-hot, then their ordinal codes 0, 1, 2
    expected = [np.array([[0, 1, 0, 1], [1, 0, 0, 0], [0, 0, 1, 2]], float),
                np.array([[0, 0, 1, 2]], float)]
    union = _encoders().fit(X)
    for got, want in zip(union.transform(X), expected, strict=True):
        assert_array_equal(got, want)
    assert union.get_feature_names_out().tolist() == [
        "onehot__x0_a", "onehot__x0_b", "onehot__x0_c", "ordinal__x0"]
    padded = np.array([[["b"], ["a"], ["c"]], [["c"], [None], [None]]], dtype=object)
    got = _encoders().fit_transform(padded)
    assert got.dtype == np.float64
    assert_array_equal(got[0], expected[0])
    assert_array_equal(got[1, 0], expected[1][0])
    assert np.isnan(got[1, 1:]).all()


def test_passthrough_of_symbols_is_refused_and_a_fitted_union_kept():
    X = [np.array(["b", "a"]), np.array(["c"])]
    union = SequenceUnion([("onehot", Stepwise(OneHotEncoder())),
                           ("raw", "passthrough")])
    numbers = [np.array([[1.0], [2.0]])]
    union.fit(numbers)
    fitted = union.transformers_
    with pytest.raises(ValueError, match="SequenceUnion: 'raw' is 'passthrough', "
                       "which would put X's steps of symbols in the output"):
        union.fit(X)
    assert union.transformers_ is fitted
    with pytest.raises(ValueError, match="'raw' is 'passthrough'"):
        union.transform(X)


def test_missing_values_reach_transformers_that_accept_them():
    X = [np.array([[1.0, nan], [nan, nan], [3.0, 4.0]]), np.array([[5.0, 2.0]])]
    union = SequenceUnion([("fill", ForwardFill()), ("raw", "passthrough")],
                          transformer_weights={"raw": 2.0})
    assert get_tags(union).input_tags.allow_nan
    # fill values: means 3.0 and 3.0; the input passes on doubled, NaN kept
    got = union.fit_transform(X)
    assert_array_equal(got[0], [[1.0, 3.0, 2.0, nan], [1.0, 3.0, nan, nan],
                                [3.0, 4.0, 6.0, 8.0]])
    assert_array_equal(got[1], [[5.0, 2.0, 10.0, 4.0]])
    # but not when one of the transformers refuses them
    union = SequenceUnion([("fill", ForwardFill()), ("diff", SequenceFeatures())])
    assert not get_tags(union).input_tags.allow_nan
    with pytest.raises(ValueError, match="sequence 0 contains NaN at step 0 .fea"):
        union.fit(X)


def test_stepwise_keeping_nan_passes_it_on_at_the_steps_that_had_it():
    X = [np.array([[0.0], [nan]]), np.array([[2.0]])]
    union = SequenceUnion([("scale", Stepwise(StandardScaler()))])
    got = union.fit_transform(X)  # mean 1, standard deviation 1
    assert_array_equal(got[0], [[-1.0], [nan]])
    assert_array_equal(got[1], [[1.0]])


class _NaNAtStepZero(Stepwise):
    """Stepwise(StandardScaler()) that writes NaN at every sequence's first step."""

    def transform(self, X):
        out = super().transform(X)
        for x in out:
            x[0] = nan
        return out


def test_nan_output_where_the_input_had_no_missing_value_is_refused():
    X = [np.array([[0.0], [1.0]]), np.array([[2.0], [nan]])]
    union = SequenceUnion([("odd", _NaNAtStepZero(StandardScaler()))])
    with pytest.raises(ValueError, match=r"SequenceUnion: transformer 'odd' "
                       r"produced NaN or inf at sequence 0, step 0\."):
        union.fit(X)
