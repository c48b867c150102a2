# The kernels of _fused.pyx compiled for AVX-512 (x86-64-v4: F, CD, BW, DQ, VL;
# setup.py adds the flags on x86-64); _build.py imports this module when the CPU
# has them: the exp of every transition entry then runs eight lanes wide.
include "_fused.pyx"
