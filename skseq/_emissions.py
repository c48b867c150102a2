"""Output networks: P(y_t | x_t = i, u_t) for each state i.

A family gives the per-state log-likelihood of the targets at the supervised steps
(``log_prob``) and the gradient of a weighted sum of them (``grad``), which is both
the output-network part of the EM auxiliary function (paper 000, eqs. 20 and 37,
weights = state posteriors) and, with the same weights, the gradient of the
conditional log-likelihood.
"""

import numpy as np
from scipy.special import log_softmax, softmax

from ._params import ParametricFamily


class SoftmaxEmission(ParametricFamily):
    """Multinomial outputs: P(y_t = k | x_t = i, u_t) = softmax_k(V_i u_t + c_i).

    With ``use_input=False`` the output depends on the state alone (a Moore
    machine, as used for the Tomita grammars in paper 000, §6).
    """

    def __init__(self, n_states, n_features, n_classes, use_input):
        self.n_states = n_states
        self.n_features = n_features
        self.n_classes = n_classes
        self.use_input = use_input

    def _blocks(self):
        n, d, k = self.n_states, self.n_features, self.n_classes
        blocks = [("intercept", (n, k), False)]
        if self.use_input:
            blocks.insert(0, ("coef", (d, n, k), True))
        return blocks

    def _logits(self, theta, U):
        p = self.unpack(theta)
        n, k = self.n_states, self.n_classes
        if not self.use_input:
            return np.broadcast_to(p["intercept"], (U.shape[0], n, k))
        z = (U @ p["coef"].reshape(self.n_features, n * k)).reshape(-1, n, k)
        return z + p["intercept"]

    def predict_proba(self, theta, U):
        """Class probabilities per state, shape (len(U), n_states, n_classes)."""
        return softmax(self._logits(theta, U), axis=2)

    def log_prob(self, theta, U, y):
        """log P(y_t | x_t = i, u_t), shape (len(U), n_states)."""
        logp = log_softmax(self._logits(theta, U), axis=2)
        return np.take_along_axis(logp, y[:, None, None], axis=2)[:, :, 0]

    def grad(self, theta, U, y, weights):
        """Gradient of sum_t,i weights[t, i] log P(y_t | x_t = i, u_t)."""
        resid = -self.predict_proba(theta, U) * weights[:, :, None]
        resid[np.arange(len(y)), :, y] += weights
        g_intercept = resid.sum(axis=0).ravel()
        if not self.use_input:
            return g_intercept
        n, k = self.n_states, self.n_classes
        g_coef = U.T @ resid.reshape(-1, n * k)
        return np.concatenate([g_coef.ravel(), g_intercept])
