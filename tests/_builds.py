"""Running a test module on every build of a compiled module that this CPU
runs (portable, and AVX2 + FMA or AVX-512 where they were built)."""

import pytest

from skseq._kernels._build import available, build


def kernel_build_fixture(name, owner):
    """An autouse fixture that runs every test of a module once per build of
    the compiled module ``skseq._kernels.<name>``, with ``owner.<name>`` (the
    wrapper's reference to the compiled module) pointing at that build."""

    @pytest.fixture(autouse=True, params=available(name))
    def kernel_build(request, monkeypatch):
        module = build(name, request.param)
        monkeypatch.setattr(owner, name, module)
        return request.param

    return kernel_build
