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
* Steps of symbols are kept, for :class:`~skseq.preprocessing.Stepwise`'s
  transformer, where a :class:`Reading` asks for them: a sequence holding a
  string (a string array, or an object array or DataFrame with a string or
  category among its values) is then an object array, its missing values NaN.
  A 3-D object array's padding is its trailing rows whose every feature is
  missing (None or NaN), as for numbers. Bytes are refused (decode them).
* ``None`` and pandas' ``NA`` in object input, and the masked entries of a
  ``numpy.ma`` array, are missing values like NaN: an error anywhere but in the
  all-NaN trailing padding rows of a 3-D array.
* Generators and other one-shot iterators, sets, dicts and strings are rejected with
  a ``TypeError``: scikit-learn's splitters index X, so a collection of sequences
  must support ``len`` and indexing (pass ``list(gen)``). Sparse matrices are
  rejected with a ``TypeError`` too: the kernels need dense steps.
* Class labels may not mix strings with other values (numpy would silently turn
  ``1`` into ``"1"``), nor be infinite; regression targets must be real numbers.

Packing converts any form once into :class:`Sequences`, the layout the kernels
use: all steps concatenated into one C-contiguous float64 array plus an
``offsets`` array (sequence ``s`` owns rows ``offsets[s]:offsets[s + 1]``). Errors
name the sequence, and the step, at fault. The checks that turn a user's X into
:class:`Sequences` are in :mod:`skseq._data.checks`; those of y and weights in
:mod:`skseq._data.targets`.
"""

import numbers
from collections.abc import Iterator, Mapping, Set
from dataclasses import dataclass
from itertools import repeat

import numpy as np
from scipy import sparse

__all__ = ["Sequences", "Targets", "quote"]


# NumPy scalars that hold a Python value exactly (not dates, whose .item()
# may be an int, nor long doubles, which have no Python counterpart).
_PLAIN_SCALARS = (np.str_, np.bytes_, np.bool_, np.integer, np.float16, np.float32,
                  np.float64, np.complex64, np.complex128)


def quote(value, limit=40):
    """``repr(value)`` in at most about ``limit`` characters: a longer string
    is cut and closed with ``...'``, so that a message stays readable. A NumPy
    scalar is shown as the Python value it holds (``'a'``, not
    ``np.str_('a')``), as the user wrote it in a list or a frame."""
    if isinstance(value, _PLAIN_SCALARS):
        value = value.item()
    text = repr(value)
    if len(text) <= limit:
        return text
    if isinstance(value, (str, bytes)):
        return repr(value[: limit - 6])[:-1] + "..." + text[-1]
    return text[: limit - 3] + "..."


def encode_hint(owner=None):
    """The advice for steps of symbols given to a model that reads numbers:
    one-hot indicators in a pipeline before ``owner`` (an estimator's name)."""
    return ("encode them as numbers first, e.g. one-hot in a pipeline: "
            f"make_pipeline(Stepwise(OneHotEncoder()), {owner or 'estimator'}()).")


_ENCODE_HINT = encode_hint()
_DATES_HINT = ("dates and durations are not numeric: convert them to numbers "
               "first, e.g. seconds since a reference time.")


@dataclass(frozen=True)
class Reading:
    """How the values of steps are read.

    Attributes
    ----------
    symbols : bool
        Keep steps that are not numbers (strings, categories) as an object
        array, for a transformer that reads them (:class:`Stepwise`), instead
        of refusing them.
    allow_nan : bool
        Let missing values (NaN) stand inside a sequence, for a transformer
        that reads them.
    hint : str
        The advice appended to the refusal of steps of symbols.
    """

    symbols: bool = False
    allow_nan: bool = False
    hint: str = _ENCODE_HINT


NUMBERS = Reading()


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

    @classmethod
    def skeleton(cls, offsets, n_features=1, form="list"):
        """Sequences laid out by ``offsets`` without their values (a read-only
        array of zeros that takes no memory): what checking and encoding
        targets read."""
        n_steps = int(offsets[-1])
        data = np.broadcast_to(np.zeros((1, n_features)), (n_steps, n_features))
        return cls(data=data, offsets=offsets, form=form)

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

    def repeated(self, counts):
        """Sequence ``s`` repeated ``counts[s]`` times (0: left out), in
        order (these sequences themselves when every count is 1)."""
        idx = np.repeat(np.arange(self.n_sequences), counts)
        if idx.size == self.n_sequences and np.all(counts == 1):
            return self
        lengths = self.lengths[idx]
        offsets = np.zeros(idx.size + 1, dtype=np.intp)
        np.cumsum(lengths, out=offsets[1:])
        steps = np.repeat(self.offsets[idx] - offsets[:-1], lengths) + np.arange(
            offsets[-1])
        return Sequences(data=self.data[steps], offsets=offsets, form="list")

    def holding(self, rows):
        """The sequences that hold the packed steps ``rows`` (in order), and
        those steps' packed indices among them: a pass over those steps need
        not read the others."""
        seq = self.sequence_of(rows)
        used = np.unique(seq)
        counts = np.zeros(self.n_sequences, dtype=np.intp)
        counts[used] = 1
        held = self.repeated(counts)
        return held, rows - self.offsets[seq] + held.offsets[np.searchsorted(used, seq)]

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
    dask_kind, compute = _dask_kind(obj, label)
    if dask_kind:
        raise TypeError(
            f"{label} is {dask_kind}, which this method does not read: only the "
            "methods of the Dask guide (\"Predicting on a Dask collection\") take "
            f"Dask collections; compute it first for this one: {compute}."
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


def _dask_kind(obj, label):
    """``("a Dask bag", how to compute it)`` or the same for a list of Dask
    delayed objects (collections that local validation cannot read), else
    ``("", "")``; found by the objects' modules, so that Dask is not
    imported."""
    if type(obj).__module__.startswith("dask.bag"):
        return "a Dask bag", f"list({label}.compute())"
    if (isinstance(obj, (list, tuple)) and obj
            and type(obj[0]).__module__.startswith("dask.delayed")):
        return "a list of Dask delayed objects", f"list(dask.compute(*{label}))"
    return "", ""


def _is_na(value):
    """Missing-value scalar: None, NaN, NumPy's NaT, or pandas' NA / NaT."""
    if value is None:
        return True
    if isinstance(value, (float, np.floating)):
        return bool(np.isnan(value))
    if isinstance(value, (np.datetime64, np.timedelta64)):
        return bool(np.isnat(value))
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


def _flat_lists_hint(obj, where, reading):
    """For a whole X of flat lists of numbers (or symbols): how it was read,
    and how to pass univariate sequences instead."""
    if where is not None or not all(_is_flat_row(row) for row in obj):
        return ""
    text = any(isinstance(v, (str, bytes)) for row in obj for v in row)
    then = (f" Then, for symbols: {reading.hint}"
            if text and not reading.symbols else "")
    return (" A list of flat Python lists is read as a table, one row per "
            "one-step sequence; for univariate sequences of these lengths pass "
            f"[np.asarray(s) for s in X].{then}")


def _ragged_message(obj, name, where, reading):
    """Name the first row of a nested list whose length differs from row 0's."""
    if isinstance(obj, (list, tuple)) and obj:
        unit = "sequence" if where is None else "step"
        prefix = f"{name}: " if where is None else f"{name}: {where}, "
        first = _describe_row(obj[0])
        for t, row in enumerate(obj):
            if _describe_row(row) != first:
                return (f"{prefix}{unit} {t} has {_describe_row(row)} but {unit} 0 "
                        f"has {first}.{_flat_lists_hint(obj, where, reading)}")
    return f"{name}: {where or name} is not a rectangular array."


def _as_float(obj, name, where=None, reading=NUMBERS):
    """float64 array of one sequence (``where``) or of a whole array (None);
    an object array of its values where they are symbols and ``reading``
    keeps them (:func:`_as_symbols`)."""
    label = name if where is None else f"{name}: {where}"
    _check_container(obj, label, "a collection of sequences" if where is None
                     else "an (n_steps, n_features) array")
    mask = np.ma.getmaskarray(obj) if isinstance(obj, np.ma.MaskedArray) else None
    try:
        arr = np.asarray(obj)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(_ragged_message(obj, name, where, reading)) from exc
    kind = arr.dtype.kind
    if reading.symbols and (kind in "SUT" or (kind == "O" and _holds_text(arr))):
        return _as_symbols(arr, mask, label)
    if kind in "SUTVMm":
        hint = _DATES_HINT if kind in "Mm" else reading.hint
        raise ValueError(
            f"{label} has non-numeric features (dtype {arr.dtype}); {hint}"
        )
    if kind == "c":
        raise ValueError(f"{label}: Complex data not supported.")
    if kind == "O":
        arr = _object_as_float(arr, name, where, reading.hint)
    arr = arr.astype(np.float64, copy=mask is not None)
    if mask is not None:
        arr[mask] = np.nan  # masked entries are missing values
    return arr


def _holds_text(arr):
    """Whether the object array holds a string or bytes (isinstance mapped in
    C, stopping at the first)."""
    return any(map(isinstance, arr.flat, repeat((str, bytes))))


# Elementwise _is_na, for object arrays.
_missing_objects = np.frompyfunc(_is_na, 1, 1)

# Types whose values are missing exactly when None or unequal to themselves
# (NaN): an object array holding no other is read by two comparisons.
_PLAIN_TYPES = frozenset({str, float, int, bool, type(None), np.str_,
                          np.float64, np.float32, np.int64, np.bool_})


def _missing_symbols(out):
    """Where the object array ``out`` holds a missing value, as
    :func:`_is_na` says: by comparisons over the whole array when it holds
    plain strings, numbers and None only (its types read in C), else value
    by value."""
    if set(map(type, out.flat)) <= _PLAIN_TYPES:
        return np.not_equal(out, out) | np.equal(out, None)
    return _missing_objects(out).astype(bool)


def _as_symbols(arr, mask, label):
    """An object copy of steps of symbols (strings, categories, possibly mixed
    with numbers), for a transformer that reads them: every missing value
    (None, pandas' NA, NaT, a masked entry) becomes NaN, scikit-learn's
    marker of a missing value. Bytes are refused: decode them first."""
    if arr.dtype.kind == "U":  # str only, none missing (but a masked entry)
        out = arr.astype(object)
        if mask is not None:
            out[mask] = np.nan
        return out
    if arr.dtype.kind == "S" or any(map(isinstance, arr.flat, repeat(bytes))):
        raise ValueError(
            f"{label} holds bytes (dtype {arr.dtype}); decode them to str first, "
            "e.g. x.astype(str)."
        )
    out = arr.astype(object)
    missing = _missing_symbols(out)
    if mask is not None:
        missing |= mask
    out[missing] = np.nan
    return out


def missing_values(data):
    """Where ``data`` (float64, or objects whose missing values are NaN) holds
    a missing value."""
    if data.dtype == object:
        return np.not_equal(data, data)  # NaN is the only value unequal to itself
    return np.isnan(data)


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


def _packed_from_list(items, name, reading=NUMBERS):
    arrays, ndims = [], []
    for s, item in enumerate(items):
        arr = _as_float(item, name, f"sequence {s}", reading)
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
    real = ~missing_values(X).all(axis=2)
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

