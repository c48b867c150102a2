"""Filter, smoother and Viterbi of the explicit-duration chain
(:class:`~skseq._families.duration_chain.ExpandedChain`) over the expanded
states (label, phase, duration) (Ferguson 1980; Murphy 2002; Yu 2010).

Within a segment the duration moves one step on (and the phase at most one);
segment ends pass through the labels, so a step costs O(n_expanded +
n_classes ** 2) per sequence, not the square of the expanded states. The
recursions, their scaling and the censoring of each sequence's last segment
are written out in ``skseq/_kernels/_semi_markov.pyx``, which runs them; here
the chain is handed over as its arrays (Viterbi's as their logarithms).
"""

import numpy as np

from .._kernels import semi_markov as kernels


def filter_states(chain, log_emissions, offsets):
    """Filtered state distributions P(x_t | u_1..t) of every step.

    Parameters
    ----------
    chain : ExpandedChain
    log_emissions : ndarray of shape (n_steps, n_states)
    offsets : ndarray of shape (n_sequences + 1,)

    Returns
    -------
    proba : ndarray of shape (n_steps, n_states)
    """
    return kernels.filter_states(*chain, log_emissions, offsets)


def smooth_states(chain, log_emissions, offsets):
    """Smoothed state distributions P(x_t | u_1..T) (forward-backward over the
    expanded states); arguments and result as for :func:`filter_states`."""
    return kernels.smooth_states(*chain, log_emissions, offsets)


def viterbi_path(chain, log_emissions, offsets):
    """The most likely hidden-state path of every sequence (Viterbi over the
    expanded states; the path's durations are dropped), of shape (n_steps,);
    arguments as for :func:`filter_states`."""
    with np.errstate(divide="ignore"):
        logs = [np.log(a) for a in chain]
    return kernels.viterbi_path(*logs, log_emissions, offsets)
