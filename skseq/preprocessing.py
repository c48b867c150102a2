"""Transformers of sequences.

:class:`Stepwise` applies an ordinary (2-D) scikit-learn transformer to every
step; :class:`WindowMean` shortens sequences by averaging windows of steps;
:class:`SequenceFeatures` appends per-step features computed along each
sequence (differences, relative time).
"""

import numbers

import numpy as np
from sklearn.base import (
    BaseEstimator,
    OneToOneFeatureMixin,
    TransformerMixin,
    clone,
)
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.validation import _check_feature_names_in, check_is_fitted

from ._validation import Sequences, restore_on_failure, validate_sequences

__all__ = ["SequenceFeatures", "Stepwise", "WindowMean"]


class Stepwise(TransformerMixin, BaseEstimator):
    """Apply a 2-D transformer to every step, keeping the sequence structure.

    The transformer is fitted on all steps of all sequences pooled, and then
    transforms each step; the output has the form of the input (list in, list out;
    3-D padded in, 3-D padded out; 2-D in, 2-D out). The transformer must return
    finite values, one row per step: a NaN step could not be told from padding.

    Parameters
    ----------
    transformer : estimator
        Any scikit-learn transformer working on ``(n_samples, n_features)``, e.g.
        ``StandardScaler()`` or ``OneHotEncoder(sparse_output=False)``.

    Attributes
    ----------
    transformer_ : estimator
        The fitted clone of ``transformer``.
    n_features_in_ : int
        Number of features per step.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features, when X was a DataFrame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.preprocessing import StandardScaler
    >>> from skseq.preprocessing import Stepwise
    >>> X = [np.array([[0.0], [2.0]]), np.array([[4.0]])]
    >>> X_new = Stepwise(StandardScaler()).fit_transform(X)
    >>> [x.ravel().round(2).tolist() for x in X_new]
    [[-1.22, 0.0], [1.22]]
    """

    _parameter_constraints: dict = {"transformer": [HasMethods(["fit", "transform"])]}

    def __init__(self, transformer):
        self.transformer = transformer

    def fit(self, X, y=None):
        """Fit the transformer on all steps pooled.

        A failed fit leaves a fitted Stepwise exactly as it was.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : ignored
            Not used, present for API consistency.

        Returns
        -------
        self : object
        """
        with restore_on_failure(self):
            self._validate_params()
            seqs = validate_sequences(self, X, reset=True)
            self.transformer_ = clone(self.transformer).fit(seqs.data)
        return self

    def transform(self, X):
        """Transform every step.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

        Returns
        -------
        X_new : same form as X
            With the transformer's number of output features per step.
        """
        check_is_fitted(self)
        seqs = validate_sequences(self, X, reset=False)
        out = self.transformer_.transform(seqs.data)
        if hasattr(out, "toarray"):
            out = out.toarray()
        out = np.asarray(out, dtype=np.float64)
        if out.ndim != 2 or out.shape[0] != seqs.data.shape[0]:
            raise ValueError(
                f"{type(self.transformer_).__name__} returned shape {out.shape} for "
                f"{seqs.data.shape[0]} steps; Stepwise needs one output row per step."
            )
        if not np.isfinite(out).all():
            # In a 3-D output an all-NaN step would silently read as padding.
            seq, step = seqs.locate(np.argwhere(~np.isfinite(out))[0, 0])
            raise ValueError(
                f"{type(self.transformer_).__name__} produced NaN or inf at "
                f"sequence {seq}, step {step}."
            )
        if seqs.form == "rows":
            return out
        return seqs.unpack(out)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags


def _output(seqs, packed, offsets=None):
    """Packed per-step values back in the input's form (2-D rows stay 2-D)."""
    if offsets is not None:
        seqs = Sequences(data=packed, offsets=offsets, form=seqs.form)
    if seqs.form == "rows":  # one-step sequences stay one-step: a 2-D array
        return packed
    return seqs.unpack(packed)


class _SequenceTransformer(TransformerMixin, BaseEstimator):
    """Fit records the number (and names) of features; transform validates."""

    def fit(self, X, y=None):
        """Check the parameters and record the number of features.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : ignored
            Not used, present for API consistency.

        Returns
        -------
        self : object
        """
        with restore_on_failure(self):
            self._validate_params()
            self._check_params()
            validate_sequences(self, X, reset=True)
        return self

    def _check_params(self):
        """Checks across parameters (beyond ``_parameter_constraints``)."""

    def _validated(self, X):
        check_is_fitted(self)
        return validate_sequences(self, X, reset=False)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags


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
        lengths = seqs.lengths
        w = np.full(lengths.shape, 1 if self.window is None else self.window)
        if self.max_length is not None:
            w = np.maximum(w, -(-lengths // self.max_length))
        n_win = -(-lengths // w)
        offsets = np.zeros(n_win.shape[0] + 1, dtype=np.intp)
        np.cumsum(n_win, out=offsets[1:])
        seq = np.repeat(np.arange(seqs.n_sequences), lengths)
        t = np.arange(seqs.data.shape[0]) - seqs.offsets[seq]
        window_of = offsets[seq] + t // w[seq]  # packed window index of each step
        sums = np.zeros((offsets[-1], seqs.n_features))
        np.add.at(sums, window_of, seqs.data)
        counts = np.bincount(window_of, minlength=offsets[-1])
        return _output(seqs, sums / counts[:, None], offsets)


class SequenceFeatures(_SequenceTransformer):
    """Append per-step features computed along each sequence.

    Output columns: the input features (``keep_input=True``), then their first
    differences u_t - u_(t-1) (0 at the first step; ``diff=True``), then the
    relative time t / (T - 1) of the step in its sequence of T steps (0 for a
    one-step sequence; ``time=True``).

    The IOHMM's state networks are linear in the input at one step, so a
    change between steps or a position in the sequence is something they
    cannot compute; these features give it to them directly. The relative time
    uses the sequence's length, so it is known only once the sequence has
    ended: with ``time=True`` the model is no longer causal.

    Parameters
    ----------
    diff : bool, default=True
        Append the first differences of the features.
    time : bool, default=False
        Append the relative time of every step.
    keep_input : bool, default=True
        Keep the input features in the output.

    Attributes
    ----------
    n_features_in_ : int
        Number of features per step.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features, when X was a DataFrame with string column names.

    See Also
    --------
    WindowMean : Shorter sequences by window means.

    Examples
    --------
    >>> import numpy as np
    >>> from skseq.preprocessing import SequenceFeatures
    >>> X = [np.array([1.0, 4.0, 2.0])]
    >>> SequenceFeatures(diff=True, time=True).fit_transform(X)[0]
    array([[ 1. ,  0. ,  0. ],
           [ 4. ,  3. ,  0.5],
           [ 2. , -2. ,  1. ]])
    >>> SequenceFeatures(time=True).fit(X).get_feature_names_out()
    array(['x0', 'diff_x0', 'time'], dtype=object)
    """

    _parameter_constraints: dict = {
        "diff": ["boolean"],
        "time": ["boolean"],
        "keep_input": ["boolean"],
    }

    def __init__(self, diff=True, time=False, keep_input=True):
        self.diff = diff
        self.time = time
        self.keep_input = keep_input

    def _check_params(self):
        if not (self.diff or self.time or self.keep_input):
            raise ValueError(
                "SequenceFeatures with diff=False, time=False and keep_input=False "
                "would output no feature; set at least one of them to True."
            )

    def transform(self, X):
        """Append the differences and the relative time to every step.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

        Returns
        -------
        X_new : same form as X
            With the features listed by :meth:`get_feature_names_out`.
        """
        seqs = self._validated(X)
        self._check_params()
        U = seqs.data
        cols = [U] if self.keep_input else []
        if self.diff:
            d = np.zeros_like(U)
            d[1:] = U[1:] - U[:-1]
            d[seqs.offsets[:-1]] = 0.0  # first step of every sequence
            cols.append(d)
        if self.time:
            lengths = seqs.lengths
            seq = np.repeat(np.arange(seqs.n_sequences), lengths)
            t = np.arange(U.shape[0]) - seqs.offsets[seq]
            cols.append((t / np.maximum(lengths[seq] - 1, 1))[:, None])
        return _output(seqs, np.hstack(cols))

    def get_feature_names_out(self, input_features=None):
        """Names of the output features.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Input feature names; default ``feature_names_in_``, else
            ``x0, x1, ...``.

        Returns
        -------
        feature_names_out : ndarray of str objects
            The kept inputs, then ``diff_<name>`` for each input, then ``time``.
        """
        check_is_fitted(self)
        names = list(_check_feature_names_in(self, input_features))
        out = names if self.keep_input else []
        if self.diff:
            out = out + [f"diff_{name}" for name in names]
        if self.time:
            out = out + ["time"]
        return np.asarray(out, dtype=object)
