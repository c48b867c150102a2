""":class:`SequenceFeatures`: per-step features computed along each sequence
(differences, relative time).
"""


import numpy as np
from sklearn.utils.validation import _check_feature_names_in, check_is_fitted

from ._base import _output, _refuse_not_finite, _SequenceTransformer


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
        U = seqs.data
        cols = [U] if self.keep_input else []
        if self.diff:
            cols.append(_differences(seqs))
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


def _differences(seqs):
    """First differences of the packed steps, 0 at every sequence's first
    step; ValueError naming the first one past the float64 range."""
    U = seqs.data
    d = np.zeros_like(U)
    with np.errstate(over="ignore"):
        d[1:] = U[1:] - U[:-1]
    d[seqs.offsets[:-1]] = 0.0  # first step of every sequence
    _refuse_not_finite(seqs, d, lambda seq, step, col: (
        f"SequenceFeatures: the difference at sequence {seq}, step {step} "
        f"(feature {col}) exceeds the float64 range: the inputs reach "
        f"{np.max(np.abs(U)):.3g} in magnitude. Scale the features first, "
        "e.g. with skseq.preprocessing.Stepwise(StandardScaler())."))
    return d
