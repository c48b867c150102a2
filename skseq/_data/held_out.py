"""A held-out part of the training sequences, for the choices an estimator
makes from its own training data (which representation to read)."""

import numpy as np


def held_out_half(n_sequences, rng, labels=None):
    """A boolean mask of the sequences held out: half of them at random, or
    with ``labels`` (one per sequence) half of each class, rounded down.

    Without labels the draw is ``rng.permutation(n_sequences) < n_sequences
    // 2``. With labels every class must have at least 2 sequences, so that
    both parts hold it; else None (no stratified split exists).
    """
    if labels is None:
        return rng.permutation(n_sequences) < n_sequences // 2
    classes, encoded, counts = np.unique(labels, return_inverse=True,
                                         return_counts=True)
    if classes.shape[0] == 0 or counts.min() < 2:
        return None
    held = np.zeros(n_sequences, dtype=bool)
    for k, count in enumerate(counts):
        members = rng.permutation(np.flatnonzero(encoded == k))
        held[members[:count // 2]] = True
    return held
