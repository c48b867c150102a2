"""The compiled modules, each in the widest build this CPU runs.

setup.py builds every compiled module portable and, on x86-64, some of them
again for wider vector units (``BUILDS``). The wrappers take their compiled
module from :func:`build`, which picks the widest build the CPU runs and this
installation has. ``SKSEQ_KERNELS`` caps the width: ``portable`` forces the
portable builds, ``avx2`` the AVX2 ones where a module has them.
"""

import importlib
import importlib.util
import os

# The CPU features each build needs (NumPy's names), widest build first.
FEATURES = {
    "avx512": ("AVX512_SKX",),  # x86-64-v4: AVX-512 F, CD, BW, DQ, VL
    "avx2": ("AVX2", "FMA3"),
    "portable": (),
}

# The builds setup.py makes of every compiled module on x86-64, widest first:
# AVX2 + FMA where it pays (20% faster forward-backward at 32 states,
# benchmarks/bench_speed.py), AVX-512 for the fused pass, whose exp is most of its
# work (1.2-1.5x its AVX2 build, benchmarks/bench_fused.py); the convolutions are
# bound by writing their output, so only portable, as is their running pooling.
# Other platforms get the portable builds alone.
BUILDS = {
    "_forward_backward": ("avx2", "portable"),
    "_softmax": ("avx2", "portable"),
    "_fused": ("avx512", "avx2", "portable"),
    "_convolution": ("portable",),
    "_pooling": ("portable",),
    "_select": ("portable",),
    "_standardize": ("portable",),
    "_semi_markov": ("portable",),
}


def _cpu_features():
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # NumPy < 2
        from numpy.core._multiarray_umath import __cpu_features__
    return __cpu_features__


def runs_on_this_cpu(variant):
    """Whether the CPU has every feature the build ``variant`` needs."""
    features = _cpu_features()
    return all(features.get(f) for f in FEATURES[variant])


def module_name(name, variant):
    """The import name of build ``variant`` of the compiled module ``name``."""
    suffix = "" if variant == "portable" else f"_{variant}"
    return f"{__package__}.{name}{suffix}"


def _allowed_variants():
    """The builds ``SKSEQ_KERNELS`` allows: all by default, else the named one
    and the narrower ones."""
    cap = os.environ.get("SKSEQ_KERNELS", "")
    if not cap:
        return tuple(FEATURES)
    if cap not in FEATURES:
        raise ValueError(f"SKSEQ_KERNELS must be one of {sorted(FEATURES)} or "
                         f"unset, got {cap!r}.")
    return tuple(FEATURES)[tuple(FEATURES).index(cap):]


def build(name, variant=None):
    """The compiled module ``name`` (a key of ``BUILDS``) in build ``variant``,
    or by default in the widest build this CPU runs and this installation has
    (within ``SKSEQ_KERNELS``)."""
    if variant is not None:
        return importlib.import_module(module_name(name, variant))
    allowed = _allowed_variants()
    for candidate in BUILDS[name]:
        if candidate not in allowed or not runs_on_this_cpu(candidate):
            continue
        try:
            return importlib.import_module(module_name(name, candidate))
        except ImportError:  # not built on this platform
            continue
    return importlib.import_module(module_name(name, "portable"))


def variant_in_use(name):
    """The build of the compiled module ``name`` that :func:`build` picks."""
    module = build(name).__name__
    return next((variant for variant in FEATURES if variant != "portable"
                 and module.endswith(f"_{variant}")), "portable")


def available(name):
    """The builds of the compiled module ``name`` that this CPU runs and this
    installation has, widest first."""
    return [variant for variant in BUILDS[name] if runs_on_this_cpu(variant)
            and importlib.util.find_spec(module_name(name, variant)) is not None]
