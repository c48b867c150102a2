"""The solvers of J(theta) (``skseq._fit.solvers``): restart grouping, restarts in
lockstep, the drop rule inside a fit and the GEM solver's monotone objective,
its over-relaxed steps undone when they raise it."""

import warnings

import numpy as np
from numpy.testing import assert_array_equal
from sklearn.exceptions import ConvergenceWarning

from skseq import IOHMMClassifier
from skseq._fit.lbfgs import DROPPED
from skseq._fit.monitor import ConvergenceMonitor
from skseq._fit.solvers import restart_groups, solve_em
from skseq.datasets import make_tomita


def _drift(n_seq=24, seed=0):
    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(int(rng.integers(4, 9)), 2)) for _ in range(n_seq)]
    for x in X:
        x[:, 0] += np.cumsum(rng.normal(scale=0.5, size=len(x)))
    y = np.array([int(x[-1, 0] > 0) for x in X])
    return X, y


def _fit(monkeypatch, lockstep_bytes, drop_after, **params):
    import skseq._fit.solvers as solvers

    monkeypatch.setattr(solvers, "_LOCKSTEP_BYTES", lockstep_bytes)
    monkeypatch.setattr(solvers, "_DROP_AFTER", drop_after)
    X, y = _drift()
    return IOHMMClassifier(n_states=3, features="raw", random_state=0,
                           **params).fit(X, y)


def test_lockstep_restarts_equal_restarts_run_alone_bitwise(monkeypatch):
    """Without the drop rule, restarts in one lockstep group (the default memory
    budget) and one group per restart (a budget of 1 byte) give the same bits."""
    params = dict(n_init=5, max_iter=40)
    together = _fit(monkeypatch, 1 << 28, 10**9, **params)
    alone = _fit(monkeypatch, 1, 10**9, **params)
    assert_array_equal(together.init_objectives_, alone.init_objectives_)
    assert_array_equal(together.transition_coef_, alone.transition_coef_)
    assert together.n_init_ == alone.n_init_ == 5


def test_fits_with_a_random_state_are_bitwise_deterministic(monkeypatch):
    a = _fit(monkeypatch, 1 << 28, 10, n_init=6, max_iter=60)
    b = _fit(monkeypatch, 1 << 28, 10, n_init=6, max_iter=60)
    assert_array_equal(a.init_objectives_, b.init_objectives_)
    assert_array_equal(a.emission_coef_, b.emission_coef_)
    assert a.objective_ == b.objective_


def test_dropped_restarts_are_recorded_and_never_best(monkeypatch, capsys):
    """The drop rule stops restarts early (fewer evaluations), records their
    objectives, never picks one, and here keeps the best of the full run."""
    import skseq._fit.lbfgs as lbfgs

    calls = []
    real = lbfgs._drop_hopeless

    def spy(f, *args):
        real(f, *args)
        calls.append((f.copy(), args[2].copy()))  # values, statuses

    monkeypatch.setattr(lbfgs, "_drop_hopeless", spy)
    params = dict(n_init=12, max_iter=200, verbose=1)
    kept = _fit(monkeypatch, 1 << 28, 10**9, **params)
    dropped = _fit(monkeypatch, 1 << 28, 5, **params)
    out = capsys.readouterr().out
    n_dropped = out.count("too far above the best restart")
    assert n_dropped >= 1
    final_status = calls[-1][1]
    assert (final_status == DROPPED).sum() == n_dropped
    stopped = np.flatnonzero(final_status == DROPPED)
    # each dropped restart ends above the best by more than the margin
    best = dropped.objective_
    assert (dropped.init_objectives_[stopped] > best + 1e-3 * max(1.0, abs(best))).all()
    assert dropped.n_init_ == 12 and np.isfinite(dropped.init_objectives_).all()
    assert dropped.objective_ == kept.objective_


class _Problem:
    """What restart_groups reads of a problem."""

    def __init__(self, n_steps, n_states, n_params):
        self.U = np.zeros((n_steps, 1))
        self.transition = type("T", (), {"n_states": n_states})()
        self.n_params = n_params


def test_restart_groups_hold_what_the_lockstep_budget_allows(monkeypatch):
    import skseq._fit.solvers as solvers

    problem = _Problem(n_steps=100, n_states=4, n_params=10)
    per_restart = 8 * (3 * 100 * 4 + 25 * 10)
    monkeypatch.setattr(solvers, "_LOCKSTEP_BYTES", 3 * per_restart)
    groups = restart_groups(problem, 7, "lbfgs")
    assert [list(g) for g in groups] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [list(g) for g in restart_groups(problem, 3, "em")] == [[0], [1], [2]]
    monkeypatch.setattr(solvers, "_LOCKSTEP_BYTES", 1)  # at least one a group
    assert len(restart_groups(problem, 4, "lbfgs")) == 4


def _em_start(X, y, **params):
    """The problem and the first start of an em fit of X, y."""
    captured = {}

    class Capture(IOHMMClassifier):
        def _solve(self, problem, thetas0, monitor):
            captured["problem"], captured["theta0"] = problem, thetas0[0]
            return super()._solve(problem, thetas0, monitor)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        Capture(solver="em", n_init=1, max_iter=1, **params).fit(X, y)
    return captured["problem"], captured["theta0"]


def test_em_objective_never_increases():
    """GEM (Bengio & Frasconi 1996, Algorithm 1): every M-step improves the
    auxiliary function, so J never rises (scikit-learn's
    test_monotonic_likelihood, with J the penalised negative log-likelihood)."""
    X, y = _drift(n_seq=12)
    problem, theta0 = _em_start(X, y, n_states=3, features="raw", random_state=0)
    monitor = ConvergenceMonitor(tol=0.0, max_iter=15)
    result = solve_em(problem, theta0, monitor)
    curve = np.array(result["curve"])
    assert result["n_iter"] == 15 and not result["converged"]
    assert (np.diff(curve) <= 1e-12 * np.abs(curve[1:])).all()
    assert result["objective"] == curve[-1]


def test_over_relaxed_em_undoes_the_steps_that_raise_the_objective():
    """GEM's over-relaxed bound steps (solve_em): some are undone (fewer
    accepted iterations than M-steps) and the objective of the accepted ones
    never rises."""
    X, y = make_tomita(4, 60, random_state=0)
    problem, theta0 = _em_start(X, y, n_states=4, emission="state", random_state=1)
    result = solve_em(problem, theta0, ConvergenceMonitor(tol=0.0, max_iter=80))
    curve = np.array(result["curve"])
    assert result["n_iter"] == 80 and curve.size - 1 < 80
    assert (np.diff(curve) <= 1e-12 * np.abs(curve[1:])).all()
    assert curve[-1] < curve[0]
