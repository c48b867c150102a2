"""A family of networks whose parameters live in one flat vector.

Solvers (L-BFGS, the GEM M-step) see a flat float64 vector; families read it
through named, reshaped views. Each named block says whether the L2 penalty
``alpha`` applies to it: input weights are penalised, intercepts are not (as in
scikit-learn's ``LogisticRegression``).
"""

import numpy as np

# |logit| bound: beyond it an input-driven logit saturates (inputs near the float64
# limit would otherwise overflow the product to inf, and inf - inf to NaN).
_LOGIT_LIMIT = 1e300


def linear_map(U, W):
    """U @ W, kept finite: entries that would overflow saturate at +-1e300.

    The product is taken with floating-point errors raised, so the common case
    costs no extra pass; only a product that overflowed is redone and cleaned.
    """
    try:
        with np.errstate(over="raise", invalid="raise"):
            return U @ W
    except FloatingPointError:
        with np.errstate(over="ignore", invalid="ignore"):
            z = U @ W
        return np.nan_to_num(z, copy=False, nan=0.0, posinf=_LOGIT_LIMIT,
                             neginf=-_LOGIT_LIMIT)


def column_sums(a):
    """Sums over the first axis of ``a`` (reshaped to 2-D) as one BLAS product.

    NumPy's axis-0 reduction of a tall array with short rows pays a loop call per
    row (~10x slower for (T, 16)); the gradients of every family need these sums.
    """
    a2 = a.reshape(a.shape[0], -1)
    return np.ones(a2.shape[0]) @ a2


class ParametricFamily:
    """Base class: subclasses define ``_blocks()`` -> [(name, shape, penalised)]."""

    def _blocks(self):
        raise NotImplementedError

    @property
    def names(self):
        return [name for name, _, _ in self._blocks()]

    @property
    def n_params(self):
        return sum(int(np.prod(shape)) for _, shape, _ in self._blocks())

    def _layout(self):
        """(name, start, stop, shape) of every block, worked out once (a
        family's blocks are fixed at construction; the solvers unpack at every
        evaluation)."""
        layout = self.__dict__.get("_layout_cache")
        if layout is None:
            layout, start = [], 0
            for name, shape, _ in self._blocks():
                stop = start + int(np.prod(shape))
                layout.append((name, start, stop, tuple(shape)))
                start = stop
            self._layout_cache = layout
        return layout

    def unpack(self, theta):
        """Named views (not copies) of the flat vector."""
        return {name: theta[a:b].reshape(shape)
                for name, a, b, shape in self._layout()}

    def unpack_batch(self, thetas):
        """Named views of R flat vectors (R, n_params): each block (R, *shape)."""
        R = thetas.shape[0]
        return {name: thetas[:, a:b].reshape(R, *shape)
                for name, a, b, shape in self._layout()}

    def pack(self, values):
        """Flat vector from named arrays (checks their shapes)."""
        parts = []
        for name, shape, _ in self._blocks():
            arr = np.asarray(values[name], dtype=np.float64)
            if arr.shape != tuple(shape):
                raise ValueError(
                    f"{name} has shape {arr.shape}, expected {tuple(shape)}."
                )
            parts.append(arr.ravel())
        return np.concatenate(parts) if parts else np.zeros(0)

    def n_free_params(self, mask=None):
        """Number of free parameters (``aic``/``bic``): ``n_params`` less those
        with no effect on the model, e.g. the redundant logit of every softmax
        (its outputs do not change when a constant is added to all its logits).
        ``mask`` marks the allowed transitions of a state family."""
        return self.n_params

    def penalty_mask(self):
        return np.concatenate(
            [np.full(int(np.prod(shape)), pen) for _, shape, pen in self._blocks()]
            or [np.zeros(0, dtype=bool)]
        )

    def coefficients(self, theta):
        """Copies of the named blocks, for the fitted attributes."""
        return {name: arr.copy() for name, arr in self.unpack(theta).items()}

    def init(self, rng, scale):
        """Random parameters: every block drawn from N(0, scale^2)."""
        return rng.normal(scale=scale, size=self.n_params)
