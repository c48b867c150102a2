"""``alpha="auto"``: the L2 penalty chosen from the data inside ``fit``.

The penalty a model needs depends on how many sequences it learns from: a
prior that is right for 20,000 sequences lets the output networks memorise
20 (training accuracy 1.0, test accuracy well below MiniRocket's on small
archive sets), and one that is right for 20 throws away what 20,000 say. So
the penalty is chosen as ``RidgeClassifierCV`` chooses its own, on the
whole-sequence read-out: the output networks' inputs at the supervised steps,
read by one linear network, over a grid of penalties, by the exact
leave-one-out error of ridge regression, which one eigendecomposition gives
for every penalty at once (a residual over one minus its leverage: Allen's
1974 PRESS identity).

Ridge regression's penalty ``lam`` becomes the prior precision of the model's
output networks (against the summed log-likelihood, as ``alpha`` is) through
their log-likelihood's curvature:

- real targets (Gaussian outputs, standardized targets): the log-likelihood
  is the squared error over 2 sigma^2, so ``alpha = lam / sigma^2`` with
  sigma^2 the noise variance at ``lam``: the residuals' weighted mean square
  times ``n / (n - dof)``, ``n`` the rows and ``dof`` the fit's degrees of
  freedom, ``sum d^2 / (d^2 + lam)`` plus one for the intercept (Hastie,
  Tibshirani & Friedman 2009, section 3.4.1). The residuals' own variance
  is near 0 where the ridge nearly interpolates (as many components as
  sequences, on small sets), and made ``alpha`` explode (1e5-1e6 on 20
  sequences, whose fits then predicted the mean);
- classes: ridge on +-1 class indicators (``RidgeClassifierCV``'s targets).
  The log-loss of a logit ``eta`` with probability ``p`` has curvature
  ``c = p (1 - p)``; near ``p = 1/2`` it is, to second order, the squared
  error of ``eta / 2`` against those indicators, so the same shrinkage needs
  ``alpha = 2 c lam`` = ``lam / 2``. Where the read-out settles, ``p`` is
  far from 1/2 and ``c`` smaller: it is measured there, as the weighted mean
  of ``p_k (1 - p_k)`` over rows and classes of a logistic regression fitted
  at ``lam / 2`` (on PLAID, 11 classes, ``lam / 2`` itself gave a mean test
  accuracy of 0.927 over 3 seeds, the measured curvature 0.941).

Rows are weighted by their sequence's weight, so a weight equals a repeated
sequence; a class weight multiplies it but counts no copies (a sample weight of
2 and a class weight of 0.5 are two copies of weight 0.5, as repeating the
sequence gives).
"""

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .._data.shape import row_keys
from .._data.thread_warnings import ignoring

# The candidates (of the ridge penalty lam), strongest first.
LAMBDAS = np.logspace(4, -3, 29)
# The largest penalty alpha="auto" can choose (for checks made before it).
MAX_ALPHA = float(LAMBDAS[0])
# The penalty of models that read raw inputs, where a read-out of one step's
# input says nothing of the state networks: near-deterministic transitions
# need the weak prior.
RAW_ALPHA = 1e-2


def _canonical(X, y, weight, *more):
    """Rows in an order of their own (by a fixed random projection, then
    weight and target), so that the choice does not depend on the order of
    the sequences, not even through rounding or a solver's tolerance (arrays
    in ``more``, one entry per row, follow the rows)."""
    key = row_keys(X)  # each row's key from its values alone
    columns = y.reshape(y.shape[0], -1).T
    order = np.lexsort((*columns[::-1], weight, key))
    return (X[order], y[order], weight[order], *(m[order] for m in more))


def _best(errors):
    """The strongest candidate whose error is the least, up to rounding."""
    return int(np.flatnonzero(errors <= errors.min() * (1 + 1e-9))[0])


def ridge_loo(X, Y, weight, copy_weight=None):
    """Leave-one-out squared error of ridge regression of ``Y`` on ``X``
    (with an unpenalised intercept) for every penalty in ``LAMBDAS``, a row of
    integer weight w counting as w copies (so that a weight equals
    repetition), and the weighted residual variance of the fit on all rows.
    ``copy_weight`` as :func:`loo_errors` takes it."""
    return loo_errors(*_centred_svd(X, Y, weight), weight, copy_weight=copy_weight)


def _centred_svd(X, Y, weight):
    """The weighted, centred rows' thin SVD ``U, d2`` (as :func:`loo_errors`
    takes it) and the weighted, centred targets."""
    w = weight / weight.sum()
    s = np.sqrt(weight)[:, None]
    Xc, Yc = (X - w @ X) * s, (Y - w @ Y) * s
    # Xc = U diag(d) V^T from the Gram matrix (rows >> columns here): the hat
    # matrix of penalty lam is U diag(d^2 / (d^2 + lam)) U^T, plus the
    # intercept's leverage w_i.
    d2, V = np.linalg.eigh(Xc.T @ Xc)
    keep = d2 > 1e-10 * max(d2.max(), 1e-300)
    d2, V = d2[keep], V[:, keep]
    return (Xc @ V) / np.sqrt(d2), d2, Yc


def loo_errors(U, d2, Yc, weight, row_copies=None, copy_weight=None):
    """:func:`ridge_loo` from the weighted, centred rows' thin SVD ``U
    diag(sqrt(d2)) V^T`` and the weighted, centred targets ``Yc``; a row
    stands for at least ``row_copies`` copies (if given: a prefix of a
    sequence of integer weight c, whose share of it is a fraction).
    ``copy_weight``: the rows' weights that count copies, ``weight`` without
    the class weights that multiply it (default ``weight``): a row of sample
    weight 2 and class weight 3 stands for 2 copies of weight 3, as
    repeating its sequence gives."""
    w = weight / weight.sum()
    # A row of weight w_i >= 1 stands for w_i copies: each is left out in
    # turn (the others stay), with the leverage of one copy, h_ii / w_i; a
    # row of weight below 1 is left out whole; rows of weight 0 have nothing
    # to leave out.
    copies = np.flatnonzero(weight > 0)
    Uc, Yk = U[copies], Yc[copies]
    shrink = d2[:, None] / (d2[:, None] + LAMBDAS)  # (rank, n_lambdas)
    divisor = np.maximum((weight if copy_weight is None else copy_weight)[copies],
                         1.0)
    if row_copies is not None:
        divisor = np.maximum(divisor, row_copies[copies])
    # every candidate's leverages in one product, fitted values in a few
    leverage = ((Uc**2) @ shrink + w[copies, None]) / divisor[:, None]
    loo = 1.0 / np.maximum(1.0 - leverage, 1e-12)
    UtY = U.T @ Yc
    errors = np.empty(LAMBDAS.size)
    variances = np.empty(LAMBDAS.size)
    k = Yc.shape[1]
    step = max(1, min(LAMBDAS.size, 2**22 // max(Uc.shape[0] * k, 1)))
    for first in range(0, LAMBDAS.size, step):
        part = slice(first, min(first + step, LAMBDAS.size))
        size = part.stop - first
        fitted = Uc @ (shrink[:, part, None] * UtY[:, None, :]).reshape(
            UtY.shape[0], size * k)
        resid = Yk[:, None, :] - fitted.reshape(Uc.shape[0], size, k)
        errors[part] = np.einsum("il,ilk->l", loo[:, part] ** 2, resid**2)
        variances[part] = np.einsum("ilk->l", resid**2) / weight.sum() / k
    return errors, np.maximum(variances, 1e-12)


def group_loo_errors(U, d2, Yc, weight, groups, copies):
    """Leave-group-out squared error of ridge regression for every penalty in
    ``LAMBDAS``, from what :func:`loo_errors` takes: the rows of one group are
    left out together, so that rows that nearly repeat each other (the
    prefixes of one sequence) do not vouch for a weak penalty. ``copies`` as
    :func:`left_out_residuals` takes it."""
    UtY = U.T @ Yc
    errors = np.zeros(LAMBDAS.size)
    for i, lam in enumerate(LAMBDAS):
        shrink = d2 / (d2 + lam)
        resid = Yc - U @ (shrink[:, None] * UtY)
        errors[i] = float(np.sum(left_out_residuals(
            resid, U, shrink, weight, groups, copies) ** 2))
    return errors


def left_out_residuals(resid, U, shrink, weight, groups, copies):
    """The weighted, centred residuals ``resid`` of every row by the ridge
    fitted without (one copy of) its group: ``U`` the weighted, centred rows'
    left singular vectors, ``shrink`` d^2 / (d^2 + lam) of the penalty lam.

    A group standing for ``copies`` c >= 1 equal copies (in the order of the
    sorted group labels) has one copy, the fraction f = 1/c of its weight,
    left out, so that an integer weight equals repetition. Leaving it out
    moves the group's residuals to (I - f H_gg)^-1 e_g, with H = U diag(shrink)
    U^T + s s^T / sum(weight) the hat matrix with the intercept's part, s the
    rows' square-root weights (Allen's 1974 PRESS identity for blocks of rows):
    groups of one row a division each, all at once; larger groups one
    batched solve per size."""
    s = np.sqrt(weight)
    total = weight.sum()
    _, index, size = np.unique(groups, return_inverse=True, return_counts=True)
    order = np.argsort(index, kind="stable")
    first = np.concatenate([[0], np.cumsum(size)[:-1]])
    f = 1.0 / np.asarray(copies, dtype=float)
    moved = np.empty_like(resid)
    for k in np.unique(size):
        which = np.flatnonzero(size == k)
        rows = order[first[which][:, None] + np.arange(k)]  # (groups, k)
        if k == 1:
            rows = rows[:, 0]
            h = (U[rows] ** 2) @ shrink + s[rows] ** 2 / total
            moved[rows] = resid[rows] / (1.0 - f[which] * h)[:, None]
            continue
        Ug, sg = U[rows], s[rows]
        H = ((Ug * shrink) @ Ug.transpose(0, 2, 1)
             + sg[:, :, None] * sg[:, None, :] / total)
        moved[rows] = np.linalg.solve(np.eye(k) - f[which][:, None, None] * H,
                                      resid[rows])
    return moved


def choose_alpha_classes(X, y, weight, groups=None, copies=None,
                         copy_weight=None):
    """The output networks' penalty for classes ``y`` (indices) read from
    ``X`` (rows of positive ``weight``), and the leave-one-out error of every
    candidate (with ``groups``,
    the index of each row's group, and ``copies``, how many copies each group
    stands for: the leave-group-out error, :func:`group_loo_errors`;
    ``copy_weight`` as :func:`loo_errors` takes it)."""
    from sklearn.linear_model import LogisticRegression  # slow to import

    present = np.unique(y)
    if present.size < 2:
        # one class: read out with certainty, curvature 0; every candidate
        # fits the constant targets exactly (and leaving out the prefixes of
        # the one sequence that holds them would leave no rows)
        return RAW_ALPHA, np.zeros(LAMBDAS.size)
    if present.size < y.max() + 1:
        # a class absent from the rows (its sequences all weigh 0, left out of
        # the fit) is no column: its logistic probabilities would lower the
        # curvature
        y = np.searchsorted(present, y)
    if groups is None:
        copy_weight = weight if copy_weight is None else copy_weight
        X, y, weight, copy_weight = _canonical(X, y, weight, copy_weight)
    else:
        X, y, weight, groups = _canonical(X, y, weight, groups)
    Y = np.where(y[:, None] == np.arange(y.max() + 1), 1.0, -1.0)
    errors = (ridge_loo(X, Y, weight, copy_weight)[0] if groups is None else
              group_loo_errors(*_centred_svd(X, Y, weight), weight, groups, copies))
    lam = float(LAMBDAS[_best(errors)])
    # The curvature of the log-loss where the read-out settles, from the
    # logistic regression at the penalty of p = 1/2's curvature (lam / 2).
    # scikit-learn warns whenever its L-BFGS stops at max_iter, and no
    # parameter turns that off without changing the fit: the warning is
    # ignored, in this thread only (another thread's still reach the user).
    with ignoring((ConvergenceWarning, "")):
        proba = LogisticRegression(C=2.0 / lam, max_iter=200).fit(
            X, y, sample_weight=weight).predict_proba(X)
    curvature = weight @ np.mean(proba * (1.0 - proba), axis=1) / weight.sum()
    # A read-out that separates the training set has curvature near 0 there:
    # never weaker than the raw inputs' prior, lest its weights grow unbounded.
    return max(2.0 * lam * float(curvature), RAW_ALPHA), errors


def choose_alpha_gaussian(X, Y, weight):
    """The output networks' prior precision for standardized real targets
    ``Y`` read from ``X``, and the leave-one-out error of every candidate:
    the best penalty over the noise variance left at it (the module's
    docstring)."""
    X, Y, weight = _canonical(X, Y, weight)
    U, d2, Yc = _centred_svd(X, Y, weight)
    errors, variances = loo_errors(U, d2, Yc, weight)
    best = _best(errors)
    lam = LAMBDAS[best]
    # the rows as loo_errors counts them: w copies for a weight w >= 1, one
    # row for a smaller weight (so that an integer weight equals repetition)
    rows = np.maximum(weight[weight > 0], 1.0).sum()
    freedom = np.sum(d2 / (d2 + lam)) + 1.0
    noise = variances[best] * rows / max(rows - freedom, 1e-12)
    return float(lam / max(noise, 1e-12)), errors


def softmax_readout(X, y, weight, alpha, n_classes):
    """The multinomial logistic regression of classes ``y`` on ``X`` at
    penalty ``alpha`` (against the summed log-likelihood): its weights
    (n_features, n_classes) and intercepts (n_classes,) as softmax logits
    (all 0 for one class, whose logits would grow without bound)."""
    from sklearn.linear_model import LogisticRegression  # slow to import

    coef = np.zeros((X.shape[1], n_classes))
    intercept = np.zeros(n_classes)
    if np.unique(y).size < 2:  # one class: no read-out to start from
        return coef, intercept
    X, y, weight = _canonical(X, y, weight)
    # alpha=0 (no penalty) is scikit-learn's C=inf
    C = 1.0 / alpha if alpha > 0 else np.inf
    with ignoring((ConvergenceWarning, "")):  # as in choose_alpha_classes
        model = LogisticRegression(C=C, max_iter=300).fit(
            X, y, sample_weight=weight)
    if model.coef_.shape[0] == 1:  # two classes: one logit, of the second
        coef[:, model.classes_[1]] = model.coef_[0]
        intercept[model.classes_[1]] = model.intercept_[0]
    else:
        coef[:, model.classes_] = model.coef_.T
        intercept[model.classes_] = model.intercept_
    return coef, intercept
