"""The recent past of every step read at two scales (``features="multiscale"``
of :class:`~skseq.HybridHMMClassifier`): the raw values of the last few steps,
which show a change of segment within a step or two, beside summaries of a
longer window, which tell the segment's activity apart whatever its phase."""

import numpy as np

from .representation import window_lags, window_summaries


def window_multiscale(seqs, window):
    """Raw lags of the last ``window // 4`` steps and summaries of the last
    ``window``, per step, causal.

    Per channel: the values ``d`` steps ago for the lags of
    ``window_lags(seqs, max(1, window // 4))`` (every one of the last 8 steps
    for a window of 32: ``d = 0, ..., 7``; before the start of its sequence a
    step reads the sequence's first step), then the mean, maximum, minimum and
    standard deviation over the last ``max(1, window // 4)`` and the last
    ``window`` steps (fewer at the start of a sequence), as in
    ``window_summaries`` without its current value (lag 0 already holds it).
    Each row depends on the steps up to its own only.

    Parameters
    ----------
    seqs : Sequences
        Validated sequences, packed.
    window : int
        Steps of the longer window; the shorter is a quarter of it.

    Returns
    -------
    features : ndarray of shape (n_steps, n_features * (n_lags + 8))
        The lags (lag-major: every channel at lag 0, then at lag 1...), then
        the summaries of ``window_summaries``' order.
    """
    n_channels = seqs.data.shape[1]
    return np.hstack([window_lags(seqs, max(1, window // 4)),
                      window_summaries(seqs, window)[:, n_channels:]])
