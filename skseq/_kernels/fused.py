"""Fused value-and-gradient pass of the state networks whose logits are linear in θ.

Thin wrapper around the kernel of ``_fused.pyx``: checks shapes, allocates, and
spreads the work over threads. The kernel forms each step's transition matrix from
the inputs inside the forward-backward recursion and accumulates the gradient with
respect to the state networks in the same pass, so the (n_steps, n, n) transition
and pairwise arrays of the unfused path (``transition_probs`` + ``forward_backward``
with ``XI_GRAD`` + the family's ``backward``) never exist.

Several parameter sets (the restarts of a fit, advancing in lockstep) share one
call: the work is cut into items, one restart on one chunk of consecutive
sequences. Chunk boundaries depend on the data only; each item writes its own
partial gradient and the partials are summed in chunk order, so the results are
bitwise the same for any ``n_jobs`` and whether a restart runs alone or in a batch.
"""

import functools
from typing import NamedTuple

import numpy as np

from . import _parallel
from ._build import build

_fused = build("_fused")

FAMILIES = {"input": 0, "additive": 1}

# Chunks of consecutive sequences: at least this many steps each, and at most
# _MAX_CHUNKS of them (the partial gradients take R x chunks x n_params doubles).
_CHUNK_STEPS = 2048
_MAX_CHUNKS = 32
# Below this much work per thread (steps x n^2 x (n_features + 8), about one
# multiply-add each), starting a thread costs more than it saves.
_MIN_WORK_PER_THREAD = 4_000_000
# A bound on |logits - intercept| below this cannot overflow: no saturation needed.
_SAFE_LOGIT_BOUND = 1e299



def _input_limit(coef):
    """The largest input |u_t[k]| that cannot overflow the logits, for ``coef`` of
    shape (..., n_features, width): |u_t @ coef| <= max_k |u_t[k]| sum_k max|coef[k]|
    (the kernel checks each block of inputs against it)."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        return _SAFE_LOGIT_BOUND / np.abs(coef).max(axis=-1, initial=0.0).sum(axis=-1)

class TransitionPass(NamedTuple):
    """What one fused pass returns, for R parameter sets (restarts).

    Attributes
    ----------
    loglik : ndarray of shape (R, n_sequences)
        log P(y^(s) | u^(s)); -inf for a sequence whose targets are impossible.
    gamma : ndarray of shape (R, n_steps, n_states)
        State posteriors, each sequence's multiplied by its weight.
    start_post : ndarray of shape (R, n_sequences, n_states)
        Weighted posteriors of x_0.
    grad_coef : ndarray of shape (R, n_features, n_states[, n_states])
        Gradient of sum_s weight_s loglik_s with respect to the input weights:
        W[k, j, i] of shape (R, n_features, n_states, n_states) for ``"input"``,
        V[k, i] of shape (R, n_features, n_states) for ``"additive"``.
    grad_intercept : ndarray of shape (R, n_states, n_states)
        The same with respect to the intercepts b[j, i].
    finite : ndarray of shape (R,), dtype=bool
        False where the parameters, a log-likelihood or the gradient is not finite:
        the objective there is +inf (an overflowing trial point, or impossible
        targets), as ``_Problem.value_and_grad`` returns it.
    """

    loglik: np.ndarray
    gamma: np.ndarray
    start_post: np.ndarray
    grad_coef: np.ndarray
    grad_intercept: np.ndarray
    finite: np.ndarray

    def grad_theta(self):
        """The gradient in the families' parameter order, [coef, intercept], (R, p)."""
        R = self.grad_coef.shape[0]
        return np.concatenate([self.grad_coef.reshape(R, -1),
                               self.grad_intercept.reshape(R, -1)], axis=1)


def sequence_chunks(offsets):
    """Boundaries (first, end) of the chunks of consecutive sequences.

    Each chunk holds at least ``_CHUNK_STEPS`` steps (but the last), and there are
    at most ``_MAX_CHUNKS``; the cut depends on ``offsets`` alone.
    """
    n_seq = offsets.shape[0] - 1
    n_steps = int(offsets[-1])
    size = max(_CHUNK_STEPS, -(-n_steps // _MAX_CHUNKS))
    targets = np.arange(size, n_steps, size)
    cuts = np.searchsorted(offsets, targets, side="left")
    bounds = np.unique(np.concatenate([[0], cuts, [n_seq]])).tolist()
    return list(zip(bounds[:-1], bounds[1:], strict=True))


class LinearTransitionPass:
    """The fused pass prepared for one data set: validated and cut into chunks once
    (per fit), then called with each batch of parameter sets.

    Parameters
    ----------
    family : {"input", "additive"}
        ``"input"``: z_t[j, i] = sum_k u_t[k] coef[k, j, i] + intercept[j, i];
        ``"additive"``: z_t[j, i] = sum_k u_t[k] coef[k, i] + intercept[j, i].
        P(x_t = i | x_{t-1} = j, u_t) is the softmax of z_t[j] over the entries
        ``mask[j]`` allows.
    U : ndarray of shape (n_steps, n_features)
        The packed inputs (shared by all restarts).
    offsets : ndarray of shape (n_sequences + 1,)
    n_states : int
    mask : ndarray of shape (n_states, n_states), default=None
        Allowed transitions j -> i (all if None).
    weight : ndarray of shape (n_sequences,), default=None
        Per-sequence weights of the log-likelihood sum.
    n_jobs : int, default=None
        Threads over the (restart, chunk) items.
    """

    def __init__(self, family, U, offsets, *, n_states, mask=None, weight=None,
                 n_jobs=None):
        if family not in FAMILIES:
            raise ValueError(f"family must be one of {sorted(FAMILIES)}, got "
                             f"{family!r}.")
        U = np.ascontiguousarray(U, dtype=np.float64)
        if U.ndim != 2:
            raise ValueError(f"U must have shape (n_steps, n_features), got "
                             f"{U.shape}.")
        T, d = U.shape
        n = n_states
        offsets = np.ascontiguousarray(offsets, dtype=np.intp)
        if (offsets.ndim != 1 or offsets.shape[0] < 1 or offsets[0] != 0
                or offsets[-1] != T or np.any(np.diff(offsets) < 0)):
            raise ValueError(f"offsets must rise from 0 to n_steps={T}.")
        n_seq = offsets.shape[0] - 1
        mask = (np.ones((n, n), np.uint8) if mask is None
                else np.ascontiguousarray(mask, dtype=np.uint8))
        if mask.shape != (n, n) or not mask.any(axis=1).all():
            raise ValueError(f"mask must be ({n}, {n}) with an allowed entry in every "
                             f"row, got shape {mask.shape}.")
        weight = (np.ones(n_seq) if weight is None
                  else np.ascontiguousarray(weight, dtype=np.float64))
        if weight.shape != (n_seq,):
            raise ValueError(f"weight has shape {weight.shape}, expected ({n_seq},).")
        self.family, self.U, self.offsets = family, U, offsets
        self.mask, self.weight, self.n_jobs = mask, weight, n_jobs
        self.n_states, self.n_features = n, d
        self.coef_shape = (d, n, n) if family == "input" else (d, n)
        self.chunks = sequence_chunks(offsets)
        self._plans = {}

    def _plan(self, R):
        """Items (restart, first sequence, end sequence, chunk), chunk-major so a
        thread's restarts share the inputs in cache, and their thread ranges."""
        if R not in self._plans:
            items = np.array([(r, a, b, c) for c, (a, b) in enumerate(self.chunks)
                              for r in range(R)], dtype=np.intp).reshape(-1, 4)
            steps = self.offsets[items[:, 2]] - self.offsets[items[:, 1]]
            T, n = self.U.shape[0], self.n_states
            work = R * T * n * n * (self.n_features + 8)
            n_threads = _parallel.n_threads(self.n_jobs, len(items), work,
                                            _MIN_WORK_PER_THREAD)
            self._plans[R] = items, _parallel.balanced_ranges(
                np.concatenate([[0], np.cumsum(steps)]), n_threads)
        return self._plans[R]

    def __call__(self, startprob, coef, intercept, log_emit):
        """The pass for R parameter sets.

        Parameters
        ----------
        startprob : ndarray of shape (R, n_states)
        coef : ndarray of shape (R, n_features, n_states[, n_states])
            (R, n_features, n_states, n_states) for ``"input"``, (R, n_features,
            n_states) for ``"additive"``.
        intercept : ndarray of shape (R, n_states, n_states)
        log_emit : ndarray of shape (R, n_steps, n_states)
            log P(y_t | x_t = i, u_t) under each restart's outputs, 0 without
            target.

        Returns
        -------
        TransitionPass
        """
        startprob, coef, intercept, log_emit = self._checked(startprob, coef,
                                                             intercept, log_emit)
        (R, n), n_seq = startprob.shape, self.offsets.shape[0] - 1
        flat_coef, flat_intercept = coef.reshape(R, -1), intercept.reshape(R, -1)
        loglik = np.empty((R, n_seq))
        gamma = np.empty((R, self.U.shape[0], n))
        start_post = np.empty((R, n_seq, n))
        u_limit = _input_limit(coef.reshape(R, self.n_features, -1))
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            grad_coef, grad_intercept = self._fill(
                startprob, flat_coef, flat_intercept, log_emit, u_limit, loglik,
                gamma, start_post)
        finite = np.isfinite(np.concatenate(
            [flat_coef, flat_intercept, loglik, grad_coef, grad_intercept], axis=1)
        ).all(axis=1)
        return TransitionPass(loglik, gamma, start_post,
                              grad_coef.reshape(coef.shape),
                              grad_intercept.reshape(R, n, n), finite)

    def _checked(self, startprob, coef, intercept, log_emit):
        """The parameter sets and emissions as C-contiguous float64 arrays, each
        checked against R (the restarts of ``startprob``) and the data's shapes."""
        (T, d), n = self.U.shape, self.n_states
        startprob = np.ascontiguousarray(startprob, dtype=np.float64)
        R = startprob.shape[0] if startprob.ndim == 2 else -1
        arrays = []
        for name, value, shape in (("startprob", startprob, (R, n)),
                                   ("coef", coef, (R, *self.coef_shape)),
                                   ("intercept", intercept, (R, n, n)),
                                   ("log_emit", log_emit, (R, T, n))):
            value = np.ascontiguousarray(value, dtype=np.float64)
            if value.shape != shape or R < 0:
                raise ValueError(f"{name} has shape {value.shape}, expected "
                                 f"{shape} (R restarts, n_states={n}, "
                                 f"n_features={d}, n_steps={T}).")
            arrays.append(value)
        return arrays

    def _fill(self, startprob, flat_coef, flat_intercept, log_emit, u_limit, loglik,
              gamma, start_post):
        """Run the kernel on every (restart, chunk) item, on threads: fills
        ``loglik``, ``gamma`` and ``start_post`` and returns the gradient with
        respect to the flat coef and intercept, (R, p) each."""
        R, n_chunks = startprob.shape[0], len(self.chunks)
        items, ranges = self._plan(R)
        part_coef = np.empty((R, n_chunks, flat_coef.shape[1]))
        part_intercept = np.empty((R, n_chunks, flat_intercept.shape[1]))
        fixed = (FAMILIES[self.family], startprob, flat_coef, flat_intercept,
                 self.mask, self.U, log_emit, self.offsets, self.weight, u_limit,
                 items)
        _parallel.run([functools.partial(
            _fused.linear_transition_fill, *fixed, a, b, loglik, gamma, start_post,
            part_coef, part_intercept) for a, b in ranges])
        # The partials summed in chunk order: the same bits for any split.
        grad_coef = part_coef[:, 0].copy()
        grad_intercept = part_intercept[:, 0].copy()
        for c in range(1, n_chunks):
            grad_coef += part_coef[:, c]
            grad_intercept += part_intercept[:, c]
        return grad_coef, grad_intercept


def linear_transition_pass(family, startprob, coef, intercept, U, log_emit, offsets,
                           *, mask=None, weight=None, n_jobs=None):
    """Log-likelihoods, posteriors and state-network gradient in one fused pass,
    for R parameter sets at once: ``LinearTransitionPass(family, U, offsets,
    ...)(startprob, coef, intercept, log_emit)`` (see :class:`LinearTransitionPass`
    for the parameters; prepare one per data set to pay its setup once).

    Returns
    -------
    TransitionPass
    """
    n_states = np.shape(startprob)[-1]
    prepared = LinearTransitionPass(family, U, offsets, n_states=n_states, mask=mask,
                                    weight=weight, n_jobs=n_jobs)
    return prepared(startprob, coef, intercept, log_emit)


class LinearNormalizer:
    """The part of the GEM M-step's objective that changes with θ, for state
    networks whose logits are linear in θ, every transition allowed.

    Q(θ) = sum_t,j,i xi_t[j, i] z_t[j, i] - sum_t,j rows[t, j] log sum_i exp
    z_t[j, i] (Bengio & Frasconi 1996, eq. 36): the first term is linear in θ, fixed
    during an M-step; this computes the second and its gradient in one compiled pass
    over blocks of steps (nothing of size T n^2 is formed).

    Parameters
    ----------
    family : {"input", "additive"}
        As :class:`LinearTransitionPass`.
    U : ndarray of shape (n_steps, n_features)
    rows : ndarray of shape (n_steps, n_states)
        The row sums of the pairwise posteriors, gamma_{t-1} (0 at the first step
        of a sequence).
    """

    def __init__(self, family, U, rows):
        if family not in FAMILIES:
            raise ValueError(f"family must be one of {sorted(FAMILIES)}, got "
                             f"{family!r}.")
        self.family = family
        self.U = np.ascontiguousarray(U, dtype=np.float64)
        self.rows = np.ascontiguousarray(rows, dtype=np.float64)
        if (self.U.ndim != 2 or self.rows.ndim != 2
                or self.rows.shape[0] != self.U.shape[0]):
            raise ValueError(f"U {self.U.shape} and rows {self.rows.shape} must be "
                             "(n_steps, n_features) and (n_steps, n_states).")

    def __call__(self, coef, intercept):
        """sum_t,j rows[t, j] logsumexp_i z_t[j, i] and its gradient with respect
        to ``coef`` and ``intercept`` (arrays of their shapes)."""
        d, n = self.U.shape[1], self.rows.shape[1]
        width = n * n if self.family == "input" else n
        coef = np.ascontiguousarray(coef, dtype=np.float64)
        intercept = np.ascontiguousarray(intercept, dtype=np.float64)
        if coef.size != d * width or intercept.shape != (n, n):
            raise ValueError(f"coef {coef.shape} or intercept {intercept.shape} do "
                             f"not fit n_states={n}, n_features={d}.")
        u_limit = _input_limit(coef.reshape(d, -1))
        grad_coef = np.empty(d * width)
        grad_intercept = np.empty(n * n)
        value = _fused.linear_normalizer_fill(FAMILIES[self.family], coef.ravel(),
                                              intercept.ravel(), self.U, self.rows,
                                              float(u_limit), grad_coef,
                                              grad_intercept)
        return value, grad_coef.reshape(coef.shape), grad_intercept.reshape(n, n)
