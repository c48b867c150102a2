"""Learning long memory: input-toggled regimes and the 2-sequence problem.

1. **Toggled regimes** (``skseq.datasets.make_toggled_regimes``): two linear
   regression laws, the regime flipped by events in the input, so that it is the
   parity of the events so far. Default ``IOHMMRegressor(n_states=2)`` against the
   true regime's law (the ceiling) and the pooled linear law, five data seeds; with
   the default margin between events and quiet steps, and with none.
2. **2-sequence problem with little data**: 3 pattern steps then 150-300 steps of
   noise in the pattern's range, 60 training sequences, 500 test sequences, five
   data seeds (``make_two_sequence(560, max_length=303, min_length=153,
   random_state=seed)``). ``HierarchicalIOHMM`` with two levels and nothing but
   ``n_states`` set, against the previous defaults (fixed time scales, random and
   permutation starts), one slow level (the recipe of
   ``bench_hierarchical.py``), a flat ``IOHMMClassifier`` with as many states, and
   the ceiling of a logistic regression that is given the first steps.
3. **Restarts chosen on held-out training sequences** (``--restarts``, run
   apart and kept in the saved results): for two levels and one slow level,
   single starts of the default's kinds, each fitted on the 60 training
   sequences and, from the same start, on 5 stratified folds of them; the
   restart the training objective keeps against the one the held-out
   accuracy or log-likelihood would keep.
4. **The cycle of start kinds** (``--cycles``, run apart likewise; see
   ``_start_cycles.py``): the previous default's cycle against the hold-heavy
   one, with the same restarts, on the training sequences.

    PYTHONPATH=$PWD python benchmarks/bench_long_memory.py [--seeds 5] [--quick]
    PYTHONPATH=$PWD python benchmarks/bench_long_memory.py --restarts [--seeds 5]
    PYTHONPATH=$PWD python benchmarks/bench_long_memory.py --cycles [--seeds 10]
    PYTHONPATH=$PWD python benchmarks/bench_long_memory.py --render

Writes ``doc/results/long_memory.md``, ``long_memory.png`` and the raw results,
``long_memory.json`` (``--render`` rewrites the page and figure from it; the
page is written by ``_long_memory_report.py``).
"""

import argparse
import json
import time
import warnings

import numpy as np
from _long_memory_report import (
    FLAT,
    FLAT9,
    FLAT_HOLD,
    N_FOLDS,
    N_STARTS,
    RAW,
    SLOW,
    figure,
    markdown,
)
from _report import RESULTS, write
from _start_cycles import CYCLES, run_cycles
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import log_loss, r2_score
from sklearn.model_selection import StratifiedKFold

from skseq import IOHMMClassifier, IOHMMRegressor
from skseq.datasets import make_toggled_regimes, make_two_sequence
from skseq.hierarchical import HierarchicalIOHMM

# -- 1. toggled regimes -------------------------------------------------------------
N_TOGGLE = 60  # training and test sequences each, 50-100 steps
TOGGLE_DATA = {"margin 0.5 (default)": {}, "no margin": {"trigger_noise": 0.5}}


def toggle_trial(data, seed):
    X, y, regimes = make_toggled_regimes(2 * N_TOGGLE, random_state=seed,
                                         return_regimes=True, **TOGGLE_DATA[data])
    train, test = slice(None, N_TOGGLE), slice(N_TOGGLE, None)
    start = time.perf_counter()
    model = IOHMMRegressor(n_states=2, random_state=seed).fit(X[train], y[train])
    seconds = time.perf_counter() - start
    y_test = np.concatenate(y[test])
    # the ceiling: the true regime's law, y = s (2 x + 1), at every test step
    oracle = np.concatenate([(1.0 - 2.0 * r) * (2.0 * x[:, 0] + 1.0)
                             for x, r in zip(X[test], regimes[test], strict=True)])
    pooled = LinearRegression().fit(np.concatenate(X[train]), np.concatenate(y[train]))
    return {"model": model.score(X[test], y[test]), "oracle": r2_score(y_test, oracle),
            "pooled": pooled.score(np.concatenate(X[test]), y_test),
            "seconds": seconds, "n_init": model.n_init_}


# -- 2. the 2-sequence problem ---------------------------------------------------------
N_TRAIN, N_TEST = 60, 500
MODELS = {
    "HierarchicalIOHMM((3, 2)) (defaults)":
        lambda seed: HierarchicalIOHMM((3, 2), random_state=seed),
    RAW:
        lambda seed: HierarchicalIOHMM((3, 2), features="raw", random_state=seed),
    "HierarchicalIOHMM((3, 3)) (defaults)":
        lambda seed: HierarchicalIOHMM((3, 3), random_state=seed),
    "HierarchicalIOHMM((3, 2)), previous defaults":
        lambda seed: HierarchicalIOHMM((3, 2), learn_timescales=False,
                                       init=["random", "permutation"],
                                       random_state=seed),
    SLOW:
        lambda seed: HierarchicalIOHMM((3,), timescales=(300,), random_state=seed),
    FLAT:
        lambda seed: IOHMMClassifier(6, features="raw", random_state=seed),
    FLAT_HOLD:
        lambda seed: IOHMMClassifier(6, features="raw", init="hold", random_state=seed),
    FLAT9:
        lambda seed: IOHMMClassifier(9, features="raw", random_state=seed),
}


def two_sequence_data(seed):
    X, y = make_two_sequence(N_TRAIN + N_TEST, max_length=303, min_length=153,
                             random_state=seed)
    return X[:N_TRAIN], y[:N_TRAIN], X[N_TRAIN:], y[N_TRAIN:]


def ceiling(seed, n_steps):
    """Test accuracy of a logistic regression given the first ``n_steps`` inputs
    (C=100: little regularization, the patterns' steps are 0.3-1.8 apart)."""
    X, y, X_test, y_test = two_sequence_data(seed)
    first = [np.array([x[:n_steps, 0] for x in part]) for part in (X, X_test)]
    return LogisticRegression(C=100.0).fit(first[0], y).score(first[1], y_test)


def two_sequence_trial(name, seed):
    X, y, X_test, y_test = two_sequence_data(seed)
    model = MODELS[name](seed)
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    timescales = getattr(model, "transition_timescales_", None)
    return {"accuracy": model.score(X_test, y_test), "seconds": seconds,
            "n_init": model.n_init_, "objectives": model.init_objectives_.tolist(),
            "features": model.features_,
            "features_scores": getattr(model, "features_scores_", None),
            "timescales": None if timescales is None else timescales.tolist()}


# -- 3. restarts chosen on held-out training sequences -------------------------------
# Single starts, restart k of kind START_KINDS[k % 8] (the default's cycle on
# these models, part 4) from random_state
# 1000 * seed + k: a start is drawn from the seed alone, so the fits of one
# start on the folds and on all 60 sequences begin at the same point.
SELECTED = {"HierarchicalIOHMM((3, 2))": {"n_states": (3, 2)},
            "one slow level ((3,), timescales=(300,))":
                {"n_states": (3,), "timescales": (300,)}}
START_KINDS = list(CYCLES.values())[-1]


def _one_start(name, seed, k):
    return HierarchicalIOHMM(features="raw", init=START_KINDS[k % len(START_KINDS)],
                             n_init=1, random_state=1000 * seed + k,
                             **SELECTED[name])


def restart_trial(name, seed):
    """Per start: its training objective and test accuracy fitted on the 60
    training sequences, and its mean held-out accuracy and log-likelihood
    over the folds (fitted on four, scored on the fifth, from the same start)."""
    X, y, X_test, y_test = two_sequence_data(seed)
    folds = list(StratifiedKFold(N_FOLDS, shuffle=True, random_state=seed).split(X, y))
    starts = []
    for k in range(N_STARTS):
        model = _one_start(name, seed, k).fit(X, y)
        accuracy, loglik = [], []
        for train, held in folds:
            part = _one_start(name, seed, k).fit([X[i] for i in train], y[train])
            X_held = [X[i] for i in held]
            accuracy.append(part.score(X_held, y[held]))
            loglik.append(-log_loss(y[held], part.predict_proba(X_held),
                                    labels=part.classes_))
        starts.append({"objective": float(model.objective_),
                       "test": model.score(X_test, y_test),
                       "held_out_accuracy": float(np.mean(accuracy)),
                       "held_out_loglik": float(np.mean(loglik))})
    return starts


def run_two_parts(args):
    """Parts 1 and 2: the toggled regimes and the 2-sequence table."""
    if args.quick:
        args.seeds = 2
    start = time.perf_counter()
    seeds = range(args.seeds)
    toggle = {data: [toggle_trial(data, s) for s in seeds] for data in TOGGLE_DATA}
    print(toggle, flush=True)
    two = {}
    for name in MODELS:
        two[name] = []
        for s in seeds:
            two[name].append(two_sequence_trial(name, s))
            print(name, s, f"{two[name][-1]['accuracy']:.3f}", flush=True)
    return {"args": {"seeds": args.seeds, "quick": args.quick}, "toggle": toggle,
            "two": two, "elapsed": time.perf_counter() - start}


def run_restarts(seeds):
    """Part 3, kept in the saved results beside parts 1 and 2."""
    start = time.perf_counter()
    restarts = {}
    for name in SELECTED:
        restarts[name] = []
        for s in range(seeds):
            restarts[name].append(restart_trial(name, s))
            print(name, s, restarts[name][-1], flush=True)
    return {"restarts": restarts, "restarts_elapsed": time.perf_counter() - start}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--quick", action="store_true",
                        help="2 data seeds instead of 5")
    parser.add_argument("--restarts", action="store_true",
                        help="only run part 3 (restarts chosen on held-out "
                             "training sequences) into long_memory.json")
    parser.add_argument("--cycles", action="store_true",
                        help="only run part 4 (the cycle of start kinds) into "
                             "long_memory.json")
    parser.add_argument("--render", action="store_true",
                        help="only rewrite the page and figure from long_memory.json")
    args = parser.parse_args()
    raw = RESULTS / "long_memory.json"
    saved = json.loads(raw.read_text()) if raw.exists() else {}
    if not args.render:
        warnings.simplefilter("ignore", ConvergenceWarning)
        # each part keeps the other's saved results
        if args.cycles:
            saved.update(run_cycles(SELECTED, two_sequence_data, args.seeds))
        else:
            saved.update(run_restarts(args.seeds) if args.restarts
                         else run_two_parts(args))
        raw.write_text(json.dumps(saved, indent=1))
    vars(args).update(saved["args"])
    # cheap, so recomputed when rendering
    ceilings = {k: [ceiling(s, k) for s in range(args.seeds)] for k in (1, 3)}
    text = markdown(saved, ceilings, args)
    print(text)
    write("long_memory.md", text)
    figure(saved["two"], ceilings).savefig(RESULTS / "long_memory.png", dpi=120)
    print(f"wrote {RESULTS / 'long_memory.png'}")


if __name__ == "__main__":
    main()
