"""IOHMMRegressor.standard_errors on data whose likelihood the fit does not
maximise (other sequences than the training ones, a weighted fit): the observed
information there describes no estimate, and the call warns, measuring how far
one Newton step moves the parameters against a hand-written Hamilton filter's
finite differences. It returned the numbers silently."""

import re
import warnings

import numpy as np
import pytest
from scipy.special import softmax

from skseq import IOHMMRegressor


def _series(seed=3, size=80):
    rng = np.random.default_rng(seed)
    states = np.repeat([0, 1, 0, 1], size // 4)
    y = np.array([0.0, 3.0])[states] + rng.normal(size=states.size)
    return [np.zeros((y.size, 1))], [y]


def _fit(X, y, sample_weight=None):
    reg = IOHMMRegressor(2, emission="state", transition="homogeneous",
                         covariance_type="tied", startprob="stationary", alpha=0,
                         n_init=3, tol=1e-10, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return reg.fit(X, y, sample_weight=sample_weight)


def _loglik(psi, y):
    """The switching-mean model's log-likelihood at psi = (the two rows'
    logits of state 0 against state 1, the two means, the variance), by
    Hamilton's filter from the chain's stationary distribution."""
    P = softmax(np.c_[psi[:2], np.zeros(2)], axis=1)
    mu, var = psi[2:4], psi[4]
    p = np.array([P[1, 0], P[0, 1]]) / (P[1, 0] + P[0, 1])  # stationary
    total = 0.0
    for v in y:
        joint = (p @ P) * np.exp(-0.5 * (v - mu) ** 2 / var) / np.sqrt(2 * np.pi * var)
        total += np.log(joint.sum())
        p = joint / joint.sum()
    return total


def _newton_move(reg, y):
    """The largest move, in standard errors, of one Newton step from the
    fitted parameters on the series ``y``: gradient and Hessian by central
    differences of :func:`_loglik`."""
    logits = reg.transition_intercept_[:, 0] - reg.transition_intercept_[:, 1]
    psi = np.r_[logits, reg.emission_intercept_[:, 0], reg.emission_covariance_[0, 0]]
    h = 1e-4 * np.maximum(np.abs(psi), 1.0)
    eye = np.eye(psi.size) * h
    f = lambda q: _loglik(q, y)  # noqa: E731
    grad = np.array([(f(psi + e) - f(psi - e)) / (2 * e[a])
                     for a, e in enumerate(eye)])
    hess = np.array([[(f(psi + ea + eb) - f(psi + ea - eb) - f(psi - ea + eb)
                       + f(psi - ea - eb)) / (4 * h[a] * h[b])
                      for b, eb in enumerate(eye)] for a, ea in enumerate(eye)])
    cov = np.linalg.inv(-hess)
    return np.max(np.abs(cov @ grad) / np.sqrt(np.diag(cov)))


def test_training_data_give_no_warning():
    X, y = _series()
    reg = _fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reg.standard_errors(X, y)


def test_other_data_warn_with_the_newton_steps_size():
    X, y = _series()
    reg = _fit(X, y)
    X_new, y_new = _series(seed=5)  # another draw of the same model
    with pytest.warns(UserWarning, match="not at a maximum") as record:
        reg.standard_errors(X_new, y_new)
    moved = float(re.search(r"moves a parameter by ([0-9.e+-]+) of its",
                            str(record[0].message)).group(1))
    reference = _newton_move(reg, y_new[0])
    assert reference > 1.0
    assert moved == pytest.approx(reference, rel=1e-2)


def test_a_weighted_fit_warns():
    """The standard errors read every sequence once: at a fit that weighed
    one series three times, the unweighted likelihood is not at its maximum."""
    X, y = [], []
    for seed in range(4):
        Xs, ys = _series(seed=seed, size=40)
        X += Xs
        y += [ys[0] + (0.0 if seed else 1.5)]
    reg = _fit(X, y, sample_weight=[3.0, 1.0, 1.0, 1.0])
    with pytest.warns(UserWarning, match="not at a maximum"):
        reg.standard_errors(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _fit(X, y).standard_errors(X, y)
