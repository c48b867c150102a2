"""The filter, smoother and Viterbi of a hidden semi-Markov chain of labels over
its expanded states (label, phase, duration): thin wrappers around the
recursions of ``_semi_markov.pyx``.

The chain is given by its arrays (``skseq._families.duration_chain``'s
``ExpandedChain``): ``stay``, ``move`` and ``hazard`` of shape ``(n_classes,
k, D)``, ``switch`` ``(n_classes, n_classes)`` and ``start`` ``(n_classes,)``.
Here shapes are checked and the outputs and the kernels' scratch allocated;
the kernels run one sequence after another, keeping every step of one
sequence (the smoother 8 bytes per expanded state and step, Viterbi 1).

The filter and smoother scale their messages per step, which loses entries
to underflow once a step's log-likelihoods lie hundreds of nats apart; the
sequences that have such a step (more than ``WIDEST_SCALED / k`` between the
largest and smallest finite log-likelihood of a step, ``k`` states per label:
see :func:`wide_sequences`) run through the same passes written on logarithms
(``_semi_markov_log.pyx``), slower but exact at any spread. Viterbi works on
logarithms throughout.
"""

import numpy as np

from . import _semi_markov_log
from ._build import build
from ._packed import check_offsets

_semi_markov = build("_semi_markov")

# Nats between a step's largest and smallest finite log-likelihood beyond which
# its sequence is filtered and smoothed on logarithms, with one state per label
# (divided by the states per label: see wide_sequences): far below the ~708 at
# which e^-x underflows, and far above the spreads of the hybrid's likelihoods
# at its default scale (about 14 nats: posteriors floored at 1e-6).
WIDEST_SCALED = 200.0


def _parts(stay, move, hazard, switch, start, log_emit, offsets):
    """The chain's arrays as the kernels take them (C-contiguous float64, the
    expanded states' as ``(n_classes * k, D)``, in a ``ChainArrays``), and
    ``log_emit`` and ``offsets`` (intp); a ValueError naming the array whose
    shape does not match."""
    stay = np.asarray(stay, dtype=np.float64)
    if stay.ndim != 3:
        raise ValueError(f"stay must be (n_classes, k, D), got shape {stay.shape}.")
    n_classes, k, cap = stay.shape
    expected = {"move": (stay.shape, move), "hazard": (stay.shape, hazard),
                "switch": ((n_classes, n_classes), switch),
                "start": ((n_classes,), start),
                "log_emit": ((np.shape(log_emit)[0], n_classes * k), log_emit)}
    for name, (shape, value) in expected.items():
        if np.shape(value) != shape:
            raise ValueError(f"{name} must have shape {shape}, got "
                             f"{np.shape(value)}.")
    offsets = np.ascontiguousarray(offsets, dtype=np.intp)
    check_offsets(offsets, len(log_emit))
    flat = [np.ascontiguousarray(a, dtype=np.float64).reshape(n_classes * k, cap)
            for a in (stay, move, hazard)]
    chain = _semi_markov.ChainArrays(
        *flat, np.ascontiguousarray(switch, dtype=np.float64),
        np.ascontiguousarray(start, dtype=np.float64))
    return chain, np.ascontiguousarray(log_emit, dtype=np.float64), offsets


def wide_sequences(log_emit, offsets, n_states_per_label):
    """Whether each sequence has a step whose finite log-likelihoods spread
    more than ``WIDEST_SCALED / n_states_per_label`` nats.

    The scaled passes drop the paths that fall about 708 nats behind the best
    (e^-708 underflows). A dropped path can come back ahead only where the
    others cannot follow it: into a label's later states, reached one step
    after another (a chain's phases in turn), which take up to ``k =
    n_states_per_label`` steps. Steps whose likelihoods spread less than
    ``WIDEST_SCALED / k`` cannot bring back in ``k`` steps the 708 nats a
    dropped path lost; wider ones can (with 5 states per label, steps 190
    nats apart gave a label probability 0.15 too many)."""
    finite = np.isfinite(log_emit)
    top = np.where(finite, log_emit, -np.inf).max(axis=1, initial=-np.inf)
    bottom = np.where(finite, log_emit, np.inf).min(axis=1, initial=np.inf)
    steps = np.flatnonzero(top - bottom > WIDEST_SCALED / n_states_per_label)
    wide = np.zeros(len(offsets) - 1, dtype=bool)
    wide[np.searchsorted(offsets, steps, side="right") - 1] = True
    return wide


def _by_spread(scaled, logs, arrays, log_emit, offsets):
    """The distributions of the hidden states from ``scaled(chain, log_emit,
    offsets, sizes, proba)``, which fills ``proba``, and for the sequences
    that :func:`wide_sequences` picks from ``logs`` (same arguments, the
    chain's arrays their logarithms); ``arrays`` the chain's (stay, move,
    hazard, switch, start), ``sizes`` (n_classes, n_expanded)."""
    chain, log_emit, offsets = _parts(*arrays, log_emit, offsets)
    sizes = (len(arrays[3]), np.size(arrays[0]))
    proba = np.empty(log_emit.shape)
    wide = wide_sequences(log_emit, offsets, np.shape(arrays[0])[1])
    if not wide.any():
        scaled(chain, log_emit, offsets, sizes, proba)
        return proba
    with np.errstate(divide="ignore"):
        log_chain = _parts(*[np.log(a) for a in arrays], log_emit, offsets)[0]
    lengths = np.diff(offsets)
    for run, arrays_in, keep in ((scaled, chain, ~wide), (logs, log_chain, wide)):
        rows = np.repeat(keep, lengths)
        part = np.empty((np.count_nonzero(rows), log_emit.shape[1]))
        run(arrays_in, np.ascontiguousarray(log_emit[rows]),
            np.r_[0, np.cumsum(lengths[keep])].astype(np.intp), sizes, part)
        proba[rows] = part
    return proba


def _longest(offsets):
    """The length of the longest sequence (at least 1: the scratch's rows)."""
    return max(int(np.diff(offsets).max(initial=0)), 1)


# The passes as _by_spread runs them, their scratch allocated.
def _filter_scaled(chain, log_emit, offsets, sizes, proba):
    n_classes, n_expanded = sizes
    _semi_markov.filter_fill(chain, log_emit, offsets, np.empty((2, n_expanded)),
                             np.empty(log_emit.shape[1]), np.empty(n_classes), proba)


def _filter_logs(chain, log_emit, offsets, sizes, proba):
    n_classes, n_expanded = sizes
    _semi_markov_log.filter_fill(chain, log_emit, offsets,
                                 np.empty((2, n_expanded)), np.empty(n_classes), proba)


def _smoother_scaled(chain, log_emit, offsets, sizes, proba):
    n_classes, n_expanded = sizes
    rows = _longest(offsets)
    _semi_markov.smoother_fill(
        chain, log_emit, offsets, np.empty((rows, n_expanded)),
        np.empty((rows, log_emit.shape[1])), np.empty((2, n_expanded)),
        np.empty(n_classes), proba)


def _smoother_logs(chain, log_emit, offsets, sizes, proba):
    n_classes, n_expanded = sizes
    _semi_markov_log.smoother_fill(
        chain, log_emit, offsets, np.empty((_longest(offsets), n_expanded)),
        np.empty((3, n_expanded)), np.empty(n_classes), proba)


def filter_states(stay, move, hazard, switch, start, log_emit, offsets):
    """Filtered distributions P(x_t | u_1..t) of the hidden states.

    Parameters
    ----------
    stay, move, hazard : ndarray of shape (n_classes, k, D)
    switch : ndarray of shape (n_classes, n_classes)
    start : ndarray of shape (n_classes,)
    log_emit : ndarray of shape (n_steps, n_classes * k)
        Log-likelihood of every hidden state ``c * k + j`` at every step.
    offsets : ndarray of shape (n_sequences + 1,)

    Returns
    -------
    proba : ndarray of shape (n_steps, n_classes * k)
    """
    return _by_spread(_filter_scaled, _filter_logs,
                      (stay, move, hazard, switch, start), log_emit, offsets)


def smooth_states(stay, move, hazard, switch, start, log_emit, offsets):
    """Smoothed distributions P(x_t | u_1..T) of the hidden states; arguments
    and result as for :func:`filter_states`."""
    return _by_spread(_smoother_scaled, _smoother_logs,
                      (stay, move, hazard, switch, start), log_emit, offsets)


def viterbi_path(log_stay, log_move, log_hazard, log_switch, log_start, log_emit,
                 offsets):
    """The hidden states ``c * k + j`` of every sequence's most likely path
    over the expanded states (its durations dropped); the chain's arrays are
    logarithms, else as for :func:`filter_states`.

    Returns
    -------
    path : ndarray of shape (n_steps,), dtype=intp
    """
    chain, log_emit, offsets = _parts(log_stay, log_move, log_hazard, log_switch,
                                      log_start, log_emit, offsets)
    n_classes, n_expanded = len(log_switch), np.size(log_stay)
    rows = _longest(offsets)
    path = np.empty(log_emit.shape[0], dtype=np.intp)
    _semi_markov.viterbi_fill(
        chain, log_emit, offsets, np.empty((2, n_expanded)),
        np.empty((rows, n_expanded), dtype=np.int8),
        np.empty((rows, n_classes), dtype=np.intp),
        np.empty((rows, n_classes), dtype=np.intp), np.empty(n_classes), path)
    return path
