"""The supervised axes of a warm start.

A fit on a summary representation with supervised axes
(``skseq._families.supervised``) gives the output networks, at the training
rows, the cross-fitted values of the read-out's columns: in-sample values fit
their own sequences perfectly, and networks trained on them learn to trust
them (on 60 sequences, a warm refit on the fit's own data lowered the
objective from 0.47 to 0.30 and test accuracy from 0.88 to 0.85; with
``alpha="auto"`` the in-sample read-out separated the training set and the
penalty fell from 45 to the floor, 1e-2).

A warm start keeps the fitted representation but reads its supervised columns
out anew from the data it is given, as a cold fit does, with their
cross-fitted values at the training rows: refitted on the data of the fit it
continues, the networks see what they saw, and ``alpha="auto"`` chooses what
the cold fit chose.
"""

import copy

import numpy as np

from .supervised import append_axes


class CountedRead:
    """A read-out callable for :func:`supervised.fit_with_axes` that keeps
    the number of columns it had appended (0 if none)."""

    def __init__(self, read):
        self.read, self.n_axes = read, 0

    def __call__(self, representation, sampled=None):
        axes = self.read(representation, sampled)
        # append_axes appends the columns only where the read-out has rows
        self.n_axes = 0 if axes is None or not axes[0].size else axes[1].shape[1]
        return axes


def mark_axes(representation, n_axes):
    """Record on a fitted representation how many trailing columns of its
    projection are supervised axes."""
    representation._n_supervised_axes = n_axes


def warm_inputs(representation, seqs, rows, read, n_jobs):
    """The representation a warm start reads, and its inputs at every step and
    at ``rows``.

    Parameters
    ----------
    representation : object
        The fitted representation (not modified).
    seqs : Sequences
        The sequences of this fit.
    rows : ndarray of int
        The packed steps of the targets.
    read : callable
        ``read(representation)``: :func:`supervised.read_out` on this
        fit's data (all its sequences), or None where the representation gets
        no axes.
    n_jobs : int or None

    Returns
    -------
    representation : object
        A copy with its supervised columns read out anew; the fitted one if
        they are the same (the fit's own data), if it has none, or if the new
        read-out gives another number of columns (the networks read a fixed
        number of inputs: its columns are then kept, in sample).
    inputs : tuple
        As the representation's ``inputs``, the columns' cross-fitted values
        at the read-out's rows.
    """
    representation, axes = warm_axes(representation, read)
    inputs = representation.inputs(seqs, rows, n_jobs)
    if axes is not None:
        inputs[1][axes[0], -axes[1].shape[1]:] = axes[1]
    return representation, inputs


def warm_axes(representation, read):
    """The representation a warm start reads and its supervised columns'
    cross-fitted ``(rows, values)`` (None if it keeps them as fitted): as
    :func:`warm_inputs`, for a fit that computes the inputs elsewhere (across
    a Dask cluster)."""
    n_axes = getattr(representation, "_n_supervised_axes", 0)
    if n_axes:
        trimmed = copy.copy(representation)  # its count of axes copied too
        trimmed.projection_ = representation.projection_[:, :-n_axes]
        trimmed.offset_ = representation.offset_[:-n_axes]
        axes = read(trimmed)
        if axes is not None and axes[0].size and axes[1].shape[1] == n_axes:
            if _same_columns(representation, axes, n_axes):  # the fit's data
                return representation, (axes[0], axes[3])
            return trimmed, append_axes(trimmed, axes)
    return representation, None


def _same_columns(representation, axes, n_axes):
    """Whether the read-out's columns are the fitted ones, bit for bit."""
    return (np.array_equal(representation.projection_[:, -n_axes:], axes[1])
            and np.array_equal(representation.offset_[-n_axes:], axes[2]))
