"""Sequences held by a Dask cluster: recognising them and cutting them into
shards, each shard a collection of whole sequences in one of the local forms.

Accepted (Dask is optional: nothing here imports it unless the caller already
did, which passing a Dask collection implies):

* a Dask array, 3-D ``(n_sequences, max_len, n_features)`` padded with NaN
  rows like the NumPy form (or 2-D, one-step rows), chunked along the
  sequences; its other axes are brought into one chunk;
* a Dask bag whose items are sequences (2-D arrays): one shard per partition;
* a list of Dask delayed objects, each computing a collection of sequences
  in any local form: one shard per object.
"""

import sys

import numpy as np

__all__ = ["block_shape", "is_dask_collection", "known_columns", "shard_chunks",
           "unsupported"]


def _dask_is_collection(obj):
    dask = sys.modules.get("dask")
    if dask is None:
        return False
    from dask.base import is_dask_collection as is_collection

    return is_collection(obj)


def is_dask_collection(X, name="X"):
    """Whether X is a Dask collection of sequences (or a list of delayed); a
    list that mixes Dask collections with local data is refused (TypeError
    naming one of each), which neither a cluster nor a local fit reads."""
    if _dask_is_collection(X):
        return True
    if not isinstance(X, (list, tuple)) or not X or "dask" not in sys.modules:
        return False
    # (a class attribute first: cheap for a long list of local sequences)
    if not any(hasattr(type(item), "__dask_graph__") for item in X):
        return False
    on_dask = [_dask_is_collection(item) for item in X]
    if any(on_dask) and not all(on_dask):
        at, local = on_dask.index(True), on_dask.index(False)
        raise TypeError(
            f"{name} mixes Dask collections with local data: {name}[{at}] is of "
            f"type {type(X[at]).__name__} but {name}[{local}] of type "
            f"{type(X[local]).__name__}. A list of Dask delayed objects (each a "
            "collection of sequences) holds nothing else: wrap the local part "
            "in dask.delayed too, or compute the Dask part first.")
    return all(on_dask)


def shard_chunks(X, name="X"):
    """``(kind, chunks)``: the delayed chunks of X, one per shard, in order,
    and the kind of collection (``"array"``, ``"bag"`` or ``"delayed"``)."""
    import dask.array as da
    import dask.bag as db

    if isinstance(X, da.Array):
        if X.ndim not in (2, 3):
            raise ValueError(
                f"{name}: a Dask array of sequences is 3-D (n_sequences, max_len, "
                f"n_features) or 2-D (one-step rows); got {X.ndim}-D.")
        X = X.rechunk({axis: -1 for axis in range(1, X.ndim)})
        return "array", list(X.to_delayed().ravel())
    if isinstance(X, db.Bag):
        return "bag", list(X.map_partitions(list).to_delayed())
    if isinstance(X, (list, tuple)) and is_dask_collection(X):
        return "delayed", list(X)
    raise unsupported(X, name)


def unsupported(X, name="X"):
    """The TypeError for a Dask collection of a kind that does not hold
    sequences (a Dask DataFrame given whole, say)."""
    return TypeError(
        f"{name} is a {type(X).__name__}; on a Dask cluster the sequences come "
        "as a Dask array chunked along the sequences, a Dask bag of sequences, "
        "or a list of delayed collections of sequences.")


def known_columns(X):
    """The columns of each shard of X (a list of Dask collections) that are
    known without computing it: a Dask DataFrame's ``columns``."""
    known = []
    for item in X if isinstance(X, (list, tuple)) else []:
        # a Delayed answers any attribute with another Delayed: not names
        columns = getattr(item, "columns", None)
        if columns is not None and not _dask_is_collection(columns):
            known.append(columns)
    return known


def block_shape(block, out):
    """``out`` (a padded per-step array of a block's sequences, or per-sequence
    values) padded with NaN to the block's ``max_len``, so that the blocks of a
    Dask array of predictions line up."""
    if out.ndim < 2 or block.ndim < 3 or out.shape[1] == block.shape[1]:
        return out
    pad = np.full((out.shape[0], block.shape[1] - out.shape[1], *out.shape[2:]),
                  np.nan)
    return np.concatenate([out, pad], axis=1)
