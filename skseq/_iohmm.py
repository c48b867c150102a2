"""The shared IOHMM machinery: the objective J(theta), its two solvers, the fitting
driver and inference.

The model (Bengio & Frasconi 1996): a discrete state x_0 ~ startprob,
then at every step t = 1..T a transition P(x_t | x_{t-1}, u_t) from the state
networks and, at supervised steps, an output P(y_t | x_t, u_t) from the output
networks. The objective minimised by both solvers is

    J(theta) = -(1/W) [sum_s w_s log P(y^(s) | u^(s); theta) - alpha/2 ||theta_w||^2]

(W the total sequence weight, theta_w the input weights): a MAP fit with a
N(0, 1/alpha) prior on the input weights, scaled per sequence so that ``tol`` means
the same for any data size (:class:`_Problem`). ``solver="em"`` is the paper's GEM
(Algorithm 1): the E-step gives posteriors (eqs. 28-29), the M-step improves each
network's part of the auxiliary function (eqs. 36-37) with a few warm-started
L-BFGS iterations, so J never increases. ``solver="lbfgs"`` minimises J directly;
its gradient comes from the same forward-backward, because the backward pass is
the gradient of the forward pass (Buys, Bisk & Choi 2018, §2.2; Bengio & Frasconi 1996,
after eq. 29).

The families own their math (``skseq._transitions``, ``skseq._emissions``); the
driver only composes them. :class:`BaseIOHMM` owns the whole fitting driver once
(validation, restarts through ``skseq._restarts``, ``warm_start``, convergence,
fitted attributes) and inference; a concrete estimator declares its parameters
and fills the hooks:

* ``_outputs``: its outputs strategy (``skseq._outputs``): targets, the output
  family, predictions and scores;
* ``_n_chain_states()``, ``_transition_mask()``, ``_make_transition(n_features)``:
  its chain (:class:`FlatIOHMM` gives those of a chain of ``n_states`` states);
* ``_structure_params``: the parameters a fitted model cannot change without a
  refit; optionally ``_readout()`` (how a class is read off a sequence).
"""

import hashlib
import math
import numbers
import time
from typing import NamedTuple

import numpy as np
from scipy.optimize import minimize
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ._data import (
    N_JOBS_CONSTRAINT,
    check_fitted_params,
    check_sample_weight,
    record_fitted_params,
    restore_on_failure,
    score_targets,
    validate_sequences,
)
from ._data.representation import REPRESENTATIONS, resolve
from ._families.emissions import inverse_cdf
from ._families.layers import LAYERS
from ._families.starts import HOLD_LOGIT, STARTS
from ._families.transitions import TRANSITIONS
from ._kernels._parallel import one_blas_thread
from ._kernels.forward_backward import XI_NONE, Chain, viterbi
from ._lbfgs import CONVERGED, DROPPED, LINE_SEARCH_FAILED, minimize_batch
from ._penalty import MAX_ALPHA, RAW_ALPHA
from ._restarts import run_restarts, warn_not_converged

# n_init="auto": restarts * steps per fit is about this, within [5, 50] restarts.
_AUTO_RESTART_STEPS = 100_000
# lbfgs restarts in lockstep hold at most about this much together.
_LOCKSTEP_BYTES = 1 << 28
# Drop rule of lockstep restarts (skseq._lbfgs): from this many iterations on,
# over a window of as many, a restart that even at its recent pace cannot come
# within _DROP_MARGIN (relative) of the best restart in its remaining iterations
# stops.
_DROP_AFTER = 10
_DROP_MARGIN = 1e-3
# Smoothing of the L1 penalty on the transition weights, sqrt(w^2 + s^2) - s:
# below this the penalty is quadratic, so that the objective stays smooth for
# L-BFGS.
_L1_SMOOTHING = 1e-4



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


def _refuse_warm_change(what, before, now):
    """A warm start continues the fitted parameters, whose shapes fix the
    number of features and the classes: refuse data that change them."""
    if before != now:
        raise ValueError(
            f"warm_start=True continues the fitted model, but the {what} changed: "
            f"{before} before, {now} now. Set warm_start=False to fit anew."
        )


def _fixed_startprob(startprob, n_states):
    """None when startprob is learned, ``"stationary"`` when it is the chain's
    stationary distribution, else the fixed distribution."""
    if isinstance(startprob, str):
        if startprob in ("learn", "stationary"):
            return None if startprob == "learn" else startprob
        return np.full(n_states, 1.0 / n_states)
    p = np.asarray(startprob, dtype=np.float64)
    if p.shape != (n_states,):
        raise ValueError(
            f"startprob has shape {p.shape}, expected ({n_states},) for "
            f"n_states={n_states}."
        )
    if not np.isfinite(p).all() or (p < 0).any() or not np.isclose(p.sum(), 1.0):
        raise ValueError("startprob must be non-negative and sum to 1.")
    return p / p.sum()


def _row_dots(a, b):
    """a_r . b_r for every row of ``a`` (``b`` broadcast to it), a scalar for a
    vector, each sum correctly rounded (``math.fsum``): the value of one
    parameter set then has the same bits whatever the other rows of a batch
    (NumPy's and BLAS's sums group their terms by the row's memory alignment)."""
    products = a * b
    if products.ndim == 1:
        return _fsum(products)
    return np.array([_fsum(row) for row in products])


def _fsum(values):
    """math.fsum, or NumPy's sum where fsum refuses (an overflowing partial sum,
    or inf - inf: the caller then sees inf or NaN, as from NumPy)."""
    try:
        return math.fsum(values)
    except (OverflowError, ValueError):
        return float(np.sum(values))


class _Problem:
    """One fitting problem: packed data, families, and the objective J(theta).

    theta is the concatenation [startprob logits (if learned), state networks,
    output networks].
    """

    def __init__(self, seqs, targets, weight, transition, emission, mask,
                 fixed_start, alpha, n_jobs, det_penalty=0.0, target_weight=None,
                 inputs=None, transition_l1=0.0):
        # What the networks see: the state networks' inputs at every step and
        # the output networks' at the supervised steps (default: the features).
        self.U, self.U_targets = (
            (seqs.data, seqs.data[targets.steps]) if inputs is None else inputs)
        self.offsets = seqs.offsets
        self.steps = targets.steps
        self.y = targets.values
        self.weight = weight
        self.total_weight = weight.sum()
        # Per-target exponents of the output likelihoods (class weights of
        # step-level labels), None for 1.
        self.target_weight = (None if target_weight is None
                              else np.asarray(target_weight, dtype=np.float64))
        self.transition = transition
        self.emission = emission
        self.mask = mask
        # the stationary distribution of a homogeneous chain, a function of
        # the transition parameters
        self.stationary = isinstance(fixed_start, str)
        if self.stationary and not hasattr(transition, "stationary"):
            raise ValueError(
                "startprob='stationary' needs transition='homogeneous': a chain "
                "whose transitions change with the inputs has no stationary "
                "distribution.")
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
        # A (smoothed) L1 penalty on the state networks' input weights in place
        # of alpha's L2 on them: it lets a threshold on an input be steep, and
        # takes the weights of inputs the transitions do not need to 0.
        self.transition_l1 = transition_l1
        self.l1 = np.zeros_like(self.penalised)
        if transition_l1:
            self.l1[self.n_start:self.n_start + self.n_trans] = (
                transition.penalty_mask())
            self.penalised &= ~self.l1
        self.log_emit = np.zeros((seqs.data.shape[0], n))
        # The determinant reward is a mean over the training steps, each step
        # weighted by its sequence's weight.
        lengths = np.diff(self.offsets)
        self.step_weight = (np.repeat(weight, lengths) / (weight @ lengths)
                            if det_penalty else None)
        self._passes = None       # the lbfgs E-step, prepared at its first call
        self._emit_batch = None   # (R, n_steps, n) emissions of R parameter sets

    @property
    def n_params(self):
        return self.penalised.shape[0]

    def split(self, theta):
        """The start, state-network and output-network parts of theta (or of
        the rows of a batch, along its last axis)."""
        a, b = self.n_start, self.n_start + self.n_trans
        return theta[..., :a], theta[..., a:b], theta[..., b:]

    def startprob(self, theta_s, theta_t=None):
        """The start distribution of one parameter set (:meth:`startprobs`)."""
        return self.startprobs(theta_s[None], None if theta_t is None
                               else theta_t[None])[0]

    def startprobs(self, thetas_s, thetas_t=None):
        """The start distributions of R parameter sets, (R, n) (the state
        networks' parameters ``thetas_t`` for a stationary start)."""
        R = thetas_s.shape[0]
        if self.stationary:
            return np.array([self.transition.stationary(theta_t, self.mask)
                             for theta_t in thetas_t])
        if self.fixed_start is not None:
            return np.tile(self.fixed_start, (R, 1))
        p = np.exp(thetas_s - thetas_s.max(axis=1, keepdims=True))
        return p / p.sum(axis=1, keepdims=True)

    def penalty(self, theta):
        w = theta[..., self.penalised]
        value = 0.5 * self.alpha * _row_dots(w, w)
        if self.transition_l1:
            value = value + self._l1_value(theta[..., self.l1])
        return value / self.total_weight

    def _l1_value(self, v):
        """The smoothed L1 penalty (times W) of the weights v (rows: sets)."""
        return self.transition_l1 * np.sum(
            np.sqrt(v * v + _L1_SMOOTHING**2) - _L1_SMOOTHING, axis=-1)

    def _l1_gradient(self, v):
        """Gradient of the smoothed L1 penalty (times W) at the weights v."""
        return self.transition_l1 * v / np.sqrt(v * v + _L1_SMOOTHING**2)

    def objective(self, loglik, theta):
        return (-_row_dots(loglik, self.weight) / self.total_weight
                + self.penalty(theta))

    def _weighted(self, per_target):
        """Per-target rows (along the axis after a batch's) times the target
        weights, if any."""
        if self.target_weight is None:
            return per_target
        return per_target * self.target_weight[:, None]

    def chain(self, theta_s, theta_e, theta_t=None):
        """The chain at these parameters: x_0's distribution and the emission
        log-likelihoods at the supervised steps (0 elsewhere)."""
        self.log_emit[self.steps] = self._weighted(self.emission.log_prob(
            theta_e, self.U_targets, self.y))
        return Chain(self.startprob(theta_s, theta_t), self.log_emit, self.offsets,
                     self.weight, self.n_jobs)

    def e_step(self, theta):
        """Posteriors for the GEM M-step (``xi`` as the state family needs it)."""
        theta_s, theta_t, theta_e = self.split(theta)
        return self.transition.posterior_pass(theta_t, self.U, self.mask,
                                              self.chain(theta_s, theta_e, theta_t))

    def _gradient_passes(self, thetas, what="__call__"):
        """The state family's lbfgs E-step for the rows of ``thetas`` (prepared
        once per problem), with each row's start and emissions (``what``:
        ``"logliks"`` for the log-likelihoods alone)."""
        if self._passes is None:
            self._passes = self.transition.gradient_passes(
                self.U, self.mask, self.offsets, self.weight, self.n_jobs)
        R = thetas.shape[0]
        if self._emit_batch is None or self._emit_batch.shape[0] < R:
            # zero at the unsupervised steps, which no call writes
            self._emit_batch = np.zeros((R, *self.log_emit.shape))
        log_emit = self._emit_batch[:R]
        thetas_s, thetas_t, thetas_e = self.split(thetas)
        log_emit[:, self.steps] = self._weighted(self.emission.log_prob_batch(
            thetas_e, self.U_targets, self.y))
        startprob = self.startprobs(thetas_s, thetas_t)
        return startprob, getattr(self._passes, what)(thetas_t, startprob, log_emit)

    def values_and_grads(self, thetas):
        """J and its exact gradient at R parameter sets, rows of ``thetas`` (R,
        n_params): the lbfgs solver's batched objective, one pass for all rows.

        A row where anything overflows gets +inf (and a zero gradient), so the
        line search backtracks from it.
        """
        thetas = np.ascontiguousarray(thetas, dtype=np.float64).reshape(
            -1, self.n_params)
        W = self.total_weight
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            startprob, res = self._gradient_passes(thetas)
            values = self.objective(res.loglik, thetas)
            thetas_e = self.split(thetas)[2]
            grads = [res.grad, self.emission.grad_batch(
                thetas_e, self.U_targets, self.y,
                self._weighted(res.gamma[:, self.steps]))]
            if self.n_start:
                grads.insert(0, res.start_post.sum(axis=1) - W * startprob)
            if self.stationary:
                # d loglik / d pi_i = (weighted posterior of x_0 = i) / pi_i
                grads[0] = grads[0] + np.array([
                    self.transition.stationary_backward(theta_t, self.mask, pi, g)
                    for theta_t, pi, g in zip(
                        self.split(thetas)[1], startprob,
                        res.start_post.sum(axis=1) / startprob, strict=True)])
            grads = -np.concatenate(grads, axis=1)
            grads[:, self.penalised] += self.alpha * thetas[:, self.penalised]
            if self.transition_l1:
                grads[:, self.l1] += self._l1_gradient(thetas[:, self.l1])
            grads /= W
            if self.det_penalty:
                a, b = self.n_start, self.n_start + self.n_trans
                for r, theta_t in enumerate(self.split(thetas)[1]):
                    reward, reward_grad = self.transition.det_reward(
                        theta_t, self.U, self.mask, self.step_weight)
                    values[r] -= self.det_penalty * reward
                    grads[r, a:b] -= self.det_penalty * reward_grad
        bad = ~(np.isfinite(values) & np.isfinite(grads).all(axis=1))
        values[bad] = np.inf
        grads[bad] = 0.0
        return values, grads

    def value_and_grad(self, theta):
        """J(theta) and its exact gradient (:meth:`values_and_grads` of one)."""
        values, grads = self.values_and_grads(theta[None])
        return values[0], grads[0]

    def m_step(self, theta, post, max_iter):
        """GEM M-step: improve each network's part of the auxiliary function."""
        theta_s, theta_t, theta_e = self.split(theta)
        W = self.total_weight
        pen_t, pen_e = self.split(self.penalised)[1:]
        a = self.alpha

        l1_t = self.split(self.l1)[1]

        def penalised(objective, pen, l1=None):
            def f(th):
                q, g = objective(th)
                value = -q + 0.5 * a * np.dot(th[pen], th[pen])
                grad = -g + a * th * pen
                if l1 is not None and l1.any():
                    value += self._l1_value(th[l1])
                    grad[l1] += self._l1_gradient(th[l1])
                return value / W, grad / W
            return f

        f_trans = penalised(
            self.transition.m_step_objective(self.U, post.xi, self.mask), pen_t,
            l1_t)
        f_emit = penalised(self.emission.m_step_objective(
            self.U_targets, self.y, self._weighted(post.gamma[self.steps])), pen_e)
        options = {"maxiter": max_iter}
        theta_t = minimize(f_trans, theta_t, jac=True, method="L-BFGS-B",
                           options=options).x
        theta_e = minimize(f_emit, theta_e, jac=True, method="L-BFGS-B",
                           options=options).x
        if self.n_start:
            # Closed form (Bengio & Frasconi 1996, after eq. 24: x_0's posterior,
            # averaged).
            p = np.maximum(post.start_post.sum(axis=0) / W, 1e-300)
            theta_s = np.log(p / p.sum())
        return np.concatenate([theta_s, theta_t, theta_e])

    def loglik(self, theta):
        """Per-sequence log-likelihoods."""
        return self.logliks(theta[None])[0]

    def logliks(self, thetas):
        """Per-sequence log-likelihoods at R parameter sets, (R, n_sequences)."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return self._gradient_passes(np.asarray(thetas, dtype=np.float64),
                                         "logliks")[1]


class _FittedModel(NamedTuple):
    """What inference needs: the families, their packed parameters, the mask and
    the start distribution."""

    transition: object
    emission: object
    theta_t: np.ndarray
    theta_e: np.ndarray
    mask: np.ndarray | None
    startprob: np.ndarray


def _digest(values):
    """A hash of the fitted attributes' values (arrays or lists of arrays)."""
    h = hashlib.blake2b(digest_size=16)
    for value in values:
        for arr in value if isinstance(value, list) else [value]:
            arr = np.ascontiguousarray(arr, dtype=np.float64)
            h.update(repr(arr.shape).encode())
            h.update(arr.tobytes())
    return h.hexdigest()


def _available_memory():
    """Bytes of memory available to this process, or None if unknown (the
    kernel's MemAvailable, capped by a cgroup v2 limit)."""
    try:
        with open("/proc/meminfo") as f:
            info = dict(line.split(":", 1) for line in f)
        available = int(info["MemAvailable"].split()[0]) * 1024
    except (OSError, KeyError, ValueError):
        return None
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            limit = f.read().strip()
        with open("/sys/fs/cgroup/memory.current") as f:
            used = int(f.read().strip())
        if limit != "max":
            available = min(available, int(limit) - used)
    except (OSError, ValueError):
        pass
    try:  # an address-space limit (ulimit -v) caps what this process may map
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            with open("/proc/self/status") as f:
                status = dict(line.split(":", 1) for line in f if ":" in line)
            mapped = int(status["VmSize"].split()[0]) * 1024
            available = min(available, soft - mapped)
    except (ImportError, OSError, KeyError, ValueError):
        pass
    return available


def check_allocation(estimator, n_bytes, what, advice):
    """ValueError if ``n_bytes`` (for ``what``) exceed the available memory:
    a check in O(1), before allocating."""
    available = _available_memory()
    if available is not None and n_bytes > available:
        raise ValueError(
            f"{type(estimator).__name__} with {what} needs about "
            f"{n_bytes / 2**30:.3g} GiB, but only {max(available, 0) / 2**30:.3g} "
            f"GiB are available: {advice}"
        )


def check_memory(estimator, n_steps, n_states, n_params=0, entries_per_step=None):
    """ValueError, before allocating, if a fit (or prediction) of this size cannot
    fit in memory: ``entries_per_step`` float64 per step (by default 3 n_states^2:
    the per-step transition matrices and their statistics; a fit asks its state
    family, ``fit_entries_per_step``) and, for a fit, L-BFGS's history of ~25
    parameter vectors."""
    if entries_per_step is None:
        entries_per_step = 3 * n_states**2
    check_allocation(
        estimator, 8 * (entries_per_step * n_steps + 25 * n_params),
        f"{n_states} states on {n_steps} steps ({n_params} parameters; per-step "
        f"{n_states}x{n_states} transition matrices and their statistics, or "
        "state posteriors)",
        "use fewer states, shorter or fewer sequences (e.g. "
        "skseq.preprocessing.WindowMean), or more memory.")


def _sample_paths(seqs, startprob, trans, rng):
    """State paths x_1..x_T drawn from the chain, all sequences in lockstep:
    one vectorised draw per step index (packed, as Sequences.data)."""
    starts, lengths = seqs.offsets[:-1], seqs.lengths
    prev = inverse_cdf(np.broadcast_to(startprob, (seqs.n_sequences, startprob.size)),
                       rng.random(seqs.n_sequences))
    states = np.empty(seqs.data.shape[0], dtype=np.intp)
    for t in range(int(lengths.max())):
        alive = lengths > t
        rows = starts[alive] + t
        prev[alive] = states[rows] = inverse_cdf(trans[rows, prev[alive]],
                                                 rng.random(rows.size))
    return states


def _looks_scaled(U):
    """Whether the features look standardized: every column's spread within
    [0.05, 20] and its mean within a few spreads of 0 (one-hot symbols pass)."""
    if U.shape[0] < 2:
        return True
    std = U.std(axis=0)
    mean = np.abs(U.mean(axis=0))
    return bool(np.all((std >= 0.05) & (std <= 20)) and np.all(mean <= 5 * std + 1))


class BaseIOHMM(BaseEstimator):
    """Base class of the IOHMM estimators. Not for direct use."""

    _parameter_constraints: dict = {
        "features": [StrOptions({"auto", *REPRESENTATIONS})],
        "emission": [StrOptions(set(LAYERS))],
        "n_hidden": [Interval(numbers.Integral, 1, None, closed="left")],
        "startprob": [StrOptions({"learn", "uniform", "stationary"}), "array-like"],
        "solver": [StrOptions({"lbfgs", "em"})],
        "alpha": [Interval(numbers.Real, 0, None, closed="left"),
                  StrOptions({"auto"})],
        "det_penalty": [Interval(numbers.Real, 0, None, closed="left")],
        "n_init": [Interval(numbers.Integral, 1, None, closed="left"),
                   StrOptions({"auto"})],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "init": [StrOptions({"auto", *STARTS}), list, tuple],
        "init_scale": [Interval(numbers.Real, 0, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "n_jobs": N_JOBS_CONSTRAINT,
        "warm_start": ["boolean"],
    }

    # Parameters that define the fitted model's structure: predicting after one of
    # them changed (set_params without refit) would silently use the wrong model.
    _structure_params = ("features", "emission", "n_hidden")

    # GEM: L-BFGS iterations per M-step, warm-started from the current networks.
    _m_step_max_iter = 10

    # init="auto": restart k starts from _auto_starts[k % len(_auto_starts)].
    _auto_starts = ("random", "permutation")

    def __init__(self, *, features, emission, n_hidden, startprob, solver, alpha,
                 det_penalty, n_init, max_iter, tol, init, init_scale, random_state,
                 verbose, n_jobs, warm_start):
        self.features = features
        self.emission = emission
        self.n_hidden = n_hidden
        self.startprob = startprob
        self.solver = solver
        self.alpha = alpha
        self.det_penalty = det_penalty
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.init_scale = init_scale
        self.random_state = random_state
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.warm_start = warm_start

    # -- hooks -------------------------------------------------------------
    _outputs = None  # the outputs strategy (skseq._outputs)

    def _n_chain_states(self):
        """Number of states of the Markov chain (a product state's count)."""
        raise NotImplementedError

    def _transition_mask(self):
        """Boolean mask of allowed transitions (None: all allowed)."""
        raise NotImplementedError

    def _make_transition(self, n_features):
        """The state-network family (``skseq._transitions``)."""
        raise NotImplementedError

    def _readout(self):
        """``(readout, readout_start)``: how a class is read off a sequence-level
        model; the output at the last step unless the estimator says otherwise."""
        return "last", 1.0

    def _transition_l1(self):
        """Weight of the L1 penalty on the state networks' input weights (0:
        they take alpha's L2 penalty, as the output networks')."""
        return 0.0

    def _make_representation(self, features):
        """The (unfitted) input representation named ``features``."""
        return REPRESENTATIONS[features]()

    def _target_weights(self, seqs, targets, weight):
        """The per-sequence weights of the fit and the per-target exponents of the
        output likelihoods (None: all 1); an estimator with class weights
        changes them."""
        return weight, None

    def _n_init(self, n_steps, features):
        """Restarts; "auto" spends them where they matter and are cheap.

        On raw inputs IOHMM likelihoods have many local optima (Bengio & Frasconi 1996,
        §6: 10-45% of random starts reach a perfect fit on the Tomita grammars), and
        on small data restarts both matter most and cost least: 50 restarts up
        to 2,000 steps, then about 100,000 / n_steps, and never fewer than 5. On
        the shape representation the output networks read rich, whitened
        features and the fit is close to convex: one start (more were measured
        to change nothing, ``doc/results/real_data.md``); the same on the
        standardized window summaries.
        """
        if self.n_init != "auto":
            return self.n_init
        if features in ("shape", "window"):
            return 1
        return int(np.clip(_AUTO_RESTART_STEPS // max(n_steps, 1), 5, 50))

    def _alpha(self, features, U_rows, seqs, targets, weight):
        """The penalty of this fit: ``alpha``, or with ``alpha="auto"`` the one
        a linear read-out of the output networks' inputs validates best on
        representations whose output networks read a whole-sequence summary
        (``skseq._penalty``); on raw inputs, where one step's input says
        nothing of what the states carry, and with step-level targets (whose
        steps are not independent draws to leave out one by one), the weak
        prior near-deterministic transitions need."""
        if self.alpha != "auto":
            return self.alpha
        if features == "raw" or self._outputs is None or targets.step_level:
            return RAW_ALPHA
        seq_of = seqs.sequence_of(targets.steps)
        return self._outputs.choose_alpha(self, U_rows, targets, weight[seq_of])[0]

    def _starts_shared(self, features, targets):
        """Whether the output networks start from one shared read-out: on a
        whole-sequence summary (the shape representation) with linear outputs
        and one target per sequence."""
        return (features == "shape" and self.emission == "input"
                and not targets.step_level
                and hasattr(self._outputs, "shared_readout"))

    def _validate_X(self, X, reset):
        return validate_sequences(self, X, reset=reset)

    def _attribute_values(self, transition, emission):
        """The fitted attributes of the families' parameters, by block name."""
        return ({k: getattr(self, f"transition_{k}_") for k in transition.names},
                {k: getattr(self, f"emission_{k}_") for k in emission.names})

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
            n_features = getattr(self, "n_features_in_", None)
            seqs = self._validate_X(X, reset=True)
            if self._warm():
                _refuse_warm_change("number of features", n_features, seqs.n_features)
            with one_blas_thread():
                return self._fit(seqs, y, sample_weight)

    def _warm(self):
        """Whether this fit continues from the fitted parameters."""
        return self.warm_start and hasattr(self, "converged_")

    def _fit(self, seqs, y, sample_weight):
        weight = check_sample_weight(
            sample_weight, seqs.n_sequences,
            alpha=MAX_ALPHA if self.alpha == "auto" else self.alpha)
        classes = getattr(self, "classes_", None)
        targets = self._outputs.encode_targets(self, y, seqs, sample_weight=weight)
        if self._warm() and classes is not None:
            _refuse_warm_change("classes", classes.tolist(), self.classes_.tolist())
        n = self._n_chain_states()
        # before the n x n mask: it and at least one n x n transition matrix
        check_allocation(self, 9 * n * n,
                         f"{n} states (its {n}x{n} transition mask and matrices)",
                         "use fewer states.")
        mask = self._transition_mask()
        fixed_start = _fixed_startprob(self.startprob, n)
        do_init = not self._warm()
        rng = check_random_state(self.random_state)
        # What the networks see (a warm start keeps the fitted representation)
        start = time.perf_counter()
        if do_init:
            features = resolve(self.features, seqs, targets.step_level)
            representation = self._make_representation(features).fit(
                seqs, rng, self.n_jobs,
                sample_weight=None if sample_weight is None else weight)
        else:
            features, representation = self.features_, self.representation_
        inputs = representation.inputs(seqs, targets.steps, self.n_jobs)
        if self.verbose:
            print(f"Representation {features!r}: {inputs[1].shape[1]} features "
                  f"at {seqs.data.shape[0]} steps in "
                  f"{time.perf_counter() - start:.2f}s", flush=True)
        transition = self._make_transition(representation.n_state_features)
        emission = self._outputs.make_emission(self, n,
                                               representation.n_output_features)
        check_memory(self, seqs.data.shape[0], n,
                     transition.n_params + emission.n_params,
                     transition.fit_entries_per_step(self.solver, self.det_penalty))
        weight, target_weight = self._target_weights(seqs, targets, weight)
        alpha = self._alpha(features, inputs[1], seqs, targets, weight)
        if self.det_penalty and self.solver != "lbfgs":
            raise ValueError(
                f"det_penalty={self.det_penalty} needs solver='lbfgs' (got "
                f"solver={self.solver!r}); inside the EM M-step the reward was "
                "measured not to help (the posteriors are already diffuse)."
            )
        if isinstance(fixed_start, str) and self.solver != "lbfgs":
            raise ValueError(
                "startprob='stationary' needs solver='lbfgs' (got solver="
                f"{self.solver!r}): the start then depends on the transitions, "
                "which the EM M-step fits apart from it."
            )
        problem = _Problem(seqs, targets, weight, transition, emission, mask,
                           fixed_start, alpha, self.n_jobs, self.det_penalty,
                           target_weight, inputs, self._transition_l1())
        n_init = self._n_init(seqs.data.shape[0], features) if do_init else 1

        cycle = self._start_cycle()
        thetas0 = []
        for init in range(n_init):
            if do_init:
                theta0 = self._initial_theta(problem, rng, cycle[init % len(cycle)])
            else:
                values_t, values_e = self._attribute_values(transition, emission)
                theta_s = np.log(np.maximum(self.startprob_, 1e-300))
                theta0 = np.concatenate([theta_s[: problem.n_start],
                                         transition.pack(values_t),
                                         emission.pack(values_e)])
            thetas0.append(theta0)
        thetas0 = np.array(thetas0)
        if do_init and self._starts_shared(features, targets):
            # Every state's output network starts at one read-out of the whole
            # sequence (plus a tenth of its random start, to break the tie):
            # the chain begins as good as its n_states=1 model, and the states
            # move apart only where the likelihood gains.
            seq_of = seqs.sequence_of(targets.steps)
            shared = self._outputs.shared_readout(self, inputs[1], targets,
                                                  weight[seq_of], alpha)
            start = problem.n_start + transition.n_params
            for theta in thetas0:
                p = emission.unpack(theta[start:])
                for name, value in shared.items():
                    p[name] *= 0.1
                    p[name] += value[None] if name == "intercept" else (
                        value[:, None, :])

        def attempts():
            # lbfgs: the restarts of a group advance in lockstep, one batched
            # evaluation per step for all of them; em: one restart at a time.
            for group in self._restart_groups(problem, n_init):
                for result in self._solve(problem, thetas0[group]):
                    # A restart that overflowed (NaN/inf parameters) is dropped:
                    # a NaN would otherwise win and block every later restart.
                    result["diverged"] = not np.isfinite(result["theta"]).all()
                    yield result

        best, objectives = run_restarts(attempts(), n_init, verbose=self.verbose)
        if best is None:
            raise ValueError(
                f"{type(self).__name__}: every initialization diverged (the objective "
                "or the parameters overflowed); the inputs reach "
                f"{np.abs(seqs.data).max():.3g} in magnitude. Scale the features, "
                "e.g. with skseq.preprocessing.Stepwise(StandardScaler())."
            )
        if not best["converged"]:
            advice = "try a larger max_iter or a larger tol"
            if not _looks_scaled(problem.U):
                advice += (", or standardize the inputs (e.g. with skseq.preprocessing"
                           ".Stepwise(StandardScaler())): their scales differ widely")
            warn_not_converged(
                self, f"the best initialization did not converge (solver="
                f"{self.solver!r}, max_iter={self.max_iter}); {advice}.")
        theta_s, theta_t, theta_e = problem.split(best["theta"])
        log_likelihood = float(problem.weight @ problem.loglik(best["theta"]))
        self.startprob_ = problem.startprob(theta_s, theta_t).copy()
        for name, arr in transition.coefficients(theta_t).items():
            setattr(self, f"transition_{name}_", arr)
        for name, arr in emission.coefficients(theta_e).items():
            setattr(self, f"emission_{name}_", arr)
        self.n_iter_ = best["n_iter"]
        self.converged_ = best["converged"]
        self.log_likelihood_ = log_likelihood
        self.objective_ = best["objective"]
        self.loss_curve_ = best["curve"]
        self.features_ = features
        self.representation_ = representation
        # to_automaton reads symbols as unit vectors: were the inputs one-hot?
        U = seqs.data
        self._one_hot_inputs_ = bool(((U == 0) | (U == 1)).all()
                                     and (U.sum(axis=1) == 1).all())
        self.alpha_ = alpha
        self.n_init_ = len(objectives)
        self.init_objectives_ = objectives
        self.step_level_ = targets.step_level
        record_fitted_params(self, self._structure_params)
        self._families_ = (transition, emission, mask)
        self._n_free_params_ = (transition.n_free_params(mask)
                                + emission.n_free_params() + problem.n_start
                                - (problem.n_start > 0))
        # Inference works on the parameters as the fitted attributes hold them,
        # packed once here (again only if an attribute is changed by hand).
        values_t, values_e = self._attribute_values(transition, emission)
        self._packed_ = (_digest([*values_t.values(), *values_e.values()]),
                         transition.pack(values_t), emission.pack(values_e))
        return self

    def _start_cycle(self):
        """The kinds of starting point the restarts cycle through (``init``)."""
        if isinstance(self.init, str):
            return self._auto_starts if self.init == "auto" else (self.init,)
        bad = [kind for kind in self.init if kind not in STARTS]
        if not self.init or bad:
            raise ValueError(
                f"init must be 'auto', one of {STARTS} or a non-empty list of them; "
                f"got {self.init!r}" + (f" ({bad[0]!r} is none of them)." if bad
                                        else "."))
        return tuple(self.init)

    def _initial_theta(self, problem, rng, start):
        """The starting point of one restart, pushed toward ``start`` (one of
        ``skseq._transitions.STARTS``, see ``TransitionFamily.init``).

        A ``"hold"`` start also puts a learned start distribution on the first
        state, the one that reads the input while the others hold.
        """
        theta_s = rng.normal(scale=0.1, size=problem.n_start)
        if start == "hold" and problem.n_start:
            theta_s[0] += HOLD_LOGIT
        return np.concatenate([
            theta_s,
            problem.transition.init(rng, self.init_scale, start=start),
            problem.emission.init(rng, self.init_scale),
        ])

    def _restart_groups(self, problem, n_init):
        """The restarts that run together: lbfgs runs in lockstep as many as
        fit in ``_LOCKSTEP_BYTES`` (each holds its posteriors, emissions and
        L-BFGS memory), at least one; em one at a time."""
        if self.solver == "em":
            size = 1
        else:
            n = problem.transition.n_states
            per_restart = 8 * (3 * problem.U.shape[0] * n + 25 * problem.n_params)
            size = max(1, _LOCKSTEP_BYTES // per_restart)
        return [range(k, min(k + size, n_init)) for k in range(0, n_init, size)]

    def _solve(self, problem, thetas0):
        """The results of the restarts starting from the rows of ``thetas0``."""
        if self.solver == "em":
            return [self._solve_em(problem, theta0) for theta0 in thetas0]
        return self._solve_lbfgs(problem, thetas0)

    def _print_iterations(self, curve, times):
        for k, (value, lapse) in enumerate(zip(curve, times, strict=True)):
            print(f"  Iteration {k + 1}\t time lapse {lapse:.3f}s\t objective "
                  f"{value:.8g}")

    def _solve_lbfgs(self, problem, thetas0):
        """L-BFGS from every row of ``thetas0``, in lockstep (``skseq._lbfgs``):
        one evaluation of the batched objective serves every restart that
        needs one, so the fixed cost per evaluation is paid once."""
        start = time.perf_counter()
        times = [[] for _ in thetas0]

        def callback(r, value):
            times[r].append(time.perf_counter() - start)

        # Several restarts together: the hopeless ones stop early (the drop rule
        # of skseq._lbfgs with _DROP_AFTER and _DROP_MARGIN). A dropped restart
        # ends above the final best by more than the margin, so it never wins;
        # its objective is still recorded (init_objectives_).
        drop_after = _DROP_AFTER if thetas0.shape[0] > 1 else None
        res = minimize_batch(problem.values_and_grads, thetas0, max_iter=self.max_iter,
                             ftol=self.tol, gtol=self.tol, callback=callback,
                             drop_after=drop_after, drop_margin=_DROP_MARGIN)
        results = []
        for r in range(thetas0.shape[0]):
            if self.verbose >= 2:
                self._print_iterations(res.curves[r], times[r])
            # A failed line search happens at the optimum to machine precision
            # (as scipy's status 2): only hitting max_iter (or being dropped) is
            # a failure.
            results.append({"theta": res.x[r], "n_iter": int(res.nit[r]),
                            "converged": bool(res.status[r] in (CONVERGED,
                                                                LINE_SEARCH_FAILED)),
                            "dropped": bool(res.status[r] == DROPPED),
                            "objective": float(res.fun[r]), "curve": res.curves[r]})
        return results

    def _solve_em(self, problem, theta0):
        theta = theta0
        curve = []
        converged = False
        start = time.perf_counter()
        n_iter = 0
        for n_iter in range(1, self.max_iter + 1):
            # xi overwrites the transition matrices in place (one (T, n, n) array).
            post = problem.e_step(theta)
            curve.append(float(problem.objective(post.loglik, theta)))
            if self.verbose >= 2:
                print(f"  Iteration {n_iter}\t time lapse "
                      f"{time.perf_counter() - start:.3f}s\t objective {curve[-1]:.8g}")
            if len(curve) > 1 and abs(curve[-2] - curve[-1]) < self.tol:
                converged = True
                n_iter -= 1  # no M-step was taken in this iteration
                break
            theta = problem.m_step(theta, post, self._m_step_max_iter)
            del post  # free before the next E-step allocates its own
        return {"theta": theta, "n_iter": n_iter, "converged": converged,
                "objective": float(problem.objective(problem.loglik(theta), theta)),
                "curve": curve}

    # -- inference -----------------------------------------------------------
    def _checked(self, X):
        """Validated sequences for a public inference method: the one validation
        of the call, after checking that the model is fitted and unchanged."""
        check_is_fitted(self)
        check_fitted_params(self)
        return self._validate_X(X, reset=False)

    def _fitted_model(self):
        """The families and parameters of the fitted attributes (packed at fit,
        and again only if an attribute was changed by hand since)."""
        transition, emission, mask = self._families_
        values_t, values_e = self._attribute_values(transition, emission)
        digest, theta_t, theta_e = self._packed_
        if _digest([*values_t.values(), *values_e.values()]) != digest:
            theta_t, theta_e = transition.pack(values_t), emission.pack(values_e)
        return _FittedModel(transition, emission, theta_t, theta_e, mask,
                            self.startprob_)

    def _inputs(self, seqs, rows=()):
        """What the fitted networks see of the sequences: the state networks'
        inputs at every step, and the output networks' at ``rows``."""
        return self.representation_.inputs(seqs, rows, self.n_jobs)

    def _transitions(self, U, model):
        check_memory(self, U.shape[0], self._n_chain_states())
        return model.transition.probs(model.theta_t, U, model.mask)

    def _forward(self, seqs, U, model, log_emit=None):
        """The forward pass of the fitted chain on the state networks' inputs U:
        log-likelihoods and filtered distributions, given the emission
        log-likelihoods (none by default)."""
        if log_emit is None:
            log_emit = np.zeros((U.shape[0], self._n_chain_states()))
        chain = Chain(model.startprob, log_emit, seqs.offsets, n_jobs=self.n_jobs)
        return chain.forward(self._transitions(U, model))

    def _filtered(self, seqs, U, model):
        """zeta_t = P(x_t | u_1..t): the state distribution given the inputs only."""
        return self._forward(seqs, U, model).gamma

    def _log_emissions(self, n_steps, U_targets, model, targets):
        """Emission log-likelihoods at the supervised steps (0 elsewhere), from
        the output networks' inputs there."""
        log_emit = np.zeros((n_steps, self._n_chain_states()))
        log_emit[targets.steps] = model.emission.log_prob(
            model.theta_e, U_targets, targets.values)
        return log_emit

    def _given_outputs(self, seqs, y, model, kind):
        """State distributions at every step given the inputs and the observed
        outputs ``y`` (in any form ``fit`` accepts; steps without a target are
        skipped):

        * ``"filtered"``: P(x_t | u_1..t, y_1..t), the forward recursion
          (Hamilton 1989; Bengio & Frasconi 1996, eq. 24);
        * ``"smoothed"``: P(x_t | u, y) over the whole sequence, by
          forward-backward (the smoothed probabilities of Kim 1994);
        * ``"predicted"``: P(x_t | u_1..t, y_1..t-1), the filtered distribution
          of the step before moved by the transition of step t (x_0 ~
          ``startprob_`` before the first step).
        """
        targets = self._outputs.encode_targets(self, y, seqs, reset=False)
        U, U_targets = self._inputs(seqs, targets.steps)
        log_emit = self._log_emissions(U.shape[0], U_targets, model, targets)
        trans = self._transitions(U, model)
        chain = Chain(model.startprob, log_emit, seqs.offsets, n_jobs=self.n_jobs)
        if kind == "smoothed":
            return chain.posteriors(trans, XI_NONE).gamma
        filtered = chain.forward(trans).gamma
        if kind == "filtered":
            return filtered
        before = np.empty_like(filtered)
        before[1:] = filtered[:-1]
        before[seqs.offsets[:-1]] = model.startprob
        n = self._n_chain_states()
        trans = np.broadcast_to(trans, (U.shape[0], n, n))
        return np.einsum("tj,tji->ti", before, trans)

    def _state_proba(self, X, y, smoothed):
        """The validated sequences and the packed state distributions of
        :meth:`predict_state_proba`."""
        if not isinstance(smoothed, bool | np.bool_):
            raise TypeError(f"smoothed must be True or False, got {smoothed!r}.")
        seqs = self._checked(X)
        model = self._fitted_model()
        if y is None:
            # Without outputs, the inputs after t say nothing about x_t (the
            # chain is conditioned on the inputs, which do not depend on the
            # states): the smoothed distribution is the filtered one.
            return seqs, self._filtered(seqs, self._inputs(seqs)[0], model)
        kind = "smoothed" if smoothed else "filtered"
        return seqs, self._given_outputs(seqs, y, model, kind)

    def predict_state_proba(self, X, y=None, *, smoothed=False):
        """State distributions step by step, given the inputs and, optionally,
        the observed outputs.

        Without ``y``: P(x_t | u_1..t), the model's "memory" (Bengio & Frasconi
        1996, eq. 6), available causally as a sequence is being read.

        With ``y`` (the regime analyst's view, statsmodels'
        ``filtered_marginal_probabilities``): the filtered P(x_t | u_1..t,
        y_1..t) of Hamilton's (1989) filter; with ``smoothed=True``, P(x_t | u,
        y) given the whole sequence (Kim 1994; statsmodels'
        ``smoothed_marginal_probabilities``), by forward-backward.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : array-like or list of arrays, default=None
            Observed outputs, in any form ``fit`` accepts: one target per
            sequence (observing its last step only), or per-step targets with
            NaN (None for labels) at steps whose output was not observed, which
            the filter skips.
        smoothed : bool, default=False
            Condition every step on the whole sequence's outputs. Without ``y``
            nothing is observed after t that concerns x_t (the inputs do not
            depend on the states), so the result is the filtered one.

        Returns
        -------
        proba : list of ndarray (len_i, n_states), or ndarray
            A list for list input; for array input a padded array of shape
            (n_sequences, max_len, n_states) with NaN after each sequence's end.

        Examples
        --------
        >>> import numpy as np
        >>> from skseq import IOHMMRegressor
        >>> rng = np.random.default_rng(0)
        >>> y = np.r_[rng.normal(0, 1, 40), rng.normal(5, 1, 40)]
        >>> X, Y = [np.zeros((80, 1))], [y]
        >>> reg = IOHMMRegressor(2, emission="state", random_state=0).fit(X, Y)
        >>> p = reg.predict_state_proba(X, Y, smoothed=True)[0]
        >>> bool(np.argmax(p[10]) != np.argmax(p[70]))
        True
        """
        seqs, proba = self._state_proba(X, y, smoothed)
        return seqs.unpack(proba)

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
        seqs = self._checked(X)
        probs = self._transitions(self._inputs(seqs)[0], self._fitted_model())
        # a family may share one matrix between all steps
        n = self._n_chain_states()
        return seqs.unpack(np.broadcast_to(probs, (seqs.data.shape[0], n, n)))

    def _score_targets(self, seqs, y, sample_weight):
        """Targets for ``score`` and per-target weights (None if unweighted)."""
        return score_targets(y, seqs, sample_weight, task=self._outputs.task,
                             step_level=self.step_level_)

    def _score(self, X, y, sample_weight):
        seqs = self._checked(X)
        targets, weight = self._score_targets(seqs, y, sample_weight)
        return self._outputs.score(self, seqs, y, targets, weight)

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
        seqs = self._checked(X)
        if y is None:
            y = self._outputs.predicted_targets(self, seqs)
        return self._loglik(seqs, y)[0]

    def _loglik(self, seqs, y):
        """Per-sequence log P(y | u) and the number of targets."""
        targets = self._outputs.encode_targets(self, y, seqs, reset=False)
        model = self._fitted_model()
        U, U_targets = self._inputs(seqs, targets.steps)
        log_emit = self._log_emissions(U.shape[0], U_targets, model, targets)
        if getattr(model.transition, "_fused_kind", None) is not None:
            # the fused pass: no (n_steps, n, n) matrices (skseq._fused)
            passes = model.transition.gradient_passes(U, model.mask, seqs.offsets,
                                                      n_jobs=self.n_jobs)
            loglik = passes.logliks(model.theta_t[None], model.startprob[None],
                                    log_emit[None])[0]
        else:
            loglik = self._forward(seqs, U, model, log_emit).loglik
        return loglik, len(targets.steps)

    def aic(self, X, y):
        """Akaike information criterion, -2 log P(y | u) + 2 p.

        p is the number of free parameters of the fitted model: the state and
        output networks' weights and intercepts (less the one redundant logit of
        every softmax, which adding a constant to all its logits leaves
        unchanged, and the weights of forbidden transitions), the variances of
        Gaussian outputs, and the start distribution if it is learned
        (``n_states - 1``). Lower is better: compare models of different
        ``n_states`` without cross-validation.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : array-like or list of arrays
            Targets in any form accepted by ``fit``.

        Returns
        -------
        aic : float
        """
        loglik = self._loglik(self._checked(X), y)[0]
        return float(-2.0 * loglik.sum() + 2.0 * self._n_free_params_)

    def bic(self, X, y):
        """Bayesian information criterion, -2 log P(y | u) + p log(n).

        p as for :meth:`aic`; n is the number of targets (sequences for
        sequence-level targets, labelled steps for step-level ones). Lower is
        better.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : array-like or list of arrays
            Targets in any form accepted by ``fit``.

        Returns
        -------
        bic : float
        """
        loglik, n_targets = self._loglik(self._checked(X), y)
        return float(-2.0 * loglik.sum() + self._n_free_params_ * np.log(n_targets))

    def sample(self, X, random_state=None):
        """Draw state paths and outputs given the inputs.

        For every sequence, x_0 ~ startprob, then at each step x_t from the
        transition the input chose and y_t from the output network of x_t
        (Bengio & Frasconi 1996, eqs. 2 and 9): simulated scenarios, e.g. of a
        regressor's regimes under given inputs.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        random_state : int, RandomState instance or None, default=None
            Controls the draws.

        Returns
        -------
        y : list of ndarray, or ndarray
            An output at every step: class labels (a list of per-sequence arrays)
            or values (in the form of X, as a step-level ``predict``).
        states : list of ndarray of int, or ndarray
            The drawn state path, in the form of :meth:`decode`'s.
        """
        seqs = self._checked(X)
        model = self._fitted_model()
        rng = check_random_state(random_state)
        n = self._n_chain_states()
        U, U_all = self._inputs(seqs, np.arange(seqs.data.shape[0]))
        trans = np.broadcast_to(self._transitions(U, model), (U.shape[0], n, n))
        states = _sample_paths(seqs, model.startprob, trans, rng)
        y = self._outputs.sample(self, seqs, U_all, model, states, rng)
        return y, seqs.unpack(states, fill=-1)

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
        seqs = self._checked(X)
        model = self._fitted_model()
        if y is None:
            U = self._inputs(seqs)[0]
            log_emit = np.zeros((U.shape[0], self._n_chain_states()))
        else:
            targets = self._outputs.encode_targets(self, y, seqs, reset=False)
            U, U_targets = self._inputs(seqs, targets.steps)
            log_emit = self._log_emissions(U.shape[0], U_targets, model, targets)
        with np.errstate(divide="ignore"):
            log_trans = np.log(self._transitions(U, model))
            log_start = np.log(model.startprob)
        _, path = viterbi(log_start, np.ascontiguousarray(log_trans), log_emit,
                          seqs.offsets, n_jobs=self.n_jobs)
        return seqs.unpack(path, fill=-1)


class FlatIOHMM(BaseIOHMM):
    """An IOHMM whose state is one variable of ``n_states`` values, moved by a
    state-network family (``transition``) over a transition graph
    (``topology``). Base of :class:`IOHMMClassifier` and :class:`IOHMMRegressor`.
    """

    _parameter_constraints: dict = {
        **BaseIOHMM._parameter_constraints,
        "n_states": [Interval(numbers.Integral, 1, None, closed="left")],
        "transition": [StrOptions(set(TRANSITIONS))],
        "topology": [StrOptions({"ergodic", "left-right"}), "array-like"],
    }

    _structure_params = (*BaseIOHMM._structure_params, "n_states", "transition",
                         "topology")

    def __init__(self, n_states, *, transition, topology, **params):
        self.n_states = n_states
        self.transition = transition
        self.topology = topology
        super().__init__(**params)

    def _n_chain_states(self):
        return self.n_states

    def _transition_mask(self):
        return topology_mask(self.topology, self.n_states)

    def _make_transition(self, n_features):
        return TRANSITIONS[self.transition](self.n_states, n_features, self.n_hidden)
