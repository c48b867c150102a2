"""HierarchicalIOHMM on the panel's real series: its default (``features=
"auto"``, chosen on held-out training sequences), raw steps and
``features="shape"`` against the flat default, official splits.

Writes ``doc/results/hierarchical_panel.md`` and ``.json``::

    python benchmarks/bench_hierarchical_panel.py [--seeds 3] [--plaid-seeds 1]

PLAID's raw-step hierarchy takes about two minutes a fit on a 2-core
machine, hence its own number of seeds.
"""

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
from _current_default_report import LINK, against_current, current_accuracies
from _ucr import load

from skseq import HierarchicalIOHMM, IOHMMClassifier

OUT = Path(__file__).resolve().parent.parent / "doc" / "results"
DEFAULT = "HierarchicalIOHMM()"
FLAT = "IOHMMClassifier()"
MODELS = {
    FLAT: lambda s: IOHMMClassifier(random_state=s),
    DEFAULT: lambda s: HierarchicalIOHMM(random_state=s),
    'HierarchicalIOHMM(features="raw")':
        lambda s: HierarchicalIOHMM(features="raw", random_state=s),
    'HierarchicalIOHMM(features="shape")':
        lambda s: HierarchicalIOHMM(features="shape", random_state=s),
}
SETS = ("BasicMotions", "ItalyPowerDemand", "ArrowHead", "PLAID")
COST = (
    "**What the choice costs.** The default's fit time against the flat "
    "default's: {}. The shape is fitted on all 5 folds (one restart each); raw "
    "steps, with the final fit's restarts up to 10 (`n_init=\"auto\"` gives "
    "them 5-50 here), on the folds it takes to show they cannot reach the "
    "shape's mean (one to three on these sets). Two limits keep the ranking "
    "cheaper than the final fit's procedure repeated, each measured in one "
    "run against the ranking without it. (1) Of more than 250 distinct "
    "training sequences only a stratified draw of 250 is ranked (PLAID's "
    "537): on PLAID, seed 0, the default's fit fell from 203 s to 73 s (57x "
    "to 20x the flat default's 3.6 s), the same choice and test accuracy. "
    "(2) At most 10 restarts per ranking fit: the raw-step ranking fits were "
    "most of the cost on the small sets (seed 0: 6.7 of 8.1 s on "
    "ItalyPowerDemand, 11.1 of 14.3 s on BasicMotions, 10.2 of 14.8 s on "
    "ArrowHead), each a whole raw-step fit with 50, 25 and 11 restarts; with "
    "10 the default's fit on seeds 0-2 took 7.1-8.2 s on BasicMotions "
    "(15.7-17.5 s before) and 3.0-6.8 s on ItalyPowerDemand (5.7-6.9 s), "
    "and raw steps scored as well on the held-out series (ItalyPowerDemand "
    "0.857 / 0.786 / 0.821 against 0.821 / 0.786 / 0.679; BasicMotions "
    "0.625 / 0.75 / 0.625 against 0.625 / 0.75 / 0.75; ArrowHead the same). "
    "On the 2-sequence problem of the long-memory results, where raw steps "
    "are right and 3 restarts per ranking fit chose the shape on two seeds, "
    "`n_init=\"auto\"` gives 7 restarts, which the limit leaves. Naming "
    "`features` skips the choice. Times from a machine shared with other "
    "jobs: indicative."
)
# Measured apart (seeds 0-9 of the flat default and of the hierarchy on the
# shape representation, ItalyPowerDemand's official split).
ITALY = (
    "**Where the two differ on ItalyPowerDemand (measured).** Both read the same "
    "shape representation with the same penalty (`alpha=\"auto\"` chooses it "
    "from the representation, which both draw alike) and differ only in the "
    "transitions: the flat default's four states against two levels of two. "
    "Over seeds 0-9 the hierarchy classifies 6 test series fewer of 10,290. "
    "Where `alpha=\"auto\"` chose a strong penalty (3.7-8.9, seeds 1 and 4-9) "
    "the two fits end within 1e-4 of each other's training objective and "
    "differ by at most one test series, in both directions (net +1 for the "
    "hierarchy); where it chose the weak one (0.01, seeds 0, 2 and 3) both "
    "fit the 67 training series almost exactly (training objective 0.002-"
    "0.005) and which of the near-separating solutions each reaches decides "
    "1, 1 and 5 test series, all against the hierarchy, with no order between "
    "the training objectives (lower for the hierarchy on seeds 0 and 2, "
    "higher on 3). Not changed: no rule of the fit is at fault that we could "
    "find, and the transitions are what the hierarchy is. Nor can the "
    "training data tell the two apart: stratified 5-fold cross-validation on "
    "the 67 training series (seeds 0-9, each model with the split's seed) "
    "counts the same number of correct held-out series for both on every "
    "seed (63-66), and for the hierarchy started at the flat default's scale "
    "(`init_scale=0.3`) as well, so neither a choice between them on held-out "
    "training series nor that start has ground to move the hierarchy toward "
    "the flat default's solutions. Starting the hierarchy where the flat fit "
    "ends is not possible either: the flat chain's four states are not two "
    "levels of two (a slow level's move cannot depend on the fast level's "
    "value). Nor would a choice among the hierarchy's simpler configurations "
    "help: the same cross-validation (seeds 0-4) also counts the same correct "
    "series for one level of four values (`n_states=(4,)`), the slow level "
    "alone (`(2,)`) and a single state (`(1,)`, a read-out of the shape "
    "representation), so a rule sending ties to the simpler model would "
    "choose one of them; on the test set (seeds 0 / 1 / 2, measured once, "
    "not used to choose) they score 0.9466 / 0.9543 / 0.9572, 0.9456 / "
    "0.9543 / 0.9572 and 0.9456 / 0.9543 / 0.9582 against the flat "
    "default's 0.9495 / 0.9543 / 0.9563 and the hierarchy's 0.9485 / 0.9543 "
    "/ 0.9553: every configuration of the hierarchy is below the flat "
    "default on seed 0, so no choice among them makes it level. Such a "
    "candidate would also cost five more ranking fits: 1.2 / 2.4 / 2.6 s "
    "for one level of four values on ItalyPowerDemand / BasicMotions / "
    "ArrowHead (seed 0), against the default's whole fit of 3.6 / 7.5 / "
    "13.1 s in the same run."
)


def run(seeds, plaid_seeds):
    results = {}
    for name in SETS:
        X_train, y_train, X_test, y_test = load(name)
        for seed in range(plaid_seeds if name == "PLAID" else seeds):
            for label, make in MODELS.items():
                start = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model = make(seed).fit(X_train, y_train)
                fit = time.perf_counter() - start
                row = results.setdefault(name, {}).setdefault(label, [])
                row.append({"seed": seed, "accuracy": model.score(X_test, y_test),
                            "fit_time": fit, "features": model.features_,
                            "features_scores": getattr(model, "features_scores_",
                                                       None)})
                print(name, seed, label, round(row[-1]["accuracy"], 4),
                      round(fit, 2), model.features_, row[-1]["features_scores"],
                      flush=True)
    return results


def _time(rows, label):
    return np.mean([r["fit_time"] for r in rows[label]])


def _italy_now():
    """The prose's note on when its ItalyPowerDemand figures were measured,
    with the current flat default's, seeds 0-2 (from ``real_data.json``)."""
    now = " / ".join(f"{a:.4f}" for a in current_accuracies()["ItalyPowerDemand"][:3])
    return ("These figures were measured with the version of the flat default "
            "that the table's run fitted; the current one's test accuracies on "
            f"seeds 0 / 1 / 2 are {now} ({LINK}).")


def render(results):
    lines = [
        "# The hierarchy on real series",
        "",
        "`HierarchicalIOHMM()` chooses what its networks read from the training "
        "data (`features=\"auto\"`): the flat default's representation "
        "(`\"shape\"` for these whole real-valued series) or raw steps, "
        "whichever scores better on held-out training sequences (5 stratified "
        "folds, each candidate fitted on four with the final fit's restarts, "
        "at most 10, and scored on the fifth; raw steps on ties, and left once "
        "they cannot "
        "reach the shape's mean; of more than 250 distinct sequences, a "
        "stratified draw of 250), then fits "
        "the winner on all of them, with the flat default's penalty "
        "(`alpha=\"auto\"`: chosen from the data on the shape representation, "
        "1e-2 on raw steps). Raw steps are what its slow levels need to "
        "keep a fact over hundreds of steps (the 2-sequence problem of the "
        "long-memory results); on the panel's series, classified whole, raw "
        "steps are far below the flat default and the shape representation "
        "matches it. Official train/test splits; mean (min-max) over the seeds "
        "(`random_state`), fit time in seconds (the default's includes its "
        "held-out fits); one BLAS thread, on a machine shared with other jobs.",
        "",
        "Regenerate with `python benchmarks/bench_hierarchical_panel.py`.",
        "",
        "| data set | seeds | " + " | ".join(MODELS) + " | default's choice |",
        "|---|---|" + "---|" * (len(MODELS) + 1),
    ]
    for name, rows in results.items():
        cells = []
        for label in MODELS:
            acc = [r["accuracy"] for r in rows[label]]
            fit = np.mean([r["fit_time"] for r in rows[label]])
            cells.append(f"{np.mean(acc):.3f} ({min(acc):.3f}-{max(acc):.3f}), "
                         f"{fit:.1f} s")
        chosen = [r["features"] for r in rows[DEFAULT]]
        cells.append(", ".join(f"{c} x{chosen.count(c)}" for c in sorted(set(chosen))))
        n = len(rows["IOHMMClassifier()"])
        lines.append(f"| {name} | {n} | " + " | ".join(cells) + " |")
    pairs = [(f["accuracy"], h["accuracy"]) for rows in results.values()
             for f, h in zip(rows["IOHMMClassifier()"], rows[DEFAULT], strict=True)]
    lines += ["", f"The default's test accuracy is at least the flat default's on "
              f"{sum(h >= f for f, h in pairs)} of {len(pairs)} (data set, seed) "
              f"pairs, equal on {sum(h == f for f, h in pairs)}.", "", against_current(
                  {name: [r["accuracy"] for r in rows[FLAT]]
                   for name, rows in results.items()},
                  "The flat default's test accuracies"), "", COST.format(
                  "; ".join(f"{name} {_time(rows, DEFAULT) / _time(rows, FLAT):.0f}x"
                            for name, rows in results.items())), "",
              f"{ITALY} {_italy_now()}"]
    (OUT / "hierarchical_panel.md").write_text("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--plaid-seeds", type=int, default=1)
    parser.add_argument("--render", action="store_true",
                        help="only rewrite the page from hierarchical_panel.json")
    args = parser.parse_args()
    saved = OUT / "hierarchical_panel.json"
    if args.render:
        results = json.loads(saved.read_text())
    else:
        results = run(args.seeds, args.plaid_seeds)
        saved.write_text(json.dumps(results, indent=1))
    render(results)


if __name__ == "__main__":
    main()
