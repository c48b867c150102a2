# The kernels of _fused_fb.pyx compiled for AVX2 + FMA (setup.py adds the flags on
# x86-64); skseq/_fused.py imports this module instead of the portable one when
# the CPU has both.
include "_fused_fb.pyx"
