"""The GEM M-step's bound step (``skseq._families.linear_m_step``,
``skseq._fit.m_step``): Böhning's (1992) matrix bounds the softmax regression's
Hessian, the step maximises the quadratic minorant and raises the M-step
objective, and GEM with it ends where L-BFGS does."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.exceptions import ConvergenceWarning

from skseq import IOHMMClassifier
from skseq._families.linear_m_step import Design, SoftmaxBound
from skseq._families.transitions import TRANSITIONS


def _softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("n_classes", [2, 3, 5])
@pytest.mark.parametrize("alpha", [0.0, 0.7])
def test_bohning_matrix_bounds_the_hessian_and_the_step_solves_it(n_classes, alpha):
    """B - H is positive semi-definite (its eigenvalues, computed directly) for
    the exact Hessian H = sum_t w_t (x x^T) (x) (diag p - p p^T) + alpha P at
    random, also near-deterministic, parameters; the step is B^+ g."""
    rng = np.random.default_rng(n_classes)
    K, T, d = n_classes, 7, 2
    X = np.hstack([rng.normal(size=(T, d)), np.ones((T, 1))])
    w = rng.random(T)
    penalised = np.arange(d + 1) < d
    bound = SoftmaxBound((X * w[:, None]).T @ X, penalised, alpha)
    bound.grams = bound.grams[None]
    B = bound.matrix(0, K)
    for scale in (0.1, 1.0, 10.0):
        theta = rng.normal(scale=scale, size=(d + 1, K))
        p = _softmax(X @ theta)
        H = sum(w_t * np.kron(np.outer(x, x), np.diag(p_t) - np.outer(p_t, p_t))
                for w_t, x, p_t in zip(w, X, p, strict=True))
        H += np.kron(np.diag(alpha * penalised), np.eye(K))
        gap = np.linalg.eigvalsh(B - H)
        assert gap.min() >= -1e-12 * np.abs(B).max()
    g = rng.normal(size=(1, d + 1, K))
    g[0, -1] -= g[0, -1].mean()  # the intercepts' gradient sums to 0 over classes
    if not alpha:
        g[0] -= g[0].mean(axis=1, keepdims=True)
    assert_allclose(bound.step(g)[0].ravel(), np.linalg.pinv(B) @ g.ravel(),
                    atol=1e-10)


@pytest.mark.parametrize("max_products", [0, 100])
def test_design_grams_are_the_weighted_sums_of_outer_products(max_products):
    rng = np.random.default_rng(0)
    X, W = rng.normal(size=(9, 3)), rng.random((9, 4))
    ones = np.hstack([X, np.ones((9, 1))])
    direct = np.einsum("tm,tp,tq->mpq", W, ones, ones)
    assert_allclose(Design(X, max_products).grams(W), direct, rtol=1e-12)


def _m_step_case(transition, alpha, seed):
    rng = np.random.default_rng(seed)
    n, d, T = 3, 2, 12
    family = TRANSITIONS[transition](n, d)
    U = rng.normal(size=(T, d))
    xi = rng.dirichlet(np.ones(n * n), size=T).reshape(T, n, n)
    theta = rng.normal(size=family.n_params)
    pen = family.penalty_mask()

    def q(th):  # the penalised M-step objective and its gradient
        value, grad = family.expected_log(th, U, xi, None)
        return (value - 0.5 * alpha * th[pen] @ th[pen], grad - alpha * pen * th)

    step = family.quadratic_bound(family.design(U), xi.sum(axis=2), alpha)
    return family, theta, q, step


def _hessian(grad, theta, h=1e-5):
    """Central differences of a gradient."""
    cols = []
    for k in range(theta.size):
        e = np.zeros_like(theta)
        e[k] = h
        cols.append((grad(theta + e) - grad(theta - e)) / (2 * h))
    H = np.array(cols)
    return 0.5 * (H + H.T)


@pytest.mark.parametrize("transition", ["input", "additive"])
@pytest.mark.parametrize("alpha", [0.0, 0.5])
def test_state_networks_bound_dominates_the_finite_difference_hessian(
        transition, alpha):
    """In the family's own coordinates: the bound's matrix (the inverse of the
    step's linear map) minus the M-step objective's Hessian (finite
    differences) has no negative eigenvalue, at a few random points."""
    family, theta, q, step = _m_step_case(transition, alpha, 0)
    S = np.array([step(e) for e in np.eye(family.n_params)]).T  # S = B^+
    assert_allclose(S, S.T, atol=1e-12)
    B = np.linalg.pinv(S, rcond=1e-10, hermitian=True)
    rng = np.random.default_rng(1)
    for scale in (0.3, 3.0):
        point = rng.normal(scale=scale, size=theta.size)
        H = -_hessian(lambda t: q(t)[1], point)
        assert np.linalg.eigvalsh(B - H).min() >= -1e-6 * np.abs(B).max()


@pytest.mark.parametrize("transition", ["input", "additive"])
@pytest.mark.parametrize("alpha", [0.0, 0.5])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bound_step_raises_the_m_step_objective(transition, alpha, seed):
    """Q(theta + t s) >= Q(theta) + (t - t^2 / 2) g.s for s = B^+ g (the
    minorant, which touches Q at theta), so the step (t = 1) raises Q."""
    _, theta, q, step = _m_step_case(transition, alpha, seed)
    value, grad = q(theta)
    s = step(grad)
    gain = grad @ s
    assert gain > 0
    for t in (0.5, 1.0, 1.5, 2.0):
        assert q(theta + t * s)[0] >= value + (t - t * t / 2) * gain - 1e-10
    assert q(theta + s)[0] > value


def _last_input(n_seq=30, seed=0):
    """Labels read off the last input: the states the model needs are nearly
    observed, so GEM converges quickly (the EM rate is the fraction of
    missing information)."""
    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(int(rng.integers(4, 9)), 2)) for _ in range(n_seq)]
    return X, np.array([int(x[-1, 0] > 0) for x in X])


@pytest.mark.parametrize("transition", ["input", "additive"])
def test_em_with_bound_steps_reaches_the_lbfgs_objective(transition, monkeypatch):
    """On a small identifiable problem, GEM with bound steps on the state
    networks (checked to be taken) ends at the objective L-BFGS reaches from
    the same start."""
    import skseq._families.linear_m_step as lms

    calls = []
    real = lms.SoftmaxBound.step
    monkeypatch.setattr(lms.SoftmaxBound, "step",
                        lambda self, g: calls.append(1) or real(self, g))
    X, y = _last_input()
    fits = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for solver, tol in (("lbfgs", 1e-10), ("em", 1e-12)):
            fits[solver] = IOHMMClassifier(
                2, transition=transition, emission="state", features="raw",
                solver=solver, n_init=1, max_iter=300, tol=tol, alpha=1.0,
                random_state=0).fit(X, y)
    assert len(calls) >= fits["em"].n_iter_ > 10
    assert_allclose(fits["em"].objective_, fits["lbfgs"].objective_, rtol=1e-6)
