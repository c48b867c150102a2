"""A held-out part of the training sequences, for the choices an estimator
makes from its own training data (which representation to read)."""

import numpy as np


def held_out_half(n_sequences, rng):
    """A boolean mask of the sequences held out: half of them at random,
    ``rng.permutation(n_sequences) < n_sequences // 2``."""
    return rng.permutation(n_sequences) < n_sequences // 2


def held_out_folds(n_folds, rng, labels, keys):
    """The fold (0 to ``n_folds - 1``) that holds out each sequence, -1 for
    those never held out; None if no such split exists.

    The draw is over the distinct ``keys`` (one per sequence, see
    :func:`sequence_keys`) of each class of ``labels`` (one per sequence, or
    None: one class), dealt in turn to the folds after a permutation: equal
    sequences fall in the same fold, the split does not depend on the order of
    the sequences, and each fold holds ``1 / n_folds`` of every class, give or
    take one. A key of NaN is never held out. Every class needs 2 distinct
    keys, so that every fold's complement holds it, but a class whose keys are
    all NaN (sequences of weight 0, in no fit) needs none.
    """
    folds = np.full(keys.shape[0], -1)
    start = 0  # the next class's deal starts where the last one stopped
    for members, n_distinct, inverse in _class_keys(labels, keys):
        if n_distinct == 1:
            return None
        dealt = np.empty(n_distinct, dtype=int)
        dealt[rng.permutation(n_distinct)] = (start + np.arange(n_distinct)) % n_folds
        folds[members] = dealt[inverse]
        start = (start + n_distinct) % n_folds
    return folds


def _class_keys(labels, keys):
    """Per class of ``labels`` (None: one class), in order: its sequences of
    non-NaN key, the number of distinct keys among them, and each one's index
    among those keys."""
    labels = np.zeros(keys.shape[0]) if labels is None else np.asarray(labels)
    for label in np.unique(labels):
        members = np.flatnonzero((labels == label) & ~np.isnan(keys))
        distinct, inverse = np.unique(keys[members], return_inverse=True)
        yield members, distinct.shape[0], inverse


def held_out_subsample(limit, rng, labels, keys):
    """``keys`` with all but about ``limit`` distinct ones set to NaN (never
    held out, nor fitted on: see :func:`held_out_folds`); ``keys`` itself,
    and no draw from ``rng``, when at most ``limit`` are distinct.

    Stratified over the classes of ``labels`` (one per sequence, or None):
    each class keeps ``limit`` times its share of the distinct keys, rounded
    down, at least 2 (fewer only if it has fewer), drawn at random; equal
    sequences are kept or dropped together.
    """
    present = ~np.isnan(keys)
    n_distinct = np.unique(keys[present]).shape[0]
    if n_distinct <= limit:
        return keys
    kept = np.zeros(keys.shape[0], dtype=bool)
    for members, n_class, inverse in _class_keys(labels, keys):
        drawn = rng.permutation(n_class) < max(2, limit * n_class // n_distinct)
        kept[members] = drawn[inverse]
    return np.where(kept, keys, np.nan)


def sequence_keys(seqs, weight=None):
    """A number per sequence computed from its own steps only (a fixed random
    projection of each step, summed with weights rising along the sequence),
    rounded to 12 significant digits: equal sequences share it, whatever
    their places among the others. NaN for a sequence of zero ``weight``."""
    data = np.nan_to_num(seqs.data)
    step = np.arange(data.shape[0]) - np.repeat(seqs.offsets[:-1], seqs.lengths)
    projected = data @ np.random.RandomState(0).standard_normal(data.shape[1])
    keys = np.add.reduceat(projected * (1.0 + np.sqrt(step + 1.0)),
                           seqs.offsets[:-1]) + seqs.lengths
    keys = np.array([float(f"{k:.12g}") for k in keys])
    if weight is not None:
        keys[np.asarray(weight) <= 0] = np.nan
    return keys
