# Running pooling along the time axis of packed sequences: the trailing-window
# and whole-prefix means and maxima of RunningPooling (and of DilatedConvolution's
# pooling), and the trailing-window means, maxima and standard deviations of the
# window summaries.
#
# The kernels only fill the arrays they are given (pooling.py beside it is the
# thin wrapper that checks the arguments, allocates, scales values near the
# float64 limit and spreads sequences over threads) and release the GIL. Layout
# as in _forward_backward.pyx: time is the first axis, C-contiguous, all
# sequences packed one after the other, and `offsets[s]:offsets[s + 1]` are the
# rows of sequence s. Every sequence is pooled on its own, so its values do not
# depend on the other sequences of the call or on how they are spread over
# threads.
#
# Algorithms: the prefix mean sums with Kahan's compensation (Kahan 1965); the
# standard deviation is the corrected two-pass algorithm over every window
# (Chan, Golub & LeVeque 1983); the trailing maximum uses van Herk's (1992) and
# Gil & Werman's (1993) blocks, three comparisons per value whatever the window.

from libc.math cimport sqrt
from libc.stdlib cimport free

cimport numpy as cnp

from ._memory cimport _scratch

cnp.import_array()

ctypedef cnp.intp_t intp


cdef inline double _max(double x, double y) noexcept nogil:
    return x if x > y else y


def running_mean_fill(
    const double[:, ::1] data,   # IN (n_steps, n_features) packed sequences
    const intp[::1] offsets,     # IN (n_sequences + 1,)
    intp window,                 # steps per trailing window; 0: the whole prefix
    intp seq_start,
    intp seq_stop,
    double[:, ::1] out,          # OUT (n_steps, n_features)
):
    """Fill the rows of sequences ``seq_start:seq_stop`` of ``out`` with running
    means: the mean over the last ``window`` steps (fewer at the start of a
    sequence), or over all steps so far when ``window == 0``.

    Numerics: the prefix sum is compensated (Kahan), so the prefix mean is exact
    to a few ulps of the mean absolute value at any length; the trailing sum
    adds the newest and subtracts the oldest step, and is summed afresh every
    ``window`` steps, so its rounding never builds up over more than ``window``
    updates.
    """
    cdef Py_ssize_t n_features = data.shape[1]
    cdef Py_ssize_t s, a, z, t, u, f, k
    cdef double n, y, acc
    # Raw pointers to rows (see dilated_convolution_fill in _convolution.pyx).
    cdef const double* x = &data[0, 0]
    cdef const double* x_t
    cdef const double* x_old
    cdef double* o = &out[0, 0]
    cdef double* o_t
    cdef double* total
    cdef double* comp
    with nogil:
        total = <double*> _scratch(2 * n_features)
        comp = total + n_features
        for s in range(seq_start, seq_stop):
            a = offsets[s]
            z = offsets[s + 1]
            for f in range(n_features):
                total[f] = 0.0
                comp[f] = 0.0
            for t in range(a, z):
                k = t - a  # step within the sequence
                x_t = x + t * n_features
                o_t = o + t * n_features
                if window == 0:
                    n = <double> (k + 1)
                    for f in range(n_features):
                        y = x_t[f] - comp[f]
                        acc = total[f] + y
                        comp[f] = (acc - total[f]) - y
                        total[f] = acc
                        o_t[f] = acc / n
                    continue
                if k % window == 0:  # sum the window afresh
                    for f in range(n_features):
                        total[f] = 0.0
                    for u in range(max(a, t - window + 1), t + 1):
                        x_old = x + u * n_features
                        for f in range(n_features):
                            total[f] = total[f] + x_old[f]
                elif k >= window:
                    x_old = x + (t - window) * n_features
                    for f in range(n_features):
                        total[f] = total[f] + (x_t[f] - x_old[f])
                else:
                    for f in range(n_features):
                        total[f] = total[f] + x_t[f]
                n = <double> (k + 1 if k < window else window)
                for f in range(n_features):
                    o_t[f] = total[f] / n
        free(total)


def running_std_fill(
    const double[:, ::1] data,   # IN (n_steps, n_features) packed sequences
    const intp[::1] offsets,     # IN (n_sequences + 1,)
    intp window,                 # steps per trailing window, at least 1
    intp seq_start,
    intp seq_stop,
    double[:, ::1] out,          # OUT (n_steps, n_features)
):
    """Fill the rows of sequences ``seq_start:seq_stop`` of ``out`` with the
    standard deviation (divided by the number of steps, as ``numpy.std``) over
    the last ``window`` steps (fewer at the start of a sequence).

    Numerics: every window is read twice, on its own (Chan, Golub & LeVeque
    1983, the corrected two-pass algorithm). The first pass takes its mean as
    the newest value plus the mean of the others' differences from it; the
    second sums the deviations d from that mean and their squares, and the
    spread is sqrt((sum d**2 - (sum d)**2 / n) / n), the second term removing
    what the mean's rounding adds. The deviations have the window's own scale,
    so a channel far from zero loses no digits (the mean of squares less the
    square of the mean loses those of x**2's scale), and a flat window gives
    exactly 0. No sum carries from one window to the next, so no rounding
    builds up along a sequence, and an outlier leaves no trace once it has
    left the window. 2 * window reads per value; the sums stay finite for
    values below 2 ** 500 / sqrt(window) (the wrapper scales larger ones).
    """
    cdef Py_ssize_t n_features = data.shape[1]
    cdef Py_ssize_t s, a, z, t, u, lo, f
    cdef double n, d
    # Raw pointers to rows (see dilated_convolution_fill in _convolution.pyx).
    cdef const double* x = &data[0, 0]
    cdef const double* x_t
    cdef const double* x_u
    cdef double* o = &out[0, 0]
    cdef double* o_t
    cdef double* mean
    cdef double* dev
    cdef double* square
    with nogil:
        mean = <double*> _scratch(3 * n_features)
        dev = mean + n_features
        square = dev + n_features
        for s in range(seq_start, seq_stop):
            a = offsets[s]
            z = offsets[s + 1]
            for t in range(a, z):
                lo = max(a, t - window + 1)
                n = <double> (t - lo + 1)
                x_t = x + t * n_features
                for f in range(n_features):
                    mean[f] = 0.0
                    dev[f] = 0.0
                    square[f] = 0.0
                for u in range(lo, t):
                    x_u = x + u * n_features
                    for f in range(n_features):
                        mean[f] = mean[f] + (x_u[f] - x_t[f])
                for f in range(n_features):
                    mean[f] = x_t[f] + mean[f] / n
                for u in range(lo, t + 1):
                    x_u = x + u * n_features
                    for f in range(n_features):
                        d = x_u[f] - mean[f]
                        dev[f] = dev[f] + d
                        square[f] = square[f] + d * d
                o_t = o + t * n_features
                for f in range(n_features):
                    o_t[f] = sqrt(_max(square[f] - dev[f] * dev[f] / n, 0.0) / n)
        free(mean)


def running_max_fill(
    const double[:, ::1] data,   # IN (n_steps, n_features) packed sequences
    const intp[::1] offsets,     # IN (n_sequences + 1,)
    intp window,                 # steps per trailing window; 0: the whole prefix
    intp seq_start,
    intp seq_stop,
    double[:, ::1] out,          # OUT (n_steps, n_features)
):
    """Fill the rows of sequences ``seq_start:seq_stop`` of ``out`` with running
    maxima over the last ``window`` steps (fewer at the start), or over all steps
    so far when ``window == 0``.

    A trailing window uses van Herk's and Gil & Werman's blocks: cut the sequence
    into blocks of ``window`` steps from its start; the window ending at step t
    is the tail of the previous block (from t - window + 1 to its end) plus the
    head of t's block (up to t). One backward pass writes every step's maximum
    to the end of its block into ``out``; then, block by block from the last,
    a forward pass combines the head maximum so far with the tail maximum read
    from the previous block (still untouched). Three comparisons per value,
    whatever the window.
    """
    cdef Py_ssize_t n_features = data.shape[1]
    cdef Py_ssize_t s, a, z, t, f, block, tail
    cdef double* head
    with nogil:
        head = <double*> _scratch(n_features)
        for s in range(seq_start, seq_stop):
            a = offsets[s]
            z = offsets[s + 1]
            if window == 0:
                for f in range(n_features):
                    head[f] = data[a, f]
                for t in range(a, z):
                    for f in range(n_features):
                        head[f] = _max(head[f], data[t, f])
                        out[t, f] = head[f]
                continue
            # Backward: maximum from t to the end of t's block.
            for t in range(z - 1, a - 1, -1):
                if (t - a) % window == window - 1 or t == z - 1:
                    for f in range(n_features):
                        out[t, f] = data[t, f]
                else:
                    for f in range(n_features):
                        out[t, f] = _max(data[t, f], out[t + 1, f])
            # Forward within each block, blocks from the last to the first.
            block = a + ((z - 1 - a) // window) * window
            while block >= a:
                for f in range(n_features):
                    head[f] = data[block, f]
                for t in range(block, min(block + window, z)):
                    tail = t - window + 1  # in the previous block, if any
                    if tail >= a and tail < block:
                        for f in range(n_features):
                            head[f] = _max(head[f], data[t, f])
                            out[t, f] = _max(head[f], out[tail, f])
                    else:
                        for f in range(n_features):
                            head[f] = _max(head[f], data[t, f])
                            out[t, f] = head[f]
                block = block - window
        free(head)
