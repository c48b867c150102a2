"""The lbfgs E-step of a transition family for R parameter sets at once.

The restarts of a fit advance in lockstep, so the gradient solver asks a family
for R forward-backward passes and their gradients in one call
(:meth:`~skseq._families.transitions.TransitionFamily.gradient_passes`). By
default that is one ``gradient_pass`` per parameter set (:class:`SeparatePasses`);
a family that forms its matrices and gradients for R sets in whole-array
operations runs one forward-backward per set on them (:class:`BatchedPasses`);
the families whose logits are linear in their parameters run the fused kernel
(``skseq._kernels.fused``, :class:`FusedPasses`), which forms each step's
matrix inside the recursion, so nothing of size (T, n, n) exists.
"""

from typing import NamedTuple

import numpy as np

from .._kernels.forward_backward import Chain, Posteriors
from .._kernels.fused import LinearTransitionPass


class GradientPasses(NamedTuple):
    """What :meth:`TransitionFamily.gradient_passes` returns for R parameter sets.

    Attributes
    ----------
    loglik : ndarray of shape (R, n_sequences)
    gamma : ndarray of shape (R, n_steps, n_states)
        Weighted state posteriors.
    start_post : ndarray of shape (R, n_sequences, n_states)
        Weighted posteriors of x_0.
    grad : ndarray of shape (R, n_params)
        Gradient of sum_s w_s log P(y^(s) | u^(s)) with respect to theta (not
        finite where anything overflowed).
    """

    loglik: np.ndarray
    gamma: np.ndarray
    start_post: np.ndarray
    grad: np.ndarray


class SeparatePasses:
    """The default :meth:`TransitionFamily.gradient_passes`: one
    ``gradient_pass`` per parameter set."""

    def __init__(self, family, U, mask, offsets, weight, n_jobs):
        self.family, self.U, self.mask = family, U, mask
        self.offsets, self.weight, self.n_jobs = offsets, weight, n_jobs

    def __call__(self, thetas, startprob, log_emit):
        passes = [self.family.gradient_pass(
            theta, self.U, self.mask,
            Chain(p, e, self.offsets, self.weight, self.n_jobs))
            for theta, p, e in zip(thetas, startprob, log_emit, strict=True)]
        return GradientPasses(*(np.stack(parts) for parts in (
            [post.loglik for post, _ in passes], [post.gamma for post, _ in passes],
            [post.start_post for post, _ in passes], [grad for _, grad in passes])))

    def logliks(self, thetas, startprob, log_emit):
        """Per-sequence log-likelihoods alone, (R, n_sequences): forward passes."""
        return np.stack([
            Chain(p, e, self.offsets, n_jobs=self.n_jobs).forward(
                self.family.probs(theta, self.U, self.mask)).loglik
            for theta, p, e in zip(thetas, startprob, log_emit, strict=True)])


# BatchedPasses hands a family at most about this much of parameter sets at once.
_BATCH_BYTES = 1 << 26


class BatchedPasses(SeparatePasses):
    """:meth:`TransitionFamily.gradient_passes` of a family with
    ``gradient_batch(thetas, U, chains)`` and ``probs_batch(thetas, U)``, which
    hold ``batch_bytes_per_set(n_steps)`` per set: the sets go to it in chunks
    of at most ``_BATCH_BYTES`` (at least one set a chunk)."""

    def __init__(self, family, U, offsets, weight, n_jobs):
        super().__init__(family, U, None, offsets, weight, n_jobs)
        self.size = max(1, _BATCH_BYTES // family.batch_bytes_per_set(U.shape[0]))

    def _chunks(self, n_sets):
        return [slice(a, a + self.size) for a in range(0, n_sets, self.size)]

    def __call__(self, thetas, startprob, log_emit):
        posts, grads = [], []
        for rows in self._chunks(thetas.shape[0]):
            chains = [Chain(p, e, self.offsets, self.weight, self.n_jobs)
                      for p, e in zip(startprob[rows], log_emit[rows], strict=True)]
            chunk_posts, chunk_grads = self.family.gradient_batch(
                thetas[rows], self.U, chains)
            posts += chunk_posts
            grads.append(chunk_grads)
        return GradientPasses(
            np.stack([post.loglik for post in posts]),
            np.stack([post.gamma for post in posts]),
            np.stack([post.start_post for post in posts]), np.concatenate(grads))

    def logliks(self, thetas, startprob, log_emit):
        out = []
        for rows in self._chunks(thetas.shape[0]):
            trans = self.family.probs_batch(thetas[rows], self.U)
            out += [Chain(p, e, self.offsets, n_jobs=self.n_jobs).forward(A).loglik
                    for p, e, A in zip(startprob[rows], log_emit[rows], trans,
                                       strict=True)]
        return np.stack(out)


class FusedPasses:
    """:meth:`TransitionFamily.gradient_passes` through the fused kernel, for a
    family whose parameters are ``coef`` and ``intercept`` of linear logits."""

    def __init__(self, family, kind, U, mask, offsets, weight, n_jobs):
        self.family = family
        self.kernel = LinearTransitionPass(kind, U, offsets, n_states=family.n_states,
                                           mask=mask, weight=weight, n_jobs=n_jobs)

    def __call__(self, thetas, startprob, log_emit):
        p = self.family.unpack_batch(thetas)
        res = self.kernel(startprob, p["coef"], p["intercept"], log_emit)
        return GradientPasses(res.loglik, res.gamma, res.start_post, res.grad_theta())

    def logliks(self, thetas, startprob, log_emit):
        return self(thetas, startprob, log_emit).loglik


class FusedGradient:
    """Mixin of the families whose logits are linear in (coef, intercept): the
    lbfgs E-step runs the fused kernel of ``skseq._kernels.fused``
    (``_fused_kind`` names its family; None where the logits are not linear)."""

    _fused_kind = None

    def gradient_passes(self, U, mask, offsets, weight=None, n_jobs=None):
        if self._fused_kind is None:
            return super().gradient_passes(U, mask, offsets, weight, n_jobs)
        return FusedPasses(self, self._fused_kind, U, mask, offsets, weight, n_jobs)

    def gradient_pass(self, theta, U, mask, chain):
        """As :meth:`TransitionFamily.gradient_pass`; through the fused kernel,
        ``xi`` is None (nothing of size (T, n, n) is formed)."""
        if self._fused_kind is None:
            return super().gradient_pass(theta, U, mask, chain)
        res = self.gradient_passes(U, mask, chain.offsets, chain.weight, chain.n_jobs)(
            theta[None], chain.startprob[None], chain.log_emit[None])
        post = Posteriors(res.loglik[0], res.gamma[0], res.start_post[0], None)
        return post, res.grad[0]

    def fit_entries_per_step(self, solver, det_penalty=0.0):
        if self._fused_kind is None or solver != "lbfgs" or det_penalty:
            return super().fit_entries_per_step(solver, det_penalty)
        return 3 * self.n_states  # posteriors, emissions and the kernel's scratch
