"""Fit time against data size: the default classifier and MiniRocket on PLAID.

PLAID (electrical appliances' current, 11 classes, 537 training series of
100-1,344 steps) is the largest set of the real-data panel. Each size takes the
first k training series of a random permutation (per seed), fits
``IOHMMClassifier(random_state=seed)`` (the defaults as shipped) and MiniRocket
with its ridge classifier, one after the other at every size, and scores both
on the whole official test split. Timings are wall-clock ``fit`` times of one
run each, with BLAS/OpenMP on one thread; MiniRocket's numba kernels are
compiled before any timing.

    PYTHONPATH=$PWD python benchmarks/bench_scaling.py [--seeds 3] [--quick]
    PYTHONPATH=$PWD python benchmarks/bench_scaling.py --render

The raw results go to ``doc/results/scaling.json``; ``--render`` rewrites the
page and figure from it.
"""

import argparse
import json
import time

import numpy as np
from _models import MiniRocketClassifier, warm_up_minirocket
from _report import RESULTS, table, versions, write
from _ucr import load
from threadpoolctl import threadpool_limits

from skseq import IOHMMClassifier

SIZES = (67, 134, 268, 537)
MODELS = {
    "IOHMMClassifier() (default)": lambda seed: IOHMMClassifier(random_state=seed),
    "MiniRocket + ridge (sktime)": lambda seed: MiniRocketClassifier(random_state=seed),
}


def run(seeds, sizes):
    X_train, y_train, X_test, y_test = load("PLAID")
    warm_up_minirocket()
    rows = []
    for seed in range(seeds):
        order = np.random.default_rng(seed).permutation(len(X_train))
        for k in sizes:
            take = order[:k]
            X, y = [X_train[i] for i in take], np.asarray(y_train)[take]
            steps = int(sum(len(x) for x in X))
            for name, make in MODELS.items():
                model = make(seed)
                start = time.perf_counter()
                model.fit(X, y)
                fit_s = time.perf_counter() - start
                accuracy = float(np.mean(model.predict(X_test) == np.asarray(y_test)))
                rows.append({"seed": seed, "sequences": k, "steps": steps,
                             "model": name, "fit_s": fit_s, "accuracy": accuracy})
                print(f"seed {seed}  {k:4d} series  {steps:7d} steps  {name:30s} "
                      f"fit {fit_s:6.2f} s  test accuracy {accuracy:.3f}", flush=True)
    return rows


def _by(rows, model, k, key):
    return [r[key] for r in rows if r["model"] == model and r["sequences"] == k]


def _cell(values, fmt):
    return f"{fmt.format(np.mean(values))} ({fmt.format(min(values))}-" \
           f"{fmt.format(max(values))})"


ABOUT = """**What is measured.** How the fit time of the default classifier grows
with the amount of training data, against MiniRocket with its ridge classifier
(the fastest accurate method for series classification), on PLAID, the largest
set of the real-data panel: the first 67, 134, 268 and all 537 training series
of a random permutation per seed (100-1,344 steps each), and the test accuracy
of each fit on the whole official test split.

**Regenerate** with `python benchmarks/bench_scaling.py` (a few minutes), or
only this page and its figure from the saved results with `--render`.

**Limits.** Wall-clock times of one fit each, on a 2-core machine shared with
other work, with BLAS and OpenMP on one thread: read the ratio between the two
models at each size, not the seconds; the ratio itself moves between runs.
Only one data set: on the small sets of the panel the default's fixed costs
dominate (see the real-data page)."""


def markdown(rows, args, elapsed):
    sizes = sorted({r["sequences"] for r in rows})
    seeds = sorted({r["seed"] for r in rows})
    default, peer = list(MODELS)
    out = []
    for k in sizes:
        steps = _by(rows, default, k, "steps")
        ratio = [a / b for a, b in zip(_by(rows, default, k, "fit_s"),
                                       _by(rows, peer, k, "fit_s"), strict=True)]
        out.append([k, f"{int(np.mean(steps)):,}",
                    _cell(_by(rows, default, k, "fit_s"), "{:.2f}"),
                    _cell(_by(rows, peer, k, "fit_s"), "{:.2f}"),
                    _cell(ratio, "{:.1f}"),
                    _cell(_by(rows, default, k, "accuracy"), "{:.3f}"),
                    _cell(_by(rows, peer, k, "accuracy"), "{:.3f}")])
    first, last = sizes[0], sizes[-1]
    grow = {m: np.mean(_by(rows, m, last, "fit_s"))
            / np.mean(_by(rows, m, first, "fit_s")) for m in MODELS}
    ratio = {k: np.mean([a / b for a, b in zip(_by(rows, default, k, "fit_s"),
                                               _by(rows, peer, k, "fit_s"),
                                               strict=True)]) for k in sizes}
    steps_grow = np.mean(_by(rows, default, last, "steps")) / np.mean(
        _by(rows, default, first, "steps"))
    header = ["training series", "training steps (mean)", "default fit (s)",
              "MiniRocket fit (s)", "default / MiniRocket", "default test accuracy",
              "MiniRocket test accuracy"]
    return f"""# Fit time against data size

{ABOUT}

**In short.** From {first} to {last} training series ({steps_grow:.1f}x the
steps) the default's fit time grew {grow[default]:.1f}x and MiniRocket's
{grow[peer]:.1f}x, so the default's fit went from {ratio[first]:.1f}x to
{ratio[last]:.1f}x MiniRocket's: its fixed costs weigh less as data grows.
Both gain accuracy with data at a similar rate, the default a little below
MiniRocket on average at every size.

Generated by `python benchmarks/bench_scaling.py{' --quick' if args.get('quick')
else ''}` in {elapsed / 60:.1f} min; seeds {seeds[0]}-{seeds[-1]} (mean, and
lowest-highest in brackets); {versions('sktime', 'numba')}.

{table(header, out)}

![fit time against training steps](scaling.png)
"""


def figure(rows):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted({r["sequences"] for r in rows})
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    for name, style in zip(MODELS, ["o-", "s--"], strict=True):
        steps = [np.mean(_by(rows, name, k, "steps")) for k in sizes]
        for ax, key in zip(axes, ["fit_s", "accuracy"], strict=True):
            values = [_by(rows, name, k, key) for k in sizes]
            mean = [np.mean(v) for v in values]
            ax.plot(steps, mean, style, label=name)
            ax.fill_between(steps, [min(v) for v in values], [max(v) for v in values],
                            alpha=0.2)
    steps = [np.mean([r["steps"] for r in rows if r["sequences"] == k])
             for k in sizes]
    axes[0].set_yscale("log")
    axes[0].set_ylabel("fit time (s)")
    axes[1].set_ylabel("test accuracy")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xticks(steps, [f"{s / 1000:.0f}k" for s in steps])
        ax.minorticks_off()
        ax.set_xlabel("training steps (PLAID)")
    axes[0].legend(fontsize=8)
    fig.suptitle("PLAID: fit time and test accuracy against training data "
                 "(bands: lowest-highest over seeds)", fontsize=10)
    fig.tight_layout()
    fig.savefig(RESULTS / "scaling.png", dpi=100)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    for flag, text in [("--quick", "one seed, two sizes (a smoke test, not written)"),
                       ("--render", "only rewrite the page and figure from the JSON")]:
        parser.add_argument(flag, action="store_true", help=text)
    args = parser.parse_args()
    raw = RESULTS / "scaling.json"
    if not args.render:
        start = time.perf_counter()
        with threadpool_limits(limits=1):
            rows = run(1 if args.quick else args.seeds,
                       SIZES[:2] if args.quick else SIZES)
        if args.quick:
            return
        raw.write_text(json.dumps({"args": {"seeds": args.seeds, "quick": False},
                                   "elapsed": time.perf_counter() - start,
                                   "rows": rows}, indent=1) + "\n")
    saved = json.loads(raw.read_text())
    write("scaling.md", markdown(saved["rows"], saved["args"], saved["elapsed"]))
    figure(saved["rows"])


if __name__ == "__main__":
    main()
