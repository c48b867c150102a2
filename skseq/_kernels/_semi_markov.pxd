# The semi-Markov chain as the compiled passes take it, shared by the scaled
# passes (_semi_markov.pyx) and those in logarithms (_semi_markov_log.pyx).

cdef struct Chain:
    Py_ssize_t n_classes        # labels C
    Py_ssize_t k                # phases per label
    Py_ssize_t n_durations      # D (the last stands for every longer one)
    const double* stay          # (C * k, D) (or their logarithms)
    const double* move          # (C * k, D)
    const double* hazard        # (C * k, D)
    const double* switch_       # (C, C): switch[c, c'] next label c' after c
    const double* start         # (C,)


cdef class ChainArrays:
    cdef const double[:, ::1] stay, move, hazard, switch
    cdef const double[::1] start

    cdef Chain pointers(self)
