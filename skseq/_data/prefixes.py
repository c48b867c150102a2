"""Prefixes of training sequences, for classifiers trained to answer before
the end (``IOHMMClassifier(n_prefixes=...)``): their lengths, and the
prefixes packed with the sequence each comes from and its share of weight."""

import numbers

import numpy as np

from .._fit.resources import check_allocation
from .lifecycle import is_number
from .sequences import Sequences


def prefix_lengths(lengths, n_prefixes):
    """The prefix lengths of every sequence, one row per sequence,
    non-decreasing along it: ceil(j T / k) for j = 1..k (exact integers) when
    ``n_prefixes`` is an int k, else ceil(f T) for the fractions f, sorted
    (computed as ``np.ceil(f * T)``, as a user cutting ``x[:int(np.ceil(f *
    len(x)))]`` does)."""
    if isinstance(n_prefixes, numbers.Integral):
        j = np.arange(1, n_prefixes + 1)
        return -(-(lengths[:, None] * j[None, :]) // n_prefixes)
    fractions = np.sort(np.asarray(n_prefixes, dtype=np.float64))
    plen = np.ceil(fractions[None, :] * lengths[:, None]).astype(np.intp)
    return np.clip(plen, 1, lengths[:, None])


def check_prefixes(n_prefixes):
    """``n_prefixes`` as given (an int >= 1, validated by the constraints), or
    its fractions as a 1-D array, each a number (not a bool, nor a string that
    reads as one) in (0, 1]; fractions that are all 1 (``[1.0]``: the whole
    sequences, whatever their lengths) as the int 1."""
    if isinstance(n_prefixes, numbers.Integral):
        return n_prefixes
    try:
        given = np.asarray(n_prefixes, dtype=object)
        fractions = np.asarray(n_prefixes, dtype=np.float64)
    except (TypeError, ValueError):
        given = fractions = np.empty(0)
    if (fractions.ndim != 1 or fractions.size == 0
            or not all(is_number(f) for f in given)
            or not np.all((fractions > 0) & (fractions <= 1))):
        raise ValueError(
            "n_prefixes must be an int >= 1 or a non-empty 1-D list of "
            "fractions of the sequence, numbers (not bools or strings) in "
            f"(0, 1]; got {n_prefixes!r}.")
    return 1 if np.all(fractions == 1.0) else fractions


def _distinct(plen):
    """Where a row of prefix lengths (non-decreasing) takes a new value."""
    keep = np.ones_like(plen, dtype=bool)
    keep[:, 1:] = plen[:, 1:] != plen[:, :-1]
    return keep


def checked_prefix_sequences(estimator, seqs, n_prefixes, given):
    """:func:`prefix_sequences` for ``estimator``'s fit (``n_prefixes`` as
    :func:`check_prefixes` returns it, ``given`` as the user gave it),
    refused in O(1) before allocating what cannot fit in memory: the table
    of prefix lengths, then the packed prefixes (their steps and the index
    arrays that gather them)."""
    n_cols = (n_prefixes if isinstance(n_prefixes, numbers.Integral)
              else n_prefixes.size)
    check_allocation(estimator, 17 * seqs.n_sequences * n_cols,
                     f"n_prefixes={given!r} (its table of prefix lengths)",
                     "use fewer prefixes (more than a sequence's length add "
                     "no distinct prefix).")
    plen = prefix_lengths(seqs.lengths, n_prefixes)
    n_steps = int(plen[_distinct(plen)].sum())
    check_allocation(estimator, n_steps * (8 * seqs.n_features + 32),
                     f"n_prefixes={given!r} ({n_steps} steps of prefixes of "
                     f"{seqs.n_features} features)",
                     "use fewer prefixes, or shorter or fewer sequences (e.g. "
                     "skseq.preprocessing.WindowMean).")
    return prefix_sequences(seqs, n_prefixes, plen)


def prefix_sequences(seqs, n_prefixes, plen=None):
    """Prefixes of every sequence at the lengths of :func:`prefix_lengths`
    (``plen``, if computed already).

    Prefixes of equal length (short sequences) are merged. Returns the packed
    prefixes, the sequence each comes from, and its share of that sequence's
    weight (the number of prefixes of that length, over their count).
    """
    if plen is None:
        plen = prefix_lengths(seqs.lengths, n_prefixes)
    n_cols = plen.shape[1]
    keep = _distinct(plen)
    parent = np.repeat(np.arange(seqs.n_sequences), keep.sum(axis=1))
    # multiplicity of each kept length = gap to the next kept column
    idx = np.flatnonzero(keep.ravel())
    nxt = np.append(idx[1:], plen.size)
    row_end = (np.arange(seqs.n_sequences) + 1) * n_cols
    mult = np.minimum(nxt, row_end[parent]) - idx
    new_len = plen.ravel()[idx]
    offsets = np.zeros(new_len.shape[0] + 1, dtype=np.intp)
    np.cumsum(new_len, out=offsets[1:])
    seg = np.repeat(np.arange(new_len.shape[0]), new_len)
    within = np.arange(offsets[-1]) - offsets[seg]
    rows = seqs.offsets[parent][seg] + within
    prefixes = Sequences(data=np.ascontiguousarray(seqs.data[rows]),
                         offsets=offsets, form="list")
    return prefixes, parent, mult / n_cols
