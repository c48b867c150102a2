"""Conversions between the accepted forms of a collection of sequences, and
segments of per-step labels."""

from collections.abc import Iterable, Mapping, Set
from dataclasses import replace

import numpy as np

from ._data import Reading, check_number, check_sequences, missing_values
from ._data.targets import _is_missing, _label_array
from ._long_frame import _plain, from_long_frame  # noqa: F401 (plotting reads _plain)

__all__ = [
    "boundary_f1_score",
    "from_channels_first",
    "from_long_frame",
    "segments",
    "sequence_lengths",
    "to_channels_first",
    "to_list",
    "to_padded",
]

# What the conversions read: whatever Stepwise may (steps of symbols, missing
# values inside a sequence).
_ANY_STEPS = Reading(symbols=True, allow_nan=True)


def to_padded(X):
    """Return X as a 3-D array padded at the end with NaN rows.

    Steps may hold symbols (strings, pandas categories) and missing values
    (NaN, None), in the forms :class:`~skseq.preprocessing.Stepwise` reads.
    Padding is told from missing values as everywhere in skseq: it is the
    rows after a sequence's last step, and a step is padding only if every
    one of its features is missing and no later step of its sequence is
    observed. A sequence whose last step is missing in every feature would
    thus lose that step, and is refused: keep such sequences as a list, or
    fill the missing values first (:class:`~skseq.preprocessing.ForwardFill`).

    Parameters
    ----------
    X : array-like or list of sequences
        Any accepted form (3-D padded array, list of per-sequence arrays, 2-D array
        of one-step sequences).

    Returns
    -------
    X_padded : ndarray of shape (n_sequences, max_len, n_features)
        float64; of dtype object, padded with NaN, when some step holds a
        symbol (every sequence then comes as objects, numbers kept as they
        are, missing values as NaN).

    Raises
    ------
    ValueError
        If a sequence's last step is missing in every feature (naming the
        sequence), or X is not a valid collection of sequences.

    Examples
    --------
    >>> import numpy as np
    >>> from skseq.utils import to_padded
    >>> to_padded([np.ones((2, 1)), np.zeros((1, 1))])[:, :, 0]
    array([[ 1.,  1.],
           [ 0., nan]])

    Symbols, and a missing value that is a step, not padding:

    >>> to_padded([np.array(["a", "b"]), np.array(["c"])])[:, :, 0]
    array([['a', 'b'],
           ['c', nan]], dtype=object)
    >>> to_padded([np.array([[np.nan, 1.0], [2.0, 3.0]])])[0]
    array([[nan,  1.],
           [ 2.,  3.]])
    """
    seqs = check_sequences(X, reading=_ANY_STEPS)
    _check_last_steps(seqs)
    return _padded(seqs)


def _padded(seqs):
    """The packed sequences as a 3-D array padded at the end with NaN."""
    return replace(seqs, form="padded").unpack(seqs.data)


def _check_last_steps(seqs, name="X"):
    """Refuse a sequence whose last step is missing in every feature: a 3-D
    array would read that step as padding, and drop it."""
    ends = missing_values(seqs.data[seqs.last_steps]).all(axis=1)
    if ends.any():
        s = int(np.argmax(ends))
        raise ValueError(
            f"{name}: the last step of sequence {s} (step {seqs.lengths[s] - 1}) "
            "is missing in every feature, which a 3-D padded array reads as "
            "padding: it would be dropped. Keep such sequences as a list, or "
            "fill the missing values first (ForwardFill(), "
            "Stepwise(SimpleImputer()))."
        )


def to_list(X):
    """Return X as a list of ``(len_i, n_features)`` arrays.

    Steps may hold symbols (strings, pandas categories) and missing values
    (NaN, None), in the forms :class:`~skseq.preprocessing.Stepwise` reads; a
    3-D array's padding is its trailing rows missing in every feature (an
    all-missing row before a sequence's last observed one is a step).

    Parameters
    ----------
    X : array-like or list of sequences
        Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

    Returns
    -------
    X_list : list of ndarray
        float64 arrays; of dtype object when some step holds a symbol (every
        sequence then comes as objects, numbers kept as they are, missing
        values as NaN).

    Examples
    --------
    >>> import numpy as np
    >>> from skseq.utils import to_list
    >>> X = np.array([[[1.0], [2.0]], [[3.0], [np.nan]]])
    >>> [x.ravel().tolist() for x in to_list(X)]
    [[1.0, 2.0], [3.0]]
    >>> to_list(np.array([[["a"], [None], ["b"]], [["c"], [None], [None]]],
    ...                  dtype=object))[0].ravel()
    array(['a', nan, 'b'], dtype=object)
    """
    seqs = check_sequences(X, reading=_ANY_STEPS)
    return [x.copy() for x in seqs.split(seqs.data)]


def sequence_lengths(X):
    """Number of steps of every sequence.

    Steps may hold symbols and missing values, as for :func:`to_list`; a
    3-D array's trailing rows missing in every feature are padding.

    Parameters
    ----------
    X : array-like or list of sequences
        Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

    Returns
    -------
    lengths : ndarray of shape (n_sequences,), dtype=int

    Examples
    --------
    >>> import numpy as np
    >>> from skseq.utils import sequence_lengths
    >>> sequence_lengths([np.ones((3, 2)), np.ones((1, 2))])
    array([3, 1])
    >>> sequence_lengths([np.array(["a", "b", None]), np.array([np.nan])])
    array([3, 1])
    """
    return check_sequences(X, reading=_ANY_STEPS).lengths.astype(int)


def from_channels_first(X):
    """Convert channels-first sequences (aeon/sktime's layout) to skseq's.

    aeon and sktime hold a collection of multivariate series as a 3-D array
    ``(n_cases, n_channels, n_timepoints)`` (their "numpy3D"), or, for unequal
    lengths, as a list of ``(n_channels, n_timepoints_i)`` arrays; skseq puts
    the time axis before the channels: ``(n_sequences, max_len, n_features)``.
    Passing the former as the latter would silently swap time and features.

    Parameters
    ----------
    X : array-like of shape (n_cases, n_channels, n_timepoints) or \
            (n_cases, n_timepoints), or list of array-like
        A 3-D array; a 2-D array is a collection of univariate series, one per
        row (aeon's "numpy2D", and the UCR archive's tables); a list holds one
        ``(n_channels, n_timepoints_i)`` array per case. All-NaN time points at
        the end of a case are padding of unequal lengths.

    Returns
    -------
    X_skseq : ndarray of shape (n_cases, n_timepoints, n_channels) or list
        For array input, a float64 array padded at the end with all-NaN steps
        (:func:`to_padded`'s form); for list input, a list of
        ``(n_timepoints_i, n_channels)`` float64 arrays without padding.

    Raises
    ------
    ValueError
        If a NaN is anything but trailing padding (named by sequence, step and
        feature, as in the estimators), or X has the wrong number of dimensions.

    See Also
    --------
    to_channels_first : The reverse conversion.

    Examples
    --------
    >>> import numpy as np
    >>> from skseq.utils import from_channels_first
    >>> X = np.array([[[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]]])  # 1 case, 2 channels
    >>> from_channels_first(X)[0]
    array([[ 1., 10.],
           [ 2., 20.],
           [ 3., 30.]])
    >>> from_channels_first(np.array([[1.0, 2.0], [3.0, np.nan]]))[:, :, 0]
    array([[ 1.,  2.],
           [ 3., nan]])
    """
    if isinstance(X, (list, tuple)):
        return _list_from_channels_first(X)
    arr = np.asarray(X)
    if arr.ndim not in (2, 3):
        raise ValueError(
            f"X has shape {arr.shape}; expected (n_cases, n_channels, n_timepoints), "
            "or (n_cases, n_timepoints) for univariate series."
        )
    moved = arr[:, :, None] if arr.ndim == 2 else np.swapaxes(arr, 1, 2)
    return _padded(check_sequences(moved))


def _list_from_channels_first(X):
    """:func:`from_channels_first` of a list of ``(n_channels, n_timepoints_i)``
    (or univariate ``(n_timepoints_i,)``) cases."""
    items = []
    for i, x in enumerate(X):
        x = np.asarray(x)
        if x.ndim not in (1, 2):
            raise ValueError(
                f"X: case {i} has shape {x.shape}; expected (n_channels, "
                "n_timepoints), or (n_timepoints,) for a univariate series."
            )
        items.append(x.T if x.ndim == 2 else x)
    seqs = check_sequences(items)
    return [x.copy() for x in seqs.split(seqs.data)]


def to_channels_first(X):
    """Convert sequences to aeon/sktime's channels-first 3-D layout.

    The reverse of :func:`from_channels_first` for arrays: any form skseq
    accepts becomes ``(n_sequences, n_features, max_len)``, shorter sequences
    padded at the end of the time axis with NaN (aeon and sktime accept NaN
    there only with unequal-length support; equal lengths give no NaN).

    Parameters
    ----------
    X : array-like or list of sequences
        Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

    Returns
    -------
    X_channels_first : ndarray of shape (n_sequences, n_features, max_len)

    Examples
    --------
    >>> import numpy as np
    >>> from skseq.utils import to_channels_first
    >>> to_channels_first([np.array([[1.0, 10.0], [2.0, 20.0]])])
    array([[[ 1.,  2.],
            [10., 20.]]])
    """
    return np.ascontiguousarray(np.swapaxes(_padded(check_sequences(X)), 1, 2))


def _one_pass_read(values):
    """``values`` read into a list if it is a one-pass iterable (a generator,
    an iterator: no ``len()`` or no indexing), else as it is."""
    if (isinstance(values, Iterable) and not isinstance(values, (Set, Mapping))
            and not (hasattr(values, "__len__") and hasattr(values, "__getitem__"))):
        return list(values)
    return values


def _collection(values, name):
    """The sequences (or the labels of one) ``values`` as a collection with
    ``len()`` and indexing (:func:`_one_pass_read`); a TypeError naming the
    argument ``name`` if it holds no ordered items (a number, None, a set, a
    mapping)."""
    values = _one_pass_read(values)
    if isinstance(values, (Set, Mapping)):
        raise TypeError(f"{name} is a {type(values).__name__}, which has no "
                        "order: give the labels in a list or an array.")
    ordered = (values.ndim > 0 if isinstance(values, np.ndarray)
               else hasattr(values, "__len__") and hasattr(values, "__getitem__"))
    if not ordered:
        raise TypeError(f"{name} must hold per-step labels (an array-like or an "
                        f"iterable), got {type(values).__name__}.")
    return values


def _is_sequence(item):
    """Whether ``item`` is a sequence of labels rather than one label."""
    return np.ndim(item) > 0 or (isinstance(item, Iterable)
                                 and not isinstance(item, (str, bytes)))


def _labels_1d(labels, name):
    """One sequence's labels as a 1-D array (a list mixing strings and other
    values kept as objects, not turned into strings; pandas' nullable integers
    or booleans as the ints or bools they are, their missing steps None)."""
    try:
        labels = _label_array(_one_pass_read(labels))
    except ValueError:  # ragged: several sequences' labels
        labels = None
    if labels is None or labels.ndim != 1:
        shape = "ragged" if labels is None else f"shape {labels.shape}"
        hint = ("; for a prediction (a list per sequence) pass one item, e.g. "
                "prediction[0]" if not name.startswith("y_") else "")
        raise ValueError(f"{name} must be a 1-D array of per-step labels of one "
                         f"sequence, got {shape}{hint}.")
    return labels


def _changes(labels):
    """Whether each step's label differs from the previous step's; missing
    labels (None, NaN, NaT: unlabelled steps) are one label, never a change among
    themselves."""
    missing = _is_missing(labels)
    change = missing[1:] != missing[:-1]
    both = ~(missing[1:] | missing[:-1])
    change[both] = labels[1:][both] != labels[:-1][both]
    return change


def segments(labels):
    """Segments of constant label in one sequence of per-step labels.

    Parameters
    ----------
    labels : array-like or iterable of shape (n_steps,)
        One label per step, e.g. a sequence of
        :meth:`skseq.HybridHMMClassifier.predict` (a one-pass iterable, such
        as a generator, is read once).

    Returns
    -------
    starts : ndarray of shape (n_segments,)
        First step of every segment; ``starts[1:]`` are the boundaries (the
        steps whose label differs from the previous step's).
    stops : ndarray of shape (n_segments,)
        One past the last step of every segment.
    segment_labels : ndarray of shape (n_segments,)
        The label of every segment. Missing labels (None, NaN or NaT, which mark
        unlabelled steps in step-level targets) are one label: a run of them
        is one segment.

    Examples
    --------
    >>> from skseq.utils import segments
    >>> starts, stops, labels = segments(["a", "a", "b", "b", "b", "a"])
    >>> starts, stops, labels
    (array([0, 2, 5]), array([2, 5, 6]), array(['a', 'b', 'a'], dtype='<U1'))
    """
    labels = _labels_1d(labels, "labels")
    if labels.shape[0] == 0:
        raise ValueError("labels is empty: a sequence has at least one step.")
    starts = np.concatenate([[0], np.flatnonzero(_changes(labels)) + 1])
    stops = np.append(starts[1:], labels.shape[0])
    return starts, stops, labels[starts]


def boundary_f1_score(y_true, y_pred, *, tolerance=0):
    """F1 score of the segment boundaries of predicted step labels.

    A boundary is a step whose label differs from the previous step's (as
    in :func:`segments`: a missing label, None, NaN or NaT, is one label). A
    predicted boundary matches a true one of the same sequence at most
    ``tolerance`` steps away; each boundary matches at most one other, in
    order of time (both are sorted, so matching greedily in time order finds
    a largest matching). Precision is the fraction of predicted boundaries
    matched, recall the fraction of true ones; with no boundary on either
    side the score is 1.

    Parameters
    ----------
    y_true, y_pred : iterable of array-like of shape (len_i,)
        Per-step labels of every sequence (as given to and returned by a
        step-level classifier), or a single 1-D sequence. A one-pass iterable
        (a generator, of sequences or of one sequence's labels) is read once.
    tolerance : int, default=0
        Largest distance, in steps, between matched boundaries.

    Returns
    -------
    f1 : float

    Examples
    --------
    >>> from skseq.utils import boundary_f1_score
    >>> truth = [[0, 0, 0, 1, 1, 1, 0, 0]]
    >>> guess = [[0, 0, 1, 1, 1, 1, 1, 0]]
    >>> float(boundary_f1_score(truth, guess, tolerance=0))
    0.0
    >>> float(boundary_f1_score(truth, guess, tolerance=1))
    1.0
    """
    check_number(tolerance, "tolerance", low=0, finite=False)
    y_true, y_pred = _collection(y_true, "y_true"), _collection(y_pred, "y_pred")
    if len(y_true) == 0 or len(y_pred) == 0:
        raise ValueError(f"y_true has {len(y_true)} sequences and y_pred "
                         f"{len(y_pred)}: give at least one.")
    # the first item by iteration, not y_true[0]: a pandas Series is indexed
    # by its labels, which need not hold 0
    nested = [_is_sequence(next(iter(y))) for y in (y_true, y_pred)]
    if nested[0] != nested[1]:
        kinds = ["a collection of sequences" if n else "one sequence of labels"
                 for n in nested]
        raise ValueError(f"y_true is {kinds[0]} but y_pred is {kinds[1]}: pass "
                         "both the same way.")
    if not nested[0]:
        y_true, y_pred = [y_true], [y_pred]
    if len(y_true) != len(y_pred):
        raise ValueError(f"y_true has {len(y_true)} sequences but y_pred has "
                         f"{len(y_pred)}.")
    matched = n_true = n_pred = 0
    for s, (true, pred) in enumerate(zip(y_true, y_pred, strict=True)):
        true = _labels_1d(true, f"y_true[{s}]")
        pred = _labels_1d(pred, f"y_pred[{s}]")
        if true.shape != pred.shape or true.shape[0] == 0:
            raise ValueError(f"sequence {s} has {true.shape[0]} true labels and "
                             f"{pred.shape[0]} predicted ones (a sequence has "
                             "one label per step, at least one).")
        a = segments(true)[0][1:]
        b = segments(pred)[0][1:]
        n_true += a.shape[0]
        n_pred += b.shape[0]
        matched += _matched_boundaries(a, b, tolerance)
    if n_true == 0 and n_pred == 0:
        return 1.0
    if matched == 0:
        return 0.0
    precision, recall = matched / n_pred, matched / n_true
    return 2 * precision * recall / (precision + recall)


def _matched_boundaries(a, b, tolerance):
    """How many of the sorted boundaries ``a`` and ``b`` match, each at most
    once, at most ``tolerance`` steps apart (greedily in time order)."""
    matched = i = j = 0
    while i < a.shape[0] and j < b.shape[0]:
        if abs(a[i] - b[j]) <= tolerance:
            matched += 1
            i += 1
            j += 1
        elif a[i] < b[j]:
            i += 1
        else:
            j += 1
    return matched
