"""The state before a sequence's first step, summed out for Viterbi.

The package's chains draw the state before the first step, x_0, from
``startprob`` and reach the first step's state through one transition, so that
P(x_1 = i) = sum_j startprob[j] * A_1[j, i]. A Viterbi recursion started at
``log(startprob)`` keeps the best x_0 instead, max_j startprob[j] * A_1[j, i],
and so finds the most likely path x_0..x_T, not the most likely x_1..x_T that
the filter and smoother's model defines. Adding the log of their ratio to each
sequence's first log-emissions makes the recursion's paths those of x_1..x_T.
"""

import numpy as np


def first_step_correction(startprob, first_trans):
    """``log(sum_j ...) - log(max_j ...)`` of every state at the first step.

    Parameters
    ----------
    startprob : ndarray of shape (n_states,)
    first_trans : ndarray of shape (m, n_states, n_states)
        The transition matrices into the first steps, ``[from, to]``: one per
        sequence, or ``m = 1`` shared.

    Returns
    -------
    correction : ndarray of shape (m, n_states)
        0 where at most one x_0 can lead to the state (then the maximum is the
        sum: every state of a left-to-right chain but its first).
    """
    with np.errstate(divide="ignore"):
        best = (np.log(startprob)[None, :, None] + np.log(first_trans)).max(axis=1)
        total = np.log(np.matmul(startprob, first_trans))
    several = np.count_nonzero(startprob[None, :, None] * first_trans > 0,
                               axis=1) > 1
    return np.where(several, total - np.where(several, best, 0.0), 0.0)


def viterbi_emissions(startprob, trans, log_emit, offsets):
    """``log_emit`` with every sequence's first step corrected
    (:func:`first_step_correction`; a copy if anything changes).

    ``trans`` holds the transition matrices into every step, of shape
    (n_steps, n, n), or one shared, (1, n, n), as the Viterbi kernel takes them.
    """
    first = offsets[:-1]
    correction = first_step_correction(
        startprob, trans if trans.shape[0] == 1 else trans[first])
    if not correction.any():
        return log_emit
    log_emit = log_emit.copy()
    log_emit[first] += correction
    return log_emit
