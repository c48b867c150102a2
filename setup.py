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


def kernel_extension(name, flags=()):
    return Extension(
        f"skseq.{name}",
        [f"skseq/{name}.pyx"],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3", *flags],
    )


# The compiled modules: the recursions (forward-backward, Viterbi) and the row
# operations of the networks (softmax and its gradients).
MODULES = ("_recursions", "_rows")

# The portable kernels, and on x86-64 the same sources built for AVX2 + FMA, which
# skseq/_compiled.py picks at import time when the CPU has them (20% faster at 32
# states, benchmarks/bench_speed.py). A binary built here thus runs anywhere.
extensions = [kernel_extension(name) for name in MODULES]
if platform.machine().lower() in {"x86_64", "amd64"} and sys.platform != "win32":
    extensions += [kernel_extension(f"{name}_avx2", ["-mavx2", "-mfma"])
                   for name in MODULES]

# The convolutions of the per-step representations (skseq/_convolution.pyx): bound
# by writing their output, an AVX2 build of them is no faster, so portable only.
extensions.append(kernel_extension("_convolution"))

# The fused transition pass (skseq/_fused_fb.pyx) vectorises its exp only without
# -ftrapping-math (no result changes: the compiler may then assume no
# floating-point traps). Its exp is most of its work, so on x86-64 it is also built
# for AVX-512 (x86-64-v4), 1.2-1.5x the AVX2 build (benchmarks/bench_fused.py);
# skseq/_fused.py picks the widest build the CPU runs.
FUSED = ["-fno-trapping-math"]
extensions.append(kernel_extension("_fused_fb", FUSED))
if platform.machine().lower() in {"x86_64", "amd64"} and sys.platform != "win32":
    extensions.append(kernel_extension("_fused_fb_avx2", ["-mavx2", "-mfma", *FUSED]))
    extensions.append(kernel_extension("_fused_fb_avx512", [
        "-mavx512f", "-mavx512cd", "-mavx512bw", "-mavx512dq", "-mavx512vl",
        "-mavx2", "-mfma", "-mprefer-vector-width=512", *FUSED]))

setup(ext_modules=cythonize(extensions, compiler_directives=DIRECTIVES))
