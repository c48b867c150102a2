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


# The portable kernels, and on x86-64 the same source built for AVX2 + FMA, which
# skseq/_inference.py picks at import time when the CPU has them (20% faster at 32
# states, benchmarks/bench_speed.py). A binary built here thus runs anywhere.
# The fused transition kernels vectorise their exp only without -ftrapping-math
# (see skseq/_fused_fb.pyx; no result changes).
FUSED = ["-fno-trapping-math"]
extensions = [kernel_extension("_forward_backward"),
              kernel_extension("_fused_fb", FUSED)]
if platform.machine().lower() in {"x86_64", "amd64"} and sys.platform != "win32":
    extensions.append(kernel_extension("_forward_backward_avx2", ["-mavx2", "-mfma"]))
    extensions.append(kernel_extension("_fused_fb_avx2", ["-mavx2", "-mfma", *FUSED]))
    extensions.append(kernel_extension("_fused_fb_avx512", [
        "-mavx512f", "-mavx512cd", "-mavx512bw", "-mavx512dq", "-mavx512vl",
        "-mavx2", "-mfma", "-mprefer-vector-width=512", *FUSED]))

setup(ext_modules=cythonize(extensions, compiler_directives=DIRECTIVES))
