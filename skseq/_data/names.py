"""Feature names of X: the columns of a DataFrame, or those shared by every
DataFrame of a list of sequences.

scikit-learn records and checks the string column names of a 2-D DataFrame
(``feature_names_in_``); :func:`names_source` gives its checks an object holding
the names of a collection of sequences, so that a list of per-sequence
DataFrames is recorded and checked as one DataFrame is.
"""

from collections import Counter

import numpy as np
from sklearn.utils.validation import _check_feature_names, _get_feature_names

__all__ = ["check_same_names", "distinct_texts", "names_source", "shared_names"]


def _elements(X):
    """The items of a list, tuple or 1-D object array (or Series) X, else None."""
    if isinstance(X, (list, tuple)):
        return X
    if getattr(X, "ndim", None) == 1 and getattr(X, "dtype", None) is np.dtype(object):
        return np.asarray(X, dtype=object)
    return None


def _names_of(item, known):
    """The string column names of one sequence, or None (arrays, lists).

    ``known`` caches scikit-learn's reading per type and columns (of a
    DataFrame), which is slow next to that of a short sequence.
    """
    if isinstance(item, (np.ndarray, list, tuple)):
        return None
    columns = getattr(item, "columns", None)
    try:
        key = (type(item), tuple((type(c), c) for c in columns))
        hash(key)
    except TypeError:  # no columns, or columns that are not iterable
        return _get_feature_names(item)
    if key not in known:
        known[key] = _get_feature_names(item)
    return known[key]


def _difference(names, reference):
    """How ``names`` differ from ``reference`` (of the same length)."""
    seen, given = set(reference), set(names)
    unseen = [str(n) for n in names if n not in seen]
    missing = [str(n) for n in reference if n not in given]
    if not unseen:
        return f"the same names in another order: {list(map(str, names))}"
    return f"{unseen} in place of {missing}"


def check_same_names(names, reference, s, first):
    """ValueError unless sequence ``s``'s column ``names`` are sequence
    ``first``'s, ``reference``, in the same order."""
    if len(names) != len(reference) or np.any(names != reference):
        raise ValueError(
            f"X: sequence {s}'s column names differ from sequence {first}'s "
            f"({list(map(str, reference))}): {_difference(names, reference)}. "
            "Every DataFrame of X needs the same column names in the same "
            "order.")


def shared_names(X):
    """``(names, first, complete)`` of a collection of sequences X: the string
    column names its sequences share (ValueError naming the first that
    differs), the index of the first sequence that has them, and whether
    every sequence has them; ``(None, None, False)`` if none has (X's own
    names, at 0, for a single DataFrame of one-step rows).

    Parameters
    ----------
    X : object
        The input, already checked as a collection of sequences.

    Returns
    -------
    names : ndarray of str objects or None
    first : int or None
    complete : bool
    """
    items = _elements(X)
    if items is None:
        names = _get_feature_names(X)
        return (None, None, False) if names is None else (names, 0, True)
    known = {}
    names = [_names_of(item, known) for item in items]
    named = [s for s, n in enumerate(names) if n is not None]
    if not named:
        return None, None, False
    first = named[0]
    for s in named[1:]:
        check_same_names(names[s], names[first], s, first)
    return names[first], first, len(named) == len(names)


def names_source(estimator, X, *, reset):
    """What scikit-learn's feature-name checks read for X.

    X itself, unless it is a collection of sequences some of which are
    DataFrames with string column names: every such DataFrame must have the
    same names in the same order (ValueError naming the first that differs).
    When all the sequences have them, the first is returned, whose names stand
    for X's; when only some do, X has no valid feature names (as a table whose
    columns are not all strings), and at predict those that have names must
    still match ``feature_names_in_``.

    Parameters
    ----------
    estimator : estimator instance
        The estimator fitted (``reset=True``) or predicting.
    X : object
        The input, already checked as a collection of sequences.
    reset : bool
        True at fit.

    Returns
    -------
    source : object
        The object to pass to scikit-learn's feature-name checks.
    """
    items = _elements(X)
    if items is None:
        return X
    _, first, complete = shared_names(items)
    if first is None:
        return X
    if complete:
        return items[first]
    if not reset and hasattr(estimator, "feature_names_in_"):
        _check_feature_names(estimator, items[first], reset=False)
    return X


def distinct_texts(values):
    """Texts that tell ``values`` apart, for labels and legends: each value's
    str, or its repr where another value has the same str (``1`` and ``"1"``
    show as ``1`` and ``'1'``), followed by its position where even the reprs
    coincide. Values that print differently keep their str."""
    plain = [v.item() if isinstance(v, np.generic) else v for v in values]
    texts = _distinct([str(v) for v in plain], [repr(v) for v in plain])
    return _distinct(texts, [f"{text} ({i})" for i, text in enumerate(texts)])


def _distinct(texts, fallbacks):
    """``texts``, those that occur more than once replaced by their
    ``fallbacks``."""
    counts = Counter(texts)
    return [fallback if counts[text] > 1 else text
            for text, fallback in zip(texts, fallbacks, strict=True)]
