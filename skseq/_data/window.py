"""The window representation (``features="window"``): the recent past of every
step, for labelling every step; and the two views of the recent past that it
and :class:`~skseq.HybridHMMClassifier` read (:func:`window_summaries`,
:func:`window_lags`, and both at two scales, :func:`window_multiscale`)."""

import functools
import numbers

import numpy as np
from sklearn.utils._param_validation import Interval

from .._kernels import pooling
from .moments import mean_std
from .representation_base import Representation, as_weighted


def window_summaries(seqs, window):
    """Causal summaries of the recent past of every channel, per step.

    For each channel: its current value, then the mean, maximum, minimum and
    standard deviation over the trailing ``max(1, window // 4)`` steps and over
    the trailing ``window`` steps (fewer at the start of a sequence). Each row
    depends on the steps up to its own only. The standard deviation (divided
    by the steps, as ``numpy.std``) is computed from each window's deviations
    from its own mean, so it keeps its digits however far from zero a channel
    sits (a clock or a counter near 1e9 as well as noise near 0), and values up
    to the largest floats give finite summaries.

    Parameters
    ----------
    seqs : Sequences
    window : int

    Returns
    -------
    features : ndarray of shape (n_steps, n_features * 9)
    """
    x = seqs.data
    blocks = [x]
    pool = functools.partial(pooling.running_pool, offsets=seqs.offsets,
                             finite=True)  # checked sequences
    for w in (max(1, window // 4), window):
        blocks += [pool(x, window=w, statistic="mean"),
                   pool(x, window=w, statistic="max"),
                   -pool(-x, window=w, statistic="max"),
                   pool(x, window=w, statistic="std")]
    return np.hstack(blocks)


def lag_steps(window):
    """The lags :func:`window_lags` reads at ``window``: ``0, ..., s - 1``, then
    ``s, 2s, ...`` below ``window``, with ``s = max(1, window // 8)``; two
    ranges, so that counting them costs nothing whatever the window."""
    stride = max(1, window // 8)
    return range(min(stride, window)), range(stride, window, stride)


def n_columns(features, window):
    """Columns per channel of the representation ``features`` (a name of
    :func:`window_summaries`, :func:`window_lags` or :func:`window_multiscale`
    without its prefix) at ``window``, in O(1): checked before reading."""
    if features == "summaries":
        return 9
    if features == "multiscale":
        return n_columns("lags", max(1, window // 4)) + 8
    return sum(map(len, lag_steps(window)))


def window_lags(seqs, window):
    """The recent past of every channel as raw values, per step: unlike
    :func:`window_summaries`, it keeps the order of the steps.

    Parameters
    ----------
    seqs : Sequences
        Every channel is read ``d`` steps ago, for ``d`` in ``0, 1, ..., s - 1``
        (the latest steps, densely, where a change of segment shows first)
        and then ``s, 2s, ...`` below ``window``; before the start of its
        sequence, a step reads the sequence's first step. Each row depends on
        the steps up to its own.
    window : int
        Steps of past read, with ``s = max(1, window // 8)`` (11 lags for a
        window of 32: 0, 1, 2, 3, 4, 8, ..., 28).

    Returns
    -------
    features : ndarray of shape (n_steps, n_features * n_lags)
        Lag-major: every channel at lag 0, then every channel at lag 1...
    """
    x = seqs.data
    start = np.repeat(seqs.offsets[:-1], np.diff(seqs.offsets))
    steps = np.arange(x.shape[0])
    return np.hstack([x[np.maximum(steps - lag, start)] for lags in lag_steps(window)
                      for lag in lags])


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


class WindowFeatures(Representation):
    """The recent past of every step, standardized (``features="window"``).

    Per channel, the step's value and the mean, maximum, minimum and standard
    deviation over the trailing ``max(1, window // 4)`` and ``window`` steps
    (:func:`window_summaries`), standardized with the training steps' mean and
    spread: a causal, local view for labelling every step, where a summary of
    the whole prefix would mix the segments seen so far. ``features="auto"``
    picks it for real-valued series with step-level targets.

    Parameters
    ----------
    window : int, default=32
        Steps of the longer trailing window (the shorter one has
        ``max(1, window // 4)``); fewer at the start of a sequence.

    Attributes
    ----------
    mean_ : ndarray of shape (n_features * 9,)
        The training steps' mean of every summary.
    scale_ : ndarray of shape (n_features * 9,)
        Their standard deviation (1 where it is 0, or below 1e-12 of the
        summary's largest magnitude: rounding, not variation).

    See Also
    --------
    ShapeFeatures : Local shape summarized over the whole prefix.

    Examples
    --------
    >>> from skseq import IOHMMClassifier
    >>> from skseq.representations import WindowFeatures
    >>> clf = IOHMMClassifier(n_states=3, features=WindowFeatures(window=16))
    >>> clf.set_params(features__window=64).get_params()["features__window"]
    64
    """

    name = "window"
    summary = ("the recent past of every step (per channel the value, and mean, "
               "maximum, minimum and spread over the last 8 and 32 steps), "
               "standardized.")

    _parameter_constraints: dict = {
        "window": [Interval(numbers.Integral, 1, None, closed="left")],
    }

    def __init__(self, window=32):
        self.window = window

    def fit(self, seqs, rng, n_jobs=None, sample_weight=None):
        """Fit on packed training sequences (the estimator's ``fit`` calls it
        on a clone of its ``features``)."""
        Z = window_summaries(as_weighted(seqs, sample_weight), self.window)
        self.mean_, spread = mean_std(Z)
        # a summary varies if its spread exceeds the rounding of its values
        # (relative to their size: a series near 1e-20 varies too)
        self.scale_ = np.where(spread > 1e-12 * np.abs(Z).max(axis=0), spread, 1.0)
        return self

    @property
    def n_state_features(self):
        return self.mean_.shape[0]

    @property
    def n_output_features(self):
        return self.mean_.shape[0]

    def inputs(self, seqs, rows, n_jobs=None):
        """The standardized summaries at every step and at ``rows``."""
        Z = (window_summaries(seqs, self.window) - self.mean_) / self.scale_
        return Z, Z[rows]
