"""Shared helpers for the benchmark scripts: output folder, versions, tables."""

import json
import platform
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parents[1] / "doc" / "results"


def versions(*packages):
    """One line naming Python and the given packages' versions."""
    parts = [f"Python {platform.python_version()}"]
    for name in ("skseq", "numpy", "scipy", "scikit-learn", *packages):
        try:
            parts.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            parts.append(f"{name} (not installed)")
    return ", ".join(parts) + f"; {platform.machine()}, 2-core machine"


def mean_range(values, fmt="{:.3f}"):
    """``mean (lowest-highest)`` of the values, or the mean alone when they
    are all equal."""
    values = np.asarray(values, dtype=float)
    if values.min() == values.max():
        return fmt.format(values.mean())
    return (f"{fmt.format(values.mean())} ({fmt.format(values.min())}-"
            f"{fmt.format(values.max())})")


def table(header, rows):
    """A Markdown table from a header and rows of already formatted cells."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def write(name, text):
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / name
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")
    return path


def run_or_render(name, run, render):
    """The raw results of a benchmark: ``run()`` saved to ``name`` (JSON, next to
    the pages), or with ``render`` those saved by an earlier run."""
    path = RESULTS / name
    if render:
        return json.loads(path.read_text())
    data = run()
    RESULTS.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1))
    return data
