"""The current default's test accuracy on the panel, for other pages' prose.

Pages whose own runs fitted the default classifier (``IOHMMClassifier()``)
say whether their figures are the current default's: ``against_current``
compares them, seed by seed as printed (three decimals), with the rows of
``real_data.json``, the Results page that holds the latest refit of the
default.
"""

import json

import numpy as np
from _real_data_report import DEFAULT
from _report import RESULTS

LINK = "[Real data](real_data.md)"


def current_accuracies():
    """``{set: [test accuracy of seed 0, 1, ...]}`` of the default in
    ``real_data.json`` (the panel's four sets)."""
    saved = json.loads((RESULTS / "real_data.json").read_text(encoding="utf-8"))
    return {name: [run["acc"] for run in res[DEFAULT]]
            for name, res in saved["results"].items() if DEFAULT in res}


def _seeds(n):
    return "seed 0" if n == 1 else f"mean over seeds 0-{n - 1}"


def against_current(measured, what="The default's test accuracies"):
    """A sentence on whether ``measured`` are the current default's figures.

    Parameters
    ----------
    measured : dict
        ``{set: [test accuracy of seed 0, 1, ...]}`` as a page's run measured
        them (a prefix of the seeds is enough).
    what : str, default="The default's test accuracies"
        What the sentence calls them.

    Returns
    -------
    str
        That they equal the current default's seed by seed, or that they come
        from the page's own run of an earlier version of the default, with the
        sets that differ and where the current figures are.
    """
    current = current_accuracies()
    differ, seeds = [], set()
    for name, values in measured.items():
        now = current.get(name, [])[:len(values)]
        if len(now) < len(values) or np.array_equal(np.round(values, 3),
                                                    np.round(now, 3)):
            continue  # the same, or nothing to compare with
        differ.append(f"{name} ({np.mean(values):.3f} here, {np.mean(now):.3f} "
                      "there)")
        seeds.add(len(values))
    if not differ:
        return (f"{what} are those of the current default on {LINK}, seed by "
                "seed.")
    over = (_seeds(seeds.pop()) if len(seeds) == 1
            else "each set's mean over the seeds it ran")
    return (f"{what} come from this page's own run, of an earlier version of the "
            f"default; the current default's test accuracies are on {LINK}. The "
            f"two differ on " + ", ".join(differ) + f", {over}.")
