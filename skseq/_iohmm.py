"""The shared IOHMM machinery: E-step, the two solvers, restarts, inference.

:class:`BaseIOHMM` owns the whole fitting driver once (validation, ``n_init``
restarts keeping the best training objective, ``warm_start``, convergence and
``ConvergenceWarning``, fitted attributes); concrete estimators fill two hooks:
``_encode_targets`` (turn y into packed, encoded targets) and ``_make_emission``
(their output-network family).

The model (Bengio & Frasconi 1996, paper 000): a discrete state x_0 ~ startprob,
then at every step t = 1..T a transition P(x_t | x_{t-1}, u_t) from the state
networks and, at supervised steps, an output P(y_t | x_t, u_t) from the output
networks. The objective minimised by both solvers is

    J(theta) = -(1/W) [sum_s w_s log P(y^(s) | u^(s); theta) - alpha/2 ||theta_w||^2]

(W the total sequence weight, theta_w the input weights): a MAP fit with a
N(0, 1/alpha) prior on the input weights, scaled per sequence so that ``tol`` means
the same for any data size. ``solver="em"`` is the
paper's GEM (Algorithm 1): the E-step gives posteriors (eqs. 28-29), the M-step
improves each network's part of the auxiliary function (eqs. 36-37) with a few
warm-started L-BFGS iterations, so J never increases. ``solver="lbfgs"`` minimises J
directly; its gradient comes from the same forward-backward, because the backward
pass is the gradient of the forward pass (paper 002, §2.2; paper 000, after eq. 29).
"""

import functools
import numbers
import time
import warnings

import numpy as np
from scipy.optimize import minimize
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import ThreadpoolController

from ._inference import XI_GRAD, XI_STEP, XI_SUM, forward_backward, viterbi
from ._transitions import TRANSITIONS, logit_gradient_from_sums
from ._validation import (
    check_sample_weight,
    check_sequences,
    check_targets,
    restore_on_failure,
    validate_sequences,
)

# n_init="auto": restarts * steps per fit is about this, within [5, 50] restarts.
_AUTO_RESTART_STEPS = 100_000

# Below this many (step x state-pair) entries BLAS threads cost more than they
# save (OpenBLAS thread wake-ups dominate small products and L-BFGS-B's vector ops).
_BLAS_THREADING_MIN_WORK = 1 << 22


@functools.cache
def _threadpool_controller():
    # Built once: finding the loaded BLAS libraries takes ~2 ms, a small fit ~20 ms.
    return ThreadpoolController()


def _blas_limits(n_steps, n_states, n_features):
    """Single-threaded BLAS for small problems."""
    work = n_steps * n_states * max(n_states, n_features)
    return _threadpool_controller().limit(
        limits=1 if work < _BLAS_THREADING_MIN_WORK else None, user_api="blas"
    )


def topology_mask(topology, n_states):
    """Boolean (n_states, n_states) mask of allowed transitions j -> i."""
    if isinstance(topology, str):
        if topology == "ergodic":
            return np.ones((n_states, n_states), dtype=bool)
        # left-right: stay, or move to the next state; the last state absorbs.
        idx = np.arange(n_states)
        return (idx[None, :] == idx[:, None]) | (idx[None, :] == idx[:, None] + 1)
    try:
        mask = np.asarray(topology)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(
            f"topology must be 'ergodic', 'left-right' or a boolean array of shape "
            f"({n_states}, {n_states}); got a ragged nested list."
        ) from exc
    if mask.shape != (n_states, n_states):
        raise ValueError(
            f"topology mask has shape {mask.shape}, expected ({n_states}, {n_states}) "
            f"for n_states={n_states}."
        )
    if mask.dtype != bool:
        if not np.isin(mask, [0, 1]).all():
            raise ValueError("topology mask must be boolean (or 0/1).")
        mask = mask.astype(bool)
    dead = np.flatnonzero(~mask.any(axis=1))
    if dead.size:
        raise ValueError(
            f"topology: state {dead[0]} has no allowed successor (row {dead[0]} of the "
            "mask is all False)."
        )
    return mask


def _fixed_startprob(startprob, n_states):
    """None when startprob is learned, else the fixed distribution."""
    if isinstance(startprob, str):
        return None if startprob == "learn" else np.full(n_states, 1.0 / n_states)
    p = np.asarray(startprob, dtype=np.float64)
    if p.shape != (n_states,):
        raise ValueError(
            f"startprob has shape {p.shape}, expected ({n_states},) for "
            f"n_states={n_states}."
        )
    if not np.isfinite(p).all() or (p < 0).any() or not np.isclose(p.sum(), 1.0):
        raise ValueError("startprob must be non-negative and sum to 1.")
    return p / p.sum()


class _Problem:
    """One fitting problem: packed data, families, and the objective J(theta).

    theta is the concatenation [startprob logits (if learned), state networks,
    output networks].
    """

    def __init__(self, seqs, targets, weight, transition, emission, mask,
                 fixed_start, alpha, n_jobs, det_penalty=0.0):
        self.U = seqs.data
        self.offsets = seqs.offsets
        self.steps = targets.steps
        self.y = targets.values
        self.U_targets = seqs.data[targets.steps]
        self.weight = weight
        self.total_weight = weight.sum()
        self.transition = transition
        self.emission = emission
        self.mask = mask
        self.fixed_start = fixed_start
        self.alpha = alpha
        self.det_penalty = det_penalty
        self.n_jobs = n_jobs
        n = transition.n_states
        self.n_start = 0 if fixed_start is not None else n
        self.n_trans = transition.n_params
        self.penalised = np.concatenate(
            [np.zeros(self.n_start, bool), transition.penalty_mask(),
             emission.penalty_mask()]
        )
        self.log_emit = np.zeros((seqs.data.shape[0], n))

    def split(self, theta):
        a, b = self.n_start, self.n_start + self.n_trans
        return theta[:a], theta[a:b], theta[b:]

    def startprob(self, theta_s):
        if self.fixed_start is not None:
            return self.fixed_start
        p = np.exp(theta_s - theta_s.max())
        return p / p.sum()

    def penalty(self, theta):
        w = theta[self.penalised]
        return 0.5 * self.alpha * np.dot(w, w) / self.total_weight

    def e_step(self, theta, xi_mode):
        """Transition matrices, emissions, and one forward-backward."""
        theta_s, theta_t, theta_e = self.split(theta)
        probs = self.transition.probs(theta_t, self.U, self.mask)
        self.log_emit[self.steps] = self.emission.log_prob(
            theta_e, self.U_targets, self.y
        )
        per_step = self.transition.per_step
        mode = xi_mode if per_step else XI_SUM
        # Per-step statistics overwrite the transition matrices in place.
        loglik, gamma, start_post, xi = forward_backward(
            self.startprob(theta_s), probs, self.log_emit, self.offsets,
            weight=self.weight, xi_mode=mode, xi_out=probs if per_step else None,
            n_jobs=self.n_jobs,
        )
        return loglik, gamma, start_post, xi, probs

    def det_reward(self, theta_t):
        """Weighted mean over the training steps of |det A_t|, and its gradient.

        Paper 000, §5.2: rewarding |det A_t| pushes the transition matrices'
        eigenvalues toward the unit circle, against the diffusion that erases
        temporal credit (eq. 40, here a mean over steps so that one weight suits
        every length, each step weighted by its sequence's sample weight).
        d|det A| / dA = sign(det A) cof(A) (eq. 41), back-propagated through the
        row softmax to the logits.
        """
        A = self.transition.probs(theta_t, self.U, self.mask)
        det = np.linalg.det(A)
        n = A.shape[-1]
        if n == 2:
            cof = np.stack([A[:, 1, 1], -A[:, 1, 0], -A[:, 0, 1], A[:, 0, 0]],
                           axis=1).reshape(-1, 2, 2)
        else:
            inv = np.linalg.inv(A + 1e-12 * np.eye(n))
            cof = det[:, None, None] * np.swapaxes(inv, 1, 2)
        if A.shape[0] == 1:  # one matrix shared by every step
            w = np.ones(1)
        else:
            w = np.repeat(self.weight, np.diff(self.offsets)) / (
                self.weight @ np.diff(self.offsets))
        G = (w * np.sign(det))[:, None, None] * cof
        G = A * (G - (G * A).sum(axis=2, keepdims=True))  # through the softmax
        U = self.U if self.transition.per_step else self.U[:1]
        return float(w @ np.abs(det)), self.transition.backward(theta_t, U, G)

    def objective(self, loglik, theta):
        return -np.dot(self.weight, loglik) / self.total_weight + self.penalty(theta)

    def value_and_grad(self, theta):
        """J(theta) and its exact gradient (the lbfgs solver).

        A trial point where anything overflows counts as +inf, so the line search
        backtracks from it.
        """
        theta_s, theta_t, theta_e = self.split(theta)
        family = self.transition
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            loglik, gamma, start_post, G, probs = self.e_step(
                theta, XI_GRAD if family.softmax else XI_STEP)
            value = self.objective(loglik, theta)
            if not np.isfinite(value):
                return np.inf, np.zeros_like(theta)
            U_stats = self.U[: G.shape[0]]
            if not family.softmax:  # G holds the pairwise posteriors
                grad_t = family.expected_log(theta_t, U_stats, G, self.mask)[1]
            elif not family.per_step:
                grad_t = family.backward(theta_t, U_stats,
                                         logit_gradient_from_sums(G, probs[0]))
            else:
                grad_t = family.backward(theta_t, U_stats, G)
            grad = [
                start_post.sum(axis=0) - self.total_weight * self.startprob(theta_s),
                grad_t,
                self.emission.grad(theta_e, self.U_targets, self.y,
                                   gamma[self.steps]),
            ]
            grad = -np.concatenate(grad[1:] if self.n_start == 0 else grad)
            grad[self.penalised] += self.alpha * theta[self.penalised]
            grad /= self.total_weight
            if self.det_penalty:
                reward, reward_grad = self.det_reward(theta_t)
                value -= self.det_penalty * reward
                grad[self.n_start : self.n_start + self.n_trans] -= (
                    self.det_penalty * reward_grad)
        if not np.isfinite(grad).all():
            return np.inf, np.zeros_like(theta)
        return value, grad

    def m_step(self, theta, start_post, gamma, xi, max_iter):
        """GEM M-step: improve each network's part of the auxiliary function."""
        theta_s, theta_t, theta_e = self.split(theta)
        W = self.total_weight
        pen_t, pen_e = self.split(self.penalised)[1:]
        U_xi = self.U[: xi.shape[0]]

        a = self.alpha

        q_trans = self.transition.m_step_objective(U_xi, xi, self.mask)

        def f_trans(th):
            q, g = q_trans(th)
            return ((-q + 0.5 * a * np.dot(th[pen_t], th[pen_t])) / W,
                    (-g + a * th * pen_t) / W)

        gamma_t = gamma[self.steps]

        q_emit = self.emission.m_step_objective(self.U_targets, self.y, gamma_t)

        def f_emit(th):
            q, g = q_emit(th)
            return ((-q + 0.5 * a * np.dot(th[pen_e], th[pen_e])) / W,
                    (-g + a * th * pen_e) / W)

        options = {"maxiter": max_iter}
        theta_t = minimize(f_trans, theta_t, jac=True, method="L-BFGS-B",
                           options=options).x
        theta_e = minimize(f_emit, theta_e, jac=True, method="L-BFGS-B",
                           options=options).x
        if self.n_start:
            # Closed form (paper 000, after eq. 24: x_0's posterior, averaged).
            p = np.maximum(start_post.sum(axis=0) / W, 1e-300)
            theta_s = np.log(p / p.sum())
        return np.concatenate([theta_s, theta_t, theta_e])

    def loglik(self, theta):
        """Per-sequence log-likelihoods (forward pass only)."""
        theta_s, theta_t, theta_e = self.split(theta)
        probs = self.transition.probs(theta_t, self.U, self.mask)
        self.log_emit[self.steps] = self.emission.log_prob(
            theta_e, self.U_targets, self.y
        )
        return forward_backward(self.startprob(theta_s), probs, self.log_emit,
                                self.offsets, backward=False, n_jobs=self.n_jobs)[0]


class BaseIOHMM(BaseEstimator):
    """Base class of the IOHMM estimators. Not for direct use."""

    _parameter_constraints: dict = {
        "n_states": [Interval(numbers.Integral, 1, None, closed="left")],
        "transition": [StrOptions(set(TRANSITIONS))],
        "emission": [StrOptions({"input", "state"})],
        "topology": [StrOptions({"ergodic", "left-right"}), "array-like"],
        "startprob": [StrOptions({"learn", "uniform"}), "array-like"],
        "solver": [StrOptions({"lbfgs", "em"})],
        "alpha": [Interval(numbers.Real, 0, None, closed="left")],
        "det_penalty": [Interval(numbers.Real, 0, None, closed="left")],
        "n_init": [Interval(numbers.Integral, 1, None, closed="left"),
                   StrOptions({"auto"})],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "init_scale": [Interval(numbers.Real, 0, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "n_jobs": [None, numbers.Integral],
        "warm_start": ["boolean"],
    }

    # GEM: L-BFGS iterations per M-step, warm-started from the current networks.
    _m_step_max_iter = 10

    def __init__(self, n_states, *, transition, emission, topology, startprob,
                 solver, alpha, n_init, max_iter, tol, init_scale, random_state,
                 verbose, n_jobs, warm_start):
        self.n_states = n_states
        self.transition = transition
        self.emission = emission
        self.topology = topology
        self.startprob = startprob
        self.solver = solver
        self.alpha = alpha
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.init_scale = init_scale
        self.random_state = random_state
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.warm_start = warm_start

    # -- hooks -------------------------------------------------------------
    def _encode_targets(self, y, seqs, reset=True, sample_weight=None):
        """Return packed Targets with values ready for the emission family.

        With ``reset`` (in fit) also learn what the encoding needs (classes,
        target scale), using the per-sequence ``sample_weight``.
        """
        raise NotImplementedError

    def _make_emission(self, n_features):
        raise NotImplementedError

    def _n_init(self, n_steps):
        """Restarts; "auto" spends more of them where they are cheap.

        IOHMM likelihoods have many local optima (paper 000, §6: 10-45% of random
        starts reach a perfect fit on the Tomita grammars), and on small data
        restarts both matter most and cost least: 50 restarts up to 2,000 steps,
        then about 100,000 / n_steps, and never fewer than 5.
        """
        if self.n_init != "auto":
            return self.n_init
        return int(np.clip(_AUTO_RESTART_STEPS // max(n_steps, 1), 5, 50))

    # -- families and parameters ----------------------------------------------
    def _n_hidden(self):
        """Size of the hidden state space (HierarchicalIOHMM: the product state)."""
        return self.n_states

    def _transition_mask(self):
        return topology_mask(self.topology, self._n_hidden())

    def _families(self, n_features):
        transition = TRANSITIONS[self.transition](self.n_states, n_features)
        return transition, self._make_emission(n_features)

    def _fitted_theta(self, transition, emission):
        theta_t = transition.pack(
            {k: getattr(self, f"transition_{k}_") for k in transition.names}
        )
        theta_e = emission.pack(
            {k: getattr(self, f"emission_{k}_") for k in emission.names}
        )
        return theta_t, theta_e

    def _validate_X(self, X, reset):
        return validate_sequences(self, X, reset=reset)

    # -- fitting -------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit the model by maximum (penalised) conditional likelihood.

        Parameters
        ----------
        X : array-like of shape (n_sequences, max_len, n_features) or list
            Sequences: a 3-D array padded at the end with NaN rows, a list of
            ``(len_i, n_features)`` arrays, or a 2-D array of one-step sequences.
        y : array-like of shape (n_sequences,) or list of arrays
            One target per sequence (supervising its last step), or a list of
            per-step target arrays (NaN/None = no target at that step).
        sample_weight : array-like of shape (n_sequences,), default=None
            Per-sequence weights.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        with restore_on_failure(self):
            self._validate_params()
            seqs = self._validate_X(X, reset=True)
            with _blas_limits(seqs.data.shape[0], self._n_hidden(), seqs.n_features):
                return self._fit(seqs, y, sample_weight)

    def _fit(self, seqs, y, sample_weight):
        weight = check_sample_weight(sample_weight, seqs.n_sequences)
        targets = self._encode_targets(y, seqs, sample_weight=weight)
        n = self._n_hidden()
        mask = self._transition_mask()
        fixed_start = _fixed_startprob(self.startprob, n)
        transition, emission = self._families(seqs.n_features)
        det_penalty = getattr(self, "det_penalty", 0.0)
        if det_penalty and (self.solver != "lbfgs" or not transition.softmax):
            raise ValueError(
                f"det_penalty={det_penalty} needs solver='lbfgs' and softmax state "
                f"networks (got solver={self.solver!r}); inside the EM M-step the "
                "reward was measured not to help (the posteriors are already "
                "diffuse)."
            )
        problem = _Problem(seqs, targets, weight, transition, emission, mask,
                           fixed_start, self.alpha, self.n_jobs, det_penalty)

        do_init = not (self.warm_start and hasattr(self, "converged_"))
        n_init = self._n_init(seqs.data.shape[0]) if do_init else 1
        rng = check_random_state(self.random_state)
        best = None
        for init in range(n_init):
            if do_init:
                # Restarts alternate small random weights and near-permutation
                # transitions (see TransitionFamily.init).
                theta0 = np.concatenate([
                    rng.normal(scale=0.1, size=problem.n_start),
                    transition.init(rng, self.init_scale, permutation=init % 2 == 1),
                    emission.init(rng, self.init_scale),
                ])
            else:
                theta_t, theta_e = self._fitted_theta(transition, emission)
                theta_s = np.log(np.maximum(self.startprob_, 1e-300))
                theta0 = np.concatenate([theta_s[: problem.n_start], theta_t, theta_e])
            if self.verbose:
                print(f"Initialization {init}")
            solve = self._solve_em if self.solver == "em" else self._solve_lbfgs
            result = solve(problem, theta0)
            if self.verbose:
                status = "converged" if result["converged"] else "did not converge"
                print(f"Initialization {init} {status}: objective "
                      f"{result['objective']:.6g} after {result['n_iter']} iterations")
            # A restart that overflowed (NaN/inf objective or parameters) is
            # dropped: a NaN would otherwise win and block every later restart.
            finite = (np.isfinite(result["objective"])
                      and np.isfinite(result["theta"]).all())
            if finite and (best is None or result["objective"] < best["objective"]):
                best = result

        if best is None:
            raise ValueError(
                f"{type(self).__name__}: every initialization diverged (the objective "
                "or the parameters overflowed); the inputs reach "
                f"{np.abs(seqs.data).max():.3g} in magnitude. Scale the features, "
                "e.g. with skseq.preprocessing.Stepwise(StandardScaler())."
            )
        if not best["converged"]:
            warnings.warn(
                f"Best initialization of {type(self).__name__} did not converge "
                f"(solver={self.solver!r}, max_iter={self.max_iter}); try a larger "
                "max_iter, a larger tol, or scaled inputs.",
                ConvergenceWarning,
                stacklevel=3,
            )
        theta_s, theta_t, theta_e = problem.split(best["theta"])
        self.startprob_ = problem.startprob(theta_s).copy()
        for name, arr in transition.coefficients(theta_t).items():
            setattr(self, f"transition_{name}_", arr)
        for name, arr in emission.coefficients(theta_e).items():
            setattr(self, f"emission_{name}_", arr)
        self.n_iter_ = best["n_iter"]
        self.converged_ = best["converged"]
        self.log_likelihood_ = best["log_likelihood"]
        self.objective_ = best["objective"]
        self.loss_curve_ = best["curve"]
        self.step_level_ = targets.step_level
        self._fitted_structure_ = self._structure()
        return self

    def _result(self, problem, theta, n_iter, converged, curve):
        loglik = problem.loglik(theta)
        return {
            "theta": theta,
            "n_iter": n_iter,
            "converged": converged,
            "log_likelihood": float(np.dot(problem.weight, loglik)),
            "objective": float(problem.objective(loglik, theta)),
            "curve": curve,
        }

    def _solve_lbfgs(self, problem, theta0):
        curve = []
        start = time.perf_counter()

        def callback(intermediate_result):
            curve.append(float(intermediate_result.fun))
            if self.verbose >= 2:
                print(f"  Iteration {len(curve)}\t time lapse "
                      f"{time.perf_counter() - start:.3f}s\t objective {curve[-1]:.8g}")

        res = minimize(problem.value_and_grad, theta0, jac=True, method="L-BFGS-B",
                       callback=callback,
                       options={"maxiter": self.max_iter, "ftol": self.tol,
                                "gtol": self.tol})
        # status 2 (no further decrease possible in the line search) happens at
        # the optimum to machine precision: only hitting max_iter is a failure.
        return self._result(problem, res.x, int(res.nit), res.status != 1, curve)

    def _solve_em(self, problem, theta0):
        theta = theta0
        curve = []
        converged = False
        start = time.perf_counter()
        n_iter = 0
        for n_iter in range(1, self.max_iter + 1):
            # xi overwrites the transition matrices in place (one (T, n, n) array).
            loglik, gamma, start_post, xi = problem.e_step(theta, XI_STEP)[:4]
            curve.append(float(problem.objective(loglik, theta)))
            if self.verbose >= 2:
                print(f"  Iteration {n_iter}\t time lapse "
                      f"{time.perf_counter() - start:.3f}s\t objective {curve[-1]:.8g}")
            if len(curve) > 1 and abs(curve[-2] - curve[-1]) < self.tol:
                converged = True
                n_iter -= 1  # no M-step was taken in this iteration
                break
            theta = problem.m_step(theta, start_post, gamma, xi,
                                   self._m_step_max_iter)
            del xi, gamma  # free before the next E-step allocates its own
        return self._result(problem, theta, n_iter, converged, curve)

    # -- inference -----------------------------------------------------------
    # Parameters that define the fitted model's structure: predicting after one of
    # them changed (set_params without refit) would silently use the wrong model.
    _STRUCTURE_PARAMS = ("n_states", "transition", "emission", "topology",
                         "covariance_type", "timescales", "learn_timescales", "task")

    def _structure(self):
        params = self.get_params(deep=False)
        return {k: v if isinstance(v, str) else np.asarray(v).tolist()
                for k, v in params.items() if k in self._STRUCTURE_PARAMS}

    def _model(self, X):
        """Validated sequences, families, fitted parameters and transitions."""
        check_is_fitted(self)
        changed = [k for k, v in self._structure().items()
                   if self._fitted_structure_.get(k) != v]
        if changed:
            raise ValueError(
                f"{', '.join(changed)} changed since fit (set_params without "
                f"refitting): refit {type(self).__name__} before using it."
            )
        seqs = self._validate_X(X, reset=False)
        transition, emission = self._families(seqs.n_features)
        theta_t, theta_e = self._fitted_theta(transition, emission)
        probs = transition.probs(theta_t, seqs.data, self._transition_mask())
        return seqs, emission, theta_e, probs

    def _filtered(self, seqs, probs):
        """zeta_t = P(x_t | u_1..t): the state distribution given the inputs only."""
        no_emit = np.zeros((seqs.data.shape[0], self._n_hidden()))
        return forward_backward(self.startprob_, probs, no_emit, seqs.offsets,
                                backward=False, n_jobs=self.n_jobs)[1]

    def predict_state_proba(self, X):
        """Filtered state distributions P(x_t | u_1..u_t), step by step.

        The model's "memory" (paper 000, eq. 6): it uses only the inputs up to t, so
        it is available causally, as a sequence is being read.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

        Returns
        -------
        proba : list of ndarray (len_i, n_states), or ndarray
            A list for list input; for array input a padded array of shape
            (n_sequences, max_len, n_states) with NaN after each sequence's end.
        """
        seqs, _, _, probs = self._model(X)
        return seqs.unpack(self._filtered(seqs, probs))

    def transition_proba(self, X):
        """Transition matrices P(x_t = i | x_{t-1} = j, u_t) at every step.

        What the state networks do with each input: the explanation of how the
        model moves between its states.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

        Returns
        -------
        proba : list of ndarray (len_i, n_states, n_states), or ndarray
            Indexed ``[t, from, to]``. A list for list input; for array input a
            padded array (n_sequences, max_len, n_states, n_states), NaN-padded.
        """
        seqs, _, _, probs = self._model(X)
        if probs.shape[0] != seqs.data.shape[0]:  # one matrix shared by all steps
            probs = np.broadcast_to(probs, (seqs.data.shape[0],) + probs.shape[1:])
        return seqs.unpack(probs)

    def _scoring_targets(self, X, y, sample_weight, task):
        """Targets for ``score`` and per-target weights (None if unweighted).

        The targets must be of the level the model was fitted on: a sequence-level
        model has no per-step prediction to compare with, and the reverse.
        """
        check_is_fitted(self)
        seqs = check_sequences(X)
        targets = check_targets(y, seqs, task=task)
        if targets.step_level != self.step_level_:
            fitted = "per step" if self.step_level_ else "one per sequence"
            given = "per step" if targets.step_level else "one per sequence"
            raise ValueError(
                f"This model was fitted on targets {fitted} but y gives them "
                f"{given}; score it with targets of the level it was fitted on."
            )
        if sample_weight is None:
            return targets, None
        weight = check_sample_weight(sample_weight, seqs.n_sequences)
        if not targets.step_level:
            return targets, weight
        seq_of = np.searchsorted(seqs.offsets, targets.steps, side="right") - 1
        return targets, weight[seq_of]

    def _log_emissions(self, seqs, emission, theta_e, targets):
        log_emit = np.zeros((seqs.data.shape[0], self._n_hidden()))
        log_emit[targets.steps] = emission.log_prob(
            theta_e, seqs.data[targets.steps], targets.values
        )
        return log_emit

    def score_samples(self, X, y=None):
        """Conditional log-likelihood log P(y | u) of every sequence.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : array-like or list of arrays, default=None
            Targets in any form accepted by ``fit``. If None, the model's own
            predictions are scored: log P(predict(X) | u), a confidence score.

        Returns
        -------
        log_likelihood : ndarray of shape (n_sequences,)
        """
        if y is None:
            y = self._predicted_targets(X)
        seqs, emission, theta_e, probs = self._model(X)
        targets = self._encode_targets(y, seqs, reset=False)
        log_emit = self._log_emissions(seqs, emission, theta_e, targets)
        return forward_backward(self.startprob_, probs, log_emit, seqs.offsets,
                                backward=False, n_jobs=self.n_jobs)[0]

    def _predicted_targets(self, X):
        """The model's own predictions, as ``score_samples(X)`` scores them."""
        return self.predict(X)

    def decode(self, X, y=None):
        """Most likely state path (Viterbi).

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : array-like or list of arrays, default=None
            If given, the path maximises P(states, y | u); else P(states | u).

        Returns
        -------
        states : list of ndarray of int, or ndarray
            A list for list input; for array input a padded array of shape
            (n_sequences, max_len) with -1 after each sequence's end.
        """
        seqs, emission, theta_e, probs = self._model(X)
        if y is None:
            log_emit = np.zeros((seqs.data.shape[0], self._n_hidden()))
        else:
            targets = self._encode_targets(y, seqs, reset=False)
            log_emit = self._log_emissions(seqs, emission, theta_e, targets)
        with np.errstate(divide="ignore"):
            log_trans = np.log(probs)
            log_start = np.log(self.startprob_)
        _, path = viterbi(log_start, np.ascontiguousarray(log_trans), log_emit,
                          seqs.offsets, n_jobs=self.n_jobs)
        return seqs.unpack(path, fill=-1)
