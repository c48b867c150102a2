"""Representation objects as ``features`` (skseq.representations): the same fit
as their names, scikit-learn's nested parameters, the object left unfitted,
refusals naming what is wrong, and every reader of ``features`` (causality,
restarts, the hierarchy's held-out choice, the regressor)."""

import pickle
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.preprocessing import StandardScaler

from skseq import HierarchicalIOHMM, IOHMMClassifier, IOHMMRegressor
from skseq._data.dilated import dilation_grid
from skseq._data.representation_base import Representation
from skseq.representations import (
    CentredShapeFeatures,
    RawFeatures,
    ShapeFeatures,
    WindowFeatures,
)

pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning")

FAST = dict(n_states=2, max_iter=15, random_state=0)


def _walks(n=16, length=18, seed=0):
    """Random walks labelled by whether they end above their start."""
    X = np.random.RandomState(seed).normal(size=(n, length, 1)).cumsum(axis=1)
    return X, (X[:, -1, 0] > X[:, 0, 0]).astype(int)


def _step_labels(X):
    """Every step labelled by whether it is above its sequence's start."""
    return [(x[:, 0] > x[0, 0]).astype(int) for x in X]


def _small():
    return ShapeFeatures(n_indicators=168, n_dilations=1, n_components=8)


def _fitted_attributes(obj):
    return sorted(k for k in vars(obj) if k.endswith("_") and not k.startswith("_"))


@pytest.mark.parametrize("name, obj, step_level", [
    ("shape", ShapeFeatures(), False),
    ("shape_centred", CentredShapeFeatures(), False),
    ("raw", RawFeatures(), False),
    ("window", WindowFeatures(), True),
])
def test_object_fits_what_its_name_fits(name, obj, step_level):
    X, y = _walks()
    y = _step_labels(X) if step_level else y
    by_name = IOHMMClassifier(features=name, n_init=2, **FAST).fit(X, y)
    by_object = IOHMMClassifier(features=obj, n_init=2, **FAST).fit(X, y)
    assert by_object.features_ == by_name.features_ == name
    assert by_object.alpha_ == by_name.alpha_
    assert_array_equal(np.concatenate(by_object.predict_proba(X)),
                       np.concatenate(by_name.predict_proba(X)))
    assert type(by_object.representation_) is type(obj)
    assert by_object.representation_ is not obj and not _fitted_attributes(obj)


def test_options_reach_the_fit_and_the_object_is_left_unfitted():
    X, y = _walks()
    obj = ShapeFeatures(n_indicators=168, n_dilations=1, n_components=8,
                        supervised=False)
    before = obj.get_params()
    clf = IOHMMClassifier(features=obj, **FAST).fit(X, y)
    assert obj.get_params() == before and not _fitted_attributes(obj)
    rep = clf.representation_
    assert rep.get_params() == before
    # 168 indicators over 84 kernels and one dilation: 2 thresholds each; at
    # most 8 components and no supervised column (the default reads up to
    # max(32, n_sequences) components and appends one for two classes)
    assert rep.convolution_.n_biases == 2
    assert rep.n_output_features <= 8
    default = IOHMMClassifier(features="shape", **FAST).fit(X, y)
    # 18 steps fit dilations 1 and 2 (up to (18 - 1) // 8): 2688 indicators
    # over 84 kernels and 2 dilations
    assert default.representation_.convolution_.n_biases == 2688 // (84 * 2)
    assert default.representation_.n_output_features > 8
    # summary representations: one start under n_init="auto"
    assert clf.n_init_ == 1


def test_nested_parameters_round_trip():
    clf = IOHMMClassifier(features=ShapeFeatures(n_indicators=9996,
                                                 threshold_sample="series"))
    params = clf.get_params(deep=True)
    assert params["features__n_indicators"] == 9996
    assert params["features__threshold_sample"] == "series"
    assert params["features__supervised"] is True
    assert clf.set_params(features__n_components=64) is clf
    assert clf.features.n_components == 64
    copy = clone(clf)
    assert copy.features is not clf.features
    assert copy.get_params(deep=True).keys() == clf.get_params(deep=True).keys()
    assert copy.features.get_params() == clf.features.get_params()
    assert repr(copy.features) == ("ShapeFeatures(n_components=64, "
                                   "n_indicators=9996, threshold_sample='series')")
    # a name has no nested parameters
    assert not any(k.startswith("features__")
                   for k in IOHMMClassifier().get_params(deep=True))


def test_grid_search_over_a_representation_parameter():
    X, y = _walks(n=20)
    grid = [84, 168]
    search = GridSearchCV(IOHMMClassifier(features=_small(), **FAST),
                          {"features__n_indicators": grid}, cv=2).fit(X, y)
    assert search.cv_results_["param_features__n_indicators"].tolist() == grid
    best = search.best_params_["features__n_indicators"]
    assert best in grid
    assert search.best_estimator_.features.n_indicators == best
    assert search.best_estimator_.representation_.convolution_.n_biases == best // 84


@pytest.mark.parametrize("features, names", [
    (ShapeFeatures(n_indicators=-1), ["features=ShapeFeatures(n_indicators=-1)",
                                      "'n_indicators'"]),
    (ShapeFeatures(quantile_range=(0.5, 0.2)), ["quantile_range"]),
    (ShapeFeatures(threshold_sample="all"), ["'threshold_sample'"]),
    (WindowFeatures(window=0), ["features=WindowFeatures(window=0)", "'window'"]),
    # a transformer belongs before the estimator in a pipeline; a class is
    # not an instance
    (StandardScaler(), ["IOHMMClassifier(features=StandardScaler())",
                        "not a transformer",
                        "make_pipeline(StandardScaler(), "
                        "IOHMMClassifier(features='raw'))"]),
    (ShapeFeatures, ["features=ShapeFeatures)", "an instance of the class, "
                     "features=ShapeFeatures()"]),
    # a bool is not a count (True passed as 1; as n_components, a shape of
    # True failed deep inside)
    (_small().set_params(n_components=True), ["features=ShapeFeatures(",
                                              "'n_components'", "not a bool"]),
    (WindowFeatures(True), ["features=WindowFeatures(", "'window'",
                                "not a bool"]),
    # beyond any memory (8e17 bytes of thresholds): NumPy's MemoryError
    # named neither the estimator nor the option
    (_small().set_params(n_indicators=10**17),
     ["IOHMMClassifier(features=ShapeFeatures(", "n_indicators=100000000000000000",
      "more memory"]),
    # the base class implements neither fit nor inputs
    (Representation(), ["'features'", "representation object"]),
])
def test_bad_object_is_refused_and_the_model_left_as_it_was(features, names):
    X, y = _walks()
    clf = IOHMMClassifier(features=_small(), **FAST).fit(X, y)
    state = dict(vars(clf))
    proba = clf.predict_proba(X)
    good = clf.features
    clf.set_params(features=features)
    with pytest.raises(ValueError) as err:
        clf.fit(X[:8], y[:8])
    for name in names:
        assert name in str(err.value)
    assert vars(clf).keys() == state.keys()
    assert all(vars(clf)[k] is v for k, v in state.items() if k != "features")
    assert_array_equal(clf.set_params(features=good).predict_proba(X), proba)


def test_changed_nested_parameter_refuses_the_fitted_model():
    X, y = _walks()
    clf = IOHMMClassifier(features=_small(), **FAST).fit(X, y)
    clf.set_params(features__n_components=16)
    with pytest.raises(ValueError, match="features changed since fit"):
        clf.predict(X)


def test_centred_object_refused_with_step_level_targets():
    X, _ = _walks()
    for est in (IOHMMClassifier(features=CentredShapeFeatures(), **FAST),
                IOHMMRegressor(features=CentredShapeFeatures(), **FAST)):
        y = _step_labels(X)
        if isinstance(est, IOHMMRegressor):
            y = [x[:, 0] for x in X]
        with pytest.raises(ValueError, match="CentredShapeFeatures.*reads later"):
            est.fit(X, y)


@pytest.mark.parametrize("obj", [ShapeFeatures(), CentredShapeFeatures(),
                                 RawFeatures(), WindowFeatures()])
def test_fitting_an_object_by_hand_names_how_to_use_it(obj):
    # raw sequences passed to its fit failed with an AttributeError ('list'
    # object has no attribute 'lengths')
    X, _ = _walks(n=2)
    for given in (X, list(X)):
        with pytest.raises(TypeError, match=rf"features={type(obj).__name__}\(\)"):
            obj.fit(given, np.random.RandomState(0))
    assert not _fitted_attributes(obj)


def test_pickled_model_fitted_with_an_object():
    X, y = _walks()
    clf = IOHMMClassifier(features=_small(), **FAST).fit(X, y)
    back = pickle.loads(pickle.dumps(clf))
    assert back.features.get_params() == clf.features.get_params()
    assert_array_equal(back.predict_proba(X), clf.predict_proba(X))


def test_regressor_and_hierarchy_take_an_object():
    X, y = _walks()
    reg = IOHMMRegressor(features=_small(), **FAST).fit(X, X[:, -1, 0])
    assert reg.features_ == "shape" and reg.representation_.n_output_features <= 8
    # an object given: no held-out choice (features="auto" would compare raw
    # steps with the shape on held-out sequences)
    model = HierarchicalIOHMM(features=_small(), max_iter=10,
                              random_state=0).fit(X, y)
    assert model.features_ == "shape" and model.features_scores_ is None


def test_options_of_a_name_are_refused_clearly():
    clf = IOHMMClassifier(features="shape")
    with pytest.raises(ValueError, match="features='shape' is a name, which has "
                       "no options.*ShapeFeatures"):
        clf.set_params(features__n_indicators=168)
    with pytest.raises(ValueError, match="features='raw' is a name"):
        IOHMMClassifier(features=_small()).set_params(
            features="raw", features__n_components=4)
    assert clf.features == "shape"
    # an object set with its options at once
    clf.set_params(features=_small(), features__n_components=4)
    assert clf.features.n_components == 4


def test_warm_start_refuses_a_representation_changed_since_fit():
    X, y = _walks()
    clf = IOHMMClassifier(features=_small(), warm_start=True, **FAST).fit(X, y)
    fitted = clf.representation_
    for change in ({"features__n_components": 4}, {"features": "raw"}):
        clf.set_params(**change)
        with pytest.raises(ValueError, match="features changed since fit.*"
                           "warm_start=False"):
            clf.fit(X, y)
        assert clf.representation_ is fitted
        clf.set_params(features=_small())
    # unchanged: continued
    assert clf.fit(X, y).representation_ is fitted


def test_dilation_grid_of_a_huge_count_allocates_nothing():
    # the definition: n exponentially spaced dilations from 1 to m, rounded down
    def spaced(n, m):
        exponents = np.linspace(0.0, np.log2(m), n)
        return np.unique(np.floor(2.0 ** exponents + 1e-9).clip(max=m))

    for m in (1, 2, 3, 7, 50, 1000):
        for n in (1, 2, 5, 16, 40, 2000, 30000):
            assert_array_equal(dilation_grid(n, m), spaced(n, m))
    assert_array_equal(dilation_grid(10**15, 6), np.arange(1, 7))


def test_a_huge_last_step_weight_is_the_limit_of_large_ones():
    # Weighing the last steps 1e30 times as much leaves the sampled steps
    # nothing (1e-30 of the sample): so do 1e300 and float64's largest, which
    # overflowed (a bare error, or a silent single zero feature).
    X, y = _walks()

    def projection(weight):
        features = _small().set_params(last_step_weight=weight, supervised=False,
                                       projection_dtype="float64")
        return IOHMMClassifier(features=features, **FAST).fit(
            X, y).representation_.projection_

    limit = projection(1e30)
    for weight in (1e300, np.finfo(np.float64).max):
        assert_allclose(projection(weight), limit, rtol=1e-7, atol=1e-9)


def test_shape_features_too_many_indicators_are_refused():
    # the thresholds, the projection's sample and the projection of 10**12
    # indicators: a ValueError naming n_indicators, before numpy's MemoryError
    rng = np.random.RandomState(0)
    X = [rng.standard_normal((20, 2)) for _ in range(4)]
    clf = IOHMMClassifier(features=ShapeFeatures(n_indicators=10**12))
    with pytest.raises(ValueError, match=r"IOHMMClassifier\(features=ShapeFeatures"
                       r".*ShapeFeatures with n_indicators=10+ "
                       r"\(.* indicator thresholds.*lower n_indicators\."):
        clf.fit(X, [0, 1, 0, 1])


def test_window_features_of_inputs_whose_summaries_square_beyond_float64():
    """Found by benchmarks/fuzz_long.py: a channel near 1e250 made the
    standardization's squares overflow (a warning) and its spread inf, every
    feature of that channel then 0. Its mean and spread now are NumPy's of
    the summaries divided by a power of two above each column's largest
    magnitude, times it (exact scalings)."""
    from skseq._data import check_sequences
    from skseq._data.window import window_summaries

    rng = np.random.default_rng(0)
    X = [rng.normal(size=(n, 2)) for n in (9, 12, 7)]
    X[1][:, 0] *= 1e250
    seqs = check_sequences(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        rep = WindowFeatures(window=4).fit(seqs, np.random.default_rng(0))
    Z = window_summaries(seqs, 4)
    unit = np.ldexp(1.0, np.frexp(np.abs(Z).max(axis=0))[1])  # per column
    assert_allclose(rep.mean_, (Z / unit).mean(axis=0) * unit, rtol=1e-13)
    spread = (Z / unit).std(axis=0) * unit
    assert_allclose(rep.scale_, np.where(spread > 1e-12, spread, 1.0), rtol=1e-13)
    assert rep.scale_[0] > 1e249
