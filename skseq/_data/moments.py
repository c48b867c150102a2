"""Per-column mean and standard deviation that neither overflow nor warn for
values near the float64 limits (targets to standardize, a representation's
features)."""

import numpy as np

__all__ = ["mean_std"]


def mean_std(values, weights=None):
    """Mean and standard deviation of each column of ``values`` (weighted by
    ``weights``, one per row; None for 1), without overflow.

    The direct formula (NumPy's ``mean`` and ``std``, or ``average``), unless
    a sum or a square overflows; then the same in units of the column's
    largest magnitude.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        mean, scale = _moments(values, weights)
    if np.isfinite(mean).all() and np.isfinite(scale).all():
        return mean, scale
    top = np.abs(values).max(axis=0)
    top[top == 0] = 1.0
    mean_v, scale_v = _moments(values / top,
                               None if weights is None else weights / weights.max())
    return mean_v * top, scale_v * top


def _moments(values, weights):
    if weights is None:
        return values.mean(axis=0), values.std(axis=0)
    mean = np.average(values, axis=0, weights=weights)
    return mean, np.sqrt(np.average((values - mean) ** 2, axis=0, weights=weights))
