"""State networks: the families of input-conditioned transition matrices.

Every family maps the input u_t to logits z_t[j, i] of
P(x_t = i | x_{t-1} = j, u_t) = softmax_i(z_t[j, :]) (paper 000, eq. 2), masked by
the transition graph. A family provides the logits and back-propagates a gradient
with respect to them (``backward``); softmax, masking and the objectives are shared
(:func:`transition_probs`, :func:`expected_log_transitions`).
"""

import numpy as np
from scipy.special import expit

from ._inference import (
    add_bias_,
    log_softmax_gradient_,
    outer_sum,
    row_sums_,
    softmax_,
    weighted_log_normalizer_,
)
from ._params import ParametricFamily, column_sums, linear_map

# Steps per block when the M-step evaluates logits block-wise (bounds memory).
_BLOCK_ENTRIES = 1 << 18
# ... but not below this many (0.5 MB), where the Python work per block would show.
_MIN_BLOCK_ENTRIES = 1 << 16


class TransitionFamily(ParametricFamily):
    """Base class of the state-network families.

    The default family is a masked softmax of logits (``logits``/``backward``).
    A family whose transitions are not a plain softmax (e.g. a factored,
    multi-level one) overrides ``probs`` and ``expected_log`` and sets
    ``softmax = False``; the lbfgs solver then takes its gradient from the
    pairwise posteriors (Fisher's identity: the gradient of the log-likelihood is
    that of the EM auxiliary function at the current parameters).

    ``per_step`` is False when the transitions do not depend on u_t: one matrix
    is then shared by every step.
    """

    per_step = True
    softmax = True
    # Logits linear in theta (z = A(U) theta), so that ``backward`` does not
    # depend on theta: the M-step then shares work between its evaluations.
    linear = False

    def probs(self, theta, U, mask):
        """Transition matrices, (len(U), n, n) or (1, n, n) if not per_step."""
        return transition_probs(self, theta, U, mask)

    def expected_log(self, theta, U, xi, mask):
        """sum xi log A(theta) and its gradient (see expected_log_transitions)."""
        return expected_log_transitions(self, theta, U, xi, mask)

    def m_step_objective(self, U, xi, mask):
        """theta -> (Q_trans, gradient) for one M-step's fixed U, xi and mask."""
        if (self.softmax and self.linear and self.per_step
                and (mask is None or np.all(mask))):
            return _LinearSoftmaxObjective(self, U, xi)
        return lambda theta: self.expected_log(theta, U, xi, mask)

    def __init__(self, n_states, n_features):
        self.n_states = n_states
        self.n_features = n_features

    def init(self, rng, scale, permutation=False):
        """Random parameters; optionally near-permutation transitions.

        With ``permutation``, every (n, n) slice of the logits (the intercept and,
        for ``"input"``, each input feature's weights) also gets ``3 * scale`` on a
        random permutation: each state is pushed toward its own distinct successor.
        Such near-deterministic, information-preserving transitions keep early
        inputs visible at the end of a sequence, which is when temporal credit
        assignment works (paper 000, §5.1) — the random start of the counting
        grammars (Tomita #5, #6) that diffuse soft transitions cannot learn.
        """
        theta = super().init(rng, scale)
        if permutation:
            n = self.n_states
            for block in self.unpack(theta).values():
                if block.shape[-2:] == (n, n):
                    for sl in block.reshape(-1, n, n):
                        sl[np.arange(n), rng.permutation(n)] += 3.0 * scale
        return theta

    def logits(self, theta, U):
        """Return z of shape (len(U), n, n), a fresh writable array."""
        raise NotImplementedError

    def backward(self, theta, U, G):
        """Gradient (flat) of sum(G * z(theta, U)) with respect to theta."""
        raise NotImplementedError


class InputTransitions(TransitionFamily):
    """One softmax network per previous state: z_t[j] = W_j u_t + b_j.

    The paper's state networks N_j (paper 000, eq. 2; "tensor feeding", paper 002,
    eq. 22). ``coef`` has shape (n_features, n_states, n_states) so that the logits
    of all steps are one matrix product.
    """

    linear = True

    def _blocks(self):
        n, d = self.n_states, self.n_features
        return [("coef", (d, n, n), True), ("intercept", (n, n), False)]

    def logits(self, theta, U):
        p = self.unpack(theta)
        n = self.n_states
        z = linear_map(U, p["coef"].reshape(self.n_features, n * n))
        return add_bias_(z.reshape(-1, n, n), p["intercept"])

    def backward(self, theta, U, G):
        n = self.n_states
        G2 = G.reshape(-1, n * n)
        return np.concatenate([(U.T @ G2).ravel(), column_sums(G2)])


class AdditiveTransitions(TransitionFamily):
    """Shared input weights plus a per-state bias: z_t[j, i] = B[j, i] + (u_t W)_i.

    Addition-based feeding (paper 002, eq. 23): n_features * n + n^2 parameters
    instead of n_features * n^2 + n^2.
    """

    linear = True

    def _blocks(self):
        n, d = self.n_states, self.n_features
        return [("coef", (d, n), True), ("intercept", (n, n), False)]

    def logits(self, theta, U):
        p = self.unpack(theta)
        return outer_sum(linear_map(U, p["coef"]), p["intercept"])

    def backward(self, theta, U, G):
        n = self.n_states
        # sum_j of U^T G[:, j, :] after the product: no (T, n) temporary
        g_coef = (U.T @ G.reshape(-1, n * n)).reshape(-1, n, n).sum(axis=1)
        return np.concatenate([g_coef.ravel(), column_sums(G)])


class GatedTransitions(TransitionFamily):
    """Input gates on the transition logits: z_t[j, i] = B[j, i] f_t,i.

    Gating-based feeding (paper 002, eqs. 24-26): f_t = sigmoid(u_t U + c).
    """

    def _blocks(self):
        n, d = self.n_states, self.n_features
        return [
            ("intercept", (n, n), False),
            ("gate_coef", (d, n), True),
            ("gate_intercept", (n,), False),
        ]

    def _gate(self, p, U):
        return expit(linear_map(U, p["gate_coef"]) + p["gate_intercept"])

    def logits(self, theta, U):
        p = self.unpack(theta)
        return p["intercept"][None, :, :] * self._gate(p, U)[:, None, :]

    def backward(self, theta, U, G):
        p = self.unpack(theta)
        f = self._gate(p, U)
        g_intercept = np.einsum("tji,ti->ji", G, f)
        g_pre = np.einsum("tji,ji->ti", G, p["intercept"]) * f * (1.0 - f)
        return np.concatenate(
            [g_intercept.ravel(), (U.T @ g_pre).ravel(), column_sums(g_pre)]
        )


class HomogeneousTransitions(TransitionFamily):
    """No input: one transition matrix for every step (an ordinary HMM chain)."""

    per_step = False

    def _blocks(self):
        return [("intercept", (self.n_states, self.n_states), False)]

    def logits(self, theta, U):
        return np.repeat(self.unpack(theta)["intercept"][None], len(U), axis=0)

    def backward(self, theta, U, G):
        return column_sums(G)


TRANSITIONS = {
    "input": InputTransitions,
    "additive": AdditiveTransitions,
    "gated": GatedTransitions,
    "homogeneous": HomogeneousTransitions,
}


def _softmax_rows_(z, mask):
    """In place: masked softmax over the last axis (forbidden entries get 0)."""
    softmax_(z, mask)


def transition_probs(family, theta, U, mask):
    """Transition matrices, shape (len(U), n, n), or (1, n, n) shared by all steps
    for an input-free family."""
    z = family.logits(theta, U if family.per_step else U[:1])
    _softmax_rows_(z, mask)
    return z


def logit_gradient_from_sums(xi_sum, probs):
    """d loglik / d logits of an input-free chain from summed pairwise posteriors.

    ``xi_sum`` has shape (1, n, n) and ``probs`` (n, n):
    sum_t (xi_t - gamma_{t-1} A) = Xi - rowsum(Xi) A, since gamma_{t-1, j} is the
    row sum of xi_t.
    """
    return xi_sum - xi_sum.sum(axis=2, keepdims=True) * probs


def expected_log_transitions(family, theta, U, xi, mask):
    """Q_trans(theta) = sum_t,j,i xi_t[j, i] log A_t[j, i](theta) and its gradient.

    The state-network part of the EM auxiliary function (paper 000, eq. 20; its
    gradient is eq. 36). Evaluated in blocks of steps so that no second
    (n_steps, n, n) array is ever allocated.
    """
    block = _block_steps(xi.shape[0], family.n_states)
    value = 0.0
    grad = np.zeros(family.n_params)
    for t0 in range(0, xi.shape[0], block):
        U_b, xi_b = U[t0 : t0 + block], xi[t0 : t0 + block]
        z = family.logits(theta, U_b)
        # sum xi log softmax(z), and z <- xi - rowsum(xi) softmax(z), the gradient
        # with respect to the logits, in one cache-blocked kernel (xi is 0 where
        # the mask forbids a transition).
        value += log_softmax_gradient_(z, xi_b, mask)
        grad += family.backward(theta, U_b, z)
    return value, grad


def _block_steps(n_steps, n):
    """Steps per block of the M-step's evaluations: at most ~2 MB, and at most
    1/8 of the steps (but not below 0.5 MB), so the temporaries stay a small
    fraction of the (n_steps, n, n) pairwise posteriors."""
    return max(1, min(_BLOCK_ENTRIES // (n * n),
                      max(-(-n_steps // 8), _MIN_BLOCK_ENTRIES // (n * n))))


class _LinearSoftmaxObjective:
    """Q_trans(theta) for a family whose logits are linear in theta, sharing work
    between the evaluations of one M-step.

    Q = sum xi z - sum_t,j rows_t,j logsumexp_i z_t[j, i], with rows the row sums
    of xi (gamma_{t-1}). For z = A theta the first term is theta . A'xi and its
    gradient A'xi, the same at every evaluation: computed once here (as
    ``backward`` of xi), each evaluation then only needs the log-normaliser.
    """

    def __init__(self, family, U, xi):
        self.family, self.U = family, U
        self.g_linear = family.backward(None, U, xi)
        self.rows = row_sums_(xi)
        self.block = _block_steps(xi.shape[0], family.n_states)

    def __call__(self, theta):
        family, U, rows = self.family, self.U, self.rows
        value = float(theta @ self.g_linear)
        grad = self.g_linear.copy()
        for t0 in range(0, rows.shape[0], self.block):
            U_b = U[t0 : t0 + self.block]
            z = family.logits(theta, U_b)
            value -= weighted_log_normalizer_(z, rows[t0 : t0 + self.block])
            grad -= family.backward(theta, U_b, z)  # z holds rows * softmax
        return value, grad


class MLPTransitions(TransitionFamily):
    """Multilayer state networks: a shared tanh hidden layer, then per-state softmax.

    h_t = tanh(u_t A + a) (``n_hidden`` units), z_t[j] = h_t W_j + b_j: the
    nonlinear subnetworks of paper 000, §3.3.2, trained by the same GEM M-step
    (back-propagated gradient of the auxiliary function, eq. 36) or directly.
    The hidden layer is shared by the n state networks, so its features are
    learned once. ``transition="mlp"``.
    """

    n_hidden = 8

    def _blocks(self):
        n, d, h = self.n_states, self.n_features, self.n_hidden
        return [("hidden_coef", (d, h), True), ("hidden_intercept", (h,), False),
                ("coef", (h, n, n), True), ("intercept", (n, n), False)]

    def _hidden(self, p, U):
        return np.tanh(linear_map(U, p["hidden_coef"]) + p["hidden_intercept"])

    def logits(self, theta, U):
        p = self.unpack(theta)
        n = self.n_states
        z = self._hidden(p, U) @ p["coef"].reshape(self.n_hidden, n * n)
        return add_bias_(z.reshape(-1, n, n), p["intercept"])

    def backward(self, theta, U, G):
        p = self.unpack(theta)
        n = self.n_states
        H = self._hidden(p, U)
        G2 = G.reshape(-1, n * n)
        g_pre = (G2 @ p["coef"].reshape(self.n_hidden, n * n).T) * (1.0 - H * H)
        return np.concatenate([(U.T @ g_pre).ravel(), column_sums(g_pre),
                               (H.T @ G2).ravel(), column_sums(G2)])


TRANSITIONS["mlp"] = MLPTransitions
