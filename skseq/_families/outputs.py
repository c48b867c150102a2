"""What an IOHMM outputs: the output distributions, fitted sub-objects.

An estimator holds one output distribution, chosen from :data:`OUTPUTS` by its
kind (``IOHMMClassifier``: ``"categorical"``; ``IOHMMRegressor``: its ``output``
parameter) or by ``task`` (``HierarchicalIOHMM``). ``fit`` makes it anew and fits
it to the targets: ``outputs_ = OUTPUTS[name](...).fit(y, seqs, weight)`` learns
the encoding (class labels; the targets' standardization), checks the targets'
domain and then encodes targets for the output family it makes
(:meth:`make_emission`). Its predictions take arrays (a :class:`Mixture`: the
state distributions at the predicted rows, the output networks' inputs there
and the fitted parameters), never the estimator.

Predictions mix the per-state outputs with the filtered state distribution
zeta_t = P(x_t | u_1..t): P(y_t | u_1..t) = sum_i zeta_t,i P(y_t | x_t = i, u_t)
(Bengio & Frasconi 1996, eq. 10).
"""

import numbers
import warnings
from dataclasses import replace
from typing import NamedTuple

import numpy as np
from scipy.special import logsumexp
from sklearn.utils._param_validation import Interval, StrOptions

from .._data import Targets, accuracy, check_targets, quote
from .._data.moments import mean_std
from .emissions import GaussianEmission, SoftmaxEmission
from .layers import LAYERS
from .penalty import (
    choose_alpha_classes,
    choose_alpha_gaussian,
    softmax_readout,
)


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


class Mixture(NamedTuple):
    """What a prediction mixes (Bengio & Frasconi 1996, eq. 10).

    seqs : Sequences
        The validated sequences (to locate rows and unpack the results).
    rows : ndarray of int
        The packed rows predicted: every step of a step-level model, else each
        sequence's last step (or, for the mean read-out, its averaged steps).
    zeta : ndarray of shape (len(rows), n_states)
        The state distributions at those rows.
    U_rows : ndarray
        The output networks' inputs at those rows.
    model : FittedModel
        The fitted families and parameters (``skseq._fit.objective``).
    step_level : bool
        Whether the model was fitted on step-level targets.
    counts : ndarray of int or None
        Mean read-out: how many rows of each sequence are averaged (else None).
    """

    seqs: object
    rows: np.ndarray
    zeta: np.ndarray
    U_rows: np.ndarray
    model: object
    step_level: bool
    counts: np.ndarray | None = None


class Outputs:
    """An output distribution: its targets, its output family, its predictions.

    Parameters
    ----------
    emission : str
        What the output networks see (``skseq._layers.LAYERS``).
    n_hidden : int
        Hidden units of an ``"mlp"`` layer.
    owner : str
        The estimator's name, for error messages.
    **params
        The distribution's own parameters (:attr:`constraints`).
    """

    #: The kind of targets ("classification" or "regression"): which checks
    #: the targets go through and how the estimator behaves.
    task = None
    #: One sentence for users (the registry's option documentation).
    summary = ""
    #: Constraints of the estimator parameters the distribution reads.
    constraints: dict = {}

    def __init__(self, emission="input", n_hidden=1, owner="estimator", **params):
        self.emission = emission
        self.n_hidden = n_hidden
        self.owner = owner
        self.params = params

    def _layer(self, n_features):
        """The input layer of the output networks, from ``emission``."""
        return LAYERS[self.emission](n_features, self.n_hidden)

    def check(self, y, seqs, unobserved=False):
        """The targets checked for this kind of output (``Targets``, raw
        values); a distribution with a narrower domain refuses more.
        ``unobserved``: step-level targets may observe no step (outputs a
        prediction is conditioned on)."""
        return check_targets(y, seqs, task=self.task, unobserved=unobserved)

    def fit(self, y, seqs, sample_weight=None):
        """Learn the encoding of the targets ``y``; returns self."""
        self.fit_encode(y, seqs, sample_weight)
        return self

    def fitted_attributes(self):
        """The estimator's public fitted attributes this output determines."""
        return {}


class CategoricalOutputs(Outputs):
    """Class labels: label encoding, softmax outputs, class probabilities, accuracy.

    Fitted attribute ``classes_``. The class of a sequence-level model is read
    off the rows its estimator predicts (the last step, or the mean over the
    last part: :class:`Mixture`).
    """

    task = "classification"
    summary = ("class labels: one softmax output network per state; predicts "
               "class probabilities.")

    def fit_encode(self, y, seqs, sample_weight=None):
        """Learn ``classes_`` and return the targets as class indices."""
        targets = self.check(y, seqs)
        classes, encoded = np.unique(targets.values, return_inverse=True)
        if classes.shape[0] < 2:
            raise ValueError(
                f"{self.owner} needs samples of at least 2 classes in "
                "the data, but the data contains only one class: "
                f"{quote(classes[0])}."
            )
        self.classes_ = classes
        return Targets(steps=targets.steps, values=encoded.astype(np.intp),
                       step_level=targets.step_level)

    def encode(self, y, seqs, unobserved=False):
        """Packed targets as class indices (labels unseen in fit refused;
        ``unobserved`` as for :meth:`check`)."""
        targets = self.check(y, seqs, unobserved)
        try:
            encoded = np.searchsorted(self.classes_, targets.values)
        except TypeError:  # labels not comparable with the classes (dates
            # against numbers): none of them is a class
            encoded = np.zeros(targets.values.shape[0], dtype=np.intp)
            unseen = np.ones(targets.values.shape[0], dtype=bool)
        else:
            encoded = np.minimum(encoded, len(self.classes_) - 1)
            unseen = self.classes_[encoded] != targets.values
        if np.any(unseen):
            labels = list(dict.fromkeys(targets.values[unseen].tolist()))
            first = int(seqs.sequence_of(targets.steps[unseen][:1])[0])
            raise ValueError(
                f"y contains labels not seen in fit: {labels[:5]} (the first at "
                f"sequence {first}); the classes are {self.classes_.tolist()}."
            )
        return Targets(steps=targets.steps, values=encoded.astype(np.intp),
                       step_level=targets.step_level)

    def fitted_attributes(self):
        return {"classes_": self.classes_}

    def choose_alpha(self, U_rows, targets, weight, groups=None, copy_weight=None):
        """``alpha="auto"``: the penalty of a linear read-out of the output
        networks' inputs (``skseq._families.penalty``); ``groups``, each row's
        group and the copies each group stands for, leaves groups out
        together; ``copy_weight``, the rows' weights without their class
        weights, counts the copies of a row without groups."""
        return choose_alpha_classes(U_rows, targets.values, weight,
                                    *((None, None) if groups is None else groups),
                                    copy_weight=copy_weight)

    def shared_readout(self, U_rows, targets, weight, alpha):
        """Output weights every state can start from: one softmax read-out of
        the output networks' inputs, ``{"coef": (n_features, n_classes),
        "intercept": (n_classes,)}``."""
        coef, intercept = softmax_readout(U_rows, targets.values, weight, alpha,
                                          len(self.classes_))
        return {"coef": coef, "intercept": intercept}

    def make_emission(self, n_states, n_features):
        return SoftmaxEmission(n_states, self._layer(n_features), len(self.classes_))

    def step_proba(self, mix):
        """P(y_t | u_1..t) at the mixture's rows."""
        model = mix.model
        per_state = model.emission.predict_proba(model.theta_e, mix.U_rows)
        proba = np.einsum("ti,tik->tk", mix.zeta, per_state)
        # The mixture sums to 1 up to rounding; divided by its sum, no
        # probability exceeds 1 by an ulp.
        return proba / proba.sum(axis=1, keepdims=True)

    @staticmethod
    def _step_log_proba(mix, proba):
        """log ``proba`` (:meth:`step_proba`), from the per-state log-softmax
        where it is below float64's smallest normal number (0: log gave -inf)."""
        with np.errstate(divide="ignore"):
            log_p = np.log(proba)
        low = proba < np.finfo(np.float64).tiny
        rows = np.flatnonzero(low.any(axis=1))
        if rows.size:
            model = mix.model
            exact = model.emission.mixture_log_proba(
                model.theta_e, mix.U_rows[rows], mix.zeta[rows])
            log_p[rows] = np.where(low[rows] & ~np.isnan(exact), exact,
                                   log_p[rows])
        return log_p

    def _mean_log_proba(self, mix, proba, counts):
        """Mean read-out: per sequence, the mean over its averaged steps of
        log P(y_t | u_1..t), renormalised over the classes. Where it is
        -inf (all the states that give the class are below float64's range
        in the filter, or none can), log of float64's smallest normal number
        stands in: the mean stays finite."""
        log_p = self._step_log_proba(mix, proba)
        log_p[np.isneginf(log_p)] = np.log(np.finfo(np.float64).tiny)
        bounds = np.concatenate([[0], np.cumsum(counts)[:-1]])
        mean = np.add.reduceat(log_p, bounds, axis=0) / counts[:, None]
        return mean - logsumexp(mean, axis=1, keepdims=True)

    def predict_proba(self, mix):
        proba = self.step_proba(mix)
        if mix.step_level:
            return mix.seqs.split(proba)
        if mix.counts is not None:
            return np.exp(self._mean_log_proba(mix, proba, mix.counts))
        return proba

    def predict_log_proba(self, mix):
        proba = self.step_proba(mix)
        if not mix.step_level and mix.counts is not None:
            return self._mean_log_proba(mix, proba, mix.counts)
        log_p = self._step_log_proba(mix, proba)
        return mix.seqs.split(log_p) if mix.step_level else log_p

    def predict(self, mix):
        proba = self.predict_proba(mix)
        if mix.step_level:
            return [self.classes_[np.argmax(p, axis=1)] for p in proba]
        return self.classes_[np.argmax(proba, axis=1)]

    predicted_targets = predict

    def sample(self, seqs, U, model, states, rng):
        """A label drawn at every step (output networks' inputs U): a list of
        per-sequence arrays."""
        labels = self.classes_[model.emission.sample(model.theta_e, U, states, rng)]
        return replace(seqs, form="list").unpack(labels)

    def score(self, mix, y, targets, weight):
        """Accuracy: of sequences, or of labelled steps (each weighted by its
        sequence's weight)."""
        if not targets.step_level:
            return accuracy(targets.values, self.predict(mix), self.classes_,
                            weight)
        pred = np.concatenate(self.predict(mix))[targets.steps]
        return accuracy(targets.values, pred, self.classes_, weight)


def r2(values, pred, weight):
    """R^2 of ``pred`` for ``values``, averaged uniformly over outputs.

    An output's R^2 is unchanged when its targets and predictions are divided
    by one number: where the targets' largest magnitude is beyond 1e100 (or
    below 1e-100), both are divided by it first, so that the targets' sums of
    squares neither overflow (inf / inf gave nan, and an overflowing total sum
    an R^2 of 1) nor underflow. Predictions whose errors square beyond
    float64's range give an R^2 of -inf; so do those that the division
    takes beyond it (kept at the largest float64, of their sign: predictions
    near 1 of targets near 1e-300)."""
    from sklearn.metrics import r2_score  # slow to import

    values, pred = np.asarray(values, dtype=float), np.asarray(pred, dtype=float)
    v, p = values.reshape(values.shape[0], -1), pred.reshape(pred.shape[0], -1)
    scale = np.abs(v).max(axis=0)
    extreme = np.isfinite(scale) & ((scale > 1e100) | ((scale > 0) & (scale < 1e-100)))
    if extreme.any():
        scale = np.where(extreme, scale, 1.0)
        values = (v / scale).reshape(values.shape)
        largest = np.finfo(np.float64).max
        with np.errstate(over="ignore"):
            pred = np.clip(p / scale, -largest, largest).reshape(pred.shape)
    with np.errstate(over="ignore"):
        return r2_score(values, pred, sample_weight=weight)


def _pooled(scale):
    """One spread for every output: the root mean square of ``scale``
    (without overflow)."""
    with np.errstate(over="ignore"):
        pooled = np.sqrt(np.mean(scale**2))
    if not np.isfinite(pooled):  # squares beyond float64
        top = scale.max()
        pooled = top * np.sqrt(np.mean((scale / top) ** 2))
    return pooled


class RealOutputs(Outputs):
    """Real-valued targets: the regression targets' checks, the output axis,
    predictions in the form of y and R^2.

    Fitted attributes: ``n_outputs_`` and whether predictions ``squeeze_`` the
    output axis (y had none). A subclass fits its own encoding in
    ``fit_encode`` (through :meth:`_values`) and gives the mixture's moments
    (``_packed_predictions``).
    """

    task = "regression"

    def _values(self, y, seqs, unobserved=False):
        """Checked targets as a float (n_targets, n_outputs) array, and
        whether y had no output axis (``unobserved`` as for :meth:`check`)."""
        targets = self.check(y, seqs, unobserved)
        values = np.asarray(targets.values, dtype=np.float64)
        # Predictions drop the output axis when y had none: a 1-D y, or step-level
        # targets given as 1-D per-sequence arrays. (Not np.ndim(y): a list of
        # per-sequence arrays of different lengths is no array; a 3-D padded y
        # iterates as 2-D items.)
        if targets.step_level:
            squeeze = all(np.ndim(item) == 1 for item in y)
        else:
            squeeze = values.ndim == 1
        if values.ndim > 1 and values.shape[1] == 0:
            form = "per step" if targets.step_level else "per sequence"
            raise ValueError(
                f"y has 0 outputs (0 columns {form}): {self.owner} needs at "
                "least one output to fit and predict.")
        # one row per target (none when no step is observed)
        width = int(np.prod(values.shape[1:]))
        return targets, values.reshape(values.shape[0], width), squeeze

    def _encoded(self, targets, values):
        """The targets as the output family reads them."""
        return Targets(steps=targets.steps, values=values,
                       step_level=targets.step_level)

    def encode(self, y, seqs, unobserved=False):
        """The targets as the output family reads them (as many outputs as in
        fit; ``unobserved`` as for :meth:`check`)."""
        targets, values, _ = self._values(y, seqs, unobserved)
        self.check_width(values)
        return self._encoded(targets, values)

    def check_width(self, values):
        """ValueError unless the targets ``values`` (one row per target) have
        as many outputs as in fit."""
        width = int(np.prod(np.shape(values)[1:]))
        if width != self.n_outputs_:
            raise ValueError(
                f"y has {width} outputs, but this {self.owner} "
                f"was fitted with {self.n_outputs_}."
            )

    def fitted_attributes(self):
        return {"n_outputs_": self.n_outputs_}

    def predict(self, mix, return_std=False):
        out = self._packed_predictions(mix, return_std)
        if self.squeeze_:
            out = [o[:, 0] for o in out]
        if mix.step_level:
            out = [mix.seqs.unpack(o) for o in out]
        return (out[0], out[1]) if return_std else out[0]

    def _mean(self, mix):
        mean = self._packed_predictions(mix, False)[0]
        return mean[:, 0] if self.squeeze_ else mean

    def predicted_targets(self, mix):
        """The model's own predictions, in a form ``score_samples`` reads as y:
        step-level predictions as a list of per-sequence arrays (padded ones
        with one output would read as multi-output sequence-level targets)."""
        mean = self._as_targets(self._mean(mix))
        if mix.step_level:
            return replace(mix.seqs, form="list").unpack(mean)
        return mean

    def _as_targets(self, mean):
        """Predicted means as targets ``encode`` accepts (a distribution with
        a narrower domain rounds them into it)."""
        return mean

    def score(self, mix, y, targets, weight):
        """R^2 (averaged uniformly over outputs); step-level targets are scored
        on every step that has one, each weighted by its sequence's weight."""
        if not targets.step_level:
            self.check_width(y)
            return r2(y, self._mean(mix), weight)
        values = np.asarray(targets.values, float).reshape(len(targets.steps), -1)
        self.check_width(values)
        mean = self._mean(mix)
        return r2(values, mean.reshape(mean.shape[0], -1)[targets.steps], weight)

    def _check_finite_means(self, mix, means):
        """ValueError naming the first row whose predicted mean overflowed."""
        if not np.isfinite(means).all():
            bad = np.flatnonzero(~np.isfinite(means).all(axis=(1, 2)))[0]
            seq, step = mix.seqs.locate(mix.rows[bad])
            raise ValueError(
                f"X: the predicted mean overflows float64 at sequence {seq}, step "
                f"{step} (inputs up to {np.abs(mix.seqs.data).max():.3g}); scale the "
                "features, e.g. with skseq.preprocessing.Stepwise(StandardScaler())."
            )


class GaussianOutputs(RealOutputs):
    """Real targets: standardization, Gaussian outputs, mixture predictions, R^2.

    Reads the estimator's ``covariance_type`` and ``min_covar`` parameters
    (:attr:`constraints`). Fitted attributes beside :class:`RealOutputs`': the
    targets' ``mean_`` and ``scale_`` (of the modelled outputs: the output
    family works on standardized targets) and which outputs are ``constant_``
    (predicted exactly, left out of the likelihood), and ``exact_``, the
    outputs predicted exactly (``constant_``, or every output when all are
    constant: those stay modelled, as the family needs one).
    """

    summary = ("real values: a linear-Gaussian output network per state "
               "(Bengio & Frasconi 1996), whose noise ``covariance_type`` and "
               "``min_covar`` set; predicts the mixture mean and spread.")
    constraints: dict = {
        "covariance_type": [StrOptions({"diag", "full", "spherical", "tied"})],
        "min_covar": [Interval(numbers.Real, 0, None, closed="neither")],
    }

    def _encoded(self, targets, values):
        return Targets(steps=targets.steps, values=values[:, ~self.constant_],
                       step_level=targets.step_level)

    def fit_encode(self, y, seqs, sample_weight=None):
        """Learn the standardization and which outputs are constant; return
        the float targets of the modelled outputs."""
        targets, values, squeeze = self._values(y, seqs)
        seq_of = seqs.sequence_of(targets.steps)
        w = (np.ones(seqs.n_sequences) if sample_weight is None
             else sample_weight)[seq_of]
        # the targets of weight 0 are left out, not added as zeros: the sums
        # then round as those of the data without them
        mean, scale = mean_std(values[w > 0], w[w > 0])
        if np.any(scale > 1e150):
            raise ValueError(
                f"y: the targets' standard deviation ({scale.max():.3g}) is too "
                "large, their variance overflows float64; rescale y (e.g. divide "
                "it by a constant)."
            )
        # A constant output says nothing about the states, and a state with a
        # floor variance on it would gain ~log(1/min_covar) per step: such
        # outputs are predicted exactly and left out of the likelihood. A
        # spread is nil below 1e-12 of the output's magnitude (rounding), or of
        # the spread at which the default floor sits (1 for min_covar=1e-6):
        # the floor carries the units of y, so y * a with min_covar * a**2 is
        # judged alike (y in tiny units is not taken for a constant).
        unit = np.sqrt(self.params["min_covar"] / 1e-6)
        constant = scale <= 1e-12 * np.maximum(np.abs(mean), unit)
        # The output family needs one output: when all are constant they stay
        # modelled, but are still predicted exactly (``exact_``).
        self.exact_ = constant.copy()
        if constant.all():
            constant[:] = False
        self._check_floor(scale, self.exact_)
        # (outputs predicted exactly have no noise to scale: a spread of 1e-160
        # would put the variance floor beyond float64 in standardized units)
        scale[(scale == 0) | self.exact_] = 1.0
        scale = scale[~constant]
        if self.params["covariance_type"] == "spherical" and scale.size:
            scale[:] = _pooled(scale)
        self.n_outputs_ = values.shape[1]
        self.constant_ = constant
        self.mean_, self.scale_ = mean, scale
        self.squeeze_ = squeeze
        return self._encoded(targets, values)

    def _check_floor(self, scale, constant):
        """Warn where ``min_covar``, a floor in the units of y squared, is not
        small against a modelled output's variance: the floor then sets the noise
        model, and the fit is not that of the data rescaled. Refuse a floor
        beyond 1e300 variances: the family fits standardized outputs, in whose
        units it would overflow."""
        floor = self.params["min_covar"]
        with np.errstate(divide="ignore"):
            ratio = np.log10(floor) - 2 * np.log10(np.where(constant, 1.0, scale))
        if np.any(ratio > 300):
            k = np.flatnonzero(ratio > 300)[0]
            raise ValueError(
                f"{self.owner}: min_covar={floor:.3g} is more than 1e300 times the "
                f"variance of y's output {k} (standard deviation {scale[k]:.3g}): "
                "the variance floor cannot be expressed in the standardized units "
                "the model fits in. Rescale y (e.g. standardize it) or lower "
                "min_covar.")
        large = np.flatnonzero(~constant & (floor > 1e-3 * scale ** 2))
        if large.size:
            k = large[0]
            warnings.warn(
                f"{self.owner}: min_covar={floor:.3g} is not small against the "
                f"variance of y's output {k} ({scale[k] ** 2:.3g}); the variance "
                "floor dominates the noise model, so the fit depends on the units "
                "of y. Rescale y (e.g. standardize it) or lower min_covar.",
                UserWarning, stacklevel=2)

    def choose_alpha(self, U_rows, targets, weight):
        """``alpha="auto"``: the prior precision of a linear-Gaussian read-out
        of the output networks' inputs, on standardized targets, as the output
        family sees them (``skseq._families.penalty``)."""
        return choose_alpha_gaussian(U_rows, targets.values / self.scale_, weight)

    def make_emission(self, n_states, n_features):
        modelled = ~self.constant_
        return GaussianEmission(
            n_states, self._layer(n_features), int(modelled.sum()),
            covariance_type=self.params["covariance_type"],
            min_covar=self.params["min_covar"],
            y_mean=self.mean_[modelled], y_scale=self.scale_,
        )

    def _packed_predictions(self, mix, return_std):
        """Predicted means (and standard deviations) at the mixture's rows,
        shape (n_rows, n_outputs)."""
        model = mix.model
        means, cov = model.emission.moments(model.theta_e, mix.U_rows)
        self._check_finite_means(mix, means)
        weights = mix.zeta
        # mixture moments (Bengio & Frasconi 1996, eq. 10): E[y] and E[y^2] - E[y]^2
        modelled = ~self.constant_
        mean = np.tile(self.mean_, (weights.shape[0], 1))
        mean[:, modelled] = np.einsum("ti,tik->tk", weights, means)
        exact = self._exact()
        mean[:, exact] = self.mean_[exact]
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
        std[:, exact] = 0.0
        return [mean, std]

    def _exact(self):
        """The outputs predicted exactly: those constant in the training
        targets (a model pickled before ``exact_`` existed: ``constant_``)."""
        return getattr(self, "exact_", self.constant_)

    def sample(self, seqs, U, model, states, rng):
        """Outputs drawn at every step (output networks' inputs U), in the form
        of a step-level ``predict``."""
        values = np.tile(self.mean_, (seqs.data.shape[0], 1))
        values[:, ~self.constant_] = model.emission.sample(
            model.theta_e, U, states, rng)
        values[:, self._exact()] = self.mean_[self._exact()]
        if self.squeeze_:
            values = values[:, 0]
        return seqs.unpack(values)


#: The output distributions by name: an estimator's output is chosen by it.
OUTPUTS = {"categorical": CategoricalOutputs, "gaussian": GaussianOutputs}


def outputs_of(task):
    """The names of the registered output distributions of ``task``."""
    return {name for name, cls in OUTPUTS.items() if cls.task == task}


def constraints_of(task):
    """The constraints of the estimator parameters that the output
    distributions of ``task`` read."""
    return {key: value for name in sorted(outputs_of(task))
            for key, value in OUTPUTS[name].constraints.items()}
