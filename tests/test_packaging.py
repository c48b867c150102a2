"""What an installation from a source distribution or a wheel holds, read from
the packaging rules (MANIFEST.in and pyproject.toml) against the source tree,
and what ``import skseq`` loads."""

import fnmatch
import runpy
import subprocess
import sys
import types
from pathlib import Path

import pytest
from setuptools.command.egg_info import FileList
from setuptools.config.pyprojecttoml import read_configuration

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "skseq" / "_kernels"
DATA = ROOT / "skseq" / "datasets" / "data"

# Without a source tree (the tests copied beside an installed skseq) there are
# no rules to read; the suite's other tests then exercise the installation.
needs_source = pytest.mark.skipif(
    not (ROOT / "pyproject.toml").is_file() or not KERNELS.is_dir(),
    reason="the packaging rules are read from a source tree")


def _sdist_files(monkeypatch, extra=()):
    """The files MANIFEST.in puts in a source distribution, as setuptools reads
    it, after ``extra`` (files setuptools adds on its own, such as the C files
    Cython writes from the kernels)."""
    monkeypatch.chdir(ROOT)
    files = FileList()
    files.files.extend(extra)  # FileList.extend keeps only existing files
    manifest = ROOT / "MANIFEST.in"
    rules = manifest.read_text().splitlines() if manifest.is_file() else []
    for line in rules:
        if line.strip() and not line.lstrip().startswith("#"):
            files.process_template_line(line)
    return {Path(f).as_posix() for f in files.files}


def _relative(paths):
    return sorted(p.relative_to(ROOT).as_posix() for p in paths)


@needs_source
def test_the_source_distribution_holds_kernel_sources_data_and_license(
        monkeypatch):
    needed = _relative([*KERNELS.glob("*.pyx"), *KERNELS.glob("*.pxd"),
                        *(p for p in DATA.iterdir() if p.is_file())])
    needed += ["LICENSE", "README.md", "tests/conftest.py"]
    assert any(name.endswith(".pxd") for name in needed)
    missing = [name for name in needed if name not in _sdist_files(monkeypatch)]
    assert missing == []


@needs_source
def test_the_source_distribution_leaves_out_generated_c(monkeypatch):
    generated = [p.with_suffix(".c").relative_to(ROOT).as_posix()
                 for p in KERNELS.glob("*.pyx")]
    assert generated
    assert _sdist_files(monkeypatch, generated).isdisjoint(generated)


@needs_source
def test_the_wheel_holds_every_data_file_and_no_kernel_source():
    config = read_configuration(ROOT / "pyproject.toml")["tool"]["setuptools"]
    data = config.get("package-data", {}).get("skseq.datasets", [])
    files = [f"data/{p.name}" for p in DATA.iterdir() if p.is_file()]
    assert [f for f in files if not any(fnmatch.fnmatch(f, g) for g in data)] == []
    left_out = config.get("exclude-package-data", {}).get("skseq._kernels", [])
    for name in ("_fused.pyx", "_loops.pxd", "_fused.c"):
        assert any(fnmatch.fnmatch(name, g) for g in left_out), name


def _kernel_extensions(monkeypatch):
    """The extensions setup.py declares, read by running it with setuptools'
    ``setup`` and Cython's ``cythonize`` replaced (nothing is generated or
    built)."""
    import setuptools

    # A stand-in for Cython, which an installed test environment need not
    # hold (pip builds the kernels in an isolated environment).
    cython, build = types.ModuleType("Cython"), types.ModuleType("Cython.Build")
    build.cythonize = lambda ext, **kw: ext
    cython.Build = build
    declared = {}
    monkeypatch.chdir(ROOT)
    monkeypatch.setitem(sys.modules, "Cython", cython)
    monkeypatch.setitem(sys.modules, "Cython.Build", build)
    monkeypatch.setattr(setuptools, "setup", lambda **kw: declared.update(kw))
    runpy.run_path(str(ROOT / "setup.py"))
    return declared["ext_modules"]


@needs_source
def test_the_kernels_are_built_without_debug_information(monkeypatch):
    extensions = _kernel_extensions(monkeypatch)
    assert {ext.name for ext in extensions} >= {
        f"skseq._kernels.{p.stem}" for p in KERNELS.glob("*.pyx")}
    for ext in extensions:
        # The compiler's last -g option wins; these follow the interpreter's
        # own flags, which often hold -g.
        debug = [arg for arg in ext.extra_compile_args if arg.startswith("-g")]
        assert debug[-1:] == ["-g0"], (ext.name, ext.extra_compile_args)
        assert "-O3" in ext.extra_compile_args, ext.name


# Modules that skseq needs only in the functions that use them.
LAZY = ["matplotlib", "pandas", "dask", "distributed", "sklearn.ensemble",
        "sklearn.linear_model", "sklearn.metrics", "skseq.plotting",
        "skseq.datasets"]

_IMPORT = """
import sys
import sklearn.base
before = set(sys.modules)
import skseq
print(skseq.__file__)
print(*sorted(set(sys.modules) - before))
"""


def test_import_skseq_loads_no_optional_or_slow_module():
    import skseq

    out = subprocess.run([sys.executable, "-c", _IMPORT], check=True, timeout=60,
                         capture_output=True, text=True).stdout.splitlines()
    assert out[0] == skseq.__file__
    new = out[1].split()
    assert "skseq.classifier" in new
    loaded = [m for m in LAZY if any(n == m or n.startswith(m + ".") for n in new)]
    assert loaded == []
