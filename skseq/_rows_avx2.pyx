# The kernels of _rows.pyx compiled for AVX2 + FMA (setup.py adds the flags on
# x86-64); skseq/_compiled.py imports this module instead of the portable one when
# the CPU has both.
include "_rows.pyx"
