# The kernels of _forward_backward.pyx compiled for AVX2 + FMA (setup.py adds the
# flags on x86-64); _build.py imports this module instead of the portable one when
# the CPU has both.
include "_forward_backward.pyx"
