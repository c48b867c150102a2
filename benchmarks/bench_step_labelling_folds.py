"""The hybrid's window and scale on three quarters of the training recordings.

The tuning construction of the other step-labelling scripts fits on half of
the official training recordings and scores on the other half. A model that
pays only with more data cannot show there: on the halves the default's
8-step window beats 32 steps, yet with every training recording a classifier
of the last 32 steps is the more accurate one. Here the training recordings
of each class are dealt into 4 folds instead; each fold in turn gives the
test sessions (one pass, 2-5 recordings each) and the other three the
training sessions (two passes), so that every model is fitted on three
quarters of the recordings. The test recordings are never read.

Three rounds, each with a rule fixed before its run:

1. **window 32**, ``HybridHMMClassifier(window=32)``; and **choice on three
   quarters**, the default whose own choice of representation, window and
   scale is made on a quarter of its sessions held out instead of a half
   (a prototype of the package's choice: its held-out draw is replaced for
   the fit); each with the default's chain, and the window 32 also without
   transitions (``alone``). Seeds 0-2.
2. **window 32, scale 1.0**, **window 32, scale auto** and **scale auto**
   (``likelihood_scale=1.0`` or ``"auto"``; for the last, the window is
   chosen too). Seeds 0-2, the constructions of the first round.
   Rule of both rounds: mean causal accuracy at least the default's + 0.003
   on BasicMotions, mean causal boundary F1 at least the default's - 0.01,
   mean fit time at most the peer's; PLAID (seed 0, 4 folds) only for a
   candidate meeting that.
3. **window 32, scale auto** on new constructions (seeds 3-5), against the
   page's bars: mean causal accuracy at least the default's + 0.003 and at
   least the peer's, mean causal boundary F1 at least the peer's, fit time at
   most the peer's; then PLAID as above.

The peer is gradient boosting on the last 32 steps with the sticky HMM
filter (``bench_step_labelling_classifiers.peer_row``). A candidate that
passed would be confirmed on the test construction before any change of the
default.

    python benchmarks/bench_step_labelling_folds.py

(BasicMotions, 24 constructions, about 25 minutes on a quiet machine) writes
``step_labelling_folds.json``; the Step labelling page shows it.
"""

import argparse
import json

import _ucr
import numpy as np
from _step_labelling_folds import FOLDS_JSON, ROUNDS, meeting_basicmotions
from bench_step_labelling import class_permutations, make_sessions, scores
from bench_step_labelling_classifiers import peer_row, timed_fit
from threadpoolctl import threadpool_limits

import skseq._hybrid_select as select
from skseq import HybridHMMClassifier
from skseq._hybrid_select import scale_in_use
from skseq.utils import sequence_lengths

N_FOLDS = 4
ALONE = {"transitions": "none", "n_states_per_label": 1}
# every row's parameters; None: the default's choice on three quarters
PARAMS = {"default": {}, "default alone": ALONE,
          "window 32": {"window": 32}, "window 32 alone": {"window": 32, **ALONE},
          "choice on three quarters": None,
          "window 32, scale 1.0": {"window": 32, "likelihood_scale": 1.0},
          "window 32, scale auto": {"window": 32, "likelihood_scale": "auto"},
          "scale auto": {"likelihood_scale": "auto"}}


def folds(y, rng):
    """The fold (0 to N_FOLDS - 1) of every recording: each class's
    recordings, permuted (as the training halves of ``bench_step_labelling``
    draw them), dealt in turn."""
    fold = np.empty(len(y), dtype=int)
    for index in class_permutations(y, rng):
        fold[index] = np.arange(index.shape[0]) % N_FOLDS
    return fold


def fold_sessions(name, seed, k):
    """``S_train, L_train, S_test, L_test, tolerance`` of fold ``k`` of seed
    ``seed``: sessions of the official training recordings only."""
    X, y, _, _ = _ucr.load(name)
    y = np.asarray(y)
    rng = np.random.default_rng(seed)
    fold = folds(y, rng)
    train, test = np.flatnonzero(fold != k), np.flatnonzero(fold == k)
    S_train, L_train = make_sessions([X[i] for i in train], y[train], rng, 2)
    S_test, L_test = make_sessions([X[i] for i in test], y[test], rng, 1)
    tolerance = int(round(0.1 * np.median(sequence_lengths(X))))
    return S_train, L_train, S_test, L_test, tolerance


def quarter_held_out(n_sequences, rng):
    """A quarter of the sequences held out, drawn as the package draws its
    half."""
    return rng.permutation(n_sequences) < n_sequences // 4


def fitted(key, seed, S_train, L_train):
    """The row ``key``'s model fitted, and its fit time."""
    params = PARAMS[key]
    if params is not None:
        return timed_fit(HybridHMMClassifier(random_state=seed, **params),
                         S_train, L_train)
    original = select.held_out_half
    select.held_out_half = quarter_held_out
    try:
        return timed_fit(HybridHMMClassifier(random_state=seed), S_train, L_train)
    finally:
        select.held_out_half = original


def run(name, seed, k, keys):
    """The rows ``keys`` and the peer on fold ``k`` of seed ``seed``."""
    data = fold_sessions(name, seed, k)
    S_train, L_train, S_test, L_test, tolerance = data
    rows = {}
    for key in keys:
        model, fit = fitted(key, seed, S_train, L_train)
        rows[key] = {"fit_time": fit, "window": int(model.window_),
                     "likelihood_scale": float(scale_in_use(model)),
                     **scores(model.predict(S_test), L_test, tolerance)}
    rows["hgb_filter"] = peer_row(name, seed, data)
    return {"dataset": name, "seed": seed, "fold": k, "rows": rows}


def run_round(round_, name, seeds):
    """One round's rows on every fold of ``seeds``."""
    keys = ["default", *round_["rows"]]
    results = []
    for seed in seeds:
        for k in range(N_FOLDS):
            results.append(run(name, seed, k, keys))
            print(round_["name"], name, seed, k, {
                key: (round(v["accuracy"], 4), round(v["boundary_f1"], 3))
                for key, v in results[-1]["rows"].items()}, flush=True)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    saved = {}
    with threadpool_limits(1):
        for round_ in ROUNDS:
            results = run_round(round_, "BasicMotions", round_["seeds"])
            if meeting_basicmotions(round_, results):
                results += run_round(round_, "PLAID", (0,))
            saved[round_["name"]] = results
            FOLDS_JSON.write_text(json.dumps(saved, indent=1), encoding="utf-8")
    print(f"wrote {FOLDS_JSON}")


if __name__ == "__main__":
    main()
