"""Stepwise on sequences with missing values inside them: passed on, as NaN,
to a transformer whose ``allow_nan`` tag accepts them, refused otherwise; a
3-D array's trailing all-NaN rows stay padding."""

import copy

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.decomposition import PCA
from sklearn.impute import KNNImputer, SimpleImputer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.utils import get_tags

from skseq import IOHMMClassifier
from skseq.preprocessing import Stepwise
from skseq.utils import from_long_frame

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

nan = np.nan


def _gappy():
    return [np.array([[1.0, 2.0], [nan, 3.0], [2.0, 1.0]]),
            np.array([[0.0, 1.0], [1.0, nan]])]


def test_simple_imputer_fills_with_the_means_of_the_pooled_observed_steps():
    out = Stepwise(SimpleImputer()).fit_transform(_gappy())
    # observed: feature 0 holds 1, 2, 0, 1 (mean 1); feature 1 2, 3, 1, 1 (1.75)
    assert_array_equal(out[0], [[1.0, 2.0], [1.0, 3.0], [2.0, 1.0]])
    assert_array_equal(out[1], [[0.0, 1.0], [1.0, 1.75]])


@pytest.mark.parametrize("transformer, allow_nan", [
    (SimpleImputer(), True), (KNNImputer(), True), (OneHotEncoder(), True),
    (StandardScaler(), True), (PCA(), False),
    (make_pipeline(SimpleImputer(), PCA()), True),  # the first step reads X
    (make_pipeline(PCA(), SimpleImputer()), False),
    (None, False), ("scaler", False),  # refused by fit, not by the tags
])
def test_the_allow_nan_tag_is_the_transformers(transformer, allow_nan):
    assert get_tags(Stepwise(transformer)).input_tags.allow_nan is allow_nan


def test_a_padded_array_keeps_its_trailing_padding_and_fills_its_gaps():
    X = np.array([[[1.0, nan], [nan, nan], [3.0, 4.0]],    # an all-NaN step inside
                  [[nan, 2.0], [nan, nan], [nan, nan]]])   # then padding
    out = Stepwise(SimpleImputer()).fit_transform(X)
    # observed: feature 0 holds 1, 3 (mean 2); feature 1 4, 2 (mean 3)
    assert_array_equal(out[0], [[1.0, 3.0], [2.0, 3.0], [3.0, 4.0]])
    assert_array_equal(out[1, 0], [2.0, 2.0])
    assert np.isnan(out[1, 1:]).all()


def test_frames_with_missing_values_match_the_arrays():
    frames = [pd.DataFrame(x, columns=["u", "v"]) for x in _gappy()]
    step = Stepwise(SimpleImputer()).fit(frames)
    assert_array_equal(step.feature_names_in_, ["u", "v"])
    for got, expected in zip(step.transform(frames),
                             Stepwise(SimpleImputer()).fit_transform(_gappy()),
                             strict=True):
        assert_array_equal(got, expected)


def test_a_scaler_passes_missing_values_on_to_a_later_imputer():
    X = _gappy()
    scaled = Stepwise(StandardScaler()).fit_transform(X)
    steps = np.concatenate(X)
    by_hand = (steps - np.nanmean(steps, axis=0)) / np.nanstd(steps, axis=0)
    assert_allclose(np.concatenate(scaled), by_hand, rtol=1e-15, equal_nan=True)
    pipe = make_pipeline(Stepwise(StandardScaler()),
                         Stepwise(KNNImputer(n_neighbors=1)),
                         IOHMMClassifier(n_states=2, n_init=1, max_iter=5,
                                         random_state=0))
    assert pipe.fit(X, [0, 1]).predict(X).shape == (2,)


class _NanAware(TransformerMixin, BaseEstimator):
    """Applies ``func`` to the pooled steps; accepts missing values."""

    def __init__(self, func=None):
        self.func = func

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return self.func(np.asarray(X, dtype=float))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


@pytest.mark.parametrize("func, X, match", [
    # NaN at a step that had no missing value: the transformer made it
    (lambda X: np.where(X == 2.0, nan, X), _gappy(),
     r"_NanAware produced NaN or inf at sequence 0, step 0\.$"),
    # a step whose every output feature is NaN at the end of a 3-D sequence
    (lambda X: X[:, :1], np.array([[[1.0, 2.0], [nan, 3.0]]]),
     r"left every feature NaN at the last step of sequence 0, which a 3-D "
     r"array would read as padding"),
    (lambda X: X, [np.array([[1.0, np.inf]])],
     r"X: sequence 0 contains inf at step 0 \(feature 1\); infinite values are "
     r"not allowed\.$"),
])
def test_what_stepwise_refuses_with_missing_values(func, X, match):
    with pytest.raises(ValueError, match=match):
        Stepwise(_NanAware(func)).fit_transform(X)


def test_in_a_list_an_output_step_of_missing_values_passes_on():
    out = Stepwise(_NanAware(lambda X: X[:, :1])).fit_transform(
        [np.array([[1.0, 2.0], [nan, 3.0]])])
    assert_array_equal(out[0], [[1.0], [nan]])


def test_the_estimators_and_other_transformers_refuse_missing_values():
    with pytest.raises(ValueError, match=r"^X: sequence 0 contains NaN at step 1 "
                       r"\(feature 0\); missing values \(NaN, None\) are only "
                       r"allowed as the all-NaN trailing padding rows of a 3-D "
                       r"array\. To fill them, start a pipeline with ForwardFill\(\) "
                       r"or Stepwise\(SimpleImputer\(\)\)\.$"):
        IOHMMClassifier().fit(_gappy(), [0, 1])
    with pytest.raises(ValueError, match="sequence 0 contains NaN at step 1"):
        Stepwise(PCA()).fit(_gappy())


def _state(step):
    return copy.deepcopy({k: v for k, v in vars(step).items() if k.endswith("_")})


def test_a_failed_fit_leaves_the_fitted_imputer_as_it_was():
    step = Stepwise(SimpleImputer()).fit(_gappy())
    state = _state(step)
    with pytest.raises(ValueError, match="contains inf"):
        step.fit([np.array([[1.0, np.inf]])])
    assert state.keys() == _state(step).keys()
    assert_array_equal(step.transformer_.statistics_, [1.0, 1.75])


def test_missing_symbols_are_a_category_or_are_imputed():
    # (np.array(["b", nan]) would hold the string "nan": objects keep NaN)
    X = [np.array(["a", None, "b"]), np.array(["b", "b", nan], dtype=object)]
    onehot = Stepwise(OneHotEncoder(sparse_output=False)).fit(X)
    assert_array_equal(onehot.get_feature_names_out(), ["x0_a", "x0_b", "x0_nan"])
    assert_array_equal(onehot.transform(X)[0], np.eye(3)[[0, 2, 1]])
    # the most frequent symbol, "b", fills them, then one-hot
    filled = Stepwise(make_pipeline(SimpleImputer(strategy="most_frequent"),
                                    OneHotEncoder(sparse_output=False)))
    out = filled.fit_transform(X)
    assert_array_equal(out[0], np.eye(2)[[0, 1, 1]])
    assert_array_equal(out[1], np.eye(2)[[1, 1, 1]])


def test_from_long_frame_keeps_missing_values_for_the_pipeline():
    events = pd.DataFrame({"session": [1, 1, 1, 2, 2], "time": [0, 1, 2, 0, 1],
                           "speed": [1.0, nan, 3.0, 2.0, 2.0],
                           "action": ["go", "stop", None, "go", "go"]})
    X, _ = from_long_frame(events, "session", time="time", features=["speed"])
    assert X[0].dtype == np.float64
    assert_array_equal(X[0].ravel(), [1.0, nan, 3.0])
    X, _ = from_long_frame(events, "session", time="time",
                           features=["action", "speed"])
    assert X[0][2, 0] is not None and np.isnan(X[0][2, 0])
    out = Stepwise(make_pipeline(SimpleImputer(strategy="most_frequent"),
                                 OneHotEncoder(sparse_output=False))).fit_transform(X)
    # most frequent: "go", and speed 2.0; columns go, stop, then the speeds
    assert_array_equal(out[0], [[1, 0, 1, 0, 0], [0, 1, 0, 1, 0], [1, 0, 0, 0, 1]])


def test_on_raw_steps_passes_missing_values_between_the_steps():
    # a scaler's output keeps the NaN for the imputer after it; on_raw_steps
    # refused it as the output of Stepwise
    from skseq.preprocessing import on_raw_steps

    rng = np.random.default_rng(0)
    X = [rng.normal(size=(6, 1)) + s % 2 for s in range(8)]
    X[0][3] = np.nan
    pipe = make_pipeline(Stepwise(StandardScaler()), Stepwise(SimpleImputer()),
                         IOHMMClassifier(n_states=2, n_init=1, max_iter=5,
                                         random_state=0))
    pipe.fit(X, np.arange(8) % 2)
    got = on_raw_steps(pipe, "predict_state_proba", X)
    expected = pipe[-1].predict_state_proba(pipe[:-1].transform(X))
    for a, b in zip(got, expected, strict=True):
        assert_array_equal(a, b)
