"""Apply an ordinary (2-D) scikit-learn transformer to every step of sequences."""

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.validation import check_is_fitted

from ._validation import restore_on_failure, validate_sequences

__all__ = ["Stepwise"]


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
