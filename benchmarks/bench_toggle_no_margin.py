"""Toggled regimes without a margin: what limits the prediction from inputs alone.

``make_toggled_regimes(trigger_noise=0.5)``: events (trigger in [0.5, 1.5]) and
quiet steps (trigger in [-0.5, 0.5]) touch, so an event can only be told from a
quiet step by a threshold at 0.5 exactly. 60 training and 60 test sequences of
50-100 steps, five data seeds. For each fit: the R^2 of ``predict(X)`` (from the
inputs alone) and of ``predict(X, y)`` (one step ahead, filtering on the observed
outputs), both as a fraction of the R^2 of the true regime's law.

Fits: the default ``IOHMMRegressor(n_states=2)``; ``alpha=0`` (no prior on the
transition weights); ``transition_l1=1e-3`` (an L1 prior on the transition
weights instead of the L2 one) run to the optimum; ``alpha=0`` run to the
optimum; and the last with the transition weights of the law input set to 0
after the fit (the threshold then depends on the trigger alone): a diagnostic,
not a model a fit would find.

    PYTHONPATH=$PWD python benchmarks/bench_toggle_no_margin.py [--seeds 5]
    PYTHONPATH=$PWD python benchmarks/bench_toggle_no_margin.py --render

Writes ``doc/results/toggle_no_margin.md`` and ``toggle_no_margin.json``.
"""

import argparse
import time
import warnings

import numpy as np
from _report import run_or_render, table, versions, write
from sklearn.metrics import r2_score

from skseq import IOHMMRegressor
from skseq.datasets import make_toggled_regimes

N = 60
FITS = {
    "default": {},
    "alpha=0": {"alpha": 0.0},
    "transition_l1=1e-3, tol=1e-8, max_iter=1000": {
        "transition_l1": 1e-3, "tol": 1e-8, "max_iter": 1000},
    "alpha=0, tol=1e-8, max_iter=1000": {"alpha": 0.0, "tol": 1e-8, "max_iter": 1000},
}
ZEROED = "the last, law-input transition weights set to 0"


def trial(seed):
    X, y, regimes = make_toggled_regimes(2 * N, random_state=seed,
                                         return_regimes=True, trigger_noise=0.5)
    train, test = slice(None, N), slice(N, None)
    y_test = np.concatenate(y[test])
    oracle = np.concatenate([(1.0 - 2.0 * r) * (2.0 * x[:, 0] + 1.0)
                             for x, r in zip(X[test], regimes[test], strict=True)])
    ceiling = r2_score(y_test, oracle)

    def scores(model):
        given_y = np.concatenate(model.predict(X[test], y[test]))
        return {"inputs": model.score(X[test], y[test]) / ceiling,
                "given_y": r2_score(y_test, given_y) / ceiling}

    out = {"ceiling": ceiling}
    for name, params in FITS.items():
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = IOHMMRegressor(n_states=2, random_state=seed, **params).fit(
                X[train], y[train])
        out[name] = {**scores(model), "seconds": time.perf_counter() - start,
                     "max_weight": float(np.abs(model.transition_coef_).max())}
    model.transition_coef_ = model.transition_coef_.copy()
    model.transition_coef_[0] = 0.0  # feature 0 is the law input
    out[ZEROED] = scores(model)
    return out


def markdown(rows, seeds, elapsed):
    lines = [
        "# Toggled regimes without a margin",
        "",
        "**What is measured.** Two regression regimes flipped by events in an "
        "input, with no margin between events and quiet steps: how well "
        "`IOHMMRegressor` predicts from the inputs alone and one step ahead "
        "given the observed outputs, against the true regime's law, for the "
        "default fit and for fits with other priors on the transition weights.",
        "",
        "**In short.** Given the observed outputs every fit is within a few "
        "percent of the true regime's law. From the inputs alone the default "
        "fit reaches 65-80% of it; an L1 prior on the transition weights "
        "(`transition_l1`), run to the optimum, 91-98%, still short of 95% in "
        "three seeds of five.",
        "",
        "**Limits.** One synthetic problem, 60 training sequences; no default "
        "was changed on it.",
        "",
        "**Regenerate.** `python benchmarks/bench_toggle_no_margin.py` "
        "(`--render` rewrites this page from `toggle_no_margin.json`). "
        + versions()
        + f"; run time {elapsed:.0f} s, on a machine shared with other jobs.",
        "",
        "`make_toggled_regimes(120, trigger_noise=0.5, random_state=seed)`: 60 "
        "training and 60 test sequences; R^2 as a fraction of the R^2 of the true "
        "regime's law (the ceiling), per seed " + ", ".join(map(str, seeds)) + ".",
        "",
    ]
    body = []
    for name in [*FITS, ZEROED]:
        inputs = [r[name]["inputs"] for r in rows]
        given = [r[name]["given_y"] for r in rows]
        body.append([name, " / ".join(f"{v:.3f}" for v in inputs),
                     sum(v >= 0.95 for v in inputs),
                     " / ".join(f"{v:.3f}" for v in given),
                     sum(v >= 0.99 for v in given)])
    lines.append(table(["fit", "from inputs alone", "seeds >= 0.95",
                        "one step ahead given y", "seeds >= 0.99"], body))
    lines += ["", "Largest transition weight per seed: " + "; ".join(
        f"{name}: " + " / ".join(f"{r[name]['max_weight']:.0f}" for r in rows)
        for name in FITS) + ".", "",
        "Without the prior the fit's threshold is steep (weights in the thousands "
        "at the optimum), yet from the inputs alone it misses events: a missed "
        "event costs the training likelihood little, because the observed "
        "outputs reveal it one step later. Part of the misses come from the "
        "transitions' weight on the law input, which moves the threshold with "
        "every value of that input: with it set to 0 the same fits reach 0.95 "
        "of the ceiling in more seeds, though not in all (the rest is not "
        "diagnosed here). The L1 prior of `transition_l1` takes that weight "
        "toward 0 and allows the steep threshold; it needs the tight `tol`, "
        "its pull on the weight being small, and its fits differ between "
        "solutions of nearly the same objective. Filtering on the observed "
        "outputs, the one-step forecasts are within 2.5% of the ceiling in "
        "every fit.", ""]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--render", action="store_true",
                        help="only rewrite the page from toggle_no_margin.json")
    args = parser.parse_args()

    def run():
        seeds = list(range(args.seeds))
        start = time.perf_counter()
        rows = [trial(seed) for seed in seeds]
        return {"seeds": seeds, "seconds": time.perf_counter() - start,
                "rows": rows}

    saved = run_or_render("toggle_no_margin.json", run, args.render)
    write("toggle_no_margin.md",
          markdown(saved["rows"], saved["seeds"], saved["seconds"]))


if __name__ == "__main__":
    main()
