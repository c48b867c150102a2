"""What the sequence transformers share: fit records the number (and names) of
features, transform validates, and outputs come back in the input's form (a
DataFrame for one-step rows under ``set_output(transform="pandas")``)."""

import functools

import numpy as np
from sklearn.base import (
    BaseEstimator,
    TransformerMixin,
)
from sklearn.utils._set_output import ADAPTERS_MANAGER, _get_output_config
from sklearn.utils.validation import check_is_fitted

from .._data import (
    NumberParams,
    Sequences,
    mark_laid_out,
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


def _refuse_not_finite(seqs, values, message):
    """A ValueError with ``message(sequence, step, feature)``, the place of
    the first NaN or infinite value of the packed per-step ``values``;
    nothing where all are finite."""
    bad = ~np.isfinite(values)
    if bad.any():
        row, feature = np.argwhere(bad)[0]
        raise ValueError(message(*seqs.locate(row), int(feature)))


def _as_output(method):
    """``transform`` or ``fit_transform`` whose 2-D output (of one-step rows)
    goes into the container ``set_output`` asks for (sequences, a list or a
    3-D array, keep their form, which no table holds), and is marked as laid
    out by skseq (:func:`~skseq._data.mark_laid_out`)."""

    @functools.wraps(method)
    def wrapped(self, X, *args, **kwargs):
        out = method(self, X, *args, **kwargs)
        dense = _get_output_config("transform", self)["dense"]
        if dense != "default" and isinstance(out, np.ndarray) and out.ndim == 2:
            out = ADAPTERS_MANAGER.adapters[dense].create_container(
                out, X, columns=self.get_feature_names_out)
        return mark_laid_out(out)

    return wrapped


class _SequenceOutput:
    """``set_output`` for sequence transformers. scikit-learn's own wrapping
    would put every output into a DataFrame and fail on sequences (a list of
    arrays, a 3-D array) with pandas' words; here only one-step rows are."""

    def __init_subclass__(cls, **kwargs):
        kwargs["auto_wrap_output_keys"] = None  # scikit-learn's wrapping off
        super().__init_subclass__(**kwargs)
        for name in ("transform", "fit_transform"):
            if name in cls.__dict__:
                setattr(cls, name, _as_output(cls.__dict__[name]))

    def set_output(self, *, transform=None):
        """Set the container of the outputs of one-step rows.

        Parameters
        ----------
        transform : {"default", "pandas", "polars"}, default=None
            The container of a 2-D output (one-step rows in, rows out):
            ``"pandas"`` a DataFrame with the columns of
            ``get_feature_names_out``; None leaves the setting as it is.
            Sequences (a list, a 3-D array) come back in their own form
            whatever the setting, as no table holds them.

        Returns
        -------
        self : object
        """
        if transform is not None:
            self._sklearn_output_config = {
                **getattr(self, "_sklearn_output_config", {}), "transform": transform}
        return self


class _SequenceTransformer(_SequenceOutput, TransformerMixin, NumberParams,
                           BaseEstimator):
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
        return validate_sequences(self, X, reset=False)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags
