"""The filter, smoother and Viterbi of a hidden semi-Markov chain of labels over
its expanded states (label, phase, duration): thin wrappers around the
recursions of ``_semi_markov.pyx``.

The chain is given by its arrays (``skseq._families.duration_chain``'s
``ExpandedChain``): ``stay``, ``move`` and ``hazard`` of shape ``(n_classes,
k, D)``, ``switch`` ``(n_classes, n_classes)`` and ``start`` ``(n_classes,)``.
Here shapes are checked and the outputs and the kernels' scratch allocated;
the kernels run one sequence after another, keeping every step of one
sequence (the smoother 8 bytes per expanded state and step, Viterbi 1).
"""

import numpy as np

from ._build import build
from ._packed import check_offsets

_semi_markov = build("_semi_markov")


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
    chain, log_emit, offsets = _parts(stay, move, hazard, switch, start, log_emit,
                                      offsets)
    n_classes, n_states = len(switch), log_emit.shape[1]
    proba = np.empty(log_emit.shape)
    _semi_markov.filter_fill(chain, log_emit, offsets, np.empty((2, np.size(stay))),
                             np.empty(n_states), np.empty(n_classes), proba)
    return proba


def smooth_states(stay, move, hazard, switch, start, log_emit, offsets):
    """Smoothed distributions P(x_t | u_1..T) of the hidden states; arguments
    and result as for :func:`filter_states`."""
    chain, log_emit, offsets = _parts(stay, move, hazard, switch, start, log_emit,
                                      offsets)
    n_classes, n_states = len(switch), log_emit.shape[1]
    rows = max(int(np.diff(offsets).max(initial=0)), 1)  # the longest sequence
    proba = np.empty(log_emit.shape)
    _semi_markov.smoother_fill(
        chain, log_emit, offsets, np.empty((rows, np.size(stay))),
        np.empty((rows, n_states)), np.empty((2, np.size(stay))), np.empty(n_classes),
        proba)
    return proba


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
    rows = max(int(np.diff(offsets).max(initial=0)), 1)  # the longest sequence
    path = np.empty(log_emit.shape[0], dtype=np.intp)
    _semi_markov.viterbi_fill(
        chain, log_emit, offsets, np.empty((2, n_expanded)),
        np.empty((rows, n_expanded), dtype=np.int8),
        np.empty((rows, n_classes), dtype=np.intp),
        np.empty((rows, n_classes), dtype=np.intp), np.empty(n_classes), path)
    return path
