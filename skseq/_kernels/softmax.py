"""Row softmax of network logits, and the log-likelihood terms built on it.

The logits of a network are a C-contiguous (B, n, m) array: B steps, n rows
(previous states, or states), m entries (next states, or classes). The functions
here walk it in blocks small enough for the L2 cache (:func:`_blocks`) and call the
row kernels of ``_softmax.pyx`` on each block. A trailing underscore means the
function overwrites its first argument (the logits) with its result or gradient.
"""

import numpy as np

from ._build import build

_softmax = build("_softmax")

# Entries per block: the three passes of a row softmax then stay in the L2 cache.
_SOFTMAX_BLOCK = 1 << 15
# Logits within +-this need no shift by their row maximum: exp stays within
# 1e-300..1e300, so a row sum neither overflows nor leaves the normal range.
_EXP_SAFE = 690.0

_NO_WEIGHT = np.empty((0, 0, 0))
_NO_ROWS = np.empty((0, 0))


def _blocks(z, *arrays, n_scratch=1):
    """Blocks of the leading axis of ``z`` and of ``arrays``, with ``n_scratch``
    scratch (block, n) arrays: yields ``(z_b, *arrays_b, *scratch_b)``."""
    n, m = z.shape[1:]
    size = max(1, _SOFTMAX_BLOCK // (n * m))
    scratch = [np.empty((min(size, z.shape[0]), n)) for _ in range(n_scratch)]
    for b0 in range(0, z.shape[0], size):
        zb = z[b0 : b0 + size]
        yield (zb, *(a[b0 : b0 + size] for a in arrays),
               *(s[: zb.shape[0]] for s in scratch))


def _allowed(mask, shape):
    """The mask as the kernels' uint8 array, and whether every entry is allowed."""
    allowed = np.ones(shape, np.uint8) if mask is None else (
        np.ascontiguousarray(mask, dtype=np.uint8))
    return allowed, bool(allowed.all())


def _shifted_exp_(zb, allowed, dense, wb):
    """In place: exp(z - row max), forbidden entries 0; returns sum(wb * (z - row
    max)) (0 without weights). Rows that cannot overflow are not shifted."""
    if dense and -_EXP_SAFE < zb.min() and zb.max() < _EXP_SAFE:
        # No row can overflow or vanish: exp without the max shift (two
        # vectorised reductions instead of a pass over short rows).
        total = np.vdot(wb, zb) if wb.size else 0.0
    else:
        total = _softmax.softmax_shift_rows(zb, allowed, wb)
    np.exp(zb, out=zb)
    return total


def softmax_(z, mask=None):
    """In place: softmax over the last axis of a C-contiguous (B, n, m) array.

    ``mask`` (n, m), if given, marks the entries row j may use; the others get
    probability 0 (each row needs at least one allowed entry).
    """
    allowed, dense = _allowed(mask, z.shape[1:])
    with np.errstate(under="ignore"):
        for zb, nb in _blocks(z):
            _shifted_exp_(zb, allowed, dense, _NO_WEIGHT)
            _softmax.normalize_rows(zb, _NO_ROWS, nb)
    return z


def log_softmax_gradient_(z, weight, mask=None):
    """sum(weight * log softmax(z)) and, in place of z, its gradient with respect to
    the logits, ``weight - rowsum(weight) * softmax(z)`` (masked as in
    :func:`softmax_`, where ``weight`` must be 0 on forbidden entries)."""
    weight = np.ascontiguousarray(weight, dtype=np.float64)
    allowed, dense = _allowed(mask, z.shape[1:])
    total = 0.0
    with np.errstate(under="ignore"):
        for zb, wb, nb, rb in _blocks(z, weight, n_scratch=2):
            total += _shifted_exp_(zb, allowed, dense, wb)
            _softmax.softmax_gradient_rows(zb, wb, nb, rb)
            total -= np.vdot(rb, np.log(nb))
    return total


def log_softmax_categorical_gradient_(z, y, weight):
    """sum_b,j weight[b, j] log softmax(z[b, j])[y_b] and, in place of z, its
    gradient with respect to the logits, weight[b, j] (onehot(y_b) - softmax(z[b, j])).

    :func:`log_softmax_gradient_` with the one-hot weights implied by class
    indices ``y`` (B,) and row weights ``weight`` (B, n), never materialised.
    """
    y = np.ascontiguousarray(y, dtype=np.intp)
    weight = np.ascontiguousarray(weight, dtype=np.float64)
    total = 0.0
    with np.errstate(under="ignore"):
        for zb, yb, wb, nb in _blocks(z, y, weight):
            total += _softmax.categorical_shift_rows(zb, yb, wb, _NO_ROWS)
            np.exp(zb, out=zb)
            _softmax.categorical_gradient_rows(zb, yb, wb, nb)
            total -= np.vdot(wb, np.log(nb, out=nb))
    return total


def log_softmax_categorical_(z, y):
    """log softmax(z[b, j])[y_b], shape (B, n); z (B, n, k) is overwritten.

    The output networks' log-likelihoods of class indices ``y`` without the full
    (B, n, k) log-softmax.
    """
    B, n, _ = z.shape
    y = np.ascontiguousarray(y, dtype=np.intp)
    out = np.empty((B, n))
    norm = np.empty((B, n))
    _softmax.categorical_shift_rows(z, y, _NO_ROWS, out)
    with np.errstate(under="ignore"):
        np.exp(z, out=z)
    _softmax.row_sums(z, norm)
    out -= np.log(norm, out=norm)
    return out


def weighted_log_normalizer_(z, rows):
    """sum_b,j rows[b, j] log sum_i exp z[b, j, i] and, in place of z, its
    gradient with respect to z, rows[b, j] softmax(z[b, j]) (every entry allowed).

    With sum xi z computed apart, this is :func:`log_softmax_gradient_` for
    weights xi whose row sums are ``rows`` (the M-step's split, see
    ``skseq._families.linear_m_step.LinearSoftmaxObjective``).
    """
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    total = 0.0
    with np.errstate(under="ignore"):
        for zb, rb, nb in _blocks(z, rows):
            if not (-_EXP_SAFE < zb.min() and zb.max() < _EXP_SAFE):
                top = zb.max(axis=2)  # rare: logits beyond +-690
                zb -= top[:, :, None]
                total += np.vdot(rb, top)
            np.exp(zb, out=zb)
            _softmax.normalize_rows(zb, rb, nb)
            total += np.vdot(rb, np.log(nb, out=nb))
    return total


def add_bias_(z, bias):
    """In place: z[b] += bias for a C-contiguous (B, n, m) z and bias (n, m)."""
    _softmax.add_bias(z, np.ascontiguousarray(bias, dtype=np.float64))
    return z


def outer_sum(a, bias):
    """z[b, j, i] = a[b, i] + bias[j, i], a new (B, n, m) array."""
    a = np.ascontiguousarray(a, dtype=np.float64)
    bias = np.ascontiguousarray(bias, dtype=np.float64)
    z = np.empty((a.shape[0], *bias.shape))
    _softmax.add_outer(z, a, bias)
    return z


def row_sums(a):
    """Sums over the last axis of a C-contiguous (B, n, m) array, (B, n)."""
    out = np.empty(a.shape[:2])
    _softmax.row_sums(np.ascontiguousarray(a, dtype=np.float64), out)
    return out
