"""How far the hybrid's causal chain trails its own per-step classifier after
a change of label, on the test sessions of the step-labelling benchmark.

For every true change of label (from ``a`` to ``b``) in the test sessions of
``bench_step_labelling.py`` (the same construction and seeds), this measures:

- the steps from the change until the per-step classifier alone first gives
  ``b`` (its posteriors: ``HybridHMMClassifier(transitions="none",
  n_states_per_label=1, likelihood_scale=1.0)`` with the default's chosen
  ``features_`` and ``window_``: the same classifier as the default's, fitted
  with the same seed), and until the default's causal
  ``predict`` first gives ``b``; their difference is the chain's lag;
- the evidence the chain needs to switch: ``log(1 / P(switch a -> b))`` from
  the default's ``transmat_`` (its last state of ``a`` to its first of ``b``);
- the evidence one step gives: the classifier's log posterior ratio of ``b``
  over ``a``, each divided by its prior, times ``likelihood_scale``, at the
  first step it gives ``b``;
- the errors in the 10 steps after each change and elsewhere, of the chain
  and of the classifier alone.

    python benchmarks/bench_step_labelling_lag.py [--seeds N] [--datasets ...] [--quick]

(about 10 minutes on a shared 2-core machine; run it after
``bench_step_labelling.py``, whose stored results the page also shows)
writes ``step_labelling_lag.json`` and rewrites the Step labelling page (its
section "Why the chain lags at a change").
"""

import argparse
import json

import _ucr
import numpy as np
from _step_labelling_report import AFTER, JSON, LAG_JSON, figure, report
from bench_step_labelling import SEEDS, make_sessions
from threadpoolctl import threadpool_limits

from skseq import HybridHMMClassifier


def first_step(pred, label, start, stop):
    """Steps from ``start`` until ``pred`` first equals ``label`` (``stop -
    start`` if never before ``stop``)."""
    hits = np.flatnonzero(pred[start:stop] == label)
    return int(hits[0]) if hits.shape[0] else int(stop - start)


def changes(model, proba, chain_pred, truth):
    """One record per true change of one session: steps until the classifier
    and the chain first give the new label, the evidence needed and given."""
    k, scale = model.n_states_per_label, model.likelihood_scale_
    code = np.searchsorted(model.classes_, truth)
    alone = proba.argmax(axis=1)
    chain = np.searchsorted(model.classes_, chain_pred)
    evidence = scale * (np.log(np.maximum(proba, 1e-6)) - np.log(model.class_prior_))
    starts = np.flatnonzero(code[1:] != code[:-1]) + 1
    stops = np.append(starts, code.shape[0])[1:]
    out = []
    for start, stop in zip(starts, stops, strict=True):
        a, b = code[start - 1], code[start]
        t_alone = first_step(alone, b, start, stop)
        step = min(start + t_alone, stop - 1)
        window = slice(start, min(start + AFTER, stop))
        out.append({
            "length": int(stop - start),
            "alone": t_alone, "chain": first_step(chain, b, start, stop),
            "needed": round(float(-np.log(model.transmat_[a * k + k - 1, b * k])), 4),
            "given": round(float(evidence[step, b] - evidence[step, a]), 4),
            "errors_alone": int(np.sum(alone[window] != b)),
            "errors_chain": int(np.sum(chain[window] != b)),
        })
    return out


def run_one(name, seed):
    X_train, y_train, X_test, y_test = _ucr.load(name)
    rng = np.random.default_rng(seed)
    S_train, L_train = make_sessions(X_train, y_train, rng, 2)
    S_test, L_test = make_sessions(X_test, y_test, rng, 1)
    model = HybridHMMClassifier(random_state=seed).fit(S_train, L_train)
    # the default's classifier: its representation and window, refitted
    alone = HybridHMMClassifier(transitions="none", n_states_per_label=1,
                                likelihood_scale=1.0, features=model.features_,
                                window=model.window_, random_state=seed)
    alone.fit(S_train, L_train)
    predicted = model.predict(S_test)
    records = []
    for proba, pred, truth in zip(alone.predict_proba(S_test), predicted, L_test,
                                  strict=True):
        records += changes(model, proba, pred, truth)
    errors = {"alone": int(sum(np.sum(alone.classes_[p.argmax(axis=1)] != t)
                               for p, t in zip(alone.predict_proba(S_test), L_test,
                                               strict=True))),
              "chain": int(sum(np.sum(p != t) for p, t in zip(predicted, L_test,
                                                              strict=True)))}
    print(name, seed, len(records), "changes", errors, flush=True)
    return {"dataset": name, "seed": seed, "features": model.features_,
            "window": model.window_,
            "likelihood_scale": model.likelihood_scale_,
            "n_test_steps": int(sum(map(len, S_test))), "errors": errors,
            "changes": records}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=None)  # by default SEEDS
    parser.add_argument("--datasets", nargs="+", default=["BasicMotions", "PLAID"])
    parser.add_argument("--quick", action="store_true",
                        help="one seed of BasicMotions only (about a minute)")
    args = parser.parse_args()
    if args.quick:
        args.seeds, args.datasets = 1, ["BasicMotions"]
    with threadpool_limits(1):
        results = [run_one(name, seed) for name in args.datasets
                   for seed in range(args.seeds or SEEDS.get(name, 3))]
    # keep the stored results of the data sets not run this time
    kept = ([r for r in json.loads(LAG_JSON.read_text(encoding="utf-8"))
             if r["dataset"] not in args.datasets] if LAG_JSON.exists() else [])
    merged = sorted(kept + results, key=lambda r: r["dataset"])  # stable order
    LAG_JSON.write_text(json.dumps(merged), encoding="utf-8")
    stored = json.loads(JSON.read_text(encoding="utf-8"))
    report(stored)
    figure(stored)


if __name__ == "__main__":
    main()
