"""The sequence data model: every accepted form of X and y, and all their errors.

Public inputs come in three forms (DESIGN §2):

* a 3-D float array ``(n_sequences, max_len, n_features)`` padded at the END with
  all-NaN rows;
* a list / tuple (or 1-D object array) of 2-D arrays ``(len_i, n_features)``; a 1-D
  item ``(len_i,)`` is a univariate sequence;
* a 2-D array ``(n_samples, n_features)``: every row is a sequence of one step.

Validation converts any of them once into :class:`Sequences`, the packed layout the
kernels use: all steps concatenated into one C-contiguous float64 array plus an
``offsets`` array (sequence ``s`` owns rows ``offsets[s]:offsets[s + 1]``).

Targets are either sequence-level (one per sequence, supervising its last step) or
step-level (one array per sequence, NaN/None meaning "no target at this step");
:func:`check_targets` turns both into the packed :class:`Targets`.
"""

import numbers
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.multiclass import check_classification_targets

__all__ = ["Sequences", "Targets", "check_sequences", "check_targets"]


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

    def locate(self, row):
        """Return ``(sequence, step)`` of a packed row index."""
        seq = int(np.searchsorted(self.offsets, row, side="right")) - 1
        return seq, int(row - self.offsets[seq])

    def unpack(self, packed, fill=np.nan):
        """Return per-step values in the user's form.

        A list of per-sequence arrays for list input; for array input (3-D padded or
        2-D one-step rows) a padded array ``(n_sequences, max_len, ...)`` with
        ``fill`` after each sequence's end.
        """
        packed = np.asarray(packed)
        if self.form == "list":
            return [
                packed[self.offsets[s] : self.offsets[s + 1]]
                for s in range(self.n_sequences)
            ]
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


def _reject_sparse_and_complex(arr, name):
    if sparse.issparse(arr):
        raise TypeError(
            f"{name}: sparse input is not supported; pass a dense array or a list "
            "of dense per-sequence arrays."
        )
    if isinstance(arr, (list, tuple)):
        return  # ragged collections: their items are checked one by one
    if np.iscomplexobj(np.asarray(arr)):
        raise ValueError(f"{name}: Complex data not supported.")


def _as_float(arr, name, where):
    """Convert to float64, naming ``where`` when the values are not numeric."""
    _reject_sparse_and_complex(arr, name)
    try:
        arr = np.asarray(arr)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(f"{name}: {where} is not a rectangular array ({exc}).") from exc
    if arr.dtype.kind in "OSUVMm":
        try:
            arr = arr.astype(np.float64)
        except TypeError as exc:
            raise TypeError(
                f"{name}: {where} has non-numeric features: {exc}"
            ) from exc
        except ValueError as exc:
            raise ValueError(
                f"{name}: {where} has non-numeric features (dtype {arr.dtype}); "
                "encode them first, e.g. with Stepwise(OneHotEncoder())."
            ) from exc
    if np.iscomplexobj(arr):
        raise ValueError(f"{name}: Complex data not supported.")
    return np.asarray(arr, dtype=np.float64)


def _is_flat_row(item):
    return isinstance(item, (list, tuple)) and all(np.ndim(v) == 0 for v in item)


def _is_collection_of_sequences(X):
    """Whether X is a ragged collection (list, tuple or 1-D object array).

    A list of flat Python lists of numbers is a table (one row per one-step
    sequence), as scikit-learn reads ``X.tolist()``; a univariate sequence in a
    list is a 1-D array, and a multivariate one a 2-D array or nested list.
    """
    if isinstance(X, (list, tuple)):
        if not X or all(_is_flat_row(item) for item in X):
            return False
        return all(isinstance(item, (list, tuple)) or np.ndim(item) >= 1 for item in X)
    return isinstance(X, np.ndarray) and X.dtype == object and X.ndim == 1


def _packed_from_padded(X, name):
    nan_rows = np.isnan(X).all(axis=2)
    # A sequence ends after its last row that is not all-NaN padding.
    real = ~nan_rows
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


def _packed_from_list(X, name):
    items = []
    n_features = None
    for s, item in enumerate(X):
        arr = _as_float(item, name, f"sequence {s}")
        if arr.ndim == 1:
            arr = arr[:, None]
        elif arr.ndim != 2:
            raise ValueError(
                f"{name}: sequence {s} has {arr.ndim} dimensions; each sequence must "
                "be 2-D (n_steps, n_features) or 1-D (n_steps,) for a univariate one."
            )
        if arr.shape[0] == 0:
            raise ValueError(f"{name}: sequence {s} is empty (0 steps).")
        if n_features is None:
            n_features = arr.shape[1]
        elif arr.shape[1] != n_features:
            raise ValueError(
                f"{name}: sequence {s} has {arr.shape[1]} features but sequence 0 has "
                f"{n_features}; every sequence needs the same number of features."
            )
        items.append(arr)
    lengths = np.array([a.shape[0] for a in items], dtype=np.intp)
    return np.ascontiguousarray(np.concatenate(items, axis=0)), lengths


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
        For sparse matrices and None.
    """
    if X is None:
        raise TypeError(f"{name} is None; expected a collection of sequences.")
    if _is_collection_of_sequences(X):
        form = "list"
        data, lengths = _packed_from_list(X, name)
    else:
        arr = _as_float(X, name, name)
        if arr.ndim == 3:
            form = "padded"
            if arr.shape[0] == 0 or arr.shape[1] == 0:
                raise ValueError(f"{name}: got an empty array of shape {arr.shape}.")
            if arr.shape[2] == 0:
                raise ValueError(f"{name}: 0 feature(s) (shape={arr.shape}).")
            data, lengths = _packed_from_padded(arr, name)
        elif arr.ndim == 2:
            form = "rows"
            if arr.shape[0] == 0:
                raise ValueError(
                    f"{name}: 0 sequence(s) (shape={arr.shape}) while a minimum of 1 "
                    "is required."
                )
            data, lengths = np.ascontiguousarray(arr), np.ones(arr.shape[0], np.intp)
        elif arr.ndim < 2:
            raise ValueError(
                f"{name}: Expected 2D array, got {arr.ndim}D array instead: a "
                "collection of sequences is a 3-D padded array, a list of 2-D "
                "per-sequence arrays, or a 2-D array of one-step sequences. A single "
                "univariate sequence x goes in as [x]; a univariate table as "
                "x.reshape(-1, 1). Reshape your data."
            )
        else:
            raise ValueError(
                f"{name}: Found array with dim {arr.ndim}; expected at most 3 "
                "(n_sequences, max_len, n_features)."
            )
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
        what = "NaN" if np.isnan(data[row, col]) else "inf"
        raise ValueError(
            f"{name}: sequence {seq} contains {what} at step {step} (feature {col}); "
            "NaN is only allowed as trailing padding of a 3-D array, as whole rows."
        )
    return seqs


def _is_missing(values):
    """Element-wise "no target" marker: NaN, or None in object arrays."""
    if values.dtype.kind == "f":
        return np.isnan(values)
    if values.dtype == object:
        return np.array(
            [v is None or (isinstance(v, float) and np.isnan(v)) for v in values],
            dtype=bool,
        )
    return np.zeros(values.shape, dtype=bool)


def _step_level_items(y):
    """Return y as a list of per-sequence arrays if it is step-level, else None."""
    if isinstance(y, (list, tuple)) or (
        isinstance(y, np.ndarray) and y.dtype == object and y.ndim == 1
    ):
        ndims = {np.ndim(item) for item in y}
        if ndims and 0 not in ndims:
            return list(y)
        if len(ndims) > 1:
            raise ValueError(
                "y mixes scalars and arrays: give one target per sequence, or one "
                "array of per-step targets per sequence."
            )
    return None


def check_targets(y, seqs, *, task, name="y"):
    """Validate targets against packed sequences.

    Parameters
    ----------
    y : array-like or list of array-like
        Sequence-level: 1-D, one target per sequence (a column vector is ravelled
        for classification with a ``DataConversionWarning``; a 2-D array is
        multi-output for regression). Step-level: a list of per-sequence arrays with
        the sequences' lengths, NaN (or None) marking steps without target; for
        regression also a 3-D array padded like X.
    seqs : Sequences
        The validated inputs.
    task : {"classification", "regression"}
    name : str, default="y"

    Returns
    -------
    targets : Targets
    """
    if y is None:
        raise ValueError(f"requires {name} to be passed, but the target {name} is None.")
    _reject_sparse_and_complex(y, name)
    n_seq = seqs.n_sequences
    lengths = seqs.lengths
    items = _step_level_items(y)
    if items is None and task == "regression":
        arr = np.asarray(y)
        if arr.ndim == 3:
            if arr.shape[0] != n_seq or arr.shape[1] < lengths.max():
                raise ValueError(
                    f"{name}: padded step-level targets of shape {arr.shape} do not "
                    f"cover {n_seq} sequences of up to {lengths.max()} steps."
                )
            items = [arr[s, : lengths[s]] for s in range(n_seq)]
    if items is None:
        values = np.asarray(y)
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
                stacklevel=3,
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
            if _is_missing(values).any():
                raise ValueError(f"Input {name} contains NaN (or None) labels.")
            check_classification_targets(values)
        return Targets(steps=seqs.last_steps.copy(), values=values, step_level=False)

    if len(items) != n_seq:
        raise ValueError(
            f"Found input variables with inconsistent numbers of samples: X has "
            f"{n_seq} sequences but {name} has {len(items)} per-sequence target arrays."
        )
    arrays = []
    for s, item in enumerate(items):
        arr = np.asarray(item)
        if arr.shape[0] != lengths[s]:
            raise ValueError(
                f"{name}: sequence {s} has {lengths[s]} steps but {arr.shape[0]} "
                "step targets."
            )
        if task == "classification" and arr.ndim != 1:
            raise ValueError(
                f"{name}: step labels of sequence {s} must be 1-D, got shape "
                f"{arr.shape}."
            )
        if task == "regression" and arr.ndim > 2:
            raise ValueError(
                f"{name}: step targets of sequence {s} must be (n_steps,) or "
                f"(n_steps, n_outputs), got shape {arr.shape}."
            )
        arrays.append(arr)
    values = np.concatenate(arrays, axis=0) if task == "classification" else None
    if task == "classification":
        if values.dtype.kind not in "fO":
            values = values.astype(object) if values.dtype.kind in "SU" else values
        missing = _is_missing(values)
    else:
        try:
            values = np.concatenate(
                [a.reshape(a.shape[0], -1).astype(np.float64) for a in arrays]
            )
        except ValueError as exc:
            raise ValueError(
                f"{name}: step targets must be numeric with the same number of "
                f"outputs in every sequence ({exc})."
            ) from exc
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
    if task == "classification":
        check_classification_targets(values)
    elif not np.isfinite(values).all():
        seq, step = seqs.locate(steps[np.flatnonzero(~np.isfinite(values).all(1))[0]])
        raise ValueError(f"{name}: sequence {seq} has an inf target at step {step}.")
    return Targets(steps=steps, values=values, step_level=True)


def check_sample_weight(sample_weight, n_sequences):
    """Per-sequence weights: ones when None, else finite, non-negative, 1-D."""
    if sample_weight is None:
        return np.ones(n_sequences)
    if isinstance(sample_weight, numbers.Number):
        return np.full(n_sequences, float(sample_weight))
    weight = np.asarray(sample_weight, dtype=np.float64)
    if weight.ndim != 1 or weight.shape[0] != n_sequences:
        raise ValueError(
            f"sample_weight.shape == {weight.shape}, expected ({n_sequences},): one "
            "weight per sequence."
        )
    if not np.isfinite(weight).all() or (weight < 0).any():
        raise ValueError("sample_weight must be finite and non-negative.")
    if weight.sum() <= 0:
        raise ValueError("sample_weight sums to zero: nothing to fit.")
    return weight
