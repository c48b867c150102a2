"""The network math of DiscretizedRNNClassifier: the second-order net of Zeng,
Goodman & Smyth (1993), its forward pass, its (pseudo-)gradient by
back-propagation through time, and the discrete states it reaches.

All sequences run in lockstep, one vectorized step per time index: they are
sorted by decreasing length, so the sequences still running at step t are a
prefix of that order and their inputs are one contiguous block of a time-major
copy of the data (:class:`Lockstep`).
"""

from collections import deque

import numpy as np
from scipy.special import expit


class Lockstep:
    """Packed sequences rearranged so that all of them can step together.

    Sequences are sorted by decreasing length (``order``); step t of the first
    ``bounds[t + 1] - bounds[t]`` of them is row block ``bounds[t]:bounds[t + 1]``
    of ``U``, the inputs in time-major order. ``final[s]`` is the row of
    sequence s's last step (s in the caller's order, ``order[r]`` the sequence
    of rank r).
    """

    def __init__(self, seqs):
        lengths = seqs.lengths
        order = np.argsort(-lengths, kind="stable")
        sorted_lengths = lengths[order]
        n_steps = int(sorted_lengths[0])
        # Sequences running at step t: those longer than t, a prefix of `order`.
        n_running = np.searchsorted(-sorted_lengths, -np.arange(n_steps), side="left")
        self.bounds = np.zeros(n_steps + 1, dtype=np.intp)
        np.cumsum(n_running, out=self.bounds[1:])
        step = np.repeat(np.arange(n_steps), n_running)
        rank = np.arange(self.bounds[-1]) - self.bounds[step]
        # Inputs beyond +-1e290 saturate every unit anyway; clipped, the
        # second-order products and their sums cannot overflow to inf (or NaN).
        self.U = np.clip(seqs.data[seqs.offsets[order][rank] + step], -1e290, 1e290)
        self.final = np.empty_like(order)
        self.final[order] = self.bounds[sorted_lengths - 1] + np.arange(order.size)
        self.order = order
        self.n_steps = n_steps


def second_order_inputs(S, U):
    """The second-order inputs S_j u_k of a batch, flattened to (n, n_hidden * k)."""
    return (S[:, :, None] * U[:, None, :]).reshape(U.shape[0], -1)


class SecondOrderNet:
    """The second-order net's dynamics for one set of hyper-parameters.

    h_t = sigma(sum_jk W_ijk S_{t-1,j} u_{t,k} + b_i) and S_t = D(h_t) with
    D(h) = high if h >= 0.5 else low (Zeng, Goodman & Smyth 1993, §3), or S_t = h_t for
    the analog net (§2). The weights travel as arguments, so one net serves every
    restart.
    """

    def __init__(self, n_hidden, discretize, high, low):
        self.discretize = discretize
        self.high = high
        self.low = low
        # §2: "initialize S_0 to be 1 and all other S_i to be 0": the indicator
        # unit on, i.e. the empty string is legal; the discrete net uses its two
        # levels instead of 1 and 0.
        on, off = (high, low) if discretize else (1.0, 0.0)
        self.start = np.full(n_hidden, off)
        self.start[0] = on

    def state(self, h):
        """S = D(h) (discretized) or S = h (analog)."""
        if self.discretize:
            return np.where(h >= 0.5, self.high, self.low)
        return h

    @staticmethod
    def step(W, b, S, U):
        """Activations h (n, n_hidden) after inputs U (n, k) in states S."""
        return expit(second_order_inputs(S, U) @ W.reshape(W.shape[0], -1).T + b)

    def forward(self, W, b, batch):
        """Analog activations h at every step, rows as in ``batch.U``."""
        H = np.empty((batch.U.shape[0], W.shape[0]))
        S = np.broadcast_to(self.start, (batch.order.size, self.start.size))
        for t in range(batch.n_steps):
            lo, hi = batch.bounds[t], batch.bounds[t + 1]
            H[lo:hi] = self.step(W, b, S[: hi - lo], batch.U[lo:hi])
            S = self.state(H[lo:hi])
        return H

    def gradient(self, W, batch, H, d_final):
        """(Pseudo-)gradient of a loss of the final activations, by BPTT.

        ``d_final`` (n_sequences, n_hidden) is dE/dh at each sequence's last
        step. Returns dE/dW and dE/db. The paper's pseudo-gradient (§4, written
        there in forward, real-time-recurrent-learning form) replaces the
        discretization's zero derivative dS/dh by 1, i.e. dS/da by the sigmoid's
        sigma'(a) = h (1 - h); for the analog net S = h and this is exact.
        """
        n_hidden = W.shape[0]
        W2 = W.reshape(n_hidden, -1)
        gW = np.zeros_like(W2)
        gb = np.zeros(n_hidden)
        d_final = d_final[batch.order]
        dh = np.zeros_like(d_final)
        S_start = np.broadcast_to(self.start, dh.shape)
        for t in range(batch.n_steps - 1, -1, -1):
            lo, hi = batch.bounds[t], batch.bounds[t + 1]
            n = hi - lo
            # The sequences whose last step is t are the last ones running at t.
            n_later = batch.bounds[t + 2] - hi if t + 1 < batch.n_steps else 0
            dh[n_later:n] = d_final[n_later:n]
            h = H[lo:hi]
            da = dh[:n] * h * (1.0 - h)
            if t:
                prev = batch.bounds[t - 1]
                S_prev = self.state(H[prev : prev + n])
            else:
                S_prev = S_start[:n]
            U = batch.U[lo:hi]
            gW += da.T @ second_order_inputs(S_prev, U)
            gb += da.sum(axis=0)
            if t:  # dE/dS_{t-1}, taken as dE/dh_{t-1} (the pseudo-gradient)
                dh[:n] = ((da @ W2).reshape(n, n_hidden, -1)
                          * U[:, None, :]).sum(axis=2)
        return gW.reshape(W.shape), gb

    def reachable_states(self, W, b, n_symbols, max_states):
        """Breadth-first search over the discrete states reachable from S_0,
        each symbol k being the one-hot input e_k: the transitions and the
        indicator unit of each state (state 0 is S_0)."""
        symbols = np.eye(n_symbols)
        # A discrete state is identified by which of its units are on (= high).
        ids = {tuple(self.start == self.high): 0}
        states = [self.start]
        transitions = []
        queue = deque([0])
        while queue:
            S = states[queue.popleft()]
            h = self.step(W, b, np.broadcast_to(S, (n_symbols, S.size)), symbols)
            row = []
            for S_next in self.state(h):
                key = tuple(S_next == self.high)
                if key not in ids:
                    if len(ids) == max_states:
                        raise ValueError(
                            f"The net has more than max_states={max_states} "
                            "reachable states."
                        )
                    ids[key] = len(states)
                    states.append(S_next)
                    queue.append(ids[key])
                row.append(ids[key])
            transitions.append(row)
        return transitions, [key[0] for key in ids]
