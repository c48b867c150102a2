# Convolutions along the time axis of packed sequences: the dilated kernels of
# DilatedConvolution and of the shape representation (the prefix means of their
# indicators, projected). The running pooling is in _pooling.pyx.
#
# The kernels only fill the arrays they are given (convolution.py beside it is the thin
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
# Speed: dilated_convolution_fill computes a block of rows at a time, each
# combination's values in a vector loop over the rows (one row at a time, its
# scalar loop over the combinations took about twice as long on the thresholds
# of a default fit); an AVX2 + FMA build measured no faster, so unlike
# _forward_backward this module has no AVX2 twin.
# prefix_indicator_fill writes no indicators: it keeps their counts and sums the
# projections of those that are on (benchmarks/bench_representations.py).

from libc.math cimport fabs
from libc.stdlib cimport free

cimport numpy as cnp

from ._memory cimport _scratch

cnp.import_array()

ctypedef cnp.intp_t intp

cdef enum:
    N_TAPS = 9  # taps of every kernel
    # Steps per block of prefix_indicator_fill: long enough for vector loops,
    # short enough that a block's window values stay in the L1/L2 cache.
    BLOCK = 128
    # Rows per block of dilated_convolution_fill: their output rows (84
    # convolutions of a dilation) stay in the L1 cache while it writes them
    # a column at a time.
    ROWS = 32
    # Inputs per block of project_rows_fill: 256 rows of 128 weights, 256 kB,
    # stay in the L2 cache.
    PANEL = 256

# Columns summed at once, in registers, by prefix_indicator_fill (LANES) and
# project_rows_fill (ROW_LANES: 8 SSE2 registers, as many independent chains
# of additions); the wrapper pads the weights' rows with zeros to a multiple.
cpdef enum:
    LANES = 8
    ROW_LANES = 16


cdef inline void _fill_window(
    const double* x,          # IN packed data, n_channels values per step
    Py_ssize_t n_channels,
    Py_ssize_t t,             # anchor step
    Py_ssize_t lo,            # first and last packed step of t's sequence
    Py_ssize_t hi,
    intp dil,
    Py_ssize_t shift,         # taps before the anchor step
    bint zero_pad,
    Py_ssize_t stride,        # between consecutive values in window and sums
    double* window,           # OUT [(ch * 9 + p) * stride] tap p minus the anchor
    double* sums,             # OUT [ch * stride] the sum of channel ch's taps
) noexcept nogil:
    cdef Py_ssize_t ch, p, s
    cdef double x_t, v, total
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
            window[(ch * N_TAPS + p) * stride] = v
            total = total + v
        sums[ch * stride] = total


cdef inline void _convolve_block(
    Py_ssize_t m,             # the combination
    const intp* pos,          # IN (n_combinations * 3,) taps of weight 2
    const intp* cptr,         # IN (n_combinations + 1,) channel_ptr
    const intp* chans,        # IN channels
    const double* window,     # IN from _fill_window, [(ch * 9 + p) * stride + u]
    const double* sums,       # IN from _fill_window, [ch * stride + u]
    Py_ssize_t stride,
    Py_ssize_t n_block,
    double* conv,             # OUT (n_block,)
) noexcept nogil:
    """conv[u] = sum over m's channels of 3 (g_i + g_j + g_l) - sum_p g_p, at
    every step u of a block, in a loop over the steps that the compiler
    vectorizes."""
    cdef Py_ssize_t q, u
    cdef const double* gi
    cdef const double* gj
    cdef const double* gl
    cdef const double* gs
    for u in range(n_block):
        conv[u] = 0.0
    for q in range(cptr[m], cptr[m + 1]):
        gi = window + (chans[q] * N_TAPS + pos[3 * m]) * stride
        gj = window + (chans[q] * N_TAPS + pos[3 * m + 1]) * stride
        gl = window + (chans[q] * N_TAPS + pos[3 * m + 2]) * stride
        gs = sums + chans[q] * stride
        for u in range(n_block):
            conv[u] = conv[u] + (3.0 * (gi[u] + gj[u] + gl[u]) - gs[u])


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

    The rows are taken ROWS at a time (as prefix_indicator_fill takes its
    steps): a dilation's window values of the block's rows, then every
    combination's convolutions in a loop over the rows that the compiler
    vectorizes (``_convolve_block``, as prefix_indicator_fill computes them:
    the same bits).
    """
    cdef Py_ssize_t n_channels = data.shape[1]
    cdef Py_ssize_t n_dilations = dilations.shape[0]
    cdef Py_ssize_t n_biases = biases.shape[1]
    cdef Py_ssize_t width = positions.shape[0] * max(n_biases, 1)  # out's row
    cdef Py_ssize_t r0, n_block, u, d, m, k, b
    # Raw pointers: stores through a memoryview's char* would oblige the compiler
    # to reload every other memoryview's fields after each one.
    cdef const double* x = &data[0, 0]
    cdef const intp* pos = &positions[0, 0]
    cdef const intp* cptr = &channel_ptr[0]
    cdef const intp* chans = &channels[0] if channels.shape[0] else NULL
    cdef const double* bias = &biases[0, 0] if n_biases else NULL
    cdef Py_ssize_t n_out = positions.shape[0] * n_biases
    cdef Py_ssize_t shift = 8 if causal else 4  # taps before the anchor step
    cdef double* o
    # the block's window values [(ch * 9 + p) * ROWS + u], their sums
    # [ch * ROWS + u] and one combination's convolutions [u]
    cdef double* window
    cdef double* sums
    cdef double* conv
    if row_stop <= row_start:
        return
    with nogil:
        window = <double*> _scratch((n_channels * (N_TAPS + 1) + 1) * ROWS)
        sums = window + n_channels * N_TAPS * ROWS
        conv = sums + n_channels * ROWS
        r0 = row_start
        while r0 < row_stop:
            n_block = min(<Py_ssize_t> ROWS, row_stop - r0)
            o = &out[r0, 0]
            for d in range(n_dilations):
                for u in range(n_block):
                    _fill_window(x, n_channels, rows[r0 + u], first[r0 + u],
                                 last[r0 + u], dilations[d], shift, zero_pad, ROWS,
                                 window + u, sums + u)
                for m in range(combination_ptr[d], combination_ptr[d + 1]):
                    _convolve_block(m, pos, cptr, chans, window, sums, ROWS, n_block,
                                    conv)
                    if n_biases == 0:
                        for u in range(n_block):
                            o[u * width + m] = conv[u]
                    else:
                        for b in range(n_biases):
                            for u in range(n_block):
                                o[u * width + m * n_biases + b] = conv[u]
            # Threshold the whole rows in one flat loop, which the compiler turns
            # into vector compares: a short loop per combination compiles to
            # branches, mispredicted half of the time on random bits.
            if n_biases > 0:
                for u in range(n_block):
                    for k in range(n_out):
                        o[u * width + k] = <double> (o[u * width + k] > bias[k])
            r0 = r0 + n_block
        free(window)


cdef inline void _count_block(
    const double* values,      # IN (n_block,) one thresholded value per step
    Py_ssize_t n_block,
    const double* thresholds,  # IN (n_thresholds,) increasing
    const intp* order,         # IN (n_thresholds,) column of each, from col0
    Py_ssize_t n_thresholds,
    Py_ssize_t col0,           # the first output column of these indicators
    Py_ssize_t t,              # the block's first packed step
    Py_ssize_t a,              # its sequence's first packed step
    const intp* rows,          # IN the block's rows (packed steps, increasing)
    const intp* row_dest,      # IN their output rows
    Py_ssize_t n_block_rows,
    intp* cnt,                 # IN/OUT the counts so far, by output column
    double* n_on,              # OUT (n_block,) indicators on at each step
    intp* hist,                # scratch (4 * (n_thresholds + 1),)
    double* rows_out,          # OUT [row_dest[rr] * n_ind + col] prefix means
    Py_ssize_t n_ind,
) noexcept nogil:
    """The indicators ``values[u] > thresholds[j]`` of a block of steps: the
    number on at each step (those of the lowest thresholds), the counts, and
    the prefix means at the block's rows."""
    cdef Py_ssize_t n_bins = n_thresholds + 1
    cdef Py_ssize_t u, u0, u1, j, col, rr
    cdef intp tally
    cdef double level, n
    # (counted in doubles: the compiler vectorizes this loop, not one that
    # adds comparisons to integers)
    for u in range(n_block):
        n_on[u] = 0.0
    for j in range(n_thresholds):
        level = thresholds[j]
        for u in range(n_block):
            n_on[u] = n_on[u] + (1.0 if values[u] > level else 0.0)
    # The indicator of the j-th lowest threshold is on at the steps with
    # n_on > j. Four histograms of n_on, for steps u % 4 = 0..3, so that
    # consecutive increments of one bin do not wait for each other; read out
    # at each row, and at the block's end into the counts.
    for j in range(4 * n_bins):
        hist[j] = 0
    u0 = 0
    for rr in range(n_block_rows + 1):
        u1 = rows[rr] - t + 1 if rr < n_block_rows else n_block
        for u in range(u0, u1):
            hist[(u & 3) * n_bins + <intp> n_on[u]] += 1
        u0 = u1
        tally = 0
        n = <double> (rows[rr] - a + 1) if rr < n_block_rows else 0.0
        for j in range(n_thresholds - 1, -1, -1):
            tally = tally + (hist[j + 1] + hist[n_bins + j + 1]
                             + hist[2 * n_bins + j + 1] + hist[3 * n_bins + j + 1])
            col = col0 + order[j]
            if rr < n_block_rows:
                rows_out[row_dest[rr] * n_ind + col] = (cnt[col] + tally) / n
            else:
                cnt[col] += tally


cdef inline void _add_rows(
    double* projected,         # IN/OUT (n_block * width,) the block's vectors
    Py_ssize_t n_block,
    const double* table,       # IN (n_table_rows * width,)
    Py_ssize_t width,          # a multiple of LANES
    const intp* chosen,        # IN [l * BLOCK + u] table row of term l at step u
    Py_ssize_t n_terms,
) noexcept nogil:
    """Add to every step's projected vector its n_terms table rows, in order,
    LANES components at a time in registers."""
    cdef Py_ssize_t u, l, f, f0
    cdef double lanes[LANES]
    cdef const double* w
    cdef double* p_u
    for u in range(n_block):
        p_u = projected + u * width
        for f0 in range(0, width // LANES):
            f0 = f0 * LANES
            for f in range(LANES):
                lanes[f] = p_u[f0 + f]
            for l in range(n_terms):
                w = table + chosen[l * BLOCK + u] * width + f0
                for f in range(LANES):
                    lanes[f] = lanes[f] + w[f]
            for f in range(LANES):
                p_u[f0 + f] = lanes[f]


def prefix_indicator_fill(
    const double[:, ::1] data,         # IN (n_steps, n_channels) packed sequences
    const intp[::1] offsets,           # IN (n_sequences + 1,)
    const intp[::1] dilations,         # IN (n_dilations,)
    const intp[::1] combination_ptr,   # IN (n_dilations + 1,) combinations per dilation
    const intp[:, ::1] positions,      # IN (n_combinations, 3) taps of weight 2
    const intp[::1] channel_ptr,       # IN (n_combinations + 1,)
    const intp[::1] channels,          # IN (channel_ptr[-1],) channels summed
    const double[:, ::1] sorted_biases,  # IN (n_combinations, n_biases) rows increasing
    const intp[:, ::1] bias_order,     # IN (n_combinations, n_biases) their columns
    const double[:, ::1] sorted_levels,  # IN (n_channels, n_levels) rows increasing
    const intp[:, ::1] level_order,    # IN (n_channels, n_levels) their columns
    intp group_size,                   # combinations per group (see below)
    const intp[::1] group_ptr,         # IN (n_dilations + 1,) groups per dilation
    const double[:, ::1] cum_weights,  # IN (n_table_rows, width) see below
    const double[::1] offset,          # IN (k,)
    const intp[::1] rows,              # IN (n_rows,) packed steps, increasing
    const intp[::1] row_dest,          # IN (n_rows,) output row of each
    bint causal,
    bint zero_pad,
    intp seq,                          # the sequence of step t_begin
    intp t_begin,
    intp t_end,
    intp[::1] counts,                  # IN/OUT (n_indicators,)
    double[:, ::1] running,            # IN/OUT (2, k) running sum, compensation
    double[:, ::1] steps_out,          # OUT (n_steps, k)
    double[:, ::1] rows_out,           # OUT (max(row_dest) + 1, n_indicators)
):
    """Prefix means of indicators, projected at the packed steps
    ``t_begin:t_end`` and kept at ``rows``, without writing any step's
    indicators.

    The indicators of a step t: first ``c_m > biases[m, b]`` (column
    ``m * n_biases + b``; the convolutions of ``dilated_convolution_fill``,
    bit for bit), then the levels ``data[t, ch] > levels[ch, l]`` (column
    ``n_combinations * n_biases + ch * n_levels + l``). With weights W
    (n_indicators, k), step t of a sequence starting at t0 gets
    ``steps_out[t] = sum_{u=t0..t} sum_i [on_i(u)] W[i] / (t - t0 + 1) - offset``,
    and step ``t = rows[r]`` (every row in ``t_begin:t_end``) gets the prefix
    means of the indicators,
    ``rows_out[row_dest[r], i] = #{u in t0..t: on_i(u)} / (t - t0 + 1)``.

    As MiniRocket counts (Dempster et al. 2021, section 3.3), the work runs
    combination by combination over a block of up to BLOCK steps of one
    sequence: the block's window values for a dilation, then each
    combination's convolutions and their comparisons with its biases, in loops
    over the block's steps that the compiler vectorizes; then each channel's
    values and their levels. The biases of combination m come sorted,
    ``sorted_biases[m, j] = biases[m, bias_order[m, j]]`` (and the levels
    likewise), so the indicators on at a step are those of the ``n_m`` lowest
    biases: their weights add up to one sum of the weight rows of the lowest
    biases. The table ``cum_weights`` holds these sums (rows padded with zeros
    to ``width``, a multiple of LANES): for groups of ``g = group_size``
    consecutive combinations of a dilation (group ``group_ptr[d] + l`` of
    dilation d holds its combinations ``g l .. g l + g - 1``, fewer at the
    end), row ``G (n_biases + 1)**g + sum_p n_p (n_biases + 1)**(g - 1 - p)``
    sums the weight rows of the ``n_p`` lowest biases of group G's members p;
    after the groups' rows, row ``ch * (n_levels + 1) + n`` sums those of the
    n lowest levels of channel ch. So a step costs one k-vector per group and
    channel, whatever the number of thresholds, added into the block's
    projected vectors, which are then summed along the sequence. A step's
    vector is summed in one fixed order (by dilation, then group; then
    channel), so every output of a sequence is the same, bit for bit, whatever
    the blocks, the calls and the other sequences.

    ``counts`` (the indicators' counts) and ``running`` hold the state of the
    sequence in progress: reset at every sequence start, so a call starting
    mid-sequence continues from the state a call ending there left; the caller
    gives each thread its own.

    Numerics: the counts are exact integers; the running sum of the projected
    vectors is compensated (Neumaier), so the prefix means are as accurate on
    a 10^6-step sequence as on a short one.

    ``k == 0``: no projected output.
    """
    cdef Py_ssize_t n_channels = data.shape[1]
    cdef Py_ssize_t n_dilations = dilations.shape[0]
    cdef Py_ssize_t n_comb = positions.shape[0]
    cdef Py_ssize_t n_biases = sorted_biases.shape[1]
    cdef Py_ssize_t n_levels = sorted_levels.shape[1]
    cdef Py_ssize_t n_bins = n_biases + 1
    cdef Py_ssize_t n_conv = n_comb * n_biases  # the convolutions' indicators
    cdef Py_ssize_t n_ind = n_conv + n_channels * n_levels
    cdef Py_ssize_t k = offset.shape[0]
    cdef Py_ssize_t width = cum_weights.shape[1]  # k rounded up to LANES
    cdef Py_ssize_t n_rows = rows.shape[0]
    cdef Py_ssize_t shift = 8 if causal else 4  # taps before the anchor step
    cdef Py_ssize_t most = n_channels  # terms of the largest stage
    cdef Py_ssize_t n_states = 1  # table rows per group, (n_biases + 1)**g
    cdef Py_ssize_t stride  # (n_biases + 1)**(g - 1): the first member's
    cdef Py_ssize_t level_rows  # the first table row of the levels
    cdef Py_ssize_t a, z, t, b1, n_block, u, d, m, m0, l, q, ch, j, f, r, r_end
    cdef double y, acc, n
    # Raw pointers (see dilated_convolution_fill).
    cdef const double* x = &data[0, 0]
    cdef const intp* pos = &positions[0, 0]
    cdef const intp* cptr = &channel_ptr[0]
    cdef const intp* chans = &channels[0] if channels.shape[0] else NULL
    cdef const double* bias = &sorted_biases[0, 0]
    cdef const intp* order = &bias_order[0, 0]
    cdef const double* level = &sorted_levels[0, 0] if n_levels else NULL
    cdef const intp* lorder = &level_order[0, 0] if n_levels else NULL
    cdef const double* cum = &cum_weights[0, 0] if k else NULL
    cdef const intp* row_at = &rows[0] if n_rows else NULL
    cdef const intp* dest_at = &row_dest[0] if n_rows else NULL
    cdef double* out_rows = &rows_out[0, 0] if rows_out.shape[0] else NULL
    cdef intp* cnt = &counts[0]
    cdef double* total = &running[0, 0] if k else NULL
    cdef double* comp = &running[1, 0] if k else NULL
    cdef intp* row_of
    cdef double* o
    cdef double* p_u
    # Per call, for one block: the window values [(ch * 9 + p) * BLOCK + u]
    # and their sums [ch * BLOCK + u]; one combination's convolutions (or one
    # channel's values), the number of its indicators on at each step and
    # their histogram; the table row each group of a dilation (or each
    # channel) adds at each step [l * BLOCK + u]; the projected vectors
    # [u * width + f].
    cdef double* window
    cdef double* sums
    cdef double* conv
    cdef double* n_on
    cdef intp* hist
    cdef intp* chosen
    cdef double* projected
    for d in range(n_dilations):
        most = max(most, combination_ptr[d + 1] - combination_ptr[d])
    for q in range(group_size):
        n_states = n_states * n_bins
    stride = n_states // n_bins
    level_rows = group_ptr[n_dilations] * n_states
    with nogil:
        window = <double*> _scratch(
            n_channels * (N_TAPS + 1) * BLOCK + (2 + most + width) * BLOCK
            + 4 * (max(n_biases, n_levels) + 1))
        sums = window + n_channels * N_TAPS * BLOCK
        conv = sums + n_channels * BLOCK
        n_on = conv + BLOCK
        projected = n_on + BLOCK
        chosen = <intp*> (projected + width * BLOCK)
        hist = chosen + most * BLOCK
        r = 0
        a = offsets[seq]
        z = offsets[seq + 1]
        t = t_begin
        while t < t_end:
            if t == z:  # the next sequence
                seq = seq + 1
                a = z
                z = offsets[seq + 1]
            if t == a:
                for j in range(n_ind):
                    cnt[j] = 0
                for f in range(k):
                    total[f] = 0.0
                    comp[f] = 0.0
            # The block: steps t..b1-1 of one sequence, and its rows r..r_end-1.
            b1 = min(t + BLOCK, z, t_end)
            n_block = b1 - t
            r_end = r
            while r_end < n_rows and rows[r_end] < b1:
                r_end = r_end + 1
            for u in range(n_block * width):
                projected[u] = 0.0
            for d in range(n_dilations):
                for u in range(n_block):
                    _fill_window(x, n_channels, t + u, a, z - 1, dilations[d], shift,
                                 zero_pad, BLOCK, window + u, sums + u)
                m0 = combination_ptr[d]
                for m in range(m0, combination_ptr[d + 1]):
                    _convolve_block(m, pos, cptr, chans, window, sums, BLOCK, n_block,
                                    conv)
                    _count_block(conv, n_block, bias + m * n_biases,
                                 order + m * n_biases, n_biases, m * n_biases, t, a,
                                 row_at + r, dest_at + r, r_end - r, cnt, n_on, hist,
                                 out_rows, n_ind)
                    if k:
                        # the group's table row, member by member
                        l = m - m0
                        row_of = chosen + (l // group_size) * BLOCK
                        if l % group_size == 0:
                            j = (group_ptr[d] + l // group_size) * n_states
                            for u in range(n_block):
                                row_of[u] = j + <intp> n_on[u] * stride
                        else:
                            j = stride
                            for q in range(l % group_size):
                                j = j // n_bins
                            for u in range(n_block):
                                row_of[u] = row_of[u] + <intp> n_on[u] * j
                if k:
                    _add_rows(projected, n_block, cum, width, chosen,
                              group_ptr[d + 1] - group_ptr[d])
            if n_levels:
                for ch in range(n_channels):
                    for u in range(n_block):
                        conv[u] = x[(t + u) * n_channels + ch]
                    _count_block(conv, n_block, level + ch * n_levels,
                                 lorder + ch * n_levels, n_levels,
                                 n_conv + ch * n_levels, t, a, row_at + r,
                                 dest_at + r, r_end - r, cnt, n_on, hist, out_rows,
                                 n_ind)
                    if k:
                        row_of = chosen + ch * BLOCK
                        for u in range(n_block):
                            row_of[u] = (level_rows + ch * (n_levels + 1)
                                         + <intp> n_on[u])
                if k:
                    _add_rows(projected, n_block, cum, width, chosen, n_channels)
            for u in range(n_block):
                if k == 0:
                    break
                o = &steps_out[t + u, 0]
                p_u = projected + u * width
                n = <double> (t + u - a + 1)
                for f in range(k):
                    # Neumaier: the rounding error of every addition goes to
                    # comp, whichever of the two terms is the larger.
                    y = p_u[f]
                    acc = total[f] + y
                    if fabs(total[f]) >= fabs(y):
                        comp[f] = comp[f] + ((total[f] - acc) + y)
                    else:
                        comp[f] = comp[f] + ((y - acc) + total[f])
                    total[f] = acc
                    o[f] = (acc + comp[f]) / n - offset[f]
            r = r_end
            t = b1
        free(window)


def project_rows_fill(
    const double[:, ::1] values,     # IN (n_rows, n_in)
    const double[:, ::1] weights,    # IN (n_in, width), width a multiple of ROW_LANES
    const double[::1] offset,        # IN (n_out,), n_out <= width
    const intp[::1] dest,            # IN (n_rows,) output row of each row
    intp row_start,
    intp row_stop,
    double[:, ::1] out,              # OUT (max(dest) + 1, n_out)
):
    """``out[dest[r]] = values[r] @ weights[:, :n_out] - offset`` for rows
    ``row_start:row_stop``, every output summed over ``i = 0, 1, ...`` in
    order, so that a row's result depends on that row alone, not on the other
    rows of the call, their number or its position among them (a BLAS product
    takes other paths for one or two rows than for many, and rounds
    differently).

    Only a row's nonzero inputs are added: adding ``0 * w`` to a sum started
    at +0 leaves it as it was, bit for bit, and prefix means of indicators
    have many zeros. In blocks of PANEL inputs, whose weights stay in the
    cache while every row adds their terms, ROW_LANES outputs at a time in
    registers; between blocks the sums wait in a buffer.
    """
    cdef Py_ssize_t n_in = values.shape[1]
    cdef Py_ssize_t width = weights.shape[1]
    cdef Py_ssize_t n_out = offset.shape[0]
    cdef Py_ssize_t n_rows = row_stop - row_start
    cdef Py_ssize_t r, q, n_nz, i, i0, i1, f, f0
    cdef double a
    cdef double lanes[ROW_LANES]
    cdef const double* v = &values[0, 0]
    cdef const double* wts = &weights[0, 0]
    cdef const double* v_r
    cdef const double* w
    cdef double* s
    cdef double* partial  # (n_rows, width) sums so far
    cdef intp* nonzero  # (PANEL,) the row's nonzero inputs in the block
    if n_rows <= 0:
        return
    with nogil:
        partial = <double*> _scratch(n_rows * width + PANEL)
        nonzero = <intp*> (partial + n_rows * width)
        for r in range(n_rows * width):
            partial[r] = 0.0
        for i0 in range(0, (n_in + PANEL - 1) // PANEL):
            i0 = i0 * PANEL
            i1 = min(i0 + PANEL, n_in)
            for r in range(n_rows):
                v_r = v + (row_start + r) * n_in
                n_nz = 0
                for i in range(i0, i1):
                    if v_r[i] != 0.0:
                        nonzero[n_nz] = i
                        n_nz = n_nz + 1
                for f0 in range(0, width // ROW_LANES):
                    f0 = f0 * ROW_LANES
                    s = partial + r * width + f0
                    for f in range(ROW_LANES):
                        lanes[f] = s[f]
                    for q in range(n_nz):
                        i = nonzero[q]
                        a = v_r[i]
                        w = wts + i * width + f0
                        for f in range(ROW_LANES):
                            lanes[f] = lanes[f] + a * w[f]
                    for f in range(ROW_LANES):
                        s[f] = lanes[f]
        for r in range(n_rows):
            for f in range(n_out):
                out[dest[row_start + r], f] = partial[r * width + f] - offset[f]
        free(partial)
