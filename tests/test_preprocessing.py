"""Stepwise (a 2-D transformer applied to every step, the sequence form
kept), WindowMean and SequenceFeatures."""

import copy
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from _preprocessing_helpers import _ragged
from joblib import parallel_config
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.decomposition import PCA
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import (
    FunctionTransformer,
    OneHotEncoder,
    StandardScaler,
)

from skseq import IOHMMClassifier
from skseq.preprocessing import (
    DilatedConvolution,
    RunningPooling,
    SequenceFeatures,
    SequenceUnion,
    Stepwise,
    WindowMean,
)
from skseq.utils import to_padded

nan = np.nan


def _list(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.normal(loc=3.0, scale=2.0, size=(k, 2)) for k in (3, 1, 4, 2)]


def _by_hand(X_list):
    """Pooled standardisation: mean and std over all steps of all sequences."""
    steps = np.concatenate(X_list)
    mean, std = steps.mean(axis=0), steps.std(axis=0)
    return [(x - mean) / std for x in X_list]


def test_list_in_list_out_equals_pooled_scaling():
    X = _list()
    out = Stepwise(StandardScaler()).fit_transform(X)
    assert isinstance(out, list)
    for got, expected in zip(out, _by_hand(X), strict=True):
        assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_padded_in_padded_out_equals_pooled_scaling():
    X = _list()
    padded = np.full((4, 4, 2), nan)
    for s, x in enumerate(X):
        padded[s, : len(x)] = x
    out = Stepwise(StandardScaler()).fit_transform(padded)
    assert out.shape == padded.shape
    assert_array_equal(np.isnan(out), np.isnan(padded))  # padding stays padding
    for s, expected in enumerate(_by_hand(X)):
        assert_allclose(out[s, : len(expected)], expected, rtol=1e-12, atol=1e-12)


def test_rows_in_rows_out_equal_plain_scaling():
    X = np.concatenate(_list())
    out = Stepwise(StandardScaler()).fit_transform(X)
    assert out.shape == X.shape
    assert_allclose(out, (X - X.mean(axis=0)) / X.std(axis=0), rtol=1e-12, atol=1e-12)


def test_one_hot_encoder_with_sparse_output_gives_dense_steps():
    X = [np.array([[0], [2], [1]]), np.array([[2]])]
    out = Stepwise(OneHotEncoder()).fit_transform(X)
    assert_array_equal(out[0], np.eye(3)[[0, 2, 1]])
    assert_array_equal(out[1], [[0.0, 0.0, 1.0]])


def test_dataframe_feature_names_are_recorded():
    X = pd.DataFrame({"u": [1.0, 2.0, 4.0], "v": [0.0, 1.0, 1.0]})
    step = Stepwise(StandardScaler()).fit(X)
    assert_array_equal(step.feature_names_in_, ["u", "v"])
    assert step.n_features_in_ == 2


def test_pipeline_with_cross_val_score_on_a_list():
    rng = np.random.default_rng(0)
    X = [rng.normal(loc=10.0, size=(rng.integers(1, 5), 2)) for _ in range(20)]
    y = np.array([0, 1] * 10)
    pipe = make_pipeline(
        Stepwise(StandardScaler()),
        IOHMMClassifier(n_states=2, n_init=1, max_iter=5, random_state=0),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning at max_iter=5
        scores = cross_val_score(pipe, X, y, cv=KFold(4), error_score="raise")
    assert scores.shape == (4,) and np.all((scores >= 0) & (scores <= 1))


def test_transform_checks_fit():
    with pytest.raises(NotFittedError, match="not fitted yet"):
        Stepwise(StandardScaler()).transform(_list())
    step = Stepwise(StandardScaler()).fit(_list())
    msg = r"X has 3 features, but Stepwise is expecting 2 features as input\."
    with pytest.raises(ValueError, match=msg):
        step.transform([np.ones((2, 3))])
    # a transformer that does not accept missing values (PCA's allow_nan tag)
    step = Stepwise(PCA(n_components=1)).fit(_list())
    with pytest.raises(ValueError, match="sequence 1 contains NaN at step 0"):
        step.transform([np.ones((2, 2)), np.array([[nan, 1.0]])])


@pytest.mark.parametrize("transformer", [None, "scaler", np.mean])
def test_transformer_must_have_fit_and_transform(transformer):
    with pytest.raises(ValueError, match="'transformer' parameter of Stepwise"):
        Stepwise(transformer).fit(_list())


@pytest.mark.parametrize("func, match", [
    (lambda X: np.where(X > 4.0, nan, X), r"produced NaN or inf at sequence \d+, step"),
    (lambda X: X[:1], r"returned shape \(1, 2\) for 10 steps"),
    (lambda X: X[:, 0], r"returned shape \(10,\)"),
])
def test_transformer_output_is_checked(func, match):
    step = Stepwise(FunctionTransformer(func)).fit(_list())
    with pytest.raises(ValueError, match=match):
        step.transform(_list())


@pytest.mark.parametrize("transformer", [
    FunctionTransformer(lambda X: X[:, :0]),
    ColumnTransformer([("u", "drop", [0]), ("v", "drop", [1])]),
])
def test_a_transformer_of_no_columns_is_refused(transformer):
    # (n_steps, 0) sequences used to be passed on
    name = type(transformer).__name__
    match = rf"{name} returned no columns \(output shape \(1, 0\)\)"
    with pytest.raises(ValueError, match=match):
        Stepwise(transformer).fit(_list())
    # and at transform: a fitted transformer changed to return none
    step = Stepwise(FunctionTransformer()).fit(_list())
    step.transformer_.set_params(func=lambda X: X[:, :0])
    with pytest.raises(ValueError, match=r"FunctionTransformer returned no columns "
                                         r"\(output shape \(10, 0\)\)"):
        step.transform(_list())
    fitted = step.transformer_  # a refused fit leaves the fitted one
    with pytest.raises(ValueError, match=match):
        step.set_params(transformer=transformer).fit(_list())
    assert step.transformer_ is fitted


def _state(step):
    return copy.deepcopy({k: v for k, v in vars(step).items() if k.endswith("_")})


@pytest.mark.parametrize("bad_fit", [
    lambda step: step.fit([np.ones((2, 2)), np.array([[nan, 1.0]])]),  # bad X
    lambda step: step.fit([np.ones((1, 3))]),  # PCA fails: 1 sample, 3 features
    lambda step: step.set_params(transformer=None).fit(_list()),  # bad parameter
])
def test_a_failed_fit_leaves_the_fitted_stepwise_as_it_was(bad_fit):
    X = pd.DataFrame({"u": [1.0, 2.0, 4.0, 8.0], "v": [0.0, 1.0, 1.0, 3.0]})
    step = Stepwise(PCA(n_components=2)).fit(X)
    state, out = _state(step), step.transform(X)
    transformer = step.transformer_
    with pytest.raises((ValueError, TypeError)):
        bad_fit(step)
    assert step.transformer_ is transformer
    assert state.keys() == _state(step).keys()
    assert_array_equal(step.feature_names_in_, ["u", "v"])
    assert step.n_features_in_ == 2
    assert_array_equal(step.transformer_.components_, state["transformer_"].components_)
    step.set_params(transformer=PCA(n_components=2))
    assert_array_equal(step.transform(X), out)


# -- WindowMean and SequenceFeatures ---------------------------------------------


def _window_means_by_hand(x, w):
    return np.array([x[a : a + w].mean(axis=0) for a in range(0, len(x), w)])


# (a window or a limit beyond NumPy's integers failed with an IndexError or an
# OverflowError: it is one window, or no limit)
@pytest.mark.parametrize("max_length, window", [(None, None), (None, 3), (4, None),
                                                (3, 2), (100, None), (None, 2**70),
                                                (2**70, None), (2**64, 2)])
def test_window_mean_equals_hand_loop(max_length, window):
    X = _ragged()
    out = WindowMean(max_length=max_length, window=window).fit_transform(X)
    assert isinstance(out, list)
    for x, got in zip(X, out, strict=True):
        w = max(window or 1, int(np.ceil(len(x) / max_length)) if max_length else 1)
        assert_allclose(got, _window_means_by_hand(x, w), rtol=1e-13)
        if max_length:
            assert len(got) <= max_length
    padded = WindowMean(max_length=max_length, window=window).fit_transform(
        to_padded(X))
    assert_allclose(padded, to_padded(out), rtol=1e-13)


def test_window_mean_of_steps_near_the_float64_limit_is_their_mean():
    # Their sum overflows, their mean does not: 1e308 + 1e308 is inf, and a
    # window of them came out inf (silently, besides numpy's RuntimeWarning).
    big = np.finfo(np.float64).max
    X = [np.array([[1e308, 1.0], [1e308, 3.0], [-1e308, 5.0]]),
         np.array([[big, 0.0], [big, 2.0], [big, 4.0], [big / 2, 6.0]])]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = WindowMean(window=2).fit_transform(X)
    assert_array_equal(out[0], [[1e308, 2.0], [-1e308, 5.0]])
    assert_array_equal(out[1], [[big, 1.0], [0.75 * big, 5.0]])
    # the windows of ordinary values in the same call are the plain means
    X.append(np.array([[0.1], [0.2], [0.7]]) * np.ones((1, 2)))
    assert_array_equal(WindowMean(window=3).fit_transform(X)[2],
                       [[(0.1 + 0.2 + 0.7) / 3] * 2])


def test_sequence_features_refuse_differences_past_the_float64_range():
    X = [np.ones((2, 2)), np.array([[0.0, 1e308], [0.0, -1e308]])]
    with pytest.raises(ValueError, match=r"difference at sequence 1, step 1 "
                                         r"\(feature 1\) exceeds the float64"):
        SequenceFeatures().fit_transform(X)
    # the same steps without their differences are taken as they are
    out = SequenceFeatures(diff=False, time=True).fit_transform(X)
    assert_array_equal(out[1][:, :2], X[1])
    # a jump between two sequences is no difference of either
    X = [np.array([[1e308]]), np.array([[-1e308], [-1e308]])]
    assert_array_equal(SequenceFeatures().fit_transform(X)[1],
                       [[-1e308, 0.0], [-1e308, 0.0]])


SEQUENCE_TRANSFORMERS = [
    lambda: Stepwise(StandardScaler()), lambda: WindowMean(window=2),
    lambda: SequenceFeatures(time=True), lambda: RunningPooling(window=2),
    lambda: DilatedConvolution(n_dilations=1, random_state=0),
    lambda: SequenceUnion([("a", SequenceFeatures()), ("b", "passthrough")]),
]


@pytest.mark.parametrize("make", SEQUENCE_TRANSFORMERS)
def test_pandas_output_is_a_frame_for_rows_and_sequences_keep_their_form(make):
    # scikit-learn's wrapping put every output into a DataFrame: sequences
    # failed with pandas' "Must pass 2-d input" or numpy's "inhomogeneous shape".
    X = _ragged()
    expected = make().fit_transform(X)
    for config in (lambda t: t.set_output(transform="pandas"),
                   lambda t: t):
        with sklearn.config_context(transform_output="pandas"):
            out = config(make()).fit_transform(X)
            padded = config(make()).fit(to_padded(X)).transform(to_padded(X))
        assert isinstance(out, list) and isinstance(padded, np.ndarray)
        for got, want in zip(out, expected, strict=True):
            assert_array_equal(got, want)
        assert_array_equal(padded, to_padded(expected))
    rows = pd.DataFrame(X[0], columns=["u", "v"], index=np.arange(10, 10 + len(X[0])))
    frame = make().set_output(transform="pandas").fit_transform(rows)
    assert isinstance(frame, pd.DataFrame)
    assert_array_equal(frame.index, rows.index)
    transformer = make().fit(rows)
    assert_array_equal(frame.columns, transformer.get_feature_names_out())
    assert_array_equal(frame.to_numpy(), transformer.transform(rows))


def test_pipeline_under_pandas_output_fits_on_sequences():
    X = _ragged()
    y = np.arange(len(X)) % 2
    pipe = make_pipeline(SequenceFeatures(), IOHMMClassifier(
        n_states=2, n_init=1, max_iter=5, random_state=0))
    expected = clone(pipe).fit(X, y).predict_proba(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        got = pipe.set_output(transform="pandas").fit(X, y).predict_proba(X)
    assert_array_equal(got, expected)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("shape", [(12, 20, 1), (12, 1)])
def test_transformer_outputs_are_not_taken_for_another_layout(shape):
    # 84 kernels on 20 steps (or on one-step rows) are more features than
    # steps: every estimator after the transformer warned at every fit that
    # its input looked channels first (or like series in a table).
    X = np.random.default_rng(0).normal(size=shape)
    y = np.arange(12) % 2
    conv = DilatedConvolution(n_dilations=1, random_state=0)
    pipe = make_pipeline(conv, RunningPooling(), IOHMMClassifier(
        n_states=2, n_init=1, max_iter=3, random_state=0))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)  # a UserWarning
        pipe.fit(X, y)
    # the same array, not from a transformer, still gets the hint
    with pytest.warns(UserWarning, match="channels first|look like the steps"):
        RunningPooling().fit(conv.transform(X).copy())
    # and the user's own channels-first array still does, at the first step
    with pytest.warns(UserWarning, match="channels first"):
        pipe.fit(np.zeros((12, 3, 20)), y)


def test_window_mean_keeps_rows_and_feature_names():
    df = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    wm = WindowMean(window=3).fit(df)
    assert_array_equal(wm.transform(df), df.to_numpy())  # one-step sequences
    assert_array_equal(wm.get_feature_names_out(), ["a", "b"])


def test_sequence_features_equal_hand_computation():
    X = _ragged(1)
    out = SequenceFeatures(diff=True, time=True).fit_transform(X)
    for x, got in zip(X, out, strict=True):
        diff = np.vstack([np.zeros((1, 2)), np.diff(x, axis=0)])
        time = np.linspace(0.0, 1.0, len(x)) if len(x) > 1 else np.zeros(1)
        assert_allclose(got, np.column_stack([x, diff, time]), rtol=1e-13,
                        atol=1e-15)
    only_time = SequenceFeatures(diff=False, time=True, keep_input=False)
    padded = only_time.fit_transform(to_padded(X))
    assert padded.shape == (5, 12, 1)
    assert_allclose(padded[3, :, 0], np.arange(12) / 11)
    assert np.isnan(padded[0, 7:]).all()  # padding stays padding


def test_sequence_features_names_and_errors():
    df = pd.DataFrame({"speed": [1.0, 2.0], "load": [3.0, 4.0]})
    sf = SequenceFeatures(time=True).fit(df)
    assert_array_equal(sf.get_feature_names_out(),
                       ["speed", "load", "diff_speed", "diff_load", "time"])
    assert_array_equal(sf.transform(df)[:, 2:], 0.0)  # one-step: no change yet
    with pytest.raises(ValueError, match="no feature"):
        SequenceFeatures(diff=False, keep_input=False).fit(df)
    with pytest.raises(ValueError, match="sequence 1 contains NaN at step 2"):
        sf.fit([np.ones((3, 2)), np.array([[0.0, 1.0], [1.0, 1.0], [np.nan, 1.0]])])
    assert sf.n_features_in_ == 2 and hasattr(sf, "feature_names_in_")  # unchanged
    # fitted with names, given none: scikit-learn's warning, then its error
    with pytest.warns(UserWarning, match="X does not have valid feature names, "
                      "but SequenceFeatures was fitted with feature names"), \
            pytest.raises(ValueError, match="3 features"):
        sf.transform([np.ones((2, 3))])
    with pytest.raises(NotFittedError):
        WindowMean(window=2).transform([np.ones((2, 3))])
    with pytest.raises(ValueError, match="max_length"):
        WindowMean(max_length=0).fit([np.ones((2, 3))])


def test_sequence_pipeline_with_readout_options_in_grid_search():
    """The tuned pipeline of the real-data benchmark, on a toy problem: the class
    is the sign of a level shift that happens at a random time."""
    rng = np.random.default_rng(0)
    X, y = [], []
    for s in range(40):
        T = rng.integers(20, 40)
        x = rng.normal(size=(T, 1))
        x[rng.integers(2, T - 5):] += 2.0 if s % 2 else -2.0
        X.append(x)
        y.append(s % 2)
    pipe = make_pipeline(WindowMean(max_length=10), SequenceFeatures(),
                         Stepwise(StandardScaler()),
                         IOHMMClassifier(n_states=2, features="raw", n_init=1,
                                         max_iter=50,
                                         random_state=0))
    grid = {"iohmmclassifier__readout": ["last", "mean"],
            "iohmmclassifier__n_prefixes": [1, 2]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = GridSearchCV(pipe, grid, cv=KFold(2)).fit(X, y)
    assert search.best_score_ >= 0.9


def test_a_union_takes_more_jobs_than_it_has_transformers():
    # joblib failed on a count beyond the C integers (OverflowError, or a
    # ValueError on its dispatch expression); the transformers themselves take
    # it, capped at what they can use.
    X = [np.arange(6.0).reshape(3, 2), np.ones((2, 2))]
    union = SequenceUnion([("d", SequenceFeatures()), ("p", RunningPooling())])
    expected = clone(union).fit_transform(X)
    with parallel_config(backend="threading"):  # (no processes to start)
        got = clone(union).set_params(n_jobs=10**30).fit(X)
        for a, b in zip(got.transform(X), expected, strict=True):
            assert_array_equal(a, b)
