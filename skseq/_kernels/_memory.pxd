# Working memory shared by the compiled modules (_convolution.pyx,
# _pooling.pyx).

from libc.stdlib cimport malloc


cdef inline void* _scratch(size_t n_values) except NULL nogil:
    """One block of n_values doubles (or intp, no wider) for a kernel's
    working arrays, carved by the caller: one allocation to check and free."""
    cdef void* block = malloc(max(n_values, 1) * sizeof(double))
    if block == NULL:
        with gil:
            raise MemoryError()
    return block
