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
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.testing import assert_array_equal
from scipy import sparse
from sklearn.exceptions import DataConversionWarning, NotFittedError

from skseq import DiscretizedRNNClassifier, IOHMMClassifier
from skseq._data import check_sample_weight, check_sequences, check_targets

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
        r"sequence 2 has 1 features but sequence 0 has 2 features"),
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
                  r"contains NaN \(or None\) labels: at sequence 2"),
    "None label": (["a", "b", None, "a", "b", "a"], ValueError,
                   r"contains NaN \(or None\) labels: at sequence 2"),
    "inf label": ([0.0, 1.0, 0.0, inf, 1.0, 0.0], ValueError,
                  r"contains infinity: at sequence 3"),
    "continuous": (np.linspace(0, 1, 6), ValueError, r"Unknown label type"),
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
        [np.linspace(0, 1, k) for k in LENGTHS], ValueError, r"Unknown label type"),
}


@pytest.mark.parametrize("case", BAD_Y)
def test_malformed_y_is_rejected(case):
    y, error, match = BAD_Y[case]
    X, _ = _data()
    with pytest.raises(error, match=match):
        _iohmm().fit(X, y)


def test_column_vector_y_warns_and_fits_like_1d():
    X, y = _data()
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        est = _iohmm().fit(X, y[:, None])
    assert_same_state(_fitted(est), _fitted(_iohmm().fit(X, y)))


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
    "startprob sum": ({"startprob": [0.3, 0.3]}, r"startprob must .* sum to 1"),
    "startprob negative": ({"startprob": [1.5, -0.5]}, r"startprob must be non-neg"),
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

