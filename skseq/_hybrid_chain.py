"""The label states' chain of a hybrid HMM at prediction time.

The per-step classifier's posteriors, divided by the priors of its targets,
are scaled likelihoods of the label states (Bourlard & Morgan 1994); this mixin
turns them into the states' filtered or smoothed distributions and Viterbi
paths, over the Markov chain or its explicit-duration expansion.
"""

import numpy as np

from ._data import check_flag
from ._families import semi_markov
from ._families.duration_chain import semi_markov_chain
from ._families.label_chain import viterbi_terms
from ._fit.resources import check_allocation
from ._hybrid_select import (
    MIN_PROBA,
    log_likelihood_ratio,
    read,
    scale_in_use,
    target_proba,
)
from ._kernels.forward_backward import forward_backward, viterbi
from ._kernels.semi_markov import WIDEST_SCALED, wide_sequences


class HybridChainMixin:
    """State distributions and paths of a fitted hybrid HMM (the fitted
    ``estimator_``, ``target_prior_``, ``class_prior_``, ``startprob_``,
    ``transmat_`` and ``duration_hazard_``)."""

    def _log_emissions(self, seqs):
        """Scaled log-likelihoods of every state at every step (Bourlard &
        Morgan 1994): log P(target | window) - log P(target), times the scale;
        the target is the state's label, or with ``phase_targets`` the state
        itself."""
        n_steps, n_classes = seqs.data.shape[0], self.classes_.shape[0]
        n_targets = self.target_prior_.shape[0]
        with self._threads():
            proba = target_proba(self.estimator_, read(self, self.features_, seqs,
                                                       self.window_), n_targets, seqs)
        log_lik = log_likelihood_ratio(proba, self.target_prior_)
        if n_targets > n_classes:
            # a (label, part) pair never seen in training (segments shorter
            # than the parts) has its label's likelihood
            label = proba.reshape(n_steps, n_classes, -1).sum(axis=2)
            log_label = log_likelihood_ratio(label, self.class_prior_)
            unseen = self.target_prior_ == 0
            log_lik[:, unseen] = np.repeat(log_label, n_targets // n_classes,
                                           axis=1)[:, unseen]
        n_states = self.startprob_.shape[0]
        return np.repeat(scale_in_use(self) * log_lik, n_states // n_targets, axis=1)

    def _semi_markov(self, seqs, size):
        """The explicit-duration chain over (state, duration), or None; first a
        ValueError if its pass, ``size`` bytes per expanded state and step of
        the longest sequence (0: the filter), cannot fit in memory."""
        if self.duration_hazard_ is None:
            return None
        chain = semi_markov_chain(self.duration_hazard_, self.transmat_,
                                  self.startprob_, self.n_states_per_label)
        check_allocation(self, size * chain.stay.size * int(seqs.lengths.max()),
                         f"durations='learned' on {seqs.lengths.max()} steps",
                         "use the filter: algorithm='filter' or smoothed=False.")
        return chain

    def _state_proba(self, seqs, smoothed):
        check_flag(smoothed, "smoothed")
        chain = self._semi_markov(seqs, 8 if smoothed else 0)
        if chain is not None:
            run = semi_markov.smooth_states if smoothed else semi_markov.filter_states
            return run(chain, self._log_emissions(seqs), seqs.offsets)
        log_emit = self._log_emissions(seqs)
        return forward_backward(self.startprob_, self.transmat_[None], log_emit,
                                seqs.offsets, backward=smoothed,
                                exact=self._wide(log_emit, seqs.offsets)).gamma

    def _wide(self, log_emit, offsets):
        """The sequences of the Markov chain whose scaled passes may drop a
        path that comes back ahead (a step's likelihoods spread wide:
        :func:`~skseq._kernels.semi_markov.wide_sequences`), to recompute on
        logarithms as the explicit-duration chain's are (at a large
        ``likelihood_scale`` the scaled filter gave a label probability 1
        where it has 0.35); None where the scale bounds the spread below."""
        # posteriors and priors floored at MIN_PROBA: no spread beyond this
        # bound, under which no scan is needed (at ordinary scales)
        if 2 * scale_in_use(self) * -np.log(MIN_PROBA) <= (
                WIDEST_SCALED / self.n_states_per_label):
            return None
        return wide_sequences(log_emit, offsets, self.n_states_per_label)

    def _label_proba(self, state_proba):
        n = state_proba.shape[0]
        return state_proba.reshape(n, -1, self.n_states_per_label).sum(axis=2)

    def _viterbi(self, seqs):
        chain = self._semi_markov(seqs, 1)
        if chain is not None:
            return semi_markov.viterbi_path(chain, self._log_emissions(seqs),
                                            seqs.offsets)
        _, path = viterbi(*viterbi_terms(self.startprob_, self.transmat_,
                                         self._log_emissions(seqs), seqs.offsets))
        return path
