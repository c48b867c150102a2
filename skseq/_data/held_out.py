"""A held-out part of the training sequences, for the choices an estimator
makes from its own training data (which representation to read)."""

import numpy as np


def held_out_half(n_sequences, rng, labels=None, keys=None):
    """A boolean mask of the sequences held out.

    Without ``labels`` and ``keys``: half of them at random,
    ``rng.permutation(n_sequences) < n_sequences // 2``. With ``labels`` (one
    per sequence): half of each class, rounded down. With ``keys`` (one per
    sequence, see :func:`sequence_keys`): the draw is over the distinct keys, so
    that equal sequences fall on the same side and the split does not depend on
    the order of the sequences; a key of NaN is never held out. With labels or
    keys every class needs 2 distinct keys, so that both parts hold it; else
    None (no such split exists).
    """
    if labels is None and keys is None:
        return rng.permutation(n_sequences) < n_sequences // 2
    labels = np.zeros(n_sequences) if labels is None else np.asarray(labels)
    keys = np.arange(n_sequences, dtype=float) if keys is None else keys
    held = np.zeros(n_sequences, dtype=bool)
    for label in np.unique(labels):
        members = np.flatnonzero((labels == label) & ~np.isnan(keys))
        distinct, inverse = np.unique(keys[members], return_inverse=True)
        if distinct.shape[0] < 2:
            return None
        chosen = rng.permutation(distinct.shape[0])[:distinct.shape[0] // 2]
        held[members[np.isin(inverse, chosen)]] = True
    return held


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
