"""Supervised axes of a summary representation: what a ridge read-out of all
its indicators says, given to the output networks.

The shape representation projects its prefix-mean indicators (a few thousand)
on their leading whitened principal components, fitted without the targets:
the components keep the indicators' variance, not necessarily their class
information. A ridge classifier on all the standardized indicators (as
MiniRocket's ``RidgeClassifierCV`` reads them, Dempster, Schmidt & Webb 2021)
keeps it. Its decision values are linear in the prefix means, so they are
appended to the projection as further columns: a linear map of a running mean
is the running mean of the mapped values, and the prefix walk computes them at
every step as it computes the components.

The output networks must not learn to trust values that fit their own
training sequences perfectly: at the training rows the columns take
cross-fitted values, each row's decision from the ridge fitted without its
group (a sequence, or all the prefixes of one training sequence), computed
exactly from one fit (the leave-group-out downdate of the hat matrix,
Allen's 1974 PRESS identity for blocks of rows). The penalty is the one
whose exact leave-one-out error is least (``penalty.ridge_loo``).

The read-out reads the indicators only, not their projection: with ``n_jobs``
it is fitted on a second thread while the projection is fitted and the inputs
are walked (its eigendecomposition is the one serial step of a large fit that
threads over sequences cannot share; :func:`fit_with_axes`).
"""

import threading

import numpy as np

from .._data.weights import WHOLE_SEQUENCES
from .penalty import LAMBDAS, _best, left_out_residuals, loo_errors

# The largest number of supervised rows the ridge is fitted on, whole groups
# drawn at random beyond it (the others read the fitted directions, out of
# its sample): its cost grows as the cube of the rows.
MAX_ROWS = 2500


def _thin_svd(Xs):
    """``U, d2`` with ``Xs = U diag(sqrt(d2)) V^T``, through the smaller Gram
    matrix, the null directions left out."""
    n, p = Xs.shape
    gram = Xs @ Xs.T if n <= p else Xs.T @ Xs
    d2, vectors = np.linalg.eigh(gram)
    keep = d2 > 1e-10 * max(d2.max(), 1e-300)
    d2, vectors = d2[keep], vectors[:, keep]
    return (vectors if n <= p else (Xs @ vectors) / np.sqrt(d2)), d2


def ridge_penalty(U, d2, SY, weight, groups, copies, copy_weight=None):
    """The ridge's penalty: the one of least leave-one-out error, one row at
    a time (the weighted, centred rows' thin SVD ``U, d2`` and targets
    ``SY``; the rest as :func:`ridge_cross_fitted` takes it). Leaving the
    prefixes of one sequence out together instead
    (``penalty.group_loo_errors``) was measured and not adopted: it lowered
    the early-classification recipe on the training halves
    (``benchmarks/bench_early_options.py ridge``)."""
    index = np.unique(groups, return_inverse=True)[1]  # copies: by sorted label
    return float(LAMBDAS[_best(loo_errors(
        U, d2, SY, weight, np.asarray(copies, dtype=float)[index],
        copy_weight)[0])])


def ridge_cross_fitted(X, Y, weight, groups, copies, copy_weight=None):
    """Weighted ridge regression of ``Y`` on ``X`` (unpenalised intercept),
    its penalty chosen by exact leave-one-out error, and the cross-fitted
    predictions at every row.

    Parameters
    ----------
    X : ndarray of shape (n_rows, n_features)
    Y : ndarray of shape (n_rows, n_targets)
    weight : ndarray of shape (n_rows,)
        Positive row weights.
    groups : ndarray of shape (n_rows,) of int
        Rows of one group are left out together.
    copies : ndarray of shape (n_groups,)
        A group of ``copies`` c >= 1 stands for c equal copies: one copy
        (the fraction 1/c of its weight) is left out, so that an integer
        weight equals repetition.
    copy_weight : ndarray of shape (n_rows,), default=None
        The rows' weights without their class weights, which count copies
        in the choice of the penalty (``penalty.loo_errors``); default
        ``weight``.

    Returns
    -------
    coef : ndarray of shape (n_features, n_targets)
    intercept : ndarray of shape (n_targets,)
    cross_fitted : ndarray of shape (n_rows, n_targets)
        Each row's prediction by the ridge fitted without (one copy of) its
        group, at the same penalty.
    lam : float
    """
    w = weight / weight.sum()
    s = np.sqrt(weight)
    mean, ymean = w @ X, w @ Y
    Xs = (X - mean) * s[:, None]
    U, d2 = _thin_svd(Xs)
    SY = (Y - ymean) * s[:, None]
    lam = ridge_penalty(U, d2, SY, weight, groups, copies, copy_weight)
    # V diag(d / (d2 + lam)) U^T SY, with V diag(d) = Xs^T U
    coef = Xs.T @ (U @ ((U.T @ SY) / (d2 + lam)[:, None]))
    fitted = X @ coef + (ymean - mean @ coef)
    shrink = d2 / (d2 + lam)
    resid = (Y - fitted) * s[:, None]  # in the weighted rows' scale
    return coef, ymean - mean @ coef, Y - left_out_residuals(
        resid, U, shrink, weight, groups, copies) / s[:, None], lam


def _weighted_std(X, weight):
    """The columns' standard deviations, rows weighted."""
    w = weight / weight.sum()
    return np.sqrt(np.maximum(w @ X**2 - (w @ X) ** 2, 0.0))


def copies_of(group_weight):
    """How many copies each group stands for: its integer weight, else 1."""
    counts = np.rint(group_weight)
    return np.where((counts == group_weight) & (counts >= 1), counts, 1.0)


def supervise(representation, seqs, targets, weight, copies=WHOLE_SEQUENCES,
              n_jobs=None):
    """Append the ridge read-out's decision columns to a fitted summary
    representation's projection, and return the rows (indices into
    ``targets.steps``) the ridge was fitted on with their cross-fitted values
    of those columns (:func:`read_out`, then :func:`append_axes`)."""
    return append_axes(representation, read_out(
        representation, seqs, targets, weight, copies, n_jobs))


def fit_with_axes(representation, seqs, rng, n_jobs, sample_weight, rows, read):
    """Fit a summary representation with the columns of ``read(representation,
    sampled)`` (:func:`read_out`'s result, or None for no columns; ``sampled``
    the projection's sample walk, or None, as the representation's ``fit``
    hands it to ``beside``) appended to its projection, and return its inputs
    at every step and at ``rows``, those of the ridge's rows with their
    cross-fitted values.

    With ``n_jobs``, the read-out runs on a thread beside the projection's fit
    and the walk of the inputs: the walk (the state networks' components, which
    the read-out does not change) starts on one thread and keeps the prefix
    means at ``rows`` until the read-out's columns come, then goes on with
    ``n_jobs`` threads (on 10,000 sequences the read-out's eigendecomposition
    of its 2,500-row Gram matrix takes ~2.4 s, a sixth of a one-thread fit).
    The values are the same bit for bit whatever ``n_jobs``; the kept prefix
    means are at most ``_PENDING_BYTES`` (~130 MB) of
    ``skseq._kernels.convolution``.
    """
    done, got, axes, walked = threading.Event(), [], [], []

    def beside(rep, sampled):
        try:
            got.append(read(rep, sampled))
        finally:
            done.set()

    def coming(block):  # the rows' projection, the columns appended (once)
        if not (block or done.is_set()):
            return None
        done.wait()
        if got and got[0] is not None and not axes:
            axes.append(append_axes(representation, got[0]))
        return representation.projection_, representation.offset_

    def then(rep):
        if rep.n_state_features >= rep.n_output_features:
            coming(True)  # the steps' components may include the columns
        walked.append(rep.inputs(seqs, rows, n_jobs, coming))

    representation.fit(seqs, rng, n_jobs, sample_weight, beside=beside, then=then)
    inputs = walked[0] if walked else representation.inputs(seqs, rows, n_jobs)
    if axes and axes[0][1].size:
        axes_rows, values = axes[0]
        inputs[1][axes_rows, -values.shape[1]:] = values
    return inputs


def append_axes(representation, axes):
    """Append :func:`read_out`'s columns to the representation's projection;
    return its rows and cross-fitted values."""
    rows, columns, offset, values = axes
    if rows.size:
        representation.projection_ = np.hstack([representation.projection_, columns])
        representation.offset_ = np.concatenate([representation.offset_, offset])
    return rows, values


def _rows_of_groups(row_groups):
    """All the rows, or beyond ``MAX_ROWS`` those of whole groups drawn at
    random (a fixed draw) while they fit in it."""
    rows = np.arange(row_groups.size)
    if rows.size <= MAX_ROWS:
        return rows
    _, group_index = np.unique(row_groups, return_inverse=True)
    order = np.random.RandomState(0).permutation(group_index.max() + 1)
    size = np.bincount(group_index)[order]
    chosen = order[np.cumsum(size) <= MAX_ROWS]
    return rows[np.isin(group_index, chosen)]


def read_out(representation, seqs, targets, weight, copies=WHOLE_SEQUENCES,
             n_jobs=None, sampled=None, means=None):
    """The ridge read-out's decision columns of a summary representation's
    indicators (it reads no projection: it may run while that is fitted):
    ``(rows, columns, offset, values)``, the rows (indices into
    ``targets.steps``) the ridge was fitted on and their cross-fitted values
    of the columns; no rows where there is nothing to tell.

    ``targets.values`` are class indices; ``weight`` the per-sequence weights
    (positive: a fit leaves out the sequences of weight 0);
    ``copies`` the weights that count copies
    (:class:`~skseq._data.weights.CopyWeights`): the sequences' sample weights
    without class weights (default: ``weight``), and with prefixes the
    sequence each was cut from (a group left out together; default: each its
    own) and those sequences' weights as numbers of copies;
    ``n_jobs`` threads walk the rows (the same values bit for bit);
    ``sampled``: the projection's sample walk, read where it holds the rows
    (the representation's ``indicator_means``); ``means(steps)``: the
    indicators' prefix means at the sorted packed steps ``steps``, computed
    elsewhere (a fit across a Dask cluster gathers them from its workers:
    ``seqs`` is then the sequences' layout alone), instead of those.
    """
    seq_of = seqs.sequence_of(targets.steps)
    copy_weight = weight if copies.weight is None else copies.weight
    if copies.parent is None:
        groups, group_weight = np.arange(seqs.n_sequences), copy_weight
    else:
        groups, group_weight = copies.parent, copies.parent_weight
    rows = _rows_of_groups(groups[seq_of])
    row_groups = groups[seq_of[rows]]
    _, g = np.unique(row_groups, return_inverse=True)
    # the classes the rows hold: a class absent from them (its sequences all
    # weigh 0, left out of the fit) would be a constant column, of no spread
    present, classes = np.unique(targets.values[rows], return_inverse=True)
    if g.size == 0 or g.max() < 2 or present.size < 2:
        # nothing to leave out, or to tell
        return rows[:0], None, None, np.zeros((0, 0))
    X = (means(targets.steps[rows]) if means is not None else
         representation.indicator_means(seqs, targets.steps[rows], n_jobs,
                                        sampled=sampled))
    row_weight = weight[seq_of[rows]]
    std = _weighted_std(X, row_weight)
    varying = np.flatnonzero(std > 1e-12)
    if varying.size == 0:
        return rows[:0], None, None, np.zeros((0, 0))
    # standardized, and scaled so that a row's variance sums to one
    scale = std[varying] * np.sqrt(varying.size)
    Xs = X[:, varying] / scale
    n_classes = present.size
    Y = np.where(classes[:, None] == np.arange(n_classes), 1.0, -1.0)
    if n_classes == 2:  # the second decision is minus the first
        Y = Y[:, 1:]
    first = np.unique(g, return_index=True)[1]
    coef, intercept, cross, _ = ridge_cross_fitted(
        Xs, Y, row_weight, g, copies_of(group_weight[row_groups][first]),
        copy_weight[seq_of[rows]])
    # columns of unit spread over the cross-fitted values
    spread = _weighted_std(cross, row_weight)
    if np.any(spread <= 1e-12):
        return rows[:0], None, None, np.zeros((0, 0))
    columns = np.zeros((X.shape[1], Y.shape[1]))
    columns[varying] = coef / scale[:, None] / spread
    return rows, columns, -intercept / spread, cross / spread
