"""IOHMMClassifier: sequence classification with an input/output HMM."""

import numbers

import numpy as np
from scipy.special import softmax
from sklearn.base import ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ._base import FlatIOHMM
from ._base_dask import dask_aware
from ._data import check_sample_weight, check_targets
from ._data.lifecycle import check_params
from ._data.prefixes import check_prefixes, checked_prefix_sequences
from ._data.weights import CopyWeights, class_weights
from ._families.outputs import CategoricalOutputs
from ._families.registry import document_options, option_constraints


@document_options("features", "transition", "emission", "init")
class IOHMMClassifier(ClassifierMixin, FlatIOHMM):
    """Input/output hidden Markov model for sequence classification.

    A discrete hidden state carries the context of a sequence: at every step an
    input-conditioned softmax network of the previous state chooses the next state,
    and a softmax output network of the current state (and input) gives the class
    (Bengio & Frasconi, 1996). Trained by maximum conditional likelihood
    P(y | u), either directly (``solver="lbfgs"``) or by the paper's generalized EM
    (``solver="em"``).

    Sequence-level labels (one per sequence) supervise the sequence's last step;
    step-level labels (a list of per-step arrays) supervise every labelled step.
    To label every step of long recordings, :class:`HybridHMMClassifier`, whose
    states weigh how well each label explains what is read, is far more
    accurate (see the User Guide, "Labelling every step").

    How a sequence's class is read off the model is an option. The paper's
    read-out (``readout="last"``) is the output at the last step. The filtered
    state mixes evidence rather than multiplying it, so that output mostly
    reflects the last inputs; when the class shows all along a sequence,
    ``readout="mean"`` averages the log-probabilities of the outputs over the
    last part of the sequence, and ``n_prefixes`` trains the model to give the
    class at those intermediate steps too (see the User Guide).

    Parameters
    ----------
    n_states : int, default=4
        Number of hidden states. Tune it with ``GridSearchCV``.
    features : {{features}}, default="auto"
        What the networks see of each step (see the User Guide,
        "Input representations"):

        {{features_list}}

        ``"auto"``: ``"raw"`` for one-step rows (a tabular model) and for
        symbols (every feature takes at most two values, e.g. one-hot strings
        or +-1 codes); for real-valued series ``"window"`` with step-level
        labels (a summary of the whole prefix would mix the segments seen so
        far), else ``"shape"``. The choice is ``features_``. To label every
        step, prefer :class:`HybridHMMClassifier`, whose states weigh the
        evidence of each step (see the User Guide, "Labelling every step").
    transition : {{transition}}, default="input"
        Family of state networks:

        {{transition_list}}
    emission : {{emission}}, default="input"
        What the output networks see of each step; each state's network gives
        P(y | state, input) as a softmax regression of what it sees:

        {{emission_list}}
    n_hidden : int, default=8
        Hidden units of the networks that are ``"mlp"`` (``transition`` or
        ``emission``); unused otherwise.
    topology : {"ergodic", "left-right"} or array-like of shape (n_states, n_states), \
            default="ergodic"
        Allowed transitions: all, left-to-right (stay or move to the next state),
        or a boolean mask ``mask[j, i]`` = transition j -> i allowed.
    startprob : {"learn", "uniform", "stationary"} or array-like of shape \
            (n_states,), default="learn"
        Distribution of the state before the first input: learned, fixed uniform,
        fixed to the given distribution, or (``"stationary"``, with
        ``transition="homogeneous"`` and ``solver="lbfgs"``) the stationary
        distribution of the learned transition matrix.
    solver : {"lbfgs", "em"}, default="lbfgs"
        ``"lbfgs"`` minimises the penalised negative conditional log-likelihood with
        its exact gradient; ``"em"`` is the paper's GEM algorithm.
    alpha : float or "auto", default="auto"
        L2 penalty on the input weights (not the intercepts): the precision of a
        Gaussian prior, against the summed log-likelihood (like ``1 / C`` of
        ``LogisticRegression``), so it fades as data grows. ``"auto"``: with
        sequence-level labels on the shape and window representations, chosen
        in ``fit`` by the exact leave-one-out error of a ridge read-out of the
        output networks' inputs over a grid of penalties (as
        ``RidgeClassifierCV`` chooses its own; with ``n_prefixes``, the prefixes
        of one sequence left out together), so that 20 sequences get a strong
        prior and 20,000 a weak one; on raw inputs and with step-level labels
        1e-2, small because near-deterministic transitions need large
        weights. The value used is ``alpha_``.
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
        Number of random initialisations; the best training objective is kept.
        Restarts alternate small random weights and near-permutation transitions.
        ``"auto"``: one start on the shape and window representations
        (``features_`` ``"shape"`` or ``"window"``, where the fit is close to
        convex); on raw inputs 50 for small problems (up to 2,000 steps in
        all), about 100,000 / n_steps for larger ones, at least 5 — local
        optima decide the result on small data, where restarts are cheap. The
        number used is ``n_init_``. With ``solver="lbfgs"``
        the restarts advance in lockstep and hopeless ones stop early (user
        guide, "Restarts").
    max_iter : int, default=200
        Maximum number of L-BFGS iterations (lbfgs) or EM iterations (em).
    tol : float, default=1e-5
        Convergence threshold on the change of the objective (mean per-sequence
        negative log-likelihood plus penalty).
    init : {{init}} or list of them, default="auto"
        The starting points of the restarts, restart k from the k-th entry of
        the list (cycled):

        {{init_list}}

        ``"auto"`` cycles through ``["random", "permutation"]``.
    init_scale : float, default=1.0
        Scale of the random initial weights: their standard deviation is
        ``0.3 * init_scale`` with linear state networks (``"input"``,
        ``"additive"``, the hierarchy's) and no tanh layer (such small starts
        reach a perfect fit of the grammars more often), ``init_scale``
        otherwise.
    random_state : int, RandomState instance or None, default=None
        Controls the initialisations.
    verbose : int, default=0
        1 prints a line per restart (its objective, the best so far, the elapsed
        time), 2 also one per iteration. With ``solver="lbfgs"`` the restarts
        advance in lockstep: their iteration lines, each naming its restart,
        print as the batch advances, and their restart lines when it ends; a
        restart "stopped after N iterations" was too far above the best restart
        to reach it within ``max_iter`` at its recent pace, and was stopped
        early as it cannot be kept.
    n_jobs : int, default=None
        Threads over sequences in the forward-backward kernels and in those
        of the shape representation (its thresholds' convolutions, prefix
        means and projections), in ``fit`` and ``predict``.
    warm_start : bool, default=False
        Continue from the fitted parameters (``n_init``, ``init``,
        ``init_scale`` and ``random_state`` then play no part); data or
        parameters that would change the model's shape are refused. User
        guide, "Continuing a fit".
    readout : {"last", "mean"}, default="last"
        How :meth:`predict`, :meth:`predict_proba`, :meth:`predict_log_proba` and
        :meth:`score` turn the model's per-step outputs into one class
        distribution per sequence (sequence-level labels only). ``"last"``: the
        output at the last step, P(y | u_1..T) (the paper's). ``"mean"``: the
        mean of log P(y | u_1..t) over the steps t from ``readout_start`` on,
        renormalised over the classes (a normalised geometric mean): every
        averaged step adds its own evidence. It only changes the prediction,
        not the fit, so it can be switched with ``set_params`` after ``fit``.
    readout_start : float in [0, 1], default=0.5
        Where the mean read-out starts, as a fraction of each sequence: a
        sequence of T steps averages its steps t >= floor(readout_start *
        (T - 1)) (0-based), so 0 averages every step and 1 the last step alone.
        Ignored with ``readout="last"``.
    n_prefixes : int or array-like of float, default=1
        Train on prefixes of every sequence, each labelled with the
        sequence's class: with an int k, the k prefixes of lengths
        ceil(j T / k) for j = 1..k (1: the sequences themselves, the paper's
        training); with fractions in (0, 1], the prefixes of lengths
        ceil(f T), ``x[:int(np.ceil(f * len(x)))]``, for each fraction f
        (``[1.0]`` is the sequences themselves, as 1). To
        classify early, give the fractions of the sequence at which you will
        answer (e.g. ``[0.2, 0.3, 0.5, 1.0]``, with
        ``features="shape_centred"``, the more accurate on prefixes): the
        model reads best the prefix lengths it was trained on, and is
        weakest between them (see the User Guide, "Early classification").
        Each of n prefixes carries
        ``sample_weight / n`` of its sequence, so a sequence weighs the same
        in all and ``alpha`` keeps its strength (an integer weight still
        equals repeating the sequence, prefixes and all); prefixes of equal
        length (short sequences) are merged and their weights added. Pairs with
        ``readout="mean"``: the model is then trained to give the class at
        the intermediate steps it is averaged over. Fitting costs the steps
        of all the prefixes (with k: about (k + 1) / 2 times the sequences'),
        and ``n_init="auto"`` counts those steps. Sequence-level labels only,
        but for 1 (or ``[1.0]``), which trains on the sequences themselves.

    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, as in scikit-learn's classifiers: a dict
        ``{label: weight}``, ``"balanced"`` (n_targets / (n_classes * count of
        the class), counted with ``sample_weight``) or None (all 1). With
        sequence-level labels a class weight multiplies its sequences' weights;
        with step-level labels it is the exponent of the output likelihood of
        every step labelled with that class. A sequence of weight 0 by its
        class (with step-level labels: whose labels are all of classes of
        weight 0) is left out as one of ``sample_weight`` 0 is. Weights must
        be finite and non-negative, and not all zero. A class weight weighs;
        it counts no copies: where the fit counts sequences (the shape
        representation is fitted on the sequences repeated by their integer
        ``sample_weight``, and the leave-one-out of ``alpha="auto"`` and of
        the supervised axes leaves out one of those copies) only
        ``sample_weight`` counts. So an integer ``sample_weight`` equals
        repeating the sequence whatever the class weights, as in
        scikit-learn's ``LogisticRegression``; a class weight equals the same
        ``sample_weight`` in the likelihood, not where sequences are counted.

    Attributes
    ----------
    alpha_ : float
        The L2 penalty of the fit (``alpha``, or the one ``"auto"`` chose).
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    outputs_ : object
        The fitted output distribution: the targets' encoding (and, for real
        targets, their scaling), which the predictions use.
    startprob_ : ndarray of shape (n_states,)
        Distribution of the initial state.
    transition_coef_, transition_intercept_ : ndarray
        State-network weights; shapes depend on ``transition`` (for ``"input"``,
        ``(n_features, n_states, n_states)`` and ``(n_states, n_states)``, indexed
        ``[.., from, to]``). ``"gated"`` has ``transition_gate_coef_`` and
        ``transition_gate_intercept_`` instead of ``transition_coef_``;
        ``"homogeneous"`` only the intercept (the transition logits).
    emission_coef_ : ndarray of shape (n_features, n_states, n_classes)
        Output-network weights (``emission="input"`` only).
    emission_intercept_ : ndarray of shape (n_states, n_classes)
        Output-network intercepts (the class logits of each state).
    n_features_in_ : int
        Number of features per step.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features, when X was a DataFrame with string column names.
    n_iter_ : int
        Iterations of the best initialisation.
    converged_ : bool
        Whether the best initialisation converged.
    log_likelihood_ : float
        Weighted training conditional log-likelihood, sum_s w_s log P(y_s | u_s)
        (with ``n_prefixes`` > 1: summed over the prefixes with their weights),
        as the fit read the training sequences: with the shape representation's
        ridge decisions, their cross-fitted values, so not the sum of
        ``score_samples`` on the training data.
    objective_ : float
        The minimised objective at the solution.
    loss_curve_ : list of float
        The objective at each iteration of the best initialisation
        (``solver="em"``: first at its start, then after each kept iteration;
        an undone over-relaxed one counts in ``n_iter_`` only).
    features_ : str
        The name of the representation used, ``"raw"``, ``"shape"``,
        ``"shape_centred"`` or ``"window"`` (``features`` with ``"auto"``
        resolved on the training data; of an object, its name, e.g.
        ``"shape"`` for ``ShapeFeatures(...)``).
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
        Whether the model was fitted on step-level labels (``predict`` then
        returns a label for every step).

    See Also
    --------
    IOHMMRegressor : The same model with Gaussian outputs.
    skseq.preprocessing.WindowMean : Shorter sequences by window means.
    skseq.preprocessing.SequenceFeatures : Differences and relative time as
        extra inputs.

    References
    ----------
    Y. Bengio and P. Frasconi, "Input/Output HMMs for Sequence Processing",
    IEEE Transactions on Neural Networks 7(5), 1996.

    Examples
    --------
    >>> from skseq import IOHMMClassifier
    >>> from skseq.datasets import make_tomita
    >>> X, y = make_tomita(4, n_samples=100, random_state=0)
    >>> clf = IOHMMClassifier(n_states=4, emission="state", random_state=0).fit(X, y)
    >>> clf.predict(X[:3]).shape
    (3,)

    The mean read-out, trained on 4 prefixes of every sequence:

    >>> clf = IOHMMClassifier(n_states=4, n_init=2, readout="mean", n_prefixes=4,
    ...                       random_state=0).fit(X, y)
    >>> clf.predict_proba(X[:2]).shape
    (2, 2)
    """

    _output = "categorical"

    _parameter_constraints: dict = {
        **FlatIOHMM._parameter_constraints,
        **CategoricalOutputs.constraints,
        **option_constraints("features", "transition", "emission", "init"),
        "readout": [StrOptions({"last", "mean"})],
        "readout_start": [Interval(numbers.Real, 0, 1, closed="both")],
        "n_prefixes": [Interval(numbers.Integral, 1, None, closed="left"),
                       "array-like"],
        "class_weight": [StrOptions({"balanced"}), dict, None],
    }

    def __init__(
        self,
        n_states=4,
        *,
        features="auto",
        transition="input",
        emission="input",
        n_hidden=8,
        topology="ergodic",
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
        readout="last",
        readout_start=0.5,
        n_prefixes=1,
        class_weight=None,
    ):
        self.readout = readout
        self.readout_start = readout_start
        self.n_prefixes = n_prefixes
        self.class_weight = class_weight
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

    def _fit(self, seqs, y, sample_weight):
        n_prefixes = check_prefixes(self.n_prefixes)
        whole = isinstance(n_prefixes, numbers.Integral) and n_prefixes == 1
        if whole and self.readout == "last":
            return super()._fit(seqs, y, sample_weight)
        weight = check_sample_weight(sample_weight, seqs.n_sequences)
        targets = check_targets(y, seqs, task="classification")
        if targets.step_level:
            given = [f"readout={self.readout!r}"] if self.readout != "last" else []
            given += [] if whole else [f"n_prefixes={self.n_prefixes!r}"]
            raise ValueError(
                f"With {' and '.join(given)}, y must give sequence-level labels "
                "(one per sequence), not labels per step. Use readout='last' and "
                "n_prefixes=1 (the defaults) with step-level labels."
            )
        if whole:
            return super()._fit(seqs, targets.values, weight)
        prefixes, parent, share = checked_prefix_sequences(
            self, seqs, n_prefixes, self.n_prefixes)
        # the prefixes of one sequence are one group for the penalty and the
        # supervised axes
        return super()._fit(prefixes, targets.values[parent],
                            weight[parent] * share,
                            CopyWeights(parent=parent, parent_weight=weight))

    def _readout(self):
        # documented as switchable with set_params after fit: checked where
        # it is read, not only by fit's validation
        check_params(self, ("readout", "readout_start"))
        return self.readout, self.readout_start

    def _target_weights(self, seqs, targets, weight):
        """Class weights: sequence-level labels multiply their sequence's weight
        (as in scikit-learn); step-level labels raise their step's output
        likelihood to the weight of its class."""
        if self.class_weight is None:
            return weight, None
        per_class = class_weights(self.class_weight, self.classes_, targets.values,
                                  weight[seqs.sequence_of(targets.steps)])
        if targets.step_level:
            return weight, per_class[targets.values]
        return weight * per_class[targets.values], None

    @dask_aware
    def predict_proba(self, X):
        """Class probabilities given the inputs.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

        Returns
        -------
        proba : ndarray of shape (n_sequences, n_classes), or list of ndarray
            For a model fitted on sequence-level labels, the class distribution
            of each sequence given by the read-out: P(y | u_1..T) at the last
            step (``readout="last"``), or the normalised geometric mean of
            P(y | u_1..t) over the averaged steps (``readout="mean"``). For
            step-level labels: a list with one ``(len_i, n_classes)`` array per
            sequence. A sequence's representation and state distributions are
            the same bit for bit whatever the other sequences in the call; its
            probabilities may differ in the last bit (a few 1e-16), since the
            output networks' matrix products round differently for other
            numbers of rows.
        """
        mix = self._mixture(self._checked(X))
        return self.outputs_.predict_proba(mix)

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

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

    @dask_aware
    def predict(self, X):
        """Most probable class.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

        Returns
        -------
        labels : ndarray of shape (n_sequences,), or list of ndarray
            One label per sequence, or (step-level model) a list of per-step labels.
        """
        mix = self._mixture(self._checked(X))
        return self.outputs_.predict(mix)

    def score(self, X, y, sample_weight=None):
        """Mean accuracy on the given data.

        Sequence-level labels: the fraction of sequences classified correctly
        (weighted by ``sample_weight``). Step-level labels: the fraction of labelled
        steps predicted correctly (each step weighted by its sequence's weight).
        As :func:`sklearn.metrics.accuracy_score`, labels of another type than
        ``classes_`` (strings against numbers) raise a ``ValueError``.

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

    def to_automaton(self, alphabet=None, min_proba=0.9, *, accept_empty=None):
        """Read the learned machine off a near-deterministic model.

        For symbolic inputs (one-hot features: symbol k is the unit vector e_k)
        and a binary Moore model (``emission="state"``): the states reachable
        from the start state, breadth-first over the symbols, with each
        transition's most likely successor (Bengio & Frasconi 1996, §6: trained models
        whose transition probabilities converge to 0 or 1 behave like finite automata).

        The empty string is the one input the model never classifies: the class
        is emitted by the state reached after each symbol, so the start state's
        own emission is not learned (unless some string returns to it). Whether
        the machine accepts the empty string is therefore inferred as in
        :meth:`DiscretizedRNNClassifier.extract_automaton`: of the two machines
        that agree with the model on every non-empty string, the one whose
        minimal machine is smaller (on a tie, the accepting one). When a string
        leads back to the start state, the start state is split in two so that
        the choice concerns the empty string alone.

        Parameters
        ----------
        alphabet : sequence of hashable, default=None
            Symbol labels, one per input column; default the feature names, or
            "0", "1", ...
        min_proba : float, default=0.9
            Every transition and the start distribution used by the machine must
            give its most likely state at least this probability; in [0, 1).
        accept_empty : bool or None, default=None
            Whether the machine accepts the empty string; None infers it as
            above.

        Returns
        -------
        dfa : skseq.automata.DFA
            Accepting states are those whose probability of ``classes_[1]`` is at
            least 0.5 (the start state: see above). States numbered in
            breadth-first order, start state 0. Call ``.minimize()`` for the
            minimal machine.

        Raises
        ------
        ValueError
            If the model is not binary, not ``emission="state"``, not fitted
            with ``features="raw"`` on one-hot inputs, not
            ``readout="last"``, or not near-deterministic on its reachable
            states.
        """
        from ._read_machine import (
            check_accept_empty,
            check_threshold,
            infer_empty_string,
            reachable_machine,
            symbol_alphabet,
        )

        check_is_fitted(self)
        self._check_symbol_model()
        check_threshold(min_proba, "min_proba")
        check_accept_empty(accept_empty)
        n_symbols = self.n_features_in_
        alphabet = symbol_alphabet(self, alphabet)
        # one one-step sequence per symbol: (symbol, from, to)
        trans = self.transition_proba(np.eye(n_symbols)[:, None, :])[:, 0]
        start = int(np.argmax(self.startprob_))
        if self.startprob_[start] < min_proba:
            raise ValueError(
                f"The start distribution is not near-deterministic: its most likely "
                f"state has probability {self.startprob_[start]:.3f} < "
                f"min_proba={min_proba}."
            )
        order, rows = reachable_machine(trans, start, alphabet, min_proba)
        accept = softmax(self.emission_intercept_, axis=1)[order, 1] >= 0.5
        return infer_empty_string(alphabet, rows, accept, accept_empty)

    def _check_symbol_model(self):
        """Refuse a model :meth:`to_automaton` cannot read: not a binary Moore
        model, not fitted on one-hot symbols with ``features="raw"``, or
        reading out a mean over the steps."""
        if self.emission != "state" or len(self.classes_) != 2:
            raise ValueError(
                "to_automaton needs a binary model with emission='state' (the class "
                "must depend on the state alone, as in a Moore machine)."
            )
        if self.features_ != "raw" or not getattr(self, "_one_hot_inputs_", False):
            what = (f"its representation is features_={self.features_!r}"
                    if self.features_ != "raw" else
                    "its training inputs were not one-hot symbols")
            raise ValueError(
                f"to_automaton needs a model of symbols: {what}. The machine is "
                "read off by feeding one symbol (a one-hot row) at a time, which "
                "only a features='raw' model fitted on one-hot inputs (e.g. "
                "Stepwise(OneHotEncoder())) interprets as a symbol."
            )
        if self.readout != "last":
            raise ValueError(
                f"to_automaton needs readout='last', got readout={self.readout!r}: "
                "a mean over the steps is not the class of the state reached "
                "after the last symbol, so no machine would classify as predict "
                "does. set_params(readout='last') reads the machine of the class "
                "at the last step."
            )

