"""Early classification: the class of a series from its first 20%, 30%, 50%.

On the panel's sets (official splits), every test series is cut to its first
``ceil(f T)`` steps for f in 20%, 30%, 50% (and 100%), and each model,
fitted once, classifies the prefixes:

- ``IOHMMClassifier(n_prefixes=FRACTIONS)``, the documented recipe: the
  training series' prefixes at the fractions scored, each labelled with its
  series' class (the same training prefixes MiniRocket gets);
- ``IOHMMClassifier(n_prefixes=5)``: the prefixes at 1/5 .. 5/5 of every
  training series' length (the earlier recipe, 30% between its lengths);
- ``HybridHMMClassifier()`` fitted with every step of a training series
  labelled with its class; a prefix's class is its causal prediction at the
  prefix's last step (the filtered P(class | first t steps));
- MiniRocket (sktime, with its ridge classifier) fitted once on the training
  series' prefixes at 20%, 30%, 50% and 100%, pooled.

Seeds 0..n_seeds-1 (default 3) are the models' random_state.

    python benchmarks/bench_early_classification.py [--seeds 2] [--datasets ...]
    python benchmarks/bench_early_classification.py --quick
    python benchmarks/bench_early_classification.py --render
"""

import argparse
import json
import time
import warnings

import _ucr
import numpy as np
from _models import MiniRocketClassifier, warm_up_minirocket
from _report import RESULTS, table, versions, write
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from skseq import HybridHMMClassifier, IOHMMClassifier

JSON = RESULTS / "early_classification.json"
FRACTIONS = (0.2, 0.3, 0.5, 1.0)


def prefixes(X, fraction):
    return [x[: int(np.ceil(fraction * len(x)))] for x in X]


def run_one(name, seed):
    X_train, y_train, X_test, y_test = _ucr.load(name)
    out = {"dataset": name, "seed": seed, "models": {}}

    def record(key, fit_time, predict):
        acc = {str(f): float(np.mean(predict(prefixes(X_test, f)) == y_test))
               for f in FRACTIONS}
        out["models"][key] = {"fit_time": fit_time, "accuracy": acc}
        print(name, seed, key, out["models"][key], flush=True)

    for key, n_prefixes in (("iohmm_fractions", list(FRACTIONS)),
                            ("iohmm_prefixes", 5)):
        model = IOHMMClassifier(n_prefixes=n_prefixes, random_state=seed)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X_train, y_train)
        record(key, time.perf_counter() - t0, model.predict)

    hybrid = HybridHMMClassifier(random_state=seed)
    t0 = time.perf_counter()
    hybrid.fit(X_train, [np.repeat(c, len(x)) for x, c in zip(X_train, y_train,
                                                                 strict=True)])
    record("hybrid", time.perf_counter() - t0,
           lambda X: np.array([p[-1] for p in hybrid.predict(X)]))

    rocket = MiniRocketClassifier(random_state=seed)
    train = [p for f in FRACTIONS for p in prefixes(X_train, f)]
    t0 = time.perf_counter()
    rocket.fit(train, np.tile(y_train, len(FRACTIONS)))
    record("minirocket", time.perf_counter() - t0, rocket.predict)
    return out


MODELS = [("iohmm_fractions", "IOHMMClassifier(n_prefixes=[0.2, 0.3, 0.5, 1.0])"),
          ("iohmm_prefixes", "IOHMMClassifier(n_prefixes=5)"),
          ("hybrid", "HybridHMMClassifier(), every step labelled"),
          ("minirocket", "MiniRocket on pooled training prefixes")]


def report(results):
    lines = ["# Early classification", "",
             "How accurately is a series classified from its beginning only? Two "
             "skseq recipes against MiniRocket fitted once on the training "
             "series' prefixes.", "",
             "Regenerate with `python benchmarks/bench_early_classification.py` "
             "(`--render` rewrites this page from `early_classification.json`).",
             "",
             "**In short.** MiniRocket on pooled prefixes is the most accurate at "
             "30% and 50% on every set but BasicMotions, where all three are at "
             "1.00 from 30% on. At 20% the hybrid HMM matches it on "
             "ItalyPowerDemand and PLAID (0.665 against 0.663, 0.857 against "
             "0.853) and trails it on ArrowHead and BasicMotions. "
             "`IOHMMClassifier(n_prefixes=5)` is the better skseq recipe on "
             "whole series, the hybrid HMM at 30% of every set but "
             "BasicMotions (ArrowHead: 0.583 against 0.451). **Limits.** PLAID "
             "was run with one "
             "seed (the others with two); prefix lengths between those seen in "
             "training (30% against the 20% and 40% of `n_prefixes=5`) are "
             "where the IOHMM recipe is weakest.", "",
             "Test accuracy on the first 20%, 30%, 50% and 100% of every test "
             "series (official splits), each model fitted once; mean (min-max) "
             "over the seeds (the models' random_state). MiniRocket is fitted on "
             "the training series' prefixes at the same fractions, pooled.", "",
             f"Environment: {versions('sktime')}; one thread per model; the "
             "machine was shared with other jobs.", ""]
    for name in dict.fromkeys(r["dataset"] for r in results):
        runs = [r for r in results if r["dataset"] == name]
        rows = []
        for key, label in MODELS:
            cells = []
            for f in FRACTIONS:
                vals = [r["models"][key]["accuracy"][str(f)] for r in runs]
                cells.append(f"{np.mean(vals):.3f} ({min(vals):.3f}-{max(vals):.3f})")
            fit = np.mean([r["models"][key]["fit_time"] for r in runs])
            rows.append([label, *cells, f"{fit:.1f}"])
        lines += [f"## {name}", "", f"Seeds {[r['seed'] for r in runs]}.", "",
                  table(["model", "20%", "30%", "50%", "100%", "fit time (s)"], rows),
                  ""]
    write("early_classification.md", "\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--datasets", nargs="+",
                        default=["ItalyPowerDemand", "ArrowHead", "BasicMotions",
                                 "PLAID"])
    parser.add_argument("--render", action="store_true")
    parser.add_argument("--quick", action="store_true",
                        help="one seed of ItalyPowerDemand only (a few minutes)")
    args = parser.parse_args()
    if args.quick:
        args.seeds, args.datasets = 1, ["ItalyPowerDemand"]
    if not args.render:
        results = []
        with threadpool_limits(1):
            warm_up_minirocket()
            for name in args.datasets:
                for seed in range(args.seeds):
                    results.append(run_one(name, seed))
        # keep the stored results of the data sets not run this time
        kept = ([r for r in json.loads(JSON.read_text(encoding="utf-8"))
                 if r["dataset"] not in args.datasets] if JSON.exists() else [])
        JSON.write_text(json.dumps(kept + results, indent=1), encoding="utf-8")
    report(json.loads(JSON.read_text(encoding="utf-8")))


if __name__ == "__main__":
    main()
