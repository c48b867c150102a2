"""The objective of every IOHMM fit: one fitting problem and its J(theta).

The model (Bengio & Frasconi 1996): a discrete state x_0 ~ startprob,
then at every step t = 1..T a transition P(x_t | x_{t-1}, u_t) from the state
networks and, at supervised steps, an output P(y_t | x_t, u_t) from the output
networks. The objective minimised by both solvers (``skseq._fit.solvers``) is

    J(theta) = -(1/W) [sum_s w_s log P(y^(s) | u^(s); theta) - alpha/2 ||theta_w||^2]

(W the total sequence weight, theta_w the input weights): a MAP fit with a
N(0, 1/alpha) prior on the input weights, scaled per sequence so that ``tol`` means
the same for any data size (:class:`Problem`). Its exact gradient comes from the
forward-backward, because the backward pass is the gradient of the forward pass
(Buys, Bisk & Choi 2018, §2.2; Bengio & Frasconi 1996, after eq. 29); the GEM
E-step gives posteriors (eqs. 28-29) and the M-step (``skseq._fit.m_step``)
improves each network's part of the auxiliary function (eqs. 36-37).

The families own their math (``skseq._transitions``, ``skseq._emissions``); the
problem only composes them. :class:`FittedModel` is what inference needs of a
fitted estimator.
"""

import functools
import math
from typing import NamedTuple

import numpy as np

from .._families.emissions import inverse_cdf
from .._families.starts import HOLD_LOGIT
from .._families.viterbi_start import viterbi_emissions
from .._kernels._parallel import map_blocks
from .._kernels.forward_backward import XI_NONE, Chain, viterbi

# Supervised steps per block of the output networks' batched terms, computed on
# threads a block at a time: fixed, so that the gradient (summed in block order)
# is the same whatever n_jobs.
_ROWS_PER_BLOCK = 1024

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



def fixed_startprob(startprob, n_states):
    """None when startprob is learned, ``"stationary"`` when it is the chain's
    stationary distribution, else the fixed distribution."""
    if isinstance(startprob, str):
        if startprob in ("learn", "stationary"):
            return None if startprob == "learn" else startprob
        return np.full(n_states, 1.0 / n_states)
    p = np.asarray(startprob, dtype=np.float64)
    if p.shape != (n_states,):
        raise ValueError(
            f"startprob has shape {p.shape}, expected ({n_states},): one "
            f"probability for each of the model's {n_states} hidden states (a "
            "hierarchy's states are the combinations of its levels' states)."
        )
    bad = np.flatnonzero(~np.isfinite(p) | (p < 0))
    if bad.size:
        raise ValueError(f"startprob[{bad[0]}] is {float(p[bad[0]])!r}: the start "
                         "probabilities must be finite and non-negative.")
    if not np.isclose(p.sum(), 1.0):
        raise ValueError(f"startprob sums to {float(p.sum())!r}; the start "
                         "probabilities must sum to 1.")
    return p / p.sum()


def _check_stationary(transition, mask):
    """ValueError unless the chain has a stationary distribution that
    weighs every state, a function of its transition parameters."""
    if not hasattr(transition, "stationary"):
        raise ValueError(
            "startprob='stationary' needs transition='homogeneous': a chain "
            "whose transitions change with the inputs has no stationary "
            "distribution.")
    if not irreducible(mask):
        raise ValueError(
            "startprob='stationary' needs a topology in which every state "
            "can reach every other: with this one (e.g. 'left-right') the "
            "chain has no unique stationary distribution, or one that never "
            "leaves a closed set of states. Use startprob='learn' or a fixed "
            "distribution.")


def irreducible(mask):
    """Whether every state can reach every other through the allowed
    transitions of ``mask`` (None: all allowed), as a chain needs for a
    unique stationary distribution that gives every state weight."""
    if mask is None:
        return True
    reach = np.eye(mask.shape[0], dtype=bool) | mask
    while True:
        wider = reach | ((reach.astype(np.int64) @ reach.astype(np.int64)) > 0)
        if (wider == reach).all():
            return bool(reach.all())
        reach = wider


def row_dots(a, b):
    """a_r . b_r for every row of ``a`` (``b`` broadcast to it), a scalar for a
    vector, each sum correctly rounded (``math.fsum``): the value of one
    parameter set then has the same bits whatever the other rows of a batch
    (NumPy's and BLAS's sums group their terms by the row's memory alignment)."""
    products = a * b
    if products.ndim == 1:
        return _fsum(products)
    return np.array([_fsum(row) for row in products])


def mark_overflow(values, grads):
    """Rows where anything overflowed get +inf and a zero gradient, so that
    the line search backtracks from them."""
    bad = ~(np.isfinite(values) & np.isfinite(grads).all(axis=1))
    values[bad] = np.inf
    grads[bad] = 0.0
    return values, grads


def _fsum(values):
    """math.fsum, or NumPy's sum where fsum refuses (an overflowing partial sum,
    or inf - inf: the caller then sees inf or NaN, as from NumPy)."""
    try:
        return math.fsum(values)
    except (OverflowError, ValueError):
        return float(np.sum(values))


class Setup(NamedTuple):
    """What a fit decided before solving: the representation of the inputs
    and what the networks see, the targets and weights, the penalty, the
    random generator and whether (and how often) to draw starting points."""

    features: str
    representation: object
    inputs: tuple
    targets: object
    weight: np.ndarray
    alpha: float
    rng: object
    do_init: bool
    n_init: int


class Problem:
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
        self.seqs = seqs
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
        if self.stationary:
            _check_stationary(transition, mask)
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
        self.units_offset = self._units_offset(seqs, targets)
        # The determinant reward is a mean over the training steps, each step
        # weighted by its sequence's weight.
        lengths = np.diff(self.offsets)
        self.step_weight = (np.repeat(weight, lengths) / (weight @ lengths)
                            if det_penalty else None)
        self._passes = None       # the lbfgs E-step, prepared at its first call
        self._emit_batch = None   # (R, n_steps, n) emissions of R parameter sets

    def _units_offset(self, seqs, targets):
        """The part of J that only the units of y set: the log-Jacobian of
        the targets' standardization (``GaussianEmission.log_prob``) of every
        weighted target, over W; 0 for labels. A constant, which the lbfgs
        solver leaves out of its test, relative to J's value, of convergence."""
        scale = getattr(self.emission, "y_scale", None)
        if scale is None:
            return 0.0
        w = self.weight[seqs.sequence_of(targets.steps)]
        if self.target_weight is not None:
            w = w * self.target_weight
        return float(np.sum(np.log(scale)) * w.sum() / self.total_weight)

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
        value = 0.5 * self.alpha * row_dots(w, w)
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
        return (-row_dots(loglik, self.weight) / self.total_weight
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
        log_emit[:, self.steps] = self._weighted(np.concatenate(self._blocks(
            self.emission.log_prob_batch, thetas_e), axis=1))
        startprob = self.startprobs(thetas_s, thetas_t)
        return startprob, getattr(self._passes, what)(thetas_t, startprob, log_emit)

    def _blocks(self, method, thetas_e, *per_row):
        """``method(thetas_e, U, y, *per_row)`` (an output network's batched
        log-likelihoods or gradient) on every block of ``_ROWS_PER_BLOCK``
        supervised steps (of ``per_row``'s arrays too, (R, n_targets, ...)),
        on threads, in block order."""
        U, y = self.U_targets, self.y
        return map_blocks(
            lambda a, b: method(thetas_e, U[a:b], y[a:b],
                                *(v[:, a:b] for v in per_row)),
            y.shape[0], _ROWS_PER_BLOCK, self.n_jobs)

    def values_and_grads(self, thetas):
        """J and its exact gradient at R parameter sets, rows of ``thetas`` (R,
        n_params): the lbfgs solver's batched objective, one pass for all rows.

        A row where anything overflows gets +inf (and a zero gradient), so the
        line search backtracks from it.
        """
        thetas = np.ascontiguousarray(thetas, dtype=np.float64).reshape(
            -1, self.n_params)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            values, grads = self.with_prior(*self.data_terms(thetas), thetas)
            if self.det_penalty:
                a, b = self.n_start, self.n_start + self.n_trans
                for r, theta_t in enumerate(self.split(thetas)[1]):
                    reward, reward_grad = self.transition.det_reward(
                        theta_t, self.U, self.mask, self.step_weight)
                    values[r] -= self.det_penalty * reward
                    grads[r, a:b] -= self.det_penalty * reward_grad
        return mark_overflow(values, grads)

    def data_terms(self, thetas):
        """The data's part of W * J and of its gradient at the rows of
        ``thetas`` (R, n_params): -sum_s w_s log P(y^(s) | u^(s)) and its
        gradient, without the prior. Sums over sequences, so the terms of
        disjoint sets of sequences add up to those of their union (the fit
        across a Dask cluster, ``skseq._fit.distributed``)."""
        W = self.total_weight
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            startprob, res = self._gradient_passes(thetas)
            values = -row_dots(res.loglik, self.weight)
            thetas_e = self.split(thetas)[2]
            grads = [res.grad, functools.reduce(np.add, self._blocks(
                self.emission.grad_batch, thetas_e,
                self._weighted(res.gamma[:, self.steps])))]
            if self.n_start:
                grads.insert(0, res.start_post.sum(axis=1) - W * startprob)
            if self.stationary:
                # d loglik / d pi_i = (weighted posterior of x_0 = i) / pi_i
                grads[0] = grads[0] + np.array([
                    self.transition.stationary_backward(theta_t, self.mask, pi, g)
                    for theta_t, pi, g in zip(
                        self.split(thetas)[1], startprob,
                        res.start_post.sum(axis=1) / startprob, strict=True)])
            return values, -np.concatenate(grads, axis=1)

    def with_prior(self, values, grads, thetas):
        """J and its gradient from the data terms (:meth:`data_terms`, of all
        the data): the prior added, everything divided by W. ``grads`` is
        overwritten."""
        grads[:, self.penalised] += self.alpha * thetas[:, self.penalised]
        if self.transition_l1:
            grads[:, self.l1] += self._l1_gradient(thetas[:, self.l1])
        grads /= self.total_weight
        return values / self.total_weight + self.penalty(thetas), grads

    # -- what the driver's messages say of the inputs --------------------------
    def input_magnitude(self):
        """The largest magnitude of the input features."""
        return float(np.abs(self.seqs.data).max())

    def input_moments(self):
        """``(n_steps, mean, std)`` of the state networks' inputs, per column
        (inf, or NaN, where inputs near the float64 limit overflow them: far
        from standardized either way)."""
        with np.errstate(over="ignore", invalid="ignore"):
            return self.U.shape[0], self.U.mean(axis=0), self.U.std(axis=0)

    def one_hot_inputs(self):
        """Whether every step's features are a unit vector (symbols)."""
        U = self.seqs.data
        return bool(((U == 0) | (U == 1)).all() and (U.sum(axis=1) == 1).all())

    def value_and_grad(self, theta):
        """J(theta) and its exact gradient (:meth:`values_and_grads` of one)."""
        values, grads = self.values_and_grads(theta[None])
        return values[0], grads[0]

    def loglik(self, theta):
        """Per-sequence log-likelihoods."""
        return self.logliks(theta[None])[0]

    def logliks(self, thetas):
        """Per-sequence log-likelihoods at R parameter sets, (R, n_sequences)."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return self._gradient_passes(np.asarray(thetas, dtype=np.float64),
                                         "logliks")[1]

    # -- starting points -------------------------------------------------------
    def initial_theta(self, rng, init_scale, start):
        """A random starting point pushed toward ``start`` (one of
        ``skseq._transitions.STARTS``, see ``TransitionFamily.init``).

        A ``"hold"`` start also puts a learned start distribution on the first
        state, the one that reads the input while the others hold. Both
        families draw at ``init_scale`` times the larger of their
        ``start_scale``: a model starts small only when all its networks are
        linear (``skseq._families.starts.SMALL_START``).
        """
        scale = init_scale * max(self.transition.start_scale,
                                 self.emission.start_scale)
        theta_s = rng.normal(scale=0.1, size=self.n_start)
        if start == "hold" and self.n_start:
            theta_s[0] += HOLD_LOGIT
        return np.concatenate([
            theta_s,
            self.transition.init(rng, scale, start=start),
            self.emission.init(rng, scale),
        ])

    def initial_thetas(self, rng, init_scale, cycle, n_init):
        """The starting points of ``n_init`` restarts, one per row: restart k
        from :meth:`initial_theta` of ``cycle[k % len(cycle)]``, drawn in
        order, each into its row (no list of them beside the array)."""
        thetas = np.empty((n_init, self.n_params))
        for k in range(n_init):
            thetas[k] = self.initial_theta(rng, init_scale, cycle[k % len(cycle)])
        return thetas

    def fitted_theta(self, startprob, values_t, values_e):
        """The point of fitted parameters (a warm start): the start
        distribution and the families' parameter blocks, by name."""
        theta_s = np.log(np.maximum(startprob, 1e-300))
        return np.concatenate([theta_s[: self.n_start],
                               self.transition.pack(values_t),
                               self.emission.pack(values_e)])

    def share_readout(self, thetas, shared):
        """Move every state's output network of every row of ``thetas`` (in
        place) to one read-out ``shared`` (block name -> values), plus a tenth
        of its own start, to break the tie."""
        start = self.n_start + self.n_trans
        for theta in thetas:
            p = self.emission.unpack(theta[start:])
            for name, value in shared.items():
                p[name] *= 0.1
                p[name] += value[None] if name == "intercept" else (
                    value[:, None, :])


class FittedModel(NamedTuple):
    """The fitted chain inference works on: the families, their packed
    parameters, the mask and the start distribution. Its methods take arrays
    (the packed sequences' offsets, the networks' inputs, per-step transition
    matrices and emission log-likelihoods), never the estimator."""

    transition: object
    emission: object
    theta_t: np.ndarray
    theta_e: np.ndarray
    mask: np.ndarray | None
    startprob: np.ndarray

    @property
    def n_states(self):
        return self.startprob.shape[0]

    def transitions(self, U):
        """The transition matrices at every step of the state networks'
        inputs U (or one matrix shared by all steps)."""
        return self.transition.probs(self.theta_t, U, self.mask)

    def log_emissions(self, n_steps, U_targets, targets):
        """Emission log-likelihoods at the supervised steps (0 elsewhere), from
        the output networks' inputs there."""
        log_emit = np.zeros((n_steps, self.n_states))
        log_emit[targets.steps] = self.emission.log_prob(
            self.theta_e, U_targets, targets.values)
        return log_emit

    def forward(self, offsets, trans, log_emit, n_jobs):
        """The forward pass (log-likelihoods and filtered distributions) given
        the transitions and the emission log-likelihoods."""
        return Chain(self.startprob, log_emit, offsets, n_jobs=n_jobs).forward(trans)

    def given_outputs(self, offsets, trans, log_emit, kind, n_jobs):
        """State distributions at every step given the inputs and the outputs
        whose log-likelihoods ``log_emit`` holds:

        * ``"filtered"``: P(x_t | u_1..t, y_1..t), the forward recursion
          (Hamilton 1989; Bengio & Frasconi 1996, eq. 24);
        * ``"smoothed"``: P(x_t | u, y) over the whole sequence, by
          forward-backward (the smoothed probabilities of Kim 1994);
        * ``"predicted"``: P(x_t | u_1..t, y_1..t-1), the filtered distribution
          of the step before moved by the transition of step t (x_0 ~
          ``startprob`` before the first step).
        """
        chain = Chain(self.startprob, log_emit, offsets, n_jobs=n_jobs)
        if kind == "smoothed":
            return chain.posteriors(trans, XI_NONE).gamma
        filtered = chain.forward(trans).gamma
        if kind == "filtered":
            return filtered
        before = np.empty_like(filtered)
        before[1:] = filtered[:-1]
        before[offsets[:-1]] = self.startprob
        n = self.n_states
        trans = np.broadcast_to(trans, (filtered.shape[0], n, n))
        return np.einsum("tj,tji->ti", before, trans)

    @property
    def fused(self):
        """Whether the state family has a fused pass (skseq._fused): its
        log-likelihoods need no (n_steps, n, n) matrices."""
        return getattr(self.transition, "_fused_kind", None) is not None

    def fused_logliks(self, U, offsets, log_emit, n_jobs):
        """Per-sequence log-likelihoods by the fused pass (:attr:`fused`)."""
        passes = self.transition.gradient_passes(U, self.mask, offsets,
                                                 n_jobs=n_jobs)
        return passes.logliks(self.theta_t[None], self.startprob[None],
                              log_emit[None])[0]

    def viterbi(self, offsets, trans, log_emit, n_jobs):
        """The most likely state path, packed."""
        with np.errstate(divide="ignore"):
            log_trans = np.log(trans)
            log_start = np.log(self.startprob)
        log_emit = viterbi_emissions(self.startprob, trans, log_emit, offsets)
        return viterbi(log_start, np.ascontiguousarray(log_trans), log_emit,
                       offsets, n_jobs=n_jobs)[1]

    def sample_paths(self, seqs, trans, rng):
        """State paths x_1..x_T drawn from the chain, all sequences in lockstep:
        one vectorised draw per step index (packed, as Sequences.data)."""
        starts, lengths = seqs.offsets[:-1], seqs.lengths
        startprob = self.startprob
        prev = inverse_cdf(
            np.broadcast_to(startprob, (seqs.n_sequences, startprob.size)),
            rng.random(seqs.n_sequences))
        states = np.empty(seqs.data.shape[0], dtype=np.intp)
        for t in range(int(lengths.max())):
            alive = lengths > t
            rows = starts[alive] + t
            prev[alive] = states[rows] = inverse_cdf(trans[rows, prev[alive]],
                                                     rng.random(rows.size))
        return states
