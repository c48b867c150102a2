"""Filter, smoother and Viterbi of the explicit-duration chain
(:class:`~skseq._families.duration_chain.ExpandedChain`) over the expanded
states (state, duration) (Murphy 2002, section 2; Yu 2010, sections 3.1 and
3.3), vectorised over the sequences: at step ``t`` every sequence longer than
``t`` advances at once. The within-segment moves are gathered from at most four
sources per expanded state and the segment ends pass through the labels, so a
step costs O(n_expanded + n_classes ** 2) per sequence instead of the square
of the expanded states.
"""

import numpy as np

# Expanded states x steps held at once by the smoother and Viterbi (their
# passes keep every step of a group of sequences): about 160 MB of floats.
_MEMORY_ENTRIES = 20_000_000


def _groups(lengths, n_expanded):
    """Sequences in groups (longest first) whose steps x expanded states stay
    under ``_MEMORY_ENTRIES``; at least one sequence per group."""
    order = np.argsort(-lengths, kind="stable")
    groups, current, size = [], [], 0
    for i in order:
        cost = int(lengths[i]) * n_expanded
        if current and size + cost > _MEMORY_ENTRIES:
            groups.append(np.array(current))
            current, size = [], 0
        current.append(i)
        size += cost
    if current:
        groups.append(np.array(current))
    return groups


def _emissions(log_emissions):
    """Per-step likelihoods scaled so that each step's largest is 1."""
    return np.exp(log_emissions - log_emissions.max(axis=1, keepdims=True))


def _predict(chain, alpha):
    """One step of the chain: the distribution over expanded states at the
    next step, before its emission."""
    n = alpha.shape[0]
    pred = (alpha[:, chain.source] * chain.prob).sum(axis=2)
    ends = (alpha * chain.hazard).reshape(n, chain.n_classes, -1).sum(axis=2)
    pred[:, chain.entry] += ends @ chain.switch
    return pred


def _forward(chain, like, first, length):
    """Normalised forward messages of the sequences starting at rows ``first``
    (longest first) with ``length`` steps, one array per step for those still
    running, and their normalisers."""
    n_seq = first.shape[0]
    alpha = np.zeros((n_seq, chain.state.shape[0]))
    alpha[:, chain.entry] = chain.start
    alphas, norms = [], []
    for t in range(int(length[0])):
        m = int(np.sum(length > t))
        if t > 0:
            alpha = _predict(chain, alpha[:m])
        alpha = alpha * like[first[:m] + t][:, chain.state]
        norm = alpha.sum(axis=1, keepdims=True)
        alpha /= norm
        alphas.append(alpha)
        norms.append(norm)
    return alphas, norms


def _state_sums(chain, expanded):
    """Expanded-state values summed over durations, per hidden state."""
    return expanded.reshape(expanded.shape[0], -1, expanded.shape[1]
                            // (chain.state.max() + 1)).sum(axis=2)


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
    like = _emissions(log_emissions)
    lengths = np.diff(offsets)
    out = np.zeros_like(log_emissions)
    order = np.argsort(-lengths, kind="stable")
    first, length = offsets[:-1][order], lengths[order]
    n_seq = order.shape[0]
    alpha = np.zeros((n_seq, chain.state.shape[0]))
    alpha[:, chain.entry] = chain.start
    for t in range(int(length[0]) if n_seq else 0):
        m = int(np.sum(length > t))
        if t > 0:
            alpha = _predict(chain, alpha[:m])
        alpha = alpha * like[first[:m] + t][:, chain.state]
        alpha /= alpha.sum(axis=1, keepdims=True)
        out[first[:m] + t] = _state_sums(chain, alpha)
    return out


def _backward_step(chain, beta_next, like_next):
    """beta_t from beta_{t+1} (before the normaliser of step t + 1)."""
    n = beta_next.shape[0]
    b = beta_next * like_next[:, chain.state]
    # within a segment: sum over the destinations of each source
    cont = np.zeros_like(b)
    for m in range(chain.source.shape[1]):
        # within one slot the sources of positive probability are distinct
        valid = np.flatnonzero(chain.prob[:, m] > 0)
        cont[:, chain.source[valid, m]] += b[:, valid] * chain.prob[valid, m]
    new = b[:, chain.entry] @ chain.switch.T  # (n, n_classes)
    per_label = chain.state.shape[0] // chain.n_classes
    return cont + chain.hazard * np.repeat(new, per_label, axis=1).reshape(n, -1)


def smooth_states(chain, log_emissions, offsets):
    """Smoothed state distributions P(x_t | u_1..T) (forward-backward over the
    expanded states).

    Parameters, Returns
    -------------------
    As :func:`filter_states`.
    """
    like = _emissions(log_emissions)
    lengths = np.diff(offsets)
    out = np.zeros_like(log_emissions)
    for group in _groups(lengths, chain.state.shape[0]):
        first, length = offsets[:-1][group], lengths[group]
        alphas, norms = _forward(chain, like, first, length)
        beta = np.ones_like(alphas[-1])
        for t in range(len(alphas) - 1, -1, -1):
            m = alphas[t].shape[0]
            if t < len(alphas) - 1:
                k = beta.shape[0]
                beta_t = np.ones((m, beta.shape[1]))
                beta_t[:k] = _backward_step(chain, beta, like[first[:k] + t + 1]) \
                    / norms[t + 1]
                beta = beta_t
            gamma = alphas[t] * beta
            gamma /= gamma.sum(axis=1, keepdims=True)
            out[first[:m] + t] = _state_sums(chain, gamma)
    return out


def viterbi_path(chain, log_emissions, offsets):
    """The most likely hidden-state path of every sequence (Viterbi over the
    expanded states; the path's durations are dropped).

    Parameters
    ----------
    chain : ExpandedChain
    log_emissions : ndarray of shape (n_steps, n_states)
    offsets : ndarray of shape (n_sequences + 1,)

    Returns
    -------
    path : ndarray of shape (n_steps,), dtype=intp
    """
    lengths = np.diff(offsets)
    path = np.zeros(log_emissions.shape[0], dtype=np.intp)
    with np.errstate(divide="ignore"):
        log_prob, log_hazard = np.log(chain.prob), np.log(chain.hazard)
        log_switch, log_start = np.log(chain.switch), np.log(chain.start)
    for group in _groups(lengths, chain.state.shape[0]):
        first, length = offsets[:-1][group], lengths[group]
        delta = np.full((group.shape[0], chain.state.shape[0]), -np.inf)
        delta[:, chain.entry] = log_start
        final = np.zeros(group.shape[0], dtype=np.intp)
        pointers = []
        for t in range(int(length[0])):
            m = int(np.sum(length > t))
            delta = delta[:m]
            if t > 0:
                delta, pointer = _viterbi_step(chain, delta, log_prob, log_hazard,
                                               log_switch)
                pointers.append(pointer)
            delta = delta + log_emissions[first[:m] + t][:, chain.state]
            delta -= delta.max(axis=1, keepdims=True)
            ended = np.flatnonzero(length[:m] == t + 1)
            final[ended] = delta[ended].argmax(axis=1)
        _backtrack(chain, pointers, final, first, length, path)
    return path


def _viterbi_step(chain, delta, log_prob, log_hazard, log_switch):
    """One max-product step, with where each expanded state came from."""
    n = delta.shape[0]
    cand = delta[:, chain.source] + log_prob
    slot = cand.argmax(axis=2)
    new_delta = np.take_along_axis(cand, slot[:, :, None], axis=2)[:, :, 0]
    ends = (delta + log_hazard).reshape(n, chain.n_classes, -1)
    within = ends.argmax(axis=2)  # the best end inside each label
    best_end = np.take_along_axis(ends, within[:, :, None], axis=2)[:, :, 0]
    new = best_end[:, :, None] + log_switch  # (n, from, to)
    came = new.argmax(axis=1)
    new_delta[:, chain.entry] = np.take_along_axis(new, came[:, None, :], axis=1)[:, 0]
    return new_delta, (slot.astype(np.int8), came, within)


def _backtrack(chain, pointers, final, first, length, path):
    """Follow the pointers back from each sequence's best last state."""
    per_label = chain.state.shape[0] // chain.n_classes
    is_entry = np.zeros(chain.state.shape[0], dtype=bool)
    is_entry[chain.entry] = True
    current = final.copy()
    for t in range(int(length[0]) - 1, -1, -1):
        m = int(np.sum(length > t))
        # sequences that end at t start from their best last state
        ended = np.flatnonzero(length[:m] == t + 1)
        current[ended] = final[ended]
        path[first[:m] + t] = chain.state[current[:m]]
        if t == 0:
            break
        slot, came, within = pointers[t - 1]
        cur = current[:m]
        rows = np.arange(m)
        entry = is_entry[cur]
        label_to = cur // per_label
        label_from = came[rows, label_to]
        from_entry = label_from * per_label + within[rows, label_from]
        from_cont = chain.source[cur, slot[rows, cur]]
        current[:m] = np.where(entry, from_entry, from_cont)
