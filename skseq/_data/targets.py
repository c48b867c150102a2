"""The sequence data model: every accepted form of X and y, and all their errors.

Public inputs come in three forms (DESIGN §2):

* a 3-D float array ``(n_sequences, max_len, n_features)`` padded at the END with
  all-NaN rows;
* a list / tuple (or 1-D object array) of 2-D arrays ``(len_i, n_features)``; a 1-D
  item ``(len_i,)`` is a univariate sequence;
* a 2-D array ``(n_samples, n_features)``: every row is a sequence of one step. A
  list of flat lists of numbers is such a table too, as scikit-learn reads
  ``X.tolist()`` (so a 1-D *item* is a univariate sequence only as an array,
  e.g. ``[np.array(row) for row in rows]``); a pandas DataFrame is one as well
  (its column names become ``feature_names_in_``). A model fitted on longer
  sequences warns when it receives such a table (:func:`validate_sequences`).

Where the contract is silent:

* Booleans, integers, float16/float32 and objects holding real numbers (``Decimal``,
  ``Fraction``) are numeric: they are converted to float64 (``True`` is 1.0) and give
  exactly the results of the same values in float64.
* Strings are never numeric, not even ``"1.5"``; neither are dates, timedeltas or
  complex numbers (all ValueError). Other objects in an object array (dicts, ...)
  give a TypeError, as in scikit-learn.
* ``None`` and pandas' ``NA`` in object input, and the masked entries of a
  ``numpy.ma`` array, are missing values like NaN: an error anywhere but in the
  all-NaN trailing padding rows of a 3-D array.
* Generators and other one-shot iterators, sets, dicts and strings are rejected with
  a ``TypeError``: scikit-learn's splitters index X, so a collection of sequences
  must support ``len`` and indexing (pass ``list(gen)``). Sparse matrices are
  rejected with a ``TypeError`` too: the kernels need dense steps.
* Class labels may not mix strings with other values (numpy would silently turn
  ``1`` into ``"1"``), nor be infinite; regression targets must be real numbers.

Validation converts any form once into :class:`Sequences`, the packed layout the
kernels use: all steps concatenated into one C-contiguous float64 array plus an
``offsets`` array (sequence ``s`` owns rows ``offsets[s]:offsets[s + 1]``). Errors
name the sequence, and the step, at fault.

Targets are either sequence-level (one per sequence, supervising its last step) or
step-level (one array per sequence, NaN/None meaning "no target at this step");
:func:`check_targets` turns both into the packed :class:`Targets`. A 2-D array y
whose width equals the common length (> 1) of the sequences is refused: it could
be either.
"""

import numbers
import os
import sys
import warnings
from collections.abc import Iterator, Mapping, Set
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from sklearn.exceptions import DataConversionWarning
from sklearn.utils._param_validation import Interval
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

__all__ = [
    "Sequences",
    "Targets",
    "check_fitted_params",
    "check_sample_weight",
    "check_sequences",
    "check_targets",
    "record_fitted_params",
    "validate_sequences",
]

# joblib's n_jobs: None, a positive count, or -1, -2, ... (all CPUs but k - 1); 0
# means nothing.
N_JOBS_CONSTRAINT = [None, Interval(numbers.Integral, 1, None, closed="left"),
                     Interval(numbers.Integral, None, -1, closed="right")]

def quote(value, limit=40):
    """``repr(value)`` in at most about ``limit`` characters: a longer string
    is cut and closed with ``...'``, so that a message stays readable."""
    text = repr(value)
    if len(text) <= limit:
        return text
    if isinstance(value, (str, bytes)):
        return repr(value[: limit - 6])[:-1] + "..." + text[-1]
    return text[: limit - 3] + "..."


# Predicting on sequences whose median length is this many times shorter than
# the training ones' warns.
_SHORT_FACTOR = 4

_ENCODE_HINT = "encode them first, e.g. with Stepwise(OneHotEncoder())."


@dataclass(frozen=True)
class Sequences:
    """Sequences in the packed layout.

    Attributes
    ----------
    data : ndarray of shape (n_steps_total, n_features)
        All steps of all sequences, concatenated, C-contiguous float64.
    offsets : ndarray of shape (n_sequences + 1,), dtype=intp
        Sequence ``s`` is ``data[offsets[s]:offsets[s + 1]]``.
    form : {"padded", "list", "rows"}
        The form the user gave, so per-step outputs can be returned alike.
    """

    data: np.ndarray
    offsets: np.ndarray
    form: str

    @property
    def n_sequences(self):
        return self.offsets.shape[0] - 1

    @property
    def n_features(self):
        return self.data.shape[1]

    @property
    def lengths(self):
        return np.diff(self.offsets)

    @property
    def last_steps(self):
        """Packed index of every sequence's last step."""
        return self.offsets[1:] - 1

    def sequence_of(self, rows):
        """The sequence holding each packed row index of ``rows``."""
        return np.searchsorted(self.offsets, rows, side="right") - 1

    def locate(self, row):
        """Return ``(sequence, step)`` of a packed row index."""
        seq = int(self.sequence_of(row))
        return seq, int(row - self.offsets[seq])

    def split(self, packed):
        """Per-sequence views of packed per-step values (a list)."""
        return [packed[a:b] for a, b in zip(self.offsets[:-1], self.offsets[1:],
                                            strict=True)]

    def unpack(self, packed, fill=np.nan):
        """Return per-step values in the user's form.

        A list of per-sequence arrays for list input; for array input (3-D padded or
        2-D one-step rows) a padded array ``(n_sequences, max_len, ...)`` with
        ``fill`` after each sequence's end.
        """
        packed = np.asarray(packed)
        if self.form == "list":
            return self.split(packed)
        lengths = self.lengths
        max_len = int(lengths.max())
        dtype = np.result_type(packed.dtype, np.min_scalar_type(fill))
        out = np.full((self.n_sequences, max_len) + packed.shape[1:], fill, dtype=dtype)
        out[np.arange(max_len) < lengths[:, None]] = packed
        return out


@dataclass(frozen=True)
class Targets:
    """Targets in the packed layout.

    Attributes
    ----------
    steps : ndarray of shape (n_targets,), dtype=intp
        Packed row index of every supervised step.
    values : ndarray of shape (n_targets,) or (n_targets, n_outputs)
        The targets at those steps, as given (labels are not yet encoded).
    step_level : bool
        Whether y was given per step (else one target per sequence, at its end).
    """

    steps: np.ndarray
    values: np.ndarray
    step_level: bool


# -- X ------------------------------------------------------------------------
def _check_container(obj, label, expected="a collection of sequences"):
    """TypeError for objects that cannot hold sequences (or targets) at all."""
    if obj is None:
        raise TypeError(f"{label} is None; expected {expected}.")
    if sparse.issparse(obj):
        raise TypeError(
            f"{label}: sparse input is not supported; pass dense arrays (e.g. "
            "X.toarray(), or a list of dense per-sequence arrays)."
        )
    if isinstance(obj, Iterator):
        raise TypeError(
            f"{label} is a {type(obj).__name__}: sequences must come in a collection "
            "with len() and indexing, which scikit-learn's splitters need; pass "
            "list(...) of it."
        )
    if isinstance(obj, (str, bytes, Mapping, Set)):
        raise TypeError(
            f"{label} is a {type(obj).__name__}; expected {expected}."
        )


def _is_na(value):
    """Missing-value scalar: None, NaN, or pandas' NA / NaT."""
    if value is None:
        return True
    if isinstance(value, (float, np.floating)):
        return bool(np.isnan(value))
    return type(value).__name__ in ("NAType", "NaTType")


def _position(where, index):
    """Human-readable position of an element: sequence, step and feature."""
    index = tuple(int(i) for i in index)
    if where is None:  # a whole array: one-step sequences (2-D) or padded (3-D)
        axes = {1: ("sequence",), 2: ("sequence", "feature"),
                3: ("sequence", "step", "feature")}
        prefix = ""
    else:  # one sequence of a list
        axes = {1: ("step",), 2: ("step", "feature")}
        prefix = f"{where}, "
    if len(index) not in axes:
        return f"{prefix}index {index}"
    return prefix + ", ".join(f"{a} {i}" for a, i in zip(axes[len(index)], index,
                                                          strict=True))


def _object_as_float(arr, name, where, hint=_ENCODE_HINT):
    """float64 copy of an object array, naming the first non-numeric element.

    Strings give a ValueError (a non-numeric feature), other objects a TypeError
    worded like ``float()``'s, as scikit-learn does.
    """
    out = np.empty(arr.shape)
    flat = out.reshape(-1)
    for i, value in enumerate(arr.flat):
        if _is_na(value):
            flat[i] = np.nan
            continue
        error = ValueError
        if isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real):
            problem = "a complex number: Complex data not supported."
        elif isinstance(value, (str, bytes)):
            problem = f"the string {quote(value)}, which is not numeric; {hint}"
        elif not isinstance(value, (numbers.Number, np.bool_)):
            error = TypeError
            problem = (f"{quote(value)}: float() argument must be a string or a real "
                       f"number, not {type(value).__name__!r}; {hint}")
        else:
            try:
                flat[i] = float(value)
                continue
            except OverflowError:
                problem = f"{quote(value)}, which is too large for float64."
        pos = _position(where, np.unravel_index(i, arr.shape))
        raise error(f"{name}: {pos} holds {problem}")
    return out


def _describe_row(row):
    if isinstance(row, (list, tuple)) or np.ndim(row) == 1:
        return f"{len(row)} features"
    return "a single value" if np.ndim(row) == 0 else f"shape {np.shape(row)}"


def _ragged_message(obj, name, where):
    """Name the first row of a nested list whose length differs from row 0's."""
    if isinstance(obj, (list, tuple)) and obj:
        unit = "sequence" if where is None else "step"
        prefix = f"{name}: " if where is None else f"{name}: {where}, "
        first = _describe_row(obj[0])
        for t, row in enumerate(obj):
            if _describe_row(row) != first:
                return (f"{prefix}{unit} {t} has {_describe_row(row)} but {unit} 0 "
                        f"has {first}.")
    return f"{name}: {where or name} is not a rectangular array."


def _as_float(obj, name, where=None):
    """float64 array of one sequence (``where``) or of a whole array (None)."""
    label = name if where is None else f"{name}: {where}"
    _check_container(obj, label, "a collection of sequences" if where is None
                     else "an (n_steps, n_features) array")
    mask = np.ma.getmaskarray(obj) if isinstance(obj, np.ma.MaskedArray) else None
    try:
        arr = np.asarray(obj)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(_ragged_message(obj, name, where)) from exc
    if arr.dtype.kind in "SUVMm":
        raise ValueError(
            f"{label} has non-numeric features (dtype {arr.dtype}); {_ENCODE_HINT}"
        )
    if arr.dtype.kind == "c":
        raise ValueError(f"{label}: Complex data not supported.")
    if arr.dtype.kind == "O":
        arr = _object_as_float(arr, name, where)
    arr = arr.astype(np.float64, copy=mask is not None)
    if mask is not None:
        arr[mask] = np.nan  # masked entries are missing values
    return arr


def _is_flat_row(item):
    return isinstance(item, (list, tuple)) and not any(
        isinstance(v, (list, tuple)) or np.ndim(v) for v in item
    )


def _collection_items(X):
    """The per-sequence items of a ragged collection, or None for a table/array.

    A list, tuple or 1-D object array is a collection when some item is itself
    sequence-like; but a list of flat lists of numbers is a table (one-step
    sequences), as scikit-learn reads ``X.tolist()``. A pandas Series of
    arrays is read as the 1-D object array it holds.
    """
    if (hasattr(X, "to_numpy") and getattr(X, "ndim", None) == 1
            and getattr(X, "dtype", None) is np.dtype(object)):
        X = X.to_numpy()
    if isinstance(X, np.ndarray):
        if X.dtype != object or X.ndim != 1:
            return None
    elif not isinstance(X, (list, tuple)):
        return None
    if all(_is_flat_row(item) for item in X):
        return None
    if any(isinstance(item, (list, tuple)) or np.ndim(item) >= 1 for item in X):
        return list(X)
    return None


def _packed_from_plain_arrays(X):
    """Fast path: a list or tuple of plain numeric 2-D arrays of one width, none
    empty, is packed by one concatenation; anything else returns None and takes
    the general path (which names whatever is wrong)."""
    if not isinstance(X, (list, tuple)) or not X:
        return None
    first = X[0]
    if type(first) is not np.ndarray or first.ndim != 2:
        return None
    width = first.shape[1]
    for a in X:
        if (type(a) is not np.ndarray or a.ndim != 2 or a.shape[1] != width
                or a.shape[0] == 0 or a.dtype.kind not in "fiub"):
            return None
    lengths = np.fromiter((a.shape[0] for a in X), dtype=np.intp, count=len(X))
    return np.concatenate(X, axis=0, dtype=np.float64), lengths


def _packed_from_list(items, name):
    arrays, ndims = [], []
    for s, item in enumerate(items):
        arr = _as_float(item, name, f"sequence {s}")
        ndims.append(arr.ndim)
        if arr.ndim not in (1, 2):
            what = ("is a single value" if arr.ndim == 0
                    else f"has {arr.ndim} dimensions")
            raise ValueError(
                f"{name}: sequence {s} {what}; each sequence must be 2-D (n_steps, "
                "n_features), or 1-D (n_steps,) for a univariate one."
            )
        if arr.shape[0] == 0:
            raise ValueError(f"{name}: sequence {s} is empty (0 steps).")
        arrays.append(arr if arr.ndim == 2 else arr[:, None])
        n_features, k = arrays[0].shape[1], arrays[-1].shape[1]
        if k != n_features:
            hint = (" (a 1-D array is a univariate sequence: 1 feature)"
                    if 1 in (ndims[0], ndims[-1]) else "")
            raise ValueError(
                f"{name}: sequence {s} has {k} features but sequence 0 has "
                f"{n_features}{hint}; every sequence needs the same number of "
                "features."
            )
    lengths = np.array([a.shape[0] for a in arrays], dtype=np.intp)
    return np.ascontiguousarray(np.concatenate(arrays, axis=0)), lengths


def _packed_from_padded(X, name):
    real = ~np.isnan(X).all(axis=2)
    # A sequence ends after its last row that is not all-NaN padding.
    lengths = np.where(
        real.any(axis=1), X.shape[1] - np.argmax(real[:, ::-1], axis=1), 0
    )
    empty = np.flatnonzero(lengths == 0)
    if empty.size:
        raise ValueError(
            f"{name}: sequence {empty[0]} is empty (every step is NaN padding)."
        )
    data = X[np.arange(X.shape[1]) < lengths[:, None]]
    return np.ascontiguousarray(data), lengths


def check_sequences(X, *, name="X"):
    """Validate a collection of sequences and pack it.

    Parameters
    ----------
    X : array-like or list of array-like
        3-D NaN-padded array, list of per-sequence arrays, or 2-D array of one-step
        sequences (see the module docstring).
    name : str, default="X"
        Name used in error messages.

    Returns
    -------
    seqs : Sequences
        The packed sequences.

    Raises
    ------
    ValueError
        For empty input or sequences, NaN/inf inside a sequence, inconsistent
        numbers of features, non-numeric or complex values, 1-D or 4-D+ arrays.
    TypeError
        For None, sparse matrices, generators, dicts, sets and strings.
    """
    _check_container(X, name)
    plain = _packed_from_plain_arrays(X)
    items = None if plain is not None else _collection_items(X)
    if plain is not None:
        form = "list"
        data, lengths = plain
    elif items is not None:
        form = "list"
        data, lengths = _packed_from_list(items, name)
    else:
        arr = _as_float(X, name)
        if arr.size == 0 and arr.ndim == 1:
            raise ValueError(
                f"{name} is empty: 0 sequences while a minimum of 1 is required."
            )
        if arr.ndim < 2:
            raise ValueError(
                f"{name}: Expected 2D array, got {arr.ndim}D array instead: a "
                "collection of sequences is a 3-D padded array, a list of 2-D "
                "per-sequence arrays, or a 2-D array of one-step sequences. A single "
                "univariate sequence x goes in as [x]; a univariate table as "
                "x.reshape(-1, 1). Reshape your data."
            )
        if arr.ndim > 3:
            raise ValueError(
                f"{name}: Found array with dim {arr.ndim}; expected at most 3 "
                "(n_sequences, max_len, n_features)."
            )
        if arr.shape[0] == 0:
            raise ValueError(
                f"{name}: 0 sequence(s) (shape={arr.shape}) while a minimum of 1 "
                "is required."
            )
        if arr.ndim == 3:
            form = "padded"
            if arr.shape[1] == 0:
                raise ValueError(
                    f"{name}: every sequence is empty (shape={arr.shape}, 0 steps)."
                )
            if arr.shape[2] == 0:
                raise ValueError(f"{name}: 0 feature(s) (shape={arr.shape}).")
            data, lengths = _packed_from_padded(arr, name)
        else:
            form = "rows"
            data, lengths = np.ascontiguousarray(arr), np.ones(arr.shape[0], np.intp)
    if data.shape[1] == 0:
        raise ValueError(
            f"{name}: 0 feature(s) (shape={data.shape}) while a minimum of 1 is "
            "required."
        )
    offsets = np.zeros(lengths.shape[0] + 1, dtype=np.intp)
    np.cumsum(lengths, out=offsets[1:])
    seqs = Sequences(data=data, offsets=offsets, form=form)
    finite = np.isfinite(data)
    if not finite.all():
        row, col = np.argwhere(~finite)[0]
        seq, step = seqs.locate(row)
        value = data[row, col]
        what = "NaN" if np.isnan(value) else ("inf" if value > 0 else "-inf")
        raise ValueError(
            f"{name}: sequence {seq} contains {what} at step {step} (feature {col}); "
            "missing values (NaN, None) are only allowed as the all-NaN trailing "
            "padding rows of a 3-D array."
        )
    return seqs


@contextmanager
def restore_on_failure(estimator):
    """A call that raises leaves the estimator exactly as it was.

    ``fit`` records ``n_features_in_`` and the like while validating; if a later
    check (or the fit itself) fails, every attribute is put back. Attributes are
    only ever rebound, never mutated in place, so a shallow copy suffices.
    """
    saved = dict(estimator.__dict__)
    try:
        yield
    except BaseException:
        estimator.__dict__.clear()
        estimator.__dict__.update(saved)
        raise


def _user_stacklevel():
    """``stacklevel`` of the first caller outside skseq, for the caller of this
    function: a warning then points at the user's line, however deep inside
    skseq it was raised."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def _rows_hint(seqs, estimator):
    """What a 2-D table at predict time probably meant, when the model was fitted
    on longer sequences (else "")."""
    max_len = getattr(estimator, "_max_fit_length", 1)
    if seqs.form != "rows" or max_len <= 1:
        return ""
    n_rows, n_features = seqs.n_sequences, seqs.n_features
    if estimator.n_features_in_ == 1 and n_features > 1:
        meant = (f"for {n_rows} univariate series of {n_features} steps pass "
                 "X[:, :, None] (or skseq.utils.from_channels_first(X))")
    else:
        meant = f"for one sequence of {n_rows} steps pass [X]"
    return (
        f"X is a 2-D table ({n_rows} rows of {n_features} features): each row is "
        f"read as a sequence of ONE step, but this {type(estimator).__name__} was "
        f"fitted on sequences of up to {max_len} steps. {meant[0].upper()}"
        f"{meant[1:]}; if you do mean one-step sequences, pass X[:, None, :]."
    )


# A 2-D table (or 3-D array) is suspected to hold series in another layout only
# from this many columns (time steps) on.
_SERIES_MIN_STEPS = 8


def _layout_hint(X, seqs):
    """At fit: what a table or array probably meant when its layout looks like
    series in another form (else ""). A 2-D table whose columns look like the
    steps of series (at least 8 of them, and more columns than rows or
    neighbouring columns that move together), a list of equal-length Python
    lists at least 8 long, and a 3-D array with more features than steps
    (channels first) are read as they are but warn; ``X[:, None, :]`` (one-step
    sequences said explicitly) and 3-D arrays of one step are silent."""
    n_seq, n_features = seqs.n_sequences, seqs.n_features
    read = (f"read as {n_seq} sequences of ONE step with {n_features} features "
            "(a tabular model)")
    if seqs.form == "rows" and n_features >= _SERIES_MIN_STEPS:
        if isinstance(X, (list, tuple)):
            return (f"X is a list of {n_seq} equal-length lists of {n_features} "
                    f"numbers, {read}. For univariate series pass a list of "
                    "arrays, [np.asarray(s) for s in X]; for one-step rows pass "
                    "np.asarray(X)[:, None, :].")
        data = seqs.data
        a = data[:, :-1] - data[:, :-1].mean(axis=0)
        b = data[:, 1:] - data[:, 1:].mean(axis=0)
        norms = np.sqrt((a * a).sum(axis=0) * (b * b).sum(axis=0))
        varying = norms > 0
        moves_together = n_seq > 2 and varying.any() and np.mean(
            (a * b).sum(axis=0)[varying] / norms[varying]) >= 0.5
        if n_features > n_seq or moves_together:
            return (f"X is a 2-D table of {n_seq} rows and {n_features} columns, "
                    f"{read}, but its columns look like the steps of series. For "
                    f"{n_seq} univariate series of {n_features} steps pass "
                    "skseq.utils.from_channels_first(X) (or X[:, :, None]); for "
                    "one-step rows (and no warning) pass X[:, None, :].")
    if seqs.form == "padded":
        shape = np.shape(X)
        if 1 < shape[1] < shape[2] and shape[2] >= _SERIES_MIN_STEPS:
            return (f"X is a 3-D array of shape {shape}, read as (n_sequences, "
                    f"max_len, n_features): {shape[0]} sequences of {shape[1]} "
                    f"steps with {shape[2]} features. If it is (n_sequences, "
                    "n_channels, n_steps), channels first, pass "
                    "skseq.utils.from_channels_first(X) (or X.transpose(0, 2, 1)).")
    return ""


def validate_sequences(estimator, X, *, reset):
    """:func:`check_sequences` plus the estimator's feature bookkeeping.

    ``reset=True`` (fit) records ``n_features_in_`` (and ``feature_names_in_`` for
    a DataFrame) and, privately, the longest training sequence; ``reset=False``
    (predict) checks X against them. A model fitted on sequences longer than one
    step that receives a 2-D table (one-step sequences) warns with a
    ``UserWarning`` saying how it reads it and how to pass one sequence: the
    table was most likely one sequence, or univariate series, in the wrong form.
    """
    seqs = check_sequences(X)
    validate_data(estimator, X, reset=reset, skip_check_array=True, ensure_2d=False)
    if reset:
        hint = _layout_hint(X, seqs)
        if hint:
            warnings.warn(hint, UserWarning, stacklevel=_user_stacklevel())
        estimator.n_features_in_ = seqs.n_features
        estimator._max_fit_length = int(seqs.lengths.max())
        estimator._median_fit_length = float(np.median(seqs.lengths))
        return seqs
    hint = _rows_hint(seqs, estimator)
    if seqs.n_features != estimator.n_features_in_:
        raise ValueError(
            f"X has {seqs.n_features} features, but {type(estimator).__name__} is "
            f"expecting {estimator.n_features_in_} features as input."
            + (f" {hint}" if hint else "")
        )
    if not hint:
        hint = _short_hint(seqs, estimator)
    if hint:
        warnings.warn(hint, UserWarning, stacklevel=_user_stacklevel())
    return seqs


def _short_hint(seqs, estimator):
    """A warning for a model asked to predict on sequences much shorter than
    those it was fitted on (what it learned may need steps they lack). One-step
    sequences passed as such are a deliberate table (see ``_rows_hint``)."""
    fitted = getattr(estimator, "_median_fit_length", None)
    median = float(np.median(seqs.lengths))
    if (fitted is None or not hasattr(estimator, "predict")
            or seqs.lengths.max() == 1 or median * _SHORT_FACTOR >= fitted):
        return ""
    return (f"X's sequences are much shorter than the training ones (median "
            f"length {median:g} steps against {fitted:g} at fit): the model may "
            "rely on steps these sequences do not reach, and predict worse. Fit "
            "on sequences of the lengths it will see, or predict on whole ones.")


def _params_snapshot(estimator, names):
    return {k: v if isinstance(v, str) else np.asarray(v).tolist()
            for k, v in estimator.get_params(deep=False).items() if k in names}


def record_fitted_params(estimator, names):
    """Remember the parameters ``names`` that shape the fitted model.

    :func:`check_fitted_params` then refuses a model whose parameters were
    changed by ``set_params`` without refitting: used with the old fitted
    attributes, they would silently give wrong results (or fail deep inside).
    """
    estimator._fitted_params_ = _params_snapshot(estimator, names)


def check_fitted_params(estimator):
    """ValueError if a parameter recorded at fit has changed since."""
    fitted = getattr(estimator, "_fitted_params_", None)
    if fitted is None:  # fitted before the record existed
        return
    now = _params_snapshot(estimator, fitted)
    changed = [k for k, v in now.items() if fitted[k] != v]
    if changed:
        raise ValueError(
            f"{', '.join(changed)} changed since fit (set_params without "
            f"refitting): refit {type(estimator).__name__} before using it."
        )


# -- y ------------------------------------------------------------------------
def _is_missing(values):
    """Element-wise "no target" marker: NaN, or None/NA in object arrays."""
    if values.dtype.kind == "f":
        return np.isnan(values)
    if values.dtype == object:
        return np.array([_is_na(v) for v in values], dtype=bool)
    return np.zeros(values.shape, dtype=bool)


def _is_array_item(item):
    return isinstance(item, (list, tuple)) or np.ndim(item) > 0


def _step_level_items(y, name):
    """Return y as a list of per-sequence arrays if it is step-level, else None."""
    if not (isinstance(y, (list, tuple))
            or (isinstance(y, np.ndarray) and y.dtype == object and y.ndim == 1)):
        return None
    is_array = [_is_array_item(item) for item in y]
    if not any(is_array):
        return None
    if not all(is_array):
        scalar, array = is_array.index(False), is_array.index(True)
        raise ValueError(
            f"{name} mixes scalars and arrays: sequence {scalar} has one target but "
            f"sequence {array} an array of step targets; give one target per "
            "sequence, or one array of per-step targets per sequence."
        )
    return list(y)


def _label_array(labels):
    """np.asarray, but a list mixing strings and other values stays object.

    (numpy would silently turn 1 and NaN into the strings "1" and "nan").
    """
    values = np.asarray(labels)
    if (values.dtype.kind in "SU" and isinstance(labels, (list, tuple))
            and not all(isinstance(v, (str, bytes)) for v in labels)):
        values = np.asarray(labels, dtype=object)
    return values


def _check_labels(values, name, where):
    """Classification labels: finite, not mixing strings and numbers."""
    if values.dtype.kind == "f" and np.isinf(values).any():
        raise ValueError(
            f"Input {name} contains infinity: at "
            f"{where(np.flatnonzero(np.isinf(values))[0])}."
        )
    if values.dtype == object:
        is_str = np.array([isinstance(v, str) for v in values], dtype=bool)
        if is_str.any() and not is_str.all():
            i, j = np.argmax(is_str), np.argmin(is_str)
            raise ValueError(
                f"{name} mixes string and non-string labels: {values[i]!r} at "
                f"{where(i)}, {values[j]!r} at {where(j)}."
            )
    # type_of_target casts float labels to int to see if they are integral:
    # labels beyond the int64 range would warn "invalid value encountered in cast".
    with np.errstate(invalid="ignore", over="ignore"):
        check_classification_targets(values)


def _as_float_targets(arr, name, where):
    """Regression targets as float64, naming ``where`` if not numeric."""
    if arr.dtype.kind not in "biuf":
        arr = _object_as_float(arr.astype(object), name, where,
                               hint="regression targets must be numbers.")
    return arr.astype(np.float64)


def _check_not_a_step_table(values, seqs, task, name):
    """Refuse a 2-D y as wide as every sequence is long: one target per step, or
    that many outputs per sequence? (The classifier and the regressor alike.)"""
    lengths = seqs.lengths
    width = values.shape[1] if values.ndim == 2 else 0
    if width <= 1 or not (lengths == width).all():
        return
    n = values.shape[0]
    step_level = ("list(y) (one array of per-step labels per sequence)"
                  if task == "classification" else
                  "list(y) (one array of per-step targets per sequence) or "
                  "y[:, :, None] (a 3-D array padded like X)")
    if task == "classification":
        sequence_level = "multi-output classification is not supported"
    else:
        sequence_level = (
            f"if you do mean {width} outputs per sequence (sequence-level), "
            "supervise each sequence's last step explicitly: y_steps = "
            f"np.full(({n}, {width}, {width}), np.nan); y_steps[:, -1] = y (the "
            "same fit; predict then returns every step, take [:, -1])"
        )
    raise ValueError(
        f"{name} has shape {values.shape} and every sequence of X has {width} "
        f"steps: a 2-D {name} of that width is ambiguous (one target per step, or "
        f"{width} targets per sequence?), so skseq refuses to guess. For step-level "
        f"targets pass {step_level}; {sequence_level}."
    )


def _sequence_level(y, seqs, task, name):
    n_seq = seqs.n_sequences
    values = _label_array(y)
    if values.dtype.kind == "c":
        raise ValueError(f"{name}: Complex data not supported.")
    if values.ndim == 2 and values.shape[0] == n_seq:
        _check_not_a_step_table(values, seqs, task, name)
    if values.ndim == 2 and task == "classification":
        if values.shape[1] != 1:
            raise ValueError(
                f"{name} should be 1-D (one label per sequence), got shape "
                f"{values.shape}; multi-output classification is not supported "
                "and step-level labels go in as a list of per-sequence arrays."
            )
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected. Please "
            "change the shape of y to (n_samples, ), for example using ravel().",
            DataConversionWarning,
            stacklevel=4,
        )
        values = values.ravel()
    if values.ndim == 0 or values.ndim > (2 if task == "regression" else 1):
        raise ValueError(
            f"{name} has shape {values.shape}: expected one target per sequence "
            "(1-D), or a list of per-sequence arrays for step-level targets."
        )
    if values.shape[0] != n_seq:
        raise ValueError(
            f"Found input variables with inconsistent numbers of samples: X has "
            f"{n_seq} sequences but {name} has {values.shape[0]} targets."
        )
    if task == "classification":
        missing = _is_missing(values)
        if missing.any():
            raise ValueError(
                f"Input {name} contains NaN (or None) labels: at sequence "
                f"{np.flatnonzero(missing)[0]}."
            )
        _check_labels(values, name, lambda i: f"sequence {i}")
    else:
        values = _as_float_targets(values, name, None)
        bad = ~np.isfinite(values.reshape(n_seq, -1)).all(axis=1)
        if bad.any():
            raise ValueError(
                f"Input {name} contains NaN or infinity: at sequence "
                f"{np.flatnonzero(bad)[0]}; sequence-level targets must be finite."
            )
    return Targets(steps=seqs.last_steps.copy(), values=values, step_level=False)


def _concatenate_labels(arrays, name):
    """Concatenate per-sequence label arrays without coercing numbers to strings."""
    kinds = ["str" if a.dtype.kind in "SU" else "num" if a.dtype.kind in "biuf"
             else "obj" for a in arrays]
    if "str" in kinds and "num" in kinds:
        raise ValueError(
            f"{name} mixes string and numeric labels: sequence {kinds.index('str')} "
            f"has {arrays[kinds.index('str')].dtype} labels, sequence "
            f"{kinds.index('num')} {arrays[kinds.index('num')].dtype}."
        )
    if len(set(kinds)) > 1 or kinds[0] == "str":
        return np.concatenate([a.astype(object) for a in arrays])
    return np.concatenate(arrays)


def _plain_step_labels(y, lengths):
    """Fast path: step-level class labels given as a list or tuple of plain 1-D
    integer (or bool) arrays of the right lengths: nothing can be missing or
    malformed, so one concatenation packs them. Anything else returns None and
    takes the general path."""
    if not isinstance(y, (list, tuple)) or len(y) != lengths.shape[0]:
        return None
    for a, n in zip(y, lengths.tolist(), strict=True):
        if (type(a) is not np.ndarray or a.ndim != 1 or a.shape[0] != n
                or a.dtype.kind not in "iub"):
            return None
    values = np.concatenate(y)
    return Targets(steps=np.arange(values.shape[0], dtype=np.intp), values=values,
                   step_level=True)


def check_targets(y, seqs, *, task, name="y"):
    """Validate targets against packed sequences.

    Parameters
    ----------
    y : array-like or list of array-like
        Sequence-level: 1-D, one target per sequence (a column vector is ravelled
        for classification with a ``DataConversionWarning``; a 2-D array is
        multi-output for regression). Step-level: a list of per-sequence arrays with
        the sequences' lengths, NaN (or None) marking steps without target; for
        regression also a 3-D array padded like X. A 2-D array whose width equals
        the common length (> 1) of all sequences is ambiguous and raises a
        ValueError saying how to pass either meaning.
    seqs : Sequences
        The validated inputs.
    task : {"classification", "regression"}
    name : str, default="y"

    Returns
    -------
    targets : Targets
    """
    if y is None:
        raise ValueError(
            f"requires {name} to be passed, but the target {name} is None."
        )
    _check_container(y, name, "one target per sequence, or a list of per-step "
                     "target arrays")
    n_seq = seqs.n_sequences
    lengths = seqs.lengths
    if task == "classification":
        fast = _plain_step_labels(y, lengths)
        if fast is not None:
            return fast
    items = _step_level_items(y, name)
    arr = np.asarray(y) if items is None and task == "regression" else None
    if arr is not None and arr.ndim == 3:
        if arr.shape[0] != n_seq or arr.shape[1] < lengths.max():
            raise ValueError(
                f"{name}: padded step-level targets of shape {arr.shape} do not "
                f"cover {n_seq} sequences of up to {lengths.max()} steps."
            )
        items = [arr[s, : lengths[s]] for s in range(n_seq)]
    if items is None:
        return _sequence_level(y, seqs, task, name)

    if len(items) != n_seq:
        raise ValueError(
            f"Found input variables with inconsistent numbers of samples: X has "
            f"{n_seq} sequences but {name} has {len(items)} per-sequence target arrays."
        )
    arrays = []
    for s, item in enumerate(items):
        where = f"sequence {s}"
        _check_container(item, f"{name}: {where}", "an array of step targets")
        try:
            arr = _label_array(item)
        except ValueError as exc:
            raise ValueError(
                f"{name}: step targets of {where} are not a rectangular array."
            ) from exc
        if arr.dtype.kind == "c":
            raise ValueError(f"{name}: {where}: Complex data not supported.")
        if arr.shape[0] != lengths[s]:
            raise ValueError(
                f"{name}: {where} has {lengths[s]} steps but {arr.shape[0]} "
                "step targets."
            )
        if task == "classification" and arr.ndim != 1:
            raise ValueError(
                f"{name}: step labels of {where} must be 1-D, got shape {arr.shape}."
            )
        if task == "regression":
            if arr.ndim > 2:
                raise ValueError(
                    f"{name}: step targets of {where} must be (n_steps,) or "
                    f"(n_steps, n_outputs), got shape {arr.shape}."
                )
            arr = _as_float_targets(arr.reshape(arr.shape[0], -1), name, where)
            if arrays and arr.shape[1] != arrays[0].shape[1]:
                raise ValueError(
                    f"{name}: {where} has {arr.shape[1]} outputs but sequence 0 has "
                    f"{arrays[0].shape[1]}."
                )
        arrays.append(arr)
    if task == "classification":
        values = _concatenate_labels(arrays, name)
        missing = _is_missing(values)
    else:
        values = np.concatenate(arrays)
        missing = np.isnan(values).all(axis=1)
        partial = np.isnan(values).any(axis=1) & ~missing
        if partial.any():
            seq, step = seqs.locate(np.flatnonzero(partial)[0])
            raise ValueError(
                f"{name}: sequence {seq} has a NaN in some but not all outputs at "
                f"step {step}; mark a step without target with NaN in every output."
            )
    steps = np.flatnonzero(~missing).astype(np.intp)
    if steps.size == 0:
        raise ValueError(f"{name}: no step has a target (all are NaN/None).")
    values = values[steps]

    def where(i):
        return "sequence {}, step {}".format(*seqs.locate(steps[i]))

    if task == "classification":
        _check_labels(values, name, where)
    elif not np.isfinite(values).all():
        bad = np.flatnonzero(~np.isfinite(values).all(axis=1))[0]
        raise ValueError(f"{name}: infinite target at {where(bad)}.")
    return Targets(steps=steps, values=values, step_level=True)


def score_targets(y, seqs, sample_weight, *, task, step_level):
    """Targets for a fitted model's ``score`` and per-target weights (None if
    unweighted).

    The targets must be of the level the model was fitted on
    (``step_level``): a sequence-level model has no per-step prediction to
    compare with, and the reverse. A step's weight is its sequence's.
    """
    targets = check_targets(y, seqs, task=task)
    if targets.step_level != step_level:
        fitted = "per step" if step_level else "one per sequence"
        given = "per step" if targets.step_level else "one per sequence"
        raise ValueError(
            f"This model was fitted on targets {fitted} but y gives them "
            f"{given}; score it with targets of the level it was fitted on."
        )
    if sample_weight is None:
        return targets, None
    weight = check_sample_weight(sample_weight, seqs.n_sequences)
    if not targets.step_level:
        return targets, weight
    seq_of = seqs.sequence_of(targets.steps)
    return targets, weight[seq_of]


# -- sample_weight --------------------------------------------------------------
# Beyond this ratio of an L2 penalty to the total sequence weight the data cannot
# move the fit, and the penalty's gradient (alpha * theta / sum(w)) overflows
# float64 once squared inside L-BFGS at ~1e150.
_MAX_PENALTY_RATIO = 1e100


def check_sample_weight(sample_weight, n_sequences, *, alpha=0.0):
    """Per-sequence weights: ones when None, else finite, non-negative, 1-D.

    A scalar is one weight for every sequence; the weights may not all be zero.
    ``alpha``, an L2 penalty weighed against the weighted log-likelihood *summed*
    over the sequences, may not exceed their total weight by more than a factor
    1e100: weights summing to 1e-198 with ``alpha=0.01`` make the penalty 1e196
    times the data's (only the ratio matters: the weights and ``alpha`` both
    times c give the same model).
    """
    weight = _weights(sample_weight, n_sequences)
    total = weight.sum()
    with np.errstate(over="ignore"):
        ratio = alpha / total
    if ratio > _MAX_PENALTY_RATIO:
        given = "" if sample_weight is not None else " (1 per sequence, the default)"
        raise ValueError(
            f"sample_weight sums to {total:.3g}{given} while alpha={alpha:g}: the "
            "L2 penalty is weighed against the log-likelihood summed over the "
            f"sequences with these weights, so it outweighs the data by a factor "
            f"{ratio:.3g}, the data could not move the fit and its gradient "
            "overflows. Only the ratio matters (weights and alpha both times c give "
            "the same model): scale sample_weight up, e.g. to mean 1 with alpha "
            "divided by the same mean, or lower alpha."
        )
    return weight


def _weights(sample_weight, n_sequences):
    """The weights as a validated float64 array (ones when None)."""
    if sample_weight is None:
        return np.ones(n_sequences)
    _check_container(sample_weight, "sample_weight", "one weight per sequence")
    try:
        raw = np.asarray(sample_weight)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(
            "sample_weight must be one number per sequence, got a ragged nested "
            "list."
        ) from exc
    if raw.dtype.kind not in "biufO":
        raise ValueError(
            f"sample_weight must be numeric, got an array of dtype {raw.dtype}."
        )
    if raw.dtype.kind == "O":  # strings are never numbers, as in X
        weight = _object_as_float(raw, "sample_weight", None,
                                  hint="weights must be numbers.")
    else:
        weight = raw.astype(np.float64)
    if weight.ndim == 0:
        weight = np.full(n_sequences, float(weight))
    if weight.shape != (n_sequences,):
        raise ValueError(
            f"sample_weight.shape == {weight.shape}, expected ({n_sequences},): one "
            "weight per sequence."
        )
    bad = ~np.isfinite(weight) | (weight < 0)
    if bad.any():
        s = np.flatnonzero(bad)[0]
        raise ValueError(
            f"sample_weight must be finite and non-negative, got {weight[s]} for "
            f"sequence {s}."
        )
    with np.errstate(over="ignore"):
        total = weight.sum()
    if total <= 0:
        raise ValueError("sample_weight sums to zero: nothing to fit.")
    if total < np.finfo(np.float64).tiny:
        raise ValueError(
            f"sample_weight sums to {total:.3g}, below the smallest normal float64: "
            "the objective's 1 / sum(sample_weight) overflows; use larger weights."
        )
    if not np.isfinite(total):
        raise ValueError(
            f"sample_weight sums to more than the largest float64 ({weight.max():.3g} "
            "for one sequence); use smaller weights."
        )
    return weight
