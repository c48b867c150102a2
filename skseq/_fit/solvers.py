"""The two solvers of J(theta) (``skseq._fit.objective``), as functions of the
problem, the starting points and the fit's monitor (tolerance, iteration budget,
progress lines).

``"lbfgs"`` minimises J directly with its exact gradient, every restart of a group
in lockstep (``skseq._fit.lbfgs``). ``"em"`` is Bengio & Frasconi's (1996) GEM
(Algorithm 1): the E-step gives posteriors (eqs. 28-29), the M-step
(``skseq._fit.m_step``) improves each network's part of the auxiliary function
(eqs. 36-37), by Newton steps on Böhning's (1992) bound for the linear softmax
networks and a few warm-started L-BFGS iterations for the others, so J never
increases.

A solver returns one result per start: a dict with the final ``theta``,
``n_iter``, ``converged``, ``objective``, its ``curve`` (the objective after every
iteration) and, for lbfgs, ``dropped``.
"""

import time

import numpy as np

from .lbfgs import CONVERGED, DROPPED, LINE_SEARCH_FAILED, minimize_batch
from .m_step import MStep

# lbfgs restarts in lockstep hold at most about this much together.
_LOCKSTEP_BYTES = 1 << 28
# Drop rule of lockstep restarts (skseq._fit.lbfgs): from this many iterations
# on, over a window of as many, a restart that even at its recent pace cannot
# come within _DROP_MARGIN (relative) of the best restart in its remaining
# iterations stops.
_DROP_AFTER = 10
_DROP_MARGIN = 1e-3
# GEM: L-BFGS iterations per M-step of the output networks (the state
# networks without a bound step keep 10: m_step.STATE_MAX_ITER),
# warm-started from the current networks. 5 rather than 10: on the speed
# benchmark's fit (1,000 x 50 x 8, 8 states, 20 iterations) the objective
# reached was the same to 1e-5 relative, the fit 9% faster.
M_STEP_MAX_ITER = 5
# GEM: steps on the bound per M-step of the linear softmax networks, and the
# growth and limit of their over-relaxation (solve_em).
M_STEP_BOUND_STEPS = 1
RELAXATION_GROWTH = 2.0
MAX_RELAXATION = 1024.0


def restart_groups(problem, n_init, solver):
    """The restarts that run together: lbfgs runs in lockstep as many as fit
    in ``_LOCKSTEP_BYTES`` (each holds its posteriors, emissions and L-BFGS
    memory), at least one; em one at a time."""
    if solver == "em":
        size = 1
    else:
        n = problem.transition.n_states
        per_restart = 8 * (3 * problem.U.shape[0] * n + 25 * problem.n_params)
        size = max(1, _LOCKSTEP_BYTES // per_restart)
    return [range(k, min(k + size, n_init)) for k in range(0, n_init, size)]


def solve_lbfgs(problem, thetas0, monitor):
    """L-BFGS from every row of ``thetas0``, in lockstep: one evaluation of the
    batched objective serves every restart that needs one, so the fixed cost
    per evaluation is paid once."""
    times, callback = monitor.lap_times(thetas0.shape[0])
    # Several restarts together: the hopeless ones stop early (the drop rule
    # of skseq._fit.lbfgs with _DROP_AFTER and _DROP_MARGIN). A dropped restart
    # ends above the final best by more than the margin, so it never wins;
    # its objective is still recorded (init_objectives_).
    drop_after = _DROP_AFTER if thetas0.shape[0] > 1 else None
    # The tests of convergence and of dropping are relative to the objective's
    # value: they see it without the constant that only the units of y set, so
    # that the fit of y in other units stops at the same point.
    offset = problem.units_offset

    def unit_free(thetas):
        values, grads = problem.values_and_grads(thetas)
        return values - offset, grads

    res = minimize_batch(unit_free, thetas0,
                         max_iter=monitor.max_iter, ftol=monitor.tol,
                         gtol=monitor.tol,
                         callback=lambda r, value: callback(r, value + offset),
                         drop_after=drop_after, drop_margin=_DROP_MARGIN)
    results = []
    for r in range(thetas0.shape[0]):
        curve = [value + offset for value in res.curves[r]]
        monitor.iterations(curve, times[r])
        results.append({"theta": res.x[r], "n_iter": int(res.nit[r]),
                        "converged": _converged(res, r, monitor.tol),
                        "dropped": bool(res.status[r] == DROPPED),
                        "objective": float(res.fun[r] + offset), "curve": curve})
    return results


def _converged(res, r, tol):
    """Whether restart ``r`` of :func:`minimize_batch`'s result converged. A
    line search that fails after some steps does so at the optimum to machine
    precision (as scipy's status 2); one that fails at the start, where the
    gradient is not already near zero, took no step at all (inputs of scales
    1e8 apart overflowed every trial step): that is no convergence."""
    if res.status[r] == CONVERGED:
        return True
    if res.status[r] != LINE_SEARCH_FAILED:
        return False
    return bool(res.nit[r] > 0 or np.abs(res.grad[r]).max(initial=0.0) <= np.sqrt(tol))


def solve_em(problem, theta0, monitor, m_step_max_iter=M_STEP_MAX_ITER,
             bound_steps=None):
    """GEM from ``theta0`` until the objective falls by less than the
    monitor's tolerance or ``max_iter`` iterations (M-steps, each followed by
    the E-step at its parameters).

    Where the M-step takes bound steps it over-relaxes them (Salakhutdinov &
    Roweis 2003): after an iteration that lowered the objective the next
    step is ``RELAXATION_GROWTH`` times longer (at most ``MAX_RELAXATION``);
    an over-relaxed iteration that raised it is undone, and the next one
    taken from the same posteriors at the plain length, which cannot raise
    it. The objective of the accepted iterations never rises; the tolerance
    is not applied to the plain step that follows an undone one.
    """
    m_step = MStep(problem, m_step_max_iter, bound_steps or M_STEP_BOUND_STEPS)
    start = time.perf_counter()
    theta, post = theta0, problem.e_step(theta0)
    curve = [float(problem.objective(post.loglik, theta))]
    monitor.iteration(1, time.perf_counter() - start, curve[-1])
    relaxation, converged, n_iter, undone = 1.0, False, 0, False
    while n_iter < monitor.max_iter and not converged:
        n_iter += 1
        candidate = m_step(theta, post, relaxation)
        if relaxation == 1.0:
            del post  # free before the next E-step allocates its own
        new_post = problem.e_step(candidate)
        value = float(problem.objective(new_post.loglik, candidate))
        if relaxation > 1.0 and not value <= curve[-1]:
            relaxation, undone = 1.0, True  # the plain step from the same posteriors
            continue
        theta, post = candidate, new_post
        curve.append(value)
        monitor.iteration(len(curve), time.perf_counter() - start, value)
        relaxation = (min(relaxation * RELAXATION_GROWTH, MAX_RELAXATION)
                      if m_step.relaxed else 1.0)
        # The plain step after an undone one is short where the bound is
        # loose: its small fall says nothing of convergence.
        converged = not undone and monitor.em_converged(curve)
        undone = False
    return {"theta": theta, "n_iter": n_iter, "converged": converged,
            "objective": curve[-1], "curve": curve}
