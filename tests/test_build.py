"""The dispatch table of the compiled builds (``skseq._kernels._build``): the
widest build the CPU runs, ``SKSEQ_KERNELS`` capping it, and every wrapper
using the build it picks."""

import importlib

import pytest

from skseq._kernels import _build


@pytest.mark.parametrize("name", sorted(_build.BUILDS))
def test_the_widest_build_this_cpu_runs_is_picked(name, monkeypatch):
    monkeypatch.delenv("SKSEQ_KERNELS", raising=False)
    builds = _build.available(name)
    assert builds[-1] == "portable"
    assert all(_build.runs_on_this_cpu(b) for b in builds)
    assert _build.build(name).__name__ == _build.module_name(name, builds[0])
    wrapper = importlib.import_module(f"skseq._kernels.{name.lstrip('_')}")
    assert getattr(wrapper, name) is _build.build(name)


@pytest.mark.parametrize("cap", ["portable", "avx2", "avx512"])
@pytest.mark.parametrize("name", sorted(_build.BUILDS))
def test_skseq_kernels_caps_the_width(name, cap, monkeypatch):
    monkeypatch.setenv("SKSEQ_KERNELS", cap)
    order = list(_build.FEATURES)  # widest first
    expected = next(b for b in _build.available(name)
                    if order.index(b) >= order.index(cap))
    assert _build.build(name).__name__ == _build.module_name(name, expected)


def test_an_unknown_skseq_kernels_is_an_error(monkeypatch):
    monkeypatch.setenv("SKSEQ_KERNELS", "sse9")
    with pytest.raises(ValueError, match="SKSEQ_KERNELS must be one of"):
        _build.build("_fused")


def test_a_named_build_is_that_build():
    module = _build.build("_softmax", "portable")
    assert module.__name__ == "skseq._kernels._softmax"
