"""Where the default classifier's accuracy goes, on training splits only.

For one cross-validation fold (a training part and a validation part of an
official training split), the default ``IOHMMClassifier`` is compared with:

- MiniRocket + ``RidgeClassifierCV`` (Dempster, Schmidt & Webb 2021);
- the same ridge classifier reading the default's own indicators (the
  standardized prefix means at the last step, before any projection): a
  MiniRocket-like classifier on our features, which separates what the
  features hold from what the model does with them; also on 9,996 of our
  indicators (MiniRocket's count);
- one softmax read-out (what ``n_states=1`` starts from: multinomial logistic
  regression at the ``alpha="auto"`` penalty) of the output networks' inputs
  at the last step, with the training rows' decision columns cross-fitted as
  the fit makes them, reading all the inputs, only the principal components or
  only the decision columns; and variants of that read-out: the decision
  columns scaled (a weaker penalty on them), the penalty multiplied, the
  decisions cross-fitted by K folds instead of leaving each sequence out,
  class-mean directions of the standardized indicators instead of (or beside)
  the ridge decisions;
- the default with 9,996 indicators, and its fit time against the default's;
- the default with its decision columns scaled by the factor (of 0.1 to 31.6)
  whose ridge read-out of the output networks' inputs has the least
  leave-one-out error (a penalty on the decisions' weights of its own, chosen
  as ``alpha="auto"`` chooses the penalty).

Used by ``bench_shape_validation.py --diagnose``.
"""

import time
import warnings

import numpy as np
from _models import MiniRocketClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import RidgeClassifierCV
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import StandardScaler

from skseq import IOHMMClassifier
from skseq._data import check_sequences
from skseq._data.sequences import Targets
from skseq._families import supervised
from skseq._families.penalty import (
    _canonical,
    choose_alpha_classes,
    ridge_loo,
    softmax_readout,
)
from skseq.representations import ShapeFeatures

MINIROCKET_ALPHAS = np.logspace(-3, 3, 10)
N_MINIROCKET = 9996  # MiniRocket's number of features


# The decision columns' candidate scales (the current one first: it wins ties).
SCALES = 10.0 ** np.array([0.0, -1.0, -0.5, 0.5, 1.0, 1.5])


class ScaledDecisions(IOHMMClassifier):
    """The default with its decision columns scaled by the candidate whose
    ridge read-out (+-1 class codes, the output networks' inputs at the
    supervised steps) has the least leave-one-out error over the penalties."""

    def _represent(self, seqs, targets, sample_weight, weight, rng, features,
                   groups=None):
        features, rep, inputs = super()._represent(
            seqs, targets, sample_weight, weight, rng, features, groups)
        if features is None or not self._supervises(rep, targets):
            return features, rep, inputs
        n_classes = len(self.classes_)
        n_axes = 1 if n_classes == 2 else n_classes
        U, y = inputs[1], targets.values
        Y = np.where(y[:, None] == np.arange(n_classes), 1.0, -1.0)
        errors = []
        for scale in SCALES:
            scaled = U.copy()
            scaled[:, -n_axes:] *= scale
            rows = _canonical(scaled, Y, weight[seqs.sequence_of(targets.steps)])
            errors.append(ridge_loo(*rows)[0].min())
        scale = SCALES[int(np.argmin(errors))]
        self.decision_scale_ = float(scale)
        U[:, -n_axes:] *= scale
        rep.projection_[:, -n_axes:] *= scale
        rep.offset_[-n_axes:] *= scale
        return features, rep, inputs


def _fitted(model, X, y):
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    return model, time.perf_counter() - start


def _ridge_accuracy(rep, train, val, y_train, y_val):
    """``RidgeClassifierCV`` (MiniRocket's alphas) on the standardized
    indicators of a fitted representation at the last steps."""
    F = rep.indicator_means(train, train.last_steps)
    F_val = rep.indicator_means(val, val.last_steps)
    scaler = StandardScaler().fit(F)
    ridge = RidgeClassifierCV(MINIROCKET_ALPHAS).fit(scaler.transform(F), y_train)
    return float(np.mean(ridge.predict(scaler.transform(F_val)) == y_val))


def _softmax(U, y, U_val, y_val, factor=1.0):
    """Accuracy of the softmax read-out at ``factor`` times the
    ``alpha="auto"`` penalty."""
    weight = np.ones(y.size)
    alpha = choose_alpha_classes(U, y, weight)[0] * factor
    coef, intercept = softmax_readout(U, y, weight, alpha, int(y.max()) + 1)
    return float(np.mean(np.argmax(U_val @ coef + intercept, axis=1) == y_val))


def _inputs(rep, train, val, y):
    """The output networks' inputs at the last steps (training rows with
    their cross-fitted decision columns, as the fit makes them), the number
    of decision columns, and the standardized indicators (training, val)."""
    targets = Targets(steps=train.last_steps, values=y, step_level=False)
    rows, _, _, cross = supervised.read_out(rep, train, targets, np.ones(y.size))
    n_axes = cross.shape[1]
    U = rep.inputs(train, train.last_steps)[1].copy()
    U[rows, U.shape[1] - n_axes:] = cross
    U_val = rep.inputs(val, val.last_steps)[1]
    F = rep.indicator_means(train, train.last_steps)
    F_val = rep.indicator_means(val, val.last_steps)
    std = F.std(axis=0)
    varying = std > 1e-12
    scale = std[varying] * np.sqrt(varying.sum())  # as the read-out scales them
    return U, U_val, n_axes, F[:, varying] / scale, F_val[:, varying] / scale


def _ridge(X, Y, lam):
    """Ridge coefficients and intercept (unpenalised) at penalty ``lam``."""
    mean, y_mean = X.mean(axis=0), Y.mean(axis=0)
    Xc = X - mean
    U, d2 = supervised._thin_svd(Xc)
    coef = Xc.T @ (U @ ((U.T @ (Y - y_mean)) / (d2 + lam)[:, None]))
    return coef, y_mean - mean @ coef


def _kfold_decisions(Xs, Xs_val, y, k):
    """The ridge decisions (penalty by leave-one-out, as the read-out chooses
    it) cross-fitted by ``k`` stratified folds, and at the validation rows
    from the fit on all, both over the cross-fitted spread."""
    n_classes = int(y.max()) + 1
    Y = np.where(y[:, None] == np.arange(n_classes), 1.0, -1.0)
    Y = Y[:, 1:] if n_classes == 2 else Y
    ones = np.ones(y.size)
    lam = supervised.ridge_cross_fitted(Xs, Y, ones, np.arange(y.size), ones)[3]
    cross = np.empty_like(Y)
    folds = StratifiedKFold(min(k, np.bincount(y).min()), shuffle=True,
                            random_state=0)
    for fit_rows, out_rows in folds.split(Xs, y):
        coef, intercept = _ridge(Xs[fit_rows], Y[fit_rows], lam)
        cross[out_rows] = Xs[out_rows] @ coef + intercept
    coef, intercept = _ridge(Xs, Y, lam)
    spread = cross.std(axis=0)
    return cross / spread, (Xs_val @ coef + intercept) / spread


def _class_means(Xs, Xs_val, y):
    """Projections on the class-mean directions (each class's mean minus the
    overall mean), each training row's from the means without it, over
    their spread."""
    n, n_classes = y.size, int(y.max()) + 1
    counts = np.bincount(y, minlength=n_classes).astype(float)
    means = np.array([Xs[y == c].mean(axis=0) for c in range(n_classes)])
    overall = Xs.mean(axis=0)
    cross = np.empty((n, n_classes))
    for i in range(n):
        m, c = means.copy(), y[i]
        m[c] = (means[c] * counts[c] - Xs[i]) / (counts[c] - 1)
        g = (overall * n - Xs[i]) / (n - 1)
        cross[i] = (Xs[i] - g) @ (m - g).T
    spread = cross.std(axis=0) + 1e-12
    return cross / spread, ((Xs_val - overall) @ (means - overall).T) / spread


def _readouts(rep, train, val, y, y_val):
    """The one-state read-out rows (see the module's docstring)."""
    U, U_val, n_axes, Xs, Xs_val = _inputs(rep, train, val, y)
    n_pc = U.shape[1] - n_axes
    out = {"softmax, all inputs": _softmax(U, y, U_val, y_val),
           "softmax, components only": _softmax(U[:, :n_pc], y, U_val[:, :n_pc],
                                                y_val),
           "softmax, decisions only": _softmax(U[:, n_pc:], y, U_val[:, n_pc:],
                                               y_val)}
    for factor in (3.0, 10.0):
        scaled, scaled_val = U.copy(), U_val.copy()
        scaled[:, n_pc:] *= factor
        scaled_val[:, n_pc:] *= factor
        out[f"softmax, decisions x{factor:g}"] = _softmax(scaled, y, scaled_val, y_val)
    for factor in (0.1, 10.0):
        out[f"softmax, penalty x{factor:g}"] = _softmax(U, y, U_val, y_val, factor)
    for k in (5, 10):
        cross, cross_val = _kfold_decisions(Xs, Xs_val, y, k)
        out[f"softmax, {k}-fold decisions"] = _softmax(
            np.hstack([U[:, :n_pc], cross]), y,
            np.hstack([U_val[:, :n_pc], cross_val]), y_val)
    cross, cross_val = _class_means(Xs, Xs_val, y)
    out["softmax, class means for decisions"] = _softmax(
        np.hstack([U[:, :n_pc], cross]), y, np.hstack([U_val[:, :n_pc], cross_val]),
        y_val)
    out["softmax, class means beside decisions"] = _softmax(
        np.hstack([U, cross]), y, np.hstack([U_val, cross_val]), y_val)
    return out


def diagnose_fold(X, y, train, val, seed, shaped):
    """The rows' validation accuracies on one fold (``y`` class indices;
    ``shaped(shape_options, seed)`` the default with ``ShapeFeatures``
    options), the fit times of the default, MiniRocket and the default with
    9,996 indicators, and the scale the scaled default chose."""
    X_train, X_val = [X[i] for i in train], [X[i] for i in val]
    y_train, y_val = y[train], y[val]
    default, t_default = _fitted(IOHMMClassifier(random_state=seed), X_train, y_train)
    one_state = _fitted(IOHMMClassifier(n_states=1, random_state=seed), X_train,
                        y_train)[0]
    peer, t_peer = _fitted(MiniRocketClassifier(random_state=seed), X_train, y_train)
    wide, t_wide = _fitted(shaped({"n_indicators": N_MINIROCKET}, seed), X_train,
                           y_train)
    scaled = _fitted(ScaledDecisions(random_state=seed), X_train, y_train)[0]
    out = {name: float(np.mean(model.predict(X_val) == y_val)) for name, model in (
        ("default", default), ("n_states=1", one_state),
        ("MiniRocket + ridge", peer), ("default, 9,996 indicators", wide),
        ("default, decisions scaled by leave-one-out", scaled))}
    t_train, t_val = check_sequences(X_train), check_sequences(X_val)
    out["ridge on the default's indicators"] = _ridge_accuracy(
        default.representation_, t_train, t_val, y_train, y_val)
    rep = ShapeFeatures(n_indicators=N_MINIROCKET).fit(t_train,
                                                      np.random.RandomState(seed))
    out["ridge on 9,996 indicators"] = _ridge_accuracy(rep, t_train, t_val, y_train,
                                                       y_val)
    out.update(_readouts(default.representation_, t_train, t_val, y_train, y_val))
    return out, {"default": t_default, "MiniRocket + ridge": t_peer,
                 "default, 9,996 indicators": t_wide}, scaled.decision_scale_


# The threshold rows: (label, ShapeFeatures options); the first is the default.
THRESHOLD_ROWS = (
    ("default (thresholds over up to 10,000 steps, 2,688 indicators)", {}),
    ("thresholds from one series, 2,688 indicators",
     {"threshold_sample": "series"}),
    ("thresholds from one series, 5,376 indicators",
     {"threshold_sample": "series", "n_indicators": 5376}),
    ("thresholds from one series, 9,996 indicators",
     {"threshold_sample": "series", "n_indicators": N_MINIROCKET}),
)


def thresholds_fold(X, y, train, val, seed, shaped):
    """Validation accuracy and fit seconds of MiniRocket + ridge and of the
    default with each of ``THRESHOLD_ROWS``' options on one fold."""
    X_train, X_val = [X[i] for i in train], [X[i] for i in val]
    y_train, y_val = y[train], y[val]
    models = [("MiniRocket + ridge", MiniRocketClassifier(random_state=seed))]
    models += [(label, shaped(options, seed)) for label, options in THRESHOLD_ROWS]
    accuracy, seconds = {}, {}
    for label, model in models:
        model, seconds[label] = _fitted(model, X_train, y_train)
        accuracy[label] = float(np.mean(model.predict(X_val) == y_val))
    return accuracy, seconds
