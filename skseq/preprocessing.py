"""Apply an ordinary (2-D) scikit-learn transformer to every step of sequences."""

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted, validate_data

from ._validation import check_sequences

__all__ = ["Stepwise"]


class Stepwise(TransformerMixin, BaseEstimator):
    """Apply a 2-D transformer to every step, keeping the sequence structure.

    The transformer is fitted on all steps of all sequences pooled, and then
    transforms each step; the output has the form of the input (list in, list out;
    3-D padded in, 3-D padded out; 2-D in, 2-D out).

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
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features, when X was a DataFrame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.preprocessing import StandardScaler
    >>> from skseq.preprocessing import Stepwise
    >>> X = [np.array([[0.0], [2.0]]), np.array([[4.0]])]
    >>> [x.ravel().round(2).tolist() for x in Stepwise(StandardScaler()).fit_transform(X)]
    [[-1.22, 0.0], [1.22]]
    """

    _parameter_constraints: dict = {"transformer": [object]}

    def __init__(self, transformer):
        self.transformer = transformer

    def _steps(self, X, reset):
        seqs = check_sequences(X)
        validate_data(self, X, reset=reset, skip_check_array=True, ensure_2d=False)
        if reset:
            self.n_features_in_ = seqs.n_features
        elif seqs.n_features != self.n_features_in_:
            raise ValueError(
                f"X has {seqs.n_features} features, but Stepwise is expecting "
                f"{self.n_features_in_} features as input."
            )
        return seqs

    def fit(self, X, y=None):
        """Fit the transformer on all steps pooled.

        Parameters
        ----------
        X : array-like or list of sequences
        y : ignored

        Returns
        -------
        self : object
        """
        self._validate_params()
        seqs = self._steps(X, reset=True)
        self.transformer_ = clone(self.transformer).fit(seqs.data)
        return self

    def transform(self, X):
        """Transform every step.

        Parameters
        ----------
        X : array-like or list of sequences

        Returns
        -------
        X_new : same form as X
            With the transformer's number of output features per step.
        """
        check_is_fitted(self)
        seqs = self._steps(X, reset=False)
        out = self.transformer_.transform(seqs.data)
        if hasattr(out, "toarray"):
            out = out.toarray()
        out = np.asarray(out, dtype=np.float64)
        if seqs.form == "rows":
            return out
        return seqs.unpack(out)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags
