"""Column names of a list of per-sequence DataFrames: recorded at fit as
``feature_names_in_`` and checked at predict, as scikit-learn does for one
DataFrame (its own messages and warnings are the reference)."""

import re
import warnings
from functools import partial

import numpy as np
import pandas as pd
import pytest
from _states import assert_same_state, fitted_state
from conftest import ESTIMATORS
from numpy.testing import assert_array_equal
from sklearn.base import clone, is_classifier
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from skseq import HybridHMMClassifier, preprocessing
from skseq.preprocessing import SequenceFeatures, SequenceUnion, Stepwise, WindowMean

COLUMNS = ["a", "b"]


def _frames(columns=COLUMNS, n=6, seed=0):
    rng = np.random.default_rng(seed)
    return [pd.DataFrame(rng.normal(size=(int(rng.integers(2, 5)), 2)),
                         columns=columns) for _ in range(n)]


def _y(est, n=6):
    return np.arange(n) % 2 if is_classifier(est) else np.arange(n) * 0.5


def _messages(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught]


def _name_warnings(call):
    return [m for m in _messages(call) if "feature names" in m]


def _transformers():
    return [Stepwise(StandardScaler()), SequenceFeatures(), WindowMean(window=2),
            SequenceUnion([("scale", Stepwise(StandardScaler())),
                           ("diff", SequenceFeatures(keep_input=False))])]


@pytest.mark.parametrize("make", ["clf", "reg", "rnn"])
def test_estimators_record_and_check_the_names_of_a_list_of_dataframes(make):
    X = _frames()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning at a few iterations
        est = ESTIMATORS[make](max_iter=2).fit(X, _y(ESTIMATORS[make]()))
    assert_array_equal(est.feature_names_in_, COLUMNS)
    with pytest.raises(ValueError, match="Feature names must be in the same order"):
        est.predict([x[["b", "a"]] for x in X])
    with pytest.raises(ValueError, match="Feature names unseen at fit time:\n- c"):
        est.predict([x.rename(columns={"a": "c"}) for x in X])
    arrays = [x.to_numpy() for x in X]
    assert _name_warnings(lambda: est.predict(arrays)) == [
        f"X does not have valid feature names, but {type(est).__name__} was "
        "fitted with feature names"]
    assert _name_warnings(lambda: est.predict(X)) == []


def test_predictions_are_those_of_the_arrays():
    X = _frames()
    arrays = [x.to_numpy() for x in X]
    make = partial(ESTIMATORS["clf"], max_iter=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        named, plain = make().fit(X, _y(make())), make().fit(arrays, _y(make()))
    assert_array_equal(named.predict_proba(X), plain.predict_proba(arrays))
    state = fitted_state(named, public_only=True, deep=True)
    assert_array_equal(state.pop("feature_names_in_"), COLUMNS)
    assert_same_state(state, fitted_state(plain, public_only=True, deep=True))
    assert not hasattr(plain, "feature_names_in_")
    assert _name_warnings(lambda: plain.predict(X)) == [
        "X has feature names, but IOHMMClassifier was fitted without feature names"]


@pytest.mark.parametrize("trans", _transformers(), ids=lambda t: type(t).__name__)
def test_transformers_name_outputs_from_the_columns(trans):
    X = _frames()
    table = pd.concat(X, ignore_index=True)
    ref = type(trans)(**trans.get_params(deep=False)).fit(table)
    trans.fit(X)
    assert_array_equal(trans.feature_names_in_, COLUMNS)
    assert_array_equal(trans.get_feature_names_out(), ref.get_feature_names_out())
    with pytest.raises(ValueError, match="same order as they were in fit"):
        trans.transform([x[["b", "a"]] for x in X])


@pytest.mark.parametrize("change, how", [
    (lambda x: x[["b", "a"]], "the same names in another order: ['b', 'a']"),
    (lambda x: x.rename(columns={"a": "c"}), "['c'] in place of ['a']"),
])
def test_fit_refuses_dataframes_whose_names_differ(change, how):
    X = _frames()
    est = Stepwise(StandardScaler()).fit(X)
    before = (est.feature_names_in_.copy(), est.transformer_.mean_.copy())
    X[3] = change(X[3])
    message = ("X: sequence 3's column names differ from sequence 0's (['a', "
               f"'b']): {how}. Every DataFrame of X needs the same column names")
    with pytest.raises(ValueError, match=re.escape(message)):
        est.fit(X)
    with pytest.raises(ValueError, match=re.escape(message)):
        est.transform(X)
    assert_array_equal(est.feature_names_in_, before[0])
    assert_array_equal(est.transformer_.mean_, before[1])


def test_a_mixed_list_has_no_feature_names():
    X = _frames()
    mixed = X[:2] + [x.to_numpy() for x in X[2:]]
    est = Stepwise(StandardScaler()).fit(X)
    assert_array_equal(Stepwise(StandardScaler()).fit(mixed).get_feature_names_out(),
                       ["x0", "x1"])
    assert not hasattr(Stepwise(StandardScaler()).fit(mixed), "feature_names_in_")
    assert not hasattr(est.fit(mixed), "feature_names_in_")  # refit drops them
    est.fit(X)
    assert _name_warnings(lambda: est.transform(mixed)) == [
        "X does not have valid feature names, but Stepwise was fitted with "
        "feature names"]
    # Those that have names still match the fitted ones.
    with pytest.raises(ValueError, match="same order as they were in fit"):
        est.transform([X[0][["b", "a"]]] + mixed[2:])
    # And agree with each other.
    with pytest.raises(ValueError, match="sequence 4's column names differ from "
                                         "sequence 1's"):
        Stepwise(StandardScaler()).fit(mixed[2:3] + X[1:4] + [X[4][["b", "a"]]])


def test_integer_columns_are_no_feature_names():
    X = _frames(columns=[0, 1])
    est = Stepwise(StandardScaler()).fit(X)
    assert not hasattr(est, "feature_names_in_")
    assert _name_warnings(lambda: est.transform([x.to_numpy() for x in X])) == []


_OTHERS = {
    "HierarchicalIOHMM": partial(ESTIMATORS["hier-clf"], max_iter=2),
    "HybridHMMClassifier": partial(HybridHMMClassifier, LogisticRegression(),
                                   window=1, features="lags"),
    **{type(t).__name__: partial(clone, t) for t in _transformers()},
    "RunningPooling": preprocessing.RunningPooling,
    "DilatedConvolution": preprocessing.DilatedConvolution,
}


@pytest.mark.parametrize("name", list(_OTHERS))
def test_name_warnings_of_the_other_models_are_scikit_learns(name):
    # fitted with names, given arrays (or the reverse): one warning naming the
    # model, as scikit-learn's own estimators give; the same kind: none
    X = _frames()
    arrays = [x.to_numpy() for x in X]
    y = ([np.arange(len(x)) % 2 for x in X] if name == "HybridHMMClassifier"
         else np.arange(len(X)) % 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        named, plain = _OTHERS[name]().fit(X, y), _OTHERS[name]().fit(arrays, y)
    method = "predict" if hasattr(named, "predict") else "transform"
    with_names, without = getattr(named, method), getattr(plain, method)
    assert _name_warnings(lambda: with_names(arrays)) == [
        f"X does not have valid feature names, but {name} was fitted with "
        "feature names"]
    assert _name_warnings(lambda: without(X)) == [
        f"X has feature names, but {name} was fitted without feature names"]
    assert _name_warnings(lambda: with_names(X)) == []
    assert _name_warnings(lambda: without(arrays)) == []
