"""What the wrappers over packed sequences share: the check of their
``offsets`` and the power-of-two scale that keeps sums of their values finite
(the kernels neither check bounds nor guard against overflow)."""

import numpy as np

# Sums of values scaled below 2 ** this stay far from float64 overflow (2 ** 1024).
SAFE_EXPONENT = 1000


def check_offsets(offsets, n_steps):
    """Raise ValueError unless ``offsets`` cut the ``n_steps`` packed steps into
    nonempty sequences."""
    if not (offsets.ndim == 1 and offsets.size and offsets[0] == 0
            and offsets[-1] == n_steps and np.all(np.diff(offsets) > 0)):
        raise ValueError("offsets do not partition the steps into sequences.")


def overflow_scale(data, n_terms):
    """A power of two by which to divide ``data`` so that sums of ``n_terms``
    of its values (times weights of at most 1) stay finite; 1 when they do
    already. Dividing by a power of two is exact, so a mean computed on the
    scaled values and multiplied back is the same, only without overflow."""
    if not data.size:
        return 1.0
    largest = float(np.abs(data).max())
    exponent = np.frexp(largest)[1] + int(n_terms).bit_length() - SAFE_EXPONENT
    return 2.0 ** exponent if exponent > 0 else 1.0
