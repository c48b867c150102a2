"""The hybrid's window length chosen with its chain, on the training halves.

``window`` (the steps of recent past that the per-step classifier reads) and
the representation's lags were chosen for the per-step classifier alone. The
chain accumulates the evidence of overlapping windows: a shorter window holds
less of the previous segment after a change, and neighbouring steps' evidence
overlaps less, so the chain may want a shorter window and a larger
``likelihood_scale``. This grids ``window`` x ``likelihood_scale`` on sessions
built from halves of the official training recordings only (the construction
of ``bench_step_labelling.py --tuning``; the test recordings are never read):
for every window, ``HybridHMMClassifier(window=w)`` is fitted once and
predicts at every scale (the scale acts only in prediction), and the same
model with one state per label and no transitions is fitted at the same
window. Scores: causal accuracy and boundary F1 (``predict``), offline
boundary F1 (``algorithm="viterbi"``), fit times.

    python benchmarks/bench_step_labelling_window.py [--seeds 3] [--datasets ...]

writes ``step_labelling_window.json`` (no page; the Step labelling page shows
it in its section on the window when the file exists).
"""

import argparse
import json
import time

import _ucr
import numpy as np
from bench_step_labelling import RESULTS, make_sessions, scores, training_halves
from threadpoolctl import threadpool_limits

from skseq import HybridHMMClassifier
from skseq.utils import sequence_lengths

WINDOW_JSON = RESULTS / "step_labelling_window.json"
WINDOWS = (8, 12, 16, 24, 32)
SCALES = (0.35, 0.5, 0.7, 1.0)


def _fit(params, S_train, L_train, seed):
    model = HybridHMMClassifier(random_state=seed, **params)
    t0 = time.perf_counter()
    model.fit(S_train, L_train)
    return model, time.perf_counter() - t0


def run_one(name, seed, windows, scales):
    X_train, y_train, _, _ = _ucr.load(name)
    rng = np.random.default_rng(seed)
    X_train, y_train, X_test, y_test = training_halves(X_train, y_train, rng)
    S_train, L_train = make_sessions(X_train, y_train, rng, 2)
    S_test, L_test = make_sessions(X_test, y_test, rng, 1)
    tolerance = int(round(0.1 * np.median(sequence_lengths(X_train))))
    out = []
    for window in windows:
        model, fit_time = _fit({"window": window}, S_train, L_train, seed)
        alone, alone_time = _fit({"window": window, "transitions": "none",
                                  "n_states_per_label": 1}, S_train, L_train, seed)
        cell = {"window": window, "window_": model.window_,
                "no_transitions_window_": alone.window_, "features": model.features_,
                "fit_time": fit_time, "no_transitions_fit_time": alone_time,
                "no_transitions": scores(alone.predict(S_test), L_test, tolerance),
                "scales": {}}
        for scale in scales:
            model.set_params(likelihood_scale=scale)
            cell["scales"][str(scale)] = {
                "causal": scores(model.predict(S_test), L_test, tolerance),
                "offline": scores(model.predict(S_test, algorithm="viterbi"),
                                  L_test, tolerance)}
        print(name, seed, json.dumps(cell), flush=True)
        out.append(cell)
    return {"dataset": name, "seed": seed, "tolerance": tolerance, "grid": out}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--datasets", nargs="+", default=["BasicMotions", "PLAID"])
    parser.add_argument("--windows", nargs="+", default=list(WINDOWS),
                        type=lambda v: v if v == "auto" else int(v))
    parser.add_argument("--scales", type=float, nargs="+", default=list(SCALES))
    args = parser.parse_args()
    with threadpool_limits(1):
        results = [run_one(name, seed, args.windows, args.scales)
                   for name in args.datasets
                   for seed in range(args.first_seed, args.first_seed + args.seeds)]
    # the stored cells of other data sets, seeds and windows kept
    stored = (json.loads(WINDOW_JSON.read_text(encoding="utf-8"))
              if WINDOW_JSON.exists() else [])
    runs = {(r["dataset"], r["seed"]): r for r in stored}
    for r in results:
        old = runs.setdefault((r["dataset"], r["seed"]), r)
        if old is not r:
            new = {str(c["window"]) for c in r["grid"]}
            old["grid"] = ([c for c in old["grid"] if str(c["window"]) not in new]
                           + r["grid"])
    merged = [runs[key] for key in sorted(runs)]
    WINDOW_JSON.write_text(json.dumps(merged, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
