"""A numerical reference shared by the families' tests."""

import numpy as np


def jacobian_rank(f, theta, eps=1e-5):
    """Numerical rank of the Jacobian of f at theta (central differences)."""
    cols = []
    for k in range(theta.size):
        e = np.zeros_like(theta)
        e[k] = eps
        cols.append((f(theta + e) - f(theta - e)).ravel() / (2 * eps))
    J = np.column_stack(cols)
    s = np.linalg.svd(J, compute_uv=False)
    if s[0] < 1e-8:  # f does not move: differences of rounding alone
        return 0
    return int(np.sum(s > 1e-6 * s[0]))
