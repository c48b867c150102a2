"""IOHMMRegressor: sequence regression with an input/output HMM."""

import numbers
import warnings

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval

from ._base import FlatIOHMM
from ._base_dask import dask_aware
from ._data import check_flag
from ._data.checks import InputHintWarning
from ._data.representation import resolve
from ._families.outputs import constraints_of
from ._families.registry import document_options, option_constraints
from ._fit.information import standard_errors as observed_standard_errors
from ._fit.objective import Problem as _Problem
from ._fit.objective import fixed_startprob as _fixed_startprob

# standard_errors warns when one Newton step from the fitted parameters moves
# one of them by more than this many of its standard errors: they are then not
# the maximum of the likelihood of the data given, around which the observed
# information describes the estimate's spread.
_NEWTON_STEP_SE = 1.0


@document_options("features", "transition", "emission", "init", "output")
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
    features : {{features}}, default="raw"
        What the networks see of each step, as in :class:`IOHMMClassifier`:

        {{features_list}}

        ``"auto"`` chooses as there. Raw by default: the shape representation
        summarizes a whole prefix, which paid for classifying sequences, while
        regimes and slow levels are read from the current inputs.
    transition : {{transition}}, default="input"
        Family of state networks:

        {{transition_list}}
    emission : {{emission}}, default="input"
        What the output networks see of each step; each regime's mean is a
        linear function of what it sees (a constant mean with ``"state"``):

        {{emission_list}}
    n_hidden : int, default=8
        Hidden units of the networks that are ``"mlp"``; unused otherwise.
    covariance_type : {"diag", "full", "spherical", "tied"}, default="diag"
        Per-state noise covariance: one variance per output, a full matrix, or one
        variance shared by all outputs; ``"tied"``: one full matrix shared by all
        states (regimes that differ in their means only; with ``emission="state"``
        a switching-mean model, statsmodels' ``switching_variance=False``).
    min_covar : float, default=1e-6
        Floor added to the variances (in the units of y squared), so that no
        density is infinite, even for a constant output. With several outputs
        it is one floor on the standardized outputs: ``min_covar`` for the
        output of largest spread, and for each other output in proportion to
        its variance (smaller where its spread is). Being in the units of
        y, it makes the fit depend on them where it is not small: ``fit`` warns
        when it exceeds 1e-3 of an output's variance (rescale y, or lower it).
    topology : {"ergodic", "left-right"} or array-like of shape (n_states, n_states), \
            default="ergodic"
        Allowed transitions (``mask[j, i]``: j -> i allowed).
    startprob : {"learn", "uniform", "stationary"} or array-like of shape \
            (n_states,), default="learn"
        Distribution of the state before the first input. ``"stationary"``
        (``transition="homogeneous"``, ``solver="lbfgs"``, a ``topology`` in
        which every state can reach every other): the chain's stationary
        distribution, a function of the transition probabilities, as
        in Hamilton (1989) and statsmodels' and Stata's Markov-switching
        models.
    solver : {"lbfgs", "em"}, default="lbfgs"
        Direct likelihood maximisation with its exact gradient, or the paper's GEM.
    alpha : float or "auto", default="auto"
        L2 penalty on the input weights of the state and output networks (the
        precision of a Gaussian prior, against the summed log-likelihood).
        ``"auto"``: with sequence-level targets on the shape and window
        representations, chosen in ``fit`` by the exact leave-one-out error of
        a ridge read-out of the output networks' inputs over a grid of
        penalties, turned into a prior precision by the residual variance; on
        raw inputs and with step-level targets 1e-2. The value used is
        ``alpha_``.
    transition_l1 : float, default=0.0
        Weight of an L1 penalty on the state networks' input weights (a
        Laplace prior, against the summed log-likelihood), in place of
        ``alpha``'s L2 penalty on them; 0 keeps the L2 penalty. Where a regime
        flips when an input crosses a threshold, the L2 penalty prefers a soft
        threshold and keeps small weights on inputs the transitions do not
        need, each of which moves the threshold; the L1 penalty allows a steep
        threshold and pulls those weights toward 0. On toggled regimes without a
        margin between events and quiet steps, ``transition_l1=1e-3,
        tol=1e-8, max_iter=1000`` predicted from the inputs alone 91-98% as well
        as the true regime's law over 5 data seeds, against 65-80% with the
        defaults, and one step ahead given y 99.4-100% (98.7-99.5%)
        (``doc/results/toggle_no_margin.md``); it needs the tight ``tol``, as the
        penalty's pull on the unneeded weights is small. The
        penalty is smoothed, sqrt(w^2 + 1e-8) - 1e-4, for the gradient solver.
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
        negative log-likelihood plus penalty). The test reads the objective
        without its constant in the units of y (the log-Jacobian of the
        targets' standardization), so that y in other units is the same fit.
    init : {{init}} or list of them, default="auto"
        The starting points of the restarts, restart k from the k-th entry of
        the list (cycled):

        {{init_list}}

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
        Threads over sequences in the forward-backward kernels and in those
        of the shape representation (its thresholds' convolutions, prefix
        means and projections), in ``fit`` and ``predict``.
    warm_start : bool, default=False
        Continue from the fitted parameters (``n_init``, ``init``,
        ``init_scale`` and ``random_state`` then play no part); data or
        parameters that would change the model's shape are refused. User
        guide, "Continuing a fit".
    output : {{output}}, default="gaussian"
        The output distribution of each state:

        {{output_list}}

    Attributes
    ----------
    alpha_ : float
        The L2 penalty of the fit (``alpha``, or the one ``"auto"`` chose).
    n_outputs_ : int
        Number of outputs.
    outputs_ : object
        The fitted output distribution: the targets' encoding (and, for real
        targets, their scaling), which the predictions use.
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
        diag, ``(n_states, n_outputs, n_outputs)`` full, ``(n_outputs,
        n_outputs)`` tied.

        Outputs that are constant in the training targets are predicted exactly
        (standard deviation 0) and left out of the likelihood: they carry no
        information about the states. The emission attributes then cover the
        other outputs only (all of them when every output is constant: the
        model needs one, and still predicts the constants exactly).
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
        The objective at each iteration of the best initialisation
        (``solver="em"``: first at its start, then after each kept iteration).
    features_ : str
        The name of the representation used, ``"raw"`` or ``"shape"``
        (``features`` with ``"auto"`` resolved on the training data; of an
        object, its name, e.g. ``"shape"`` for ``ShapeFeatures(...)``).
    representation_ : object
        The fitted representation, of :mod:`skseq.representations` (a clone
        of ``features`` when it is an object; for a :class:`ShapeFeatures
        <skseq.representations.ShapeFeatures>`: ``convolution_``, the fitted
        kernels and thresholds, and ``projection_``).
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

    _parameter_constraints: dict = {
        **FlatIOHMM._parameter_constraints,
        **constraints_of("regression"),
        **option_constraints("features", "transition", "emission", "init", "output"),
        "transition_l1": [Interval(numbers.Real, 0, None, closed="left")],
    }

    _structure_params = (*FlatIOHMM._structure_params, "covariance_type", "output")

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
        alpha="auto",
        transition_l1=0.0,
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
        output="gaussian",
    ):
        self.output = output
        self.covariance_type = covariance_type
        self.min_covar = min_covar
        self.transition_l1 = transition_l1
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

    @dask_aware
    def predict(self, X, y=None, *, return_std=False):
        """Predicted mean E[y_t | u_1..t] (and its standard deviation); given
        the observed outputs, one step ahead.

        With ``y``, the forecast of step t also uses the outputs observed before
        it: E[y_t | u_1..t, y_1..t-1] = sum_i P(x_t = i | u_1..t, y_1..t-1)
        (V_i u_t + c_i), from Hamilton's (1989) filter (statsmodels'
        ``predict(probabilities="predicted")``). The output of step t itself is
        never used for its own forecast.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : array-like or list of arrays, default=None
            Observed outputs, in any form ``fit`` accepts (NaN at steps whose
            output was not observed: the filter skips them; a sequence with
            none observed is forecast from its inputs alone, as without ``y``).
            A sequence-level y observes only the last step, which no forecast
            uses.
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
        check_flag(return_std, "return_std")
        mix = self._mixture(self._checked(X), y)
        return self.outputs_.predict(mix, return_std=return_std)

    @property
    def _output(self):
        return self.output

    def _transition_l1(self):
        return self.transition_l1

    def standard_errors(self, X, y, *, return_cov=False):
        """Standard errors of the fitted parameters, from the observed information.

        The inverse of minus the Hessian of the log-likelihood log P(y | u) at the
        fitted parameters, in the parametrisation of statsmodels'
        ``MarkovRegression`` and Stata's ``mswitch`` where they have the parameter
        (User Guide, "Standard errors"):

        * ``"startprob_logit"`` (learned ``startprob``), ``"transition_intercept"``,
          ``"transition_coef"``: log P(i) - log P(n-1), NaN at that reference (per
          previous state for the transitions; statsmodels' ``exog_tvtp``). A
          learned start distribution at the boundary (a probability below
          1e-6; with one sequence, always: its likelihood is linear in the
          start distribution) is held at its estimate, its logits NaN;
        * ``"transition_proba"`` (homogeneous chains): the transition probabilities
          ``[from, to]``, by the delta method;
        * ``"emission_coef"``, ``"emission_intercept"``, ``"emission_covariance"``:
          in the units of y, squared for the (co)variances (statsmodels' ``sigma2``;
          Stata reports sigma).

        At a penalised fit (``alpha > 0``) this is the likelihood's curvature at the
        penalised estimate: fit with ``alpha=0`` for maximum likelihood ones. Every
        sequence given counts once: a fit's ``sample_weight`` is not read here.
        The start distribution is the fit's (learned, stationary or fixed): a
        ``startprob`` set since takes effect at the next fit.

        Parameters
        ----------
        X : array-like or list of sequences
            The training sequences.
        y : array-like or list of arrays
            The training targets.
        return_cov : bool, default=False
            Also return the covariance matrix of all the parameters above (except
            ``"transition_proba"``), their blocks in the order of the returned
            dict's keys (``"transition_coef"`` before ``"transition_intercept"``),
            each flattened in C order without its reference entries (and, for
            ``"tied"`` and ``"full"`` covariances, without the entries above
            each matrix's diagonal).

        Returns
        -------
        standard_errors : dict of str to ndarray
            One array per parameter, in the shape of its fitted attribute.
        cov : ndarray of shape (n_params, n_params)
            Only with ``return_cov=True``.

        Warns
        -----
        ConvergenceWarning
            When the fit did not converge (its parameters may not be at a
            maximum of the likelihood).
        UserWarning
            When the learned start distribution is held at the boundary; when
            the fitted parameters are not at a maximum of the likelihood of the
            ``X`` and ``y`` given (one Newton step from them moves a parameter
            by more than its standard error): data other than the training
            sequences, a fit with ``sample_weight``, or one whose ``alpha``
            pulls it far from the likelihood's maximum.

        Raises
        ------
        ValueError
            Where the model is not identified: the observed information is singular
            or not positive definite (two regimes alike, a regime never visited
            or never left, a fit not at a maximum; the message names the
            parameter the least informed direction moves most), or the networks
            have hidden units (``"mlp"``, ``"gated"``) or forbidden transitions.

        Examples
        --------
        >>> import numpy as np
        >>> from skseq import IOHMMRegressor
        >>> noise = np.random.default_rng(0).normal(size=120)
        >>> X, Y = [np.zeros((120, 1))], [np.repeat([0.0, 4.0], 60) + noise]
        >>> reg = IOHMMRegressor(2, transition="homogeneous", emission="state",
        ...     covariance_type="tied", startprob="stationary", alpha=0, n_init=10,
        ...     random_state=0).fit(X, Y)
        >>> reg.standard_errors(X, Y)["emission_intercept"].round(2).ravel().tolist()
        [0.12, 0.12]
        """
        check_flag(return_cov, "return_cov")
        problem, model = self._likelihood_problem(X, y)
        if not self.converged_:
            warnings.warn(
                f"{type(self).__name__}.standard_errors: the fit did not converge "
                f"(n_iter_={self.n_iter_}), so the parameters may not be at a "
                "maximum of the likelihood, where the observed information gives "
                "standard errors; refit with a larger max_iter.",
                ConvergenceWarning, stacklevel=2)
        se, cov, grad = observed_standard_errors(self, problem, model)
        _warn_off_maximum(self, cov, grad)
        return (se, cov) if return_cov else se

    def _choose_features(self, seqs, y, targets, weight, weighted):
        features = super()._choose_features(seqs, y, targets, weight, weighted)
        self._hint_features(features, targets.step_level, resolve("auto", seqs))
        return features

    def _hint_features(self, features, step_level, auto, stacklevel=6):
        """Warn where one real target per sequence of real-valued series
        (``auto``, what ``features="auto"`` would read, is the shape
        representation) is read from the raw steps; a fit across a Dask
        cluster calls it too."""
        if features == "raw" and not step_level and auto == "shape":
            warnings.warn(InputHintWarning(
                "IOHMMRegressor(features='raw') reads each sequence's target from "
                "the raw values of its last step (and the state): a target that "
                "depends on the whole sequence is read better through "
                "features='shape', with n_states=1 unless the target has regimes "
                "(the Results page 'Regression of one target per sequence'). To "
                "keep the raw steps without this warning, filter "
                "skseq.exceptions.InputHintWarning."), stacklevel=stacklevel)

    def _store_best(self, problem, setup, best, objectives):
        super()._store_best(problem, setup, best, objectives)
        # the fit's start rule (learned, stationary or fixed), whose likelihood
        # standard_errors reads: ``startprob`` set since takes effect at the
        # next fit only
        self._fixed_start_ = problem.fixed_start

    def _likelihood_problem(self, X, y):
        """The fitted model and its unpenalised, unweighted objective on (X, y),
        whose curvature :meth:`standard_errors` reads."""
        seqs = self._checked(X)
        targets = self.outputs_.encode(y, seqs)
        model = self._fitted_model()
        fixed_start = (self._fixed_start_ if hasattr(self, "_fixed_start_")
                       else _fixed_startprob(self.startprob, self.n_states))
        problem = _Problem(
            seqs, targets, np.ones(seqs.n_sequences), model.transition,
            model.emission, model.mask, fixed_start, 0.0, self.n_jobs,
            inputs=self.representation_.inputs(seqs, targets.steps, self.n_jobs))
        return problem, model

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


def _warn_off_maximum(est, cov, grad):
    """Warn when the Newton step ``cov @ grad`` (``grad`` the log-likelihood's
    gradient, both in the coordinates of ``cov``) moves a parameter by more
    than ``_NEWTON_STEP_SE`` of its standard errors; nothing where the
    covariances left float64 (y in extreme units), as there is nothing to
    measure the step with."""
    held = np.isnan(np.diag(cov))  # a learned start at the boundary
    cov, grad = cov[np.ix_(~held, ~held)], grad[~held]
    with np.errstate(all="ignore"):
        moves = np.abs(cov @ grad) / np.sqrt(np.diag(cov))
    if not np.isfinite(moves).all():
        return
    largest = float(moves.max(initial=0.0))
    if largest > _NEWTON_STEP_SE:
        warnings.warn(
            f"{type(est).__name__}.standard_errors: the fitted parameters are not "
            "at a maximum of the log-likelihood of the X and y given (one Newton "
            f"step from them moves a parameter by {largest:.3g} of its standard "
            "errors, 0 at a maximum), so these standard errors describe no "
            "estimate. Pass the training sequences and targets; a fit with "
            "sample_weight, or with alpha > 0, maximises another objective: "
            "refit without them (alpha=0).", UserWarning, stacklevel=3)
