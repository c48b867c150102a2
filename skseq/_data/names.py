"""Feature names of X: the columns of a DataFrame, or those shared by every
DataFrame of a list of sequences.

scikit-learn records and checks the string column names of a 2-D DataFrame
(``feature_names_in_``); :func:`names_source` gives its checks an object holding
the names of a collection of sequences, so that a list of per-sequence
DataFrames is recorded and checked as one DataFrame is.
"""

import numpy as np
from sklearn.utils.validation import _check_feature_names, _get_feature_names

__all__ = ["names_source"]


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
    known = {}
    names = [_names_of(item, known) for item in items]
    named = [s for s, n in enumerate(names) if n is not None]
    if not named:
        return X
    first = named[0]
    reference = names[first]
    for s in named[1:]:
        if len(names[s]) != len(reference) or np.any(names[s] != reference):
            raise ValueError(
                f"X: sequence {s}'s column names differ from sequence {first}'s "
                f"({list(map(str, reference))}): {_difference(names[s], reference)}. "
                "Every DataFrame of X needs the same column names in the same "
                "order.")
    if len(named) == len(names):
        return items[first]
    if not reset and hasattr(estimator, "feature_names_in_"):
        _check_feature_names(estimator, items[first], reset=False)
    return X
