"""Build the Cython kernels; all other metadata lives in pyproject.toml."""

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

extensions = [
    Extension(
        "skseq._forward_backward",
        ["skseq/_forward_backward.pyx"],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3"],
    )
]

setup(ext_modules=cythonize(extensions, compiler_directives=DIRECTIVES))
