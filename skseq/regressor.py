"""IOHMMRegressor: sequence regression with an input/output HMM."""

from sklearn.base import RegressorMixin

from ._iohmm import FlatIOHMM
from ._outputs import GaussianOutputs


class IOHMMRegressor(RegressorMixin, FlatIOHMM):
    """Input/output hidden Markov model with Gaussian outputs.

    The state model of :class:`IOHMMClassifier` (input-conditioned transitions
    between discrete states, Bengio & Frasconi 1996) with a linear-Gaussian output
    network per state: y_t | x_t = i, u_t ~ N(V_i u_t + c_i, Sigma_i). The states
    are regimes, each with its own linear law; the prediction is the mixture mean
    E[y_t | u_1..t] = sum_i P(x_t = i | u_1..t) (V_i u_t + c_i) (Bengio & Frasconi 1996,
    eqs. 5 and 10).

    Sequence-level targets (one per sequence, 1-D or ``(n_sequences, n_outputs)``)
    supervise the sequence's last step; step-level targets (a list of per-step
    arrays, or a 3-D array padded like X) supervise every step that has one
    (NaN = no target at that step).

    Parameters
    ----------
    n_states : int, default=2
        Number of hidden states (regimes).
    features : {"raw", "shape", "auto"}, default="raw"
        What the networks see of each step: the input features as they are
        (``"raw"``), or the shape representation of :class:`IOHMMClassifier`
        (``"shape"``: local shape averaged over the sequence so far, projected;
        ``"auto"`` chooses as there). Raw by default: the shape representation
        summarizes a whole prefix, which paid for classifying sequences, while
        regimes and slow levels are read from the current inputs.
    transition : {"input", "additive", "gated", "homogeneous", "mlp"}, \
            default="input"
        Family of state networks; see :class:`IOHMMClassifier`.
    emission : {"input", "state", "mlp"}, default="input"
        ``"input"``: each regime's mean is a linear function of the input;
        ``"state"``: each regime has a constant mean; ``"mlp"``: each regime's
        mean is a linear function of a tanh hidden layer of ``n_hidden`` units
        shared by the regimes.
    n_hidden : int, default=8
        Hidden units of the networks that are ``"mlp"``; unused otherwise.
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
        (Bengio & Frasconi 1996, §5.2): it pulls the transitions toward permutations,
        whose determinant is +-1, so that early inputs stay visible at the end of long
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
    init : {"auto", "random", "permutation", "hold"} or list of them, \
            default="auto"
        The starting points of the restarts, as in :class:`IOHMMClassifier`;
        ``"auto"`` cycles through ``["random", "permutation"]``. A regime
        switched by a rare input event and kept for long: try ``"hold"``
        (:ref:`long_memory`).
    init_scale : float, default=1.0
        Standard deviation of the random initial weights.
    random_state : int, RandomState instance or None, default=None
        Controls the initialisations.
    verbose : int, default=0
        1 prints a line per restart (its objective, the best so far, the elapsed
        time), 2 also one per iteration.
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
    features_ : str
        The representation used, ``"raw"`` or ``"shape"`` (``features`` with
        ``"auto"`` resolved on the training data).
    representation_ : object
        The fitted representation (for ``"shape"``: ``convolution_``, the fitted
        :class:`~skseq.preprocessing.DilatedConvolution`, and ``projection_``).
    n_init_ : int
        Number of initialisations run.
    init_objectives_ : ndarray of shape (n_init_,)
        The final objective of every initialisation, in order (NaN where one
        diverged; for one stopped early as hopeless, its objective at the stop).
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

    _outputs = GaussianOutputs()

    _parameter_constraints: dict = {
        **FlatIOHMM._parameter_constraints,
        **GaussianOutputs.constraints,
    }

    _structure_params = (*FlatIOHMM._structure_params, "covariance_type")

    def __init__(
        self,
        n_states=2,
        *,
        features="raw",
        transition="input",
        emission="input",
        n_hidden=8,
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
        init="auto",
        init_scale=1.0,
        random_state=None,
        verbose=0,
        n_jobs=None,
        warm_start=False,
    ):
        self.covariance_type = covariance_type
        self.min_covar = min_covar
        super().__init__(
            n_states,
            features=features,
            transition=transition,
            emission=emission,
            n_hidden=n_hidden,
            topology=topology,
            startprob=startprob,
            solver=solver,
            alpha=alpha,
            det_penalty=det_penalty,
            n_init=n_init,
            max_iter=max_iter,
            tol=tol,
            init=init,
            init_scale=init_scale,
            random_state=random_state,
            verbose=verbose,
            n_jobs=n_jobs,
            warm_start=warm_start,
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
        return self._outputs.predict(self, self._checked(X), return_std=return_std)

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
        return self._score(X, y, sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags
