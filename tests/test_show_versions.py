"""skseq.show_versions() against what the packages and the CPU say themselves."""

import importlib.metadata
import importlib.util
import re

import numpy as np
import scipy
import sklearn

import skseq


def _printed(capsys):
    assert skseq.show_versions() is None
    return capsys.readouterr().out


def _value(out, name):
    match = re.search(rf"^\s*{re.escape(name)}: (.*)$", out, flags=re.MULTILINE)
    assert match, f"no line for {name!r} in:\n{out}"
    return match.group(1)


def test_versions_are_the_packages_own(capsys):
    out = _printed(capsys)
    assert _value(out, "numpy") == np.__version__
    assert _value(out, "scipy") == scipy.__version__
    assert _value(out, "scikit-learn") == sklearn.__version__
    assert _value(out, "skseq").startswith(skseq.__version__ + " (")
    for section in ("System:", "Python dependencies:", "Optional dependencies:",
                    "Compiled kernels (build in use):", "Thread pools:"):
        assert section in out


def test_a_missing_package_reads_not_installed(capsys, monkeypatch):
    real = importlib.metadata.version

    def version(name):
        if name == "pandas":
            raise importlib.metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    out = _printed(capsys)
    assert _value(out, "pandas") == "not installed"
    assert _value(out, "numpy") == np.__version__


def _installed(module):
    return importlib.util.find_spec(f"skseq._kernels.{module}") is not None


def test_the_fused_kernel_build_is_the_widest_this_cpu_runs(capsys):
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as cpu
    except ImportError:  # NumPy < 2
        from numpy.core._multiarray_umath import __cpu_features__ as cpu
    if cpu.get("AVX512_SKX") and _installed("_fused_avx512"):
        expected = "avx512"
    elif cpu.get("AVX2") and cpu.get("FMA3") and _installed("_fused_avx2"):
        expected = "avx2"
    else:
        expected = "portable"
    assert _value(_printed(capsys), "_fused").split()[0] == expected


def test_skseq_kernels_caps_every_build(capsys, monkeypatch):
    monkeypatch.setenv("SKSEQ_KERNELS", "portable")
    out = _printed(capsys)
    assert _value(out, "SKSEQ_KERNELS") == "portable"
    for module in ("_fused", "_forward_backward", "_softmax", "_convolution"):
        assert _value(out, module).split()[0] == "portable"
