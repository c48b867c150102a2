# Order statistics of every column of a matrix, by counting into buckets.
#
# The thresholds of the dilated kernels are quantiles of every combination's
# convolution over up to 10,000 training steps: a few order statistics of
# every column of a (steps, combinations) matrix. One selection per column
# (np.partition) reads a contiguous copy of the column; this kernel reads the
# matrix row by row: a sample of its rows for every column's range; all of
# them for how many of its values fall into each of n_buckets equal parts of
# it; then the values of the parts that hold the wanted ranks, few, among
# which a selection finds them.
# Exact: a value's part is a non-decreasing function of the value, so every
# value of a part is below every value of the parts above it, and the value of
# rank k is the one of rank k - (values in lower parts) within its part.

from libc.math cimport isfinite
from libc.stdlib cimport calloc, free, malloc

cimport numpy as cnp

cnp.import_array()

ctypedef cnp.intp_t intp


cdef inline intp _part(double x, double low, double scale, double top) noexcept nogil:
    """The part of value x of a column whose range starts at low: in 0..top
    whatever x (clamped without branches, which values beyond the range in
    no order would mispredict)."""
    cdef double y = (x - low) * scale
    y = y if y > 0.0 else 0.0  # (a NaN too)
    y = y if y < top else top
    return <intp> y


cdef bint _select(double* v, intp n, intp k, double* value) noexcept nogil:
    """Set ``value`` to the value of rank k (from 0) of v[0:n], reordering v
    (Hoare's selection, median-of-three pivots); return 0 instead beyond
    2 log2(n) + 16 partitions (an order that defeats the pivots)."""
    cdef intp left = 0, right = n - 1, i, j, mid, rounds = 16
    cdef double pivot, t
    while n > 1:
        rounds += 2
        n //= 2
    while right > left:
        rounds -= 1
        if rounds < 0:
            return 0
        mid = left + (right - left) // 2
        # median of three at mid
        if v[mid] < v[left]:
            t = v[mid]; v[mid] = v[left]; v[left] = t
        if v[right] < v[left]:
            t = v[right]; v[right] = v[left]; v[left] = t
        if v[right] < v[mid]:
            t = v[right]; v[right] = v[mid]; v[mid] = t
        pivot = v[mid]
        i = left
        j = right
        while i <= j:
            while v[i] < pivot:
                i += 1
            while pivot < v[j]:
                j -= 1
            if i <= j:
                t = v[i]; v[i] = v[j]; v[j] = t
                i += 1
                j -= 1
        if k <= j:
            right = j
        elif k >= i:
            left = i
        else:
            break
    value[0] = v[k]
    return 1


cdef void _ranges(
    const double[:, ::1] values, const intp[:, ::1] ranks, intp stride,
    double* sample,   # scratch (n_columns * n_sample,)
    double* low,      # OUT (n_columns,) where every column's range starts
    double* scale,    # OUT (n_columns,) parts per unit of value
    intp n_buckets, cnp.uint8_t[::1] found,
) noexcept nogil:
    """Every column's range: from below its lowest wanted rank to above its
    highest, as the rows 0, stride, 2 stride, ... place them (a range from
    the least to the greatest value would put most values of a heavy-tailed
    column into a few parts); not found where it has no finite width."""
    cdef intp n_rows = values.shape[0], n_cols = values.shape[1]
    cdef intp n_ranks = ranks.shape[1]
    cdef intp n_sample = (n_rows + stride - 1) // stride
    cdef intp margin = 2 + n_sample // 16
    cdef intp j, m
    cdef double high, width
    for j in range(n_sample):
        for m in range(n_cols):
            sample[m * n_sample + j] = values[j * stride, m]
    for m in range(n_cols):
        found[m] = (
            _select(sample + m * n_sample, n_sample, max(
                0, ranks[m, 0] * n_sample // n_rows - margin), &low[m])
            and _select(sample + m * n_sample, n_sample, min(
                n_sample - 1, ranks[m, n_ranks - 1] * n_sample // n_rows + margin),
                &high))
        width = high - low[m]
        scale[m] = n_buckets / width if width > 0.0 else 0.0
        if not (isfinite(width) and isfinite(scale[m])):
            found[m] = 0


cdef intp _locate(
    const intp[:, ::1] ranks,
    intp* counts,     # IN/OUT (n_columns * n_buckets,) values per part; OUT
                      # the first wanted rank's place (below) of each part
                      # holding one, -1 for the others
    intp n_buckets, cnp.uint8_t[::1] found,
    intp* part,       # OUT (n_columns * n_ranks,) the part of every rank
    intp* below,      # OUT the values in lower parts
    intp* start,      # OUT where its part's values are gathered
) noexcept nogil:
    """The part of every wanted rank of the columns found; return the
    values of their parts in all."""
    cdef intp n_cols = ranks.shape[0], n_ranks = ranks.shape[1]
    cdef intp m, j, b, k, total = 0
    for m in range(n_cols):
        if not found[m]:
            continue
        b = 0
        k = 0  # values in parts below b
        for j in range(n_ranks):
            while k + counts[m * n_buckets + b] <= ranks[m, j]:
                k += counts[m * n_buckets + b]
                b += 1
            part[m * n_ranks + j] = b
            below[m * n_ranks + j] = k
            if j == 0 or part[m * n_ranks + j - 1] != b:
                start[m * n_ranks + j] = total
                total += counts[m * n_buckets + b]
            else:
                start[m * n_ranks + j] = start[m * n_ranks + j - 1]
    for m in range(n_cols * n_buckets):
        counts[m] = -1
    for m in range(n_cols):
        for j in range(n_ranks):
            k = m * n_ranks + j
            if found[m] and (j == 0 or part[k - 1] != part[k]):
                counts[m * n_buckets + part[k]] = k
    return total


cdef void _pick(
    const intp[:, ::1] ranks, const intp* part, const intp* below, intp* start,
    intp* filled, double* gathered, double[:, ::1] out, cnp.uint8_t[::1] found,
) noexcept nogil:
    """The wanted ranks within the gathered values of their parts."""
    cdef intp n_cols = ranks.shape[0], n_ranks = ranks.shape[1], m, j, k
    for m in range(n_cols):
        if not found[m]:
            continue
        for j in range(n_ranks):
            k = m * n_ranks + j
            if j and part[k - 1] == part[k]:  # gathered by the first rank
                start[k] = start[k - 1]
                filled[k] = filled[k - 1]
            if not _select(gathered + start[k], filled[k], ranks[m, j] - below[k],
                           &out[m, j]):
                found[m] = 0


def bucket_select_fill(
    const double[:, ::1] values,  # IN (n_rows, n_columns)
    const intp[:, ::1] ranks,     # IN (n_columns, n_ranks) increasing, in [0, n_rows)
    intp n_buckets,               # parts of every column's range, < 2**31 in all
    intp stride,                  # the range is that of every stride-th row
    double[:, ::1] out,           # OUT (n_columns, n_ranks) the order statistics
    cnp.uint8_t[::1] found,       # OUT (n_columns,) 1 where ``out`` holds them
):
    """Fill ``out[m, j]`` with the value of rank ``ranks[m, j]`` (from 0, in
    increasing order) of column ``m`` of ``values``, and ``found[m]`` with 1;
    ``found[m] = 0`` (``out[m]`` undefined) where the column holds a NaN,
    its range has no finite width, or the order of its values defeats the
    selection's pivots: the caller selects those columns another way. The
    parts split the range of the rows ``0, stride, 2 stride, ...``
    (``_ranges``); values beyond it count in the first or the last part
    (many equal values, or a range one outlier stretches, make a large part:
    its values are gathered all the same, at most the column's)."""
    cdef intp n_rows = values.shape[0], n_cols = values.shape[1]
    cdef intp n_slots = n_cols * ranks.shape[1], r, m, k
    cdef double x, top = n_buckets - 1
    cdef const double* row
    cdef double* low = <double*> malloc(2 * n_cols * sizeof(double) + 1)
    cdef double* scale = low + n_cols
    cdef intp* counts = <intp*> calloc(n_cols * n_buckets + 1, sizeof(intp))
    # every value's part, as an index into counts (n_cols * n_buckets < 2**31)
    cdef cnp.int32_t* part_of = <cnp.int32_t*> malloc(
        n_rows * n_cols * sizeof(cnp.int32_t) + 1)
    # per (column, rank): its part, the values in lower parts, where its
    # part's values go, how many are there (the first rank of a part gathers)
    cdef intp* part = <intp*> malloc(4 * n_slots * sizeof(intp) + 1)
    cdef intp* below = part + n_slots
    cdef intp* start = below + n_slots
    cdef intp* filled = start + n_slots
    # the sampled rows, then the values of the parts holding a wanted rank
    cdef double* gathered = <double*> malloc(
        n_cols * ((n_rows + stride - 1) // stride) * sizeof(double) + 1)
    if (low == NULL or counts == NULL or part_of == NULL or part == NULL
            or gathered == NULL):
        free(low)
        free(counts)
        free(part_of)
        free(part)
        free(gathered)
        raise MemoryError()
    try:
        with nogil:
            _ranges(values, ranks, stride, gathered, low, scale, n_buckets, found)
            free(gathered)
            gathered = NULL
            # how many values in every part (a NaN: not found), and the
            # part of every value, not computed again when gathering
            for r in range(n_rows):
                row = &values[r, 0]
                for m in range(n_cols):
                    x = row[m]
                    if x != x:
                        found[m] = 0
                    k = m * n_buckets + _part(x, low[m], scale[m], top)
                    part_of[r * n_cols + m] = <cnp.int32_t> k
                    counts[k] += 1
            gathered = <double*> malloc(
                _locate(ranks, counts, n_buckets, found, part, below, start)
                * sizeof(double) + 1)
            if gathered == NULL:
                with gil:
                    raise MemoryError()
            for k in range(n_slots):
                filled[k] = 0
            # the values of the parts holding a wanted rank
            for r in range(n_rows):
                row = &values[r, 0]
                for m in range(n_cols):
                    k = counts[part_of[r * n_cols + m]]
                    if k >= 0:
                        gathered[start[k] + filled[k]] = row[m]
                        filled[k] += 1
            _pick(ranks, part, below, start, filled, gathered, out, found)
    finally:
        free(low)
        free(counts)
        free(part_of)
        free(part)
        free(gathered)
