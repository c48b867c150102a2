"""The data model under attack: every malformed input fails clearly, or is accepted
exactly as documented in ``skseq._data``.

Errors are ValueError / TypeError (NotFittedError for calls out of order) whose
message says what is wrong and where (sequence, step); never an IndexError, a numpy
internal error, or a silent wrong answer.
"""

import decimal
import fractions
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from _states import assert_same_state, fitted_state
from conftest import ESTIMATORS as SHARED
from conftest import FAST, fast
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.testing import assert_allclose, assert_array_equal
from scipy import sparse
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning, DataConversionWarning, NotFittedError
from sklearn.preprocessing import StandardScaler

from skseq import (
    DiscretizedRNNClassifier,
    HierarchicalIOHMM,
    IOHMMClassifier,
    IOHMMRegressor,
)
from skseq._data import (
    check_sample_weight,
    check_sequences,
    check_targets,
    validate_sequences,
)
from skseq.exceptions import InputHintWarning
from skseq.preprocessing import SequenceFeatures, Stepwise, WindowMean

nan, inf = np.nan, np.inf

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _iohmm(**params):
    return IOHMMClassifier(**{"n_states": 2, "n_init": 1, "max_iter": 5,
                              "random_state": 0, **params})


def _rnn(**params):
    return DiscretizedRNNClassifier(**{"n_init": 1, "max_iter": 5,
                                       "random_state": 0, **params})


def _data(n_features=2, seed=0):
    rng = np.random.default_rng(seed)
    lengths = [3, 1, 4, 2, 5, 2]
    X = [rng.normal(size=(k, n_features)) for k in lengths]
    return X, np.array(["a", "b", "c", "a", "b", "c"])


def _padded(rows):
    """3-D array from nested lists, padded at the end with NaN rows."""
    max_len = max(len(r) for r in rows)
    n_features = len(rows[0][0])
    out = np.full((len(rows), max_len, n_features), nan)
    for s, r in enumerate(rows):
        out[s, : len(r)] = r
    return out


def _nan_at(shape, index):
    arr = np.ones(shape)
    arr[index] = nan
    return arr


def _gen():
    yield np.ones((2, 1))


# (X, exception, message): the message names what is wrong and where.
BAD_X = {
    "3-D NaN row in the middle": (
        _padded([[[1, 2], [3, 4]], [[1, 2], [nan, nan], [3, 4]]]), ValueError,
        r"sequence 1 contains NaN at step 1 \(feature 0\)"),
    "3-D partially NaN row": (
        _padded([[[1, 2], [nan, 4], [5, 6]]]), ValueError,
        r"sequence 0 contains NaN at step 1 \(feature 0\)"),
    "3-D NaN in the last real row": (
        _padded([[[1, 2]], [[1, 2], [3, nan]]]), ValueError,
        r"sequence 1 contains NaN at step 1 \(feature 1\)"),
    "3-D NaN padding before a real row": (
        _padded([[[nan, nan], [1, 2]]]), ValueError,
        r"sequence 0 contains NaN at step 0"),
    "list with NaN": (
        [np.ones((3, 2)), _nan_at((3, 2), (2, 1))], ValueError,
        r"sequence 1 contains NaN at step 2 \(feature 1\)"),
    "list with a trailing NaN row": (
        [np.ones((2, 2)), _nan_at((2, 2), (1, slice(None)))], ValueError,
        r"sequence 1 contains NaN at step 1"),
    "2-D with NaN": (
        _nan_at((4, 2), (2, 0)), ValueError, r"sequence 2 contains NaN at step 0"),
    "list with inf": (
        [np.ones((2, 1)), np.array([[0.0], [inf]])], ValueError,
        r"sequence 1 contains inf at step 1"),
    "3-D with -inf": (
        _padded([[[1.0], [2.0]], [[-inf]]]), ValueError,
        r"sequence 1 contains -inf at step 0"),
    "None in an object array": (
        [np.ones((2, 2)), np.array([[1.0, None]], dtype=object)], ValueError,
        r"sequence 1 contains NaN at step 0 \(feature 1\).*None"),
    "masked entry": (
        np.ma.array(np.ones((3, 2)), mask=[[0, 0], [0, 1], [0, 0]]), ValueError,
        r"sequence 1 contains NaN at step 0 \(feature 1\)"),
    "sequence with 0 steps": (
        [np.ones((2, 1)), np.zeros((0, 1))], ValueError,
        r"sequence 1 is empty \(0 steps\)"),
    "1-D sequence with 0 steps": (
        [np.ones(2), np.ones(3), []], ValueError, r"sequence 2 is empty \(0 steps\)"),
    "3-D all-NaN sequence": (
        _padded([[[1.0], [2.0]], [[nan]]]), ValueError,
        r"sequence 1 is empty \(every step is NaN padding\)"),
    "empty list": ([], ValueError, r"X is empty: 0 sequences"),
    "empty tuple": ((), ValueError, r"X is empty: 0 sequences"),
    "shape (0, 3)": (np.zeros((0, 3)), ValueError, r"0 sequence\(s\) \(shape=\(0, 3\)"),
    "shape (0, 5, 2)": (np.zeros((0, 5, 2)), ValueError, r"0 sequence\(s\)"),
    "shape (2, 0, 2)": (np.zeros((2, 0, 2)), ValueError, r"every sequence is empty"),
    "2-D with 0 features": (np.zeros((3, 0)), ValueError, r"0 feature\(s\)"),
    "3-D with 0 features": (np.zeros((2, 3, 0)), ValueError, r"0 feature\(s\)"),
    "list with 0 features": ([np.zeros((2, 0))], ValueError, r"0 feature\(s\)"),
    "different numbers of features": (
        [np.ones((2, 2)), np.ones((3, 2)), np.ones((2, 3))], ValueError,
        r"sequence 2 has 3 features but sequence 0 has 2"),
    "1-D item among 2-D items": (
        [np.ones(3), np.ones((2, 2))], ValueError,
        r"sequence 1 has 2 features but sequence 0 has 1 \(a 1-D array is a "
        r"univariate sequence"),
    "string features": (
        [np.array([["a", "b"]])], ValueError,
        r"sequence 0 has non-numeric features \(dtype <U1\).*OneHotEncoder"),
    "numeric strings": (np.array([["1", "2"]]), ValueError, r"non-numeric features"),
    "string in an object array": (
        [np.ones((2, 2)), np.array([[1, 2], [3, "x"]], dtype=object)], ValueError,
        r"sequence 1, step 1, feature 1 holds the string 'x'"),
    "string in a DataFrame": (
        pd.DataFrame({"a": [1.0, 2.0], "b": [1.0, "x"]}), ValueError,
        r"sequence 1, feature 1 holds the string 'x'"),
    "dict feature": (
        [[[1.0, 2.0], [{"a": 1}, 3.0]]], TypeError,
        r"sequence 0, step 1, feature 0 holds \{'a': 1\}: float\(\) argument must "
        r"be a string or a real number"),
    "date features": (
        np.array([["2020-01-01"]], dtype="datetime64[D]"), ValueError,
        r"non-numeric features \(dtype datetime64"),
    "integer too large for float64": (
        [[[1], [2**1100]]], ValueError, r"sequence 0, step 1, feature 0 holds .* too "
        r"large for float64"),
    "complex array": (np.ones((2, 2)) * 1j, ValueError, r"Complex data not supported"),
    "complex sequence": (
        [np.ones((2, 1)), np.array([[1 + 2j]])], ValueError,
        r"sequence 1: Complex data not supported"),
    "complex in an object array": (
        np.array([[1.0, 1j]], dtype=object), ValueError,
        r"sequence 0, feature 1 holds a complex number"),
    "sparse matrix": (sparse.csr_matrix(np.ones((2, 2))), TypeError, r"X: sparse"),
    "list of sparse matrices": (
        [np.ones((2, 2)), sparse.csr_matrix(np.ones((2, 2)))], TypeError,
        r"X: sequence 1: sparse"),
    "1-D array": (np.arange(3.0), ValueError, r"Expected 2D array, got 1D array"),
    "1-D list": ([1.0, 2.0, 3.0], ValueError, r"got 1D array.*\[x\]"),
    "pandas Series": (pd.Series([1.0, 2.0]), ValueError, r"got 1D array"),
    "4-D array": (np.zeros((2, 2, 2, 1)), ValueError, r"Found array with dim 4"),
    "5-D array": (np.zeros((1, 1, 1, 1, 1)), ValueError, r"Found array with dim 5"),
    "list of 3-D items": (
        [np.ones((2, 2)), np.ones((2, 2, 2))], ValueError,
        r"sequence 1 has 3 dimensions"),
    "scalar": (3.0, ValueError, r"got 0D array"),
    "scalar among sequences": (
        [np.ones((2, 1)), 3.0], ValueError, r"sequence 1 is a single value"),
    "None": (None, TypeError, r"X is None"),
    "None among sequences": ([np.ones((2, 1)), None], TypeError, r"sequence 1 is None"),
    "dict": ({"a": np.ones((2, 2))}, TypeError, r"X is a dict"),
    "set": ({1.0, 2.0}, TypeError, r"X is a set"),
    "string": ("abc", TypeError, r"X is a str"),
    "generator": (_gen(), TypeError, r"X is a generator.*list"),
    "iterator": (iter([np.ones((2, 1))]), TypeError, r"X is a list_iterator.*list"),
    "ragged steps in a nested list": (
        [[[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [3.0]]], ValueError,
        r"sequence 1, step 1 has 1 features but step 0 has 2 features"),
    "ragged rows of a table": (
        [[1.0, 2.0], [3.0, 4.0], [5.0]], ValueError,
        r"sequence 2 has 1 features but sequence 0 has 2 features\. A list of "
        r"flat Python lists is read as a table.*\[np\.asarray\(s\) for s in X\]"),
    "univariate series as lists of different lengths": (
        [[0.1, 0.2, 0.3], [0.5, 0.4]], ValueError,
        r"sequence 1 has 2 features but sequence 0 has 3 features\. .*for "
        r"univariate sequences of these lengths pass \[np\.asarray\(s\) for s in X\]"),
}


@pytest.mark.parametrize("case", BAD_X)
def test_malformed_X_is_rejected_naming_what_and_where(case):
    X, error, match = BAD_X[case]
    with pytest.raises(error, match=match):
        check_sequences(X)


@pytest.mark.parametrize("case", ["3-D NaN row in the middle", "list with NaN",
                                  "empty list", "sparse matrix", "generator",
                                  "different numbers of features", "dict feature"])
@pytest.mark.parametrize("make", [_iohmm, _rnn])
def test_estimators_reject_malformed_X_with_the_same_message(case, make):
    X, error, match = BAD_X[case]
    if case == "generator":
        X = _gen()
    n = len(X) if isinstance(X, list) else 2
    with pytest.raises(error, match=match):
        make().fit(X, np.arange(n) % 2)


def _packed(X):
    seqs = check_sequences(X)
    return seqs.data, seqs.offsets, seqs.form


# (X, expected data, expected offsets, expected form)
GOOD_X = {
    "booleans as 0/1": (
        np.array([[True, False], [False, True]]), [[1, 0], [0, 1]], [0, 1, 2], "rows"),
    "boolean sequences": (
        [np.array([True, False]), np.array([True])], [[1], [0], [1]], [0, 2, 3],
        "list"),
    "integers": (np.array([[1, 2], [3, 4]]), [[1, 2], [3, 4]], [0, 1, 2], "rows"),
    "Decimal and Fraction": (
        [[decimal.Decimal("1.5"), fractions.Fraction(1, 4)]], [[1.5, 0.25]], [0, 1],
        "rows"),
    "table as nested lists": ([[1, 2], [3, 4]], [[1, 2], [3, 4]], [0, 1, 2], "rows"),
    "sequences as nested lists": (
        [[[1, 2], [3, 4]], [[5, 6]]], [[1, 2], [3, 4], [5, 6]], [0, 2, 3], "list"),
    "1-D object array of sequences": (
        np.array([np.ones((2, 1)), np.zeros((1, 1))], dtype=object),
        [[1], [1], [0]], [0, 2, 3], "list"),
    "DataFrame": (
        pd.DataFrame({"a": [1.0, 2.0], "b": [3, 4]}), [[1, 3], [2, 4]], [0, 1, 2],
        "rows"),
    "list of DataFrames": (
        [pd.DataFrame({"a": [1.0, 2.0]}), pd.DataFrame({"a": [3.0]})],
        [[1], [2], [3]], [0, 2, 3], "list"),
    "3-D padded": (
        _padded([[[1.0], [2.0]], [[3.0]]]), [[1], [2], [3]], [0, 2, 3], "padded"),
    "masked trailing rows are padding": (
        np.ma.array([[[1.0], [2.0]], [[3.0], [9.0]]], mask=[[[0], [0]], [[0], [1]]]),
        [[1], [2], [3]], [0, 2, 3], "padded"),
}


@pytest.mark.parametrize("case", GOOD_X)
def test_accepted_forms_pack_as_documented(case):
    X, data, offsets, form = GOOD_X[case]
    seqs = check_sequences(X)
    assert seqs.data.dtype == np.float64 and seqs.data.flags.c_contiguous
    assert_array_equal(seqs.data, np.array(data, dtype=float))
    assert_array_equal(seqs.offsets, offsets)
    assert seqs.form == form


def _fitted(est):
    """Deep copy of every public fitted attribute."""
    return fitted_state(est, public_only=True, deep=True)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, bool, "object"])
def test_other_numeric_dtypes_give_identical_fits(dtype):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(8, 4, 2)).astype(float)  # exact in every dtype
    y = np.arange(8) % 2
    ref = _iohmm().fit(X, y)
    est = _iohmm().fit(X.astype(dtype), y)
    assert_same_state(_fitted(est), _fitted(ref))
    assert_array_equal(est.predict_proba(X.astype(dtype)), ref.predict_proba(X))


def test_padded_list_and_univariate_forms_give_identical_fits():
    rng = np.random.default_rng(1)
    X_1d = [rng.normal(size=k) for k in (3, 1, 5, 2, 4, 2)]
    X_list = [x[:, None] for x in X_1d]
    X_pad = np.full((6, 5, 1), nan)
    for s, x in enumerate(X_1d):
        X_pad[s, : x.size, 0] = x
    y = np.array([0, 1, 1, 0, 1, 0])
    fits = [_iohmm(n_states=3, max_iter=10).fit(X, y) for X in (X_pad, X_list, X_1d)]
    for est, X in zip(fits[1:], (X_list, X_1d), strict=True):
        assert_same_state(_fitted(est), _fitted(fits[0]))
        assert_array_equal(est.predict_proba(X), fits[0].predict_proba(X_pad))
        for s, states in enumerate(est.predict_state_proba(X)):
            assert_array_equal(states,
                               fits[0].predict_state_proba(X_pad)[s, : len(X_1d[s])])


def test_dataframe_is_a_table_with_feature_names():
    X = pd.DataFrame({"u": [0.0, 1.0, 2.0, 3.0], "v": [1.0, 0.0, 1.0, 0.0]})
    y = [0, 1, 0, 1]
    est = _iohmm().fit(X, y)
    assert_array_equal(est.feature_names_in_, ["u", "v"])
    ref = _iohmm().fit(X.to_numpy(), y)
    assert_same_state(
        {k: v for k, v in _fitted(est).items() if k != "feature_names_in_"},
        _fitted(ref))
    with pytest.raises(ValueError, match="feature names"):
        est.predict(X.rename(columns={"u": "w"}))


PREDICT_METHODS = ["predict", "predict_proba", "predict_log_proba",
                   "predict_state_proba", "decode", "score_samples"]


@pytest.mark.parametrize("method", PREDICT_METHODS + ["score"])
def test_predict_time_features_must_match_fit(method):
    X, y = _data()
    est = _iohmm().fit(X, y)
    X3, _ = _data(n_features=3)
    args = (X3, y) if method == "score" else (X3,)
    msg = "X has 3 features, but IOHMMClassifier is expecting 2 features as input."
    with pytest.raises(ValueError, match=re.escape(msg)):
        getattr(est, method)(*args)


def test_rnn_predict_time_features_must_match_fit():
    X, y = _data()
    est = _rnn().fit(X, y)
    with pytest.raises(ValueError, match="X has 1 features, but DiscretizedRNN"):
        est.predict([np.ones(3)])


@pytest.mark.parametrize("method", PREDICT_METHODS + ["score"])
def test_iohmm_calls_before_fit_raise_not_fitted(method):
    X, y = _data()
    args = (X, y) if method == "score" else (X,)
    with pytest.raises(NotFittedError, match="not fitted yet"):
        getattr(_iohmm(), method)(*args)


@pytest.mark.parametrize("method", ["predict", "predict_proba", "predict_log_proba",
                                    "score", "extract_automaton"])
def test_rnn_calls_before_fit_raise_not_fitted(method):
    X, y = _data()
    args = {"score": (X, y), "extract_automaton": ()}.get(method, (X,))
    with pytest.raises(NotFittedError, match="not fitted yet"):
        getattr(_rnn(), method)(*args)


def _step_labels(lengths, missing=None):
    return [np.array(["a", "b", missing, "a", "b"][:k], dtype=object)
            for k in lengths]


LENGTHS = [3, 1, 4, 2, 5, 2]
BAD_Y = {
    "too few targets": (
        ["a", "b", "a", "b", "a"], ValueError, r"X has 6 sequences but y has 5"),
    "None": (None, ValueError, r"requires y to be passed"),
    "NaN label": ([0.0, 1.0, nan, 0.0, 1.0, 0.0], ValueError,
                  r"contains missing \(NaN, None or NaT\) labels: at sequence 2"),
    "None label": (["a", "b", None, "a", "b", "a"], ValueError,
                   r"contains missing \(NaN, None or NaT\) labels: at sequence 2"),
    "inf label": ([0.0, 1.0, 0.0, inf, 1.0, 0.0], ValueError,
                  r"contains infinity: at sequence 3"),
    "continuous": (np.linspace(0, 1, 6), ValueError,
                   r"Unknown label type: continuous\. y holds real numbers \(0\.2 "
                   r"at sequence 1\).*IOHMMRegressor, or HierarchicalIOHMM\("
                   r"task='regression'\)"),
    "two columns": (np.zeros((6, 2)), ValueError,
                    r"should be 1-D .* got shape \(6, 2\)"),
    "3-D": (np.zeros((6, 5, 1)), ValueError, r"y has shape \(6, 5, 1\)"),
    "strings mixed with numbers": (
        ["a", "b", 1, "a", "b", "a"], ValueError,
        r"mixes string and non-string labels: 'a' at sequence 0, 1 at sequence 2"),
    "one class": (["z"] * 6, ValueError, r"only one class: .*'z'"),
    "scalar": (3, ValueError, r"y has shape \(\)"),
    "string": ("aabbcc", TypeError, r"y is a str"),
    "dict": ({"a": 1}, TypeError, r"y is a dict"),
    "generator": ((v for v in range(6)), TypeError, r"y is a generator"),
    "sparse": (sparse.csr_matrix(np.ones((6, 1))), TypeError, r"y: sparse"),
    "complex": (np.ones(6) * 1j, ValueError, r"Complex data not supported"),
    "step targets of the wrong length": (
        [np.zeros(k if s != 3 else k + 1) for s, k in enumerate(LENGTHS)],
        ValueError, r"sequence 3 has 2 steps but 3 step targets"),
    "ragged step lists": (
        [[0, 1, 0], [1], [0, 1, 0, 1], [0, 1], [0, 1, 0], [1, 0]], ValueError,
        r"sequence 4 has 5 steps but 3 step targets"),
    "all steps missing": (
        [np.full(k, nan) for k in LENGTHS], ValueError, r"no step has a target"),
    "scalars mixed with arrays": (
        [0, np.zeros(1)] + [np.zeros(k) for k in LENGTHS[2:]], ValueError,
        r"mixes scalars and arrays: sequence 0 has one target but sequence 1"),
    "2-D step labels": (
        [np.zeros((k, 1)) for k in LENGTHS], ValueError,
        r"step labels of sequence 0 must be 1-D, got shape \(3, 1\)"),
    "inf step label": (
        [np.array([0.0, 1.0, inf])] + [np.zeros(k) for k in LENGTHS[1:]],
        ValueError, r"contains infinity: at sequence 0, step 2"),
    "step labels mixing strings and numbers": (
        [np.zeros(3, int), np.array(["a"])] + [np.zeros(k, int) for k in LENGTHS[2:]],
        ValueError, r"mixes string and numeric labels: sequence 1"),
    "continuous step labels": (
        [np.linspace(0, 1, k) for k in LENGTHS], ValueError,
        r"Unknown label type: continuous\. y holds real numbers \(0\.5 at "
        r"sequence 0, step 1\)"),
}


@pytest.mark.parametrize("case", BAD_Y)
def test_malformed_y_is_rejected(case):
    y, error, match = BAD_Y[case]
    X, _ = _data()
    with pytest.raises(error, match=match):
        _iohmm().fit(X, y)


def test_real_valued_labels_of_the_hierarchy_point_to_its_regression_task():
    """HierarchicalIOHMM classifies by default: real-valued y names task=."""
    X, _ = _data()
    with pytest.raises(ValueError, match=r"0\.4 at sequence 2.*"
                       r"HierarchicalIOHMM\(task='regression'\)"):
        HierarchicalIOHMM(n_states=(2, 2), n_init=1, max_iter=5).fit(
            X, [0.0, 1.0, 0.4, 2.0, 0.0, 1.0])


def test_column_vector_y_warns_and_fits_like_1d():
    X, y = _data()
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        est = _iohmm().fit(X, y[:, None])
    assert_same_state(_fitted(est), _fitted(_iohmm().fit(X, y)))


def test_object_array_of_integer_labels_fits_and_scores_like_integers():
    """One label per sequence in an object array of ints (a pandas object
    column), as step labels take them: the fit and score of the int array,
    not a refusal that calls them real numbers."""
    X, _ = _data()
    y = np.array([0, 1, 2, 0, 1, 2])
    est = _iohmm().fit(X, y.astype(object))
    assert est.classes_.dtype == np.int64
    assert_same_state(_fitted(est), _fitted(_iohmm().fit(X, y)))
    assert est.score(X, y.astype(object)) == est.score(X, y)


def test_step_labels_with_none_as_missing():
    X, _ = _data()
    y = _step_labels(LENGTHS)
    est = _iohmm().fit(X, y)
    assert est.step_level_
    assert_array_equal(est.classes_, ["a", "b"])
    pred = est.predict(X)
    assert [p.shape for p in pred] == [(k,) for k in LENGTHS]
    targets = check_targets(y, check_sequences(X), task="classification")
    # Step 2 of sequences 0, 2 and 4 (packed rows 2, 6, 12) is None: unsupervised.
    assert_array_equal(targets.steps, np.setdiff1d(np.arange(17), [2, 6, 12]))


def test_nat_labels_are_missing_like_nan():
    X, _ = _data()
    seqs = check_sequences(X)
    day = np.datetime64("2024-03-01", "D")
    nat = np.datetime64("NaT", "D")
    # step-level: step 1 of sequence 0 (packed row 1) has no label
    y = [np.full(k, day) for k in LENGTHS]
    y[0][1] = nat
    targets = check_targets(y, seqs, task="classification")
    assert_array_equal(targets.steps, np.setdiff1d(np.arange(17), [1]))
    assert not np.isnat(targets.values).any()
    # sequence-level: a NaT label is refused, naming the sequence
    y = np.full(len(LENGTHS), day)
    y[3] = nat
    with pytest.raises(ValueError, match="missing .*NaT.* labels: at sequence 3"):
        check_targets(y, seqs, task="classification")


def test_rnn_rejects_step_level_labels():
    X, _ = _data()
    with pytest.raises(ValueError, match="does not support step-level labels"):
        _rnn().fit(X, [np.zeros(k) for k in LENGTHS])


BAD_WEIGHT = {
    "wrong length": (np.ones(5), r"sample_weight.shape == \(5,\), expected \(6,\)"),
    "negative": ([1, 1, -1.0, 1, 1, 1], r"non-negative, got -1.0 for sequence 2"),
    "NaN": ([1, 1, 1, nan, 1, 1], r"finite and non-negative, got nan for sequence 3"),
    "inf": ([1, inf, 1, 1, 1, 1], r"got inf for sequence 1"),
    "all zero": (np.zeros(6), r"sums to zero"),
    "negative scalar": (-2.0, r"got -2.0 for sequence 0"),
    "2-D": (np.ones((6, 1)), r"sample_weight.shape == \(6, 1\)"),
    "strings": (["a"] * 6, r"sample_weight must be numeric"),
}


@pytest.mark.parametrize("case", BAD_WEIGHT)
@pytest.mark.parametrize("make", [_iohmm, _rnn])
def test_malformed_sample_weight_is_rejected(case, make):
    weight, match = BAD_WEIGHT[case]
    X, y = _data()
    with pytest.raises(ValueError, match=match):
        make().fit(X, y, sample_weight=weight)


def test_sparse_sample_weight_is_a_type_error():
    with pytest.raises(TypeError, match="sample_weight: sparse"):
        check_sample_weight(sparse.csr_matrix(np.ones((1, 3))), 3)


BAD_PARAMS = {
    "n_states=0": ({"n_states": 0}, r"'n_states' parameter"),
    "alpha<0": ({"alpha": -1.0}, r"'alpha' parameter"),
    "transition": ({"transition": "foo"}, r"'transition' parameter"),
    "topology shape": ({"topology": np.ones((3, 3), bool)},
                       r"topology mask has shape \(3, 3\), expected \(2, 2\)"),
    "topology dead state": ({"topology": np.array([[True, True], [False, False]])},
                            r"topology: state 1 has no allowed successor"),
    "topology values": ({"topology": np.array([[1, 0.5], [0, 1]])},
                        r"topology mask must be boolean"),
    "topology name": ({"topology": "foo"}, r"'topology' parameter"),
    "startprob length": ({"startprob": [1.0]},
                         r"startprob has shape \(1,\), expected \(2,\)"),
    "startprob sum": ({"startprob": [0.3, 0.3]},
                      r"startprob sums to 0\.6; .* sum to 1"),
    "startprob negative": ({"startprob": [1.5, -0.5]},
                           r"startprob\[1\] is -0\.5: .* non-negative"),
    "n_init=0": ({"n_init": 0}, r"'n_init' parameter"),
    "max_iter=0": ({"max_iter": 0}, r"'max_iter' parameter"),
    "tol<0": ({"tol": -1}, r"'tol' parameter"),
}


@pytest.mark.parametrize("case", BAD_PARAMS)
def test_invalid_parameters_name_the_parameter(case):
    params, match = BAD_PARAMS[case]
    X, y = _data()
    with pytest.raises(ValueError, match=match):
        _iohmm(**params).fit(X, y)


def _bad_fits(X, y, bad_params):
    """Calls of fit that must fail, one per kind of bad input."""
    X_nan = [x.copy() for x in X]
    X_nan[2][1, 0] = nan
    return {
        "X": lambda est: est.fit(X_nan, y),
        "y": lambda est: est.fit(X, y[:-1]),
        "sample_weight": lambda est: est.fit(X, y, sample_weight=-np.ones(len(y))),
        "params": lambda est: est.set_params(**bad_params).fit(X, y),
    }


@pytest.mark.parametrize("kind", ["X", "y", "sample_weight", "params"])
@pytest.mark.parametrize("make, bad_params", [
    (_iohmm, {"n_states": 0}),
    (_iohmm, {"topology": np.zeros((2, 2), bool)}),
    (_rnn, {"low": 0.9, "high": 0.1}),
])
def test_a_failed_fit_leaves_the_fitted_model_as_it_was(kind, make, bad_params):
    X, y = _data()
    est = make().fit(X, y)
    params, state, proba = est.get_params(), _fitted(est), est.predict_proba(X)
    with pytest.raises((ValueError, TypeError)):
        _bad_fits(X, y, bad_params)[kind](est)
    assert_same_state(_fitted(est), state)
    est.set_params(**params)  # predict reads the constructor parameters again
    assert_array_equal(est.predict_proba(X), proba)


def test_a_failed_warm_start_fit_leaves_the_model_as_it_was():
    X, y = _data()
    est = _iohmm(warm_start=True).fit(X, y)
    state = _fitted(est)
    with pytest.raises(ValueError, match="X has 6 sequences but y has 5"):
        est.fit(X, y[:-1])
    assert_same_state(_fitted(est), state)


# -- fuzzing --------------------------------------------------------------------
_values = st.one_of(st.floats(allow_nan=True, allow_infinity=True, width=64),
                    st.integers(-(2**70), 2**70), st.booleans(), st.none(),
                    st.text(max_size=2))
_nested = st.recursive(_values, lambda inner: st.lists(inner, max_size=4),
                       max_leaves=30)
_dtypes = st.sampled_from([np.float64, np.float32, np.int64, np.bool_, np.complex128])
_arrays = _dtypes.flatmap(lambda dtype: hnp.arrays(
    dtype, hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)))


@st.composite
def _padded_with_nan(draw):
    shape = draw(hnp.array_shapes(min_dims=3, max_dims=3, min_side=1, max_side=4))
    X = draw(hnp.arrays(np.float64, shape,
                        elements=st.floats(-1e3, 1e3, allow_nan=False)))
    rows = draw(hnp.arrays(bool, shape[:2]))  # whole NaN rows, anywhere
    cells = draw(hnp.arrays(bool, shape))  # single NaN cells
    X[rows] = nan
    X[cells & draw(st.booleans())] = nan
    return X


@st.composite
def _ragged_lists(draw):
    """Mostly valid lists of (len_i, n_features) arrays, some 1-D or bad."""
    n_features = draw(st.integers(1, 3))
    shapes = st.tuples(st.integers(0, 4), st.sampled_from([n_features] * 4 + [1, 2]))
    finite = draw(st.booleans())
    floats = st.floats(-1e6, 1e6) if finite else st.floats()
    items = st.one_of(hnp.arrays(np.float64, shapes, elements=floats),
                      _dtypes.flatmap(lambda dtype: hnp.arrays(dtype, shapes)),
                      hnp.arrays(np.float64, st.integers(0, 3), elements=floats))
    return draw(st.lists(items, min_size=1, max_size=4))


_containers = st.one_of(
    _arrays, _nested, _padded_with_nan(), _ragged_lists(),
    st.lists(st.one_of(_arrays, _nested), max_size=4),
    st.tuples(_arrays, _arrays),
)


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(_containers)
def test_fuzz_check_sequences_packs_consistently_or_raises_clearly(X):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy warning may escape either
        try:
            seqs = check_sequences(X)
        except (ValueError, TypeError):
            return
    offsets = seqs.offsets
    assert offsets[0] == 0 and np.all(np.diff(offsets) >= 1)
    assert seqs.data.shape[0] == offsets[-1]
    assert seqs.data.ndim == 2 and seqs.data.shape[1] >= 1
    assert seqs.data.dtype == np.float64 and seqs.data.flags.c_contiguous
    assert np.isfinite(seqs.data).all()
    assert seqs.form in ("padded", "list", "rows")


# -- layouts that look mistaken, ambiguous y, weights against alpha ------------
# Common input mistakes: each is caught, warned about, or documented.
#
# * A model fitted on multi-step sequences that receives a 2-D table reads it as
#   one-step sequences: it warns, and says how to pass one sequence.
# * A list of equal-length Python lists is a table (as scikit-learn reads
#   ``X.tolist()``), while a list of 1-D arrays is a list of univariate sequences.
# * A 2-D y as wide as every sequence is long is refused by the classifier and the
#   regressor alike (step-level or multi-output?).
# * Sample weights tiny against ``alpha`` are refused, naming the real cause.



ESTIMATORS = {
    "classifier": SHARED["clf"],
    "regressor": SHARED["reg"],
    "hierarchical": fast(HierarchicalIOHMM, n_states=(2, 2)),
    "rnn": SHARED["rnn"],
}
TRANSFORMERS = {
    "Stepwise": lambda: Stepwise(StandardScaler()),
    "WindowMean": lambda: WindowMean(window=2),
    "SequenceFeatures": lambda: SequenceFeatures(),
}


def _sequences(n=8, length=6, n_features=2, seed=0):
    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(length, n_features)) for _ in range(n)]
    y_class = np.arange(n) % 2
    y_reg = np.array([x[:, 0].sum() for x in X])
    return X, y_class, y_reg


def _fit(name, X, y_class, y_reg):
    est = ESTIMATORS[name]()
    return est.fit(X, y_reg if name == "regressor" else y_class)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_a_2d_table_after_a_multistep_fit_warns_and_says_how_to_pass_one_sequence(
        name):
    X, y_class, y_reg = _sequences()
    est = _fit(name, X, y_class, y_reg)
    one = X[0]  # one (6, 2) sequence, forgotten in a list
    message = (f"X is a 2-D table (6 rows of 2 features): each row is read as a "
               f"sequence of ONE step, but this {type(est).__name__} was fitted on "
               "sequences of up to 6 steps. For one sequence of 6 steps pass [X]")
    with pytest.warns(UserWarning, match=re.escape(message)) as record:
        pred = est.predict(one)
    assert record[0].filename == __file__  # points at the caller's line
    # What it does is what it says: six one-step sequences ...
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_array_equal(pred, est.predict(one[:, None, :]))
        # ... and the advice gives one prediction for the sequence.
        assert np.shape(est.predict([one]))[0] == 1


@pytest.mark.parametrize("name", TRANSFORMERS)
def test_transformers_warn_the_same_way(name):
    X, _, _ = _sequences()
    tr = TRANSFORMERS[name]().fit(X)
    with pytest.warns(UserWarning, match=re.escape(
            f"this {type(tr).__name__} was fitted on sequences of up to 6 steps. "
            "For one sequence of 6 steps pass [X]")):
        tr.transform(X[0])


@pytest.mark.parametrize("name", ESTIMATORS)
def test_no_warning_for_models_fitted_on_one_step_rows(name):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(10, 3))
    y_class, y_reg = np.arange(10) % 2, X[:, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = _fit(name, X, y_class, y_reg)
        est.predict(X[:4])
        est.score(X, y_reg if name == "regressor" else y_class)


def test_no_warning_for_sequences_in_a_list_or_padded():
    X, y_class, _ = _sequences()
    est = ESTIMATORS["classifier"]().fit(X, y_class)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        est.predict(X[:2])
        est.predict(np.stack(X[:2]))
        est.predict_state_proba([X[0]])


def test_a_univariate_table_gets_the_fix_in_the_feature_count_error():
    # A model fitted on univariate sequences of 6 steps, then the archive's
    # (n_series, length) table: 6 "features" instead of 1.
    X, y_class, _ = _sequences(n_features=1)
    est = ESTIMATORS["classifier"]().fit(X, y_class)
    table = np.stack(X)[:, :, 0]
    with pytest.raises(ValueError, match=re.escape(
            "X has 6 features, but IOHMMClassifier is expecting 1 features as "
            "input. X is a 2-D table (8 rows of 6 features)")) as info:
        est.predict(table)
    assert "For 8 univariate series of 6 steps pass X[:, :, None]" in str(info.value)
    assert_array_equal(est.predict(table[:, :, None]), est.predict(X))
    # the same table as a list of Python lists: the forms the hint names must
    # be ones a list can take
    rows = table.tolist()
    with pytest.raises(ValueError) as info:
        est.predict(rows)
    hint = "pass np.asarray(X)[:, :, None] (or skseq.utils.from_channels_first(X))"
    assert hint in str(info.value)
    assert "pass np.asarray(X)[:, None, :]" in str(info.value)
    assert_array_equal(est.predict(np.asarray(rows)[:, :, None]), est.predict(X))


def test_a_list_of_python_lists_is_a_table_but_a_list_of_arrays_is_sequences():
    rows = [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    table = check_sequences(rows)
    assert table.form == "rows" and table.n_features == 3
    assert_array_equal(table.lengths, [1, 1])
    univariate = check_sequences([np.array(r) for r in rows])
    assert univariate.form == "list" and univariate.n_features == 1
    assert_array_equal(univariate.lengths, [3, 3])
    # Fitted on univariate sequences, the lists are a table of 3 features: the
    # error says so and gives the fix.
    X, y_class, _ = _sequences(n=4, length=3, n_features=1)
    est = ESTIMATORS["classifier"]().fit(X, y_class)
    with pytest.raises(ValueError, match="For 2 univariate series of 3 steps"):
        est.predict(rows)
    assert est.predict([np.array(r) for r in rows]).shape == (2,)


# -- one rule for a 2-D y ---------------------------------------------------------
@pytest.mark.parametrize("task, make", [
    ("classification", ESTIMATORS["classifier"]),
    ("regression", ESTIMATORS["regressor"]),
    ("regression", lambda: HierarchicalIOHMM(n_states=(2, 2), task="regression",
                                             **FAST)),
])
def test_a_2d_y_as_wide_as_the_sequences_are_long_is_refused(task, make):
    X, _, _ = _sequences(n=8, length=6)
    y = np.random.default_rng(0).integers(0, 2, size=(8, 6))
    start = ("y has shape (8, 6) and every sequence of X has 6 steps: a 2-D y of "
             "that width is ambiguous (one target per step, or 6 targets per "
             "sequence?), so skseq refuses to guess. For step-level targets pass "
             "list(y)")
    with pytest.raises(ValueError, match=re.escape(start)) as info:
        make().fit(X, y)
    assert ("y[:, :, None]" in str(info.value)) == (task == "regression")
    with pytest.raises(ValueError, match=re.escape(start)):
        check_targets(y, check_sequences(X), task=task)
    make().fit(X, list(y))  # the advice works
    if task == "regression":
        make().fit(X, y[:, :, None].astype(float))


def test_the_advice_for_sequence_level_outputs_gives_the_same_fit():
    # Width 3 != length 4 is not ambiguous: compare the documented workaround
    # (last step supervised explicitly) with genuine multi-output targets.
    rng = np.random.default_rng(2)
    X = [rng.normal(size=(4, 2)) for _ in range(10)]
    Y = rng.normal(size=(10, 3))
    Y_steps = np.full((10, 4, 3), np.nan)
    Y_steps[:, -1] = Y
    sequence_level = ESTIMATORS["regressor"]().fit(X, Y)
    last_step = ESTIMATORS["regressor"]().fit(X, Y_steps)
    assert not sequence_level.step_level_ and last_step.step_level_
    assert_allclose(last_step.predict(np.stack(X))[:, -1],
                    sequence_level.predict(X), rtol=1e-10, atol=1e-12)


def test_2d_y_stays_sequence_level_when_not_ambiguous():
    X, _, _ = _sequences(n=8, length=6)
    Y = np.random.default_rng(0).normal(size=(8, 2))
    assert ESTIMATORS["regressor"]().fit(X, Y).predict(X).shape == (8, 2)
    ragged = [x[: 6 - (i % 2)] for i, x in enumerate(X)]  # lengths 6 and 5
    assert ESTIMATORS["regressor"]().fit(ragged, np.ones((8, 6)) * np.arange(
        8)[:, None]).predict(ragged).shape == (8, 6)
    # One-step rows with a 2-D y: scikit-learn's multi-output meaning.
    rows = np.random.default_rng(1).normal(size=(8, 3))
    assert ESTIMATORS["regressor"]().fit(rows, Y).predict(rows).shape == (8, 2)
    with pytest.raises(ValueError, match=r"y should be 1-D \(one label per"):
        ESTIMATORS["classifier"]().fit(X, np.zeros((8, 2)))


# -- sample weights against alpha --------------------------------------------------
def test_tiny_weights_against_alpha_name_the_real_cause():
    with pytest.raises(ValueError, match=re.escape(
            "sample_weight sums to 2e-199 while alpha=0.01: the L2 penalty is "
            "weighed against the log-likelihood summed over the sequences with "
            "these weights, so it outweighs the data by a factor 5e+196")):
        check_sample_weight(np.full(20, 1e-200), 20, alpha=0.01)
    # alpha=0: only the weights' ratios matter, any scale is fine.
    assert_array_equal(check_sample_weight(np.full(20, 1e-200), 20, alpha=0.0),
                       np.full(20, 1e-200))
    # At 1e-90 the penalty still loses to the limit by 8 orders of magnitude.
    check_sample_weight(np.full(20, 1e-90), 20, alpha=0.01)
    # A huge alpha with unit weights is the same problem.
    with pytest.raises(ValueError, match=re.escape(
            "sums to 20 (1 per sequence, the default) while alpha=1e+102")):
        check_sample_weight(None, 20, alpha=1e102)


@pytest.mark.parametrize("Estimator", [IOHMMClassifier, IOHMMRegressor,
                                       HierarchicalIOHMM])
def test_tiny_weights_are_refused_by_every_iohmm_with_the_real_cause(Estimator):
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(4, 2)) for _ in range(12)]
    y = (np.arange(12) % 2 if Estimator is not IOHMMRegressor
         else rng.normal(size=12))
    est = Estimator(n_init=1, max_iter=5)
    with pytest.raises(ValueError, match="outweighs the data by a factor"):
        est.fit(X, y, sample_weight=np.full(12, 1e-200))
    assert not hasattr(est, "n_features_in_")  # nothing recorded by a failed fit


def _walks(shape, seed=0):
    return np.cumsum(np.random.default_rng(seed).normal(size=shape), axis=-1)


@pytest.mark.parametrize("make, says", [
    (lambda X: X, "from_channels_first(X) (or X[:, :, None])"),  # smooth columns
    (lambda X: X[:6], "6 univariate series of 40 steps"),  # more columns than rows
    (lambda X: X.tolist(), "[np.asarray(s) for s in X]"),
])
def test_a_table_of_series_warns_at_fit_and_says_how_to_pass_it(make, says):
    X = make(_walks((30, 40)))
    with pytest.warns(InputHintWarning, match=re.escape(says)):
        IOHMMClassifier(2, n_init=1, max_iter=3).fit(X, np.arange(len(X)) % 2)
    # the public class silences the hint, and nothing else warns
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", InputHintWarning)
        IOHMMClassifier(2, n_init=1, max_iter=3).fit(X, np.arange(len(X)) % 2)


def test_channels_first_array_warns_at_fit():
    X = _walks((10, 3, 40))
    with pytest.warns(InputHintWarning, match=re.escape("X.transpose(0, 2, 1)")):
        IOHMMClassifier(2, n_init=1, max_iter=3).fit(X, np.arange(10) % 2)


@pytest.mark.parametrize("n_channels", [1, 3])
def test_channels_first_array_at_predict_says_how_to_pass_it(n_channels):
    """A model fitted on series refuses their channels-first array at predict
    (its steps read as features) and says how to pass it."""
    X = _walks((8, 12, n_channels))
    clf = IOHMMClassifier(2, features="raw", n_init=1, max_iter=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, np.arange(8) % 2)
    with pytest.raises(ValueError, match=re.escape("from_channels_first(X)")):
        clf.predict(X.transpose(0, 2, 1))


def test_unambiguous_layouts_fit_silently():
    """One-step rows said explicitly, tables of unrelated columns, narrow
    lists of lists and sequences with more steps than features."""
    rng = np.random.default_rng(0)
    y = np.arange(30) % 2
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        for X in (_walks((30, 40))[:, None, :], rng.normal(size=(30, 12)),
                  rng.normal(size=(30, 5)).tolist(), _walks((30, 40, 3), 1)):
            IOHMMClassifier(2, n_init=1, max_iter=3).fit(X, y)


def test_the_advice_for_symbol_steps_works_as_written():
    # the message names the pipeline that reads steps of symbols; following it
    # on the same strings gives a fit, not the same error
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    from skseq import IOHMMClassifier
    from skseq.preprocessing import Stepwise

    words = [np.array(list(w)) for w in ("abca", "bba", "abc", "cab")]
    advice = ("X: sequence 0 has non-numeric features (dtype <U1); encode them as "
              "numbers first, e.g. one-hot in a pipeline: make_pipeline(Stepwise("
              "OneHotEncoder()), IOHMMClassifier()).")
    with pytest.raises(ValueError) as info:
        IOHMMClassifier().fit(words, [0, 1, 0, 1])
    assert str(info.value) == advice
    pipe = make_pipeline(Stepwise(OneHotEncoder()),
                         IOHMMClassifier(random_state=0, max_iter=5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        pipe.fit(words, [0, 1, 0, 1])
    out = pipe[0].transform(words)
    assert [o.shape for o in out] == [(4, 3), (3, 3), (3, 3), (3, 3)]
    assert np.array_equal(out[1], np.eye(3)[[1, 1, 0]])  # "bba"


@pytest.mark.parametrize("X, match", [
    # a ragged list of flat lists of strings: read as a table, and the advice
    # for univariate symbol sequences goes on to their encoding
    ([["a", "b", "c"], ["d"]], r"for univariate sequences of these lengths pass "
     r"\[np\.asarray\(s\) for s in X\]\. Then, for symbols: encode them as "
     r"numbers first, e\.g\. one-hot in a pipeline: make_pipeline\(Stepwise\("
     r"OneHotEncoder\(\)\), IOHMMClassifier\(\)\)\.$"),
    (np.array([["2020-01-01"]], dtype="datetime64[D]"),
     r"non-numeric features \(dtype datetime64\[D\]\); dates and durations are "
     r"not numeric: convert them to numbers first"),
    ([np.array(["a", "b"], dtype=object)], r"sequence 0, step 0 holds "
     r"the string 'a', which is not numeric; encode them as numbers first"),
    # numpy's variable-width strings: refused as strings are, not with
    # numpy's "could not convert string to float"
    ([np.array(["a", "b"], dtype=np.dtypes.StringDType())], r"X: sequence 0 "
     r"has non-numeric features \(dtype StringDType\(\)\); encode them"),
])
def test_symbols_given_to_an_estimator_are_refused_with_advice(X, match):
    from skseq import IOHMMClassifier

    with pytest.raises(ValueError, match=match):
        IOHMMClassifier().fit(X, np.arange(len(X)) % 2)


def _with_long_unread(lengths, n_unread=3, unread_length=60):
    """Univariate sequences of ``lengths`` (weight 1, labels alternating) and
    ``n_unread`` longer ones of weight 0."""
    rng = np.random.RandomState(0)
    all_lengths = [*lengths, *[unread_length] * n_unread]
    X = [rng.normal(size=(n, 1)) for n in all_lengths]
    y = np.arange(len(all_lengths)) % 2
    weight = np.r_[np.ones(len(lengths)), np.zeros(n_unread)]
    return X, y, weight


def test_fit_lengths_ignore_sequences_of_weight_0():
    # The predict-time hints compare with the training lengths; sequences of
    # weight 0, which the fit does not read, warned of "much shorter"
    # sequences (median 60 at fit) and read a 2-D table as a mistake.
    X, y, weight = _with_long_unread([3, 5, 7])
    model = IOHMMClassifier(n_states=2, **FAST).fit(X, y, sample_weight=weight)
    assert (model._max_fit_length, model._median_fit_length) == (7, 5.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.predict([np.ones((1, 1)), np.ones((2, 1))])
    X, y, weight = _with_long_unread([1, 1, 1, 1])
    model = IOHMMClassifier(n_states=2, **FAST).fit(X, y, sample_weight=weight)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.predict(np.ones((3, 1)))  # one-step rows, as fitted
    # a class of weight 0 leaves its sequences out as well (labels 0, 1, 0, 1, 0)
    X, y, _ = _with_long_unread([3, 8, 5], n_unread=2)
    model = IOHMMClassifier(n_states=2, class_weight={0: 1.0, 1: 0.0}, **FAST)
    model.fit(X[:4], y[:4])
    assert (model._max_fit_length, model._median_fit_length) == (5, 4.0)


def test_prefix_fit_lengths_ignore_sequences_of_weight_0():
    # n_prefixes=2 cuts a sequence of T steps at ceil(T / 2) and T: shortest
    # prefixes 2 and 3 for T = 4 and 6, whose median is 2.5
    X, y, weight = _with_long_unread([4, 6])
    model = IOHMMClassifier(n_states=2, n_prefixes=2, **FAST)
    model.fit(X, y, sample_weight=weight)
    assert (model._max_fit_length, model._median_fit_length) == (6, 2.5)


def test_rnn_fit_lengths_ignore_sequences_of_weight_0():
    # the net's loss gives a sequence of weight 0 a share of 0
    X, y, weight = _with_long_unread([3, 5, 7])
    model = DiscretizedRNNClassifier(n_init=1, max_iter=2, random_state=0)
    model.fit(X, y, sample_weight=weight)
    assert (model._max_fit_length, model._median_fit_length) == (7, 5.0)


@pytest.mark.parametrize("record", [True, False])
def test_validate_sequences_records_the_lengths_unless_told(record):
    est = BaseEstimator()
    X = [np.zeros((n, 1)) for n in (2, 3, 9)]
    validate_sequences(est, X, reset=True, record_lengths=record)
    assert est.__dict__.get("_max_fit_length") == (9 if record else None)
    assert est.__dict__.get("_median_fit_length") == (3.0 if record else None)
