"""Targets: every accepted form of y, checked and packed (the sample and class
weights are :mod:`skseq._data.weights`').

Targets are either sequence-level (one per sequence, supervising its last step) or
step-level (one array per sequence, NaN/None meaning "no target at this step");
:func:`check_targets` turns both into the packed :class:`Targets`. A 2-D array y
whose width equals the common length (> 1) of the sequences is refused: it could
be either. Class labels may not mix strings with other values (numpy would
silently turn ``1`` into ``"1"``), nor be infinite; regression targets must be
real numbers.
"""

import numbers
import warnings

import numpy as np
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.multiclass import check_classification_targets

from .sequences import Targets, _check_container, _is_na, _object_as_float
from .weights import check_score_weight

__all__ = ["accuracy", "check_targets", "needs_lengths", "score_targets"]

# -- y ------------------------------------------------------------------------
def _is_missing(values):
    """Element-wise "no target" marker: NaN, NaT (datetime or timedelta), or
    None/NA/NaT in object arrays."""
    if values.dtype.kind == "f":
        return np.isnan(values)
    if values.dtype.kind in "mM":
        return np.isnat(values)
    if values.dtype == object:
        return np.array([_is_na(v) for v in values], dtype=bool)
    return np.zeros(values.shape, dtype=bool)


def _is_array_item(item):
    return isinstance(item, (list, tuple)) or np.ndim(item) > 0


def _step_level_items(y, name):
    """Return y as a list of per-sequence arrays if it is step-level, else None."""
    if (not isinstance(y, np.ndarray) and hasattr(y, "to_numpy")
            and getattr(y, "ndim", None) == 1
            and str(getattr(y, "dtype", "")) == "object"):
        y = y.to_numpy()  # a pandas Series of per-step arrays
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

    (numpy would silently turn 1 and NaN into the strings "1" and "nan"; and
    fails with a ``UnicodeDecodeError`` on bytes beyond ASCII among strings).
    pandas' nullable integers or booleans with missing values become objects,
    their missing values None, as numpy would turn them into floats with NaN
    (and the labels 0 and 1 into 0.0 and 1.0).
    """
    kind = getattr(getattr(labels, "dtype", None), "kind", None)
    if (kind in ("i", "u", "b") and not isinstance(labels, np.ndarray)
            and hasattr(labels, "to_numpy") and hasattr(labels, "isna")
            and np.asarray(labels.isna()).any()):
        return labels.to_numpy(dtype=object, na_value=None)
    try:
        values = np.asarray(labels)
    except UnicodeDecodeError:
        return np.asarray(labels, dtype=object)
    if (values.dtype.kind in "SU" and isinstance(labels, (list, tuple))
            and not all(isinstance(v, (str, bytes)) for v in labels)):
        values = np.asarray(labels, dtype=object)
    return values


def _padded_hint(values, row, name):
    """A hint when a 2-D ``name`` (read as several outputs per sequence) looks
    like per-step targets padded with NaN: row ``row`` finite up to a point
    and NaN from there to its end."""
    if values.ndim != 2 or values.shape[1] < 2:
        return ""
    finite = np.isfinite(values[row])
    nan = np.isnan(values[row])
    first = int(np.argmin(finite))
    if first == 0 or not nan[first:].all():
        return ""
    return (f" A 2-D {name} holds {values.shape[1]} outputs per sequence; if its "
            "columns are steps padded with NaN, give the per-step targets as a "
            "list of arrays, one per sequence (NaN marks an unlabelled step).")


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
        try:
            check_classification_targets(values)
        except ValueError as exc:
            # (scikit-learn's message for every unknown type speaks of
            # "continuous values": only its "continuous" type is one)
            if (not str(exc).startswith("Unknown label type: continuous")
                    or values.ndim != 1):
                raise
            raise ValueError(_continuous_message(values, name, where)) from None


def _continuous_message(values, name, where):
    """Real-valued labels: where the first non-integral one is, and what
    takes real-valued targets."""
    numbers = np.asarray(values, dtype=np.float64)
    i = int(np.argmax(numbers != np.round(numbers)))
    return (
        f"Unknown label type: continuous. {name} holds real numbers "
        f"({float(numbers[i])!r} at {where(i)}), which are not class labels. For "
        "real-valued targets use IOHMMRegressor, or HierarchicalIOHMM("
        "task='regression'); for classes pass discrete labels (integers, "
        "strings or booleans)."
    )


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
                f"Input {name} contains missing (NaN, None or NaT) labels: at "
                f"sequence {np.flatnonzero(missing)[0]} ({int(missing.sum())} of "
                f"{n_seq} sequences). One label per sequence is needed for every "
                "sequence: leave the unlabelled ones out of both X and "
                f"{name} (e.g. keep = pandas.notna({name}))."
            )
        # an object array of numbers (a pandas object column), as step labels
        values = _numbers_unboxed(values)
        _check_labels(values, name, lambda i: f"sequence {i}")
    else:
        values = _as_float_targets(values, name, None)
        bad = ~np.isfinite(values.reshape(n_seq, -1)).all(axis=1)
        if bad.any():
            row = np.flatnonzero(bad)[0]
            hint = _padded_hint(values, row, name)
            raise ValueError(
                f"Input {name} contains NaN or infinity: at sequence {row}; "
                f"sequence-level targets must be finite.{hint}"
            )
    return Targets(steps=seqs.last_steps.copy(), values=values, step_level=False)


def _concatenate_labels(arrays, name):
    """Concatenate per-sequence label arrays without coercing numbers to strings
    (nor bytes to str): str arrays stay str, any other mix becomes object."""
    kinds = ["str" if a.dtype.kind in "SU" else "num" if a.dtype.kind in "biuf"
             else "obj" for a in arrays]
    if "str" in kinds and "num" in kinds:
        raise ValueError(
            f"{name} mixes string and numeric labels: sequence {kinds.index('str')} "
            f"has {arrays[kinds.index('str')].dtype} labels, sequence "
            f"{kinds.index('num')} {arrays[kinds.index('num')].dtype}."
        )
    if kinds[0] == "str" and len({a.dtype.kind for a in arrays}) == 1:
        # string labels keep their NumPy dtype, as scikit-learn's classes_ do
        return np.concatenate(arrays)
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


def check_targets(y, seqs, *, task, name="y", unobserved=False):
    """Validate targets against packed sequences.

    Parameters
    ----------
    y : array-like or list of array-like
        Sequence-level: 1-D, one target per sequence (a column vector is ravelled
        for classification with a ``DataConversionWarning``; a 2-D array is
        multi-output for regression). Step-level: a list of per-sequence arrays with
        the sequences' lengths, NaN (or None, or NaT) marking steps without
        target; for regression also a 3-D array padded like X. A 2-D array
        whose width equals the common length (> 1) of all sequences is
        ambiguous and raises a ValueError saying how to pass either meaning.
    seqs : Sequences
        The validated inputs.
    task : {"classification", "regression"}
    name : str, default="y"
    unobserved : bool, default=False
        Accept step-level targets that mark every step as without target
        (outputs a prediction is conditioned on, none of them observed);
        a fit needs one.

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
    if task == "classification":
        fast = _plain_step_labels(y, seqs.lengths)
        if fast is not None:
            return fast
    items = _step_items(y, seqs, task, name)
    if items is None:
        return _sequence_level(y, seqs, task, name)
    if len(items) != seqs.n_sequences:
        raise ValueError(
            f"Found input variables with inconsistent numbers of samples: X has "
            f"{seqs.n_sequences} sequences but {name} has {len(items)} "
            "per-sequence target arrays."
        )
    arrays = []
    for s, item in enumerate(items):
        arrays.append(_step_array(item, s, seqs.lengths[s], task, name,
                                  arrays[0] if arrays else None))
    return _packed_step_targets(arrays, seqs, task, name, unobserved)


def _step_items(y, seqs, task, name):
    """Per-sequence step targets of y (a padded 3-D array cut to the
    sequences' lengths), or None if y is sequence-level."""
    items = _step_level_items(y, name)
    arr = _label_array(y) if items is None and task == "regression" else None
    if arr is not None and arr.ndim == 3:
        n_seq, lengths = seqs.n_sequences, seqs.lengths
        if arr.shape[0] != n_seq or arr.shape[1] < lengths.max():
            raise ValueError(
                f"{name}: padded step-level targets of shape {arr.shape} do not "
                f"cover {n_seq} sequences of up to {lengths.max()} steps."
            )
        items = [arr[s, : lengths[s]] for s in range(n_seq)]
    return items


def _step_array(item, s, length, task, name, first):
    """Sequence ``s``'s step targets as an array, checked against its
    ``length`` and (regression) against sequence 0's array ``first``."""
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
    if arr.shape[0] != length:
        raise ValueError(
            f"{name}: {where} has {length} steps but {arr.shape[0]} "
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
        if first is not None and arr.shape[1] != first.shape[1]:
            raise ValueError(
                f"{name}: {where} has {arr.shape[1]} outputs but sequence 0 has "
                f"{first.shape[1]}."
            )
    return arr


def _numbers_unboxed(values):
    """Labels held as objects (ints or bools: to mark missing steps with None,
    once those steps are dropped, or a pandas object column): a numeric or
    bool array, which scikit-learn's checks accept (an object array of
    numbers is of "unknown" type to them)."""
    if values.dtype == object and all(
            isinstance(v, numbers.Number | np.bool_) for v in values):
        return np.array(values.tolist())
    return values


def _packed_step_targets(arrays, seqs, task, name, unobserved=False):
    """The checked per-sequence step targets packed: the steps that have a
    target and their values (labels checked, real values finite); none, if
    ``unobserved``, where no step has one."""
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
    values = values[steps]
    if steps.size == 0:
        if unobserved:
            return Targets(steps=steps, values=values, step_level=True)
        raise ValueError(f"{name}: no step has a target (all are NaN/None).")

    def where(i):
        return "sequence {}, step {}".format(*seqs.locate(steps[i]))

    if task == "classification":
        values = _numbers_unboxed(values)
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
    weight = check_score_weight(sample_weight, seqs.n_sequences)
    if not targets.step_level:
        return targets, weight
    step_weight = weight[seqs.sequence_of(targets.steps)]
    if not step_weight.any():
        raise ValueError("sample_weight is 0 for every sequence with a labelled "
                         "step: there is nothing to score.")
    return targets, step_weight


def needs_lengths(y):
    """Whether :func:`check_targets` of y may depend on the sequences'
    lengths, not only on their number: step-level targets, a padded 3-D y, a
    2-D y more than one column wide (refused if as wide as every sequence is
    long)."""
    if y is None:
        return False
    try:
        if _step_level_items(y, "y") is not None:
            return True
        values = _label_array(y)
    except (ValueError, TypeError):  # a mistake whose message needs no lengths
        return False
    return values.ndim > 2 or (values.ndim == 2 and values.shape[1] > 1)


def accuracy(labels, pred, classes, sample_weight=None):
    """scikit-learn's accuracy of the predictions ``pred`` against ``labels``,
    which must be of the kind of the model's ``classes`` (strings, numbers,
    dates or durations).

    Labels of another kind (strings scored against numeric classes, dates
    against numbers, ...) could only all count as wrong; they are refused
    with a ``ValueError`` whatever the version of scikit-learn (its accuracy
    refuses strings against numbers from version 1.9; earlier versions score
    them 0.0, or fail with a ``TypeError``, as all versions do for dates
    against numbers).
    """
    from sklearn.metrics import accuracy_score  # slow to import

    given, fitted = _label_kind(labels), _label_kind(classes)
    if given != fitted:
        kinds = {given, fitted}
        mix = ("string and number" if kinds == {"strings", "numbers"}
               else f"{given} and {fitted}")
        raise ValueError(
            f"Mix of label input types ({mix}): y holds {given} but "
            f"the model's classes_ are {fitted}; score it with labels of the "
            "kind it was fitted on."
        )
    return float(accuracy_score(labels, pred, sample_weight=sample_weight))


def _label_kind(values):
    """"strings" if any of the labels is a string, "dates" or "durations"
    for NumPy's datetimes or timedeltas, else "numbers"."""
    values = np.asarray(values)
    if values.dtype.kind == "U" or (
            values.dtype == object and any(isinstance(v, str) for v in values.flat)):
        return "strings"
    return {"M": "dates", "m": "durations"}.get(values.dtype.kind, "numbers")
