"""Running a test module on every build of a compiled module (portable, and
AVX2 + FMA where it was built)."""

import importlib

import pytest

from skseq._compiled import build


def kernel_build_fixture(name, owner):
    """An autouse fixture that runs every test of a module once per build of
    ``skseq.<name>``, with ``owner.<name>`` (the wrapper's reference to the
    compiled module) pointing at that build."""
    builds = ["portable"]
    if importlib.util.find_spec(f"skseq.{name}_avx2") is not None:
        builds.append("avx2")

    @pytest.fixture(autouse=True, params=builds)
    def kernel_build(request, monkeypatch):
        module = build(name, request.param)
        assert module.__name__.endswith("_avx2") == (request.param == "avx2")
        monkeypatch.setattr(owner, name, module)
        return request.param

    return kernel_build
