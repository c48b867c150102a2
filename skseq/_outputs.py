"""What an IOHMM outputs: the outputs strategies of the estimators.

An estimator holds one strategy, chosen by its kind (``IOHMMClassifier``,
``IOHMMRegressor``) or by ``task`` (``HierarchicalIOHMM``). A strategy turns y into
the encoded targets of the output family (learning the encoding in ``fit``),
chooses that family (:meth:`make_emission`: the factory of output
distributions), and turns the filtered state distributions into predictions and
scores. Its methods take the estimator (whose fitted attributes hold the
encoding) and sequences validated once by the estimator's public method.

Predictions mix the per-state outputs with the filtered state distribution
zeta_t = P(x_t | u_1..t): P(y_t | u_1..t) = sum_i zeta_t,i P(y_t | x_t = i, u_t)
(Bengio & Frasconi 1996, eq. 10).
"""

import numbers
from dataclasses import replace

import numpy as np
from scipy.special import logsumexp
from sklearn.metrics import accuracy_score, r2_score
from sklearn.utils._param_validation import Interval, StrOptions

from ._emissions import GaussianEmission, SoftmaxEmission
from ._fit.penalty import choose_alpha_classes, choose_alpha_gaussian, softmax_readout
from ._layers import LAYERS
from ._validation import Targets, check_targets


def _layer(estimator, n_features):
    """The input layer of the output networks, from ``emission``."""
    return LAYERS[estimator.emission](n_features, estimator.n_hidden)


def readout_rows(seqs, readout_start):
    """Packed rows averaged by the mean read-out, and each sequence's count.

    Sequence s of length T contributes its steps t >= floor(readout_start *
    (T - 1)) (0-based): always at least its last step.
    """
    lengths = seqs.lengths
    first = np.floor(readout_start * (lengths - 1)).astype(np.intp)
    counts = lengths - first
    starts = seqs.offsets[:-1] + first
    # rows = concatenation of arange(starts[s], starts[s] + counts[s])
    seg = np.repeat(np.arange(seqs.n_sequences), counts)
    within = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    return starts[seg] + within, counts


class CategoricalOutputs:
    """Class labels: label encoding, softmax outputs, class probabilities, accuracy.

    The class of a sequence-level model is read off by the estimator's read-out
    (``estimator._readout()``: the last step, or the mean over the last part).
    """

    task = "classification"
    constraints: dict = {}

    def encode_targets(self, est, y, seqs, reset=True, sample_weight=None):
        """Packed targets as class indices; ``reset`` (fit) learns ``classes_``."""
        targets = check_targets(y, seqs, task="classification")
        if reset:
            classes, encoded = np.unique(targets.values, return_inverse=True)
            if classes.shape[0] < 2:
                raise ValueError(
                    f"{type(est).__name__} needs samples of at least 2 classes in "
                    "the data, but the data contains only one class: "
                    f"{classes[:1].tolist()[0]!r}."
                )
            est.classes_ = classes
        else:
            encoded = np.searchsorted(est.classes_, targets.values)
            encoded = np.minimum(encoded, len(est.classes_) - 1)
            unseen = est.classes_[encoded] != targets.values
            if np.any(unseen):
                raise ValueError(
                    f"y contains labels not seen in fit: "
                    f"{targets.values[unseen][:5].tolist()}."
                )
        return Targets(steps=targets.steps, values=encoded.astype(np.intp),
                       step_level=targets.step_level)

    def choose_alpha(self, est, U_rows, targets, weight):
        """``alpha="auto"``: the penalty of a linear read-out of the output
        networks' inputs (``skseq._fit.penalty``)."""
        return choose_alpha_classes(U_rows, targets.values, weight)

    def shared_readout(self, est, U_rows, targets, weight, alpha):
        """Output weights every state can start from: one softmax read-out of
        the output networks' inputs, ``{"coef": (n_features, n_classes),
        "intercept": (n_classes,)}``."""
        coef, intercept = softmax_readout(U_rows, targets.values, weight, alpha,
                                          len(est.classes_))
        return {"coef": coef, "intercept": intercept}

    def make_emission(self, est, n_states, n_features):
        return SoftmaxEmission(n_states, _layer(est, n_features), len(est.classes_))

    def step_proba(self, est, seqs):
        """Class probabilities at the steps the read-out uses.

        Returns the packed rows used (all steps for a step-level model, each
        sequence's last step for the last-step read-out, the averaged steps for
        the mean read-out) and P(y_t | u_1..t) there.
        """
        readout, readout_start = est._readout()
        if est.step_level_ and readout != "last":
            raise ValueError(
                f"readout={readout!r} needs a model fitted on sequence-level "
                "labels; this one was fitted on step-level labels, whose "
                "predictions are per step (use readout='last')."
            )
        if est.step_level_:
            rows = np.arange(seqs.data.shape[0])
        elif readout == "last":
            rows = seqs.last_steps
        else:
            rows = readout_rows(seqs, readout_start)[0]
        model = est._fitted_model()
        U, U_rows = est._inputs(seqs, rows)
        zeta = est._filtered(seqs, U, model)
        per_state = model.emission.predict_proba(model.theta_e, U_rows)
        proba = np.einsum("ti,tik->tk", zeta[rows], per_state)
        # The mixture sums to 1 up to rounding; divided by its sum, no
        # probability exceeds 1 by an ulp.
        return rows, proba / proba.sum(axis=1, keepdims=True)

    def _mean_log_proba(self, est, seqs, proba):
        """Mean read-out: per sequence, the mean over its averaged steps of
        log P(y_t | u_1..t), renormalised over the classes."""
        counts = readout_rows(seqs, est._readout()[1])[1]
        tiny = np.finfo(np.float64).tiny  # a probability that underflowed to 0
        log_p = np.log(np.maximum(proba, tiny))
        bounds = np.concatenate([[0], np.cumsum(counts)[:-1]])
        mean = np.add.reduceat(log_p, bounds, axis=0) / counts[:, None]
        return mean - logsumexp(mean, axis=1, keepdims=True)

    def predict_proba(self, est, seqs):
        _, proba = self.step_proba(est, seqs)
        if est.step_level_:
            return seqs.split(proba)
        if est._readout()[0] == "mean":
            return np.exp(self._mean_log_proba(est, seqs, proba))
        return proba

    def predict_log_proba(self, est, seqs):
        if not est.step_level_ and est._readout()[0] == "mean":
            return self._mean_log_proba(est, seqs, self.step_proba(est, seqs)[1])
        proba = self.predict_proba(est, seqs)
        with np.errstate(divide="ignore"):
            if est.step_level_:
                return [np.log(p) for p in proba]
            return np.log(proba)

    def predict(self, est, seqs):
        proba = self.predict_proba(est, seqs)
        if est.step_level_:
            return [est.classes_[np.argmax(p, axis=1)] for p in proba]
        return est.classes_[np.argmax(proba, axis=1)]

    predicted_targets = predict

    def sample(self, est, seqs, U, model, states, rng):
        """A label drawn at every step (output networks' inputs U): a list of
        per-sequence arrays."""
        labels = est.classes_[model.emission.sample(model.theta_e, U, states, rng)]
        return replace(seqs, form="list").unpack(labels)

    def score(self, est, seqs, y, targets, weight):
        """Accuracy: of sequences, or of labelled steps (each weighted by its
        sequence's weight)."""
        if not targets.step_level:
            return accuracy_score(y, self.predict(est, seqs), sample_weight=weight)
        pred = np.concatenate(self.predict(est, seqs))[targets.steps]
        return accuracy_score(targets.values.astype(pred.dtype), pred,
                              sample_weight=weight)


def _weighted_mean_std(values, weights):
    """Weighted mean and standard deviation of each column, without overflow.

    The direct formula, unless a sum or a square overflows (targets or weights
    near the float64 limits); then the same in units of the largest magnitude.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        mean = np.average(values, axis=0, weights=weights)
        scale = np.sqrt(np.average((values - mean) ** 2, axis=0, weights=weights))
    if np.isfinite(mean).all() and np.isfinite(scale).all():
        return mean, scale
    top = np.abs(values).max(axis=0)
    top[top == 0] = 1.0
    v = values / top
    w = weights / weights.max()
    mean_v = np.average(v, axis=0, weights=w)
    scale_v = np.sqrt(np.average((v - mean_v) ** 2, axis=0, weights=w))
    return mean_v * top, scale_v * top


class GaussianOutputs:
    """Real targets: standardization, Gaussian outputs, mixture predictions, R^2.

    Needs the estimator's ``covariance_type`` and ``min_covar`` parameters
    (:attr:`constraints`).
    """

    task = "regression"
    constraints: dict = {
        "covariance_type": [StrOptions({"diag", "full", "spherical", "tied"})],
        "min_covar": [Interval(numbers.Real, 0, None, closed="neither")],
    }

    def encode_targets(self, est, y, seqs, reset=True, sample_weight=None):
        """Packed float targets; ``reset`` (fit) learns the standardization and
        which outputs are constant."""
        targets = check_targets(y, seqs, task="regression")
        values = np.asarray(targets.values, dtype=np.float64)
        # Predictions drop the output axis when y had none: a 1-D y, or step-level
        # targets given as 1-D per-sequence arrays. (Not np.ndim(y): a list of
        # per-sequence arrays of different lengths is no array; a 3-D padded y
        # iterates as 2-D items.)
        if targets.step_level:
            squeeze = all(np.ndim(item) == 1 for item in y)
        else:
            squeeze = values.ndim == 1
        values = values.reshape(values.shape[0], -1)
        if reset:
            seq_of = seqs.sequence_of(targets.steps)
            w = (np.ones(seqs.n_sequences) if sample_weight is None
                 else sample_weight)[seq_of]
            mean, scale = _weighted_mean_std(values, w)
            if np.any(scale > 1e150):
                raise ValueError(
                    f"y: the targets' standard deviation ({scale.max():.3g}) is too "
                    "large, their variance overflows float64; rescale y (e.g. divide "
                    "it by a constant)."
                )
            # A constant output says nothing about the states, and a state with a
            # floor variance on it would gain ~log(1/min_covar) per step: such
            # outputs are predicted exactly and left out of the likelihood.
            constant = scale <= 1e-12 * np.maximum(np.abs(mean), 1.0)
            if constant.all():
                constant[:] = False
            scale[scale == 0] = 1.0
            scale = scale[~constant]
            if est.covariance_type == "spherical" and scale.size:
                with np.errstate(over="ignore"):
                    pooled = np.sqrt(np.mean(scale**2))
                if not np.isfinite(pooled):  # squares beyond float64
                    top = scale.max()
                    pooled = top * np.sqrt(np.mean((scale / top) ** 2))
                scale[:] = pooled
            est.n_outputs_ = values.shape[1]
            est._constant_outputs_ = constant
            est._y_mean_, est._y_scale_ = mean, scale
            est._squeeze_output_ = squeeze
        elif values.shape[1] != est.n_outputs_:
            raise ValueError(
                f"y has {values.shape[1]} outputs, but this {type(est).__name__} "
                f"was fitted with {est.n_outputs_}."
            )
        return Targets(steps=targets.steps,
                       values=values[:, ~est._constant_outputs_],
                       step_level=targets.step_level)

    def choose_alpha(self, est, U_rows, targets, weight):
        """``alpha="auto"``: the prior precision of a linear-Gaussian read-out
        of the output networks' inputs, on standardized targets, as the output
        family sees them (``skseq._fit.penalty``)."""
        return choose_alpha_gaussian(U_rows, targets.values / est._y_scale_,
                                     weight)

    def make_emission(self, est, n_states, n_features):
        modelled = ~est._constant_outputs_
        return GaussianEmission(
            n_states, _layer(est, n_features), int(modelled.sum()),
            covariance_type=est.covariance_type, min_covar=est.min_covar,
            y_mean=est._y_mean_[modelled], y_scale=est._y_scale_,
        )

    def _packed_predictions(self, est, seqs, return_std, y=None):
        """Predicted means (and standard deviations) at the predicted rows:
        every step of a step-level model, else each sequence's last step;
        shape (n_rows, n_outputs). Given observed outputs ``y``, one step
        ahead: the states' mixture at step t is P(x_t | u_1..t, y_1..t-1)."""
        model = est._fitted_model()
        rows = (np.arange(seqs.data.shape[0]) if est.step_level_
                else seqs.last_steps)
        U, U_rows = est._inputs(seqs, rows)
        if y is None:
            zeta = est._filtered(seqs, U, model)
        else:
            zeta = est._given_outputs(seqs, y, model, "predicted")
        means, cov = model.emission.moments(model.theta_e, U_rows)
        if not np.isfinite(means).all():
            bad = np.flatnonzero(~np.isfinite(means).all(axis=(1, 2)))[0]
            seq, step = seqs.locate(rows[bad])
            raise ValueError(
                f"X: the predicted mean overflows float64 at sequence {seq}, step "
                f"{step} (inputs up to {np.abs(seqs.data).max():.3g}); scale the "
                "features, e.g. with skseq.preprocessing.Stepwise(StandardScaler())."
            )
        weights = zeta[rows]
        # mixture moments (Bengio & Frasconi 1996, eq. 10): E[y] and E[y^2] - E[y]^2
        modelled = ~est._constant_outputs_
        mean = np.tile(est._y_mean_, (weights.shape[0], 1))
        mean[:, modelled] = np.einsum("ti,tik->tk", weights, means)
        if not return_std:
            return [mean]
        # The law of total variance, sum_i w_i (Sigma_i + (m_i - mean)^2), not
        # E[y^2] - E[y]^2: that difference cancels every digit when the mean is
        # large against the spread (y ~ 1e9 gave std 0 or 11.3). Each output is
        # divided by a scale >= every term's root, so that the squares neither
        # overflow nor underflow.
        var = np.diagonal(cov, axis1=1, axis2=2)  # (n_states, k)
        dev = means - mean[:, None, modelled]  # (steps, n_states, k)
        scale = np.maximum(np.abs(dev).max(axis=1), np.sqrt(var.max(axis=0)))
        total = (np.einsum("ti,tik->tk", weights, (dev / scale[:, None]) ** 2)
                 + np.einsum("ti,tik->tk", weights,
                             var / scale[:, None] / scale[:, None]))
        std = np.zeros_like(mean)
        std[:, modelled] = scale * np.sqrt(total)
        return [mean, std]

    def predict(self, est, seqs, return_std=False, y=None):
        out = self._packed_predictions(est, seqs, return_std, y)
        if est._squeeze_output_:
            out = [o[:, 0] for o in out]
        if est.step_level_:
            out = [seqs.unpack(o) for o in out]
        return (out[0], out[1]) if return_std else out[0]

    def sample(self, est, seqs, U, model, states, rng):
        """Outputs drawn at every step (output networks' inputs U), in the form
        of a step-level ``predict``."""
        values = np.tile(est._y_mean_, (seqs.data.shape[0], 1))
        values[:, ~est._constant_outputs_] = model.emission.sample(
            model.theta_e, U, states, rng)
        if est._squeeze_output_:
            values = values[:, 0]
        return seqs.unpack(values)

    def predicted_targets(self, est, seqs):
        """The model's own predictions, in a form ``score_samples`` reads as y:
        step-level predictions as a list of per-sequence arrays (padded ones
        with one output would read as multi-output sequence-level targets)."""
        mean = self._packed_predictions(est, seqs, False)[0]
        if est._squeeze_output_:
            mean = mean[:, 0]
        if est.step_level_:
            return replace(seqs, form="list").unpack(mean)
        return mean

    def score(self, est, seqs, y, targets, weight):
        """R^2 (averaged uniformly over outputs); step-level targets are scored
        on every step that has one, each weighted by its sequence's weight."""
        mean = self._packed_predictions(est, seqs, False)[0]
        if est._squeeze_output_:
            mean = mean[:, 0]
        # predictions of extreme inputs may square to inf: R^2 is then -inf
        with np.errstate(over="ignore"):
            if not targets.step_level:
                return r2_score(y, mean, sample_weight=weight)
            pred = mean.reshape(mean.shape[0], -1)[targets.steps]
            values = np.asarray(targets.values, float).reshape(len(targets.steps), -1)
            return r2_score(values, pred, sample_weight=weight)
