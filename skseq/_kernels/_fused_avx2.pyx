# The kernels of _fused.pyx compiled for AVX2 + FMA (setup.py adds the flags on
# x86-64); _build.py imports this module instead of the portable one when the CPU
# has both but not AVX-512.
include "_fused.pyx"
