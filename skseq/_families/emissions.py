"""Output networks: the families of per-state output distributions.

A family gives P(y_t | x_t = i, u_t) for every state i at the supervised steps.
:class:`EmissionFamily` writes the contract down; the driver (``skseq._base``)
only calls it:

``log_prob(theta, U, y)``
    log P(y_t | x_t = i, u_t), shape (len(U), n_states): the forward-backward's
    emission log-likelihoods.
``expected_log(theta, U, y, weights)``
    sum_t,i weights[t, i] log P(y_t | x_t = i, u_t) and its gradient: with the
    state posteriors as weights, both the output part of the EM auxiliary
    function (Bengio & Frasconi 1996, eqs. 20 and 37) and the gradient of the
    conditional log-likelihood.
``grad(theta, U, y, weights)``, ``m_step_objective(U, y, weights)``
    Its gradient alone, and the M-step's objective (defaults from
    ``expected_log``).

The network of every state is an affine map of an input layer's output h_t
(``skseq._families.layers``: the input, nothing, or a tanh hidden layer); the
distribution decides what the affine map gives (class logits, Gaussian means).
The estimators' outputs strategies (``skseq._families.outputs``) choose the
family; a new output distribution is one class here plus its tests.
"""

import numpy as np
from scipy.special import log_softmax, logsumexp

from .._kernels.softmax import (
    add_bias_,
    log_softmax_categorical_,
    log_softmax_categorical_gradient_,
    softmax_,
    weighted_log_normalizer_,
)
from .params import ParametricFamily, column_sums, linear_map
from .starts import SMALL_START


class EmissionFamily(ParametricFamily):
    """The contract of an output-network family (see the module docstring).

    Parameters
    ----------
    n_states : int
    layer : skseq._families.layers.InputLayer
        What every state's network sees of the input.
    n_outputs : int
        Width of each state's affine map (classes, or output dimensions).
    """

    def __init__(self, n_states, layer, n_outputs):
        self.n_states = n_states
        self.layer = layer
        self.n_outputs = n_outputs

    @property
    def start_scale(self):
        """The share of ``init_scale`` its random starts ask for (see
        ``skseq._families.starts.SMALL_START``)."""
        return SMALL_START if self.layer.linear else 1.0

    @property
    def n_features(self):
        return self.layer.n_features

    def _head_blocks(self):
        """The layer's blocks, then the affine map's weights (if it sees h)."""
        n, h, k = self.n_states, self.layer.n_out, self.n_outputs
        blocks = self.layer.blocks()
        if h:
            blocks.append(("coef", (h, n, k), True))
        return blocks

    def _affine(self, p, U):
        """The affine maps of all states, (len(U), n, k): a fresh array, or a
        read-only broadcast of the intercept when the network sees no input."""
        n, h, k = self.n_states, self.layer.n_out, self.n_outputs
        if not h:
            return np.broadcast_to(p["intercept"], (U.shape[0], n, k))
        H = self.layer.forward(p, U)
        z = linear_map(H, p["coef"].reshape(h, n * k)).reshape(-1, n, k)
        return add_bias_(z, p["intercept"])  # in place: a fresh product

    def _affine_batch(self, thetas, U):
        """The affine maps of R parameter sets of a linear layer, (R, len(U), n,
        k), in a fresh array: one product for all restarts."""
        p = self.unpack_batch(thetas)
        R, (n, h, k) = thetas.shape[0], (self.n_states, self.layer.n_out,
                                         self.n_outputs)
        z = np.empty((R, U.shape[0], n, k))
        if h:
            H = self.layer.forward(None, U)
            z.reshape(R, -1, n * k)[...] = linear_map(H, p["coef"].reshape(R, h, n * k))
            z += p["intercept"][:, None]
        else:
            z[...] = p["intercept"][:, None]
        return z

    def _affine_backward(self, p, U, G):
        """Gradients (name -> array) of the layer's blocks and ``coef`` given
        dL/d(affine map) = G (len(U), n, k); the intercept's is the caller's."""
        h = self.layer.n_out
        if not h:
            return {}
        G2 = G.reshape(-1, G.shape[1] * G.shape[2])
        H = self.layer.forward(p, U)
        grads = {"coef": H.T @ G2}
        if p is not None and not self.layer.linear:
            dH = G2 @ p["coef"].reshape(h, -1).T
            grads.update(self.layer.backward(p, U, H, dH))
        return grads

    def _layer_params(self):
        return sum(int(np.prod(shape)) for _, shape, _ in self.layer.blocks())

    def _flat(self, grads):
        return np.concatenate([grads[name].ravel() for name in self.names])

    def log_prob(self, theta, U, y):
        """log P(y_t | x_t = i, u_t), shape (len(U), n_states)."""
        raise NotImplementedError

    def expected_log(self, theta, U, y, weights):
        """sum_t,i weights[t, i] log P(y_t | x_t = i, u_t) and its gradient."""
        raise NotImplementedError

    def grad(self, theta, U, y, weights):
        """Gradient of sum_t,i weights[t, i] log P(y_t | x_t = i, u_t)."""
        return self.expected_log(theta, U, y, weights)[1]

    def log_prob_batch(self, thetas, U, y):
        """:meth:`log_prob` for R parameter sets (R, n_params): (R, len(U), n)."""
        return np.stack([self.log_prob(theta, U, y) for theta in thetas])

    def grad_batch(self, thetas, U, y, weights):
        """:meth:`grad` for R parameter sets and weights (R, len(U), n): (R,
        n_params)."""
        return np.stack([self.grad(theta, U, y, w)
                         for theta, w in zip(thetas, weights, strict=True)])

    def m_step_objective(self, U, y, weights):
        """theta -> :meth:`expected_log` for one M-step's fixed U, y and weights."""
        return lambda theta: self.expected_log(theta, U, y, weights)

    def sample(self, theta, U, states, rng):
        """One draw of y_t | x_t = states[t], u_t for every row of U."""
        raise NotImplementedError


class SoftmaxEmission(EmissionFamily):
    """Multinomial outputs: P(y_t = k | x_t = i, u_t) = softmax_k(V_i h_t + c_i).

    With the identity layer h_t = u_t (Bengio & Frasconi 1996, eq. 9); with no input the
    output depends on the state alone (a Moore machine, as used for the Tomita grammars
    in Bengio & Frasconi 1996, §6); with a tanh layer the heads share learned features.
    """

    def __init__(self, n_states, layer, n_classes):
        super().__init__(n_states, layer, n_classes)

    @property
    def n_classes(self):
        return self.n_outputs

    def _blocks(self):
        n, k = self.n_states, self.n_classes
        return self._head_blocks() + [("intercept", (n, k), False)]

    def _fresh_logits(self, theta, U):
        """Logits in a writable C-contiguous array, for the in-place kernels (a
        copy of a broadcast intercept: the kernel must never write into the
        parameters)."""
        z = self._affine(self.unpack(theta), U)
        return z if z.flags.writeable else np.array(z, order="C")

    def log_prob_batch(self, thetas, U, y):
        if not self.layer.linear:
            return super().log_prob_batch(thetas, U, y)
        R, M = thetas.shape[0], U.shape[0]
        z = self._affine_batch(thetas, U)
        return log_softmax_categorical_(z.reshape(R * M, *z.shape[2:]),
                                        np.tile(y, R)).reshape(R, M, -1)

    def grad_batch(self, thetas, U, y, weights):
        if not self.layer.linear:
            return super().grad_batch(thetas, U, y, weights)
        R, M = thetas.shape[0], U.shape[0]
        n, h, k = self.n_states, self.layer.n_out, self.n_classes
        resid = self._affine_batch(thetas, U)
        log_softmax_categorical_gradient_(
            resid.reshape(R * M, n, k), np.tile(y, R),
            np.ascontiguousarray(weights).reshape(R * M, n))
        resid = resid.reshape(R, M, n * k)
        grads = [np.ones(M) @ resid]  # the intercepts': column sums
        if h:
            grads.insert(0, (self.layer.forward(None, U).T @ resid).reshape(R, -1))
        return np.concatenate(grads, axis=1)

    def predict_proba(self, theta, U):
        """Class probabilities per state, shape (len(U), n_states, n_classes)."""
        # in place, shifted by each row's max without NumPy's overflow
        # warnings: logits near +-1.8e308 (inputs near the float64 limit)
        # saturate instead of turning inf - inf into NaN
        return softmax_(self._fresh_logits(theta, U))

    def mixture_log_proba(self, theta, U, zeta):
        """log sum_i zeta_i P(y | x = i, u) of every row (states' weights
        ``zeta``), from the per-state log-softmax: finite where the class
        probabilities underflow, normalised over the classes; shape
        (len(U), n_classes)."""
        limit = np.finfo(np.float64).max
        logits = np.clip(self._fresh_logits(theta, U), -limit, limit)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            log_mix = logsumexp(np.log(zeta)[:, :, None]
                                + log_softmax(logits, axis=2), axis=1)
            return log_mix - logsumexp(log_mix, axis=1, keepdims=True)

    def n_free_params(self, mask=None):
        # each state's softmax has n_classes - 1 free logits
        h = self.layer.n_out
        return self._layer_params() + (h + 1) * self.n_states * (self.n_classes - 1)

    def sample(self, theta, U, states, rng):
        """Class indices drawn from each row's state, shape (len(U),)."""
        proba = self.predict_proba(theta, U)[np.arange(len(U)), states]
        return inverse_cdf(proba, rng.random(len(U)))

    def log_prob(self, theta, U, y):
        return log_softmax_categorical_(self._fresh_logits(theta, U), y)

    def expected_log(self, theta, U, y, weights):
        # resid = weights * (onehot(y) - P), in one cache-blocked kernel
        resid = self._fresh_logits(theta, U)
        value = log_softmax_categorical_gradient_(resid, y, weights)
        return value, self._backward(theta, U, resid)

    def _backward(self, theta, U, G):
        """Gradient (flat) of sum(G * z(theta, U)); for a linear layer it does not
        depend on theta (which may then be None)."""
        p = None if theta is None else self.unpack(theta)
        grads = self._affine_backward(p, U, G)
        grads["intercept"] = column_sums(G)
        return self._flat(grads)

    def m_step_objective(self, U, y, weights):
        """theta -> :meth:`expected_log` for one M-step's fixed U, y and weights.

        For a linear layer the logits are linear in theta, so sum_t,i weights
        z_t,i[y_t] and its gradient are the same at every evaluation and
        computed once here; each evaluation then only needs the weighted
        log-normaliser (as for the state networks,
        ``skseq._families.linear_m_step.LinearSoftmaxObjective``).
        """
        if not self.layer.linear:
            return super().m_step_objective(U, y, weights)
        weights = np.ascontiguousarray(weights, dtype=np.float64)
        # The one-hot weights, once (the size of one evaluation's logits).
        target = np.zeros((len(y), self.n_states, self.n_classes))
        target[np.arange(len(y)), :, y] = weights
        g_linear = self._backward(None, U, target)
        del target

        def objective(theta):
            z = self._fresh_logits(theta, U)
            value = float(theta @ g_linear) - weighted_log_normalizer_(z, weights)
            return value, g_linear - self._backward(theta, U, z)  # z: w * softmax

        return objective


class GaussianEmission(EmissionFamily):
    """Linear-Gaussian outputs: y_t | x_t = i, u_t ~ N(V_i h_t + c_i, Sigma_i).

    Bengio & Frasconi (1996, §2.2): a mixture of Gaussians whose mixing proportions
    are the state distribution (eq. 10), the output networks being linear (eq. 9)
    with the identity layer; with no input each state's mean is constant, with a
    tanh layer it is a shared nonlinear function of the input.

    The family works on standardized targets, (y - y_mean) / y_scale, so that
    initialization and optimization do not depend on the units of y; ``log_prob``
    adds the Jacobian so likelihoods are those of y itself, and
    ``coefficients``/``pack`` convert to and from the user's units. Variances are
    exp(s) + floor (diag, spherical) or L L^T + floor I (full, and tied: one
    factor L shared by every state): the floor ``min_covar`` keeps every
    density finite.
    """

    start_scale = 1.0  # not measured: the draw of its own init

    def __init__(self, n_states, layer, n_outputs, covariance_type, min_covar,
                 y_mean, y_scale):
        super().__init__(n_states, layer, n_outputs)
        self.covariance_type = covariance_type
        self.y_mean = np.asarray(y_mean, dtype=np.float64)
        self.y_scale = np.asarray(y_scale, dtype=np.float64)
        # the floor is given in the units of y; the family works standardized
        self.floor = float(np.min(min_covar / self.y_scale**2))

    def _blocks(self):
        n, p = self.n_states, self.n_outputs
        cov_shape = {"spherical": (n,), "diag": (n, p), "full": (n, p, p),
                     "tied": (p, p)}
        return self._head_blocks() + [
            ("intercept", (n, p), False),
            ("covariance", cov_shape[self.covariance_type], False)]

    def init(self, rng, scale):
        """State means spread over the (standardized) data, unit variances."""
        theta = rng.normal(scale=0.1 * scale, size=self.n_params)
        p = self.unpack(theta)
        p["intercept"][:] = rng.normal(size=p["intercept"].shape)
        if self._factored():
            p["covariance"][:] = np.eye(self.n_outputs)
        else:
            p["covariance"][:] = 0.0  # log of a unit variance
        return theta

    def n_free_params(self, mask=None):
        n, k, h = self.n_states, self.n_outputs, self.layer.n_out
        cov = {"spherical": n, "diag": n * k, "full": n * k * (k + 1) // 2,
               "tied": k * (k + 1) // 2}
        return self._layer_params() + n * k * (h + 1) + cov[self.covariance_type]

    def sample(self, theta, U, states, rng):
        """Outputs drawn from each row's state, shape (len(U), n_outputs), in the
        units of y."""
        means, cov = self.moments(theta, U)
        rows = np.arange(len(U))
        chol = np.linalg.cholesky(cov)[states]  # (rows, k, k)
        noise = rng.standard_normal((len(U), self.n_outputs))
        return means[rows, states] + np.einsum("rkq,rq->rk", chol, noise)

    def _variances(self, p):
        """Standardized variances, shape (n_states, n_outputs) (not full)."""
        var = np.exp(p["covariance"]) + self.floor
        if self.covariance_type == "spherical":  # (..., n) -> (..., n, k)
            var = np.repeat(var[..., None], self.n_outputs, axis=-1)
        return var

    def _factored(self):
        """Whether the covariances are L L^T + floor I (full, tied)."""
        return self.covariance_type in ("full", "tied")

    def _cholesky(self, p):
        """Per-state factors L (n, k, k) of the full or tied standardized
        covariances, and the lower Cholesky factors of the covariances."""
        L = np.tril(p["covariance"])
        if self.covariance_type == "tied":
            L = np.broadcast_to(L, (self.n_states, *L.shape))
        cov = L @ np.swapaxes(L, 1, 2) + self.floor * np.eye(self.n_outputs)
        return L, np.linalg.cholesky(cov)

    def log_prob(self, theta, U, y):
        """log N(y_t; mean_i(u_t), Sigma_i) in the units of y, (len(U), n).

        A residual that overflows gives -inf (the honest density), silently."""
        p = self.unpack(theta)
        k = self.n_outputs
        jacobian = np.sum(np.log(self.y_scale))
        with np.errstate(over="ignore", invalid="ignore"):
            r = ((y - self.y_mean) / self.y_scale)[:, None, :] - self._affine(p, U)
            if self._factored():
                _, C = self._cholesky(p)
                z = np.einsum("nqp,mnp->mnq", np.linalg.inv(C), r)
                logdet = 2.0 * np.log(np.diagonal(C, axis1=1, axis2=2)).sum(axis=1)
                maha = np.einsum("mnq,mnq->mn", z, z)
            else:
                var = self._variances(p)
                maha = np.einsum("mnk,nk->mn", r * r, 1.0 / var)
                logdet = np.log(var).sum(axis=1)
            return -0.5 * (maha + logdet + k * np.log(2 * np.pi)) - jacobian

    def grad(self, theta, U, y, weights):
        """Gradient of sum_t,i weights[t, i] log N(y_t; mean_i(u_t), Sigma_i)."""
        p = self.unpack(theta)
        r = ((y - self.y_mean) / self.y_scale)[:, None, :] - self._affine(p, U)
        w = weights[:, :, None]
        g = {}
        if self._factored():
            L, C = self._cholesky(p)
            Cinv = np.linalg.inv(C)
            prec = np.swapaxes(Cinv, 1, 2) @ Cinv
            pr = np.einsum("nkq,mnq->mnk", prec, r)
            g_mean = w * pr
            # d/dSigma = 1/2 sum_t w (P r r^T P - P); d/dL = 2 d/dSigma L (lower part)
            g_cov = 0.5 * (np.einsum("mn,mnk,mnq->nkq", weights, pr, pr)
                           - weights.sum(axis=0)[:, None, None] * prec)
            if self.covariance_type == "tied":  # one factor: the states' sum
                g["covariance"] = np.tril(2.0 * g_cov.sum(axis=0) @ L[0])
            else:
                g["covariance"] = np.tril(2.0 * g_cov @ L)
        else:
            var = self._variances(p)
            g_mean = w * r / var
            g_var = 0.5 * (w * r * r / var**2 - w / var).sum(axis=0)  # (n, k)
            dvar = var - self.floor  # d var / d log-variance parameter
            if self.covariance_type == "spherical":
                g["covariance"] = (g_var * dvar).sum(axis=1)
            else:
                g["covariance"] = g_var * dvar
        g["intercept"] = g_mean.sum(axis=0)
        g.update(self._affine_backward(p, U, g_mean))
        return self._flat(g)

    def expected_log(self, theta, U, y, weights):
        return (np.vdot(weights, self.log_prob(theta, U, y)),
                self.grad(theta, U, y, weights))

    def _residuals_batch(self, thetas, U, y):
        """Standardized residuals (R, len(U), n, k) and variances (R, n, k) of R
        parameter sets (a linear layer, diagonal or spherical covariances)."""
        with np.errstate(over="ignore", invalid="ignore"):
            r = (((y - self.y_mean) / self.y_scale)[None, :, None, :]
                 - self._affine_batch(thetas, U))
        return r, self._variances(self.unpack_batch(thetas))

    def _batched(self):
        return self.layer.linear and not self._factored()

    def log_prob_batch(self, thetas, U, y):
        """:meth:`log_prob` of R parameter sets at once (the same formulas)."""
        if not self._batched():
            return super().log_prob_batch(thetas, U, y)
        r, var = self._residuals_batch(thetas, U, y)
        k = self.n_outputs
        with np.errstate(over="ignore", invalid="ignore"):
            maha = np.einsum("rmnk,rnk->rmn", r * r, 1.0 / var)
            logdet = np.log(var).sum(axis=2)[:, None, :]
            # the same operations in the same order as log_prob (the same bits)
            return (-0.5 * (maha + logdet + k * np.log(2 * np.pi))
                    - np.sum(np.log(self.y_scale)))

    def grad_batch(self, thetas, U, y, weights):
        """:meth:`grad` of R parameter sets at once (the same formulas)."""
        if not self._batched():
            return super().grad_batch(thetas, U, y, weights)
        R, M = thetas.shape[0], U.shape[0]
        n, h, k = self.n_states, self.layer.n_out, self.n_outputs
        r, var = self._residuals_batch(thetas, U, y)
        w = np.asarray(weights)[..., None]
        g_mean = w * r / var[:, None]
        g_var = 0.5 * (w * r * r / var[:, None] ** 2 - w / var[:, None]).sum(axis=1)
        g_cov = g_var * (var - self.floor)  # d var / d log-variance parameter
        if self.covariance_type == "spherical":
            g_cov = g_cov.sum(axis=2)
        grads = [g_mean.sum(axis=1).reshape(R, -1), g_cov.reshape(R, -1)]
        if h:
            H = self.layer.forward(None, U)
            grads.insert(0, (H.T @ g_mean.reshape(R, M, n * k)).reshape(R, -1))
        return np.concatenate(grads, axis=1)

    def moments(self, theta, U):
        """Per-state means (len(U), n, k) and covariances (n, k, k), units of y."""
        p = self.unpack(theta)
        with np.errstate(over="ignore", invalid="ignore"):  # checked by the caller
            means = self._affine(p, U) * self.y_scale + self.y_mean
        if self._factored():
            L, _ = self._cholesky(p)
            cov = L @ np.swapaxes(L, 1, 2) + self.floor * np.eye(self.n_outputs)
        else:
            cov = np.stack([np.diag(v) for v in self._variances(p)])
        return means, cov * np.outer(self.y_scale, self.y_scale)

    def coefficients(self, theta):
        """Fitted parameters in the units of y (the hidden layer's as they are)."""
        p = self.unpack(theta)
        out = {name: p[name].copy() for name, _, _ in self.layer.blocks()}
        out["intercept"] = p["intercept"] * self.y_scale + self.y_mean
        if self.layer.n_out:
            out["coef"] = p["coef"] * self.y_scale
        s2 = self.y_scale**2
        if self._factored():
            cov = self.moments(theta, np.zeros((0, self.n_features)))[1]
            out["covariance"] = cov[0] if self.covariance_type == "tied" else cov
        elif self.covariance_type == "diag":
            out["covariance"] = self._variances(p) * s2
        else:
            out["covariance"] = self._variances(p)[:, 0] * s2[0]
        return {name: out[name] for name in self.names}

    def pack(self, values):
        """Flat standardized vector from parameters in the units of y."""
        std = {name: values[name] for name, _, _ in self.layer.blocks()}
        std["intercept"] = ((np.asarray(values["intercept"]) - self.y_mean)
                            / self.y_scale)
        if self.layer.n_out:
            std["coef"] = np.asarray(values["coef"]) / self.y_scale
        cov = np.asarray(values["covariance"], dtype=np.float64)
        if self._factored():
            inv_scale = 1.0 / np.outer(self.y_scale, self.y_scale)
            if self.covariance_type == "tied":
                cov = cov[None]
            excess = cov * inv_scale - self.floor * np.eye(self.n_outputs)
            # At the floor the excess is ~0 and rounding can make it slightly
            # indefinite: clip its eigenvalues before the Cholesky factor.
            w, V = np.linalg.eigh(0.5 * (excess + excess.swapaxes(1, 2)))
            w = np.maximum(w, 1e-12 * np.maximum(w.max(axis=1, keepdims=True), 1.0))
            clipped = (V * w[:, None, :]) @ V.swapaxes(1, 2)
            std["covariance"] = np.linalg.cholesky(clipped)
            if self.covariance_type == "tied":
                std["covariance"] = std["covariance"][0]
        else:
            s2 = self.y_scale**2
            if self.covariance_type == "spherical":
                s2 = s2[0]
            std["covariance"] = np.log(np.maximum(cov / s2 - self.floor,
                                                  np.finfo(np.float64).tiny))
        return super().pack(std)


def inverse_cdf(proba, u):
    """Index drawn from each row of ``proba`` (rows, k) with uniforms ``u`` (rows,):
    the first index whose cumulative probability exceeds u (clipped to the last,
    against rounding)."""
    cdf = np.cumsum(proba, axis=1)
    return np.minimum((cdf < u[:, None] * cdf[:, -1:]).sum(axis=1), proba.shape[1] - 1)
