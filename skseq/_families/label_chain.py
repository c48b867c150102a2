"""The hybrid model's chain of label states (Bourlard & Morgan 1994): the
states tied to each label, left to right within a segment, with start and
transition probabilities counted from labelled sequences, and the parts of each
segment that phase targets teach the per-step classifier."""

import numpy as np

from .._data.sequences import quote
from .._data.weights import finite_sum
from .viterbi_start import viterbi_emissions


def label_chain(labels, offsets, n_classes, n_states_per_label, *, weight=None,
                pseudocount=1.0):
    """Start and transition probabilities of states tied to labels, from counts.

    One state per label: the maximum-likelihood (count) estimate of a Markov
    chain of labels, with ``pseudocount`` added to every count. With ``k``
    states per label, a segment of label ``c`` walks through its ``k`` states
    left to right, staying in each with the same probability ``p_c``; the
    segment then lasts ``k / (1 - p_c)`` steps on average, set to the mean
    duration of label ``c`` in the data, and its last state leaves to the
    first state of the other labels in the proportions observed.

    Parameters
    ----------
    labels : ndarray of shape (n_steps,), dtype=intp
        Encoded label of every step, -1 where unlabelled.
    offsets : ndarray of shape (n_sequences + 1,)
    n_classes, n_states_per_label : int
    weight : ndarray of shape (n_sequences,), default=None
    pseudocount : float, default=1.0

    Returns
    -------
    startprob : ndarray of shape (n_classes * n_states_per_label,)
    transmat : ndarray of shape (n_classes * n_states_per_label,) * 2
        ``transmat[j, i] = P(x_t = i | x_{t-1} = j)``.
    """
    n_seq = offsets.shape[0] - 1
    weight = np.ones(n_seq) if weight is None else weight
    step_weight = np.repeat(weight, np.diff(offsets))
    k = n_states_per_label
    first = labels[offsets[:-1]]
    start = np.full(n_classes, pseudocount)
    np.add.at(start, first[first >= 0], weight[first >= 0])
    same_seq = np.ones(labels.shape[0], dtype=bool)
    same_seq[offsets[:-1]] = False  # step t and t - 1 in one sequence
    pair = same_seq[1:] & (labels[:-1] >= 0) & (labels[1:] >= 0)
    counts = np.full((n_classes, n_classes), pseudocount)
    np.add.at(counts, (labels[:-1][pair], labels[1:][pair]), step_weight[1:][pair])
    stays = np.diag(counts).copy()
    leaves = counts.sum(axis=1) - stays
    # k / (1 - p) = (stays + leaves) / leaves, the mean duration
    leave = np.minimum(k * leaves / (stays + leaves), 1.0)
    switch = counts - np.diag(stays)
    switch /= np.maximum(switch.sum(axis=1, keepdims=True), np.finfo(float).tiny)
    n = n_classes * k
    transmat = np.zeros((n, n))
    for c in range(n_classes):
        for j in range(k):
            s = c * k + j
            transmat[s, s] = 1.0 - leave[c]
            if j < k - 1:
                transmat[s, s + 1] = leave[c]
            else:
                transmat[s, np.arange(n_classes) * k] += leave[c] * switch[c]
    startprob = np.zeros(n)
    startprob[np.arange(n_classes) * k] = start / start.sum()
    return startprob, transmat


def viterbi_terms(startprob, transmat, log_emit, offsets):
    """The arguments of the Viterbi kernel for the chain: log start and
    (shared) transition probabilities, ``log_emit`` with every sequence's
    first step corrected (:func:`~skseq._families.viterbi_start.viterbi_emissions`),
    and ``offsets``."""
    with np.errstate(divide="ignore"):
        log_start, log_trans = np.log(startprob), np.log(transmat)
    log_emit = viterbi_emissions(startprob, transmat[None], log_emit, offsets)
    return log_start, np.ascontiguousarray(log_trans[None]), log_emit, offsets


def segment_phases(labels, offsets, n_phases):
    """Phase of every step within its segment: each run of one label inside a
    sequence cut into ``n_phases`` parts of equal length, numbered from 0.

    Parameters
    ----------
    labels : ndarray of shape (n_steps,), dtype=intp
        Encoded label of every step, -1 where unlabelled (which ends a run).
    offsets : ndarray of shape (n_sequences + 1,)
    n_phases : int

    Returns
    -------
    phases : ndarray of shape (n_steps,), dtype=intp
        ``floor(n_phases * position / run_length)``; 0 at unlabelled steps.
    """
    first, position, run_length = _runs(labels, offsets)
    phases = (n_phases * position) // run_length
    phases[labels < 0] = 0
    return phases


def _runs(labels, offsets):
    """For every step, the first step of its run (a run: consecutive steps of
    one label inside one sequence), its position in the run, and the run's
    length."""
    n = labels.shape[0]
    start = np.ones(n, dtype=bool)
    start[1:] = labels[1:] != labels[:-1]
    start[offsets[:-1]] = True
    run = np.cumsum(start) - 1
    run_start = np.flatnonzero(start)
    run_length = np.diff(np.append(run_start, n))
    return run_start[run], np.arange(n) - run_start[run], run_length[run]


def segment_onsets(labels, offsets, n_steps):
    """Whether every step lies within the first ``n_steps`` steps of a segment
    that begins with a change of label inside its sequence.

    Parameters
    ----------
    labels, offsets : ndarray
        As for :func:`segment_phases`.
    n_steps : int

    Returns
    -------
    onset : ndarray of shape (n_steps_total,), dtype=bool
        True at step ``t`` when some step ``s`` in ``t - n_steps + 1 .. t`` of
        the same sequence, after its first step, is labelled and differs from
        the labelled step ``s - 1``, and every step from ``s`` to ``t`` holds
        the label of ``s``. A sequence's first segment is no onset, nor are
        unlabelled steps or steps after an unlabelled one.
    """
    change = np.zeros(labels.shape[0], dtype=bool)
    change[1:] = (labels[1:] != labels[:-1]) & (labels[1:] >= 0) & (labels[:-1] >= 0)
    change[offsets[:-1]] = False  # a sequence's first step follows no step
    first, position, _ = _runs(labels, offsets)
    return change[first] & (position < n_steps) & (labels >= 0)


def labelled_steps(seqs, targets, weight):
    """The labelled steps of positive weight, their weights, the classes, the
    steps' class indices, and every step's class index (-1: unlabelled)."""
    seq_of = seqs.sequence_of(targets.steps)
    # a step of weight 0 counts as unlabelled
    kept = weight[seq_of] > 0
    steps = targets.steps[kept]
    step_weight = finite_total(weight[seq_of][kept], "sample_weight")
    classes, encoded = np.unique(targets.values[kept], return_inverse=True)
    if classes.shape[0] < 2:
        raise ValueError(
            "y needs samples of at least 2 classes in the data (steps of "
            f"positive weight), but contains only one class: {quote(classes[0])}."
        )
    labels = np.full(seqs.data.shape[0], -1, dtype=np.intp)
    labels[steps] = encoded
    return steps, step_weight, classes, encoded, labels


def fit_weights(labels, offsets, steps, step_weight, weighted, window,
                onset_weight):
    """The labelled steps' weights in the per-step classifier's fit: the
    sequences' weights (``step_weight``, of the labelled ``steps``), times
    ``onset_weight`` within the first ``window // 2`` steps after a change of
    label; None if all are 1 (no ``sample_weight`` given: not ``weighted``)."""
    if onset_weight != 1:
        # half the window: where it still holds much of the previous segment
        onset = segment_onsets(labels, offsets, max(1, window // 2))[steps]
        if onset.any():
            return finite_total(step_weight * np.where(onset, float(onset_weight),
                                                       1.0),
                                "sample_weight times onset_weight")
    return step_weight if weighted else None


def finite_total(step_weight, name):
    """``step_weight`` (of the labelled steps), checked to sum to a finite
    float64, else a ValueError naming the parameter ``name`` that weighs them."""
    finite_sum(step_weight, (
        f"{name} summed over the labelled steps (each step weighs its "
        "sequence's weight) exceeds the largest float64: the counts and the "
        "per-step classifier's fit would overflow; use smaller weights."))
    return step_weight
