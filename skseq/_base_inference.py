"""The inference half of the IOHMM estimators' base: what a fitted model says
about sequences (state distributions, transition matrices, likelihoods and
information criteria, Viterbi paths, samples).

:class:`IOHMMInference` is mixed into ``skseq._base.BaseIOHMM``: it reads the
fitted attributes once into a ``skseq._fit.objective.FittedModel`` (the fitted
chain, whose methods work on arrays) and leaves validation, targets and the
input representation to the estimator (``_validate_X``, ``outputs_``,
``representation_``).
"""

import hashlib

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ._base_dask import dask_aware, is_dask_collection, score_dask
from ._data import check_fitted_params, check_flag, score_targets
from ._families.outputs import Mixture, readout_rows
from ._fit.objective import FittedModel
from ._fit.resources import check_memory


def _digest(values):
    """A hash of the fitted attributes' values (arrays or lists of arrays)."""
    h = hashlib.blake2b(digest_size=16)
    for value in values:
        for arr in value if isinstance(value, list) else [value]:
            arr = np.ascontiguousarray(arr, dtype=np.float64)
            h.update(repr(arr.shape).encode())
            h.update(arr.tobytes())
    return h.hexdigest()



class IOHMMInference:
    """Inference methods of a fitted IOHMM (mixed into ``BaseIOHMM``)."""

    def _attribute_values(self, transition, emission):
        """The fitted attributes of the families' parameters, by block name."""
        return ({k: getattr(self, f"transition_{k}_") for k in transition.names},
                {k: getattr(self, f"emission_{k}_") for k in emission.names})

    def _pack_fitted(self):
        """Inference works on the parameters as the fitted attributes hold them,
        packed once at fit (again only if an attribute is changed by hand)."""
        transition, emission, _ = self._families_
        values_t, values_e = self._attribute_values(transition, emission)
        self._packed_ = (_digest([*values_t.values(), *values_e.values()]),
                         transition.pack(values_t), emission.pack(values_e))

    def _checked(self, X):
        """Validated sequences for a public inference method: the one validation
        of the call, after checking that the model is fitted and unchanged,
        and ``n_jobs``, which every prediction reads."""
        check_is_fitted(self)
        check_fitted_params(self)
        return self._validate_X(X, reset=False)

    def _fitted_model(self):
        """The families and parameters of the fitted attributes (packed at fit,
        and again only if an attribute was changed by hand since)."""
        transition, emission, mask = self._families_
        values_t, values_e = self._attribute_values(transition, emission)
        digest, theta_t, theta_e = self._packed_
        if _digest([*values_t.values(), *values_e.values()]) != digest:
            theta_t, theta_e = transition.pack(values_t), emission.pack(values_e)
        return FittedModel(transition, emission, theta_t, theta_e, mask,
                            self.startprob_)

    def _inputs(self, seqs, rows=()):
        """What the fitted networks see of the sequences: the state networks'
        inputs at every step, and the output networks' at ``rows``."""
        return self.representation_.inputs(seqs, rows, self.n_jobs)

    def _transitions(self, U, model):
        check_memory(self, U.shape[0], self._n_chain_states())
        return model.transitions(U)

    def _filtered(self, seqs, U, model):
        """zeta_t = P(x_t | u_1..t): the state distribution given the inputs only."""
        log_emit = np.zeros((U.shape[0], self._n_chain_states()))
        return model.forward(seqs.offsets, self._transitions(U, model), log_emit,
                             self.n_jobs).gamma

    def _observed(self, seqs, y, model, unobserved=False):
        """The outputs ``y`` observed (in any form ``fit`` accepts): the state
        networks' inputs and the emission log-likelihoods at every step.
        ``unobserved``: y may observe no step (then the inputs alone
        condition the states)."""
        targets = self.outputs_.encode(y, seqs, unobserved)
        U, U_targets = self._inputs(seqs, targets.steps)
        return U, model.log_emissions(U.shape[0], U_targets, targets), len(
            targets.steps)

    def _given_outputs(self, seqs, y, model, kind):
        """State distributions at every step given the inputs and the observed
        outputs ``y`` (steps without a target are skipped; ``kind`` as
        ``FittedModel.given_outputs``)."""
        U, log_emit, _ = self._observed(seqs, y, model, unobserved=True)
        return model.given_outputs(seqs.offsets, self._transitions(U, model),
                                   log_emit, kind, self.n_jobs)

    def _prediction_rows(self, seqs):
        """The packed rows a prediction reads, and for the mean read-out how
        many of each sequence it averages (else None): every step of a
        step-level model, else the read-out's (``_readout()``)."""
        readout, readout_start = self._readout()
        if self.step_level_ and readout != "last":
            raise ValueError(
                f"readout={readout!r} needs a model fitted on sequence-level "
                "labels; this one was fitted on step-level labels, whose "
                "predictions are per step (use readout='last')."
            )
        if self.step_level_:
            return np.arange(seqs.data.shape[0]), None
        if readout == "last":
            return seqs.last_steps, None
        return readout_rows(seqs, readout_start)

    def _mixture(self, seqs, y=None):
        """What the output distribution's predictions mix: the state
        distributions at the predicted rows given the inputs (with observed
        outputs ``y``: one step ahead, P(x_t | u_1..t, y_1..t-1)) and the
        output networks' inputs there."""
        rows, counts = self._prediction_rows(seqs)
        model = self._fitted_model()
        U, U_rows = self._inputs(seqs, rows)
        if y is None:
            zeta = self._filtered(seqs, U, model)
        else:
            zeta = self._given_outputs(seqs, y, model, "predicted")
        return Mixture(seqs, rows, zeta[rows], U_rows, model, self.step_level_,
                       counts)

    def _state_proba(self, X, y, smoothed):
        """The validated sequences and the packed state distributions of
        :meth:`predict_state_proba`."""
        check_flag(smoothed, "smoothed")
        seqs = self._checked(X)
        model = self._fitted_model()
        if y is None:
            # Without outputs, the inputs after t say nothing about x_t (the
            # chain is conditioned on the inputs, which do not depend on the
            # states): the smoothed distribution is the filtered one.
            return seqs, self._filtered(seqs, self._inputs(seqs)[0], model)
        kind = "smoothed" if smoothed else "filtered"
        return seqs, self._given_outputs(seqs, y, model, kind)

    @dask_aware
    def predict_state_proba(self, X, y=None, *, smoothed=False):
        """State distributions step by step, given the inputs and, optionally,
        the observed outputs.

        Without ``y``: P(x_t | u_1..t), the model's "memory" (Bengio & Frasconi
        1996, eq. 6), available causally as a sequence is being read.

        With ``y`` (the regime analyst's view, statsmodels'
        ``filtered_marginal_probabilities``): the filtered P(x_t | u_1..t,
        y_1..t) of Hamilton's (1989) filter; with ``smoothed=True``, P(x_t | u,
        y) given the whole sequence (Kim 1994; statsmodels'
        ``smoothed_marginal_probabilities``), by forward-backward.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : array-like or list of arrays, default=None
            Observed outputs, in any form ``fit`` accepts: one target per
            sequence (observing its last step only), or per-step targets with
            NaN (None for labels) at steps whose output was not observed, which
            the filter skips (a sequence with none observed is conditioned on
            its inputs alone, as without ``y``).
        smoothed : bool, default=False
            Condition every step on the whole sequence's outputs. Without ``y``
            nothing is observed after t that concerns x_t (the inputs do not
            depend on the states), so the result is the filtered one.

        Returns
        -------
        proba : list of ndarray (len_i, n_states), or ndarray
            A list for list input; for array input a padded array of shape
            (n_sequences, max_len, n_states) with NaN after each sequence's end.

        Examples
        --------
        >>> import numpy as np
        >>> from skseq import IOHMMRegressor
        >>> rng = np.random.default_rng(0)
        >>> y = np.r_[rng.normal(0, 1, 40), rng.normal(5, 1, 40)]
        >>> X, Y = [np.zeros((80, 1))], [y]
        >>> reg = IOHMMRegressor(2, emission="state", random_state=0).fit(X, Y)
        >>> p = reg.predict_state_proba(X, Y, smoothed=True)[0]
        >>> bool(np.argmax(p[10]) != np.argmax(p[70]))
        True
        """
        seqs, proba = self._state_proba(X, y, smoothed)
        return seqs.unpack(proba)

    def transition_proba(self, X):
        """Transition matrices P(x_t = i | x_{t-1} = j, u_t) at every step.

        What the state networks do with each input: the explanation of how the
        model moves between its states.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

        Returns
        -------
        proba : list of ndarray (len_i, n_states, n_states), or ndarray
            Indexed ``[t, from, to]``. A list for list input; for array input a
            padded array (n_sequences, max_len, n_states, n_states), NaN-padded.
        """
        seqs = self._checked(X)
        probs = self._transitions(self._inputs(seqs)[0], self._fitted_model())
        # a family may share one matrix between all steps
        n = self._n_chain_states()
        return seqs.unpack(np.broadcast_to(probs, (seqs.data.shape[0], n, n)))

    def _score_targets(self, seqs, y, sample_weight):
        """Targets for ``score`` and per-target weights (None if unweighted)."""
        return score_targets(y, seqs, sample_weight, task=self.outputs_.task,
                             step_level=self.step_level_)

    def _score(self, X, y, sample_weight):
        if is_dask_collection(X):
            return score_dask(self, X, y, sample_weight)
        seqs = self._checked(X)
        targets, weight = self._score_targets(seqs, y, sample_weight)
        return self.outputs_.score(self._mixture(seqs), y, targets, weight)

    def score_samples(self, X, y=None):
        """Conditional log-likelihood log P(y | u) of every sequence.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : array-like or list of arrays, default=None
            Targets in any form accepted by ``fit``. If None, the model's own
            predictions are scored: log P(predict(X) | u), a confidence score.

        Returns
        -------
        log_likelihood : ndarray of shape (n_sequences,)
        """
        seqs = self._checked(X)
        if y is None:
            y = self.outputs_.predicted_targets(self._mixture(seqs))
        return self._loglik(seqs, y)[0]

    def _loglik(self, seqs, y):
        """Per-sequence log P(y | u) and the number of targets."""
        model = self._fitted_model()
        U, log_emit, n_targets = self._observed(seqs, y, model)
        if model.fused:  # no (n_steps, n, n) matrices (skseq._fused)
            loglik = model.fused_logliks(U, seqs.offsets, log_emit, self.n_jobs)
        else:
            loglik = model.forward(seqs.offsets, self._transitions(U, model),
                                   log_emit, self.n_jobs).loglik
        return loglik, n_targets

    def aic(self, X, y):
        """Akaike information criterion, -2 log P(y | u) + 2 p.

        p is the number of free parameters of the fitted model: the state and
        output networks' weights and intercepts (less the one redundant logit of
        every softmax, which adding a constant to all its logits leaves
        unchanged, and the weights of forbidden transitions), the variances of
        Gaussian outputs, and the start distribution if it is learned
        (``n_states - 1``). Lower is better: compare models of different
        ``n_states`` without cross-validation.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : array-like or list of arrays
            Targets in any form accepted by ``fit``.

        Returns
        -------
        aic : float
        """
        loglik = self._loglik(self._checked(X), y)[0]
        return float(-2.0 * loglik.sum() + 2.0 * self._n_free_params_)

    def bic(self, X, y):
        """Bayesian information criterion, -2 log P(y | u) + p log(n).

        p as for :meth:`aic`; n is the number of targets (sequences for
        sequence-level targets, labelled steps for step-level ones). Lower is
        better.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : array-like or list of arrays
            Targets in any form accepted by ``fit``.

        Returns
        -------
        bic : float
        """
        loglik, n_targets = self._loglik(self._checked(X), y)
        return float(-2.0 * loglik.sum() + self._n_free_params_ * np.log(n_targets))

    def sample(self, X, random_state=None):
        """Draw state paths and outputs given the inputs.

        For every sequence, x_0 ~ startprob, then at each step x_t from the
        transition the input chose and y_t from the output network of x_t
        (Bengio & Frasconi 1996, eqs. 2 and 9): simulated scenarios, e.g. of a
        regressor's regimes under given inputs.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        random_state : int, RandomState instance or None, default=None
            Controls the draws.

        Returns
        -------
        y : list of ndarray, or ndarray
            An output at every step: class labels (a list of per-sequence arrays)
            or values (in the form of X, as a step-level ``predict``).
        states : list of ndarray of int, or ndarray
            The drawn state path, in the form of :meth:`decode`'s.
        """
        seqs = self._checked(X)
        model = self._fitted_model()
        rng = check_random_state(random_state)
        n = self._n_chain_states()
        U, U_all = self._inputs(seqs, np.arange(seqs.data.shape[0]))
        trans = np.broadcast_to(self._transitions(U, model), (U.shape[0], n, n))
        states = model.sample_paths(seqs, trans, rng)
        y = self.outputs_.sample(seqs, U_all, model, states, rng)
        return y, seqs.unpack(states, fill=-1)

    def decode(self, X, y=None):
        """Most likely state path (Viterbi).

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : array-like or list of arrays, default=None
            If given, the path maximises P(states, y | u); else P(states | u).

        Returns
        -------
        states : list of ndarray of int, or ndarray
            A list for list input; for array input a padded array of shape
            (n_sequences, max_len) with -1 after each sequence's end.
        """
        seqs = self._checked(X)
        model = self._fitted_model()
        if y is None:
            U = self._inputs(seqs)[0]
            log_emit = np.zeros((U.shape[0], self._n_chain_states()))
        else:
            U, log_emit, _ = self._observed(seqs, y, model, unobserved=True)
        path = model.viterbi(seqs.offsets, self._transitions(U, model), log_emit,
                             self.n_jobs)
        return seqs.unpack(path, fill=-1)
