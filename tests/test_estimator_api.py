"""What scikit-learn and hmmlearn users expect of the IOHMM estimators:
class_weight, aic/bic, sample, progress and restart records, a memory check
before allocating, and convergence advice that follows from the data."""

import itertools
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.exceptions import ConvergenceWarning

import skseq._fit.resources as resources
from skseq import HierarchicalIOHMM, IOHMMClassifier, IOHMMRegressor
from skseq._data import Targets, check_sequences
from skseq._families.emissions import SoftmaxEmission
from skseq._families.layers import Identity
from skseq._families.transitions import TRANSITIONS
from skseq._fit.objective import Problem as _Problem
from skseq.datasets import make_tomita

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(int(rng.integers(2, 6)), 2)) for _ in range(n)]
    y = np.array([int(x[:, 0].sum() > 0.5) for x in X])
    return X, y


# -- class_weight -------------------------------------------------------------------
# A class weight multiplies the sequence's weight in the likelihood, as the same
# sample_weight does; it counts no copies where the fit counts sequences (the
# shape representation, alpha="auto"): there the two differ, by design.
_LIKELIHOOD_ONLY = dict(features="raw", alpha=0.01)


def test_class_weight_on_sequences_equals_sample_weight():
    X, y = _data()
    params = dict(n_states=2, n_init=1, max_iter=40, random_state=0,
                  **_LIKELIHOOD_ONLY)
    weighted = IOHMMClassifier(class_weight={0: 3.0, 1: 0.5}, **params).fit(X, y)
    by_sample = IOHMMClassifier(**params).fit(X, y, sample_weight=np.where(y == 0, 3.0,
                                                                           0.5))
    assert_allclose(weighted.transition_coef_, by_sample.transition_coef_, rtol=1e-10)
    assert_allclose(weighted.emission_coef_, by_sample.emission_coef_, rtol=1e-10)


def test_balanced_class_weight_is_n_over_k_times_count():
    X, y = _data()
    y[:30] = 0  # imbalanced: 30+ of class 0
    counts = np.bincount(y)
    expected = len(y) / (2 * counts)
    params = dict(n_states=2, n_init=1, max_iter=40, random_state=0,
                  **_LIKELIHOOD_ONLY)
    balanced = IOHMMClassifier(class_weight="balanced", **params).fit(X, y)
    by_sample = IOHMMClassifier(**params).fit(X, y, sample_weight=expected[y])
    assert_allclose(balanced.emission_intercept_, by_sample.emission_intercept_,
                    rtol=1e-10)


def test_step_level_class_weight_tempers_the_output_likelihood():
    """log P(y | u) with every labelled step's output likelihood raised to its
    class weight, against enumeration of every state path."""
    rng = np.random.default_rng(4)
    X = [rng.normal(size=(3, 1)), rng.normal(size=(2, 1))]
    seqs = check_sequences(X)
    steps = np.array([0, 2, 3, 4])
    y = np.array([0, 1, 1, 0])
    w = np.array([2.0, 0.5, 0.5, 2.0])
    trans = TRANSITIONS["input"](2, 1, 4)
    emit = SoftmaxEmission(2, Identity(1), 2)
    targets = Targets(steps=steps, values=y, step_level=True)
    problem = _Problem(seqs, targets, np.ones(2), trans, emit, None, None, 0.0, None,
                       target_weight=w)
    theta = rng.normal(size=problem.n_start + trans.n_params + emit.n_params)
    theta_s, theta_t, theta_e = problem.split(theta)
    start = problem.startprob(theta_s)
    A = trans.probs(theta_t, seqs.data, None)
    P = emit.predict_proba(theta_e, seqs.data)  # (T, n, k)
    total = 0.0
    for s in range(2):
        rows = range(seqs.offsets[s], seqs.offsets[s + 1])
        lik = 0.0
        for path in itertools.product(range(2), repeat=len(rows) + 1):
            p = start[path[0]]
            for k, t in enumerate(rows):
                p *= A[t, path[k], path[k + 1]]
                if t in steps:
                    i = list(steps).index(t)
                    p *= P[t, path[k + 1], y[i]] ** w[i]
            lik += p
        total += np.log(lik)
    assert_allclose(problem.loglik(theta).sum(), total, rtol=1e-12)
    # and its gradient (value_and_grad) against finite differences
    value, grad = problem.value_and_grad(theta)
    eps = 1e-6
    fd = [(problem.value_and_grad(theta + e)[0] - problem.value_and_grad(theta - e)[0])
          / (2 * eps) for e in np.eye(theta.size) * eps]
    assert_allclose(grad, fd, rtol=1e-6, atol=1e-8)


def test_step_level_class_weight_fits_and_balances():
    rng = np.random.default_rng(5)
    X = [rng.normal(size=(8, 1)) for _ in range(30)]
    y = [(x[:, 0] > 1.0).astype(int) for x in X]  # class 1 is rare
    params = dict(n_states=2, n_init=1, max_iter=60, random_state=0)
    plain = IOHMMClassifier(**params).fit(X, y)
    balanced = IOHMMClassifier(class_weight="balanced", **params).fit(X, y)
    recall = [np.mean(np.concatenate(m.predict(X))[np.concatenate(y) == 1])
              for m in (plain, balanced)]
    assert recall[1] >= recall[0]


# -- aic / bic -------------------------------------------------------------------------
def test_aic_bic_against_a_hand_count():
    X, y = make_tomita(4, 50, random_state=0)
    clf = IOHMMClassifier(2, emission="state", n_init=1, max_iter=30,
                          random_state=0).fit(X, y)
    # 2 one-hot features: transitions (2 + 1) x 2 rows x (2 - 1) = 6 free logit
    # parameters; outputs 2 states x (2 - 1) = 2; start 2 - 1 = 1.
    p = 6 + 2 + 1
    loglik = clf.score_samples(X, y).sum()
    assert_allclose(clf.aic(X, y), -2 * loglik + 2 * p, rtol=1e-12)
    assert_allclose(clf.bic(X, y), -2 * loglik + p * np.log(len(X)), rtol=1e-12)


def test_bic_counts_labelled_steps_for_step_level_targets():
    rng = np.random.default_rng(6)
    X = [rng.normal(size=(5, 1)) for _ in range(10)]
    y = [np.where(x[:, 0] > 0, 1.0, np.nan) for x in X]
    reg = IOHMMRegressor(2, n_init=1, max_iter=20, random_state=0).fit(X, y)
    n = int(np.sum([np.isfinite(v).sum() for v in y]))
    loglik = reg.score_samples(X, y).sum()
    p = reg._n_free_params_
    assert_allclose(reg.bic(X, y), -2 * loglik + p * np.log(n), rtol=1e-12)


# -- sample ----------------------------------------------------------------------------
def _hand_model():
    """The 2-state Moore machine of test_classifier.test_hand_worked_example."""
    X = [np.array([[1.0], [0.0]])]
    clf = IOHMMClassifier(n_states=2, transition="homogeneous", emission="state",
                          n_init=1, max_iter=1, random_state=0).fit(X + X, [0, 1])
    clf.startprob_ = np.array([0.6, 0.4])
    clf.transition_intercept_ = np.log([[0.7, 0.3], [0.2, 0.8]])
    clf.emission_intercept_ = np.log([[0.1, 0.9], [0.8, 0.2]])
    return clf, X


def test_sample_draws_the_hand_worked_distributions():
    clf, X = _hand_model()
    n = 20000
    y, states = clf.sample(X * n, random_state=0)
    states, y = np.array(states), np.array(y)
    # P(x_1) = [0.5, 0.5], P(x_2) = [0.45, 0.55]; P(y_2 = 1) = 0.515
    for t, p1 in [(0, 0.5), (1, 0.55)]:
        assert abs(np.mean(states[:, t] == 1) - p1) < 4 * np.sqrt(0.25 / n)
    assert abs(np.mean(y[:, 1] == 1) - 0.515) < 4 * np.sqrt(0.25 / n)
    # P(x_2 = 1 | x_1 = 0) = 0.3
    assert abs(np.mean(states[states[:, 0] == 0, 1] == 1) - 0.3) < 0.02
    # y depends on the state alone: P(y = 1 | x = 0) = 0.9
    assert abs(np.mean(y[states == 0] == 1) - 0.9) < 0.01


def test_sample_of_a_regressor_matches_its_predictive_mean_and_std():
    rng = np.random.default_rng(7)
    X = [rng.normal(size=(6, 1)) for _ in range(30)]
    y = [np.where(x[:, 0] > 0, 2 * x[:, 0], -x[:, 0]) + 0.1 * rng.normal(size=6)
         for x in X]
    reg = IOHMMRegressor(2, n_init=2, max_iter=50, random_state=0).fit(X, y)
    x0 = X[0]
    n = 20000
    draws, _ = reg.sample([x0] * n, random_state=1)
    draws = np.array(draws)
    mean, std = reg.predict([x0], return_std=True)
    assert_allclose(draws.mean(axis=0), mean[0], atol=4 * std[0].max() / np.sqrt(n))
    assert_allclose(draws.std(axis=0), std[0], rtol=0.05)


@pytest.mark.parametrize("Estimator", [IOHMMClassifier, IOHMMRegressor,
                                       HierarchicalIOHMM])
def test_sample_is_deterministic_and_shaped_like_decode(Estimator):
    X, y = _data(12)
    if Estimator is IOHMMRegressor:
        y = y.astype(float) + 0.1 * np.arange(12)
    est = Estimator(n_init=1, max_iter=10, random_state=0).fit(X, y)
    a, sa = est.sample(X, random_state=3)
    b, sb = est.sample(X, random_state=3)
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)
    decoded = est.decode(X)
    if Estimator is HierarchicalIOHMM:
        assert len(sa) == len(decoded) == 2
        sa, decoded = sa[0], decoded[0]
    assert [s.shape for s in sa] == [s.shape for s in decoded]
    assert [len(v) for v in a] == [len(x) for x in X]


# -- progress, restart records, memory, advice -----------------------------------------
def test_restart_records_and_progress(capsys):
    X, y = _data(20)
    clf = IOHMMClassifier(2, n_init=3, max_iter=5, verbose=1, random_state=0).fit(X, y)
    assert clf.n_init_ == 3 and clf.init_objectives_.shape == (3,)
    assert np.nanmin(clf.init_objectives_) == clf.objective_
    out = capsys.readouterr().out
    for k in (1, 2, 3):
        assert f"Restart {k}/3:" in out
    assert "best" in out and "elapsed" in out


def test_the_memory_a_fit_needs_is_checked_before_allocating(monkeypatch):
    monkeypatch.setattr(resources, "_available_memory", lambda: 2**20)  # 1 MiB
    X, y = _data(20)
    # (features="raw": the shape representation's indicators alone need
    # more than 1 MiB, and are refused first)
    clf = IOHMMClassifier(n_states=60, n_init=1, features="raw")
    with pytest.raises(ValueError, match=r"60 states on \d+ steps .* needs about"):
        clf.fit(X, y)
    assert not hasattr(clf, "n_features_in_")
    monkeypatch.setattr(resources, "_available_memory", lambda: None)
    small = IOHMMClassifier(n_states=60, n_init=1, max_iter=2,
                            features="raw").fit(X, y)
    monkeypatch.setattr(resources, "_available_memory", lambda: 2**20)
    with pytest.raises(ValueError, match="needs about"):
        small.predict_proba(X * 20)


def test_convergence_advice_follows_from_the_inputs():
    X, y = _data(20)
    params = dict(features="raw", n_init=1, max_iter=2, random_state=0)
    with pytest.warns(ConvergenceWarning) as record:
        IOHMMClassifier(2, **params).fit(X, y)
    assert "standardize" not in str(record[0].message)
    X_raw = [x * [1e4, 1e-3] + [5e4, 0] for x in X]
    with pytest.warns(ConvergenceWarning) as record:
        IOHMMClassifier(2, **params).fit(X_raw, y)
    assert "standardize the inputs" in str(record[0].message)


def test_nothing_is_printed_without_verbose(capsys):
    X, y = _data(10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        IOHMMClassifier(2, n_init=2, max_iter=3, random_state=0).fit(X, y)
    assert capsys.readouterr().out == ""
