"""``skseq.show_versions()``: what a bug report needs to know about this
installation (scikit-learn's ``sklearn.show_versions`` for skseq)."""

import importlib.metadata
import os
import platform
import sys

from ._kernels import _build

# Required at run time (scikit-learn brings joblib and threadpoolctl), then
# the optional extras the package itself imports.
DEPENDENCIES = ("numpy", "scipy", "scikit-learn", "joblib", "threadpoolctl")
OPTIONAL = ("pandas", "matplotlib", "dask", "distributed")


def _version(distribution):
    """The installed version of ``distribution``, or None."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _system():
    import skseq

    return {"python": sys.version.replace("\n", " "),
            "executable": sys.executable,
            "machine": platform.platform(),
            "skseq": f"{skseq.__version__} ({os.path.dirname(skseq.__file__)})"}


def _kernels():
    """Each compiled module's build in use here, and the builds installed
    that this CPU runs."""
    return {name: (_build.variant_in_use(name), _build.available(name))
            for name in _build.BUILDS}


def _thread_pools():
    """The BLAS and OpenMP pools loaded (threadpoolctl's view, once numpy and
    scipy's linear algebra are imported)."""
    import scipy.linalg  # noqa: F401  (loads its BLAS)
    from threadpoolctl import threadpool_info

    return [f"{pool['user_api']}: {pool['internal_api']}"
            + (f" {pool['version']}" if pool.get("version") else "")
            + f", {pool['num_threads']} threads"
            for pool in threadpool_info()]


def _section(title, rows):
    width = max(map(len, rows), default=0)
    lines = [f"\n{title}:"]
    lines += [f"{name:>{width + 4}}: {value}" for name, value in rows.items()]
    return lines


def show_versions():
    """Print the versions and builds that matter to a bug report.

    Python and the platform, skseq (and where it is imported from), its
    dependencies and optional dependencies (``not installed`` where absent),
    the build of each compiled kernel in use on this CPU (widest first among
    those installed; ``SKSEQ_KERNELS`` caps it), and the BLAS/OpenMP thread
    pools. Paste its output into a bug report.

    Examples
    --------
    >>> import skseq
    >>> skseq.show_versions()  # doctest: +SKIP
    <BLANKLINE>
    System:
            python: 3.11.7 ...
    """
    lines = _section("System", _system())
    lines += _section("Python dependencies", {
        name: _version(name) or "not installed" for name in DEPENDENCIES})
    lines += _section("Optional dependencies", {
        name: _version(name) or "not installed" for name in OPTIONAL})
    kernels = {name: f"{used} (installed for this CPU: {', '.join(builds)})"
               for name, (used, builds) in _kernels().items()}
    kernels["SKSEQ_KERNELS"] = os.environ.get("SKSEQ_KERNELS") or "unset"
    lines += _section("Compiled kernels (build in use)", kernels)
    lines += ["\nThread pools:"] + [f"    {pool}" for pool in _thread_pools()]
    print("\n".join(lines))
