""":class:`ForwardFill`: the gaps of a sequence filled with its last observed
value, feature by feature."""

import numpy as np
from sklearn.base import OneToOneFeatureMixin
from sklearn.utils.validation import check_is_fitted

from .._data import restore_on_failure, validate_sequences
from ._base import _output, _SequenceTransformer


class ForwardFill(OneToOneFeatureMixin, _SequenceTransformer):
    """Fill missing values with the last value observed before them.

    Within every sequence, each feature's missing value (NaN, None) takes
    the feature's last observed value at an earlier step of that sequence:
    the fill of a sensor that holds its reading, and a causal one (a step
    reads no later step). Where a sequence has observed nothing yet (its
    leading gap), the feature's mean over every observed step of the
    training sequences is used. The output is finite and has the form of
    the input.

    A 3-D array's trailing all-NaN rows stay padding (after the transform as
    before it); a row before a sequence's last observed one is a step, and is
    filled even if it is all NaN. Infinite values are refused.

    Attributes
    ----------
    fill_values_ : ndarray of shape (n_features_in_,)
        Each feature's mean over the observed training steps: the fill of a
        leading gap.
    n_features_in_ : int
        Number of features per step.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features, when X was a DataFrame with string column names.

    See Also
    --------
    Stepwise : ``Stepwise(SimpleImputer())`` fills with a statistic of the
        pooled steps, whatever their time.

    Examples
    --------
    >>> import numpy as np
    >>> from skseq.preprocessing import ForwardFill
    >>> X = [np.array([[np.nan, 1.0], [2.0, np.nan], [np.nan, 3.0]]),
    ...      np.array([[4.0, np.nan]])]
    >>> fill = ForwardFill().fit(X)
    >>> fill.fill_values_
    array([3., 2.])
    >>> fill.transform(X)[0]
    array([[3., 1.],
           [2., 1.],
           [2., 3.]])
    >>> fill.transform(X)[1]
    array([[4., 2.]])
    """

    _parameter_constraints: dict = {}

    def __init__(self):
        pass

    def fit(self, X, y=None):
        """Record each feature's mean over the observed steps.

        A failed fit leaves a fitted ForwardFill exactly as it was.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step
            rows; missing values (NaN, None) may stand anywhere.
        y : ignored
            Not used, present for API consistency.

        Returns
        -------
        self : object
        """
        with restore_on_failure(self):
            self._validate_params()
            seqs = validate_sequences(self, X, reset=True, allow_nan=True)
            observed = ~np.isnan(seqs.data)
            empty = np.flatnonzero(~observed.any(axis=0))
            if empty.size:
                raise ValueError(
                    f"ForwardFill: feature {empty[0]} has no observed value in "
                    "the training sequences, so a sequence's leading gap in it "
                    "has nothing to be filled with."
                )
            totals = np.where(observed, seqs.data, 0.0).sum(axis=0)
            self.fill_values_ = totals / observed.sum(axis=0)
        return self

    def transform(self, X):
        """Fill every missing value with its feature's last observed one.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step
            rows.

        Returns
        -------
        X_new : same form as X
            The same steps, without missing values.
        """
        check_is_fitted(self)
        seqs = validate_sequences(self, X, reset=False, allow_nan=True)
        data = seqs.data
        rows = np.arange(data.shape[0])
        # The last observed row at or before each row, per feature; it is
        # the sequence's own only if it is at or after the sequence's start.
        last = np.maximum.accumulate(
            np.where(np.isnan(data), -1, rows[:, None]), axis=0)
        start = np.repeat(seqs.offsets[:-1], seqs.lengths)[:, None]
        own = last >= start
        filled = np.where(own, data[np.maximum(last, 0), np.arange(data.shape[1])],
                          self.fill_values_)
        return _output(seqs, filled)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags
