"""State networks: the families of input-conditioned transition matrices.

A family maps the inputs u_t to transition matrices A_t[j, i] = P(x_t = i |
x_{t-1} = j, u_t) (Bengio & Frasconi 1996, eq. 2) and owns all the math that depends on
how it does so. :class:`TransitionFamily` writes the contract down; the driver
(``skseq._base``) only calls it:

``probs(theta, U, mask)``
    The matrices, (len(U), n, n), or (1, n, n) when one matrix serves every step.
``gradient_pass(theta, U, mask, chain)``
    The E-step of the direct (lbfgs) objective: a forward-backward over the
    chain (:class:`skseq._kernels.forward_backward.Chain`) and the gradient of the
    log-likelihood with respect to theta.
``gradient_passes(U, mask, offsets, weight, n_jobs)``
    The same for R parameter sets at once (the restarts of a fit, advancing
    in lockstep), prepared once per data set: a callable ``(thetas, startprob,
    log_emit) -> GradientPasses`` (``skseq._families.passes``). By default one
    ``gradient_pass`` per parameter set; the families whose logits are linear in
    theta run the fused kernel (``skseq._kernels.fused``), which forms each
    step's matrix inside the recursion, so nothing of size (T, n, n) exists.
``fit_entries_per_step(solver, det_penalty)``
    Floats per step a fit holds at once (the memory check before a fit).
``posterior_pass(theta, U, mask, chain)``
    The E-step of GEM: a forward-backward whose ``xi`` holds what this family's
    M-step needs.
``m_step_objective(U, xi, mask)``
    Q_trans(theta) = sum_t xi_t log A_t(theta) and its gradient, for one
    M-step's posteriors (Bengio & Frasconi 1996, eqs. 20 and 36).
``design(U)``, ``quadratic_bound(design, rows, alpha)``
    For linear softmax networks, the step of Böhning's (1992) bound
    (``skseq._families.linear_m_step``) given the inputs as a ``Design``
    (built once per fit) and the row sums of the pairwise posteriors: a
    function from the M-step objective's gradient to a step that cannot lower
    it; None for the other families.
``det_reward(theta, U, mask, step_weight)``
    The weighted mean of |det A_t| and its gradient (Bengio & Frasconi 1996, §5.2).

Most families are a masked softmax of logits (:class:`SoftmaxTransitions`): they
only give the logits and back-propagate a gradient with respect to them. A
family whose matrices are not a plain softmax (the hierarchical product,
``skseq._families.hierarchy``) gives ``probs`` and ``expected_log``; the rest of the
contract then follows from Fisher's identity (the gradient of the log-likelihood
is that of the EM auxiliary function at the current parameters).
"""

from functools import partial

import numpy as np
from scipy.special import expit

from .._kernels.forward_backward import XI_GRAD, XI_STEP, XI_SUM
from .._kernels.softmax import (
    add_bias_,
    log_softmax_gradient_,
    outer_sum,
    softmax_,
)
from .layers import Identity, TanhLayer
from .linear_m_step import (
    Design,
    LinearSoftmaxObjective,
    LinearStatistics,
    additive_bound,
    block_steps,
    heads_bound,
    heads_step,
)
from .params import ParametricFamily, column_sums, linear_map
from .passes import FusedGradient, SeparatePasses
from .starts import SMALL_START, STARTING_POINTS


class TransitionFamily(ParametricFamily):
    """The contract of a state-network family (see the module docstring).

    A subclass gives ``_blocks``, ``probs`` and ``expected_log``; everything else
    has a default that follows from them. ``gradient_statistic`` and
    ``posterior_statistic`` say what the forward-backward must write into ``xi``
    for ``loglik_gradient`` and ``m_step_objective``
    (``skseq._kernels.forward_backward.XI_*``).
    """

    gradient_statistic = XI_STEP
    posterior_statistic = XI_STEP

    # One sentence for users: what the option does, when to pick it (the
    # estimators' docstrings list it; see skseq._families.registry).
    summary = ""

    # The share of ``init_scale`` its random starts ask for (Problem.initial_theta):
    # SMALL_START for networks linear in their parameters, including the
    # hierarchy's (so that one level is the flat model draw for draw).
    start_scale = SMALL_START

    def __init__(self, n_states, n_features, n_hidden=None):
        # n_hidden: the width of a hidden layer, for the families that have one
        self.n_states = n_states
        self.n_features = n_features

    def init(self, rng, scale, start="random"):
        """Random parameters, pushed toward one of the starting points
        (:data:`~skseq._families.starts.STARTING_POINTS`): ``"random"`` draws
        every weight from N(0, scale^2), ``"permutation"`` and ``"hold"`` then
        push them (see their classes)."""
        theta = super().init(rng, scale)
        STARTING_POINTS[start].push(self, theta, rng, scale)
        return theta

    def probs(self, theta, U, mask):
        """Transition matrices, (len(U), n, n) or (1, n, n) shared by all steps."""
        raise NotImplementedError

    def expected_log(self, theta, U, xi, mask):
        """sum_t,j,i xi_t[j, i] log A_t[j, i](theta) and its gradient.

        The state-network part of the EM auxiliary function (Bengio & Frasconi 1996, eq.
        20; its gradient is eq. 36). ``xi`` may be any weights (it is linear in them).
        """
        raise NotImplementedError

    def gradient_pass(self, theta, U, mask, chain):
        """Forward-backward and the log-likelihood gradient with respect to theta.

        Returns the chain's :class:`~skseq._kernels.forward_backward.Posteriors` and the
        gradient of sum_s w_s log P(y^(s) | u^(s)).
        """
        post = chain.posteriors(self.probs(theta, U, mask), self.gradient_statistic)
        return post, self.loglik_gradient(theta, U, mask, post.xi)

    def gradient_passes(self, U, mask, offsets, weight=None, n_jobs=None):
        """:meth:`gradient_pass` for R parameter sets at once, prepared for one
        data set (once per fit).

        Returns a callable ``(thetas (R, n_params), startprob (R, n), log_emit
        (R, n_steps, n)) -> GradientPasses``; its ``logliks`` with the same
        arguments gives the per-sequence log-likelihoods alone.
        """
        return SeparatePasses(self, U, mask, offsets, weight, n_jobs)

    def fit_entries_per_step(self, solver, det_penalty=0.0):
        """Floats per step that a fit holds at once: the per-step matrices and
        their statistics (3 n^2), beyond the posteriors (O(n))."""
        return 3 * self.n_states**2

    def loglik_gradient(self, theta, U, mask, xi):
        """The gradient from the forward-backward's ``gradient_statistic``: by
        Fisher's identity, that of sum xi log A at the pairwise posteriors."""
        return self.expected_log(theta, U, xi, mask)[1]

    def posterior_pass(self, theta, U, mask, chain):
        """Forward-backward whose ``xi`` is what :meth:`m_step_objective` reads."""
        return chain.posteriors(self.probs(theta, U, mask), self.posterior_statistic)

    def m_step_objective(self, U, xi, mask):
        """theta -> (Q_trans, gradient) for one M-step's fixed U, xi and mask."""
        return lambda theta: self.expected_log(theta, U, xi, mask)

    def design(self, U):
        """The inputs as a ``Design``, for a family with a
        :meth:`quadratic_bound` (else None)."""
        return None

    def quadratic_bound(self, design, rows, alpha):
        """None: the family has no fixed bound on its M-step's curvature."""
        return None

    def det_reward(self, theta, U, mask, step_weight):
        """sum_t step_weight_t |det A_t| and its gradient (Bengio & Frasconi 1996,
        §5.2).

        Rewarding |det A_t| pushes the transition matrices' eigenvalues toward
        the unit circle, against the diffusion that erases temporal credit
        (eq. 40, here a weighted mean over steps so that one weight suits every
        length). d|det A| / dA = sign(det A) cof(A) (eq. 41); through the family,
        sum G dA = sum (G A) d log A, which is :meth:`expected_log`'s gradient
        for the weights G A.
        """
        A = self.probs(theta, U, mask)
        det, G = _abs_det_gradient(A, step_weight)
        return float(step_weight @ np.abs(det)), self.expected_log(
            theta, U, G * A, mask)[1]


def _abs_det_gradient(A, step_weight):
    """det A_t and step_weight_t d|det A_t| / dA_t = w_t sign(det A_t) cof(A_t)."""
    det = np.linalg.det(A)
    n = A.shape[-1]
    if n == 2:
        cof = np.stack([A[:, 1, 1], -A[:, 1, 0], -A[:, 0, 1], A[:, 0, 0]],
                       axis=1).reshape(-1, 2, 2)
    else:
        inv = np.linalg.inv(A + 1e-12 * np.eye(n))
        cof = det[:, None, None] * np.swapaxes(inv, 1, 2)
    return det, (step_weight * np.sign(det))[:, None, None] * cof


class SoftmaxTransitions(TransitionFamily):
    """A masked row softmax of logits z_t[j, i]: A_t[j] = softmax(z_t[j]).

    A subclass gives the logits (``logits``) and back-propagates a gradient with
    respect to them (``backward``). The forward-backward then writes the
    log-likelihood gradient with respect to the logits directly (XI_GRAD:
    xi_t - gamma_{t-1} A_t, Buys, Bisk & Choi 2018, §2.2), and ``backward`` turns it
    into the gradient with respect to theta.
    """

    gradient_statistic = XI_GRAD
    # Logits linear in theta (z = A(U) theta), so that ``backward`` does not
    # depend on theta: the M-step then shares work between its evaluations.
    linear = False

    def logits(self, theta, U):
        """Return z of shape (len(U), n, n), a fresh writable array."""
        raise NotImplementedError

    def backward(self, theta, U, G):
        """Gradient (flat) of sum(G * z(theta, U)) with respect to theta."""
        raise NotImplementedError

    @staticmethod
    def _free_logits(mask, n):
        """Free logits of the row softmaxes: each row j has (allowed_j - 1)."""
        allowed = np.full(n, n) if mask is None else np.asarray(mask).sum(axis=1)
        return int(np.sum(allowed - 1))

    @staticmethod
    def _choice_rows(mask, n):
        """The mask's rows of the states with a choice (more than one allowed
        successor): only their logits reach the probabilities."""
        allowed = (np.ones((n, n), dtype=bool) if mask is None
                   else np.asarray(mask, dtype=bool))
        return allowed[allowed.sum(axis=1) > 1]

    def probs(self, theta, U, mask):
        z = self.logits(theta, U)
        softmax_(z, mask)
        return z

    def loglik_gradient(self, theta, U, mask, xi):
        return self.backward(theta, U, xi)  # xi holds the logit gradient

    def expected_log(self, theta, U, xi, mask):
        """sum xi log A(theta) and its gradient, in blocks of steps so that no
        second (n_steps, n, n) array is ever allocated."""
        block = block_steps(xi.shape[0], self.n_states)
        value = 0.0
        grad = np.zeros(self.n_params)
        for t0 in range(0, xi.shape[0], block):
            U_b, xi_b = U[t0 : t0 + block], xi[t0 : t0 + block]
            z = self.logits(theta, U_b)
            # sum xi log softmax(z), and z <- xi - rowsum(xi) softmax(z), the
            # gradient with respect to the logits, in one cache-blocked kernel
            # (xi is 0 where the mask forbids a transition).
            value += log_softmax_gradient_(z, xi_b, mask)
            grad += self.backward(theta, U_b, z)
        return value, grad

    def _fused_e_step(self, mask):
        """Whether GEM's E-step runs the fused pass: linear logits in the fused
        kernel, every transition allowed (what LinearSoftmaxObjective needs)."""
        return (getattr(self, "_fused_kind", None) is not None
                and (mask is None or bool(np.all(mask))))

    def posterior_pass(self, theta, U, mask, chain):
        """As :meth:`TransitionFamily.posterior_pass`; for a family of the fused
        kernel its ``xi`` is :class:`LinearStatistics`, what the M-step of
        linear logits needs, and nothing of size (T, n, n) is formed."""
        if not self._fused_e_step(mask):
            return super().posterior_pass(theta, U, mask, chain)
        post, grad = self.gradient_pass(theta, U, mask, chain)
        # gamma_{t-1}, x_0's posterior at the first step of each sequence: the
        # row sums of the pairwise posteriors (Bengio & Frasconi 1996, eq. 29)
        rows = np.empty_like(post.gamma)
        rows[1:] = post.gamma[:-1]
        rows[chain.offsets[:-1]] = post.start_post
        return post._replace(xi=LinearStatistics(theta.copy(), grad, rows))

    def m_step_objective(self, U, xi, mask):
        if isinstance(xi, LinearStatistics):
            return LinearSoftmaxObjective.from_statistics(self, U, xi)
        if self.linear and (mask is None or np.all(mask)):
            return LinearSoftmaxObjective(self, U, xi)
        return super().m_step_objective(U, xi, mask)

    def det_reward(self, theta, U, mask, step_weight):
        """As :meth:`TransitionFamily.det_reward`, back-propagated through the row
        softmax directly: dA -> A (G - rowsum(G A))."""
        A = self.probs(theta, U, mask)
        det, G = _abs_det_gradient(A, step_weight)
        G = A * (G - (G * A).sum(axis=2, keepdims=True))
        return float(step_weight @ np.abs(det)), self.backward(theta, U, G)


class InputTransitions(FusedGradient, SoftmaxTransitions):
    """One softmax network per previous state: z_t[j] = W_j h_t + b_j.

    The paper's state networks N_j (Bengio & Frasconi 1996, eq. 2; "tensor
    feeding", Buys, Bisk & Choi 2018, eq. 22), on the output h_t of an input layer
    (``skseq._families.layers``): the input itself (``transition="input"``) or a
    shared tanh hidden layer (``transition="mlp"``, the multilayer subnetworks of
    Bengio & Frasconi 1996, §3.3.2, trained by the back-propagated gradient).
    ``coef`` has shape (n_out, n, n) so that the logits of all steps are one
    matrix product.
    """

    summary = ("one softmax regression of the input per previous state (Bengio & "
               "Frasconi 1996, eq. 2).")

    def __init__(self, n_states, n_features, n_hidden=None, *, layer=None):
        super().__init__(n_states, n_features)
        self.layer = self._input_layer(n_features, n_hidden) if layer is None else layer

    @staticmethod
    def _input_layer(n_features, n_hidden):
        return Identity(n_features)

    @property
    def linear(self):
        return self.layer.linear

    @property
    def start_scale(self):
        return SMALL_START if self.layer.linear else 1.0

    @property
    def _fused_kind(self):
        return "input" if self.layer.linear else None

    def design(self, U):
        return Design(U, self.n_states**2) if self.layer.linear else None

    def quadratic_bound(self, design, rows, alpha):
        """Previous state j's network is a softmax regression on [u_t, 1]
        weighted by gamma_{t-1, j}, ``rows[:, j]``."""
        if design is None:
            return None
        return partial(heads_step, self, heads_bound(design, rows, alpha))

    def n_free_params(self, mask=None):
        # every free logit has an intercept and a weight per layer output; a
        # hidden layer moves nothing if no state has a choice (one state)
        free = self._free_logits(mask, self.n_states)
        layer = sum(int(np.prod(shape)) for _, shape, _ in self.layer.blocks())
        return (layer if free else 0) + (self.layer.n_out + 1) * free

    def _blocks(self):
        n, h = self.n_states, self.layer.n_out
        return self.layer.blocks() + [("coef", (h, n, n), True),
                                      ("intercept", (n, n), False)]

    def logits(self, theta, U):
        p = self.unpack(theta)
        n = self.n_states
        H = self.layer.forward(p, U)
        z = linear_map(H, p["coef"].reshape(self.layer.n_out, n * n))
        return add_bias_(z.reshape(-1, n, n), p["intercept"])

    def backward(self, theta, U, G):
        n = self.n_states
        G2 = G.reshape(-1, n * n)
        p = None if self.layer.linear else self.unpack(theta)
        H = self.layer.forward(p, U)
        grads = [(H.T @ G2).ravel(), column_sums(G2)]
        if p is not None:
            dH = G2 @ p["coef"].reshape(self.layer.n_out, n * n).T
            hidden = self.layer.backward(p, U, H, dH)
            grads = [hidden[name].ravel() for name, _, _ in self.layer.blocks()] + grads
        return np.concatenate(grads)


class AdditiveTransitions(FusedGradient, SoftmaxTransitions):
    """Shared input weights plus a per-state bias: z_t[j, i] = B[j, i] + (u_t W)_i.

    Addition-based feeding (Buys, Bisk & Choi 2018, eq. 23): n_features * n + n^2
    parameters instead of n_features * n^2 + n^2.
    """

    summary = ("shared input weights plus a per-state bias (Buys, Bisk & Choi "
               "2018, eq. 23), fewer parameters.")
    linear = True
    _fused_kind = "additive"

    def n_free_params(self, mask=None):
        # a constant added to a row of B shifts it; a feature's weight of a
        # next state counts where a state with a choice may move there, less
        # one per group of such next states that a row links (adding a
        # constant to the group's weights shifts whole rows of logits)
        n = self.n_states
        rows = self._choice_rows(mask, n)
        group = np.arange(n)
        for row in rows:
            linked = np.isin(group, group[row])
            group[linked] = group[linked].min()
        reached = rows.any(axis=0)
        return self._free_logits(mask, n) + self.n_features * int(
            reached.sum() - np.unique(group[reached]).size)

    def _blocks(self):
        n, d = self.n_states, self.n_features
        return [("coef", (d, n), True), ("intercept", (n, n), False)]

    def design(self, U):
        return Design(U, self.n_states**2)

    def quadratic_bound(self, design, rows, alpha):
        bound, d = additive_bound(design, rows, alpha), self.n_features

        def step(grad):
            p = self.unpack(grad)
            block = bound.step(np.concatenate([p["coef"], p["intercept"]])[None])[0]
            return self.pack({"coef": block[:d], "intercept": block[d:]})

        return step

    def logits(self, theta, U):
        p = self.unpack(theta)
        return outer_sum(linear_map(U, p["coef"]), p["intercept"])

    def backward(self, theta, U, G):
        n = self.n_states
        # sum_j of U^T G[:, j, :] after the product: no (T, n) temporary
        g_coef = (U.T @ G.reshape(-1, n * n)).reshape(-1, n, n).sum(axis=1)
        return np.concatenate([g_coef.ravel(), column_sums(G)])


class GatedTransitions(SoftmaxTransitions):
    """Input gates on the transition logits: z_t[j, i] = B[j, i] f_t,i.

    Gating-based feeding (Buys, Bisk & Choi 2018, eqs. 24-26): f_t = sigmoid(u_t U + c).
    """

    summary = ("input gates scaling the transition logits (Buys, Bisk & Choi "
               "2018, eqs. 24-26).")
    start_scale = 1.0  # not measured: the draw of N(0, init_scale^2)

    def _blocks(self):
        n, d = self.n_states, self.n_features
        return [
            ("intercept", (n, n), False),
            ("gate_coef", (d, n), True),
            ("gate_intercept", (n,), False),
        ]

    def n_free_params(self, mask=None):
        # the gates multiply the logits: no constant shift leaves them
        # unchanged; but only the intercepts of a state with a choice, and the
        # gates of the next states it may move to, reach the probabilities
        rows = self._choice_rows(mask, self.n_states)
        return int(rows.sum()) + (self.n_features + 1) * int(rows.any(axis=0).sum())

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


class HomogeneousTransitions(SoftmaxTransitions):
    """No input: one transition matrix for every step (an ordinary HMM chain).

    Its statistics are summed over the steps: the forward-backward adds the
    pairwise posteriors up (XI_SUM) instead of writing one matrix per step.
    """

    summary = "one input-free transition matrix (an ordinary HMM chain)."
    start_scale = 1.0  # not measured: the draw of N(0, init_scale^2)

    gradient_statistic = XI_SUM
    posterior_statistic = XI_SUM

    def _blocks(self):
        return [("intercept", (self.n_states, self.n_states), False)]

    def n_free_params(self, mask=None):
        return self._free_logits(mask, self.n_states)

    def logits(self, theta, U):
        return np.repeat(self.unpack(theta)["intercept"][None], len(U), axis=0)

    def backward(self, theta, U, G):
        return column_sums(G)

    def probs(self, theta, U, mask):
        return super().probs(theta, U[:1], mask)

    def _matrix(self, theta, mask):
        z = self.unpack(theta)["intercept"][None].copy()
        softmax_(z, mask)
        return z[0]

    def stationary(self, theta, mask):
        """The stationary distribution pi of the chain, pi A = pi (the start
        distribution of Hamilton 1989 and of statsmodels' and Stata's
        Markov-switching models): the solution of pi (I - A + 1 1^T) = 1^T."""
        A = self._matrix(theta, mask)
        n = self.n_states
        try:
            return np.linalg.solve((np.eye(n) - A + 1.0).T, np.ones(n))
        except np.linalg.LinAlgError:  # reducible: no unique stationary law
            return np.full(n, np.nan)

    def stationary_backward(self, theta, mask, pi, g_pi):
        """Gradient with respect to theta of a function of pi, given its
        gradient ``g_pi`` with respect to pi: differentiating pi (I - A) = 0
        with pi 1 = 1 gives d pi = pi dA Z, Z = (I - A + 1 pi)^-1 (the
        fundamental matrix), so d/dA[j, i] = pi_j (Z g_pi)_i; then through the
        row softmax, dA -> A (G - rowsum(G A))."""
        A = self._matrix(theta, mask)
        n = self.n_states
        try:
            Z = np.linalg.inv(np.eye(n) - A + np.outer(np.ones(n), pi))
        except np.linalg.LinAlgError:  # the objective is then inf, see stationary
            return np.full(self.n_params, np.nan)
        G = np.outer(pi, Z @ g_pi)
        G = A * (G - (G * A).sum(axis=1, keepdims=True))
        return self.backward(theta, None, G[None])

    def loglik_gradient(self, theta, U, mask, xi):
        """From the summed pairwise posteriors Xi (1, n, n): sum_t (xi_t -
        gamma_{t-1} A) = Xi - rowsum(Xi) A, since gamma_{t-1, j} is the row sum
        of xi_t."""
        A = self.probs(theta, U, mask)[0]
        return self.backward(theta, U[:1], xi - xi.sum(axis=2, keepdims=True) * A)

    def m_step_objective(self, U, xi, mask):
        return super().m_step_objective(U[:1], xi, mask)

    def det_reward(self, theta, U, mask, step_weight):
        # one matrix for every step: the weighted mean of |det A_t| is |det A|
        return super().det_reward(theta, U[:1], mask, np.ones(1))


class MLPTransitions(InputTransitions):
    """:class:`InputTransitions` on a tanh hidden layer of ``n_hidden`` units
    shared by the per-state networks (:class:`~skseq._families.layers.TanhLayer`)."""

    summary = ("a tanh hidden layer of ``n_hidden`` units, shared by the "
               "per-state softmax networks (Bengio & Frasconi 1996, §3.3.2), "
               "nonlinear in the input.")

    @staticmethod
    def _input_layer(n_features, n_hidden):
        return TanhLayer(n_features, n_hidden)


# transition= option -> family(n_states, n_features, n_hidden)
TRANSITIONS = {
    "input": InputTransitions,
    "additive": AdditiveTransitions,
    "gated": GatedTransitions,
    "homogeneous": HomogeneousTransitions,
    "mlp": MLPTransitions,
}
