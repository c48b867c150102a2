"""Extreme inputs (issue 9): every estimator either gives finite, sensible results
or raises a clear ValueError; never NaN output, never a numpy RuntimeWarning.

* features at 1e+-150 (and a model fitted on ordinary data predicting them);
* constant features;
* one sequence of 10^6 steps;
* 10^5 sequences of length 1;
* n_states larger than any sequence;
* a class seen only once;
* targets with a large offset (the predictive standard deviation).
"""


import re

import numpy as np
import pytest
from conftest import ESTIMATORS as SHARED
from conftest import FAST, fast
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import is_classifier
from sklearn.preprocessing import StandardScaler

from skseq import (
    HierarchicalIOHMM,
    IOHMMClassifier,
    IOHMMRegressor,
)
from skseq._base import BaseIOHMM
from skseq.preprocessing import Stepwise

# Any numpy RuntimeWarning (overflow, invalid value, divide by zero) is a failure.
pytestmark = [
    pytest.mark.filterwarnings("error::RuntimeWarning"),
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning"),
]

ESTIMATORS = {
    **SHARED,
    "clf-em": fast(IOHMMClassifier, n_states=2, solver="em", transition="gated"),
    "reg-full-em": fast(IOHMMRegressor, n_states=2, covariance_type="full",
                        solver="em"),
}


def _targets(est, X, rng):
    if is_classifier(est):
        return np.arange(len(X)) % 2
    return np.array([x[:, 0].sum() for x in X]) + rng.normal(size=len(X))


def _data(est, seed=0, lengths=(3, 1, 4, 2, 5, 2, 3, 4)):
    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(k, 2)) for k in lengths]
    return X, _targets(est, X, rng)


def _values(out):
    """All numbers in an output (arrays, lists, tuples, per-level lists), without
    the NaN padding after each sequence's end."""
    if isinstance(out, (list, tuple)):
        return np.concatenate([_values(o).ravel() for o in out] or [np.zeros(0)])
    out = np.asarray(out)
    if out.dtype.kind != "f":
        return np.zeros(0)
    return out[~np.isnan(out)] if out.ndim > 1 else out


def _numbers(value):
    """Float arrays of a fitted attribute (arrays, or lists of arrays)."""
    if isinstance(value, (list, tuple)):
        return [a for v in value for a in _numbers(v)]
    if isinstance(value, (np.ndarray, float, np.floating)):
        arr = np.asarray(value, dtype=float) if np.asarray(value).dtype.kind in (
            "fiu") else None
        return [] if arr is None else [arr.ravel()]
    return []


def _fitted_values(est):
    """Every number of the fitted public attributes (parameters, likelihood)."""
    return np.concatenate([a for k, v in vars(est).items()
                           if k.endswith("_") and not k.startswith("_")
                           for a in _numbers(v)])


def _check_outputs(est, X, y=None, *, sequence_level=True):
    """Every prediction method runs and returns finite numbers (NaN only as
    padding); probabilities sum to one."""
    outputs = {"predict": est.predict(X)}
    if hasattr(est, "predict_proba"):
        proba = est.predict_proba(X)
        outputs["predict_proba"] = proba
        rows = np.concatenate(proba) if isinstance(proba, list) else proba
        assert_allclose(rows.sum(axis=-1), 1.0, rtol=0, atol=1e-9)
    if isinstance(est, BaseIOHMM):
        outputs["predict_state_proba"] = est.predict_state_proba(X)
        outputs["decode"] = est.decode(X)
        if y is not None:
            ll = est.score_samples(X, y)
            assert not np.isnan(ll).any() and np.all(ll < np.inf)
            if is_classifier(est):  # a log-probability, to rounding
                assert np.all(ll <= 1e-12), ll
    if isinstance(est, (IOHMMRegressor, HierarchicalIOHMM)) and not is_classifier(
            est):
        outputs["predict_std"] = est.predict(X, return_std=True)
    for method, out in outputs.items():
        values = _values(out)
        assert np.all(np.isfinite(values)), method


# -- magnitudes -------------------------------------------------------------------
@pytest.mark.parametrize("scale", [1e150, 1e-150, -1e150])
@pytest.mark.parametrize("name", ESTIMATORS)
def test_features_at_extreme_magnitudes_fit_finite_or_raise_clearly(name, scale):
    """Fitting on features at 1e+-150 either gives finite parameters and finite
    outputs or raises a ValueError that says the inputs need scaling."""
    est = ESTIMATORS[name]()
    X, y = _data(est)
    X = [x * scale for x in X]
    try:
        est.fit(X, y)
    except ValueError as exc:
        assert "scal" in str(exc).lower() or "overflow" in str(exc).lower(), exc
        assert not hasattr(est, "n_features_in_")  # nothing half-fitted
        return
    values = _fitted_values(est)
    assert values.size and np.all(np.isfinite(values)), (
        f"{name} fitted on features at {scale:g} has non-finite parameters")
    _check_outputs(est, X, y)


@pytest.mark.parametrize("scale", [1e150, 1e-150, -1e150, 0.0])
@pytest.mark.parametrize("name", ESTIMATORS)
def test_a_fitted_model_predicts_extreme_features_finitely(name, scale):
    est = ESTIMATORS[name]()
    X, y = _data(est)
    est.fit(X, y)
    _check_outputs(est, [x * scale for x in X], y)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_features_near_the_float64_limit_predict_finitely_or_raise_clearly(name):
    """At 1.79e308 an input-driven logit overflows: it must saturate (finite
    probabilities), and a regression mean beyond float64 must be a ValueError
    that names the sequence and step, never inf, NaN or a RuntimeWarning."""
    est = ESTIMATORS[name]()
    X, y = _data(est)
    est.fit(X, y)
    X_big = [np.full_like(x, 1.79e308) * np.where(np.arange(x.shape[1]) % 2, -1, 1)
             for x in X]
    try:
        _check_outputs(est, X_big, None)
    except ValueError as exc:
        assert not is_classifier(est), exc
        # Every step reads the same input, but the states' mixture of output
        # networks moves along a sequence: which step overflows first depends
        # on the fitted weights, the sequence (the first) does not.
        assert re.search(r"sequence 0, step \d+ ", str(exc)), exc
        assert "scale" in str(exc), exc


def test_stepwise_scales_extreme_features_into_a_fittable_range():
    """The documented remedy: Stepwise(StandardScaler()) before the model."""
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(k, 2)) * 1e150 for k in (3, 1, 4, 2, 5, 2)]
    Z = Stepwise(StandardScaler()).fit_transform(X)
    assert_allclose(np.concatenate(Z).std(axis=0), 1.0, rtol=1e-9)
    est = IOHMMClassifier(n_states=2, **FAST).fit(Z, np.arange(6) % 2)
    assert np.all(np.isfinite(_fitted_values(est)))


# -- constant features ----------------------------------------------------------------
@pytest.mark.parametrize("constant", [0.0, 3.0, -1e6])
@pytest.mark.parametrize("name", ESTIMATORS)
def test_constant_features(name, constant):
    est = ESTIMATORS[name]()
    X, y = _data(est)
    X = [np.full_like(x, constant) for x in X]
    est.fit(X, y)
    assert np.all(np.isfinite(_fitted_values(est)))
    _check_outputs(est, X, y)
    # All sequences of one length look alike: their predictions are equal.
    pred = est.predict_proba(X) if hasattr(est, "predict_proba") else est.predict(X)
    assert_array_equal(pred[2], pred[7])  # both of length 4


def test_stepwise_on_constant_features():
    X = [np.full((k, 2), 5.0) for k in (3, 1, 4)]
    Z = Stepwise(StandardScaler()).fit_transform(X)
    assert all(np.array_equal(z, np.zeros_like(z)) for z in Z)


# -- sizes -----------------------------------------------------------------------
@pytest.mark.parametrize("name", ["clf", "reg", "hier-clf"])
def test_one_sequence_of_a_million_steps(name):
    """The scaled kernels stay finite on 10^6 steps (n_states=2, one iteration).

    Raw inputs: the kernels are what is tested here; the shape representation's
    sums over long sequences are checked in test_shape_features.py, and its cost
    on 10^6 steps (most of this fit with features="auto") is a benchmark's."""
    rng = np.random.default_rng(0)
    long = rng.normal(size=(10**6, 2))
    if name == "reg":  # one sequence, per-step targets
        X = [long]
        y = [long[:, 0] + 0.1 * rng.normal(size=len(long))]
    else:  # sequence-level labels need two sequences for two classes
        X = [long, long[:3]]
        y = np.array([0, 1])
    kw = ({"n_states": (2, 1), "timescales": (8, 1)} if name == "hier-clf"
          else {"features": "raw"})
    est = ESTIMATORS[name](max_iter=1, **kw).fit(X, y)
    assert np.isfinite(est.log_likelihood_)
    assert np.all(np.isfinite(_fitted_values(est)))
    ll = est.score_samples(X, y)
    assert np.all(np.isfinite(ll))
    if name == "reg":
        return
    proba = est.predict_proba(X)
    assert np.all(np.isfinite(proba))
    assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    states = est.predict_state_proba([long])
    if name == "hier-clf":
        states = states[0]  # the slow level
    assert states[0].shape == (10**6, 2) and np.all(np.isfinite(states[0]))
    assert_allclose(states[0].sum(axis=1), 1.0, atol=1e-12)


def test_rnn_on_a_long_sequence():
    """DiscretizedRNNClassifier steps all sequences in lockstep in Python, one
    vectorized step per time index (about 15 us a step): 10^5 steps here, where
    the discretized states must stay finite as on any length (10^6 steps would
    only measure that time ten times over)."""
    rng = np.random.default_rng(0)
    long = rng.normal(size=(10**5, 2))
    est = ESTIMATORS["rnn"](max_iter=1).fit([long, long[:3]], [0, 1])
    proba = est.predict_proba([long])
    assert np.all(np.isfinite(proba))
    assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_a_hundred_thousand_sequences_of_one_step(name):
    est = ESTIMATORS[name](max_iter=2)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(10**5, 2))
    y = (X[:, 0] > 0).astype(int) if is_classifier(est) else X[:, 0] + rng.normal(
        size=10**5)
    est.fit(X, y)
    assert np.all(np.isfinite(_fitted_values(est)))
    pred = est.predict(X)
    assert pred.shape == (10**5,)
    if is_classifier(est):
        assert est.score(X, y) > 0.6  # the sign of feature 0 is learnable
        proba = est.predict_proba(X)
        assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    else:
        assert np.all(np.isfinite(pred))


@pytest.mark.parametrize("name", ESTIMATORS)
def test_more_states_than_steps_in_any_sequence(name):
    big = {"n_hidden": 8} if name == "rnn" else (
        {"n_states": (3, 3)} if name.startswith("hier") else {"n_states": 6})
    est = ESTIMATORS[name](**big)
    X, y = _data(est, lengths=(1, 2, 3, 1, 2, 3, 2, 1))
    est.fit(X, y)
    assert np.all(np.isfinite(_fitted_values(est)))
    _check_outputs(est, X, y)


@pytest.mark.parametrize("name", ["clf", "clf-em", "hier-clf", "rnn"])
def test_a_class_seen_only_once(name):
    est = ESTIMATORS[name](**({"n_hidden": 3} if name == "rnn" else {}))
    X, _ = _data(est)
    y = np.array(["a", "b", "a", "b", "a", "b", "a", "rare"])
    est.fit(X, y)
    assert_array_equal(est.classes_, ["a", "b", "rare"])
    proba = est.predict_proba(X)
    assert proba.shape == (8, 3)
    assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    assert set(est.predict(X)) <= {"a", "b", "rare"}
    assert 0.0 <= est.score(X, y) <= 1.0
    if isinstance(est, BaseIOHMM):
        assert np.all(np.isfinite(est.score_samples(X, y)))


@pytest.mark.parametrize("name", ["clf", "hier-clf"])
def test_a_step_label_seen_only_once(name):
    est = ESTIMATORS[name]()
    X, _ = _data(est)
    y = [np.array(["a", "b"] * 3)[: len(x)].astype(object) for x in X]
    y[4] = y[4].copy()
    y[4][2] = "rare"
    y[1] = np.array([None], dtype=object)  # and one sequence without any label
    est.fit(X, y)
    assert_array_equal(est.classes_, ["a", "b", "rare"])
    for p in est.predict_proba(X):
        assert p.shape[1] == 3
        assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)


# -- the predictive standard deviation ------------------------------------------------
def _reference_std(est, X):
    """sqrt(sum_i w_i (sigma_i^2 + (m_i - mean)^2)) at each sequence's end, from
    the fitted parameters and the filtered state distribution, in long double."""
    zeta = np.array([z[-1] for z in est.predict_state_proba(X)], dtype=np.longdouble)
    U = np.array([x[-1] for x in X], dtype=np.longdouble)
    coef = est.emission_coef_.astype(np.longdouble)[:, :, 0]  # (d, n)
    means = U @ coef + est.emission_intercept_.astype(np.longdouble)[:, 0]
    var = est.emission_covariance_.reshape(est.n_states, -1)[:, 0]
    mean = (zeta * means).sum(axis=1)
    total = (zeta * (var + (means - mean[:, None]) ** 2)).sum(axis=1)
    return np.sqrt(total).astype(float), mean.astype(float)


@pytest.mark.parametrize("covariance_type", ["diag", "full", "spherical"])
def test_predictive_std_of_targets_with_a_large_offset(covariance_type):
    """Found by this suite: the std was sqrt(E[y^2] - E[y]^2), which cancels
    every digit when the targets are far from 0 relative to their spread (with
    y ~ 1e9 + N(0, 1) it returned 0 or 11.3 instead of about 1.2)."""
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(k, 2)) for k in rng.integers(2, 8, size=30)]
    y = np.array([x[:, 0].sum() + rng.normal(scale=0.5) for x in X])
    fits = [IOHMMRegressor(n_states=2, covariance_type=covariance_type, n_init=1,
                           max_iter=30, random_state=0).fit(X, y + offset)
            for offset in (0.0, 1e9)]
    for est in fits:
        std, mean = _reference_std(est, X)
        got_mean, got_std = est.predict(X, return_std=True)
        assert_allclose(got_mean, mean, rtol=1e-12)
        assert_allclose(got_std, std, rtol=1e-6)
        # never below the smallest state's own standard deviation
        assert np.all(got_std >= np.sqrt(est.emission_covariance_.min()) * (1 - 1e-9))
    # The offset only shifts the problem (targets are standardized inside; y + 1e9
    # is rounded to 1.2e-7, so after 30 iterations the fits differ by ~3e-4).
    assert_allclose(fits[1].predict(X, return_std=True)[1],
                    fits[0].predict(X, return_std=True)[1], rtol=1e-2)



@pytest.mark.parametrize("name", ["reg", "hier-reg"])
@pytest.mark.parametrize("step_level", [False, True])
def test_r2_of_targets_near_1e200(name, step_level):
    """Found by the long fuzz run: score of targets near 1e196 summed squares
    to inf and returned nan (inf / inf) with a RuntimeWarning, where R^2 was
    -0.25. R^2 is now the direct formula, 1 - sum (y - p)^2 / sum (y - mean)^2,
    computed on y and p divided by the targets' magnitude."""
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(k, 2)) for k in (3, 4, 2, 5, 3, 4)]
    if step_level:
        y = [x[:, 0] + rng.normal(scale=0.3, size=len(x)) for x in X]
    else:
        y = np.array([x[:, 0].sum() + rng.normal(scale=0.3) for x in X])
    est = SHARED[name]().fit(X, y)
    big = [v * 1e200 for v in y] if step_level else y * 1e200
    pred = est.predict(X)
    t = np.concatenate(y) if step_level else y
    p = (np.concatenate(pred) if step_level else pred) / 1e200
    expected = 1 - np.sum((t - p) ** 2) / np.sum((t - t.mean()) ** 2)
    assert_allclose(est.score(X, big), expected, rtol=1e-9)


@pytest.mark.parametrize("name", ["reg", "hier-reg"])
def test_targets_of_spread_1e_160_are_predicted_as_their_mean(name):
    """Found with the above: targets spread by about 1e-160 count as constant
    (a spread below 1e-12), predicted exactly by their mean, but the variance
    floor was still divided by their spread squared, which overflowed. A floor
    more than 1e300 times a modelled output's variance is refused."""
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(k, 2)) for k in (3, 4, 2, 5, 3, 4)]
    y = np.array([x[:, 0].sum() + rng.normal(scale=0.3) for x in X]) * 1e-160
    est = SHARED[name]().fit(X, y)
    assert_allclose(est.predict(X), np.full(len(X), y.mean()), rtol=1e-12)
    with pytest.raises(ValueError, match="min_covar=1e.305 is more than 1e300"):
        SHARED[name](min_covar=1e305).fit(X, y * 1e160)
