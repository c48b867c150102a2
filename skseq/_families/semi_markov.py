"""Filter, smoother and Viterbi of the explicit-duration chain
(:class:`~skseq._families.duration_chain.ExpandedChain`) over the expanded
states (label, phase, duration) (Murphy 2002; Yu 2010), vectorised over the
sequences: at step ``t`` every sequence longer than ``t`` advances at once.
Within a segment the duration moves one step on (and the phase at most one);
segment ends pass through the labels, so a step costs O(n_expanded +
n_classes ** 2) per sequence, not the square of the expanded states.

Arrays of expanded states have shape ``(n, n_classes, k, D)``; per-step
likelihoods ``(n, n_classes * k)`` are shared by a state's durations.
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


def _running(length, t):
    """How many of the sequences (longest first) are longer than ``t``."""
    return int(np.searchsorted(-length, -t, side="left"))


def _top(log_emissions, rows, pred):
    """Per row, the largest log-likelihood among the states that ``pred``
    (expanded states) reaches: scaling by it keeps the best reachable state's
    likelihood at 1, so that a message never underflows to 0 (however far
    the unreachable states' log-likelihoods lie above)."""
    reached = pred.sum(axis=3).reshape(rows.shape[0], -1) > 0
    return np.where(reached, log_emissions[rows], -np.inf).max(axis=1)


def _likelihoods(chain, log_emissions, rows, top):
    """The rows' likelihoods divided by ``exp(top)`` (at most 1: above, only
    at states no message reaches), shaped to broadcast over the durations."""
    like = np.exp(np.minimum(log_emissions[rows] - top[:, None], 0.0))
    return like.reshape(rows.shape[0], *chain.stay.shape[:2], 1)


def _initial(chain, n):
    alpha = np.zeros((n, *chain.stay.shape))
    alpha[:, :, 0, 0] = chain.start
    return alpha


def _predict(chain, alpha):
    """One step of the chain: the distribution over expanded states at the
    next step, before its emission."""
    pred = np.zeros_like(alpha)
    stay, move = alpha * chain.stay, alpha * chain.move
    pred[..., 1:] = stay[..., :-1]
    pred[..., -1] += stay[..., -1]
    pred[:, :, 1:, 1:] += move[:, :, :-1, :-1]
    pred[:, :, 1:, -1] += move[:, :, :-1, -1]
    ends = (alpha * chain.hazard).sum(axis=(2, 3))
    pred[:, :, 0, 0] += ends @ chain.switch
    return pred


def _forward_steps(chain, log_emissions, first, length):
    """The normalised forward messages of the sequences starting at rows
    ``first`` (longest first) with ``length`` steps, step after step: ``t``,
    the message of the sequences still running and the likelihoods' scales
    (see :func:`_top`)."""
    alpha = _initial(chain, first.shape[0])
    for t in range(int(length[0]) if length.shape[0] else 0):
        m = _running(length, t)
        if t > 0:
            alpha = _predict(chain, alpha[:m])
        top = _top(log_emissions, first[:m] + t, alpha)
        alpha = alpha * _likelihoods(chain, log_emissions, first[:m] + t, top)
        alpha /= alpha.sum(axis=(1, 2, 3))[:, None, None, None]
        yield t, alpha, top


def _states(expanded):
    """Expanded-state values summed over durations, per hidden state."""
    return expanded.sum(axis=3).reshape(expanded.shape[0], -1)


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
    lengths = np.diff(offsets)
    out = np.zeros_like(log_emissions)
    order = np.argsort(-lengths, kind="stable")
    first = offsets[:-1][order]
    for t, alpha, *_ in _forward_steps(chain, log_emissions, first, lengths[order]):
        out[first[:alpha.shape[0]] + t] = _states(alpha)
    return out


def _backward_step(chain, beta_next, like_next):
    """beta_t from beta_{t+1}, up to a factor per row."""
    b = beta_next * like_next
    later = np.empty_like(b)  # b at (c, j, min(d + 1, D))
    later[..., :-1] = b[..., 1:]
    later[..., -1] = b[..., -1]
    beta = chain.stay * later
    beta[:, :, :-1] += chain.move[:, :-1] * later[:, :, 1:]
    new = b[:, :, 0, 0] @ chain.switch.T  # (n, n_classes): a segment ends
    return beta + chain.hazard * new[:, :, None, None]


def smooth_states(chain, log_emissions, offsets):
    """Smoothed state distributions P(x_t | u_1..T) (forward-backward over the
    expanded states); arguments and result as for :func:`filter_states`."""
    lengths = np.diff(offsets)
    out = np.zeros_like(log_emissions)
    for group in _groups(lengths, chain.stay.size):
        first, length = offsets[:-1][group], lengths[group]
        steps = list(_forward_steps(chain, log_emissions, first, length))
        alphas = [alpha for _, alpha, _ in steps]
        tops = [top for *_, top in steps]
        beta = np.ones_like(alphas[-1])
        for t in range(len(alphas) - 1, -1, -1):
            m = alphas[t].shape[0]
            if t < len(alphas) - 1:
                k = beta.shape[0]
                beta_t = np.ones_like(alphas[t])
                like = _likelihoods(chain, log_emissions, first[:k] + t + 1,
                                    tops[t + 1])
                # each row scaled to a largest entry of 1 (the row's marginals
                # are normalised below): dividing by the forward's
                # normalisers overflows where they are subnormal
                back = _backward_step(chain, beta, like)
                beta_t[:k] = back / back.max(axis=(1, 2, 3))[:, None, None, None]
                beta = beta_t
            gamma = _states(alphas[t] * beta)
            out[first[:m] + t] = gamma / gamma.sum(axis=1, keepdims=True)
    return out


def viterbi_path(chain, log_emissions, offsets):
    """The most likely hidden-state path of every sequence (Viterbi over the
    expanded states; the path's durations are dropped), of shape (n_steps,);
    arguments as for :func:`filter_states`."""
    lengths = np.diff(offsets)
    path = np.zeros(log_emissions.shape[0], dtype=np.intp)
    with np.errstate(divide="ignore"):
        logs = tuple(np.log(a) for a in chain)
    shape = chain.stay.shape
    for group in _groups(lengths, chain.stay.size):
        first, length = offsets[:-1][group], lengths[group]
        delta = np.full((group.shape[0], *shape), -np.inf)
        delta[:, :, 0, 0] = logs[4]
        final = np.zeros(group.shape[0], dtype=np.intp)
        pointers = []
        for t in range(int(length[0])):
            m = _running(length, t)
            delta = delta[:m]
            if t > 0:
                delta, pointer = _viterbi_step(delta, *logs[:4])
                pointers.append(pointer)
            delta = delta + log_emissions[first[:m] + t].reshape(m, *shape[:2], 1)
            flat = delta.reshape(m, -1)
            delta -= flat.max(axis=1)[:, None, None, None]
            ended = np.flatnonzero(length[:m] == t + 1)
            final[ended] = flat[ended].argmax(axis=1)
        _backtrack(shape, pointers, final, first, length, path)
    return path


def _viterbi_step(delta, log_stay, log_move, log_hazard, log_switch):
    """One max-product step, with where each expanded state came from: the
    slot (0: same phase, one duration back; 1: previous phase, one back; 2, 3:
    the same at the last duration, which stays) within a segment, and for a
    segment's first state the label and the state of the segment that ended."""
    n = delta.shape[0]
    stay, move = delta + log_stay, delta + log_move
    cand = np.full((4, *delta.shape), -np.inf)
    cand[0][..., 1:] = stay[..., :-1]
    cand[1][:, :, 1:, 1:] = move[:, :, :-1, :-1]
    cand[2][..., -1] = stay[..., -1]
    cand[3][:, :, 1:, -1] = move[:, :, :-1, -1]
    slot = cand.argmax(axis=0)
    new_delta = np.take_along_axis(cand, slot[None], axis=0)[0]
    ends = (delta + log_hazard).reshape(n, log_switch.shape[0], -1)
    within = ends.argmax(axis=2)  # the best end inside each label
    best_end = np.take_along_axis(ends, within[:, :, None], axis=2)[:, :, 0]
    new = best_end[:, :, None] + log_switch  # (n, from, to)
    came = new.argmax(axis=1)
    new_delta[:, :, 0, 0] = np.take_along_axis(new, came[:, None, :], axis=1)[:, 0]
    return new_delta, (slot.reshape(n, -1).astype(np.int8), came, within)


def _sources(shape):
    """``source[i, s]``: the expanded state (flat index) from which slot ``s``
    of :func:`_viterbi_step` reaches expanded state ``i`` (0 where none)."""
    n_classes, k, cap = shape
    index = np.arange(n_classes * k * cap).reshape(shape)
    source = np.zeros((*shape, 4), dtype=np.intp)
    source[..., 1:, 0] = index[..., :-1]
    source[:, 1:, 1:, 1] = index[:, :-1, :-1]
    source[..., -1, 2] = index[..., -1]
    source[:, 1:, -1, 3] = index[:, :-1, -1]
    return source.reshape(-1, 4)


def _backtrack(shape, pointers, final, first, length, path):
    """Follow the pointers back from each sequence's best last state and
    write the hidden states (``c * k + j``) into ``path``."""
    n_classes, k, cap = shape
    per_label = k * cap
    source = _sources(shape)
    current = final.copy()
    for t in range(int(length[0]) - 1, -1, -1):
        m = _running(length, t)
        ended = np.flatnonzero(length[:m] == t + 1)
        current[ended] = final[ended]
        path[first[:m] + t] = current[:m] // cap
        if t == 0:
            break
        slot, came, within = pointers[t - 1]
        cur, rows = current[:m], np.arange(m)
        label_to = cur // per_label
        label_from = came[rows, label_to]
        from_end = label_from * per_label + within[rows, label_from]
        from_within = source[cur, slot[rows, cur]]
        current[:m] = np.where(cur % per_label == 0, from_end, from_within)
