"""Regime inference given the observed outputs, tied covariances and standard
errors, against independent references: brute-force enumeration of state
paths, a step-by-step forecast, finite differences of the log-likelihood."""

import itertools
import warnings

import numpy as np
import pytest
from scipy.special import softmax
from scipy.stats import multivariate_normal
from sklearn.exceptions import ConvergenceWarning

from skseq import HierarchicalIOHMM, IOHMMClassifier, IOHMMRegressor


def _data(n_seq=3, length=5, seed=0):
    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(length, 2)) for _ in range(n_seq)]
    y = [np.where(x[:, 0] > 0, 1.5 * x[:, 1], -1.0) + 0.3 * rng.normal(size=length)
         for x in X]
    y[0][2] = np.nan  # an unobserved step, which the filter must skip
    return X, y


def _fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y)


def _gaussian_density(est, x, y_step, t, state):
    mean = x[t] @ est.emission_coef_[:, state, :] + est.emission_intercept_[state]
    cov = est.emission_covariance_
    cov = cov if cov.ndim == 1 else cov[state]
    cov = np.diag(np.broadcast_to(cov, mean.shape)) if np.ndim(cov) <= 1 else cov
    return multivariate_normal(mean, cov).pdf(np.atleast_1d(y_step))


def _categorical_density(est, x, label, t, state):
    logits = x[t] @ est.emission_coef_[:, state, :] + est.emission_intercept_[state]
    return softmax(logits)[np.searchsorted(est.classes_, label)]


def _brute_force(est, x, y, density, observed_until=None):
    """State marginals by enumerating every path x_0..x_T: the filtered, the
    smoothed and the one-step predicted distributions."""
    T, n = x.shape[0], est.startprob_.shape[0]
    trans = est.transition_proba([x])[0]
    seen = ~np.isnan(np.asarray(y, float))
    emit = np.ones((T, n))
    for t in range(T):
        for i in range(n):
            if seen[t]:
                emit[t, i] = density(est, x, y[t], t, i)
    # joint[t][path] = P(x_0..x_t, y_1..t); enumerate up to every t
    filtered, predicted = np.zeros((T, n)), np.zeros((T, n))
    smoothed = np.zeros((T, n))
    for t in range(T):
        for path in itertools.product(range(n), repeat=t + 2):
            p = est.startprob_[path[0]]
            for s in range(t + 1):
                p *= trans[s, path[s], path[s + 1]]
            before = p * np.prod([emit[s, path[s + 1]] for s in range(t)])
            predicted[t, path[-1]] += before
            filtered[t, path[-1]] += before * emit[t, path[-1]]
            if t == T - 1:
                for s in range(T):
                    smoothed[s, path[s + 1]] += before * emit[t, path[-1]]
    norm = lambda a: a / a.sum(axis=1, keepdims=True)  # noqa: E731
    return norm(filtered), norm(smoothed), norm(predicted), emit


def _regressor():
    X, y = _data()
    return X, y, _fit(IOHMMRegressor(2, n_init=1, max_iter=30, random_state=0), X, y)


@pytest.mark.parametrize("smoothed", [False, True])
def test_regressor_state_proba_given_y_matches_enumeration(smoothed):
    X, y, reg = _regressor()
    got = reg.predict_state_proba(X, y, smoothed=smoothed)
    for s in range(len(X)):
        filt, smooth, _, _ = _brute_force(reg, X[s], y[s], _gaussian_density)
        np.testing.assert_allclose(got[s], smooth if smoothed else filt, atol=1e-10)


def test_state_proba_without_y_unchanged_and_smoothing_alone_is_filtering():
    X, y, reg = _regressor()
    base = reg.predict_state_proba(X)
    last_only = [np.r_[np.full(len(x) - 1, np.nan), 1.0] for x in X]
    # nothing observed before the last step: the inputs' filter until then
    for a, b, c in zip(base, reg.predict_state_proba(X, smoothed=True),
                       reg.predict_state_proba(X, last_only), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-12)
        np.testing.assert_allclose(a[:-1], c[:-1], atol=1e-12)
    with pytest.raises(TypeError, match="smoothed"):
        reg.predict_state_proba(X, y, smoothed="yes")


def test_one_step_forecasts_match_a_step_by_step_reference():
    X, y, reg = _regressor()
    mean, std = reg.predict(X, y, return_std=True)
    for s, x in enumerate(X):
        _, _, pred, _ = _brute_force(reg, x, y[s], _gaussian_density)
        for t in range(len(x)):
            means = x[t] @ reg.emission_coef_[:, :, 0] + reg.emission_intercept_[:, 0]
            var = reg.emission_covariance_[:, 0]
            m = pred[t] @ means
            assert mean[s][t] == pytest.approx(m, abs=1e-10)
            assert std[s][t] == pytest.approx(
                np.sqrt(pred[t] @ (var + (means - m) ** 2)), abs=1e-10)
    # causal: changing y_t and later leaves the forecasts up to t unchanged
    y2 = [v.copy() for v in y]
    y2[1][3:] += 10.0
    np.testing.assert_array_equal(reg.predict(X, y2)[1][:4], mean[1][:4])
    assert reg.predict(X, y2)[1][4] != mean[1][4]


def test_sequences_without_an_observed_output_are_forecast_from_the_inputs():
    """Per sequence: one whose outputs are all unobserved (NaN) gets the
    inputs-only forecast of predict(X), the others the step-by-step one given
    their outputs; a y observing no step at all conditions on nothing."""
    X, y, reg = _regressor()
    y_mixed = [y[0], np.full(len(X[1]), np.nan), y[2]]
    mean, std = reg.predict(X, y_mixed, return_std=True)
    alone, alone_std = reg.predict(X, return_std=True)
    np.testing.assert_allclose(mean[1], alone[1], rtol=1e-12)
    np.testing.assert_allclose(std[1], alone_std[1], rtol=1e-12)
    for s in (0, 2):
        _, _, pred, _ = _brute_force(reg, X[s], y[s], _gaussian_density)
        means = X[s] @ reg.emission_coef_[:, :, 0] + reg.emission_intercept_[:, 0]
        np.testing.assert_allclose(mean[s], np.sum(pred * means, axis=1),
                                   atol=1e-10)
    nothing = [np.full(len(x), np.nan) for x in X]
    for a, b in zip(reg.predict(X, nothing), alone, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    for a, b in zip(reg.predict_state_proba(X, nothing, smoothed=True),
                    reg.predict_state_proba(X), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-12)
    for a, b in zip(reg.decode(X, nothing), reg.decode(X), strict=True):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="no step has a target"):
        reg.score_samples(X, nothing)  # nothing to score


def test_sequence_level_y_observes_the_last_step_only():
    X, y = _data()
    y_last = np.array([v[-1] for v in y])
    reg = _fit(IOHMMRegressor(2, n_init=1, max_iter=30, random_state=0), X, y_last)
    step_y = [np.r_[np.full(len(x) - 1, np.nan), v] for x, v in zip(X, y_last,
                                                                    strict=True)]
    for a, b in zip(reg.predict_state_proba(X, y_last, smoothed=True),
                    reg.predict_state_proba(X, step_y, smoothed=True), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-12)
    # the last step's forecast uses no output: the inputs-only prediction
    np.testing.assert_allclose(reg.predict(X, y_last), reg.predict(X), atol=1e-12)


@pytest.mark.parametrize("smoothed", [False, True])
def test_classifier_state_proba_given_y_matches_enumeration(smoothed):
    rng = np.random.default_rng(1)
    X = [rng.normal(size=(4, 2)) for _ in range(3)]
    y = [np.where(x[:, 0] > 0, "a", "b").astype(object) for x in X]
    y[1][1] = None
    clf = _fit(IOHMMClassifier(2, features="raw", n_init=1, max_iter=20,
                               random_state=0), X, y)
    got = clf.predict_state_proba(X, y, smoothed=smoothed)
    for s, x in enumerate(X):
        labels = np.array([np.nan if v is None else 0.0 for v in y[s]])
        filt, smooth, _, _ = _brute_force(
            clf, x, labels,
            lambda est, x, _, t, i, s=s: _categorical_density(est, x, y[s][t], t, i))
        np.testing.assert_allclose(got[s], smooth if smoothed else filt, atol=1e-10)
    # no label observed: the states given the inputs alone
    unlabelled = [np.full(len(x), None, dtype=object) for x in X]
    for a, b in zip(clf.predict_state_proba(X, unlabelled, smoothed=smoothed),
                    clf.predict_state_proba(X), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-12)


def test_hierarchical_levels_are_marginals_of_the_enumeration():
    X, y = _data(n_seq=2, length=4)
    hier = _fit(HierarchicalIOHMM(n_states=(2, 2), task="regression", features="raw",
                                  n_init=1, max_iter=20, random_state=0), X, y)
    slow, fast = hier.predict_state_proba(X, y, smoothed=True)
    for s, x in enumerate(X):
        _, smooth, _, _ = _brute_force(hier, x, y[s], _gaussian_density)
        full = smooth.reshape(-1, 2, 2)
        np.testing.assert_allclose(slow[s], full.sum(axis=2), atol=1e-10)
        np.testing.assert_allclose(fast[s], full.sum(axis=1), atol=1e-10)


def test_tied_state_emission_is_the_switching_mean_model():
    """covariance_type="tied" with emission="state": y_t = mu_{x_t} + e_t, one
    variance for every regime; its likelihood by Hamilton's (1989) filter
    written out from the fitted attributes."""
    rng = np.random.default_rng(3)
    states = np.repeat([0, 1, 0, 1], 15)
    y = np.array([0.0, 3.0])[states] + rng.normal(size=states.size)
    X = [np.zeros((y.size, 1))]
    reg = _fit(IOHMMRegressor(2, emission="state", transition="homogeneous",
                              covariance_type="tied", n_init=5, random_state=0),
               X, [y])
    assert reg.emission_covariance_.shape == (1, 1)
    mu, var = reg.emission_intercept_[:, 0], reg.emission_covariance_[0, 0]
    A = reg.transition_proba(X)[0][0]
    p, loglik = reg.startprob_, 0.0
    for v in y:
        joint = (p @ A) * np.exp(-0.5 * (v - mu) ** 2 / var) / np.sqrt(2 * np.pi * var)
        loglik += np.log(joint.sum())
        p = joint / joint.sum()
    assert reg.score_samples(X, [y])[0] == pytest.approx(loglik, rel=1e-10)
    assert sorted(mu) == pytest.approx([0.0, 3.0], abs=0.5)


def _switching_mean_series(seed=3, size=60):
    rng = np.random.default_rng(seed)
    states = np.repeat([0, 1, 0, 1], size // 4)
    y = np.array([0.0, 3.0])[states] + rng.normal(size=states.size)
    return [np.zeros((y.size, 1))], [y]


def _hamilton_loglik(P, mu, var, y, start=None):
    """Hamilton's (1989) filter of the switching-mean model started at
    ``start`` (the state before the first step), by default the stationary
    distribution of P (from its eigenvector of eigenvalue 1)."""
    w, V = np.linalg.eig(P.T)
    p = np.real(V[:, np.argmin(np.abs(w - 1))]) if start is None else start
    p, loglik = p / p.sum(), 0.0
    for v in y:
        joint = (p @ P) * np.exp(-0.5 * (v - mu) ** 2 / var) / np.sqrt(2 * np.pi * var)
        loglik += np.log(joint.sum())
        p = joint / joint.sum()
    return loglik


def _assert_gradient_is_the_differences(problem, theta, eps=1e-6):
    """The objective's gradient against its central differences."""
    _, grad = problem.value_and_grad(theta)
    num = [(problem.value_and_grad(theta + e)[0] - problem.value_and_grad(theta - e)[0])
           / (2 * eps) for e in np.eye(theta.size) * eps]
    np.testing.assert_allclose(grad, num, rtol=1e-5, atol=1e-7)


def _switching_mean_fit():
    X, y = _switching_mean_series()
    reg = _fit(IOHMMRegressor(2, emission="state", transition="homogeneous",
                              covariance_type="tied", startprob="stationary",
                              alpha=0, n_init=5, tol=1e-10, random_state=0), X, y)
    return X, y, reg


def test_stationary_start_is_the_chains_stationary_distribution():
    X, y, reg = _switching_mean_fit()
    P = reg.transition_proba(X)[0][0]
    np.testing.assert_allclose(reg.startprob_ @ P, reg.startprob_, atol=1e-12)
    mu, var = reg.emission_intercept_[:, 0], reg.emission_covariance_[0, 0]
    assert reg.log_likelihood_ == pytest.approx(_hamilton_loglik(P, mu, var, y[0]),
                                                rel=1e-10)
    with pytest.raises(ValueError, match="homogeneous"):
        IOHMMRegressor(2, startprob="stationary").fit(X, y)
    with pytest.raises(ValueError, match="lbfgs"):
        IOHMMRegressor(2, transition="homogeneous", startprob="stationary",
                       solver="em").fit(X, y)


def test_stationary_start_gradient_matches_finite_differences():
    from skseq._fit.objective import Problem as _Problem

    X, y, reg = _switching_mean_fit()
    seqs = reg._checked(X)
    targets = reg.outputs_.encode(y, seqs)
    model = reg._fitted_model()
    problem = _Problem(seqs, targets, np.ones(1), model.transition, model.emission,
                       model.mask, "stationary", 0.1, None,
                       inputs=reg.representation_.inputs(seqs, targets.steps))
    theta = np.r_[model.theta_t, model.theta_e] + np.random.default_rng(0).normal(
        scale=0.3, size=problem.n_params)
    _assert_gradient_is_the_differences(problem, theta)


def _second_differences(loglik, psi):
    """The Hessian of ``loglik`` at ``psi`` by central second differences."""
    h = 1e-4 * np.maximum(np.abs(psi), 1.0)
    eye = np.eye(psi.size)
    H = np.empty((psi.size, psi.size))
    for a in range(psi.size):
        for b in range(psi.size):
            ea, eb = eye[a] * h[a], eye[b] * h[b]
            H[a, b] = (loglik(psi + ea + eb) - loglik(psi + ea - eb)
                       - loglik(psi - ea + eb)
                       + loglik(psi - ea - eb)) / (4 * h[a] * h[b])
    return H


def test_standard_errors_against_a_finite_difference_hessian():
    """The observed information by second differences of the log-likelihood
    (Hamilton's filter written out), in the documented parametrisation:
    transition logits relative to the last state, means, the variance."""
    X, y, reg = _switching_mean_fit()
    se, cov = reg.standard_errors(X, y, return_cov=True)
    logits = reg.transition_intercept_ - reg.transition_intercept_[:, -1:]
    psi = np.r_[logits[:, 0], reg.emission_intercept_[:, 0],
                reg.emission_covariance_[0, 0]]

    def loglik(q):
        P = softmax(np.c_[q[:2], np.zeros(2)], axis=1)
        return _hamilton_loglik(P, q[2:4], q[4], y[0])

    ref = np.linalg.inv(-_second_differences(loglik, psi))
    np.testing.assert_allclose(cov, ref, rtol=2e-3, atol=1e-8)
    np.testing.assert_allclose(se["transition_intercept"][:, 0],
                               np.sqrt(np.diag(ref))[:2], rtol=1e-3)
    assert np.isnan(se["transition_intercept"][:, 1]).all()
    assert se["emission_covariance"][0, 0] == pytest.approx(np.sqrt(ref[4, 4]),
                                                            rel=1e-3)
    # the probabilities by the delta method: d P[j, 0] / d logit_j = P0 P1
    P = reg.transition_proba(X)[0][0]
    np.testing.assert_allclose(se["transition_proba"][:, 0],
                               P[:, 0] * P[:, 1] * np.sqrt(np.diag(ref))[:2], rtol=1e-3)


def test_standard_errors_of_an_unconverged_fit_warn():
    X, y, reg = _switching_mean_fit()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reg.standard_errors(X, y)
    reg.converged_ = False
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        reg.standard_errors(X, y)


def test_standard_errors_refuse_an_unidentified_model():
    X, y, reg = _switching_mean_fit()
    # a regime that is never entered: its mean has no effect on the likelihood
    reg.transition_intercept_ = np.array([[0.0, -30.0], [0.0, -30.0]])
    with pytest.raises(ValueError, match="not identified"):
        reg.standard_errors(X, y)
    mlp = _fit(IOHMMRegressor(2, emission="mlp", n_hidden=2, n_init=1, max_iter=5,
                              random_state=0), *_data()[:2])
    with pytest.raises(ValueError, match="not identified"), \
            pytest.warns(ConvergenceWarning, match="did not converge"):
        mlp.standard_errors(*_data()[:2])


def test_standard_errors_name_the_parameter_a_singular_information_misses():
    """A structural break: the later regime is never left, its probability
    of leaving estimated at 0, its leaving logit at minus infinity, where the
    likelihood is flat; the error named causes but no parameter."""
    rng = np.random.default_rng(0)
    X, y = [np.zeros((120, 1))], [np.repeat([0.0, 4.0], 60) + rng.normal(size=120)]
    reg = _fit(IOHMMRegressor(2, transition="homogeneous", emission="state",
                              covariance_type="tied", startprob="uniform",
                              alpha=0, n_init=2, tol=1e-10, random_state=0), X, y)
    later = int(np.argmax(reg.emission_intercept_[:, 0]))  # the mean-4 regime
    # its row's one free logit (the last state is the reference)
    with pytest.raises(ValueError, match=rf"not identified.*moves "
                                         rf"transition_intercept\[{later}, 0\] most"):
        reg.standard_errors(X, y)
    # a regime never entered: nothing in the data moves its mean
    X, y, reg = _switching_mean_fit()
    reg.transition_intercept_ = np.array([[0.0, -30.0], [0.0, -30.0]])
    with pytest.raises(ValueError, match=r"moves emission_intercept\[1, 0\] most"):
        reg.standard_errors(X, y)


def test_fedfunds_switching_mean_reproduces_statas_published_fit():
    """Stata's mswitch manual (Stata 14), the Federal-funds rate with a switching
    constant and one variance: log-likelihood -508.63592, p11 0.9820939 (SE
    0.0104002), p21 0.0503587 (0.0268434), constants 3.70877 (0.1767083) and
    9.556793 (0.2999889), sigma 2.107562."""
    from skseq.datasets import load_fedfunds

    rate = load_fedfunds().rate
    X, y = [np.zeros((rate.size, 1))], [rate]
    reg = _fit(IOHMMRegressor(2, transition="homogeneous", emission="state",
                              covariance_type="tied", startprob="stationary",
                              alpha=0, n_init=3, tol=1e-10, random_state=0), X, y)
    assert reg.log_likelihood_ >= -508.63592 - 1e-4
    low = int(np.argmin(reg.emission_intercept_[:, 0]))
    order = [low, 1 - low]
    P = reg.transition_proba(X)[0][0][np.ix_(order, order)]
    se = reg.standard_errors(X, y)
    se_P = se["transition_proba"][np.ix_(order, order)]
    np.testing.assert_allclose([P[0, 0], P[1, 0]], [0.9820939, 0.0503587], atol=1e-4)
    np.testing.assert_allclose(reg.emission_intercept_[order, 0], [3.70877, 9.556793],
                               atol=1e-3)
    assert np.sqrt(reg.emission_covariance_[0, 0]) == pytest.approx(2.107562, abs=1e-4)
    np.testing.assert_allclose([se_P[0, 0], se_P[1, 0]], [0.0104002, 0.0268434],
                               rtol=1e-3)
    np.testing.assert_allclose(se["emission_intercept"][order, 0],
                               [0.1767083, 0.2999889], rtol=1e-3)


def test_transition_l1_objective_and_gradient():
    """The L1 penalty on the transition weights: the objective is the
    unpenalised one plus transition_l1 * sum(sqrt(w^2 + s^2) - s) / W (the
    transition weights out of alpha's L2), and the gradient its central
    differences."""
    from skseq._data import Targets, check_sequences
    from skseq._families.emissions import GaussianEmission
    from skseq._families.layers import LAYERS
    from skseq._families.transitions import InputTransitions
    from skseq._fit.objective import _L1_SMOOTHING
    from skseq._fit.objective import Problem as _Problem

    rng = np.random.default_rng(0)
    seqs = check_sequences([rng.normal(size=(k, 2)) for k in (2, 4, 3)])
    targets = Targets(steps=np.array([0, 1, 3, 5, 6, 8]),
                      values=rng.normal(size=(6, 1)), step_level=True)

    def problem(alpha, l1):
        emit = GaussianEmission(2, LAYERS["input"](2, 2), 1, "diag", 1e-3,
                                y_mean=np.zeros(1), y_scale=np.ones(1))
        return _Problem(seqs, targets, np.array([1.0, 2.0, 0.5]),
                        InputTransitions(2, 2), emit, np.ones((2, 2), bool), None,
                        alpha, None, transition_l1=l1)

    l1, plain = problem(0.3, 0.05), problem(0.3, 0.0)
    theta = rng.normal(size=l1.n_params)
    w = l1.split(theta)[1][:8]  # the (2, 2, 2) input weights, before the intercept
    e = l1.split(theta)[2][:4]  # the (2, 2, 1) output weights: still L2
    value = l1.value_and_grad(theta)[0]
    unpenalised = problem(0.0, 0.0).value_and_grad(theta)[0]
    expected = unpenalised + (0.05 * np.sum(np.sqrt(w**2 + _L1_SMOOTHING**2)
                                            - _L1_SMOOTHING) + 0.15 * e @ e) / 3.5
    assert value == pytest.approx(expected, rel=1e-12)
    assert value != pytest.approx(plain.value_and_grad(theta)[0])
    _assert_gradient_is_the_differences(l1, theta)


def test_transition_l1_em_never_increases_the_objective():
    X, y = _data(n_seq=6, length=12, seed=2)
    y = [np.nan_to_num(v) for v in y]
    reg = IOHMMRegressor(2, transition_l1=0.05, solver="em", warm_start=True,
                         max_iter=1, n_init=1, random_state=0)
    objectives = [_fit(reg, X, y).objective_ for _ in range(8)]
    assert np.all(np.diff(objectives) <= 1e-10)
    assert objectives[-1] < objectives[0]


def test_return_std_must_be_a_bool_and_is_not_the_observed_outputs():
    """The hierarchical model forecasts from the inputs only: outputs passed
    as IOHMMRegressor.predict's y were taken as return_std=True, a truthy
    list, and returned (means, stds) silently."""
    X, y = _data(n_seq=2, length=4)
    hier = _fit(HierarchicalIOHMM((2, 1), task="regression", features="raw",
                                  n_init=1, max_iter=3, random_state=0), X, y)
    with pytest.raises(TypeError):
        hier.predict(X, y)
    with pytest.raises(TypeError, match="return_std must be True or False"):
        hier.predict(X, return_std="no")
    reg = _regressor()[2]
    with pytest.raises(TypeError, match="return_std must be True or False"):
        reg.predict(X, return_std="no")
    mean, std = reg.predict(X, return_std=True)
    assert len(mean) == len(std) == 2


def test_stationary_start_needs_every_state_to_reach_every_other():
    """A left-right or block topology has no stationary distribution that
    weighs every state: the fit failed as 'diverged ... scale the features',
    or (left-right) started every sequence in the absorbing last state."""
    X, y = _switching_mean_series()
    kw = dict(transition="homogeneous", emission="state", startprob="stationary",
              n_init=1, max_iter=50, random_state=0)
    reg = _fit(IOHMMRegressor(3, **kw), X, y)
    before = reg.startprob_.copy()
    for topology in ["left-right", np.eye(3), [[1, 1, 0], [1, 1, 0], [0, 0, 1]]]:
        with pytest.raises(ValueError, match="every state can reach every other"):
            reg.set_params(topology=topology).fit(X, y)
    np.testing.assert_array_equal(reg.startprob_, before)
    # a cycle 0 -> 1 -> 2 -> 0 (no state keeps itself) is irreducible
    cycle = _fit(reg.set_params(topology=np.roll(np.eye(3), 1, axis=1)), X, y)
    P = cycle.transition_proba(X)[0][0]
    np.testing.assert_allclose(P, np.roll(np.eye(3), 1, axis=1), atol=1e-12)
    np.testing.assert_allclose(cycle.startprob_, np.full(3, 1 / 3), rtol=1e-12)


def test_standard_errors_hold_a_learned_start_at_the_boundary():
    """One series: the likelihood is linear in the start distribution, whose
    estimate is a vertex. Its logits were in the information matrix: at a tight
    tol the call failed as 'not identified', at the default one it returned a
    start-logit standard error of about 20, as meaningless as 7,000."""
    X, y = _switching_mean_series()
    reg = _fit(IOHMMRegressor(2, emission="state", transition="homogeneous",
                              covariance_type="tied", alpha=0, n_init=2,
                              tol=1e-10, random_state=1), X, y)
    assert reg.startprob_.min() < 1e-6
    with pytest.warns(UserWarning, match="start distribution is at the boundary"):
        se, cov = reg.standard_errors(X, y, return_cov=True)
    assert np.isnan(se["startprob_logit"]).all()
    assert np.isnan(cov[0]).all() and np.isnan(cov[:, 0]).all()
    logits = reg.transition_intercept_ - reg.transition_intercept_[:, -1:]
    psi = np.r_[logits[:, 0], reg.emission_intercept_[:, 0],
                reg.emission_covariance_[0, 0]]

    def loglik(q):
        P = softmax(np.c_[q[:2], np.zeros(2)], axis=1)
        return _hamilton_loglik(P, q[2:4], q[4], y[0], start=reg.startprob_)

    ref = np.linalg.inv(-_second_differences(loglik, psi))
    np.testing.assert_allclose(cov[1:, 1:], ref, rtol=2e-3, atol=1e-8)
    np.testing.assert_allclose(se["emission_intercept"][:, 0],
                               np.sqrt(np.diag(ref))[2:4], rtol=1e-3)
    P = reg.transition_proba(X)[0][0]
    np.testing.assert_allclose(se["transition_proba"][:, 0],
                               P[:, 0] * P[:, 1] * np.sqrt(np.diag(ref))[:2], rtol=1e-3)


@pytest.mark.parametrize("scale, shift", [(1.0, 1e5), (1e-3, 1e6), (1e120, 0.0),
                                          (1e-120, 0.0)])
def test_standard_errors_follow_the_units_of_y(scale, shift):
    """y * scale + shift: the same fit, its means' standard errors times scale,
    the variance's times scale^2. The difference steps were relative to the
    parameters in the units of y (a mean of 1e5 was stepped by 1, many noise
    standard deviations: errors 14% off, silently) and the identification test
    compared curvatures in different units (1e3 * y: 'not identified'). The
    Hessian was taken in the units of y, whose entries for a variance (1e-480
    at y ~ 1e120) left float64: a LinAlgError."""
    X, y, reg = _switching_mean_fit()
    se = reg.standard_errors(X, y)
    y2 = [v * scale + shift for v in y]
    params = {**reg.get_params(), "min_covar": 1e-6 * scale**2, "n_init": 1}
    reg2 = _fit(IOHMMRegressor(**params), X, y2)
    assert reg2.log_likelihood_ == pytest.approx(
        reg.log_likelihood_ - y[0].size * np.log(scale), rel=1e-9)
    se2 = reg2.standard_errors(X, y2)
    for name, power in [("emission_intercept", 1), ("emission_covariance", 2),
                        ("transition_proba", 0)]:  # sorted: the regimes' order
        np.testing.assert_allclose(np.sort(se2[name], axis=None),
                                   np.sort(se[name], axis=None) * scale**power,
                                   rtol=1e-4)


def test_standard_errors_of_one_regime_are_those_of_the_gaussian():
    """One regime has no start logits: nothing is held, nothing warned (the
    boundary warning was given for a single series); the mean's and the
    variance's errors are sigma / sqrt(T) and sigma^2 sqrt(2 / T)."""
    X, y = _switching_mean_series()
    one = _fit(IOHMMRegressor(1, emission="state", alpha=0, tol=1e-10,
                              random_state=0), X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        se = one.standard_errors(X, y)
    var, T = np.var(y[0]), y[0].size
    assert se["emission_intercept"][0, 0] == pytest.approx(np.sqrt(var / T), rel=1e-6)
    assert se["emission_covariance"][0, 0] == pytest.approx(var * np.sqrt(2 / T),
                                                            rel=1e-6)


def test_standard_errors_read_the_start_rule_of_the_fit():
    """``startprob`` set after a fit takes effect at the next fit: the
    standard errors stay those of the fitted model (its stationary start, a
    function of the transitions). They were computed with the start set
    since, fixed at (0.9, 0.1): a different model's, silently."""
    X, y, reg = _switching_mean_fit()
    se = reg.standard_errors(X, y)
    for startprob in ([0.9, 0.1], "uniform"):
        reg.set_params(startprob=startprob)
        after = reg.standard_errors(X, y)
        for name in se:
            np.testing.assert_array_equal(after[name], se[name])


def test_return_cov_must_be_a_bool():
    """A truthy non-bool (a string, the outputs of another series) returned the
    pair (standard errors, covariance) in place of the dict, silently."""
    X, y = _switching_mean_series()
    one = _fit(IOHMMRegressor(1, emission="state", alpha=0, tol=1e-10,
                              random_state=0), X, y)
    with pytest.raises(TypeError, match="return_cov must be True or False"):
        one.standard_errors(X, y, return_cov="no")
    se = one.standard_errors(X, y, return_cov=False)
    # one regime: the mean's standard error is sigma / sqrt(T)
    assert se["emission_intercept"][0, 0] == pytest.approx(
        np.sqrt(np.var(y[0]) / y[0].size), rel=1e-6)
