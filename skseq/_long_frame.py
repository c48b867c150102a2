"""Long (tidy) tables, one row per step, read into sequences:
:func:`from_long_frame`, public in :mod:`skseq.utils`."""

from collections.abc import Hashable, Iterable

import numpy as np

__all__ = ["from_long_frame"]


def from_long_frame(df, sequence_id, time=None, target=None, features=None, *,
                    return_ids=False):
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

        ``sequence_id``, ``time``, ``target`` and ``features`` may also name
        levels of the frame's index (as in ``df.set_index(["id", "t"])``), as
        pandas' ``groupby`` reads them; a column of the same name is taken
        before a level.
    target : str, default=None
        Column with the target. If it is constant within every sequence, y has one
        target per sequence (a sequence whose target is missing on every row is
        refused, named by its id); otherwise y is step-level (a list of per-step
        arrays, missing values -- NaN for numbers, None otherwise -- marking steps
        without target).
    features : str or list of str, default=None
        Feature columns; default all columns but ``sequence_id``, ``time`` and
        ``target``. Numeric ones (bool counts as 0/1) come out as float64;
        others (strings, categories) are kept as symbols, and X is then a list
        of object arrays, for a pipeline that encodes them step by step, e.g.
        ``make_pipeline(Stepwise(OneHotEncoder()), IOHMMClassifier())``.
        Missing values come out as NaN, for an imputer in the pipeline
        (:class:`~skseq.preprocessing.ForwardFill`,
        ``Stepwise(SimpleImputer())``); infinite values, complex numbers, dates
        and durations are refused.
    return_ids : bool, default=False
        Also return the sequence ids, in the order of X: to join predictions
        back to the frame, or as ``groups`` for ``GroupKFold``.

    Returns
    -------
    X : list of ndarray of shape (len_i, n_features)
        float64, or object where some feature column is not numeric.
    y : ndarray of shape (n_sequences,) or list of ndarray, or None
        None when ``target`` is None.
    ids : ndarray of shape (n_sequences,)
        Only with ``return_ids=True``: the ``sequence_id`` value of each
        sequence of X (``ids[i]`` is the id of ``X[i]``).

    Examples
    --------
    >>> import pandas as pd
    >>> from skseq.utils import from_long_frame
    >>> df = pd.DataFrame({"session": [1, 1, 2], "t": [1, 0, 0],
    ...                    "x": [0.5, 0.1, 0.9], "label": ["a", "a", "b"]})
    >>> X, y = from_long_frame(df, "session", time="t", target="label")
    >>> [x.ravel().tolist() for x in X], y.tolist()
    ([[0.1, 0.5], [0.9]], ['a', 'b'])
    >>> X, y, ids = from_long_frame(df, "session", time="t", target="label",
    ...                             return_ids=True)
    >>> ids.tolist()
    [1, 2]

    The sequence id and the time may be levels of the index:

    >>> indexed = df.set_index(["session", "t"])
    >>> X, y = from_long_frame(indexed, "session", time="t", target="label")
    >>> [x.ravel().tolist() for x in X], y.tolist()
    ([[0.1, 0.5], [0.9]], ['a', 'b'])

    A column of symbols is kept as such:

    >>> df["event"] = ["buy", "view", "view"]
    >>> X, y = from_long_frame(df, "session", time="t", target="label",
    ...                        features=["event"])
    >>> X[0]
    array([['view'],
           ['buy']], dtype=object)
    """
    pd = _pandas()
    df = _levels_as_columns(pd, df, [sequence_id, time, target],
                            [features] if isinstance(features, str) else features)
    features = _long_frame_features(pd, df, sequence_id, time, target, features)
    ids, order, same_seq, bounds = _long_frame_order(pd, df, sequence_id, time)
    X = np.split(_long_frame_values(pd, df, features, order, sequence_id), bounds)
    y = None
    if target is not None:
        y = _long_frame_targets(pd, df[target], order, same_seq, bounds, ids)
    return (X, y, ids) if return_ids else (X, y)


def _pandas():
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("from_long_frame needs pandas: pip install pandas") from exc
    return pd


def _levels_as_columns(pd, df, special, features):
    """``df`` with the index levels named by the arguments moved into columns
    (a name that is a column stays the column); unchanged if none is a level."""
    if not isinstance(df, pd.DataFrame):
        return df  # refused, with its type, by _long_frame_features
    names = special + list(features if isinstance(features, Iterable) else [])
    levels = [n for n in dict.fromkeys(n for n in names if isinstance(n, Hashable))
              if n is not None and n not in df.columns and n in df.index.names]
    return df.reset_index(level=levels) if levels else df


def _long_frame_features(pd, df, sequence_id, time, target, features):
    """Check the frame and its special columns for :func:`from_long_frame`;
    return the feature columns (numbers or symbols)."""
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
    defaulted = features is None
    if defaulted:
        features = [c for c in df.columns if c not in special]
    if not features:
        raise ValueError("No feature columns left.")
    if len(df) == 0:
        raise ValueError("The DataFrame has no rows: 0 sequences.")
    for col, what in ((sequence_id, "sequence id"), (time, "time")):
        if col is not None and df[col].isna().any():
            row = df.index[np.argmax(df[col].isna().to_numpy())]
            raise ValueError(f"Column {col!r} has a missing {what} at row "
                             f"{_plain(row)!r}.")
    bad = [c for c in features if pd.api.types.is_complex_dtype(df[c])
           or df[c].dtype.kind in "Mm"
           or isinstance(df[c].dtype, pd.DatetimeTZDtype)]
    if bad:
        hint = _features_hint(features, bad) if defaulted else ""
        raise ValueError(
            "Feature columns "
            f"{', '.join(f'{c!r} ({df[c].dtype})' for c in bad)} hold complex "
            "numbers, dates or durations, neither real numbers nor symbols; "
            f"convert them to real numbers first (dates: e.g. seconds since a "
            f"reference time){hint}."
        )
    return features


def _features_hint(features, bad):
    """How to leave columns out of the default feature columns."""
    numeric = [c for c in features if c not in bad]
    example = f", e.g. features={numeric!r}" if numeric else ""
    return (", or name the feature columns with features= (by default every "
            f"column but sequence_id, time and target is one){example}")


def _long_frame_order(pd, df, sequence_id, time):
    """The sequence ids (in order of first appearance), the row order that
    groups every sequence's steps in time order, whether each ordered row
    continues the previous one's sequence, and where the sequences start."""
    codes, ids = pd.factorize(df[sequence_id])  # numbered by first appearance
    if time is None:
        order = np.argsort(codes, kind="stable")
    else:
        try:
            ranks = pd.factorize(df[time], sort=True)[0]
        except TypeError as exc:
            raise TypeError(f"Column {time!r} cannot be sorted: {exc}") from exc
        order = np.lexsort((ranks, codes))  # stable: ties keep their row order
    same_seq = codes[order][1:] == codes[order][:-1]
    bounds = np.flatnonzero(~same_seq) + 1
    return np.asarray(ids), order, same_seq, bounds


def _long_frame_values(pd, df, features, order, sequence_id):
    """The feature values in step order: float64, or objects where a column
    is not numeric; missing values as NaN. An infinite value is refused,
    named by column, row and sequence."""
    numeric = [pd.api.types.is_numeric_dtype(df[c]) for c in features]
    if all(numeric):
        values = df[features].to_numpy(dtype=np.float64, na_value=np.nan)[order]
        infinite = np.isinf(values)
    else:
        values = np.empty((len(df), len(features)), dtype=object)
        infinite = np.zeros(values.shape, dtype=bool)
        for j, (c, number) in enumerate(zip(features, numeric, strict=True)):
            column = df[c].to_numpy(dtype=np.float64 if number else object,
                                    na_value=np.nan)
            values[:, j] = column
            infinite[:, j] = np.isinf(column) if number else False
        values, infinite = values[order], infinite[order]
    if infinite.any():
        r, c = np.argwhere(infinite)[0]
        row = order[r]
        raise ValueError(
            f"Column {features[c]!r} has {values[r, c]} at row "
            f"{_plain(df.index[row])!r} "
            f"(sequence {_plain(df[sequence_id].iloc[row])!r}); replace or drop "
            "infinite values first."
        )
    return values


def _plain(value):
    """A NumPy scalar as the Python value it holds, for messages (``1``, not
    ``np.int64(1)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _long_frame_targets(pd, column, order, same_seq, bounds, ids):
    """The target column in step order: one per sequence where it is constant
    within every sequence, else per step (missing values as NaN or None). One
    target per sequence is refused where a sequence has none, naming it."""
    if not column.isna().any():
        y = column.to_numpy()[order]
    elif (pd.api.types.is_numeric_dtype(column)
          and not pd.api.types.is_bool_dtype(column)):
        y = column.to_numpy(dtype=np.float64, na_value=np.nan)[order]
    else:
        y = column.to_numpy(dtype=object, na_value=None)[order]
    na = pd.isna(y)
    unchanged = (y[1:] == y[:-1]) | (na[1:] & na[:-1])
    if not unchanged[same_seq].all():
        return np.split(y, bounds)
    starts = np.r_[0, bounds]
    if na[starts].any():
        i = int(np.argmax(na[starts]))
        rows = column.index[order[starts[i]:np.r_[bounds, len(y)][i]]]
        raise ValueError(
            f"Column {column.name!r} has no value on any row of sequence "
            f"{_plain(ids[i])!r} (rows {[_plain(r) for r in rows[:5]]}"
            f"{', ...' if len(rows) > 5 else ''}): it holds one target per "
            "sequence (constant within each), and that sequence has none. Fill "
            "it in, drop its rows, or convert the sequences without target on "
            "their own with target=None.")
    return y[starts]
