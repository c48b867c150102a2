"""The M-step of GEM (Bengio & Frasconi 1996, Algorithm 1): improve each
network's part of the auxiliary function (eqs. 36-37) given one E-step's
posteriors, so that the objective J of ``skseq._fit.objective`` never rises
(Dempster, Laird & Rubin 1977: any increase of the auxiliary function is
enough).

A network with a fixed bound on its curvature (the linear softmax networks,
``skseq._families.linear_m_step``) takes ``bound_steps`` Newton steps on
Böhning's (1992) quadratic bound: the first needs no evaluation of its part
(its gradient there is the log-likelihood's, Fisher's identity, which the
fused E-step gives), each further one an evaluation of the gradient. Any other
network takes a few warm-started L-BFGS iterations on its part; so does a
state network under the smoothed L1 penalty, whose curvature has no useful
bound. x_0's distribution, when learned, has a closed form.
"""

import numpy as np
from scipy.optimize import minimize

from .._families.linear_m_step import LinearStatistics

# The M-step's L-BFGS stops on its iteration budget, not on scipy's default
# tolerances (gtol 1e-5 on the per-weight objective): with those, GEM stalled
# where the M-step's gradient fell below them, ~5e-5 (relative) above the
# objective L-BFGS reaches on the whole problem (tests/test_m_step.py).
_LBFGS_TOLERANCES = {"gtol": 1e-12, "ftol": 1e-15}


# L-BFGS iterations per M-step of the state networks without a bound step
# (MLP, gated, masked, L1): the budget they had before the bound steps. With
# the output networks' 5, GEM on the MLP state networks of
# tests/test_mlp_networks.py stopped at a local optimum (held-out accuracy
# 0.71 against 1.00 with 10).
STATE_MAX_ITER = 10


class MStep:
    """The M-step of one problem: ``MStep(problem)(theta, post)`` gives new
    parameters from ``theta`` and the E-step's posteriors ``post``.

    ``max_iter`` L-BFGS iterations for the output networks and at least
    :data:`STATE_MAX_ITER` for state networks without a bound, else
    ``bound_steps`` steps on it. The networks' inputs as the bounds need them
    (their outer products) are prepared once, at the first M-step.
    """

    def __init__(self, problem, max_iter, bound_steps):
        self.problem, self.max_iter, self.bound_steps = problem, max_iter, bound_steps
        self._design = None
        self.relaxed = False

    def design(self):
        """The state networks' inputs as a ``Design`` (None without a bound)."""
        if self._design is None and not self.problem.transition_l1:
            self._design = self.problem.transition.design(self.problem.U)
        return self._design

    def __call__(self, theta, post, relaxation=1.0):
        """``relaxation`` multiplies the bound steps (:attr:`relaxed` says
        whether this M-step took any)."""
        problem = self.problem
        theta_s, theta_t, theta_e = problem.split(theta)
        theta_t = self._transitions(theta_t, post, self.design(), relaxation)
        theta_e = self._emissions(theta_e, post)
        if problem.n_start:
            # Closed form (Bengio & Frasconi 1996, after eq. 24: x_0's posterior,
            # averaged).
            p = np.maximum(post.start_post.sum(axis=0) / problem.total_weight, 1e-300)
            theta_s = np.log(p / p.sum())
        return np.concatenate([theta_s, theta_t, theta_e])

    def _transitions(self, theta_t, post, design, relaxation):
        problem = self.problem
        trans, pen = problem.transition, problem.split(problem.penalised)[1]

        # Built when needed: from the fused E-step's statistics, building the
        # state networks' objective costs one evaluation.
        def objective():
            return trans.m_step_objective(problem.U, post.xi, problem.mask)

        self.relaxed = design is not None and isinstance(post.xi, LinearStatistics)
        if self.relaxed:
            bound = trans.quadratic_bound(design, post.xi.rows, problem.alpha)
            return _bound_steps(bound, objective, theta_t, post.xi.grad,
                                problem.alpha * pen, self.bound_steps, relaxation)
        return _lbfgs(problem, objective, theta_t, pen,
                      max(self.max_iter, STATE_MAX_ITER), problem.split(problem.l1)[1])

    def _emissions(self, theta_e, post):
        problem = self.problem
        emit, pen = problem.emission, problem.split(problem.penalised)[2]
        weights = problem._weighted(post.gamma[problem.steps])
        return _lbfgs(problem, lambda: emit.m_step_objective(
            problem.U_targets, problem.y, weights), theta_e, pen, self.max_iter)


def _bound_steps(step, make_objective, theta, grad, precision, n_steps,
                 relaxation=1.0):
    """``n_steps`` steps of the bound ``step`` from ``theta``, where the
    unpenalised part's gradient is ``grad`` (then that of the objective
    ``make_objective()`` builds); ``precision`` is alpha on the penalised
    parameters, 0 elsewhere; each step is ``relaxation`` times B^+ g."""
    objective = None
    for k in range(n_steps):
        theta = theta + relaxation * step(grad - precision * theta)
        if k + 1 < n_steps:
            objective = objective or make_objective()
            grad = objective(theta)[1]
    return theta


def _lbfgs(problem, make_objective, theta, pen, max_iter, l1=None):
    """A few L-BFGS iterations on one network's penalised part, per unit of
    sequence weight, warm-started from ``theta``."""
    W, a = problem.total_weight, problem.alpha
    objective = make_objective()

    def f(th):
        q, g = objective(th)
        value = -q + 0.5 * a * np.dot(th[pen], th[pen])
        grad = -g + a * th * pen
        if l1 is not None and l1.any():
            value += problem._l1_value(th[l1])
            grad[l1] += problem._l1_gradient(th[l1])
        return value / W, grad / W

    return minimize(f, theta, jac=True, method="L-BFGS-B",
                    options={"maxiter": max_iter, **_LBFGS_TOLERANCES}).x
