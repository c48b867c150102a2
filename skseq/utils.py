"""Conversions between the accepted forms of a collection of sequences."""

from collections.abc import Hashable
from dataclasses import replace

import numpy as np

from ._validation import check_sequences

__all__ = ["from_long_frame", "sequence_lengths", "to_list", "to_padded"]


def to_padded(X):
    """Return X as a 3-D array padded at the end with NaN rows.

    Parameters
    ----------
    X : array-like or list of sequences
        Any accepted form (3-D padded array, list of per-sequence arrays, 2-D array
        of one-step sequences).

    Returns
    -------
    X_padded : ndarray of shape (n_sequences, max_len, n_features)

    Examples
    --------
    >>> import numpy as np
    >>> from skseq.utils import to_padded
    >>> to_padded([np.ones((2, 1)), np.zeros((1, 1))])[:, :, 0]
    array([[ 1.,  1.],
           [ 0., nan]])
    """
    seqs = check_sequences(X)
    return replace(seqs, form="padded").unpack(seqs.data)


def to_list(X):
    """Return X as a list of ``(len_i, n_features)`` float arrays.

    Parameters
    ----------
    X : array-like or list of sequences
        Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

    Returns
    -------
    X_list : list of ndarray

    Examples
    --------
    >>> import numpy as np
    >>> from skseq.utils import to_list
    >>> X = np.array([[[1.0], [2.0]], [[3.0], [np.nan]]])
    >>> [x.ravel().tolist() for x in to_list(X)]
    [[1.0, 2.0], [3.0]]
    """
    seqs = check_sequences(X)
    return [
        seqs.data[a:b].copy()
        for a, b in zip(seqs.offsets[:-1], seqs.offsets[1:], strict=True)
    ]


def sequence_lengths(X):
    """Number of steps of every sequence.

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
    """
    return check_sequences(X).lengths.astype(int)


def from_long_frame(df, sequence_id, time=None, target=None, features=None):
    """Turn a long (tidy) DataFrame, one row per step, into ``(X, y)``.

    Parameters
    ----------
    df : pandas.DataFrame
        One row per step of some sequence.
    sequence_id : str
        Column identifying the sequence of each row. Sequences come out in order
        of first appearance; their rows need not be contiguous.
    time : str, default=None
        Column to order the steps of a sequence by (stable sort: steps with equal
        times keep their row order); if None, the rows' order is kept.
    target : str, default=None
        Column with the target. If it is constant within every sequence, y has one
        target per sequence; otherwise y is step-level (a list of per-step arrays,
        missing values -- NaN for numbers, None otherwise -- marking steps without
        target).
    features : str or list of str, default=None
        Feature columns; default all columns but ``sequence_id``, ``time`` and
        ``target``. They must be numeric (bool counts as 0/1; encode categories
        first, e.g. with ``Stepwise(OneHotEncoder())`` on the result) and have no
        missing or infinite values.

    Returns
    -------
    X : list of ndarray of shape (len_i, n_features)
    y : ndarray of shape (n_sequences,) or list of ndarray, or None
        None when ``target`` is None.

    Examples
    --------
    >>> import pandas as pd
    >>> from skseq.utils import from_long_frame
    >>> df = pd.DataFrame({"session": [1, 1, 2], "t": [1, 0, 0],
    ...                    "x": [0.5, 0.1, 0.9], "label": ["a", "a", "b"]})
    >>> X, y = from_long_frame(df, "session", time="t", target="label")
    >>> [x.ravel().tolist() for x in X], y.tolist()
    ([[0.1, 0.5], [0.9]], ['a', 'b'])
    """
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("from_long_frame needs pandas: pip install pandas") from exc
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}.")
    if isinstance(features, str):
        features = [features]
    for arg, col in (("sequence_id", sequence_id), ("time", time), ("target", target)):
        if not isinstance(col, Hashable):
            raise TypeError(f"{arg} must be one column name, got {col!r}.")
    special = [c for c in (sequence_id, time, target) if c is not None]
    missing = [c for c in special + list(features or []) if c not in df.columns]
    if missing:
        raise ValueError(
            f"Columns {missing} are not in the DataFrame; its columns are "
            f"{df.columns.tolist()}."
        )
    if df.columns.duplicated().any():
        raise ValueError(
            "The DataFrame has duplicate column names: "
            f"{df.columns[df.columns.duplicated()].unique().tolist()}."
        )
    if features is None:
        features = [c for c in df.columns if c not in special]
    if not features:
        raise ValueError("No feature columns left.")
    if len(df) == 0:
        raise ValueError("The DataFrame has no rows: 0 sequences.")
    for col, what in ((sequence_id, "sequence id"), (time, "time")):
        if col is not None and df[col].isna().any():
            row = df.index[np.argmax(df[col].isna().to_numpy())]
            raise ValueError(f"Column {col!r} has a missing {what} at row {row!r}.")
    bad = [
        f"{c!r} ({df[c].dtype})" for c in features
        if not pd.api.types.is_numeric_dtype(df[c])
        or pd.api.types.is_complex_dtype(df[c])
    ]
    if bad:
        raise ValueError(
            f"Feature columns {', '.join(bad)} are not numeric (real numbers); "
            "encode them first."
        )

    codes = pd.factorize(df[sequence_id])[0]  # numbered by first appearance
    if time is None:
        order = np.argsort(codes, kind="stable")
    else:
        try:
            ranks = pd.factorize(df[time], sort=True)[0]
        except TypeError as exc:
            raise TypeError(f"Column {time!r} cannot be sorted: {exc}") from exc
        order = np.lexsort((ranks, codes))  # stable: ties keep their row order
    values = df[features].to_numpy(dtype=np.float64, na_value=np.nan)[order]
    nonfinite = ~np.isfinite(values)
    if nonfinite.any():
        r, c = np.argwhere(nonfinite)[0]
        row, value = order[r], values[r, c]
        raise ValueError(
            f"Column {features[c]!r} has {'NaN' if np.isnan(value) else value} at "
            f"row {df.index[row]!r} "
            f"(sequence {df[sequence_id].iloc[row]!r}); impute or drop missing and "
            "infinite values first."
        )
    same_seq = codes[order][1:] == codes[order][:-1]
    bounds = np.flatnonzero(~same_seq) + 1
    X = np.split(values, bounds)
    if target is None:
        return X, None
    column = df[target]
    if not column.isna().any():
        y = column.to_numpy()[order]
    elif (pd.api.types.is_numeric_dtype(column)
          and not pd.api.types.is_bool_dtype(column)):
        y = column.to_numpy(dtype=np.float64, na_value=np.nan)[order]
    else:
        y = column.to_numpy(dtype=object, na_value=None)[order]
    na = pd.isna(y)
    unchanged = (y[1:] == y[:-1]) | (na[1:] & na[:-1])
    if unchanged[same_seq].all():
        return X, y[np.r_[0, bounds]]
    return X, np.split(y, bounds)
