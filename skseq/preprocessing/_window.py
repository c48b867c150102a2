""":class:`WindowMean`: shorter sequences, by averaging windows of steps.
"""

import numbers

import numpy as np
from sklearn.base import (
    OneToOneFeatureMixin,
)
from sklearn.utils._param_validation import Interval

from .._data import (
    Sequences,
)
from ._base import _output, _SequenceTransformer


class WindowMean(OneToOneFeatureMixin, _SequenceTransformer):
    """Shorten sequences by averaging non-overlapping windows of steps.

    Each sequence is cut, from its start, into windows of ``w`` consecutive
    steps, and every window is replaced by the mean of its steps; a last,
    shorter window keeps the mean of the steps left over. The window of a
    sequence of ``T`` steps is ``w = max(window, ceil(T / max_length))``: at
    least ``window`` steps, and enough of them that the output has at most
    ``max_length`` steps. With equal lengths every sequence gets the same
    window; with unequal lengths and ``max_length``, longer sequences get
    longer windows (set ``window`` alone to keep one time scale for all).

    Shorter sequences make IOHMMs faster to fit (the cost is linear in the
    number of steps) and often more accurate: a window mean is a smoothed
    input, and the state has fewer steps over which to carry the evidence.

    Parameters
    ----------
    max_length : int or None, default=None
        Longest output sequence; None: no limit.
    window : int or None, default=None
        Smallest number of steps per window; None: 1.

    Attributes
    ----------
    n_features_in_ : int
        Number of features per step.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features, when X was a DataFrame with string column names.

    See Also
    --------
    SequenceFeatures : Differences and relative time as extra features.

    Examples
    --------
    >>> import numpy as np
    >>> from skseq.preprocessing import WindowMean
    >>> X = [np.arange(5.0), np.arange(2.0)]
    >>> [x.ravel().tolist() for x in WindowMean(window=2).fit_transform(X)]
    [[0.5, 2.5, 4.0], [0.5]]
    >>> [x.ravel().tolist() for x in WindowMean(max_length=2).fit_transform(X)]
    [[1.0, 3.5], [0.0, 1.0]]
    """

    _parameter_constraints: dict = {
        "max_length": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "window": [Interval(numbers.Integral, 1, None, closed="left"), None],
    }

    def __init__(self, max_length=None, window=None):
        self.max_length = max_length
        self.window = window

    def transform(self, X):
        """Replace every window of steps by its mean.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

        Returns
        -------
        X_new : same form as X
            Sequences of ceil(T / w) steps, with the features of X.
        """
        seqs = self._validated(X)
        offsets, window_of = self._windows(seqs)
        return _output(seqs, _window_means(seqs.data, window_of, offsets[-1]),
                       offsets)

    def _windows(self, seqs):
        """Offsets of the windows in the packed output, and the packed window
        index of every raw step."""
        lengths = seqs.lengths
        # (a window or a limit beyond the longest sequence, which may exceed
        # the integers of NumPy, counts as the longest sequence's length)
        longest = int(lengths.max())
        w = np.full(lengths.shape, min(self.window or 1, longest))
        if self.max_length is not None:
            w = np.maximum(w, -(-lengths // min(self.max_length, longest)))
        n_win = -(-lengths // w)
        offsets = np.zeros(n_win.shape[0] + 1, dtype=np.intp)
        np.cumsum(n_win, out=offsets[1:])
        seq = np.repeat(np.arange(seqs.n_sequences), lengths)
        t = np.arange(seqs.data.shape[0]) - seqs.offsets[seq]
        return offsets, offsets[seq] + t // w[seq]

    def to_raw_steps(self, values, X):
        """Map per-window values back onto the raw steps of X.

        After ``WindowMean``, a model's per-step outputs (state posteriors,
        Viterbi paths, transition matrices) are on the window axis. This
        repeats every window's value on each raw step of that window, so that
        raw step ``t`` of a sequence gets the value of the window that averaged
        it.

        Parameters
        ----------
        values : list of arrays, or array
            Per-window values of the sequences of ``transform(X)``: a list (one
            ``(n_windows_i, ...)`` array per sequence, any trailing shape), or
            an array ``(n_sequences, max_windows, ...)`` padded after each
            sequence's windows (the form of padded outputs such as
            ``predict_state_proba`` or ``decode`` for array input).
        X : array-like or list of sequences
            The raw sequences that were transformed.

        Returns
        -------
        raw_values : list of arrays, or array
            List in, list out: one ``(len_i, ...)`` array per sequence. Array
            in, array out: ``(n_sequences, max_len, ...)``, padded after each
            sequence's end with NaN for floating-point values, -1 for signed
            integers (as ``decode``), zero (or False, or "") for other types.

        Examples
        --------
        >>> import numpy as np
        >>> from skseq.preprocessing import WindowMean
        >>> X = [np.arange(5.0), np.arange(2.0)]
        >>> wm = WindowMean(window=2).fit(X)
        >>> [len(x) for x in wm.transform(X)]
        [3, 1]
        >>> path = [np.array([0, 1, 1]), np.array([2])]   # e.g. a Viterbi path
        >>> [p.tolist() for p in wm.to_raw_steps(path, X)]
        [[0, 0, 1, 1, 1], [2, 2]]
        """
        seqs = self._validated(X)
        offsets, window_of = self._windows(seqs)
        if isinstance(values, (list, tuple)) or (
                isinstance(values, np.ndarray) and values.dtype == object
                and values.ndim == 1):
            return _listed_on_raw_steps(values, seqs, offsets, window_of)
        return _padded_on_raw_steps(values, seqs, offsets, window_of)


def _window_means(data, window_of, n_windows):
    """The mean of the rows of ``data`` in each window (``window_of``: the
    window of every row). A sum past the float64 range (steps near 1e308) is
    summed again of the steps scaled by a power of two, exactly, so that the
    mean, which is in range, is not inf."""
    sums = np.zeros((n_windows, data.shape[1]))
    with np.errstate(over="ignore"):
        np.add.at(sums, window_of, data)
    counts = np.bincount(window_of, minlength=n_windows)[:, None]
    means = sums / counts
    over = ~np.isfinite(sums)
    if over.any():
        scale = 2.0 ** -(np.ceil(np.log2(counts.max())) + 1)
        scaled = np.zeros_like(sums)
        np.add.at(scaled, window_of, data * scale)
        means[over] = (scaled / counts / scale)[over]
    return means


def _listed_on_raw_steps(values, seqs, offsets, window_of):
    """:meth:`WindowMean.to_raw_steps` of a list of per-sequence arrays."""
    n_win = np.diff(offsets)
    n_seq = seqs.n_sequences
    if len(values) != n_seq:
        raise ValueError(
            f"values has {len(values)} sequences but X has {n_seq}."
        )
    arrays = [np.asarray(v) for v in values]
    for s, a in enumerate(arrays):
        if a.ndim == 0 or a.shape[0] != n_win[s]:
            got = "a scalar" if a.ndim == 0 else f"{a.shape[0]} steps"
            raise ValueError(
                f"values: sequence {s} has {got}, but WindowMean makes "
                f"{n_win[s]} windows of its {seqs.lengths[s]} raw steps."
            )
        if a.shape[1:] != arrays[0].shape[1:]:
            raise ValueError(
                f"values: sequence {s} has per-step shape {a.shape[1:]} "
                f"but sequence 0 has {arrays[0].shape[1:]}."
            )
    raw = np.concatenate(arrays)[window_of]
    return Sequences(data=raw, offsets=seqs.offsets, form="list").unpack(raw)


def _padded_on_raw_steps(values, seqs, offsets, window_of):
    """:meth:`WindowMean.to_raw_steps` of an array padded after each
    sequence's windows."""
    n_win = np.diff(offsets)
    n_seq = seqs.n_sequences
    values = np.asarray(values)
    if values.ndim < 2 or values.shape[0] != n_seq:
        raise ValueError(
            f"values of shape {values.shape}: expected a list of per-sequence "
            f"arrays, or an array (n_sequences={n_seq}, max_windows, ...)."
        )
    if values.shape[1] < n_win.max():
        s = int(np.argmax(n_win > values.shape[1]))
        raise ValueError(
            f"values has {values.shape[1]} steps per sequence, but WindowMean "
            f"makes {n_win[s]} windows of sequence {s}."
        )
    seq = np.repeat(np.arange(n_seq), seqs.lengths)
    raw = values[seq, window_of - offsets[seq]]
    kind = values.dtype.kind
    fill = (np.nan if kind in "fc" else -1 if kind == "i"
            else np.zeros((), dtype=values.dtype)[()])
    return Sequences(data=raw, offsets=seqs.offsets, form="padded").unpack(
        raw, fill=fill)
