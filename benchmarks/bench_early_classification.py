"""Early classification: the class of a series from its first 20%, 30%, 50%.

On the panel's sets (official splits), every test series is cut to its first
``ceil(f T)`` steps for f in 20%, 30%, 50% (and 100%), and each model,
fitted once, classifies the prefixes:

- ``IOHMMClassifier(features="shape_centred", n_prefixes=FRACTIONS)``, the
  documented recipe: trained on the training series' prefixes at the
  fractions scored (the same prefixes MiniRocket gets), with MiniRocket's
  centred kernels;
- the same with the default, causal shape representation;
- ``IOHMMClassifier(n_prefixes=5)``: the prefixes at 1/5 .. 5/5 of every
  training series' length (the earlier recipe; 30% falls between them);
- ``HybridHMMClassifier()`` fitted with every step of a training series
  labelled with its class; a prefix's class is its causal prediction at the
  prefix's last step (the filtered P(class | first t steps));
- MiniRocket (sktime, with its ridge classifier) fitted once on the training
  series' prefixes at 20%, 30%, 50% and 100%, pooled.

Seeds 0..n_seeds-1 (default 3) are the models' random_state. ``--tuning``
scores the skseq recipes and MiniRocket on halves of the training series
only (stratified, split s for seed s; the other half scored), where the
recipe was chosen; it writes ``early_classification_tuning.json``. It also
fits the recipe with the candidates ``CANDIDATES`` (options of its
representation or of the estimator) and applies, round by round
(``ROUNDS``), the rule fixed before they were measured (``round_outcome``);
the adopted one, if any, is ``RECIPE``, fitted on the test splits beside the
former recipe. The candidates, the rounds and the page's rendering are in
``_early_classification_report.py``.

    python benchmarks/bench_early_classification.py [--seeds 3] [--datasets ...]
    python benchmarks/bench_early_classification.py --tuning --seeds 8 \
        --datasets ItalyPowerDemand ArrowHead BasicMotions
    python benchmarks/bench_early_classification.py --tuning --seeds 2 \
        --datasets PLAID
    python benchmarks/bench_early_classification.py --quick
    python benchmarks/bench_early_classification.py --render
"""

import argparse
import json
import time
import warnings

import _ucr
import numpy as np
from _early_classification_report import (
    CANDIDATES,
    FRACTIONS,
    JSON,
    RECIPE,
    TUNING_JSON,
    report,
)
from _models import MiniRocketClassifier, warm_up_minirocket
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedShuffleSplit
from threadpoolctl import threadpool_limits

from skseq import HybridHMMClassifier, IOHMMClassifier
from skseq._data.representation import CentredShapeFeatures


def prefixes(X, fraction):
    return [x[: int(np.ceil(fraction * len(x)))] for x in X]


def split(name, seed, tuning):
    """The official split, or (tuning) halves of the training series."""
    X_train, y_train, X_test, y_test = _ucr.load(name)
    if not tuning:
        return X_train, y_train, X_test, y_test
    y = np.asarray(y_train)
    halves = StratifiedShuffleSplit(seed + 1, test_size=0.5, random_state=0)
    fit, score = list(halves.split(np.zeros(len(y)), y))[seed]
    return ([X_train[i] for i in fit], y[fit], [X_train[i] for i in score],
            y[score])


def centred(options):
    """``IOHMMClassifier`` whose ``features="shape_centred"`` is
    ``CentredShapeFeatures(**options)``: the same fit as passing that object
    as ``features``."""
    class Centred(IOHMMClassifier):
        def _make_representation(self, features):
            if features == "shape_centred":
                return CentredShapeFeatures(**options)
            return super()._make_representation(features)

    return Centred


def iohmm_models(tuning):
    """(key, estimator class, parameters) of the IOHMM rows to fit."""
    fractions = {"n_prefixes": list(FRACTIONS)}
    centred_fractions = {"features": "shape_centred", **fractions}
    models = [("iohmm_centred", IOHMMClassifier, centred_fractions)]
    models += [(key, centred(options) if options else IOHMMClassifier,
                {**centred_fractions, **params})
               for key, (options, params) in CANDIDATES.items()
               if tuning or key == RECIPE]
    models.append(("iohmm_fractions", IOHMMClassifier, fractions))
    if not tuning:
        models.append(("iohmm_prefixes", IOHMMClassifier, {"n_prefixes": 5}))
    return models


def run_one(name, seed, tuning=False):
    X_train, y_train, X_test, y_test = split(name, seed, tuning)
    out = {"dataset": name, "seed": seed, "models": {}}

    def record(key, fit_time, predict):
        acc = {str(f): float(np.mean(predict(prefixes(X_test, f)) == y_test))
               for f in FRACTIONS}
        out["models"][key] = {"fit_time": fit_time, "accuracy": acc}
        print(name, seed, key, out["models"][key], flush=True)

    for key, cls, params in iohmm_models(tuning):
        model = cls(random_state=seed, **params)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X_train, y_train)
        record(key, time.perf_counter() - t0, model.predict)

    if not tuning:
        hybrid = HybridHMMClassifier(random_state=seed)
        t0 = time.perf_counter()
        hybrid.fit(X_train, [np.repeat(c, len(x))
                             for x, c in zip(X_train, y_train, strict=True)])
        record("hybrid", time.perf_counter() - t0,
               lambda X: np.array([p[-1] for p in hybrid.predict(X)]))

    rocket = MiniRocketClassifier(random_state=seed)
    train = [p for f in FRACTIONS for p in prefixes(X_train, f)]
    t0 = time.perf_counter()
    rocket.fit(train, np.tile(y_train, len(FRACTIONS)))
    record("minirocket", time.perf_counter() - t0, rocket.predict)
    return out



DATASETS = ["ItalyPowerDemand", "ArrowHead", "BasicMotions", "PLAID"]


def run(names, seeds, tuning, path):
    results = []
    with threadpool_limits(1):
        warm_up_minirocket()
        for name in names:
            for seed in range(seeds):
                results.append(run_one(name, seed, tuning))
    # keep the stored results of the data sets not run this time
    kept = ([r for r in json.loads(path.read_text(encoding="utf-8"))
             if r["dataset"] not in names] if path.exists() else [])
    order = {name: i for i, name in enumerate(DATASETS)}
    runs = sorted(kept + results, key=lambda r: order.get(r["dataset"], len(order)))
    path.write_text(json.dumps(runs, indent=1), encoding="utf-8")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--datasets", nargs="+",
                        default=DATASETS)
    parser.add_argument("--render", action="store_true")
    parser.add_argument("--tuning", action="store_true",
                        help="halves of the training series only")
    parser.add_argument("--quick", action="store_true",
                        help="one seed of ItalyPowerDemand only (a few minutes)")
    args = parser.parse_args()
    if args.quick:
        args.seeds, args.datasets = 1, ["ItalyPowerDemand"]
    if not args.render:
        run(args.datasets, args.seeds, args.tuning,
            TUNING_JSON if args.tuning else JSON)
    tuning = (json.loads(TUNING_JSON.read_text(encoding="utf-8"))
              if TUNING_JSON.exists() else None)
    report(json.loads(JSON.read_text(encoding="utf-8")), tuning)


if __name__ == "__main__":
    main()
