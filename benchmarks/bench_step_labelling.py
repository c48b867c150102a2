"""Step labelling on sessions built from the panel's recordings.

Sessions are concatenations of 2-5 recordings of one archive set, every step
labelled with its recording's class: the official training recordings make the
training sessions (two random passes over them), the official test recordings
make the test sessions (one pass), so no recording is seen on both sides.
BasicMotions (6-D accelerometer and gyroscope, 4 activities) and PLAID (1-D
appliance current, 11 appliances); ``--seeds`` constructions (``SEEDS``: 10, 3).

Compared in one run, on the same sessions:

- ``HybridHMMClassifier()``, nothing set (causal ``predict``; offline with
  ``algorithm="viterbi"``), the same with one state per label and
  ``transitions="none"`` (each step labelled by its per-step classifier's
  posterior weighed by the label priors at the model's scale),
  the same with ``features="multiscale"`` (one classifier, fitted once, on the
  raw values of each of the last 8 steps and the summaries over the last 8
  and 32 steps, instead of a representation and a window chosen on held-out
  training sessions), the same with ``onset_weight=16`` (the per-step
  classifier's training steps within half its window after a change of label
  weighed 16 times:
  at a window of 32, more accurate causally on the training halves of
  BasicMotions, and its chain
  then adds accuracy to its classifier there, but no longer on PLAID's), the
  same with ``durations="learned"`` (explicit segment durations: a hidden
  semi-Markov chain whose switch probability depends on how long the segment
  has lasted, learned from the training labels), and the same reading only
  the window summaries of 32 steps with ``likelihood_scale=0.3`` (the
  defaults before the representation and the window were chosen from the
  data);
- ``IOHMMClassifier()``, nothing set (causal);
- HistGradientBoosting on the last 32 steps of each channel, alone, followed
  by a sticky HMM forward filter over its posteriors (causal), and by Viterbi
  (offline); the chain of that filter is counted from the training labels;
- a linear-chain CRF (sklearn-crfsuite, L-BFGS, offline) on the same 32 lags.

Scores: per-step accuracy, and boundary F1: a predicted boundary (a step whose
label differs from the previous step's) matches a true one at most
``tolerance`` steps away, one to one (``skseq.utils.boundary_f1_score``); the
tolerance is 10% of the median recording length of the set (10 steps for
BasicMotions, 30 for PLAID). Fit time is the whole fit of each model; the
hybrids' causal prediction time is kept in the JSON.

    python benchmarks/bench_step_labelling.py [--seeds N] [--datasets ...] [--quick]
    python benchmarks/bench_step_labelling.py --render
    python benchmarks/bench_step_labelling.py --tuning

``--tuning`` runs the same comparison on sessions built from the official
training recordings only, split in two halves by recording (stratified by
class): the construction on which the hybrid's defaults were chosen. It never
reads the test recordings; it fits the default, ``features="multiscale"``
with ``likelihood_scale`` 0.5 and ``"auto"``, each also without transitions,
and the peers but the IOHMM (the CRF too with ``--no-crf``), and writes
``step_labelling_tuning.json``, which the page shows in its section "Two
scales in one classifier" (``--seeds 6 --no-crf``: seeds 0-2 compare, 3-5
confirm; ``--first-seed`` starts elsewhere).

The page and its figure are written by ``_step_labelling_report.py``.
"""

import argparse
import json
import time
import warnings

import _ucr
import numpy as np
from _step_labelling_report import AFTER, JSON, TUNING_JSON, comparisons, figure, report
from scipy.special import logsumexp
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from skseq import HybridHMMClassifier, IOHMMClassifier
from skseq.utils import boundary_f1_score, sequence_lengths

LAGS = 32
SEEDS = {"BasicMotions": 10, "PLAID": 3}  # 10 test sessions a construction vs ~160


def make_sessions(X, y, rng, n_passes):
    """Shuffle the recordings ``n_passes`` times and cut each pass into sessions
    of 2-5 recordings; every step carries its recording's label."""
    sessions, labels = [], []
    for _ in range(n_passes):
        order = rng.permutation(len(X))
        i = 0
        while i < len(order):
            k = int(rng.integers(2, 6))
            part = order[i:i + k]
            if len(part) < 2 and sessions:  # a lone last one joins the previous
                j = part[0]
                sessions[-1] = np.vstack([sessions[-1], X[j]])
                labels[-1] = np.concatenate([labels[-1], np.repeat(y[j], len(X[j]))])
                break
            sessions.append(np.vstack([X[j] for j in part]))
            labels.append(np.concatenate([np.repeat(y[j], len(X[j])) for j in part]))
            i += k
    return sessions, labels


def lags(sessions):
    """The last LAGS steps of every channel at every step (the first step repeated
    before the start), most recent first."""
    out = []
    for x in sessions:
        padded = np.vstack([np.repeat(x[:1], LAGS - 1, axis=0), x])
        cols = [padded[LAGS - 1 - d: LAGS - 1 - d + len(x)] for d in range(LAGS)]
        out.append(np.hstack(cols))
    return out


def counted_chain(labels, classes):
    """Start and transition log-probabilities counted from labelled sessions (+1)."""
    index = {c: i for i, c in enumerate(classes)}
    n = len(classes)
    start, trans = np.ones(n), np.ones((n, n))
    for lab in labels:
        code = np.array([index[v] for v in lab])
        start[code[0]] += 1
        np.add.at(trans, (code[:-1], code[1:]), 1)
    return (np.log(start / start.sum()),
            np.log(trans / trans.sum(axis=1, keepdims=True)))


def hmm_filter(log_lik, log_start, log_trans):
    """Sticky HMM forward filter: argmax of P(label_t | steps up to t)."""
    out = np.empty(len(log_lik), dtype=int)
    alpha = log_start + log_lik[0]
    out[0] = alpha.argmax()
    for t in range(1, len(log_lik)):
        alpha = logsumexp(alpha[:, None] + log_trans, axis=0) + log_lik[t]
        alpha -= alpha.max()
        out[t] = alpha.argmax()
    return out


def hmm_viterbi(log_lik, log_start, log_trans):
    delta = log_start + log_lik[0]
    back = np.empty(log_lik.shape, dtype=int)
    for t in range(1, len(log_lik)):
        cand = delta[:, None] + log_trans
        back[t] = cand.argmax(axis=0)
        delta = cand.max(axis=0) + log_lik[t]
    path = np.empty(len(log_lik), dtype=int)
    path[-1] = delta.argmax()
    for t in range(len(log_lik) - 1, 0, -1):
        path[t - 1] = back[t, path[t]]
    return path


def crf_features(features):
    return [[{f"f{j}": float(v) for j, v in enumerate(row)} for row in seq]
            for seq in features]


def scores(pred, truth, tolerance):
    pred_all, true_all = np.concatenate(pred), np.concatenate(truth)
    return {"accuracy": float(np.mean(pred_all == true_all)),
            "boundary_f1": float(boundary_f1_score(truth, pred, tolerance=tolerance))}


def errors_near_changes(pred, truth):
    """Wrong steps within the first ``AFTER`` steps after a change of label
    (of the truth, inside a session), and elsewhere."""
    near = wrong = 0
    for p, t in zip(pred, truth, strict=True):
        changed = np.flatnonzero(t[1:] != t[:-1]) + 1
        after = np.zeros(t.shape[0], dtype=bool)
        for start in changed:
            after[start: start + AFTER] = True
        miss = p != t
        near += int(np.sum(miss & after))
        wrong += int(np.sum(miss))
    return {"after_change": near, "elsewhere": wrong - near}


def class_permutations(y, rng):
    """Each class's recordings (indices into ``y``), permuted, class by class
    in sorted order: the draw the training halves here and the folds of
    ``bench_step_labelling_folds`` split."""
    y = np.asarray(y)
    return [rng.permutation(np.flatnonzero(y == c)) for c in np.unique(y)]


def training_halves(X, y, rng):
    """The training recordings split in two halves by recording, stratified by
    class: sessions for tuning that never read the test recordings."""
    y = np.asarray(y)
    first, second = [], []
    for index in class_permutations(y, rng):
        first += list(index[: len(index) // 2])
        second += list(index[len(index) // 2:])
    return ([X[i] for i in first], y[first], [X[i] for i in second], y[second])


NO_TRANSITIONS = {"transitions": "none", "n_states_per_label": 1}
MULTISCALE = {"features": "multiscale"}
VARIANTS = [("hybrid", {}),
            ("hybrid_no_transitions", NO_TRANSITIONS),
            ("hybrid_multiscale", MULTISCALE),
            ("hybrid_onset16", {"onset_weight": 16.0}),
            ("hybrid_durations", {"durations": "learned"}),
            ("hybrid_summaries", {"features": "summaries", "window": 32,
                                  "likelihood_scale": 0.3})]
# ``--tuning``: the default and the two scales of the multiscale
# representation, each with its own model without transitions
AUTO_SCALE = {**MULTISCALE, "likelihood_scale": "auto"}
TUNING_VARIANTS = [("hybrid", {}),
                   ("hybrid_no_transitions", NO_TRANSITIONS),
                   ("hybrid_multiscale", MULTISCALE),
                   ("hybrid_multiscale_no_transitions", {**MULTISCALE,
                                                         **NO_TRANSITIONS}),
                   ("hybrid_multiscale_auto", AUTO_SCALE),
                   ("hybrid_multiscale_auto_no_transitions", {**AUTO_SCALE,
                                                              **NO_TRANSITIONS})]


def sessions(name, seed, tuning=False):
    """``S_train, L_train, S_test, L_test, tolerance``: the sessions of seed
    ``seed`` (of the training halves if ``tuning``) and the boundary
    tolerance, 10% of the median recording length."""
    X_train, y_train, X_test, y_test = _ucr.load(name)
    rng = np.random.default_rng(seed)
    if tuning:
        X_train, y_train, X_test, y_test = training_halves(X_train, y_train, rng)
    S_train, L_train = make_sessions(X_train, y_train, rng, 2)
    S_test, L_test = make_sessions(X_test, y_test, rng, 1)
    tolerance = int(round(0.1 * np.median(sequence_lengths(X_train))))
    return S_train, L_train, S_test, L_test, tolerance


def run_one(name, seed, crf, tuning=False):
    S_train, L_train, S_test, L_test, tolerance = sessions(name, seed, tuning)
    n_boundaries = sum(int(np.sum(lab[1:] != lab[:-1])) for lab in L_test)
    res = {"dataset": name, "seed": seed, "tolerance": tolerance, "tuning": tuning,
           "n_train_sessions": len(S_train), "n_test_sessions": len(S_test),
           "n_train_steps": int(sum(map(len, S_train))),
           "n_test_steps": int(sum(map(len, S_test))),
           "n_test_boundaries": n_boundaries, "models": {}}
    models = res["models"]

    data = (S_train, L_train, S_test, L_test, tolerance)
    _hybrid_models(models, name, seed, tuning, *data)
    if not tuning:  # the hybrid's defaults are chosen against the peers below
        _iohmm_model(models, name, seed, *data)
    F_train, F_test = lags(S_train), lags(S_test)
    labelled = (F_train, F_test, L_train, L_test, tolerance)
    _hgb_models(models, name, seed, *labelled)
    if crf:
        _crf_model(models, name, seed, *labelled)
    return res


def _hybrid_models(models, name, seed, tuning, S_train, L_train, S_test, L_test,
                   tolerance):
    """The hybrid's variants (the tuning ones with ``tuning``) into ``models``."""
    for key, params in TUNING_VARIANTS if tuning else VARIANTS:
        model = HybridHMMClassifier(random_state=seed, **params)
        t0 = time.perf_counter()
        model.fit(S_train, L_train)
        fit_time = time.perf_counter() - t0
        t0 = time.perf_counter()
        causal = model.predict(S_test)
        models[key] = {"fit_time": fit_time, "features": model.features_,
                       "window": model.window_,
                       "likelihood_scale": model.likelihood_scale_,
                       "predict_time": time.perf_counter() - t0,
                       "causal": scores(causal, L_test, tolerance),
                       "causal_errors": errors_near_changes(causal, L_test)}
        if not key.endswith("no_transitions"):
            models[key]["offline"] = scores(model.predict(S_test, algorithm="viterbi"),
                                            L_test, tolerance)
            models[key]["smoothed"] = scores(model.predict(S_test, algorithm="smooth"),
                                             L_test, tolerance)
        print(name, seed, key, models[key], flush=True)


def _iohmm_model(models, name, seed, S_train, L_train, S_test, L_test, tolerance):
    """The IOHMMClassifier peer into ``models``."""
    model = IOHMMClassifier(random_state=seed)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(S_train, L_train)
    models["iohmm"] = {"fit_time": time.perf_counter() - t0,
                       "causal": scores(model.predict(S_test), L_test, tolerance)}
    print(name, seed, "iohmm", models["iohmm"], flush=True)


def _hgb_models(models, name, seed, F_train, F_test, L_train, L_test, tolerance):
    """Gradient boosting on lagged steps, alone and filtered by a counted
    chain, into ``models``."""
    hgb = HistGradientBoostingClassifier(random_state=seed)
    t0 = time.perf_counter()
    hgb.fit(np.vstack(F_train), np.concatenate(L_train))
    fit_time = time.perf_counter() - t0
    classes = hgb.classes_
    log_start, log_trans = counted_chain(L_train, classes)
    prior = np.array([np.mean(np.concatenate(L_train) == c) for c in classes])
    alone, filtered, decoded = [], [], []
    for f in F_test:
        proba = hgb.predict_proba(f)
        log_lik = np.log(np.maximum(proba, 1e-6)) - np.log(prior)
        alone.append(classes[proba.argmax(axis=1)])
        filtered.append(classes[hmm_filter(log_lik, log_start, log_trans)])
        decoded.append(classes[hmm_viterbi(log_lik, log_start, log_trans)])
    models["hgb"] = {"fit_time": fit_time, "causal": scores(alone, L_test, tolerance),
                     "causal_errors": errors_near_changes(alone, L_test)}
    models["hgb_filter"] = {"fit_time": fit_time,
                            "causal": scores(filtered, L_test, tolerance),
                            "causal_errors": errors_near_changes(filtered, L_test),
                            "offline": scores(decoded, L_test, tolerance)}
    print(name, seed, "hgb", models["hgb_filter"], flush=True)


def _crf_model(models, name, seed, F_train, F_test, L_train, L_test, tolerance):
    """A linear-chain CRF on lagged steps (offline) into ``models``."""
    import sklearn_crfsuite

    model = sklearn_crfsuite.CRF(algorithm="lbfgs", c1=0.1, c2=0.1,
                                 max_iterations=100)
    t0 = time.perf_counter()
    model.fit(crf_features(F_train), [list(map(str, lab)) for lab in L_train])
    fit_time = time.perf_counter() - t0
    pred = [np.array(p, dtype=object) for p in model.predict(crf_features(F_test))]
    truth = [np.array(list(map(str, lab)), dtype=object) for lab in L_test]
    models["crf"] = {"fit_time": fit_time,
                     "offline": scores(pred, truth, tolerance)}
    print(name, seed, "crf", models["crf"], flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=None)  # SEEDS; 3 with --tuning
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--datasets", nargs="+", default=["BasicMotions", "PLAID"])
    parser.add_argument("--no-crf", action="store_true")
    parser.add_argument("--render", action="store_true")
    parser.add_argument("--quick", action="store_true",
                        help="one seed of BasicMotions only (a few minutes)")
    parser.add_argument("--tuning", action="store_true",
                        help="sessions from halves of the training recordings")
    args = parser.parse_args()
    if args.quick:
        args.seeds, args.datasets = 1, ["BasicMotions"]
    if not args.render:
        results = []
        with threadpool_limits(1):
            for name in args.datasets:
                n = args.seeds or (3 if args.tuning else SEEDS.get(name, 3))
                for seed in range(args.first_seed, args.first_seed + n):
                    results.append(run_one(name, seed, not args.no_crf, args.tuning))
        path = TUNING_JSON if args.tuning else JSON
        # keep the stored results of the data sets not run this time
        kept = ([r for r in json.loads(path.read_text(encoding="utf-8"))
                 if r["dataset"] not in args.datasets] if path.exists() else [])
        merged = sorted(kept + results, key=lambda r: r["dataset"])  # stable order
        path.write_text(json.dumps(merged, indent=1), encoding="utf-8")
        if args.tuning:
            for name in args.datasets:
                runs = [r for r in results if r["dataset"] == name]
                print(name, "\n".join(comparisons(runs)))
            return
    results = json.loads(JSON.read_text(encoding="utf-8"))
    report(results)
    figure(results)


if __name__ == "__main__":
    main()
