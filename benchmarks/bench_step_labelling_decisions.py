"""Two changes of the hybrid's causal decision, on the training halves.

The chain lags at a change of label: it switches only once the scaled
evidence of the new label outweighs log(1 / P(switch)) (the section "Why the
chain lags at a change" of the Step labelling page). Two ways to let it
switch sooner, without refitting, are measured here on sessions built from
halves of the official training recordings only (the construction of
``bench_step_labelling.py --tuning``; the test recordings are never read):

- **switch x m**: every transition from a state to a state of another label
  multiplied by ``m`` and the rows of ``transmat_`` renormalised (the phases
  within a label unchanged), which lowers the evidence a switch needs by
  about log(m);
- **current x beta**: the causal label is the most probable under the
  filtered posterior times the classifier's current likelihood ratio raised
  to ``beta``, argmax_l log P(l | u_1..t) + beta (log P(l | window_t) -
  log P(l)): the current step's evidence counted again at the decision only,
  the chain itself unchanged.

Each at the likelihood scales 0.35, 0.5 and 0.7; ``HybridHMMClassifier()``
(m = 1, beta = 0, scale 0.5) is the default. The rule, fixed before the runs:
a candidate would be proposed if its mean causal accuracy is at least the
default's + 0.003 on BasicMotions, at least the default's - 0.002 on PLAID,
and its mean causal boundary F1 at least the default's - 0.01 on both.

    python benchmarks/bench_step_labelling_decisions.py [--seeds 6 3]

(BasicMotions seeds 0-5, PLAID seeds 0-2; about 10 minutes) writes
``step_labelling_decisions.json``; the Step labelling page shows it in its
section on the lag when the file exists.
"""

import argparse
import json

import numpy as np
from _step_labelling_report import DECISIONS_JSON
from bench_step_labelling import scores, sessions
from threadpoolctl import threadpool_limits

from skseq import HybridHMMClassifier
from skseq._hybrid_select import scale_in_use

SCALES = (0.35, 0.5, 0.7)
SWITCH = (1, 2, 4, 8)
CURRENT = (0.25, 0.5, 1, 2)


def switch_cells(model, S_test, L_test, tolerance):
    """Causal scores with the transitions between labels multiplied by m."""
    fitted = model.transmat_
    label = np.arange(fitted.shape[0]) // model.n_states_per_label
    between = label[:, None] != label[None, :]
    cells = []
    try:
        for m in SWITCH:
            transmat = fitted * np.where(between, m, 1.0)
            model.transmat_ = transmat / transmat.sum(axis=1, keepdims=True)
            for scale in SCALES:
                model.set_params(likelihood_scale=scale)
                cells.append({"kind": "switch", "value": m, "scale": scale,
                              **scores(model.predict(S_test), L_test, tolerance)})
    finally:
        model.transmat_ = fitted
    return cells


def current_cells(model, S_test, L_test, tolerance):
    """Causal scores with the current likelihood ratio weighed again by beta."""
    seqs = model._checked(S_test)
    cuts = np.cumsum([len(x) for x in S_test])[:-1]
    k = model.n_states_per_label
    cells = []
    for scale in SCALES:
        model.set_params(likelihood_scale=scale)
        # every state of a label has its label's scaled ratio
        ratio = model._log_emissions(seqs)[:, ::k] / scale_in_use(model)
        with np.errstate(divide="ignore"):
            log_post = np.log(np.vstack(model.predict_proba(S_test)))
        for beta in CURRENT:
            index = (log_post + beta * ratio).argmax(axis=1)
            cells.append({"kind": "current", "value": beta, "scale": scale,
                          **scores(np.split(model.classes_[index], cuts), L_test,
                                   tolerance)})
    return cells


def run_one(name, seed):
    S_train, L_train, S_test, L_test, tolerance = sessions(name, seed, tuning=True)
    model = HybridHMMClassifier(random_state=seed).fit(S_train, L_train)
    cells = (switch_cells(model, S_test, L_test, tolerance)
             + current_cells(model, S_test, L_test, tolerance))
    return {"dataset": name, "seed": seed, "cells": cells}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs=2, default=(6, 3),
                        metavar=("BASICMOTIONS", "PLAID"))
    args = parser.parse_args()
    results = []
    with threadpool_limits(1):
        for name, n_seeds in zip(("BasicMotions", "PLAID"), args.seeds, strict=True):
            for seed in range(n_seeds):
                results.append(run_one(name, seed))
                print(name, seed, flush=True)
    DECISIONS_JSON.write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(f"wrote {DECISIONS_JSON}")


if __name__ == "__main__":
    main()
