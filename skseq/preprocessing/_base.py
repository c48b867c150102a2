"""What the sequence transformers share: fit records the number (and names) of
features, transform validates, and outputs come back in the input's form."""


from sklearn.base import (
    BaseEstimator,
    TransformerMixin,
)
from sklearn.utils.validation import check_is_fitted

from .._data import (
    Sequences,
    check_n_jobs,
    restore_on_failure,
    validate_sequences,
)


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
        """The sequences of a transform, once the transformer is fitted and
        its parameters valid: transform reads them again, and ``set_params``
        after fit is not checked by scikit-learn (a bad ``window`` or
        ``statistic`` would fail deep inside, or pass)."""
        check_is_fitted(self)
        self._validate_params()
        self._check_params()
        if "n_jobs" in self._parameter_constraints:
            check_n_jobs(self)
        return validate_sequences(self, X, reset=False)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags
