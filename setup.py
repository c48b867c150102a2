"""Build the Cython kernels; all other metadata lives in pyproject.toml."""

import platform
import sys

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

# Directives set once for every kernel instead of sprinkled per function.
DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
}


# -g0 comes after the interpreter's own flags (which hold -g on most Linux
# builds of Python) and so overrides them: the kernels are built without debug
# information, which was most of each compiled module's size.
COMPILE_ARGS = ["-O3", "-g0"]


def kernel_extension(name, flags=()):
    return Extension(
        f"skseq._kernels.{name}",
        [f"skseq/_kernels/{name}.pyx"],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=[*COMPILE_ARGS, *flags],
    )


X86_64 = platform.machine().lower() in {"x86_64", "amd64"} and sys.platform != "win32"
AVX2 = ["-mavx2", "-mfma"]
AVX512 = ["-mavx512f", "-mavx512cd", "-mavx512bw", "-mavx512dq", "-mavx512vl",
          *AVX2, "-mprefer-vector-width=512"]

# The compiled modules of skseq/_kernels, each beside its thin wrapper: the
# forward-backward and Viterbi recursions, the row operations of the networks
# (softmax and its gradients), the fused transition pass, the convolutions of
# the per-step representations and their running pooling, and the passes of
# the semi-Markov chain of labels. On x86-64 some are also built for wider vector
# units; skseq/_kernels/_build.py picks at import time the widest build the CPU
# runs, so a binary built here runs anywhere.
extensions = [
    # AVX2 + FMA: 20% faster at 32 states (benchmarks/bench_speed.py).
    kernel_extension("_forward_backward"),
    kernel_extension("_softmax"),
    # Bound by writing their output: an AVX2 build is no faster, so portable only.
    kernel_extension("_convolution"),
    kernel_extension("_pooling"),
    # Order statistics of the convolutions' columns (the thresholds): portable.
    kernel_extension("_select"),
    # The standardization of the shape representation's sample: portable
    # (without FMA, its values round as NumPy's do).
    kernel_extension("_standardize"),
    # The passes of the semi-Markov chain of labels: portable (without FMA,
    # their products and sums round as NumPy's do), and in logarithms for the
    # sequences whose likelihoods lie too far apart for their scaling.
    kernel_extension("_semi_markov"),
    kernel_extension("_semi_markov_log"),
]
if X86_64:
    extensions += [kernel_extension("_forward_backward_avx2", AVX2),
                   kernel_extension("_softmax_avx2", AVX2)]

# The fused transition pass vectorises its exp only without -ftrapping-math (no
# result changes: the compiler may then assume no floating-point traps). Its exp is
# most of its work, so on x86-64 it is also built for AVX-512 (x86-64-v4), 1.2-1.5x
# the AVX2 build (benchmarks/bench_fused.py).
FUSED = ["-fno-trapping-math"]
extensions.append(kernel_extension("_fused", FUSED))
if X86_64:
    extensions += [kernel_extension("_fused_avx2", [*AVX2, *FUSED]),
                   kernel_extension("_fused_avx512", [*AVX512, *FUSED])]

setup(ext_modules=cythonize(extensions, compiler_directives=DIRECTIVES))
