"""The compiled modules, in the build this CPU runs best.

Every kernel is built twice on x86-64 (setup.py): portable, and for AVX2 + FMA.
The AVX2 build is used when the CPU has both; ``SKSEQ_KERNELS=portable`` forces
the portable one. Code imports the kernels from here: ``recursions`` (the
forward-backward and Viterbi of ``_recursions.pyx``) and ``rows`` (the row
operations of ``_rows.pyx``).
"""

import importlib
import os


def _cpu_has_avx2():
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # NumPy < 2
        from numpy.core._multiarray_umath import __cpu_features__
    return bool(__cpu_features__.get("AVX2") and __cpu_features__.get("FMA3"))


def build(name, variant=None):
    """The compiled module ``name`` in the given variant ("portable" or "avx2"),
    or by default the best one this CPU and this installation have."""
    if variant is None:
        variant = ("avx2" if os.environ.get("SKSEQ_KERNELS", "") != "portable"
                   and _cpu_has_avx2() else "portable")
    if variant == "avx2":
        try:
            return importlib.import_module(f"skseq.{name}_avx2")
        except ImportError:  # not built on this platform
            pass
    return importlib.import_module(f"skseq.{name}")


recursions = build("_recursions")
rows = build("_rows")
