"""The batched L-BFGS against closed-form optima and scipy's L-BFGS-B."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.optimize import minimize

from skseq._fit.lbfgs import (
    CONVERGED,
    DROPPED,
    LINE_SEARCH_FAILED,
    MAX_ITER,
    minimize_batch,
)


def _rowwise(f):
    """A batched objective from a one-point one: each row on its own copy, so
    that its bits never depend on the other rows."""

    def batched(X):
        out = [f(np.array(x)) for x in X]
        return np.array([v for v, _ in out]), np.array([g for _, g in out])

    return batched


def _logistic(rng, n=300, p=12, alpha=1.0):
    X = rng.normal(size=(n, p))
    y = (X @ rng.normal(size=p) + rng.normal(size=n) > 0).astype(float)

    def f(w):
        z = X @ w
        value = np.logaddexp(0.0, z).sum() - y @ z + 0.5 * alpha * w @ w
        grad = X.T @ (0.5 * (1.0 + np.tanh(0.5 * z)) - y) + alpha * w
        return value / n, grad / n

    return f


@pytest.mark.parametrize("tol", [1e-5, 1e-9])
def test_logistic_regression_reaches_scipys_optimum(tol):
    rng = np.random.default_rng(0)
    f = _logistic(rng)
    x0 = rng.normal(size=(6, 12))
    res = minimize_batch(_rowwise(f), x0, ftol=tol, gtol=tol)
    best = minimize(f, np.zeros(12), jac=True, method="L-BFGS-B",
                    options=dict(ftol=0.0, gtol=1e-12, maxiter=1000))
    assert (res.status == CONVERGED).all()
    for r in range(6):
        ref = minimize(f, x0[r], jac=True, method="L-BFGS-B",
                       options=dict(ftol=tol, gtol=tol))
        # as close to the optimum as scipy gets with the same tolerances
        assert res.fun[r] - best.fun <= max(2 * (ref.fun - best.fun), 1e-14)
        # and in about as many iterations and evaluations
        assert res.nit[r] <= ref.nit + 2
        assert res.nfev[r] <= ref.nfev + 3
    assert_allclose(res.x, np.tile(best.x, (6, 1)), atol=30 * np.sqrt(tol))


def test_quadratics_converge_to_their_exact_minimisers():
    """R different strictly convex quadratics 0.5 (x - c)' A (x - c) in one batch:
    each restart solves its own problem (the value 0 at the optimum leaves the
    line search no rounding floor above the gradient tolerance)."""
    rng = np.random.default_rng(1)
    R, p = 4, 15
    A = []
    for _ in range(R):
        Q = np.linalg.qr(rng.normal(size=(p, p)))[0]
        A.append(Q @ np.diag(np.logspace(-2, 1, p)) @ Q.T)
    c = rng.normal(size=(R, p))

    # problem r is identified by a constant coordinate appended to x
    def f(xr):
        r, x = int(xr[-1]), xr[:-1]
        grad = A[r] @ (x - c[r])
        return 0.5 * (x - c[r]) @ grad, np.append(grad, 0.0)

    x0 = np.hstack([rng.normal(size=(R, p)), np.arange(R)[:, None]])
    res = minimize_batch(_rowwise(f), x0, ftol=0.0, gtol=1e-11, max_iter=1000)
    assert (res.status == CONVERGED).all()
    # |x - c| <= ||A^-1|| |g| <= 100 * 1e-11 * sqrt(p)
    assert_allclose(res.x[:, :-1], c, rtol=0, atol=1e-8)
    assert_array_equal(res.x[:, -1], np.arange(R))
    for r in range(R):
        ref = minimize(f, x0[r], jac=True, method="L-BFGS-B",
                       options=dict(ftol=0.0, gtol=1e-11, maxiter=1000))
        assert res.nit[r] <= 1.2 * ref.nit + 2


def test_a_batch_equals_separate_runs_bitwise():
    rng = np.random.default_rng(2)
    f = _rowwise(_logistic(rng, p=9))
    x0 = rng.normal(size=(5, 9)) * 3
    batch = minimize_batch(f, x0, ftol=1e-10, gtol=1e-10)
    for r in range(5):
        one = minimize_batch(f, x0[r : r + 1], ftol=1e-10, gtol=1e-10)
        assert_array_equal(batch.x[r], one.x[0])
        assert batch.fun[r] == one.fun[0]
        assert batch.nit[r] == one.nit[0] and batch.nfev[r] == one.nfev[0]
        assert batch.curves[r] == one.curves[0]
    # one call per round of evaluations, not one per restart
    assert batch.n_calls < batch.nfev.sum() / 2


def test_infinite_values_make_the_line_search_backtrack():
    """The objective overflows (+inf) outside a box that holds the minimiser: the
    first steps land outside and must be cut back."""
    c = np.array([4.0, -4.5, 0.5])

    def f(x):
        if np.abs(x).max() > 5.0:
            return np.inf, np.zeros_like(x)
        return 50.0 * np.sum((x - c) ** 2), 100.0 * (x - c)

    x0 = np.array([[0.0, 0.0, 0.0], [-4.9, 4.9, 0.0]])
    res = minimize_batch(_rowwise(f), x0, ftol=0.0, gtol=1e-9)
    assert (res.status == CONVERGED).all()
    assert_allclose(res.x, np.tile(c, (2, 1)), atol=1e-10)


def test_a_start_with_infinite_value_fails_at_once():
    def f(x):
        return (np.inf if x[0] > 1 else float(x @ x)), 2 * x

    res = minimize_batch(_rowwise(f), np.array([[2.0, 0.0], [0.5, 0.5]]),
                         gtol=1e-10)
    assert res.status[0] == LINE_SEARCH_FAILED and res.nit[0] == 0
    assert res.status[1] == CONVERGED


def test_max_iter_stops_each_restart():
    rng = np.random.default_rng(3)
    f = _rowwise(_logistic(rng))
    res = minimize_batch(f, rng.normal(size=(3, 12)), ftol=0.0, gtol=0.0,
                         max_iter=4)
    assert (res.status == MAX_ITER).all() and (res.nit == 4).all()
    assert all(len(c) == 4 for c in res.curves)
    # the objective never increases along a restart's iterations
    assert all(np.all(np.diff(c) <= 0) for c in res.curves)


def test_a_hopeless_restart_is_dropped_and_reported():
    """Restart 1 sits 1000 above the best and crawls (an ill-conditioned valley);
    restart 2 starts even further above but falls fast: only restart 1 is
    dropped, with its objective reported."""
    p = 30
    scales = np.logspace(-4, 0, p)

    def f(xr):
        r, x = int(xr[-1]), xr[:-1]
        if r == 1:
            value, grad = 1000.0 + 0.5 * np.sum(scales * x * x), scales * x
        else:
            value, grad = 0.5 * np.sum(x * x), x
        return value, np.append(grad, 0.0)

    x0 = np.zeros((3, p + 1))
    x0[:, -1] = [0, 1, 2]
    x0[0, :-1] = 1.0
    x0[1, :-1] = 10.0
    x0[2, :-1] = 30.0  # objective 13,500: far above restart 1 at first
    res = minimize_batch(_rowwise(f), x0, ftol=0.0, gtol=1e-9, max_iter=40,
                         drop_after=3, drop_margin=1e-3)
    assert_array_equal(res.dropped, [1])
    assert res.status[1] == DROPPED and 3 <= res.nit[1] < 40
    assert res.fun[1] > 1000.0
    assert res.status[0] == CONVERGED and res.status[2] == CONVERGED
    # without the rule it would have used all its iterations
    kept = minimize_batch(_rowwise(f), x0, ftol=0.0, gtol=1e-9, max_iter=40)
    assert kept.status[1] == MAX_ITER and kept.nfev[1] > res.nfev[1]


def test_no_restart_is_dropped_when_it_can_still_catch_up():
    rng = np.random.default_rng(4)
    f = _rowwise(_logistic(rng))
    x0 = rng.normal(size=(4, 12)) * np.array([[0.1], [1.0], [3.0], [10.0]])
    res = minimize_batch(f, x0, ftol=1e-10, gtol=1e-10, drop_after=2)
    assert res.dropped.size == 0 and (res.status == CONVERGED).all()


def test_callback_sees_every_iteration():
    seen = []
    f = _rowwise(lambda x: (float(x @ x), 2 * x))
    res = minimize_batch(f, np.ones((2, 3)), gtol=1e-12,
                         callback=lambda r, v: seen.append((r, v)))
    assert len(seen) == res.nit.sum()
    assert [v for r, v in seen if r == 0] == res.curves[0]
