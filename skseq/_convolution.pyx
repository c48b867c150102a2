# Convolutions along the time axis of packed sequences: the dilated kernels of
# DilatedConvolution and the running (box-filter and max) pooling of
# RunningPooling.
#
# The kernels only fill the arrays they are given (skseq/_convolve.py is the thin
# wrapper that checks shapes, allocates and spreads rows or sequences over
# threads) and release the GIL. Layout as in _forward_backward.pyx: time is the
# first axis, C-contiguous, all sequences packed one after the other, and
# `offsets[s]:offsets[s + 1]` are the rows of sequence s.
#
# Kernels (Dempster, Schmidt & Webb, "MiniRocket", KDD 2021, section 3): length 9,
# weight -1 everywhere but 2 at three of the nine positions (the 84 choices of
# three positions); the weights sum to 0. With the window values g_0..g_8 of one
# channel, the output is
#     c = sum_p w_p g_p = -sum_p g_p + 3 (g_i + g_j + g_l),
# so the sum over the window is shared by the 84 kernels of a dilation and each
# kernel costs three additions (the paper's section 3.3). Because the weights sum
# to 0, subtracting any constant from the window leaves c unchanged; we subtract
# the value at the anchor step t, so that a flat window gives exactly 0 (not
# rounding noise that an indicator at a bias near 0 would turn into random bits)
# and a large offset in the series costs no precision.
#
# Speed: the convolution writes one row of n_combinations * n_biases values per
# step, and that writing bounds it; an AVX2 + FMA build measured no faster, so
# unlike _forward_backward this module has no AVX2 twin.

from libc.stdlib cimport free, malloc

cimport numpy as cnp

cnp.import_array()

ctypedef cnp.intp_t intp

cdef enum:
    N_TAPS = 9  # taps of every kernel


cdef inline double _max(double x, double y) noexcept nogil:
    return x if x > y else y


def dilated_convolution_fill(
    const double[:, ::1] data,       # IN (n_steps, n_channels) packed sequences
    const intp[::1] rows,            # IN (n_rows,) packed step of each output row
    const intp[::1] first,           # IN (n_rows,) first packed step of its sequence
    const intp[::1] last,            # IN (n_rows,) last packed step of its sequence
    const intp[::1] dilations,       # IN (n_dilations,)
    const intp[::1] combination_ptr, # IN (n_dilations + 1,) combinations per dilation
    const intp[:, ::1] positions,    # IN (n_combinations, 3) taps of weight 2
    const intp[::1] channel_ptr,     # IN (n_combinations + 1,)
    const intp[::1] channels,        # IN (channel_ptr[-1],) channels summed
    const double[:, ::1] biases,     # IN (n_combinations, n_biases)
    bint causal,
    bint zero_pad,
    intp row_start,
    intp row_stop,
    double[:, ::1] out,              # OUT (n_rows, n_combinations * max(n_biases, 1))
):
    """Fill ``out[row_start:row_stop]`` with dilated convolutions.

    Row ``r`` is the output at packed step ``t = rows[r]`` of the sequence that
    spans packed steps ``first[r]..last[r]``. Combination ``m`` (in
    ``combination_ptr[d]:combination_ptr[d + 1]`` for dilation ``d``) sums, over
    its channels ``channels[channel_ptr[m]:channel_ptr[m + 1]]``, the kernel with
    weight 2 at taps ``positions[m]``. Tap ``p`` reads step ``t + (p - 8) * d``
    when ``causal`` and ``t + (p - 4) * d`` otherwise. A step outside the
    sequence reads the sequence's nearest end value (its first value before the
    start, its last after the end), or 0 when ``zero_pad``.

    With ``n_biases == 0`` the convolution values go to ``out[r, m]``; else the
    indicators ``c > biases[m, b]`` (1.0 or 0.0) go to
    ``out[r, m * n_biases + b]``.
    """
    cdef Py_ssize_t n_channels = data.shape[1]
    cdef Py_ssize_t n_dilations = dilations.shape[0]
    cdef Py_ssize_t n_biases = biases.shape[1]
    cdef Py_ssize_t r, t, s, lo, hi, ch, p, d, m, k, b, shift
    cdef intp dil
    cdef double x_t, v, total, c
    # Raw pointers: stores through a memoryview's char* would oblige the compiler
    # to reload every other memoryview's fields after each one.
    cdef const double* x = &data[0, 0]
    cdef const intp* pos = &positions[0, 0]
    cdef const intp* cptr = &channel_ptr[0]
    cdef const intp* chans = &channels[0] if channels.shape[0] else NULL
    cdef const double* bias = &biases[0, 0] if n_biases else NULL
    cdef Py_ssize_t n_out = positions.shape[0] * n_biases
    cdef const double* w
    cdef double* row
    # window[ch * 9 + p]: tap p of channel ch minus the anchor value; sums[ch].
    cdef double* window
    cdef double* sums
    shift = 8 if causal else 4  # taps before the anchor step
    with nogil:
        window = <double*> malloc(n_channels * N_TAPS * sizeof(double))
        sums = <double*> malloc(n_channels * sizeof(double))
        if window == NULL or sums == NULL:
            free(window)
            free(sums)
            with gil:
                raise MemoryError()
        for r in range(row_start, row_stop):
            t = rows[r]
            lo = first[r]
            hi = last[r]
            row = &out[r, 0]
            for d in range(n_dilations):
                dil = dilations[d]
                for ch in range(n_channels):
                    x_t = x[t * n_channels + ch]
                    total = 0.0
                    for p in range(N_TAPS):
                        s = t + (p - shift) * dil
                        if s < lo:
                            v = 0.0 if zero_pad else x[lo * n_channels + ch]
                        elif s > hi:
                            v = 0.0 if zero_pad else x[hi * n_channels + ch]
                        else:
                            v = x[s * n_channels + ch]
                        v = v - x_t
                        window[ch * N_TAPS + p] = v
                        total = total + v
                    sums[ch] = total
                for m in range(combination_ptr[d], combination_ptr[d + 1]):
                    c = 0.0
                    for k in range(cptr[m], cptr[m + 1]):
                        ch = chans[k]
                        w = window + ch * N_TAPS
                        c = c + (3.0 * (w[pos[3 * m]] + w[pos[3 * m + 1]]
                                        + w[pos[3 * m + 2]]) - sums[ch])
                    if n_biases == 0:
                        row[m] = c
                    else:
                        for b in range(n_biases):
                            row[m * n_biases + b] = c
            # Threshold the whole row in one flat loop, which the compiler turns
            # into vector compares: a short loop per combination compiles to
            # branches, mispredicted half of the time on random bits.
            if n_biases > 0:
                for k in range(n_out):
                    row[k] = <double> (row[k] > bias[k])
        free(window)
        free(sums)


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
    # Raw pointers to rows (see dilated_convolution_fill).
    cdef const double* x = &data[0, 0]
    cdef const double* x_t
    cdef const double* x_old
    cdef double* o = &out[0, 0]
    cdef double* o_t
    cdef double* total
    cdef double* comp
    with nogil:
        total = <double*> malloc(n_features * sizeof(double))
        comp = <double*> malloc(n_features * sizeof(double))
        if total == NULL or comp == NULL:
            free(total)
            free(comp)
            with gil:
                raise MemoryError()
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
        free(comp)


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
        head = <double*> malloc(n_features * sizeof(double))
        if head == NULL:
            with gil:
                raise MemoryError()
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
