"""HybridHMMClassifier: step labelling with a hybrid HMM / per-step classifier.

A per-step classifier reads a causal window of the recent past and gives
P(label | window); divided by the label priors, its posteriors act as scaled
likelihoods of hidden states tied to the labels (Bourlard & Morgan 1994), and a
sticky Markov chain over those states, learned from the labelled sequences,
accumulates the evidence step by step (Bengio, De Mori, Flammia & Kompe 1992).
"""

import numbers
import warnings

import numpy as np
from joblib import effective_n_jobs
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, has_fit_parameter
from threadpoolctl import threadpool_limits

from ._data import (
    N_JOBS_CONSTRAINT,
    NumberParams,
    accuracy,
    check_fitted_params,
    check_sample_weight,
    check_targets,
    record_fit_lengths,
    record_fitted_params,
    restore_on_failure,
    score_targets,
    validate_sequences,
)
from ._data.checks import InputHintWarning
from ._families.duration_chain import learned_hazard
from ._families.label_chain import (
    fit_weights,
    label_chain,
    labelled_steps,
    segment_phases,
)
from ._hybrid_chain import HybridChainMixin
from ._hybrid_select import check_reading, choose, read

# The default weight, in the per-step classifier's fit, of the steps after a change.
ONSET_WEIGHT = 1.0


class HybridHMMClassifier(HybridChainMixin, ClassifierMixin, NumberParams,
                          BaseEstimator):
    """Label every step with a hybrid HMM over a per-step classifier.

    A per-step classifier (the "network" of a hybrid HMM/ANN) reads a causal
    window of each step's recent past and gives P(label | window). Divided by
    the label priors its outputs are scaled likelihoods P(window | label) /
    P(window) of hidden states tied to the labels (Bourlard & Morgan 1994), so
    that a Markov chain over those states weighs, at every step, how well each
    label explains what it reads, and accumulates that evidence over time. The
    chain is learned from the labelled sequences by counting: its transitions
    are as sticky as the labelled segments are long. Several states per label
    (left to right) model how long segments last.

    ``predict`` is causal: the label at step ``t`` is the most probable under
    the forward filter P(x_t | u_1..t), so a prefix's prediction is the prefix
    of the full sequence's. ``algorithm="smooth"`` (forward-backward marginals)
    and ``algorithm="viterbi"`` (the most likely label path) use the whole
    sequence, for segmentation after the fact. For step labelling
    :class:`IOHMMClassifier`'s conditional state cannot weigh evidence in this
    way (a next-state classifier suffers from label bias; Lafferty, McCallum &
    Pereira 2001): prefer this estimator (see the User Guide, "Labelling every
    step").

    Parameters
    ----------
    estimator : classifier or None, default=None
        The per-step classifier, with ``fit`` and ``predict_proba``; fitted on
        the labelled steps' window features, with ``sample_weight`` unless
        ``onset_weight=1`` and no ``sample_weight`` is given. None: a
        :class:`~sklearn.ensemble.HistGradientBoostingClassifier` with 100
        iterations (early stopping on 10% of the steps above 10,000 steps).
    window : int or "auto", default="auto"
        Steps of recent past that each step's features read. ``"auto"``: 8 or
        32, whichever makes the chain's causal filter label more held-out
        steps correctly: a classifier of each is fitted on a random half of
        the training sequences (the representation chosen at 32), the chain
        is counted from that half's labels, and the filter runs over the
        other half's sequences (at most about 20,000 steps; ties go to 32),
        at every candidate of ``likelihood_scale="auto"``, the window and the
        scale chosen together; the chain of labels with geometric durations,
        whatever ``durations`` and ``phase_targets`` (the label's posterior
        summed over its parts); with ``transitions="none"`` the labels the
        model gives alone. No choice is made, and 32 taken, when fewer than 2
        sequences hold labelled steps (of positive weight) or the fitting
        half holds only one label; ``features="auto"`` then takes
        ``"summaries"``. With ``features="multiscale"``, ``"auto"`` is 32,
        without a choice. A short window holds less of the previous segment
        after a change, and its evidence overlaps less with that of the
        neighbouring steps; a long one reads slower patterns. A window whose
        features cannot fit in memory is refused (ValueError), in fit and prediction.
    features : {"auto", "summaries", "lags", "multiscale"}, default="auto"
        What the per-step classifier reads of the last ``window`` steps.
        ``"summaries"``: per channel the current value, and the mean, maximum,
        minimum and standard deviation over the last ``window // 4`` and the
        last ``window`` steps (blind to the order of the steps and to the
        phase of a periodic signal). ``"lags"``: per channel the raw values
        of the last ``s = max(1, window // 8)`` steps and then every ``s``
        steps (11 of the last 32: lags 0-4, 8, ..., 28), which keep the order
        of the steps and show a recent change early. ``"auto"``: the one
        whose classifier labels more held-out steps correctly, fitted on a
        random half of the training sequences and scored on the other half
        (at most 20,000 labelled steps each), then refitted on all; one-step
        sequences have no past, and take ``"summaries"``. ``"multiscale"``:
        both views in one classifier, fitted once: the raw lags of
        ``"lags"`` at a window of ``max(1, window // 4)`` (each of the last 8
        steps for 32) and the summaries of ``"summaries"`` at ``window``
        (less the current value, the first lag); quicker to fit than
        ``"auto"``, but on sessions cut from BasicMotions' training
        recordings it labelled fewer steps correctly (User Guide).
    n_states_per_label : int, default=2
        Hidden states tied to each label, visited in turn within a segment;
        with ``durations="geometric"`` a segment then lasts at least that many
        steps (a sequence's first and last aside; a negative binomial law).
    phase_targets : bool, default=False
        With several states per label, train the per-step classifier to tell
        the states apart too: every labelled segment is cut into
        ``n_states_per_label`` parts of equal length, and the classifier
        predicts (label, part). Each state then has scaled likelihoods of its
        own, so that its states follow what the successive parts of a segment
        look like (a rise, a plateau, a peak). False: the states of a label
        share its likelihoods and differ only in their place in time.
    transitions : {"learned", "none"}, default="learned"
        ``"learned"``: the sticky chain counted from the labelled sequences.
        ``"none"``: every step's state drawn afresh from the label priors, its
        labels' probabilities ``prior ** (1 - s) * posterior ** s`` normalised,
        ``s = likelihood_scale`` (at 1 the per-step classifier's own; with
        ``phase_targets``, those of the (label, part) targets, summed over
        each label's parts).
    durations : {"geometric", "learned"}, default="geometric"
        How long segments last. ``"geometric"``: a segment ends at every
        step with the same probability, as in any Markov chain. ``"learned"``:
        a hidden semi-Markov chain (Ferguson 1980; Yu 2010), whose probability
        of ending a segment depends on how many steps it has lasted: a hazard
        per label from the labelled segments (Kaplan & Meier 1958; a
        sequence's last one censored), averaged over the 4 durations either
        side, constant beyond a high quantile of the lengths (see the User
        Guide). Prediction costs more (every state times every duration).
        Ignored with ``transitions="none"``.
    likelihood_scale : float or "auto", default=0.5
        Exponent applied to the scaled likelihoods: below 1, the per-step
        classifier is trusted less relative to the chain. Its posteriors come
        from overlapping windows, so neighbouring steps' evidence is far from
        independent, and a classifier's probabilities are often overconfident;
        a larger scale follows a change sooner but keeps more of the
        classifier's brief errors. ``"auto"``: 0.35, 0.5, 0.7 or 1.0,
        whichever makes the chain's causal filter label more held-out
        training steps correctly, chosen with the window as for
        ``window="auto"`` (ties go to the smaller scale; 0.5 when there is
        nothing to choose on): it chooses for the labels of the steps, and
        on BasicMotions' training sessions it chose scales that found fewer
        segment boundaries. It acts only in prediction: a number set after
        fit is used as it stands; ``"auto"`` set after a fit with a number is
        refused (the choice is made in fit). The defaults (2 states per label, the
        window chosen, a scale of 0.5) were chosen on sessions cut from the
        training recordings of BasicMotions and PLAID (see the User Guide,
        "Labelling every step").
    onset_weight : float, default=1.0
        Weight, in the per-step classifier's fit, of the first
        ``max(1, window_ // 2)`` steps of a segment that begins with a change
        of label inside a sequence, where the window still reads the previous
        segment (times the sequence's weight). Above 1 the classifier learns
        to give the new label from such mixed windows, a few steps earlier; the
        chain, which waits for evidence before it switches, then follows a
        change sooner, and filters the brief errors that such a classifier
        makes inside segments. 1: every labelled step weighs the same.
    n_jobs : int or None, default=None
        Threads of the per-step classifier's OpenMP loops (HistGradientBoosting
        uses them) in ``fit`` and prediction. None means 1, as everywhere in
        the package, so that a fit does not compete with other processes for
        the cores (OpenMP threads that wait for a busy core slow down a
        great deal); -1 uses every processor.
    random_state : int, RandomState instance or None, default=None
        Seeds the default classifier (its early-stopping split) or a given
        classifier's ``random_state``, and those of the estimators it holds
        (a pipeline's steps, a calibrated classifier's base) that are not
        fixed to an int.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Labels seen in fit.
    estimator_ : classifier
        The fitted per-step classifier.
    window_ : int
        The window it reads (``window``, or the one ``"auto"`` chose).
    features_ : {"summaries", "lags", "multiscale"}
        The representation it reads (``features``, or the one ``"auto"`` chose).
    likelihood_scale_ : float
        The fit's scale (``likelihood_scale`` or ``"auto"``'s choice); a
        number set after fit is used by predictions but leaves this attribute.
    class_prior_ : ndarray of shape (n_classes,)
        Label frequencies among the labelled steps, weighted as in the
        per-step classifier's fit (``sample_weight``, ``onset_weight``).
    target_prior_ : ndarray of shape (n_classes,) or (n_states,)
        Frequencies of the per-step classifier's targets: ``class_prior_``,
        or with ``phase_targets`` those of the (label, part) pairs.
    duration_hazard_ : ndarray of shape (n_classes, n_durations) or None
        With ``durations="learned"``: ``duration_hazard_[c, d - 1]`` is the
        probability that a segment of label ``classes_[c]`` ends after
        exactly ``d`` steps, given that it lasted ``d``; the last column
        holds for every longer duration. Else None.
    startprob_ : ndarray of shape (n_states,)
        Distribution of the state before the first step (the package's
        convention: the first step's state is drawn from it through one
        transition), counted from the first labels of the sequences. With
        ``durations="learned"`` the first segment's label is drawn from it
        directly (summed over the label's states), at its first state.
    transmat_ : ndarray of shape (n_states, n_states)
        ``transmat_[j, i] = P(x_t = i | x_{t-1} = j)``; state ``i`` stands for
        label ``classes_[i // n_states_per_label]``.
    step_level_ : bool
        Whether it was fitted on labels per step (else one per sequence).
    n_features_in_ : int
        Number of features per step.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features, when X was a DataFrame with string column names.

    See Also
    --------
    IOHMMClassifier : Input/output HMM, for sequence-level labels.

    Examples
    --------
    >>> import numpy as np
    >>> from skseq import HybridHMMClassifier
    >>> rng = np.random.default_rng(0)
    >>> means = np.repeat([0.0, 3.0, 0.0, 3.0], 25)
    >>> X = [(means + rng.normal(size=100))[:, None] for _ in range(6)]
    >>> y = [np.repeat(["low", "high", "low", "high"], 25) for _ in range(6)]
    >>> model = HybridHMMClassifier(window=8, random_state=0).fit(X, y)
    >>> model.features_  # chosen on held-out training sequences
    'lags'
    >>> model.predict(X[:1])[0][22:28].tolist()  # causal
    ['low', 'low', 'low', 'high', 'high', 'high']
    >>> model.predict(X[:1], algorithm="viterbi")[0][22:28].tolist()  # offline
    ['low', 'low', 'low', 'high', 'high', 'high']
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict_proba"]), None],
        "window": [Interval(numbers.Integral, 1, None, closed="left"),
                   StrOptions({"auto"})],
        "features": [StrOptions({"auto", "summaries", "lags", "multiscale"})],
        "n_states_per_label": [Interval(numbers.Integral, 1, None, closed="left")],
        "phase_targets": ["boolean"],
        "transitions": [StrOptions({"learned", "none"})],
        "durations": [StrOptions({"geometric", "learned"})],
        "likelihood_scale": [Interval(numbers.Real, 0, None, closed="neither"),
                             StrOptions({"auto"})],
        "onset_weight": [Interval(numbers.Real, 0, None, closed="neither")],
        "n_jobs": N_JOBS_CONSTRAINT,
        "random_state": ["random_state"],
    }

    def __init__(self, estimator=None, *, window="auto", features="auto",
                 n_states_per_label=2, phase_targets=False, transitions="learned",
                 durations="geometric", likelihood_scale=0.5,
                 onset_weight=ONSET_WEIGHT, n_jobs=None, random_state=None):
        self.estimator = estimator
        self.window = window
        self.features = features
        self.n_states_per_label = n_states_per_label
        self.phase_targets = phase_targets
        self.transitions = transitions
        self.durations = durations
        self.likelihood_scale = likelihood_scale
        self.onset_weight = onset_weight
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _threads(self):
        """The per-step classifier's OpenMP threads, ``n_jobs`` resolved."""
        return threadpool_limits(limits=effective_n_jobs(self.n_jobs),
                                 user_api="openmp")

    def _make_estimator(self, seed):
        if self.estimator is None:
            from sklearn.ensemble import HistGradientBoostingClassifier  # slow

            return HistGradientBoostingClassifier(random_state=seed)
        estimator = clone(self.estimator)
        if "random_state" in estimator.get_params(deep=False):
            estimator.set_params(random_state=seed)
        # the estimators it holds (a Pipeline's steps, the base of a
        # CalibratedClassifierCV), unless fixed: else every fit differs
        nested = sorted(key for key, value in estimator.get_params(deep=True).items()
                        if key.endswith("__random_state")
                        and not isinstance(value, numbers.Integral))
        if nested:
            rng = np.random.RandomState(seed)
            estimator.set_params(**{key: rng.randint(np.iinfo(np.int32).max)
                                    for key in nested})
        return estimator

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, sample_weight=None):
        """Fit the per-step classifier and the chain of label states.

        Parameters
        ----------
        X : array-like of shape (n_sequences, max_len, n_features) or list
            Sequences: a 3-D array padded at the end with NaN rows, a list of
            ``(len_i, n_features)`` arrays, or a 2-D array of one-step sequences.
        y : array-like of shape (n_sequences,) or list of arrays
            A list of per-step label arrays (NaN/None = unlabelled step), or
            one label per sequence, which labels its last step.
        sample_weight : array-like of shape (n_sequences,), default=None
            Per-sequence weights (of every labelled step of the sequence). The
            chain counts a sequence of integer weight ``w`` as ``w`` copies of
            it (its start, its transitions and, with ``durations="learned"``,
            its segments' durations), against pseudocounts of one step: scaling
            every weight changes how much those pseudocounts weigh. A whole
            fit with integer weights equals the fit on repeated sequences if
            the per-step classifier's own fit does (a logistic regression's
            does; the default classifier's does not: its ``min_samples_leaf``
            counts rows, not weight) and ``features``, ``window`` and
            ``likelihood_scale`` are given (``"auto"`` chooses them on a random
            half of the sequences, which repeating them changes). With
            ``durations="learned"`` the number of explicit durations is read
            from the segments' lengths, each segment once whatever its weight:
            repeating sequences can change it where weighting them does not.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        with restore_on_failure(self):
            seqs = validate_sequences(self, X, reset=True, record_lengths=False)
            targets = check_targets(y, seqs, task="classification")
            if not targets.step_level and seqs.lengths.max() > 1:
                warnings.warn(InputHintWarning(
                    "HybridHMMClassifier labels every step: given one label per "
                    "sequence, it learns from each sequence's last step only and "
                    "still predicts a label at every step. To classify whole "
                    "sequences use IOHMMClassifier(); to label steps give y one "
                    "label per step (a list of per-sequence arrays)."), stacklevel=3)
            weight = check_sample_weight(sample_weight, seqs.n_sequences)
            steps, step_weight, classes, encoded, labels = labelled_steps(
                seqs, targets, weight)
            k = self.n_states_per_label
            fit_targets, n_targets = encoded, classes.shape[0]
            if self.phase_targets and k > 1:
                phases = segment_phases(labels, seqs.offsets, k)[steps]
                fit_targets, n_targets = encoded * k + phases, classes.shape[0] * k
            seed = check_random_state(self.random_state).randint(
                np.iinfo(np.int32).max)
            weighted = sample_weight is not None
            check_reading(self, seqs, self.get_params(deep=False), len(classes))
            features, window, scale = choose(
                self.get_params(deep=False), self._fit_estimator, self._threads,
                seqs, steps, labels, encoded, fit_targets, weight, step_weight,
                weighted, seed)
            fit_weight = fit_weights(labels, seqs.offsets, steps, step_weight,
                                     weighted, window, self.onset_weight)
            estimator = self._fit_estimator(
                read(self, features, seqs, window)[steps], fit_targets,
                fit_weight, seed)
            self._fit_chain(labels, seqs.offsets, weight, encoded, fit_targets,
                            step_weight if fit_weight is None else fit_weight,
                            classes.shape[0], n_targets)
            self.classes_ = classes
            self.estimator_ = estimator
            self.features_ = features
            self.window_ = window
            self.likelihood_scale_ = scale
            self._scale_chosen_ = self.likelihood_scale == "auto"
            self.step_level_ = targets.step_level
            # the lengths of the sequences fitted (weight 0: a share of 0)
            record_fit_lengths(self, seqs.lengths[weight > 0])
            # the states' layout that prediction reads
            record_fitted_params(self, ("n_states_per_label",))
        return self

    def _fit_chain(self, labels, offsets, weight, encoded, fit_targets, step_weight,
                   n_classes, n_targets):
        """The label states' chain (counted from the labelled sequences) and
        the priors that turn the per-step posteriors into scaled likelihoods."""
        k = self.n_states_per_label
        prior = np.bincount(encoded, weights=step_weight, minlength=n_classes)
        target_prior = np.bincount(fit_targets, weights=step_weight,
                                   minlength=n_targets)
        startprob, transmat = label_chain(labels, offsets, n_classes, k,
                                          weight=weight)
        prior /= prior.sum()
        target_prior /= target_prior.sum()
        if self.transitions == "none":
            # every state drawn afresh from the classifier's target priors:
            # the filter then returns the per-step classifier's posteriors
            share = k * n_classes // n_targets  # states per target
            startprob = np.repeat(target_prior, share) / share
            transmat = np.tile(startprob, (startprob.shape[0], 1))
        self.duration_hazard_ = None
        if self.durations == "learned" and self.transitions == "learned":
            self.duration_hazard_ = learned_hazard(labels, offsets, weight,
                                                   n_classes, k)
        self.class_prior_ = prior
        self.target_prior_ = target_prior
        self.startprob_ = startprob
        self.transmat_ = transmat

    def _fit_estimator(self, features, targets, weight, seed):
        """A new per-step classifier fitted on ``features`` (weighted if
        ``weight`` is not None)."""
        estimator = self._make_estimator(seed)
        if weight is not None and not has_fit_parameter(estimator, "sample_weight"):
            raise ValueError(
                f"The estimator {type(estimator).__name__} does not accept "
                "sample_weight in fit, which onset_weight other than 1 and "
                "sample_weight need; set onset_weight=1 (and no sample_weight)."
            )
        with self._threads():
            if weight is None:
                estimator.fit(features, targets)
            else:
                estimator.fit(features, targets, sample_weight=weight)
        return estimator

    # -- inference -----------------------------------------------------------
    def _checked(self, X):
        check_is_fitted(self)
        check_fitted_params(self)
        return validate_sequences(self, X, reset=False)

    def _per_sequence(self, seqs, packed):
        """Per-step values as a list (step-level model), else the last step's."""
        if self.step_level_:
            return seqs.split(packed)
        return packed[seqs.last_steps]

    def predict_state_proba(self, X, *, smoothed=False):
        """Distributions of the hidden states at every step.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        smoothed : bool, default=False
            False: filtered, P(x_t | u_1..t) (causal). True: smoothed over the
            whole sequence, P(x_t | u_1..T).

        Returns
        -------
        proba : list of ndarray of shape (len_i, n_states)
            State ``i`` stands for label ``classes_[i // n_states_per_label]``.
        """
        seqs = self._checked(X)
        return seqs.split(self._state_proba(seqs, smoothed))

    def predict_proba(self, X, *, smoothed=False):
        """Label probabilities at every step.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        smoothed : bool, default=False
            False: P(label_t | u_1..t), causal. True: P(label_t | u_1..T).

        Returns
        -------
        proba : list of ndarray of shape (len_i, n_classes), or ndarray
            Per step (a model fitted on step-level labels), else of shape
            ``(n_sequences, n_classes)``: the distribution at each last step.
        """
        seqs = self._checked(X)
        return self._per_sequence(
            seqs, self._label_proba(self._state_proba(seqs, smoothed)))

    def predict_log_proba(self, X, *, smoothed=False):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        smoothed : bool, default=False
            False: causal. True: smoothed over the whole sequence.

        Returns
        -------
        log_proba : list of ndarray of shape (len_i, n_classes), or ndarray
        """
        proba = self.predict_proba(X, smoothed=smoothed)
        with np.errstate(divide="ignore"):
            return [np.log(p) for p in proba] if self.step_level_ else np.log(proba)

    def decode(self, X):
        """The most likely state path of every sequence (Viterbi).

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

        Returns
        -------
        states : list of ndarray of shape (len_i,)
            State ``i`` stands for label ``classes_[i // n_states_per_label]``.
        """
        seqs = self._checked(X)
        return seqs.split(self._viterbi(seqs))

    def predict(self, X, *, algorithm="filter"):
        """Most probable label of every step.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        algorithm : {"filter", "smooth", "viterbi"}, default="filter"
            ``"filter"``: the most probable label given the steps so far
            (causal: a prefix's prediction is the prefix of the full one).
            ``"smooth"``: the most probable label at each step given the whole
            sequence. ``"viterbi"``: the labels of the most likely state path,
            which never holds a transition the chain forbids.

        Returns
        -------
        labels : list of ndarray of shape (len_i,), or ndarray
            Per step (a model fitted on step-level labels), else one label per
            sequence (that of its last step).
        """
        if algorithm not in ("filter", "smooth", "viterbi"):
            raise ValueError(
                "algorithm must be 'filter', 'smooth' or 'viterbi', got "
                f"{algorithm!r}."
            )
        seqs = self._checked(X)
        if algorithm == "viterbi":
            index = self._viterbi(seqs) // self.n_states_per_label
        else:
            proba = self._label_proba(self._state_proba(seqs, algorithm == "smooth"))
            index = proba.argmax(axis=1)
        return self._per_sequence(seqs, self.classes_[index])

    def score(self, X, y, sample_weight=None):
        """Mean accuracy of the causal prediction.

        Sequence-level labels: the fraction of sequences classified correctly.
        Step-level labels: the fraction of labelled steps labelled correctly
        (each step weighted by its sequence's weight).

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
        seqs = self._checked(X)
        targets, weight = score_targets(y, seqs, sample_weight, task="classification",
                                        step_level=self.step_level_)
        proba = self._label_proba(self._state_proba(seqs, False))[targets.steps]
        return accuracy(targets.values, self.classes_[proba.argmax(axis=1)],
                        self.classes_, weight)
