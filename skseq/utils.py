"""Conversions between the accepted forms of a collection of sequences."""

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
    lengths = seqs.lengths
    out = np.full((seqs.n_sequences, int(lengths.max()), seqs.n_features), np.nan)
    out[np.arange(out.shape[1]) < lengths[:, None]] = seqs.data
    return out


def to_list(X):
    """Return X as a list of ``(len_i, n_features)`` float arrays.

    Parameters
    ----------
    X : array-like or list of sequences

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
        of first appearance.
    time : str, default=None
        Column to order the steps of a sequence by (stable sort); if None, the
        rows' order is kept.
    target : str, default=None
        Column with the target. If it is constant within every sequence, y has one
        target per sequence; otherwise y is step-level (a list of per-step arrays,
        missing values marking steps without target).
    features : list of str, default=None
        Feature columns; default all columns but ``sequence_id``, ``time`` and
        ``target``. They must be numeric (encode categories first, e.g. with
        ``Stepwise(OneHotEncoder())`` on the result).

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
    special = [c for c in (sequence_id, time, target) if c is not None]
    missing = [c for c in special if c not in df.columns]
    if missing:
        raise ValueError(f"Columns {missing} are not in the DataFrame.")
    if features is None:
        features = [c for c in df.columns if c not in special]
    if not features:
        raise ValueError("No feature columns left.")
    if df[sequence_id].isna().any():
        raise ValueError(f"Column {sequence_id!r} has missing sequence ids.")
    order = [sequence_id] if time is None else [sequence_id, time]
    codes, _ = pd.factorize(df[sequence_id])
    frame = df.assign(_skseq_code=codes).sort_values(
        ["_skseq_code"] + order[1:], kind="stable"
    )
    bad = [c for c in features if not pd.api.types.is_numeric_dtype(frame[c])]
    if bad:
        raise ValueError(
            f"Feature columns {bad} are not numeric; encode them first."
        )
    values = frame[features].to_numpy(dtype=np.float64)
    bounds = np.flatnonzero(np.diff(frame["_skseq_code"].to_numpy())) + 1
    X = np.split(values, bounds)
    if target is None:
        return X, None
    y_steps = np.split(frame[target].to_numpy(), bounds)
    if all(pd.Series(s).nunique(dropna=False) == 1 for s in y_steps):
        return X, np.array([s[0] for s in y_steps])
    return X, y_steps
