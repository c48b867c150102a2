"""HierarchicalIOHMM: a state with several time scales (El Hihi & Bengio, 1995)."""

from sklearn.utils import ClassifierTags, RegressorTags
from sklearn.utils._available_if import available_if
from sklearn.utils._param_validation import StrOptions

from ._base import BaseIOHMM
from ._base_dask import dask_aware
from ._base_features import rule_or_raw
from ._data import check_flag
from ._families.outputs import GaussianOutputs
from ._families.registry import document_options, option_constraints
from ._families.starts import HOLD_HEAVY_STARTS
from ._hierarchy_levels import HierarchyLevelsMixin

# The output distribution of each task.
_OUTPUTS = {"classification": "categorical", "regression": "gaussian"}


def _classifying(estimator):
    return estimator.task == "classification"


@document_options("features", "emission", "init")
class HierarchicalIOHMM(HierarchyLevelsMixin, BaseIOHMM):
    """Input/output HMM with a hierarchical, multi-time-scale state.

    The hidden state is the Cartesian product of levels,
    x_t = (x^1_t, ..., x^L_t), slowest first (El Hihi & Bengio, 1995, §5). The
    levels are conditionally independent given the previous state and the
    slower levels' current values, so the transition factors (El Hihi & Bengio 1995,
    eq. 5):

        P(x_t | x_{t-1}, u_t) = prod_s P(x^s_t | x^s_{t-1}, x^{s-1}_t, u_t),

    and level s works at its own time scale: it keeps its value with a fixed
    probability w_s = 1 - 1/timescale_s (eq. 6) and otherwise moves by its own
    softmax network of the input, which sees the level's previous value j and the
    current value k of the level above:

        P(x^s_t = i | x^s_{t-1} = j, x^{s-1}_t = k, u_t)
            = w_s [i == j] + (1 - w_s) softmax_i(W^s_{j,k} u_t + b^s_{j,k}).

    A slow level's value survives many steps whatever the inputs, so context
    (forward) and credit (backward) travel far through it: the diffusion that
    makes long-term dependencies hard to learn for a flat IOHMM (El Hihi & Bengio 1995,
    §2; Bengio & Frasconi 1996, §5) is slowed down there. The outputs are those of
    :class:`IOHMMClassifier` (``task="classification"``) or
    :class:`IOHMMRegressor` (``task="regression"``), conditioned on the full
    product state and the input. Training maximises the conditional likelihood
    P(y | u), directly (``solver="lbfgs"``, the gradient from the pairwise
    posteriors by Fisher's identity) or by generalized EM (``solver="em"``).

    The estimator is a classifier or a regressor in every respect according to
    ``task``: its scikit-learn tags, ``score`` (accuracy or R^2), its targets,
    and ``predict_proba`` / ``predict_log_proba``, which exist only when
    classifying.

    Parameters
    ----------
    n_states : tuple of int, default=(2, 2)
        Number of values of each level, slowest level first; the chain has
        ``prod(n_states)`` product states.
    features : {{features}}, default="auto"
        What the networks see of each step, as in :class:`IOHMMClassifier`:

        {{features_list}}

        ``"auto"``: raw steps for symbols and one-step rows (as
        :class:`IOHMMClassifier`); for real-valued series the flat estimator's
        choice (``"shape"``, or ``"window"`` with step-level targets) or raw
        steps, whichever scores better on 5 stratified folds of the training
        sequences (fitted with the final fit's restarts, at most 10; raw
        steps on ties; fewer than 4 sequences or a class of one: the flat
        choice; of more than 250 distinct sequences, a stratified draw of
        about 250). Raw steps carry a fact over hundreds of steps in a slow
        level (:ref:`long_memory`); whole real series are classified better
        by their shape (Results: "The hierarchy on real series"). A name
        other than ``"auto"``, or a representation object, is used as given
        (no held-out choice; ``features_scores_`` is None).
    timescales : tuple of float, default=(10, 1)
        Time scale of each level (>= 1, same length as ``n_states``): level s
        keeps its value with probability at least w_s = 1 - 1/timescale_s at
        every step. A time scale of 1 gives an ordinary IOHMM level.
    learn_timescales : bool, default=True
        Learn the persistences w_s = sigmoid(v_s) by the gradient instead of
        fixing them, starting from ``timescales`` (a time scale of 1 starts at
        w_s = 0.01, where the sigmoid still has a gradient). A slow start helps
        the search (what a level read survives the noise, in the state and in
        the gradient) while the fit may speed the level up: on the 2-sequence
        problem with long noise the learned time scales end near 1
        (:ref:`long_memory`). ``False`` keeps El Hihi & Bengio's (1995) fixed time
        scales.
    min_timescales : tuple of float or None, default=None
        With ``learn_timescales``, lower bounds on the learned time scales
        (>= 1, at most ``timescales``, one per level): level s keeps its value
        with probability at least 1 - 1/min_timescales_s, w_s = w_min + (1 -
        w_min) sigmoid(v_s), so a slow level cannot become a fast one on little
        data. None: no bound (every learned time scale may fall to 1). Hold
        starts begin learned time scales at these bounds. On the 2-sequence
        problem (``benchmarks/bench_hierarchical.py``) bounds of a fifth or a
        half of ``timescales`` above the fastest level raised the error: the
        fits that read the class speed their slow level up to about 1.
    task : {"classification", "regression"}, default="classification"
        Categorical outputs, P(y_t = c | x_t, u_t) = softmax_c(V_x u_t + c_x), or
        linear-Gaussian ones, y_t | x_t, u_t ~ N(V_x u_t + c_x, Sigma_x).
    emission : {{emission}}, default="input"
        What the output networks of the product states see of each step:

        {{emission_list}}
    n_hidden : int, default=8
        Hidden units of the output networks with ``emission="mlp"``.
    covariance_type : {"diag", "full", "spherical", "tied"}, default="diag"
        Noise covariance of each product state (``task="regression"`` only).
    min_covar : float, default=1e-6
        Floor added to the variances, in the units of y squared
        (``task="regression"`` only).
    startprob : {"learn", "uniform"} or array-like of shape (prod(n_states),), \
            default="learn"
        Distribution of the product state before the first input; product
        states are numbered in C order of (x^1, ..., x^L), the slowest level
        the most significant digit.
    solver : {"lbfgs", "em"}, default="lbfgs"
        Direct likelihood maximisation with its exact gradient, or GEM.
    alpha : float or "auto", default="auto"
        L2 penalty on the input weights (state and output networks), the
        precision of a Gaussian prior against the summed log-likelihood.
        ``"auto"`` as in :class:`IOHMMClassifier`: with sequence-level targets
        on the shape and window representations chosen from the data, on raw
        steps and with step-level targets 1e-2. The value used is ``alpha_``.
    det_penalty : float, default=0.0
        Reward for |det A_t|, the determinant of each step's product-state
        transition matrix (Bengio & Frasconi 1996, §5.2; see :class:`IOHMMClassifier`).
        0 turns it off. Needs ``solver="lbfgs"``.
    n_init : int or "auto", default="auto"
        Random initialisations, the best training objective kept; ``"auto"`` as
        in :class:`IOHMMClassifier`. Restart k starts from the k-th kind of
        ``init``'s cycle: with ``init="auto"``, learned time scales and a level
        of 3 values or more, 1-3 hold, 4 random, 5-7 hold, 8 permutation, again.
    max_iter : int, default=200
        Maximum L-BFGS or EM iterations.
    tol : float, default=1e-5
        Convergence threshold on the change of the objective (mean per-sequence
        negative log-likelihood plus penalty).
    init : {{init}} or list of them, default="auto"
        The starting points of the restarts, restart k from the k-th entry of
        the list (cycled), applied level by level:

        {{init_list}}

        ``"hold"`` starts every level in its first value and pushes every
        other value to keep itself. ``"auto"``: three hold starts to one other
        (see ``n_init``) with learned time scales and a level of 3 values or
        more (a level of 2 cannot tell what it held), else ``["random",
        "permutation"]`` (:ref:`long_memory`).
    init_scale : float, default=1.0
        Scale of the random initial weights: their standard deviation is
        ``init_scale`` (the hierarchy's levels find their slow solutions less
        often from the flat classifier's smaller start).
    random_state : int, RandomState instance or None, default=None
        Controls the initialisations.
    verbose : int, default=0
        1 prints a line per restart (its objective, the best so far, the elapsed
        time) and the held-out scores of ``features="auto"``, 2 also one per
        iteration.
    n_jobs : int, default=None
        Threads over sequences in the forward-backward kernels and in those
        of the shape representation (its thresholds' convolutions, prefix
        means and projections), in ``fit`` and ``predict``.
    warm_start : bool, default=False
        Continue from the fitted parameters (``n_init``, ``init``,
        ``init_scale`` and ``random_state`` then play no part); data or
        parameters that would change the model's shape are refused. User
        guide, "Continuing a fit".

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels (``task="classification"``).
    n_outputs_ : int
        Number of outputs (``task="regression"``).
    outputs_ : object
        The fitted output distribution: the targets' encoding (and, for real
        targets, their scaling), which the predictions use.
    startprob_ : ndarray of shape (prod(n_states),)
        Distribution of the initial product state.
    transition_coef_ : list of ndarray
        Per level s, the state-network weights W^s, of shape
        ``(n_features, n_s, n_{s-1}, n_s)`` indexed
        ``[feature, previous own value, current parent value, next own value]``
        (``n_{s-1}`` is 1 for the top level).
    transition_intercept_ : list of ndarray
        Per level, the biases b^s, of shape ``(n_s, n_{s-1}, n_s)``.
    transition_timescales_ : ndarray of shape (n_levels,)
        The time scales 1 / (1 - w_s): ``timescales``, or the learned ones.
    emission_coef_ : ndarray of shape (n_features, prod(n_states), n_outputs)
        Output-network weights (``emission="input"``); n_outputs is the number
        of classes when classifying.
    emission_intercept_ : ndarray of shape (prod(n_states), n_outputs)
        Output-network intercepts (class logits, or regression means).
    emission_covariance_ : ndarray
        Noise (co)variances (``task="regression"``; see
        :class:`IOHMMRegressor`).
    n_features_in_ : int
        Number of features per step.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features, when X was a DataFrame with string column names.
    n_iter_ : int
        Iterations of the best initialisation.
    converged_ : bool
        Whether the best initialisation converged.
    log_likelihood_ : float
        Weighted training conditional log-likelihood.
    objective_ : float
        The minimised objective at the solution.
    loss_curve_ : list of float
        The objective at each iteration of the best initialisation
        (``solver="em"``: first at its start, then after each kept iteration).
    features_ : str
        The representation's name (of ``features``, or ``"auto"``'s choice).
    features_scores_ : dict or None
        The held-out score (accuracy or R^2, mean over the folds fitted) of
        each representation ``"auto"`` compared (None: no comparison).
    representation_ : object
        The fitted representation (a clone of ``features`` if an object).
    alpha_ : float
        The L2 penalty of the fit (``alpha``, or the one ``"auto"`` chose).
    n_init_ : int
        Number of initialisations run.
    init_objectives_ : ndarray of shape (n_init_,)
        The final objective of every initialisation, in order (NaN where one
        diverged; for one stopped early as hopeless, its objective at the stop).
    step_level_ : bool
        Whether the model was fitted on step-level targets.

    See Also
    --------
    IOHMMClassifier : The flat model with categorical outputs.
    IOHMMRegressor : The flat model with Gaussian outputs.

    Notes
    -----
    A level reads its input at a rate of at most 1 - w_s per step, and keeps
    what it read for about ``timescale_s`` steps. With fixed time scales a slow
    level therefore records the inputs that stand out from the rest (the
    experiments of El Hihi & Bengio 1995, where the noise is small), but not a short
    pattern that only its position tells from noise of the same range: a fast level must
    read it and hold it by its own network, which is the flat model's difficulty.
    Learning the time scales (``learn_timescales=True``) starts a level slow, so that
    what it reads survives the noise in the state and in the gradient while its
    networks learn to hold it, and then lets it speed up; hold starts
    (``init``) give the first value of each level the reading and make the
    others keep what was read (``benchmarks/bench_long_memory.py``: on the
    2-sequence problem with 150-300 noise steps, two levels with the defaults
    learn what a flat IOHMM with as many states does not).

    :meth:`predict_state_proba` and :meth:`decode` give one result per level;
    :meth:`transition_proba` gives the product-state matrices (N x N, product
    states in C order), and ``startprob_`` is over product states.

    References
    ----------
    S. El Hihi and Y. Bengio, "Hierarchical Recurrent Neural Networks for
    Long-Term Dependencies", NIPS 8, 1995.

    Examples
    --------
    The 2-sequence problem: the class is carried by the first 3 steps only.

    >>> from skseq.hierarchical import HierarchicalIOHMM
    >>> from skseq.datasets import make_two_sequence
    >>> X, y = make_two_sequence(40, max_length=20, random_state=3)
    >>> clf = HierarchicalIOHMM(n_states=(2, 2), n_init=2, random_state=0).fit(X, y)
    >>> clf.features_  # on 20 steps the shape scores better on held-out sequences
    'shape'
    >>> slow, fast = clf.predict_state_proba(X[:1])  # one list per level
    >>> slow[0].shape, fast[0].shape  # (steps, values of the level)
    ((20, 2), (20, 2))
    >>> clf.transition_timescales_.shape  # learned, from (10, 1)
    (2,)
    """

    _parameter_constraints: dict = {
        **BaseIOHMM._parameter_constraints,
        **GaussianOutputs.constraints,
        **option_constraints("features", "emission", "init"),
        # no stationary start: the transitions change with the inputs
        "startprob": [StrOptions({"learn", "uniform"}), "array-like"],
        "n_states": ["array-like"],
        "timescales": ["array-like"],
        "learn_timescales": ["boolean"],
        "min_timescales": ["array-like", None],
        "task": [StrOptions(set(_OUTPUTS))],
    }

    _structure_params = (*BaseIOHMM._structure_params, "n_states", "timescales",
                         "learn_timescales", "min_timescales", "task",
                         "covariance_type")

    def __init__(
        self,
        n_states=(2, 2),
        *,
        features="auto",
        timescales=(10, 1),
        learn_timescales=True,
        min_timescales=None,
        task="classification",
        emission="input",
        n_hidden=8,
        covariance_type="diag",
        min_covar=1e-6,
        startprob="learn",
        solver="lbfgs",
        alpha="auto",
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
        self.n_states = n_states
        self.timescales = timescales
        self.learn_timescales = learn_timescales
        self.min_timescales = min_timescales
        self.task = task
        self.covariance_type = covariance_type
        self.min_covar = min_covar
        super().__init__(
            features=features,
            emission=emission,
            n_hidden=n_hidden,
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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        if _classifying(self):
            tags.estimator_type = "classifier"
            tags.classifier_tags = ClassifierTags()
        else:
            tags.estimator_type = "regressor"
            tags.regressor_tags = RegressorTags()
            tags.target_tags.multi_output = True  # y may be (n_sequences, n_outputs)
        return tags

    # -- the hierarchy (the levels: HierarchyLevelsMixin) ---------------------
    @property
    def _auto_starts(self):
        """init="auto": mostly hold starts (:data:`HOLD_HEAVY_STARTS`) with
        learned time scales and a level of 3 values or more, else the flat
        cycle. At 100 steps of El Hihi & Bengio's (1995) Figure 2 hold starts
        fit 0-1 of 20 training sets with levels of 2 values (one held value
        cannot tell what it read), 16-20 of 20 with a level of 3, random and
        permutation starts 0-10 (doc/results/hierarchical_figure2.md)."""
        if self.learn_timescales and max(self._levels()[0]) >= 3:
            return HOLD_HEAVY_STARTS
        return BaseIOHMM._auto_starts

    def _choose_features(self, *fit_data):
        """``features="auto"``: the flat rule's choice or raw steps, held out."""
        chosen, self.features_scores_ = rule_or_raw(self, *fit_data)
        return chosen

    def _features_on_cluster(self, features):
        """The representation of a fit across a Dask cluster: ``features`` as
        resolved by the data's type, with no held-out comparison (none runs
        across a cluster), so ``features_scores_`` is None."""
        self.features_scores_ = None
        return features

    @property
    def _output(self):
        return _OUTPUTS[self.task]

    def predict_state_proba(self, X, y=None, *, smoothed=False):
        """Filtered distribution of every level, P(x^s_t | u_1..u_t).

        The marginals of the product state's filtered distribution (Bengio &
        Frasconi 1996, eq. 6): what each time scale remembers, available
        causally. With ``y``, the marginals of the product state's distribution
        given the observed outputs, filtered or smoothed, as in
        :meth:`IOHMMClassifier.predict_state_proba`.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : array-like or list of arrays, default=None
            Observed outputs (NaN or None at unobserved steps).
        smoothed : bool, default=False
            Condition every step on the whole sequence's outputs.

        Returns
        -------
        proba : list of length n_levels
            One entry per level, slowest first, in the form of
            :meth:`IOHMMClassifier.predict_state_proba`: a list of
            ``(len_i, n_s)`` arrays for list input, else a padded array
            ``(n_sequences, max_len, n_s)`` with NaN after each sequence's end.
        """
        seqs, zeta = self._state_proba(X, y, smoothed)
        n_states = self._levels()[0]
        full = zeta.reshape((-1,) + n_states)
        axes = range(1, len(n_states) + 1)
        return [seqs.unpack(full.sum(axis=tuple(a for a in axes if a != s)))
                for s in axes]

    def decode(self, X, y=None):
        """Most likely state path (Viterbi), level by level.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : array-like or list of arrays, default=None
            If given, the path maximises P(states, y | u); else P(states | u).

        Returns
        -------
        states : list of length n_levels
            One entry per level, slowest first: a list of int arrays for list
            input, else a padded array (n_sequences, max_len) with -1 after each
            sequence's end.
        """
        return self._paths_per_level(super().decode(X, y))

    def sample(self, X, random_state=None):
        """Draw state paths and outputs given the inputs.

        See :meth:`IOHMMClassifier.sample`; the states come level by level, in
        the form of :meth:`decode`.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        random_state : int, RandomState instance or None, default=None
            Controls the draws.

        Returns
        -------
        y : list of ndarray, or ndarray
            An output at every step.
        states : list of length n_levels
            The drawn path of every level, slowest first.
        """
        y, paths = super().sample(X, random_state)
        return y, self._paths_per_level(paths)

    # -- outputs: those of IOHMMClassifier or IOHMMRegressor ------------------
    @dask_aware
    def predict(self, X, *, return_std=False):
        """Most probable class, or predicted mean (and standard deviation).

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        return_std : bool, default=False
            Also return the standard deviation of the predictive mixture
            (``task="regression"`` only).

        Returns
        -------
        y_pred : ndarray or list of ndarray
            As :meth:`IOHMMClassifier.predict` or :meth:`IOHMMRegressor.predict`.
        y_std : same form as y_pred
            Only with ``return_std=True``.
        """
        check_flag(return_std, "return_std")
        if _classifying(self):
            if return_std:
                raise ValueError("return_std=True needs task='regression'.")
            mix = self._mixture(self._checked(X))
            return self.outputs_.predict(mix)
        mix = self._mixture(self._checked(X))
        return self.outputs_.predict(mix, return_std=return_std)

    @available_if(_classifying)
    @dask_aware
    def predict_proba(self, X):
        """Class probabilities given the inputs (``task="classification"``).

        See :meth:`IOHMMClassifier.predict_proba`.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

        Returns
        -------
        proba : ndarray of shape (n_sequences, n_classes), or list of ndarray
        """
        mix = self._mixture(self._checked(X))
        return self.outputs_.predict_proba(mix)

    @available_if(_classifying)
    @dask_aware
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba` (``task="classification"``).

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

        Returns
        -------
        log_proba : ndarray of shape (n_sequences, n_classes), or list of ndarray
        """
        mix = self._mixture(self._checked(X))
        return self.outputs_.predict_log_proba(mix)

    def score(self, X, y, sample_weight=None):
        """Accuracy (classification) or R^2 (regression) of the predictions.

        See :meth:`IOHMMClassifier.score` and :meth:`IOHMMRegressor.score`.

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
