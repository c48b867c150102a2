"""DiscretizedRNNClassifier: the self-clustering second-order recurrent net.

Zeng, Goodman & Smyth (1993). A second-order ("gated") recurrent net
whose hidden units are discretized to two values in training *and* use, so its
states are isolated points in activation space: it behaves exactly like a
finite-state machine, stays correct on arbitrarily long strings once it has
learned one, and the machine can be read off directly.

The net's dynamics, gradient and state search live in ``skseq._rnn_net``.
"""

import math
import numbers
import time

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from ._data import (
    NumberParams,
    accuracy,
    check_fitted_params,
    check_number,
    check_sample_weight,
    check_score_weight,
    check_targets,
    quote,
    record_fit_lengths,
    record_fitted_params,
    restore_on_failure,
    validate_sequences,
)
from ._fit.monitor import warn_not_converged
from ._fit.resources import check_allocation
from ._fit.restarts import run_restarts
from ._read_machine import check_accept_empty, infer_empty_string, symbol_alphabet
from ._rnn_net import Lockstep, SecondOrderNet

__all__ = ["DiscretizedRNNClassifier"]

# The parameters that shape the fitted net's dynamics: changed by set_params
# without refitting, they would no longer match coef_ (a matmul error for
# n_hidden, silently other predictions for the others).
_NET_PARAMS = ("n_hidden", "discretize", "high", "low")


def _n_indicators(n_classes):
    """One indicator unit for two classes (§2), else one per class."""
    return 1 if n_classes == 2 else n_classes


class DiscretizedRNNClassifier(ClassifierMixin, NumberParams, BaseEstimator):
    """Self-clustering second-order recurrent net with discretized states.

    The net of Zeng, Goodman & Smyth (1993). Each step reads one input vector
    u_t and updates ``n_hidden`` units through second-order (multiplicative)
    connections,

        h_t,i = sigma(sum_jk W_ijk S_t-1,j u_t,k + b_i),
        S_t,i = D(h_t,i),   D(h) = high if h >= 0.5 else low

    (Zeng, Goodman & Smyth 1993, §3; the paper has no bias b). With one-hot symbols,
    W[:, :, k] is the paper's "net k" that symbol k switches on (§2, Figure 1); any real
    features work too. The discretization is used while training *and*
    predicting, so the states S are a finite set of isolated points: the
    trained net is exactly a finite-state machine, it stays correct on strings
    of any length, and :meth:`extract_automaton` reads the machine off.
    ``discretize=False`` gives the analog second-order net of the paper's §2
    (S_t = h_t), whose state clusters can drift and merge on long strings.

    Output: hidden unit 0 is the indicator unit (§2): for two classes, the
    sequence is of class ``classes_[1]`` iff h_L,0 >= 0.5 at its last step L.
    With K > 2 classes units 0..K-1 are one indicator per class (one-vs-rest)
    and the class is the argmax of their analog values. They are trained on the
    paper's squared error at the last step (§4),

        E = 1/2 sum_c (h_L,c - T_c)^2,   T = 1 for the true class, else 0,

    averaged over sequences (weighted by ``sample_weight``) by full-batch
    gradient descent. The gradient is back-propagation through time with the
    paper's pseudo-gradient (§4): D's derivative, zero almost everywhere, is
    replaced by the sigmoid's, so dS/da := sigma'(a); for ``discretize=False``
    this is the exact gradient. Training stops as soon as no training sequence
    is misclassified (§5: "zero error"), or after ``max_iter`` epochs.

    The start state S_0 is fixed, not learned: the indicator unit on (``high``)
    and the others off (``low``), the paper's "the null string is legal" (§2;
    1 and 0 for the analog net). Only sequence-level labels are supported.

    Parameters
    ----------
    n_hidden : int, default=5
        Number of hidden units, including the indicator unit(s); at least the
        number of classes when there are more than two. The net has at most
        ``2 ** n_hidden`` states.
    discretize : bool, default=True
        Discretize the hidden units (Zeng, Goodman & Smyth 1993, §3); False gives the
        analog second-order net (§2).
    high, low : float, default=0.8, 0.2
        The two values of a discretized unit (§3), ``0 <= low < high <= 1``.
    learning_rate : float, default=10.0
        Step size of gradient descent on E averaged over the sequences (the
        average makes it independent of the number of sequences; the
        sigmoids' small slopes make large steps the right scale).
    max_iter : int, default=1000
        Maximum number of epochs (full-batch updates) per initialization; the
        paper's nets learned in fewer than 500 (§2).
    n_init : int, default=3
        Number of random initializations. The first that reaches zero training
        error is kept; if none does, the weights of the epoch with the fewest
        training errors (then the lowest E) over all of them.
    tol : float or None, default=None
        If set, training also waits until every training sequence's indicator
        error is below ``tol``, ``max_c |h_L,c - T_c| < tol``; the paper's criterion
        for the analog net (§5, with ``tol=0.2``).
    random_state : int, RandomState instance or None, default=None
        Controls the initial weights, uniform on [-1, 1] (§2).
    verbose : int, default=0
        1 prints a line per initialization, 2 also one per epoch.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    coef_ : ndarray of shape (n_hidden, n_hidden, ``n_features_in_``)
        Second-order weights W_ijk: to unit i, from unit j, gated by feature k.
    intercept_ : ndarray of shape (n_hidden,)
        Biases b_i.
    n_features_in_ : int
        Number of features per step.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features, when X was a DataFrame with string column names.
    n_iter_ : int
        Epochs (weight updates) run by the kept initialization.
    converged_ : bool
        Whether the kept initialization reached zero training error (and the
        ``tol`` criterion, if set).
    loss_curve_ : list of float
        The training error E before each epoch of the kept initialization, and
        after its last one.
    n_init_ : int
        Number of initialisations run (the search stops at the first that fits
        the training set).
    init_objectives_ : ndarray of shape (n_init_,)
        Whether each initialisation failed to fit the training set (1.0) or
        fitted it (0.0): the first key by which they are ranked (then the
        training error and the loss).

    See Also
    --------
    skseq.automata.DFA : The machine returned by :meth:`extract_automaton`.
    IOHMMClassifier : A probabilistic discrete-state model of sequences.

    References
    ----------
    Z. Zeng, R. M. Goodman and P. Smyth, "Learning Finite State Machines With
    Self-Clustering Recurrent Networks", Neural Computation 5(6), 1993.

    Examples
    --------
    >>> from skseq.rnn import DiscretizedRNNClassifier
    >>> from skseq.datasets import make_tomita
    >>> X, y = make_tomita(4, n_samples=200, max_length=15, random_state=0)
    >>> clf = DiscretizedRNNClassifier(random_state=0).fit(X, y)
    >>> clf.converged_, clf.score(X, y)
    (True, 1.0)
    >>> clf.extract_automaton().minimize().n_states
    4
    """

    _parameter_constraints: dict = {
        "n_hidden": [Interval(numbers.Integral, 1, None, closed="left")],
        "discretize": ["boolean"],
        "high": [Interval(numbers.Real, 0, 1, closed="both")],
        "low": [Interval(numbers.Real, 0, 1, closed="both")],
        "learning_rate": [Interval(numbers.Real, 0, None, closed="neither")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_init": [Interval(numbers.Integral, 1, None, closed="left")],
        "tol": [None, Interval(numbers.Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        n_hidden=5,
        *,
        discretize=True,
        high=0.8,
        low=0.2,
        learning_rate=10.0,
        max_iter=1000,
        n_init=3,
        tol=None,
        random_state=None,
        verbose=0,
    ):
        self.n_hidden = n_hidden
        self.discretize = discretize
        self.high = high
        self.low = low
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.n_init = n_init
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose

    def _net(self):
        return SecondOrderNet(self.n_hidden, self.discretize, self.high, self.low)

    def _validate_X(self, X, reset):
        # the fit records the lengths of the sequences it reads
        return validate_sequences(self, X, reset=reset, record_lengths=False)

    def _encode_targets(self, y, seqs, weight):
        targets = check_targets(y, seqs, task="classification")
        if targets.step_level:
            raise ValueError(
                f"{type(self).__name__} does not support step-level labels: give "
                "one label per sequence (it supervises the sequence's last step)."
            )
        classes, encoded = np.unique(targets.values, return_inverse=True)
        if classes.shape[0] < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least 2 classes in the "
                "data, but the data contains only one class: "
                f"{quote(classes[0])}."
            )
        weighted = np.unique(encoded[weight > 0])
        if weighted.shape[0] < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least 2 classes with a "
                f"positive sample_weight, but only class "
                f"{classes[weighted[:1]].tolist()[0]!r} "
                "has any."
            )
        n_outputs = _n_indicators(classes.shape[0])
        if n_outputs > self.n_hidden:
            raise ValueError(
                f"n_hidden={self.n_hidden} is too small for {n_outputs} classes: "
                "each class needs its own indicator unit."
            )
        return classes, encoded

    @staticmethod
    def _decide(out):
        """Class index from the indicator activations (n_sequences, n_outputs)."""
        if out.shape[1] == 1:
            return (out[:, 0] >= 0.5).astype(np.intp)
        return np.argmax(out, axis=1)

    def fit(self, X, y, sample_weight=None):
        """Train the net by (pseudo-)gradient descent.

        Parameters
        ----------
        X : array-like of shape (n_sequences, max_len, n_features) or list
            Sequences: a 3-D array padded at the end with NaN rows, a list of
            ``(len_i, n_features)`` arrays, or a 2-D array of one-step sequences.
        y : array-like of shape (n_sequences,)
            One label per sequence.
        sample_weight : array-like of shape (n_sequences,), default=None
            Per-sequence weights of the squared error.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        with restore_on_failure(self):
            self._validate_params()
            if self.low >= self.high:
                raise ValueError(
                    f"low must be smaller than high, got low={self.low}, "
                    f"high={self.high}."
                )
            seqs = self._validate_X(X, reset=True)
            return self._fit(seqs, y, sample_weight)

    def _fit(self, seqs, y, sample_weight):
        weight = check_sample_weight(sample_weight, seqs.n_sequences)
        classes, encoded = self._encode_targets(y, seqs, weight)
        n_outputs = _n_indicators(classes.shape[0])
        if n_outputs == 1:
            target = encoded[:, None].astype(np.float64)
        else:
            target = np.eye(n_outputs)[encoded]
        shape = (self.n_hidden, self.n_hidden, seqs.n_features)
        # the weights, their gradient and step (a few copies), and per step the
        # activations and second-order inputs
        check_allocation(
            self, 8 * (4 * math.prod(shape)
                       + seqs.data.shape[0] * self.n_hidden * (seqs.n_features + 2)),
            f"n_hidden={self.n_hidden} units (weights, gradients, activations)",
            "use fewer hidden units.")
        net = self._net()
        batch = Lockstep(seqs)
        rng = check_random_state(self.random_state)

        def attempts():
            for _ in range(self.n_init):
                W = rng.uniform(-1.0, 1.0, size=shape)
                yield self._descend(net, batch, W, target, encoded, weight)

        # Starts are ranked by (not converged, training error, loss), and the
        # first that fits the training set ends the search.
        best, objectives = run_restarts(attempts(), self.n_init, verbose=self.verbose,
                                        stop=lambda result: result["converged"])
        if best is None:
            raise ValueError(
                f"{type(self).__name__}: every initialization diverged (the loss "
                "overflowed); scale the features, e.g. with "
                "skseq.preprocessing.Stepwise(StandardScaler())."
            )
        if not best["converged"]:
            warn_not_converged(
                self, f"did not converge in {len(objectives)} initialization(s) of "
                f"max_iter={self.max_iter} epochs (best training error "
                f"{best['error']:.4g}); try a larger max_iter, n_init or n_hidden.")
        self.classes_ = classes
        self.coef_ = best["coef"]
        self.intercept_ = best["intercept"]
        self.n_iter_ = best["n_iter"]
        self.converged_ = best["converged"]
        self.loss_curve_ = best["curve"]
        self.n_init_ = len(objectives)
        self.init_objectives_ = objectives
        # the lengths of the sequences fitted (weight 0: a share of 0)
        record_fit_lengths(self, seqs.lengths[weight > 0])
        # extract_automaton feeds one symbol (a unit vector) at a time: were the
        # training inputs (of the sequences fitted) such symbols?
        U = seqs.data[np.repeat(weight > 0, seqs.lengths)]
        self._one_hot_inputs_ = bool(((U == 0) | (U == 1)).all()
                                     and (U.sum(axis=1) == 1).all())
        record_fitted_params(self, _NET_PARAMS)
        return self

    def _descend(self, net, batch, W, target, encoded, weight):
        """One initialization: gradient descent until zero training error."""
        n_outputs = target.shape[1]
        share = weight / weight.sum()
        fitted = weight > 0
        b = np.zeros(self.n_hidden)
        curve = []
        best = {"objective": (True, np.inf, np.inf)}
        start = time.perf_counter()
        for epoch in range(self.max_iter + 1):
            H = net.forward(W, b, batch)
            out = H[batch.final, :n_outputs]
            residual = out - target
            loss = 0.5 * share @ np.square(residual).sum(axis=1)
            wrong = self._decide(out) != encoded
            error = share @ wrong
            curve.append(float(loss))
            converged = not wrong[fitted].any() and (
                self.tol is None or np.abs(residual[fitted]).max() < self.tol
            )
            if self.verbose >= 2:
                print(f"  Epoch {epoch}\t time lapse {time.perf_counter() - start:.3f}s"
                      f"\t loss {loss:.6g}\t training error {error:.4g}")
            key = (not converged, error, loss)
            if key < best["objective"]:
                best = {"objective": key,
                        "coef": W.copy(), "intercept": b.copy(), "error": error,
                        "loss": loss, "converged": converged}
            if converged or epoch == self.max_iter:
                break
            d_final = np.zeros((batch.order.size, self.n_hidden))
            d_final[:, :n_outputs] = share[:, None] * residual
            gW, gb = net.gradient(W, batch, H, d_final)
            W = W - self.learning_rate * gW
            b = b - self.learning_rate * gb
        best.update(n_iter=epoch, curve=curve)
        return best

    def _indicators(self, X):
        """Analog indicator activations at each sequence's end."""
        check_is_fitted(self)
        check_fitted_params(self)
        seqs = self._validate_X(X, reset=False)
        batch = Lockstep(seqs)
        H = self._net().forward(self.coef_, self.intercept_, batch)
        return H[batch.final, : _n_indicators(self.classes_.shape[0])]

    def predict(self, X):
        """Class of each sequence.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

        Returns
        -------
        labels : ndarray of shape (n_sequences,)
        """
        out = self._indicators(X)
        return self.classes_[self._decide(out)]

    def predict_proba(self, X):
        """Indicator activations, normalized to sum to one.

        Not calibrated probabilities: for two classes ``[1 - h, h]`` with h the
        indicator unit's analog value at the sequence's end; for more, each
        class's indicator value divided by their sum.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

        Returns
        -------
        proba : ndarray of shape (n_sequences, n_classes)
        """
        out = self._indicators(X)
        if out.shape[1] == 1:
            return np.hstack([1.0 - out, out])
        # `tiny` turns indicators that all underflowed to 0 into a uniform row.
        out += np.finfo(out.dtype).tiny
        return out / out.sum(axis=1, keepdims=True)

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences in any accepted form (3-D padded, list, 2-D rows).

        Returns
        -------
        log_proba : ndarray of shape (n_sequences, n_classes)
            Log of the normalised indicator values (-inf where one is 0).
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def score(self, X, y, sample_weight=None):
        """Mean accuracy on the given data (one label per sequence).

        y and sample_weight are validated like in ``fit``, so malformed labels
        get the same clear errors; as :func:`sklearn.metrics.accuracy_score`,
        labels of another type than ``classes_`` (strings against numbers)
        raise a ``ValueError``.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : array-like of shape (n_sequences,)
            One label per sequence.
        sample_weight : array-like of shape (n_sequences,), default=None

        Returns
        -------
        score : float
            The (weighted) fraction of sequences classified correctly.
        """
        check_is_fitted(self)
        seqs = self._validate_X(X, reset=False)
        targets = check_targets(y, seqs, task="classification")
        if targets.step_level:
            raise ValueError(
                f"{type(self).__name__} does not support step-level labels: give "
                "one label per sequence."
            )
        weight = (None if sample_weight is None
                  else check_score_weight(sample_weight, seqs.n_sequences))
        return accuracy(targets.values, self.predict(X), self.classes_, weight)

    def extract_automaton(self, alphabet=None, max_states=10_000, *,
                          accept_empty=None):
        """The finite-state machine the discretized net implements.

        Breadth-first search over the discrete states reachable from the start
        state S_0, each symbol k being the one-hot input e_k (Zeng, Goodman & Smyth
        1993, §5: every point of the discrete state space is a state). A state reached
        by a string accepts iff its indicator unit is on, i.e. the string is of class
        ``classes_[1]``. The result predicts exactly like the net on one-hot
        inputs; :meth:`~skseq.automata.DFA.minimize` gives the minimal machine.
        The net must have been fitted on one-hot inputs (symbols): for other
        features a unit vector is not an input it has learned to read, and a
        ValueError says so.

        The empty string is the one input the net never classifies (every
        sequence has a step), so whether the start state accepts is not the
        net's to say: S_0's indicator unit is on only by the paper's convention
        "the null string is legal" (§2). By default it is inferred by Occam's
        razor: of the two machines that agree with the net on every non-empty
        string, the one whose minimal machine is smaller (on a tie, the
        accepting one, the paper's convention). For "contains 'ab'" that is the
        rejecting start state, which merges with "no 'a' pending": the true
        3-state machine instead of 4 states. When a string leads back to S_0,
        the start state is split in two so that the choice concerns the empty
        string alone.

        Parameters
        ----------
        alphabet : sequence of hashable, default=None
            Labels of the ``n_features_in_`` symbols; by default the feature
            names if X had them, else ``"0"``, ``"1"``, ...
        max_states : int, default=10_000
            Give up (ValueError) beyond this many states; a net has at most
            ``2 ** n_hidden``.
        accept_empty : bool or None, default=None
            Whether the machine accepts the empty string; None infers it as
            above.

        Returns
        -------
        dfa : skseq.automata.DFA
            States numbered in breadth-first order, start state 0.
        """
        self._check_extractable(max_states, accept_empty)
        n_symbols = self.n_features_in_
        alphabet = symbol_alphabet(self, alphabet)
        transitions, accepting = self._net().reachable_states(
            self.coef_, self.intercept_, n_symbols, max_states)
        return infer_empty_string(alphabet, transitions, accepting, accept_empty)

    def _check_extractable(self, max_states, accept_empty):
        """Raise unless a fitted, discretized, binary net and valid arguments
        make :meth:`extract_automaton` well defined."""
        check_is_fitted(self)
        check_fitted_params(self)
        if not self.discretize:
            raise ValueError(
                "extract_automaton needs discretize=True: the analog net's states "
                "are points of a continuum, not a finite set."
            )
        if self.classes_.shape[0] != 2:
            raise ValueError(
                "extract_automaton needs a binary classifier (accept = "
                f"classes_[1]); this one has {self.classes_.shape[0]} classes."
            )
        if not getattr(self, "_one_hot_inputs_", False):
            raise ValueError(
                "extract_automaton needs a net of symbols: its training inputs "
                "were not one-hot. The machine is read off by feeding one symbol "
                "(a one-hot row) at a time, which only a net fitted on one-hot "
                "inputs (e.g. Stepwise(OneHotEncoder())) interprets as a symbol."
            )
        check_accept_empty(accept_empty)
        check_number(max_states, "max_states", integral=True, low=1)
