"""Stepwise(ColumnTransformer(...)) on DataFrames of mixed numeric and
symbol columns: columns chosen by name, and missing values passed to a
ColumnTransformer whose every transformer accepts them."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.compose import ColumnTransformer, make_column_selector
from sklearn.decomposition import PCA
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder, StandardScaler

from skseq.preprocessing import Stepwise


def _frames(x_values=((1.0, 3.0), (5.0, 7.0, 9.0))):
    symbols = (("a", "b"), ("b", "b", "a"))
    return [pd.DataFrame({"x": x, "s": list(s)})
            for x, s in zip(x_values, symbols, strict=True)]


def _by_name(num=None):
    return ColumnTransformer([("num", num or StandardScaler(), ["x"]),
                              ("cat", OneHotEncoder(), ["s"])])


def test_columns_are_chosen_by_name_in_frames():
    stepwise = Stepwise(_by_name()).fit(_frames())
    out = stepwise.transform(_frames())
    x = np.array([1.0, 3.0, 5.0, 7.0, 9.0])
    scaled = (x - 5.0) / np.sqrt(8.0)  # mean 5, population variance 8
    a = np.array([1, 0, 0, 0, 1.0])
    expected = np.column_stack([scaled, a, 1 - a])
    assert_allclose(np.concatenate(out), expected)
    assert [o.shape[0] for o in out] == [2, 3]
    assert_array_equal(stepwise.get_feature_names_out(),
                       ["num__x", "cat__s_a", "cat__s_b"])


def test_other_transformers_still_receive_an_array_from_frames():
    # only a ColumnTransformer is given the steps as a DataFrame
    first = FunctionTransformer(lambda X: X[:, :1])
    frames = [pd.DataFrame({"x": [1.0, 2.0], "z": [3.0, 4.0]})]
    out = Stepwise(make_pipeline(first, StandardScaler())).fit_transform(frames)
    assert_allclose(out[0], [[-1.0], [1.0]])
    nested = make_pipeline(make_pipeline(_by_name()), "passthrough")
    out = Stepwise(nested).fit_transform(_frames())
    assert [o.shape for o in out] == [(2, 3), (3, 3)]


def test_columns_by_name_pass_missing_values_to_an_imputer():
    frames = _frames(((1.0, np.nan), (np.nan, 7.0, 9.0)))
    stepwise = Stepwise(_by_name(SimpleImputer()))
    assert stepwise.__sklearn_tags__().input_tags.allow_nan
    out = np.concatenate(stepwise.fit_transform(frames))
    assert_allclose(out[:, 0], [1.0, 17 / 3, 17 / 3, 7.0, 9.0])


@pytest.mark.parametrize("column_transformer, allow_nan", [
    (ColumnTransformer([("num", SimpleImputer(), [0])], remainder="passthrough"),
     True),
    (ColumnTransformer([("num", SimpleImputer(), [0]), ("drop", "drop", [1])]),
     True),
    (ColumnTransformer([("num", SimpleImputer(), [0]),
                        ("cat", OneHotEncoder(), [1])],
                       remainder=SimpleImputer()), True),
    (ColumnTransformer([("num", SimpleImputer(), [0]), ("pca", PCA(), [1])]),
     False),
    # a Pipeline's is its first step's, a ColumnTransformer's as above
    (make_pipeline(_by_name(SimpleImputer()), StandardScaler()), True),
    (make_pipeline(_by_name(PCA()), StandardScaler()), False),
])
def test_a_column_transformers_allow_nan_is_all_of_its_transformers(
        column_transformer, allow_nan):
    tags = Stepwise(column_transformer).__sklearn_tags__()
    assert tags.input_tags.allow_nan is allow_nan


@pytest.mark.parametrize("transformer, match", [
    # the encoder inside is there: its own failure, without advice to add one
    (ColumnTransformer([("cat", OneHotEncoder(), ["typo"])]),
     r"^ColumnTransformer failed on steps of symbols: Some column names are not "
     r"columns of the dataframe: \{'typo'\}\.$"),
    (make_pipeline(SimpleImputer(strategy="most_frequent"),
                   OneHotEncoder(max_categories=0)),
     r"^Pipeline failed on steps of symbols: The 'max_categories' parameter of "
     r"OneHotEncoder must be .*\.$"),
    # no encoder anywhere: the advice to add one
    (ColumnTransformer([("num", StandardScaler(), ["s"])]),
     r"^ColumnTransformer failed on steps of symbols \(non-numeric features.* "
     r"Encode symbols with a transformer that reads them"),
])
def test_a_composites_failure_on_symbols_advises_an_encoder_only_if_it_has_none(
        transformer, match):
    with pytest.raises(ValueError, match=match):
        Stepwise(transformer).fit(_frames())


def test_categorical_columns_are_chosen_by_dtype_as_in_x():
    """A column of category dtype is a category for the ColumnTransformer, so
    a selector by dtype takes it (inside Stepwise as in X); it was an object
    column, left out by dtype_include="category" without a word."""
    frames = [pd.DataFrame({"event": pd.Categorical(["view", "buy", None]),
                            "amount": [1.0, 2.0, 3.0]}),
              pd.DataFrame({"event": pd.Categorical(["buy"]), "amount": [4.0]})]
    by_dtype = ColumnTransformer([
        ("cat", OneHotEncoder(sparse_output=False),
         make_column_selector(dtype_include="category")),
        ("num", StandardScaler(), make_column_selector(dtype_include="number"))])
    stepwise = Stepwise(make_pipeline(by_dtype)).fit(frames)
    assert_array_equal(stepwise.get_feature_names_out(),
                       ["cat__event_buy", "cat__event_view", "cat__event_nan",
                        "num__amount"])
    amount = (np.arange(1.0, 5.0) - 2.5) / np.sqrt(1.25)  # mean 2.5, variance 1.25
    expected = np.column_stack([[0, 1, 0, 1], [1, 0, 0, 0], [0, 0, 1, 0], amount])
    out = stepwise.transform(frames)
    assert_allclose(np.concatenate(out), expected)
    assert [o.shape[0] for o in out] == [3, 1]
