"""The E-step and Viterbi: thin wrappers around the recursions of
``_forward_backward.pyx``.

The kernels only fill the arrays they are handed and release the GIL; here shapes
are checked, outputs allocated, and sequences split into contiguous chunks of
about equal total length that run on ``n_jobs`` threads.
"""

import functools
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy.special import logsumexp

from . import _parallel
from ._build import build

_forward_backward = build("_forward_backward")

# What the backward pass writes into xi (declared once, in _forward_backward.pyx).
XI_NONE = _forward_backward.XI_NONE
XI_STEP = _forward_backward.XI_STEP
XI_GRAD = _forward_backward.XI_GRAD
XI_SUM = _forward_backward.XI_SUM


class Posteriors(NamedTuple):
    """What :func:`forward_backward` returns (see there)."""

    loglik: np.ndarray
    gamma: np.ndarray
    start_post: np.ndarray
    xi: np.ndarray | None


# Below this many steps per thread (with 2 states; fewer with more states, in
# proportion to the work per step, about n (n + 4) entries), starting a thread
# costs more than it saves.
_MIN_STEPS_PER_THREAD = 20_000


def _chunks(offsets, n_jobs, n_states=1):
    """Split sequences into at most ``n_jobs`` contiguous ranges of similar length."""
    n_steps = int(offsets[-1])
    work = n_steps * n_states * (n_states + 4) // 12  # in 2-state steps
    n_chunks = _parallel.n_threads(n_jobs, offsets.shape[0] - 1, work,
                                   _MIN_STEPS_PER_THREAD)
    return _parallel.balanced_ranges(offsets, n_chunks)


def _check_shapes(startprob, trans, log_emit, offsets):
    n_steps, n_states = log_emit.shape
    if (trans.shape[0] not in (1, n_steps) or trans.shape[1:] != (n_states, n_states)
            or startprob.shape != (n_states,)):
        raise ValueError(
            f"Inconsistent kernel shapes: trans {trans.shape}, log_emit "
            f"{log_emit.shape}, startprob {startprob.shape}."
        )
    if offsets[-1] != n_steps:
        raise ValueError("offsets do not cover the packed steps.")


def _xi_output(xi_mode, xi_out, trans, overwrite_trans, n_steps, n_states):
    """The array the kernel writes per-step statistics into (None for XI_NONE and
    XI_SUM): ``xi_out``, else ``trans`` if it may be overwritten, else a new one."""
    if xi_mode in (XI_NONE, XI_SUM):
        return xi_out
    if xi_out is None and overwrite_trans and trans.shape[0] == n_steps:
        xi_out = trans
    if xi_out is None:
        xi_out = np.empty((n_steps, n_states, n_states))
    if xi_out.shape != (n_steps, n_states, n_states):
        raise ValueError(f"xi_out has shape {xi_out.shape}, expected "
                         f"{(n_steps, n_states, n_states)}.")
    return xi_out


def forward_backward(startprob, trans, log_emit, offsets, *, weight=None,
                     xi_mode=XI_NONE, xi_out=None, overwrite_trans=False,
                     backward=True, n_jobs=None, exact=None):
    """Run the scaled forward-backward over all sequences.

    Parameters
    ----------
    startprob : ndarray of shape (n_states,)
        Distribution of x_0, before the first input.
    trans : ndarray of shape (n_steps, n_states, n_states) or (1, n_states, n_states)
        ``trans[t, j, i] = P(x_t = i | x_{t-1} = j, u_t)``; a single matrix is
        shared by every step (homogeneous chain).
    log_emit : ndarray of shape (n_steps, n_states)
        ``log P(y_t | x_t = i, u_t)``, 0 at steps without target.
    offsets : ndarray of shape (n_sequences + 1,)
    weight : ndarray of shape (n_sequences,), default=None
        Multiplies each sequence's posteriors and pairwise statistics.
    xi_mode : {XI_NONE, XI_STEP, XI_GRAD, XI_SUM}
        What to write into ``xi_out``: nothing, pairwise posteriors per step,
        the log-likelihood gradient with respect to the transition logits per step,
        or the pairwise posteriors summed over all steps (shape (1, n, n)).
    xi_out : ndarray, default=None
        Output for ``xi_mode``: ``(n_steps, n, n)`` (may be ``trans`` itself, which
        is then overwritten in place); allocated if None. Ignored for XI_SUM.
    overwrite_trans : bool, default=False
        Write per-step statistics (XI_STEP, XI_GRAD) over ``trans`` when it holds
        one matrix per step, instead of allocating a second (n_steps, n, n) array.
    backward : bool, default=True
        If False only the forward pass runs and ``gamma`` holds the filtered
        distributions P(x_t | y_1..t, u_1..t).
    n_jobs : int, default=None
        Threads over sequences.
    exact : ndarray of bool of shape (n_sequences,), default=None
        Sequences recomputed on logarithms whatever their scaled result (with
        ``XI_NONE``), where the caller knows the scaled passes may drop a path
        that comes back ahead; those whose scaled passes leave the float range
        always are.

    Returns
    -------
    posteriors : Posteriors
        A named tuple:

        loglik : ndarray of shape (n_sequences,)
        gamma : ndarray of shape (n_steps, n_states)
            Weighted state posteriors (or filtered distributions if not
            ``backward``).
        start_post : ndarray of shape (n_sequences, n_states)
            Weighted posteriors of x_0.
        xi : ndarray or None
            The statistic of ``xi_mode``.
    """
    _check_shapes(startprob, trans, log_emit, offsets)
    n_steps, n_states = log_emit.shape
    n_seq = offsets.shape[0] - 1
    weight = np.ones(n_seq) if weight is None else np.ascontiguousarray(weight, float)
    chunks = _chunks(offsets, n_jobs, n_states)
    xi_out = _xi_output(xi_mode, xi_out, trans, overwrite_trans, n_steps, n_states)
    posteriors = _fill(startprob, trans, log_emit, offsets, weight, chunks, xi_mode,
                       xi_out, backward)
    if xi_mode == XI_NONE:
        _repair_in_log_space(posteriors, startprob, trans, log_emit, offsets,
                             weight, backward, exact)
    return posteriors


def _repair_in_log_space(posteriors, startprob, trans, log_emit, offsets, weight,
                         backward, exact=None):
    """Recompute, in place, the sequences whose scaled passes left the float
    range (a normaliser too small to divide by: non-finite posteriors, where
    likelihoods differ by thousands of nats between states that forced
    transitions make the only reachable ones), and those ``exact`` names, by
    the same recursions on logarithms (Bengio & Frasconi 1996, eqs. 24, 27,
    29): slower, exact. A sequence no path can explain keeps the kernel's
    result (log-likelihood -inf)."""
    bad = np.flatnonzero(~np.isfinite(posteriors.gamma).all(axis=1))
    redo = np.searchsorted(offsets, bad, side="right") - 1
    if exact is not None:
        redo = np.concatenate([redo, np.flatnonzero(exact)])
    for s in np.unique(redo):
        a, b = offsets[s], offsets[s + 1]
        with np.errstate(divide="ignore"):
            log_trans = np.log(trans[a:b] if trans.shape[0] > 1 else trans)
            log_start = np.log(startprob)
        loglik, gamma, start = _log_space_passes(log_start, log_trans,
                                                  log_emit[a:b], backward)
        if np.isfinite(loglik):
            posteriors.loglik[s] = loglik
            posteriors.gamma[a:b] = weight[s] * gamma
            if start is not None:
                posteriors.start_post[s] = weight[s] * start


def _log_space_passes(log_start, log_trans, log_emit, backward):
    """One sequence's log-likelihood, posteriors (filtered if not
    ``backward``) and, if ``backward``, those of the state before the first
    step, by the forward(-backward) recursions on logarithms."""
    step = (lambda t: log_trans[t]) if log_trans.shape[0] > 1 else (
        lambda t: log_trans[0])
    log_alpha = np.empty(log_emit.shape)
    previous = log_start
    for t in range(log_emit.shape[0]):
        previous = log_emit[t] + _log_sum_exp(previous[:, None] + step(t), 0)
        log_alpha[t] = previous
    loglik = logsumexp(log_alpha[-1])
    if not backward:
        return loglik, _normalised(log_alpha), None
    log_beta = np.zeros(log_emit.shape)
    for t in range(log_emit.shape[0] - 1, 0, -1):
        log_beta[t - 1] = _log_sum_exp(step(t) + log_emit[t] + log_beta[t], 1)
    before = log_start + logsumexp(step(0) + log_emit[0] + log_beta[0], axis=1)
    return loglik, _normalised(log_alpha + log_beta), _normalised(before[None])[0]


def _log_sum_exp(values, axis):
    """``log(sum(exp(values)))`` along ``axis``, shifted by the largest entry
    (0 where all are -inf): scipy's ``logsumexp`` costs about 20 times more
    per call on the small arrays of a step."""
    top = values.max(axis=axis)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(values - np.expand_dims(top, axis)).sum(axis=axis)) + top


def _normalised(log_values):
    """Rows of ``exp(log_values)`` scaled to sum to 1."""
    return np.exp(log_values - logsumexp(log_values, axis=1, keepdims=True))


def _fill(startprob, trans, log_emit, offsets, weight, chunks, xi_mode, xi_out,
          backward):
    """Allocate the posteriors and run the kernel on every chunk of sequences,
    one thread each."""
    (n_steps, n_states), n_seq = log_emit.shape, offsets.shape[0] - 1
    if xi_mode == XI_SUM:  # one partial sum per chunk, added up in chunk order
        partial = np.zeros((len(chunks), 1, n_states, n_states))
    dummy = np.empty((1, n_states, n_states))
    loglik = np.empty(n_seq)
    gamma = np.empty((n_steps, n_states))
    # exp(log_emit) for the kernel, which leaves in it what the backward pass needs.
    emit = np.empty((n_steps, n_states))
    start_post = np.empty((n_seq, n_states))

    def one(k, a, b):
        out = partial[k] if xi_mode == XI_SUM else (dummy if xi_out is None else xi_out)
        rows = slice(offsets[a], offsets[b])
        with np.errstate(over="ignore"):  # the kernel handles inf
            np.exp(log_emit[rows], out=emit[rows])
        _forward_backward.forward_backward_fill(
            startprob, trans, log_emit, offsets, weight, a, b, loglik, gamma, emit,
            start_post, out, xi_mode, backward)

    _parallel.run([functools.partial(one, k, a, b)
                   for k, (a, b) in enumerate(chunks)])
    if xi_mode == XI_SUM:
        xi_out = partial.sum(axis=0)
    return Posteriors(loglik, gamma, start_post,
                      xi_out if xi_mode != XI_NONE else None)


@dataclass(frozen=True)
class Chain:
    """A chain's data besides its transition matrices: what every E-step needs.

    Transition families run their E-steps on it (``skseq._families.transitions``).

    Attributes
    ----------
    startprob : ndarray of shape (n_states,)
    log_emit : ndarray of shape (n_steps, n_states)
        ``log P(y_t | x_t = i, u_t)``, 0 at steps without target.
    offsets : ndarray of shape (n_sequences + 1,)
    weight : ndarray of shape (n_sequences,) or None
    n_jobs : int or None
    """

    startprob: np.ndarray
    log_emit: np.ndarray
    offsets: np.ndarray
    weight: np.ndarray | None = None
    n_jobs: int | None = None

    def posteriors(self, trans, statistic):
        """:func:`forward_backward` with ``statistic`` (an ``XI_*`` mode) written
        over ``trans`` where it holds one matrix per step."""
        return forward_backward(self.startprob, trans, self.log_emit, self.offsets,
                                weight=self.weight, xi_mode=statistic,
                                overwrite_trans=True, n_jobs=self.n_jobs)

    def forward(self, trans):
        """The forward pass alone: per-sequence log-likelihoods, and in ``gamma``
        the filtered distributions P(x_t | y_1..t, u_1..t)."""
        return forward_backward(self.startprob, trans, self.log_emit, self.offsets,
                                backward=False, n_jobs=self.n_jobs)


def viterbi(log_startprob, log_trans, log_emit, offsets, *, n_jobs=None):
    """Most likely state path (x_1..x_T) of every sequence.

    Returns
    -------
    best_logprob : ndarray of shape (n_sequences,)
        ``max over paths of log P(x_1..x_T, y | u)``.
    path : ndarray of shape (n_steps,), dtype=intp
    """
    n_steps, n_states = log_emit.shape
    n_seq = offsets.shape[0] - 1
    best = np.empty(n_seq)
    backpointer = np.empty((n_steps, n_states), dtype=np.intp)
    path = np.empty(n_steps, dtype=np.intp)
    chunks = _chunks(offsets, n_jobs, n_states)

    _parallel.run([functools.partial(
        _forward_backward.viterbi_fill, log_startprob, log_trans, log_emit, offsets,
        a, b, best, backpointer, path) for a, b in chunks])
    return best, path
