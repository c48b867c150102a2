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

With windows 8 and 32 in the grid, rows ``8+32 (w)`` combine the two
windows' per-step classifiers instead of choosing one: the chain of the
model at 32 filters the weighted sum ``w * log P(label | 8 steps) + (1 - w)
* log P(label | 32 steps)`` minus the log prior, times the scale (a product
of experts; Hinton 2002), and the same combination scores the labels alone
(the priors weighed against it, as without transitions). The posteriors
are those of the no-transition models at scale 1 (the same classifiers);
the fit time is the sum of the two windows' fits.

    python benchmarks/bench_step_labelling_window.py [--seeds 3] [--datasets ...]

writes ``step_labelling_window.json`` (no page; the Step labelling page shows
it in its section on the window when the file exists).
"""

import argparse
import json
import time

import numpy as np
from _report import RESULTS
from bench_step_labelling import scores, sessions
from threadpoolctl import threadpool_limits

from skseq import HybridHMMClassifier
from skseq._families.label_chain import viterbi_terms
from skseq._kernels.forward_backward import forward_backward, viterbi

WINDOW_JSON = RESULTS / "step_labelling_window.json"
WINDOWS = (8, 12, 16, 24, 32)
SCALES = (0.35, 0.5, 0.7, 1.0)
# Weights of the 8-step classifier in the combined rows.
COMBINED = (0.25, 0.5, 0.75)
# Floor of the posteriors before their logarithm, as in the estimator.
MIN_PROBA = 1e-6


def _fit(params, S_train, L_train, seed):
    model = HybridHMMClassifier(random_state=seed, **params)
    t0 = time.perf_counter()
    model.fit(S_train, L_train)
    return model, time.perf_counter() - t0


def _log_proba(alone, S):
    """log P(label | window) of the classifier of a no-transition model with
    one state per label (its filter at scale 1 returns the posteriors)."""
    scale = alone.likelihood_scale
    alone.set_params(likelihood_scale=1.0)
    proba = np.vstack(alone.predict_proba(S))
    alone.set_params(likelihood_scale=scale)
    return np.log(np.maximum(proba, MIN_PROBA))


def _labels(chain, log_lik, S, offline):
    """The chain's causal (filter) or offline (Viterbi) labels under the
    per-label log-likelihoods ``log_lik``, split by session."""
    k = chain.n_states_per_label
    lengths = [len(x) for x in S]
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.intp)
    emissions = np.repeat(log_lik, k, axis=1)
    if offline:
        # the estimator's own Viterbi terms (the state before the first step
        # summed out, as its filter and smoother do)
        _, path = viterbi(*viterbi_terms(chain.startprob_, chain.transmat_,
                                         emissions, offsets))
        index = path // k
    else:
        gamma = forward_backward(chain.startprob_, chain.transmat_[None], emissions,
                                 offsets, backward=False).gamma
        index = gamma.reshape(len(gamma), -1, k).sum(axis=2).argmax(axis=1)
    return np.split(chain.classes_[index], offsets[1:-1])


def combined(fitted, S_test, L_test, tolerance, scales):
    """The cells ``8+32 (w)``: the chain of the model at 32 over the weighted
    product of the 8- and 32-step classifiers' posteriors."""
    chain = fitted[32][0]
    prior = np.log(np.maximum(chain.class_prior_, MIN_PROBA))
    log_proba = {w: _log_proba(fitted[w][1], S_test) for w in (8, 32)}
    cells = []
    for weight in COMBINED:
        log_p = weight * log_proba[8] + (1 - weight) * log_proba[32]
        alone = (1 - chain.likelihood_scale) * prior + chain.likelihood_scale * log_p
        cell = {"window": f"8+32 ({weight})", "window_": "8+32",
                "fit_time": fitted[8][2] + fitted[32][2],
                "no_transitions": scores(np.split(
                    chain.classes_[alone.argmax(axis=1)],
                    np.cumsum([len(x) for x in S_test])[:-1]), L_test, tolerance),
                "scales": {}}
        for scale in scales:
            log_lik = scale * (log_p - prior)
            cell["scales"][str(scale)] = {
                mode: scores(_labels(chain, log_lik, S_test, mode == "offline"),
                             L_test, tolerance) for mode in ("causal", "offline")}
        cells.append(cell)
    return cells


def run_one(name, seed, windows, scales):
    S_train, L_train, S_test, L_test, tolerance = sessions(name, seed, tuning=True)
    out, fitted = [], {}
    for window in windows:
        # "auto" among the scales: the scale is chosen in fit, with the window
        params = {"window": window, **({"likelihood_scale": "auto"}
                                       if "auto" in scales else {})}
        model, fit_time = _fit(params, S_train, L_train, seed)
        fitted_scale = model.likelihood_scale
        alone, alone_time = _fit({"window": window, "transitions": "none",
                                  "n_states_per_label": 1}, S_train, L_train, seed)
        cell = {"window": window, "window_": model.window_,
                "likelihood_scale_": model.likelihood_scale_,
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
        model.set_params(likelihood_scale=fitted_scale)
        fitted[window] = (model, alone, fit_time)
        print(name, seed, json.dumps(cell), flush=True)
        out.append(cell)
    if 8 in fitted and 32 in fitted:
        out += combined(fitted, S_test, L_test, tolerance, scales)
    return {"dataset": name, "seed": seed, "tolerance": tolerance, "grid": out}


def _order(cell):
    """Fixed windows from the shortest, then "auto", then the combinations."""
    window = cell["window"]
    if isinstance(window, int):
        return 0, window, ""
    return (1, 0, "") if window == "auto" else (2, 0, window)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--datasets", nargs="+", default=["BasicMotions", "PLAID"])
    parser.add_argument("--windows", nargs="+", default=list(WINDOWS),
                        type=lambda v: v if v == "auto" else int(v))
    parser.add_argument("--scales", nargs="+", default=list(SCALES),
                        type=lambda v: v if v == "auto" else float(v))
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
            old["grid"] = sorted(
                [c for c in old["grid"] if str(c["window"]) not in new] + r["grid"],
                key=_order)
    merged = [runs[key] for key in sorted(runs)]
    WINDOW_JSON.write_text(json.dumps(merged, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
