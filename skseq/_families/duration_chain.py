"""Explicit segment durations for the hybrid model's chain of label states: a
hidden semi-Markov chain (Ferguson 1980; Murphy 2002; Yu 2010) whose
probability of leaving a segment depends on how long the segment has lasted.

The duration law of every label is learned from the labelled sequences as a
discrete hazard with right-censoring (a Kaplan-Meier estimate; Kaplan & Meier
1958): ``h_c(d) = P(segment ends after exactly d steps | it lasted d steps)``.
Durations from the cap ``D`` on share one constant (geometric) tail hazard, so
that the chain runs on the expanded states (state, duration) with at most
``D`` durations per state (the explicit-duration HMM written as an ordinary
HMM over expanded states; Murphy 2002; Yu 2010).
"""

from typing import NamedTuple

import numpy as np

from .label_chain import _runs

# Half-width, in steps, of the uniform kernel that smooths the hazard over
# durations: a segment's end then weighs on the few durations around the one
# seen, where a per-step classifier that reads the recent past still lags the
# change. Chosen on sessions cut from halves of the training recordings of
# BasicMotions (0, 2, 4, 8, 16 tried).
HAZARD_BANDWIDTH = 4

# Cap of the explicit durations: the smaller of one more than this quantile of
# the segments' lengths and _MAX_EXPANDED_STATES // n_states (bounding the cost
# of a step to about that many expanded states).
_CAP_QUANTILE = 0.95
_MAX_EXPANDED_STATES = 2048


def segments(labels, offsets):
    """The labelled segments (runs of one label inside a sequence).

    Returns
    -------
    label, length : ndarray of shape (n_segments,)
    censored : ndarray of shape (n_segments,), dtype=bool
        True when the segment ends with its sequence or before an unlabelled
        step: it lasted at least ``length`` steps, its end is not seen.
    sequence : ndarray of shape (n_segments,), dtype=intp
    """
    first, position, run_length = _runs(labels, offsets)
    starts = np.flatnonzero((position == 0) & (labels >= 0))
    length = run_length[starts]
    after = starts + length  # the step after the segment
    ends_sequence = np.isin(after, offsets[1:])
    next_label = labels[np.minimum(after, labels.shape[0] - 1)]
    censored = ends_sequence | (next_label < 0)
    sequence = np.searchsorted(offsets, starts, side="right") - 1
    return labels[starts], length, censored, sequence


def duration_cap(length, n_states):
    """The number ``D`` of explicit durations (see the module's docstring)."""
    cap = int(np.ceil(np.quantile(length, _CAP_QUANTILE))) + 1
    return int(max(2, min(cap, _MAX_EXPANDED_STATES // max(n_states, 1))))


def duration_hazard(labels, offsets, n_classes, cap, *, weight=None, pseudocount=1.0,
                    bandwidth=0):
    """Per-label discrete hazard of the segments' durations, with censoring.

    For ``d < cap``: ``h_c(d) = (n_d r_d + a h_c) / (n_d + a)``, where ``n_d``
    is the (weighted) number of label-``c`` segments that lasted at least
    ``d`` steps, ``e_d`` the number that ended after exactly ``d`` steps
    (censored segments end in none), ``r_d`` the Kaplan-Meier hazard
    ``e_d / n_d`` averaged over the durations within ``bandwidth`` of ``d``
    (a uniform-kernel hazard estimate, Ramlau-Hansen 1983; at the ends over
    those in range), ``a = pseudocount``, and ``h_c`` the label's geometric
    hazard (ends seen over steps spent in the label, with ``a`` more steps
    that end: never 0, even for a label whose segments are all censored, so
    that a segment can always end), to which durations never seen shrink.
    From ``d = cap`` on, one tail hazard: the ends seen at ``d >= cap`` over
    the steps spent at ``d >= cap``, shrunk alike.

    Parameters
    ----------
    labels : ndarray of shape (n_steps,), dtype=intp
        Encoded label of every step, -1 where unlabelled (which ends a segment,
        censored).
    offsets : ndarray of shape (n_sequences + 1,)
    n_classes, cap : int
    weight : ndarray of shape (n_sequences,), default=None
    pseudocount : float, default=1.0
    bandwidth : int, default=0

    Returns
    -------
    hazard : ndarray of shape (n_classes, cap)
        ``hazard[c, d - 1] = h_c(d)`` for ``d < cap``; ``hazard[c, cap - 1]``
        the tail hazard of every ``d >= cap``.
    """
    n_seq = offsets.shape[0] - 1
    weight = np.ones(n_seq) if weight is None else np.asarray(weight, dtype=float)
    label, length, censored, sequence = segments(labels, offsets)
    w = weight[sequence]
    keep = w > 0
    label, length, censored, w = label[keep], length[keep], censored[keep], w[keep]
    ended = np.where(censored, 0.0, w)
    exposure = np.bincount(label, weights=w * length, minlength=n_classes)
    ends = np.bincount(label, weights=ended, minlength=n_classes)
    geometric = (ends + pseudocount) / (exposure + pseudocount)
    n_lengths = max(cap, int(length.max(initial=0)) + 1)
    at_risk = np.zeros((n_classes, cap))
    rate = np.zeros((n_classes, cap))
    for c in range(n_classes):
        own = label == c
        # weight of the segments lasting exactly / at least each duration
        lasting = np.bincount(length[own], weights=w[own], minlength=n_lengths)
        at_risk[c, :-1] = np.cumsum(lasting[::-1])[::-1][1:cap]
        events = np.bincount(length[own], weights=ended[own],
                             minlength=n_lengths)[1:cap]
        raw = events / np.maximum(at_risk[c, :-1], np.finfo(float).tiny)
        rate[c, :-1] = _window_mean(raw, bandwidth)
        tail = own & (length >= cap)
        at_risk[c, -1] = np.sum(w[tail] * (length[tail] - cap + 1))
        rate[c, -1] = np.sum(ended[tail]) / max(at_risk[c, -1], np.finfo(float).tiny)
    hazard = ((at_risk * rate + pseudocount * geometric[:, None])
              / (at_risk + pseudocount))
    return np.clip(hazard, 0.0, 1.0)


def _window_mean(values, half_width):
    """Mean of ``values`` over the ``2 half_width + 1`` around each entry
    (fewer at the ends: those in range)."""
    n = values.shape[0]
    total = np.concatenate([[0.0], np.cumsum(values)])
    i = np.arange(n)
    low, high = np.maximum(i - half_width, 0), np.minimum(i + half_width + 1, n)
    return (total[high] - total[low]) / np.maximum(high - low, 1)


class ExpandedChain(NamedTuple):
    """A semi-Markov chain of label states written over expanded states
    ``(c, j, d)``: label ``c``, phase ``j`` of ``k`` (hidden state ``c * k +
    j``) and duration ``d`` of ``D`` (the last standing for every longer one),
    each array of shape ``(n_classes, k, D)``.

    Within a segment, ``(c, j, d)`` goes on to ``(c, j, min(d + 1, D))`` with
    probability ``stay`` and to ``(c, j + 1, min(d + 1, D))`` with ``move``
    (survival of the segment times the phase step); the segment ends with
    ``hazard``, and the next one starts at ``(c', 0, 1)`` with
    ``switch[c, c']``. The first segment's label is drawn from ``start``.
    """

    stay: np.ndarray
    move: np.ndarray
    hazard: np.ndarray
    switch: np.ndarray
    start: np.ndarray


def expanded_chain(hazard, advance, switch, start, n_states_per_label):
    """The expanded chain of explicit durations.

    Parameters
    ----------
    hazard : ndarray of shape (n_classes, D)
        As returned by :func:`duration_hazard`.
    advance : ndarray of shape (n_classes,)
        Probability that a segment of label ``c`` moves on from a phase to
        the next, at each step it goes on (the last phase stays).
    switch : ndarray of shape (n_classes, n_classes)
        Label of the next segment given the label that ends (rows sum to 1).
    start : ndarray of shape (n_classes,)
        Label of each sequence's first segment.
    n_states_per_label : int

    Returns
    -------
    ExpandedChain
    """
    n_classes, cap = hazard.shape
    k = n_states_per_label
    h = np.repeat(hazard[:, None, :], k, axis=1)  # (c, j, d)
    last = np.arange(k)[None, :, None] == k - 1
    step = np.broadcast_to(advance[:, None, None], h.shape)
    stay = np.where(last, 1.0, 1.0 - step) * (1.0 - h)
    move = np.where(last, 0.0, step) * (1.0 - h)
    return ExpandedChain(stay=stay, move=move, hazard=h, switch=switch, start=start)


def chain_parts(transmat, n_classes, n_states_per_label):
    """The phase step and the between-label switch of a counted chain
    (``label_chain``'s ``transmat``): what the expanded chain keeps of it."""
    k = n_states_per_label
    if k > 1:
        advance = transmat[np.arange(n_classes) * k, np.arange(n_classes) * k + 1]
    else:
        advance = np.zeros(n_classes)
    last = np.arange(n_classes) * k + k - 1
    switch = transmat[np.ix_(last, np.arange(n_classes) * k)].copy()
    switch[np.diag_indices(n_classes)] = 0.0
    total = switch.sum(axis=1, keepdims=True)
    uniform = (1.0 - np.eye(n_classes)) / max(n_classes - 1, 1)
    switch = np.where(total > 0, switch / np.maximum(total, np.finfo(float).tiny),
                      uniform)
    return advance, switch


def learned_hazard(labels, offsets, weight, n_classes, n_states_per_label):
    """:func:`duration_hazard` with the cap of :func:`duration_cap` (from the
    lengths of the segments of positive weight). The weights count as the
    label chain's do (:func:`~skseq._families.label_chain.label_chain`): an
    integer weight as that many copies of its sequence, against a
    pseudocount of one step, so that weights ``c`` times larger act as a
    pseudocount ``c`` times smaller."""
    _, length, _, sequence = segments(labels, offsets)
    length = length[weight[sequence] > 0]
    cap = duration_cap(length, n_classes * n_states_per_label)
    return duration_hazard(labels, offsets, n_classes, cap, weight=weight,
                           bandwidth=HAZARD_BANDWIDTH)


def semi_markov_chain(hazard, transmat, startprob, n_states_per_label):
    """The expanded chain of a fitted model: its durations' ``hazard``, and
    of its counted chain (``transmat``, ``startprob``) the phase steps, the
    switches between labels and the first segments' labels."""
    n_classes = hazard.shape[0]
    advance, switch = chain_parts(transmat, n_classes, n_states_per_label)
    start = startprob.reshape(n_classes, -1).sum(axis=1)
    return expanded_chain(hazard, advance, switch, start, n_states_per_label)
