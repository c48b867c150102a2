"""The estimators' input representations (``features=``): which one "auto"
chooses, what the networks see, and that states stay causal and on raw steps."""

import pickle
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning

from skseq import HierarchicalIOHMM, IOHMMClassifier, IOHMMRegressor
from skseq._data import check_sequences
from skseq.datasets import load_italy_power_demand, make_tomita
from skseq.preprocessing import DilatedConvolution
from skseq.representations import ShapeFeatures

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _series(n=30, seed=0):
    rng = np.random.default_rng(seed)
    X = [np.cumsum(rng.normal(size=(int(rng.integers(20, 60)), 2)), axis=0) * 40 + 900
         for _ in range(n)]
    y = np.array([int(x[-1, 0] > x[0, 0]) for x in X])
    return X, y


def test_auto_chooses_raw_for_symbols_and_rows_shape_for_series():
    X_sym, y_sym = make_tomita(4, 30, random_state=0)
    X_series, y_series = _series()
    rng = np.random.default_rng(1)
    X_rows, y_rows = rng.normal(size=(30, 3)), np.arange(30) % 2
    params = dict(n_init=1, max_iter=5, random_state=0)
    assert IOHMMClassifier(**params).fit(X_sym, y_sym).features_ == "raw"
    assert IOHMMClassifier(**params).fit(X_rows, y_rows).features_ == "raw"
    clf = IOHMMClassifier(**params).fit(X_series, y_series)
    assert clf.features_ == "shape"
    # the networks see the representation: 8 components for the state
    # networks, all of them for the output networks
    k = clf.representation_.n_output_features
    assert clf.transition_coef_.shape == (8, 4, 4)
    assert clf.emission_coef_.shape == (k, 4, 2)
    assert clf.n_features_in_ == 2


def test_the_shape_inputs_are_the_projected_prefix_means_of_the_indicators():
    """Against the public pieces: DilatedConvolution pooled over the prefix, and
    the amplitude indicators' running means by hand, then the projection."""
    X, _ = _series(12)
    seqs = check_sequences(X)
    rep = ShapeFeatures(n_components=16, n_state_components=4).fit(seqs, 0)
    conv = rep.convolution_
    ref_conv = DilatedConvolution(**{**conv.get_params(), "pooling": "prefix"})
    ref_conv.fit(X)
    shape = np.concatenate(ref_conv.transform(X))
    level = np.concatenate([
        np.cumsum((x[:, :, None] > rep.levels_).reshape(len(x), -1), axis=0)
        / np.arange(1, len(x) + 1)[:, None] for x in X])
    reference = np.hstack([shape, level]) @ rep.projection_ - rep.offset_
    rows = np.array([0, seqs.offsets[3] + 5, seqs.last_steps[-1], seqs.last_steps[2]])
    steps, at_rows = rep.inputs(seqs, rows)
    assert_allclose(steps, reference[:, :4], atol=1e-10)
    assert_allclose(at_rows, reference[rows], atol=1e-10)
    # whitened: unit variance on the training steps (up to the sampling)
    assert 0.5 < reference.std(axis=0).mean() < 1.5


def test_states_stay_causal_and_on_raw_steps():
    X, y = _series(20)
    clf = IOHMMClassifier(n_states=3, features="shape", n_init=1, max_iter=20,
                          random_state=0).fit(X, y)
    proba = clf.predict_state_proba(X[:3])
    assert [p.shape for p in proba] == [(len(x), 3) for x in X[:3]]
    changed = [x.copy() for x in X[:3]]
    for x in changed:
        x[15:] += 50.0  # change the future after step 14
    after = clf.predict_state_proba(changed)
    for p, q in zip(proba, after, strict=True):
        assert_array_equal(p[:15], q[:15])
        assert not np.allclose(p[15:], q[15:])
    assert [len(d) for d in clf.decode(X[:3])] == [len(x) for x in X[:3]]


def test_raw_inputs_of_any_scale_need_no_preprocessing():
    X, y = _series(30)
    shifted = [x * 1e4 - 5e6 for x in X]
    a = IOHMMClassifier(features="shape", n_init=1, random_state=0).fit(X, y)
    b = IOHMMClassifier(features="shape", n_init=1, random_state=0).fit(shifted, y)
    assert_array_equal(a.predict(X), b.predict(shifted))


def test_shape_models_pickle_and_predict_the_same():
    X, y = _series(15)
    clf = IOHMMClassifier(n_init=1, max_iter=20, random_state=0).fit(X, y)
    again = pickle.loads(pickle.dumps(clf))
    assert_array_equal(again.predict_proba(X), clf.predict_proba(X))


def test_warm_start_keeps_the_fitted_representation():
    X, y = _series(15)
    clf = IOHMMClassifier(n_init=1, max_iter=5, warm_start=True, random_state=0)
    clf.fit(X, y)
    rep = clf.representation_
    assert clf.fit(X, y).representation_ is rep  # the same data
    clf.fit(X[:10], y[:10])
    again = clf.representation_
    # its convolution, levels and components kept; its supervised column (the
    # last: two classes) read out anew from the data given, as from scratch
    assert again.convolution_ is rep.convolution_ and again.levels_ is rep.levels_
    assert_array_equal(again.projection_[:, :-1], rep.projection_[:, :-1])
    assert_array_equal(again.offset_[:-1], rep.offset_[:-1])
    assert not np.array_equal(again.projection_[:, -1], rep.projection_[:, -1])


@pytest.mark.parametrize("Estimator", [IOHMMRegressor, HierarchicalIOHMM])
def test_the_shape_option_on_the_other_estimators(Estimator):
    X, y = _series(20)
    if Estimator is IOHMMRegressor:
        y = np.array([x[-1, 1] - x[0, 1] for x in X])
    est = Estimator(features="shape", n_init=1, max_iter=20, random_state=0).fit(X, y)
    assert est.features_ == "shape"
    assert est.predict(X).shape == (20,)
    default = Estimator(n_init=1, max_iter=5).fit(X, y)
    if Estimator is HierarchicalIOHMM:
        # features="auto": raw steps or the shape representation, the better
        # on held-out training sequences (raw steps on ties)
        scores = default.features_scores_
        best = "raw" if scores["raw"] >= scores["shape"] else "shape"
        assert default.features_ == best
    else:
        assert default.features_ == "raw"


def test_the_default_classifier_on_a_real_data_set():
    """ItalyPowerDemand (shipped): the default estimator, raw sequences in,
    against a linear model of the raw steps (the paper's networks)."""
    X, y = load_italy_power_demand("train")
    X_test, y_test = load_italy_power_demand("test")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        default = IOHMMClassifier(random_state=0).fit(X, y)
        raw = IOHMMClassifier(features="raw", n_init=3, random_state=0).fit(X, y)
    assert default.features_ == "shape"
    assert default.score(X_test, y_test) >= 0.94
    assert default.score(X_test, y_test) > raw.score(X_test, y_test) + 0.03
