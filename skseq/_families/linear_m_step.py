"""The GEM M-step of softmax networks whose logits are linear in their
parameters (the "input" and "additive" state networks, the softmax output
networks on the input or on nothing).

Two ways to improve such a network's part of the EM auxiliary function
(Bengio & Frasconi 1996, eqs. 36-37):

* :class:`LinearSoftmaxObjective`: Q(theta) and its gradient, the linear term
  computed once, for an iterative solver (L-BFGS) inside the M-step;
* :class:`SoftmaxBound`: one Newton step on a fixed quadratic lower bound of Q,
  which needs no evaluation of Q at all. A softmax over K classes with
  probabilities p has log-normaliser Hessian diag(p) - p p^T, bounded above in
  the positive semi-definite order by (1/2)(I - 1 1^T / K) (Böhning 1992;
  Böhning & Lindsay 1988 for the bound principle). With the penalty, the
  negative M-step objective of a softmax regression with weights w_t on
  inputs x_t then has Hessian at most

      B = (1/2)(I - 1 1^T / K) (x) sum_t w_t x_t x_t^T + alpha P,

  at every theta, so theta + B^+ g (g the gradient of Q) maximises a minorant of Q
  that touches it at theta: Q cannot decrease, the generalized EM of Dempster,
  Laird & Rubin (1977) stays monotone, and B is fixed for the whole M-step
  (IRLS with a fixed weight matrix; the mixtures of experts' M-step of Jordan &
  Jacobs 1994 is IRLS with the exact Hessian, which needs a line search to be
  monotone).

In the M-step the weights are posterior probabilities: gamma_{t-1, j} (the row
sums of the pairwise posteriors) for the state network of previous state j,
gamma_{t, i} at the supervised steps for the output network of state i. B then
changes with every E-step, through the per-step posteriors, not only their
totals; only a network that sees no input has the posterior count sum_t w_t as
its whole matrix, and the additive family's shared input weights the fixed
sum_t (sum_j gamma_{t-1, j}) u_t u_t^T = sum_t w_s u_t u_t^T.
"""

from typing import NamedTuple

import numpy as np

from .._kernels.fused import LinearNormalizer
from .._kernels.softmax import row_sums, weighted_log_normalizer_
from .params import column_sums

# Steps per block when the M-step evaluates logits block-wise (bounds memory).
_BLOCK_ENTRIES = 1 << 18
# ... but not below this many (0.5 MB), where the Python work per block would show.
_MIN_BLOCK_ENTRIES = 1 << 16

# From this many states the M-step's log-normaliser runs compiled (see
# LinearSoftmaxObjective).
_FUSED_M_STEP_STATES = 8


def block_steps(n_steps, n):
    """Steps per block of the M-step's evaluations: at most ~2 MB, and at most
    1/8 of the steps (but not below 0.5 MB), so the temporaries stay a small
    fraction of the (n_steps, n, n) pairwise posteriors."""
    return max(1, min(_BLOCK_ENTRIES // (n * n),
                      max(-(-n_steps // 8), _MIN_BLOCK_ENTRIES // (n * n))))


class LinearStatistics(NamedTuple):
    """What the GEM M-step of linear logits needs from the fused E-step, in
    place of the pairwise posteriors xi: the parameters of the E-step, the
    log-likelihood gradient there (sum (xi - rows softmax z) d z / d theta) and
    the row sums of xi, (n_steps, n)."""

    theta: np.ndarray
    grad: np.ndarray
    rows: np.ndarray


class LinearSoftmaxObjective:
    """Q_trans(theta) for a family whose logits are linear in theta, sharing work
    between the evaluations of one M-step.

    Q = sum xi z - sum_t,j rows_t,j logsumexp_i z_t[j, i], with rows the row sums
    of xi (gamma_{t-1}). For z = A theta the first term is theta . A'xi and its
    gradient A'xi, the same at every evaluation: computed once here (as
    ``backward`` of xi), each evaluation then only needs the log-normaliser.
    """

    def __init__(self, family, U, xi=None, *, rows=None, g_linear=None):
        self.family, self.U = family, U
        self.g_linear = family.backward(None, U, xi) if xi is not None else g_linear
        self.rows = row_sums(xi) if xi is not None else rows
        self.block = block_steps(self.rows.shape[0], family.n_states)
        self._first = None
        # The families of the fused pass, from 8 states: the log-normaliser in
        # one compiled pass (skseq._kernels.fused.LinearNormalizer), measured 1.7-2x the
        # NumPy blocks below at 8 states; with fewer, its one libm log per row
        # makes it slower than NumPy's vectorised log (0.7x at 2 and 4 states).
        kind = getattr(family, "_fused_kind", None)
        self.fused = (LinearNormalizer(kind, U, self.rows)
                      if kind is not None and family.n_states >= _FUSED_M_STEP_STATES
                      else None)

    @classmethod
    def from_statistics(cls, family, U, stats):
        """From the fused E-step's :class:`LinearStatistics`: the linear term's
        gradient is the log-likelihood gradient plus the log-normaliser's at
        the E-step's parameters (Fisher's identity), which the first
        evaluation, there, then reuses."""
        objective = cls(family, U, rows=stats.rows)
        norm, g_norm = objective._normalizer(stats.theta)
        objective.g_linear = stats.grad + g_norm
        objective._first = (stats.theta, float(stats.theta @ objective.g_linear)
                            - norm, stats.grad.copy())
        return objective

    def _normalizer(self, theta):
        """sum_t,j rows_t,j logsumexp_i z_t[j, i] and its gradient."""
        if self.fused is not None:
            p = self.family.unpack(theta)
            norm, g_coef, g_intercept = self.fused(p["coef"], p["intercept"])
            return norm, np.concatenate([g_coef.ravel(), g_intercept.ravel()])
        family, U, rows = self.family, self.U, self.rows
        norm, grad = 0.0, np.zeros(family.n_params)
        for t0 in range(0, rows.shape[0], self.block):
            U_b = U[t0 : t0 + self.block]
            z = family.logits(theta, U_b)
            norm += weighted_log_normalizer_(z, rows[t0 : t0 + self.block])
            grad += family.backward(theta, U_b, z)  # z holds rows * softmax
        return norm, grad

    def __call__(self, theta):
        if self._first is not None and np.array_equal(theta, self._first[0]):
            return self._first[1], self._first[2].copy()
        norm, g_norm = self._normalizer(theta)
        return float(theta @ self.g_linear) - norm, self.g_linear - g_norm




# The largest cache of the inputs' outer products (Design).
_PRODUCTS_BYTES = 1 << 26
# Relative size below which an eigenvalue of a bound's matrix counts as zero
# (a direction in which the data term is flat and nothing is penalised).
_RANK_TOL = 1e-12


class Design:
    """The inputs x_t of softmax regressions that share them, and the weighted
    Gram matrices of [x_t, 1].

    The products x_t,a x_t,b (a <= b) are formed once when they take no more
    entries per step than ``max_products`` (the fit's memory allows n^2 per
    step) nor more than ``_PRODUCTS_BYTES`` in all: the Gram matrices of any
    weights are then one matrix product. Else each is a product of its own.
    """

    def __init__(self, X, max_products):
        self.X = X
        d = X.shape[1]
        self._upper = np.triu_indices(d)
        self._products = None
        if (self._upper[0].size <= max_products
                and 8 * X.shape[0] * self._upper[0].size <= _PRODUCTS_BYTES):
            self._products = np.empty((X.shape[0], self._upper[0].size))
            for k, (a, b) in enumerate(zip(*self._upper, strict=True)):
                np.multiply(X[:, a], X[:, b], out=self._products[:, k])

    @property
    def n_inputs(self):
        """p, the width of [x_t, 1]."""
        return self.X.shape[1] + 1

    def grams(self, weights):
        """sum_t weights[t, m] [x_t, 1] [x_t, 1]^T for every column m: (m, p, p)."""
        X, d = self.X, self.X.shape[1]
        grams = np.empty((weights.shape[1], d + 1, d + 1))
        if self._products is None:
            for gram, w in zip(grams, weights.T, strict=True):
                gram[:d, :d] = (X * w[:, None]).T @ X
        else:
            rows, cols = self._upper
            upper = weights.T @ self._products  # (m, d (d + 1) / 2)
            grams[:, rows, cols] = upper
            grams[:, cols, rows] = upper
        grams[:, :d, d] = grams[:, d, :d] = weights.T @ X
        grams[:, d, d] = column_sums(weights)
        return grams


def _psd_solve(M, R):
    """M^+ R for a symmetric positive semi-definite M, by its eigenvectors."""
    values, vectors = np.linalg.eigh(M)
    keep = values > _RANK_TOL * max(values[-1], 0.0)
    inverse = np.zeros_like(values)
    inverse[keep] = 1.0 / values[keep]
    return vectors @ (inverse[:, None] * (vectors.T @ R))


class SoftmaxBound:
    """Böhning's (1992) bound of m softmax regressions over K classes, each on
    the rows of its own parameter block Theta_b (p, K): logits Theta_b^T x.

    ``grams`` (m, p, p) holds sum_t w_t x_t x_t^T of each block, ``penalised`` (p,)
    the rows the L2 penalty ``alpha`` applies to. :meth:`step` solves
    (1/2) G Delta C + alpha P Delta = g with C = I - 1 1^T / K: on the columns'
    centred part with (1/2) G + alpha P, on their mean (where the softmax is
    flat and only the penalty curves) with alpha P.
    """

    def __init__(self, grams, penalised, alpha):
        self.grams, self.alpha = grams, alpha
        self.penalised = np.asarray(penalised, dtype=bool)

    def matrix(self, b, n_classes):
        """B of block b as a (p K, p K) matrix on Theta_b raveled row-major."""
        C = np.eye(n_classes) - 1.0 / n_classes
        P = np.diag(self.alpha * self.penalised)
        return 0.5 * np.kron(self.grams[b], C) + np.kron(P, np.eye(n_classes))

    def step(self, grad):
        """B^+ g for the gradients ``grad`` (m, p, K) of the penalised objective."""
        mean = grad.mean(axis=2, keepdims=True)
        M = 0.5 * self.grams + np.diag(self.alpha * self.penalised)[None]
        step = np.stack([_psd_solve(M_b, g_b - m_b)
                         for M_b, g_b, m_b in zip(M, grad, mean, strict=True)])
        if self.alpha:
            step += np.where(self.penalised[:, None], mean / self.alpha, 0.0)
        return step


def head_blocks(coef, intercept):
    """Per-head blocks (m, p, K) from the weights ``coef`` (h, m, K) (None for
    heads that see no input) and the intercepts (m, K): rows [coef; intercept]."""
    rows = [] if coef is None else [coef.transpose(1, 0, 2)]
    return np.concatenate(rows + [intercept[:, None, :]], axis=1)


def heads_bound(design, weights, alpha):
    """The bound of m heads, head b a softmax regression on the
    :class:`Design`'s [x_t, 1] with the weights ``weights[:, b]``."""
    penalised = np.arange(design.n_inputs) < design.X.shape[1]
    return SoftmaxBound(design.grams(weights), penalised, alpha)


def additive_bound(design, rows, alpha):
    """The bound of the additive state networks, z_t[j, i] = B[j, i] + (u_t W)_i:
    one softmax regression over the next state whose inputs at (t, j) are
    [u_t, e_j] (u_t from the :class:`Design`), weighted by rows[t, j]; its block
    is [W; B] (d + n, n)."""
    U = design.X
    d, n = U.shape[1], rows.shape[1]
    gram = np.empty((d + n, d + n))
    # sum_j rows[t, j] is the sequence's weight: this block is fixed for a fit
    gram[:d, :d] = design.grams(rows.sum(axis=1)[:, None])[0, :d, :d]
    gram[:d, d:] = U.T @ rows
    gram[d:, :d] = gram[:d, d:].T
    gram[d:, d:] = np.diag(column_sums(rows))
    return SoftmaxBound(gram[None], np.arange(d + n) < d, alpha)


def heads_step(family, bound, grad):
    """The bound's step (:class:`SoftmaxBound`) of a family of per-state heads
    with blocks ``coef`` (h, m, K), if it sees an input, and ``intercept`` (m, K),
    on its flat gradient."""
    p = family.unpack(grad)
    coef = p.get("coef")
    blocks = bound.step(head_blocks(coef, p["intercept"]))
    values = {"intercept": blocks[:, -1]}
    if coef is not None:
        values["coef"] = blocks[:, :-1].transpose(1, 0, 2)
    return family.pack(values)
