"""IOHMMRegressor: sequence regression with an input/output HMM."""

import numbers

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.metrics import r2_score
from sklearn.utils._param_validation import Interval, StrOptions

from ._emissions import GaussianEmission
from ._iohmm import BaseIOHMM
from ._validation import Targets, check_sequences, check_targets


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


class _RegressorOutputs:
    """Linear-Gaussian outputs: target standardization, mixture predictions, R^2.

    Shared by :class:`IOHMMRegressor` and the hierarchical model's regression
    task; the host provides the :class:`~skseq._iohmm.BaseIOHMM` inference and
    the ``covariance_type`` and ``min_covar`` parameters.
    """

    _output_constraints: dict = {
        "covariance_type": [StrOptions({"diag", "full", "spherical"})],
        "min_covar": [Interval(numbers.Real, 0, None, closed="neither")],
    }

    def _encode_targets(self, y, seqs, reset=True, sample_weight=None):
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
            seq_of = np.searchsorted(seqs.offsets, targets.steps, side="right") - 1
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
            if self.covariance_type == "spherical" and scale.size:
                with np.errstate(over="ignore"):
                    pooled = np.sqrt(np.mean(scale**2))
                if not np.isfinite(pooled):  # squares beyond float64
                    top = scale.max()
                    pooled = top * np.sqrt(np.mean((scale / top) ** 2))
                scale[:] = pooled
            self.n_outputs_ = values.shape[1]
            self._constant_outputs_ = constant
            self._y_mean_, self._y_scale_ = mean, scale
            self._squeeze_output_ = squeeze
        elif values.shape[1] != self.n_outputs_:
            raise ValueError(
                f"y has {values.shape[1]} outputs, but this {type(self).__name__} "
                f"was fitted with {self.n_outputs_}."
            )
        return Targets(steps=targets.steps,
                       values=values[:, ~self._constant_outputs_],
                       step_level=targets.step_level)

    def _make_emission(self, n_features):
        modelled = ~self._constant_outputs_
        return GaussianEmission(
            self._n_hidden(), n_features, int(modelled.sum()),
            use_input=self.emission == "input",
            covariance_type=self.covariance_type, min_covar=self.min_covar,
            y_mean=self._y_mean_[modelled], y_scale=self._y_scale_,
        )

    def predict(self, X, return_std=False):
        """Predicted mean E[y_t | u_1..t] (and its standard deviation).

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        return_std : bool, default=False
            Also return the standard deviation of the predictive mixture.

        Returns
        -------
        y_mean : ndarray or list of ndarray
            Sequence-level model: ``(n_sequences,)`` or ``(n_sequences,
            n_outputs)``. Step-level model: a prediction for every step, as a list
            of per-sequence arrays for list input, or padded (NaN) like X for
            array input.
        y_std : same form as y_mean
            Only with ``return_std=True``.
        """
        seqs, emission, theta_e, probs = self._model(X)
        zeta = self._filtered(seqs, probs)
        rows = slice(None) if self.step_level_ else seqs.last_steps
        means, cov = emission.moments(theta_e, seqs.data[rows])
        if not np.isfinite(means).all():
            bad = np.flatnonzero(~np.isfinite(means).all(axis=(1, 2)))[0]
            seq, step = seqs.locate(np.arange(seqs.data.shape[0])[rows][bad])
            raise ValueError(
                f"X: the predicted mean overflows float64 at sequence {seq}, step "
                f"{step} (inputs up to {np.abs(seqs.data).max():.3g}); scale the "
                "features, e.g. with skseq.preprocessing.Stepwise(StandardScaler())."
            )
        weights = zeta[rows]
        # mixture moments (paper 000, eq. 10): E[y] and E[y^2] - E[y]^2
        modelled = ~self._constant_outputs_
        mean = np.tile(self._y_mean_, (weights.shape[0], 1))
        mean[:, modelled] = np.einsum("ti,tik->tk", weights, means)
        out = [mean]
        if return_std:
            # The law of total variance, sum_i w_i (Sigma_i + (m_i - mean)^2),
            # not E[y^2] - E[y]^2: that difference cancels every digit when the
            # mean is large against the spread (y ~ 1e9 gave std 0 or 11.3).
            # Each output is divided by a scale >= every term's root, so that
            # the squares neither overflow nor underflow.
            var = np.diagonal(cov, axis1=1, axis2=2)  # (n_states, k)
            dev = means - mean[:, None, modelled]  # (steps, n_states, k)
            scale = np.maximum(np.abs(dev).max(axis=1), np.sqrt(var.max(axis=0)))
            total = (np.einsum("ti,tik->tk", weights, (dev / scale[:, None]) ** 2)
                     + np.einsum("ti,tik->tk", weights, var / scale[:, None] / scale[:, None]))
            std = np.zeros_like(mean)
            std[:, modelled] = scale * np.sqrt(total)
            out.append(std)
        if self._squeeze_output_:
            out = [o[:, 0] for o in out]
        if self.step_level_:
            out = [seqs.unpack(o) for o in out]
        return (out[0], out[1]) if return_std else out[0]

    def _predicted_targets(self, X):
        """The model's own predictions, in a form ``score_samples`` reads as y.

        Step-level predictions for array input come padded; with one output
        they are 2-D, which as y would mean multi-output sequence-level targets,
        so they are cut back to a list of per-sequence arrays.
        """
        pred = self.predict(X)
        if self.step_level_ and not isinstance(pred, list):
            lengths = check_sequences(X).lengths
            pred = [p[:k] for p, k in zip(pred, lengths, strict=True)]
        return pred

    def score(self, X, y, sample_weight=None):
        """R^2 of the prediction (averaged uniformly over outputs).

        Step-level targets are scored on every step that has one, each step
        weighted by its sequence's weight.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : array-like or list of arrays
        sample_weight : array-like of shape (n_sequences,), default=None

        Returns
        -------
        score : float
        """
        targets, weight = self._scoring_targets(X, y, sample_weight, "regression")
        if not targets.step_level:
            # predictions of extreme inputs may square to inf: R^2 is then -inf
            with np.errstate(over="ignore"):
                return r2_score(y, self.predict(X), sample_weight=weight)
        seqs = check_sequences(X)
        pred = self.predict(X)
        pred = np.concatenate(pred) if isinstance(pred, list) else pred[
            np.arange(pred.shape[1]) < seqs.lengths[:, None]]
        pred = pred.reshape(pred.shape[0], -1)[targets.steps]
        values = np.asarray(targets.values, float).reshape(len(targets.steps), -1)
        with np.errstate(over="ignore"):
            return r2_score(values, pred, sample_weight=weight)


class IOHMMRegressor(_RegressorOutputs, RegressorMixin, BaseIOHMM):
    """Input/output hidden Markov model with Gaussian outputs.

    The state model of :class:`IOHMMClassifier` (input-conditioned transitions
    between discrete states, Bengio & Frasconi 1996) with a linear-Gaussian output
    network per state: y_t | x_t = i, u_t ~ N(V_i u_t + c_i, Sigma_i). The states
    are regimes, each with its own linear law; the prediction is the mixture mean
    E[y_t | u_1..t] = sum_i P(x_t = i | u_1..t) (V_i u_t + c_i) (paper 000,
    eqs. 5 and 10).

    Sequence-level targets (one per sequence, 1-D or ``(n_sequences, n_outputs)``)
    supervise the sequence's last step; step-level targets (a list of per-step
    arrays, or a 3-D array padded like X) supervise every step that has one
    (NaN = no target at that step).

    Parameters
    ----------
    n_states : int, default=2
        Number of hidden states (regimes).
    transition : {"input", "additive", "gated", "homogeneous"}, default="input"
        Family of state networks; see :class:`IOHMMClassifier`.
    emission : {"input", "state"}, default="input"
        ``"input"``: each regime's mean is a linear function of the input;
        ``"state"``: each regime has a constant mean.
    covariance_type : {"diag", "full", "spherical"}, default="diag"
        Per-state noise covariance: one variance per output, a full matrix, or one
        variance shared by all outputs.
    min_covar : float, default=1e-6
        Floor added to the variances (in the units of y squared), so that no
        density is infinite, even for a constant output.
    topology : {"ergodic", "left-right"} or array-like of shape (n_states, n_states), \
            default="ergodic"
        Allowed transitions (``mask[j, i]``: j -> i allowed).
    startprob : {"learn", "uniform"} or array-like of shape (n_states,), \
            default="learn"
        Distribution of the state before the first input.
    solver : {"lbfgs", "em"}, default="lbfgs"
        Direct likelihood maximisation with its exact gradient, or the paper's GEM.
    alpha : float, default=1e-2
        L2 penalty on the input weights of the state and output networks (the
        precision of a Gaussian prior, against the summed log-likelihood).
    det_penalty : float, default=0.0
        Reward for |det A_t|, the determinant of each step's transition matrix
        (paper 000, §5.2): it pulls the transitions toward permutations, whose
        determinant is +-1, so that early inputs stay visible at the end of long
        sequences. The weighted mean of |det A_t| over the training steps,
        times ``det_penalty``, is subtracted from the objective. 0 turns it off.
        Needs ``solver="lbfgs"``. On the parity problem it is what learns
        sequences of 100-500 steps (see the long-term results); a start may
        still settle on a wrong near-permutation machine, so keep several
        restarts.
    n_init : int or "auto", default="auto"
        Random initialisations, the best training objective kept; ``"auto"`` as in
        :class:`IOHMMClassifier`.
    max_iter : int, default=200
        Maximum L-BFGS or EM iterations.
    tol : float, default=1e-5
        Convergence threshold on the change of the objective (mean per-sequence
        negative log-likelihood plus penalty).
    init_scale : float, default=1.0
        Standard deviation of the random initial weights.
    random_state : int, RandomState instance or None, default=None
        Controls the initialisations.
    verbose : int, default=0
        1 prints a line per initialisation, 2 also one per iteration.
    n_jobs : int, default=None
        Threads over sequences in the forward-backward kernels.
    warm_start : bool, default=False
        Start from the previous solution (then ``n_init`` is ignored).

    Attributes
    ----------
    n_outputs_ : int
        Number of outputs.
    startprob_ : ndarray of shape (n_states,)
        Distribution of the initial state.
    transition_coef_, transition_intercept_ : ndarray
        State-network weights (see :class:`IOHMMClassifier`).
    emission_coef_ : ndarray of shape (n_features, n_states, n_outputs)
        Each regime's linear law on the inputs (``emission="input"`` only).
    emission_intercept_ : ndarray of shape (n_states, n_outputs)
        Each regime's intercept (its mean with ``emission="state"``).
    emission_covariance_ : ndarray
        Noise (co)variances: ``(n_states,)`` spherical, ``(n_states, n_outputs)``
        diag, ``(n_states, n_outputs, n_outputs)`` full.

        Outputs that are constant in the training targets are predicted exactly
        (standard deviation 0) and left out of the likelihood: they carry no
        information about the states. The emission attributes then cover the
        other outputs only.
    n_features_in_ : int
        Number of features per step.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features, when X was a DataFrame with string column names.
    n_iter_ : int
        Iterations of the best initialisation.
    converged_ : bool
        Whether the best initialisation converged.
    log_likelihood_ : float
        Weighted training log-likelihood sum_s w_s log p(y_s | u_s).
    objective_ : float
        The minimised objective at the solution.
    loss_curve_ : list of float
        The objective at each iteration of the best initialisation.
    step_level_ : bool
        Whether the model was fitted on step-level targets.

    See Also
    --------
    IOHMMClassifier : The same model with categorical outputs.

    Examples
    --------
    >>> import numpy as np
    >>> from skseq import IOHMMRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = [rng.normal(size=(20, 1)) for _ in range(30)]
    >>> y = [np.where(x[:, 0] > 0, 2 * x[:, 0], -x[:, 0]) for x in X]
    >>> reg = IOHMMRegressor(n_states=2, random_state=0).fit(X, y)
    >>> round(reg.score(X, y), 2) > 0.9
    True
    """

    _parameter_constraints: dict = {
        **BaseIOHMM._parameter_constraints,
        **_RegressorOutputs._output_constraints,
    }

    def __init__(
        self,
        n_states=2,
        *,
        transition="input",
        emission="input",
        covariance_type="diag",
        min_covar=1e-6,
        topology="ergodic",
        startprob="learn",
        solver="lbfgs",
        alpha=1e-2,
        det_penalty=0.0,
        n_init="auto",
        max_iter=200,
        tol=1e-5,
        init_scale=1.0,
        random_state=None,
        verbose=0,
        n_jobs=None,
        warm_start=False,
    ):
        self.det_penalty = det_penalty
        super().__init__(
            n_states,
            transition=transition,
            emission=emission,
            topology=topology,
            startprob=startprob,
            solver=solver,
            alpha=alpha,
            n_init=n_init,
            max_iter=max_iter,
            tol=tol,
            init_scale=init_scale,
            random_state=random_state,
            verbose=verbose,
            n_jobs=n_jobs,
            warm_start=warm_start,
        )
        self.covariance_type = covariance_type
        self.min_covar = min_covar

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags
