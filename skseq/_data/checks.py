"""Checking a user's X: :func:`check_sequences` packs any accepted form into
:class:`~skseq._data.sequences.Sequences`, and :func:`validate_sequences` adds an
estimator's feature bookkeeping and the hints on a layout that looks mistaken.
"""

import contextvars
import os
import sys
import warnings
import weakref
from contextlib import contextmanager

import numpy as np
from sklearn.utils.validation import validate_data

from .names import names_source
from .sequences import (
    NUMBERS,
    Reading,
    Sequences,
    _as_float,
    _check_container,
    _collection_items,
    _packed_from_list,
    _packed_from_padded,
    _packed_from_plain_arrays,
    encode_hint,
    missing_values,
)
from .thread_warnings import ignoring

__all__ = ["InputHintWarning", "check_rows", "check_sequences", "mark_laid_out",
           "quiet_repeats", "quiet_rows", "record_fit_lengths",
           "validate_sequences"]


class InputHintWarning(UserWarning):
    """How ``X`` was read, where it looks given in a mistaken form.

    Raised by ``fit`` for a 2-D table that looks like univariate series, a
    3-D array that looks channels-first, a list of equal-length Python
    lists, one real target per sequence that ``IOHMMRegressor`` would read
    from the raw values of the last step only, or one label per sequence
    given to ``HybridHMMClassifier`` (which labels steps), and by ``predict`` for
    sequences much shorter than the training ones or a 2-D table given to a
    model fitted on longer sequences. The
    message says how the input was read and how to pass it otherwise. A
    subclass of ``UserWarning``, public as ``skseq.exceptions.InputHintWarning``.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from skseq import IOHMMClassifier
    >>> from skseq.exceptions import InputHintWarning
    >>> rng = np.random.RandomState(0)
    >>> X = [rng.normal(size=(40, 1)) for _ in range(20)]
    >>> y = [0, 1] * 10
    >>> clf = IOHMMClassifier(features="raw", random_state=0).fit(X, y)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", InputHintWarning)
    ...     try:
    ...         clf.predict([x[:3] for x in X])
    ...     except InputHintWarning as hint:
    ...         print("much shorter" in str(hint))
    True
    """


# Predicting on sequences whose median length is this many times shorter than
# the training ones' warns.
_SHORT_FACTOR = 4


def check_sequences(X, *, name="X", reading=NUMBERS):
    """Validate a collection of sequences and pack it.

    Parameters
    ----------
    X : array-like or list of array-like
        3-D NaN-padded array, list of per-sequence arrays, or 2-D array of one-step
        sequences (see the module docstring).
    name : str, default="X"
        Name used in error messages.
    reading : Reading, default=NUMBERS
        Whether steps of symbols are kept (as an object array: the packed data
        is then of dtype object, its missing values NaN) and missing values
        allowed inside a sequence; by default neither, and the steps are
        float64.

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
        data, lengths = _packed_from_list(items, name, reading)
    else:
        form, data, lengths = _packed_from_array(_as_float(X, name, None, reading),
                                                 name)
    if data.shape[1] == 0:
        raise ValueError(
            f"{name}: 0 feature(s) (shape={data.shape}) while a minimum of 1 is "
            "required."
        )
    offsets = np.zeros(lengths.shape[0] + 1, dtype=np.intp)
    np.cumsum(lengths, out=offsets[1:])
    seqs = Sequences(data=data, offsets=offsets, form=form)
    _check_values(seqs, name, reading.allow_nan)
    return seqs


def _packed_from_array(arr, name):
    """``(form, data, lengths)`` of a float64 array: a 3-D padded array or a 2-D
    table of one-step sequences; any other shape is refused, naming the forms."""
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
    if arr.ndim == 2:
        return "rows", np.ascontiguousarray(arr), np.ones(arr.shape[0], np.intp)
    if arr.shape[1] == 0:
        raise ValueError(
            f"{name}: every sequence is empty (shape={arr.shape}, 0 steps)."
        )
    if arr.shape[2] == 0:
        raise ValueError(f"{name}: 0 feature(s) (shape={arr.shape}).")
    data, lengths = _packed_from_padded(arr, name)
    return "padded", data, lengths


def _check_values(seqs, name, allow_nan=False):
    """ValueError naming the first infinite value inside a sequence, or the
    first missing one unless ``allow_nan``; steps of symbols (an object
    array) are checked for missing values only."""
    data = seqs.data
    if data.dtype == object:
        bad = np.zeros(data.shape, bool) if allow_nan else missing_values(data)
    else:
        bad = ~np.isfinite(data)
        if allow_nan:
            bad &= ~np.isnan(data)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        seq, step = seqs.locate(row)
        value = data[row, col]
        what = ("a missing value" if data.dtype == object else "NaN"
                if np.isnan(value) else ("inf" if value > 0 else "-inf"))
        rule = ("infinite values are not allowed." if allow_nan else
                "missing values (NaN, None) are only allowed as the all-NaN "
                "trailing padding rows of a 3-D array. To fill them, start a "
                "pipeline with ForwardFill() or Stepwise(SimpleImputer()).")
        raise ValueError(
            f"{name}: sequence {seq} contains {what} at step {step} (feature {col}); "
            f"{rule}"
        )


def _user_stacklevel():
    """``stacklevel`` of the first caller outside skseq, for the caller of this
    function: a warning then points at the user's line, however deep inside
    skseq it was raised."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def _rows_hint(estimator, n_rows, n_features, array="X"):
    """What a 2-D table of ``n_rows`` rows (``array``: how to name it as an
    array) at predict time probably meant, when the model was fitted on
    longer sequences (else "")."""
    max_len = getattr(estimator, "_max_fit_length", 1)
    if max_len <= 1:
        return ""
    if estimator.n_features_in_ == 1 and n_features > 1:
        meant = (f"for {n_rows} univariate series of {n_features} steps pass "
                 f"{array}[:, :, None] (or skseq.utils.from_channels_first(X))")
    else:
        meant = f"for one sequence of {n_rows} steps pass [X]"
    return (
        f"X is a 2-D table ({n_rows} rows of {n_features} features): each row is "
        f"read as a sequence of ONE step, but this {type(estimator).__name__} was "
        f"fitted on sequences of up to {max_len} steps. {meant[0].upper()}"
        f"{meant[1:]}; if you do mean one-step sequences, pass {array}[:, None, :]."
    )


# What to pass for a 3-D array of channels first (the fit's warning and the
# predict's refusal alike).
_CHANNELS_FIRST = ("If it is (n_sequences, n_channels, n_steps), channels first, "
                   "pass skseq.utils.from_channels_first(X) (or "
                   "X.transpose(0, 2, 1)).")


def _channels_hint(X, seqs, estimator):
    """At predict: a 3-D array of the wrong number of features whose second
    axis has the model's, probably channels first (else "")."""
    if seqs.form != "padded":
        return ""
    shape = np.shape(X)
    if shape[1] != estimator.n_features_in_ or shape[2] == estimator.n_features_in_:
        return ""
    return (f"X is a 3-D array of shape {shape}, read as (n_sequences, max_len, "
            f"n_features); i{_CHANNELS_FIRST[1:]}")


# The arrays (and frames) skseq's transformers returned, by id, while they
# live: in skseq's layout by construction, so that the steps after a
# transformer in a pipeline do not read hundreds of features on a few steps
# as a channels-first array, and warn at every fit.
_LAID_OUT = weakref.WeakValueDictionary()


def mark_laid_out(X):
    """Record that X, an output of a skseq transformer, is in skseq's layout:
    fit gives no layout hint on it. Lists (which never get one) pass as
    they are."""
    try:
        _LAID_OUT[id(X)] = X
    except TypeError:  # a list cannot be weakly referenced
        pass
    return X


# A 2-D table (or 3-D array) is suspected to hold series in another layout only
# from this many columns (time steps) on.
_SERIES_MIN_STEPS = 8


def _as_array(X):
    """How to write X as an array in a hint that indexes it (``X[:, None, :]``):
    a list through NumPy, a DataFrame (pandas, polars) through ``to_numpy()``."""
    if isinstance(X, (list, tuple)):
        return "np.asarray(X)"
    return "X.to_numpy()" if hasattr(X, "to_numpy") else "X"


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
    symbols = seqs.data.dtype == object
    if seqs.form == "rows" and n_features >= _SERIES_MIN_STEPS:
        if isinstance(X, (list, tuple)):
            return (f"X is a list of {n_seq} equal-length lists of {n_features} "
                    f"{'values' if symbols else 'numbers'}, {read}. For "
                    "univariate series pass a list of arrays, [np.asarray(s) for "
                    "s in X]; for one-step rows pass np.asarray(X)[:, None, :].")
        if symbols:  # no correlation between the columns of symbols
            return ""
        data = seqs.data
        a = data[:, :-1] - data[:, :-1].mean(axis=0)
        b = data[:, 1:] - data[:, 1:].mean(axis=0)
        norms = np.sqrt((a * a).sum(axis=0) * (b * b).sum(axis=0))
        varying = norms > 0
        moves_together = n_seq > 2 and varying.any() and np.mean(
            (a * b).sum(axis=0)[varying] / norms[varying]) >= 0.5
        if n_features > n_seq or moves_together:
            arr = _as_array(X)
            keep = (" (or, to keep the column names, silence this warning: "
                    "warnings.filterwarnings('ignore', category=skseq.exceptions."
                    "InputHintWarning))" if arr == "X.to_numpy()" else "")
            return (f"X is a 2-D table of {n_seq} rows and {n_features} columns, "
                    f"{read}, but its columns look like the steps of series. For "
                    f"{n_seq} univariate series of {n_features} steps pass "
                    f"skseq.utils.from_channels_first(X) (or {arr}[:, :, None]); "
                    f"for one-step rows (and no warning) pass {arr}[:, None, :]"
                    f"{keep}.")
    if seqs.form == "padded":
        shape = np.shape(X)
        if 1 < shape[1] < shape[2] and shape[2] >= _SERIES_MIN_STEPS:
            return (f"X is a 3-D array of shape {shape}, read as (n_sequences, "
                    f"max_len, n_features): {shape[0]} sequences of {shape[1]} "
                    f"steps with {shape[2]} features. {_CHANNELS_FIRST}")
    return ""


def validate_sequences(estimator, X, *, reset, record_lengths=True,
                       symbols=False, allow_nan=False):
    """:func:`check_sequences` plus the estimator's feature bookkeeping.

    Steps of symbols are refused with advice naming the estimator, unless
    ``symbols`` keeps them (as an object array); missing values inside a
    sequence are refused unless ``allow_nan`` (:class:`Reading`).

    ``reset=True`` (fit) records ``n_features_in_`` (and ``feature_names_in_`` for
    a DataFrame, or a list of DataFrames sharing their column names) and,
    privately, the training lengths (:func:`record_fit_lengths`; a fit that
    leaves out sequences passes ``record_lengths=False`` and records those it
    reads itself); ``reset=False`` (predict) checks X against them. A model
    fitted on sequences longer than one step that receives a 2-D table
    (one-step sequences) warns with a ``UserWarning``
    (:class:`InputHintWarning`) saying how it reads it and how to pass one
    sequence: the table was most likely one sequence, or univariate series,
    in the wrong form.
    """
    reading = Reading(symbols=symbols, allow_nan=allow_nan,
                      hint=encode_hint(type(estimator).__name__))
    seqs = check_sequences(X, reading=reading)
    validate_data(estimator, names_source(estimator, X, reset=reset), reset=reset,
                  skip_check_array=True, ensure_2d=False)
    if reset:
        hint = "" if _LAID_OUT.get(id(X)) is X else _layout_hint(X, seqs)
        if hint:
            warnings.warn(hint, InputHintWarning, stacklevel=_user_stacklevel())
        estimator.n_features_in_ = seqs.n_features
        if record_lengths:
            record_fit_lengths(estimator, seqs.lengths)
        return seqs
    if seqs.form == "rows":
        check_rows(estimator, (seqs.n_sequences, seqs.n_features), _as_array(X))
        return seqs
    hint = _channels_hint(X, seqs, estimator)
    _check_n_features(estimator, seqs.n_features, hint)
    if not hint:
        hint = _short_hint(seqs, estimator)
    if hint:
        warnings.warn(hint, InputHintWarning, stacklevel=_user_stacklevel())
    return seqs


def record_fit_lengths(estimator, lengths, sources=None):
    """Record, privately, the training lengths the predict-time hints compare
    with: the longest of the sequence ``lengths`` and their median. A fit that
    leaves out sequences of weight 0 records those it reads, so that a
    sequence it does not read changes no warning. With ``sources`` (the
    source sequence of each, numbered from 0: prefixes cut from whole
    sequences) the median is that of each source's shortest sequence, the
    shortest the model was trained to answer from."""
    estimator._max_fit_length = int(lengths.max())
    if sources is not None:
        shortest = np.full(int(sources.max()) + 1, lengths.max())
        np.minimum.at(shortest, sources, lengths)
        lengths = shortest
    estimator._median_fit_length = float(np.median(lengths))


def check_rows(estimator, shape, array="X"):
    """At predict, the check and the warning of a 2-D table of one-step rows
    of ``shape`` (:func:`validate_sequences`), from its shape alone: a Dask
    array's, once for all its chunks. No warning inside :func:`quiet_rows`."""
    hint = _rows_hint(estimator, *shape, array)
    _check_n_features(estimator, shape[1], hint)
    if hint and not _QUIET_ROWS.get():
        warnings.warn(hint, InputHintWarning, stacklevel=_user_stacklevel())


# Set (per thread, unlike a warnings filter) while a chunk of a Dask collection
# other than its first is predicted on: the first chunk's warning of one-step
# rows stands for all of them.
_QUIET_ROWS = contextvars.ContextVar("skseq_quiet_rows", default=False)


@contextmanager
def quiet_rows(quiet=True):
    """Within it, a table of one-step rows is checked but not warned of."""
    token = _QUIET_ROWS.set(quiet)
    try:
        yield
    finally:
        _QUIET_ROWS.reset(token)


# scikit-learn's warnings about the feature names of X against the fit's
_NAMES_WARNINGS = (
    r"X has feature names, but \w+ was fitted without feature names",
    r"X does not have valid feature names, but \w+ was fitted with feature names",
)


@contextmanager
def quiet_repeats():
    """Within it, this thread's warnings about X are ignored: the hints of
    :func:`validate_sequences` (:class:`InputHintWarning`) and scikit-learn's
    on feature names.

    For the estimators a composite estimator passes its own X to, once it has
    checked X itself: they were fitted on the same X, so each of them would
    repeat the composite's warning under its own name. A warnings filter, not
    a context variable, as the only way to reach scikit-learn's warnings; one
    that applies in the calling thread only (other threads' warnings pass), so
    each worker of a parallel run enters it itself.
    """
    with ignoring((InputHintWarning, ""),
                  *((UserWarning, message) for message in _NAMES_WARNINGS)):
        yield


def _check_n_features(estimator, n_features, hint):
    if n_features != estimator.n_features_in_:
        raise ValueError(
            f"X has {n_features} features, but {type(estimator).__name__} is "
            f"expecting {estimator.n_features_in_} features as input."
            + (f" {hint}" if hint else "")
        )


def _short_hint(seqs, estimator):
    """A warning for a model asked to predict on sequences much shorter than
    those it was fitted on (what it learned may need steps they lack). One-step
    sequences passed as such are a deliberate table (see ``_rows_hint``). A
    model of step-level targets predicts each step from the steps up to it,
    the same on a prefix as on the whole sequence: prefixes are its online
    use, and get none."""
    fitted = getattr(estimator, "_median_fit_length", None)
    median = float(np.median(seqs.lengths))
    if (fitted is None or not hasattr(estimator, "predict")
            or getattr(estimator, "step_level_", False)
            or seqs.lengths.max() == 1 or median * _SHORT_FACTOR >= fitted):
        return ""
    return (f"X's sequences are much shorter than the training ones (median "
            f"length {median:g} steps against {fitted:g} at fit): the model may "
            "rely on steps these sequences do not reach, and predict worse. Fit "
            "on sequences of the lengths it will see, or predict on whole ones.")


