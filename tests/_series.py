"""Packed test series for the convolution kernels and the representations
built on them, and the prefix means of amplitude-level indicators by hand."""

import numpy as np


def random_walks(lengths, n_channels, seed=0):
    """One random walk of each length, ``n_channels`` channels each."""
    rng = np.random.default_rng(seed)
    return [np.cumsum(rng.normal(size=(k, n_channels)), axis=0) for k in lengths]


def level_means(levels, X):
    """Every step's prefix means of ``x[t, c] > levels[c, l]``, by hand."""
    means = []
    for x in X:
        on = (x[:, :, None] > levels[None]).reshape(len(x), -1)
        means.append(np.cumsum(on, axis=0) / np.arange(1, len(x) + 1)[:, None])
    return np.concatenate(means)
