"""Stepwise on steps of symbols (strings, categories): the transformer reads
them pooled as a 2-D object array, the sequence form is kept, and the output
must be numbers; the estimators keep refusing symbols. (Missing symbols:
tests/test_stepwise_missing.py.)"""

import copy
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.impute import SimpleImputer
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import (
    FunctionTransformer,
    OneHotEncoder,
    OrdinalEncoder,
    StandardScaler,
)

from skseq import IOHMMClassifier
from skseq.preprocessing import Stepwise, on_raw_steps
from skseq.utils import from_long_frame

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

WORDS = ["abca", "bba", "abc", "cab", "aab", "bc", "ca", "bbb"]
LABELS = np.array([0, 1, 0, 1, 0, 1, 0, 1])


def _symbols():
    return [np.array(list(w)) for w in WORDS]


def _one_hot_by_hand(words):
    """Indicator rows over the sorted alphabet, one per letter."""
    alphabet = sorted(set("".join(words)))
    return [np.array([[float(c == a) for a in alphabet] for c in w]) for w in words]


def _onehot():
    return Stepwise(OneHotEncoder(sparse_output=False))


def _clf():
    return IOHMMClassifier(n_states=2, n_init=1, max_iter=10, random_state=0)


def test_one_hot_of_symbol_sequences_equals_hand_indicators():
    out = _onehot().fit_transform(_symbols())
    assert isinstance(out, list)
    for got, expected in zip(out, _one_hot_by_hand(WORDS), strict=True):
        assert got.dtype == np.float64
        assert_array_equal(got, expected)


def test_numpy_variable_width_strings_are_symbols():
    # numpy's StringDType (kind "T") read as strings, its NaN a missing
    # value, in a list and in a padded 3-D array
    dtype = np.dtypes.StringDType(na_object=np.nan)
    words = [np.array(list(w), dtype=dtype) for w in WORDS]
    for got, expected in zip(_onehot().fit_transform(words),
                             _one_hot_by_hand(WORDS), strict=True):
        assert_array_equal(got, expected)
    padded = np.array([[["a"], ["b"]], [["b"], [np.nan]]], dtype=dtype)
    assert_array_equal(_onehot().fit_transform(padded),
                       [[[1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [np.nan, np.nan]]])


def test_pipeline_on_symbols_equals_the_pipeline_on_integer_codes():
    # the same pipeline on hand-made codes (in the alphabet's sorted order,
    # so the one-hot columns come in the same order) fits the same model
    alphabet = sorted(set("".join(WORDS)))
    codes = [np.array([[alphabet.index(c)] for c in w]) for w in WORDS]
    on_symbols = make_pipeline(_onehot(), _clf()).fit(_symbols(), LABELS)
    on_codes = make_pipeline(_onehot(), _clf()).fit(codes, LABELS)
    assert_array_equal(on_symbols.predict_proba(_symbols()),
                       on_codes.predict_proba(codes))
    assert_array_equal(on_symbols.predict(_symbols()), on_codes.predict(codes))
    assert_array_equal(on_symbols[:-1].get_feature_names_out(),
                       [f"x0_{a}" for a in alphabet])


def test_pipeline_on_symbols_in_model_selection_clone_and_pickle():
    pipe = make_pipeline(_onehot(), _clf())
    scores = cross_val_score(pipe, _symbols(), LABELS, cv=KFold(4),
                             error_score="raise")
    assert scores.shape == (4,)
    search = GridSearchCV(pipe, {"iohmmclassifier__n_states": [1, 2]}, cv=KFold(2),
                          error_score="raise").fit(_symbols(), LABELS)
    assert search.best_params_["iohmmclassifier__n_states"] in (1, 2)
    fitted = clone(pipe).fit(_symbols(), LABELS)
    restored = pickle.loads(pickle.dumps(fitted))
    assert_array_equal(restored.predict_proba(_symbols()),
                       fitted.predict_proba(_symbols()))
    # the raw steps of symbols reach a pipeline's per-step methods too
    posteriors = on_raw_steps(fitted, "predict_state_proba", _symbols())
    assert [p.shape[0] for p in posteriors] == [len(w) for w in WORDS]


class _WeightedShare(TransformerMixin, BaseEstimator):
    """Each symbol of column 0 as its weighted share of the fitted steps."""

    def fit(self, X, y=None, sample_weight=None):
        w = np.ones(len(X)) if sample_weight is None else np.asarray(sample_weight)
        self.share_ = {s: w[X[:, 0] == s].sum() / w.sum() for s in set(X[:, 0])}
        return self

    def transform(self, X):
        return np.array([[self.share_[s]] for s in X[:, 0]])


def test_sequence_weights_reach_a_transformer_of_symbols():
    X, w = _symbols()[:3], np.array([1.0, 2.0, 0.5])  # abca, bba, abc
    pipe = make_pipeline(Stepwise(_WeightedShare()), _clf())
    pipe.fit(X, LABELS[:3], stepwise__sample_weight=w)
    # a: 2 x 1.0 + 1 x 2.0 + 1 x 0.5 over 4 x 1.0 + 3 x 2.0 + 3 x 0.5 = 11.5
    assert pipe[0].transformer_.share_ == pytest.approx(
        {"a": 4.5 / 11.5, "b": 5.5 / 11.5, "c": 1.5 / 11.5}, rel=1e-15)


def _padded_objects():
    """The first three words as a 3-D object array padded with None rows."""
    X = np.full((3, 4, 1), None, dtype=object)
    for s, w in enumerate(WORDS[:3]):
        X[s, :len(w), 0] = list(w)
    return X


def test_padded_frames_and_tables_of_symbols_keep_their_form():
    expected = _one_hot_by_hand(WORDS[:3])
    step = _onehot().fit(_symbols()[:3])
    padded = step.transform(_padded_objects())
    assert padded.shape == (3, 4, 3)
    for s, x in enumerate(expected):
        assert_array_equal(padded[s, :len(x)], x)
        assert np.isnan(padded[s, len(x):]).all()  # padding stays padding
    # per-sequence DataFrames, a categorical and a string column: the names
    # become feature_names_in_ and OneHotEncoder's output names
    frames = [pd.DataFrame({"action": pd.Categorical(list(w)),
                            "page": pd.array(list(w.upper()), dtype="string")})
              for w in WORDS[:3]]
    step = _onehot().fit(frames)
    assert_array_equal(step.feature_names_in_, ["action", "page"])
    assert_array_equal(step.get_feature_names_out(),
                       ["action_a", "action_b", "action_c",
                        "page_A", "page_B", "page_C"])
    for got, x in zip(step.transform(frames), expected, strict=True):
        assert_array_equal(got, np.hstack([x, x]))
    # a list of flat lists of strings is a table of one-step rows, as with
    # numbers: two rows of two features
    rows = _onehot().fit_transform([["a", "x"], ["b", "x"]])
    assert_array_equal(rows, [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])


def test_an_unknown_symbol_at_transform_follows_the_encoder():
    fitted = _onehot().fit(_symbols())
    with pytest.raises(ValueError, match=r"Found unknown categories \['z'\]"):
        fitted.transform([np.array(["a", "z"])])
    ignoring = Stepwise(OneHotEncoder(sparse_output=False, handle_unknown="ignore"))
    out = ignoring.fit(_symbols()).transform([np.array(["a", "z"])])
    assert_array_equal(out[0], [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])


@pytest.mark.parametrize("transformer, X, error, match", [
    (StandardScaler(), _symbols(), ValueError,
     r"^StandardScaler failed on steps of symbols \(non-numeric features, which "
     r"Stepwise passes as an object array\): could not convert string to float: "
     r"'a'\. Encode symbols with a transformer that reads them"),
    (SimpleImputer(strategy="most_frequent"), _symbols(), ValueError,
     r"^SimpleImputer returned values that are not numbers \(dtype object\); "
     r"Stepwise's output must be numeric"),
    # a missing symbol, for a transformer that does not accept missing values
    (FunctionTransformer(lambda X: (X == "a").astype(float)),
     [np.array(["a", None, "b"])], ValueError,
     r"^X: sequence 0 contains a missing value at step 1 \(feature 0\)"),
    (OneHotEncoder(), [np.array([b"a", b"b"])], ValueError,
     r"^X: sequence 0 holds bytes \(dtype \|S1\); decode them to str first"),
    # a feature of strings in one sequence and numbers in another: the
    # encoder's refusal says where
    (OneHotEncoder(), [np.array(["a", "b"]), np.array([[1.0], [2.0]])], TypeError,
     r"^OneHotEncoder failed on steps of symbols: Encoders require .* Feature 0 "
     r"mixes strings and other values: sequence 1, step 0 holds 1\.0 where "
     r"sequence 0, step 0 holds 'a'; make every value of a feature a string"),
])
def test_what_stepwise_refuses_on_symbols(transformer, X, error, match):
    with pytest.raises(error, match=match):
        Stepwise(transformer).fit(X)


def _state(step):
    return copy.deepcopy({k: v for k, v in vars(step).items() if k.endswith("_")})


@pytest.mark.parametrize("bad", [
    lambda step: step.fit([np.array([b"a", b"b"])]),
    lambda step: step.fit([np.array(["a", "b"]), np.array(["a", "b"])[:, None]
                           .repeat(2, axis=1)]),
    lambda step: step.set_params(transformer=StandardScaler()).fit(_symbols()),
    lambda step: step.set_params(
        transformer=SimpleImputer(strategy="most_frequent")).fit(_symbols()),
    lambda step: step.transform([np.array(["a", "z"])]),
])
def test_a_failed_call_leaves_the_fitted_stepwise_as_it_was(bad):
    step = Stepwise(OrdinalEncoder()).fit(_symbols())
    state, out = _state(step), step.transform(_symbols())
    with pytest.raises(ValueError):
        bad(step)
    assert state.keys() == _state(step).keys()
    assert_array_equal(step.transformer_.categories_[0], ["a", "b", "c"])
    assert_array_equal(np.concatenate(step.transform(_symbols())),
                       np.concatenate(out))


def test_numbers_where_the_fit_had_symbols_are_named():
    # scikit-learn's encoders fail on them with numpy's bare "ufunc 'isnan'
    # not supported"; the fitted Stepwise is left as it was
    step = _onehot().fit(_symbols())
    before = pickle.dumps(step)
    with pytest.raises(TypeError, match=r"^OneHotEncoder failed on steps of "
                       r"symbols: .* Feature 0 mixes strings and other values: "
                       r"sequence 1, step 0 holds 2\.0 where it held strings at "
                       r"fit; make every value of a feature a string"):
        step.transform([np.array([np.nan]), np.array([2.0, 1.0])])
    assert pickle.dumps(step) == before


def test_numbers_in_objects_are_still_numbers():
    # an object array holding numbers takes the numeric path, as before
    X = [np.array([[1], [3]], dtype=object), np.array([[2]], dtype=object)]
    out = Stepwise(StandardScaler()).fit_transform(X)
    scale = np.std([1.0, 3.0, 2.0])
    assert_array_equal(np.concatenate(out).ravel(),
                       (np.array([1.0, 3.0, 2.0]) - 2.0) / scale)


def _events():
    rng = np.random.default_rng(0)
    rows = []
    for s in range(12):
        actions = rng.choice(["view", "cart", "pay"], size=int(rng.integers(2, 6)))
        rows += [{"session": s, "time": t, "action": a, "amount": float(t),
                  "bought": s % 2} for t, a in enumerate(actions)]
    return pd.DataFrame(rows).sample(frac=1.0, random_state=0)


def test_from_long_frame_keeps_symbols_for_the_one_hot_pipeline():
    events = _events()
    X, y, ids = from_long_frame(events, "session", time="time", target="bought",
                                features=["action"], return_ids=True)
    assert all(x.dtype == object and x.shape[1] == 1 for x in X)
    for x, session in zip(X, ids, strict=True):
        rows = events[events["session"] == session].sort_values("time")
        assert x[:, 0].tolist() == rows["action"].tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        pipe = make_pipeline(_onehot(), _clf()).fit(X, y)
    assert_array_equal(pipe[:-1].get_feature_names_out(),
                       ["x0_cart", "x0_pay", "x0_view"])
    # numeric columns alone come out as float64, as before
    X_num, _ = from_long_frame(events, "session", time="time", target="bought",
                               features=["amount"])
    assert all(x.dtype == np.float64 for x in X_num)
    # with a numeric column, the symbols' arrays hold its numbers too
    X_both, _ = from_long_frame(events, "session", time="time", target="bought",
                                features=["action", "amount"])
    assert_array_equal(X_both[0][:, 1].astype(float), X_num[0][:, 0])
