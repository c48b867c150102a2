"""One model per prefix fraction for early classification, on the training
halves.

The recipe (``IOHMMClassifier(features="shape_centred", n_prefixes=[0.2, 0.3,
0.5, 1.0])``) is one model fitted on the training series' prefixes at every
fraction, pooled. Two candidates, fixed before the runs:

- **per fraction**: for each fraction f of 20%, 30%, 50% and 100%, an
  ``IOHMMClassifier(features="shape_centred")`` fitted on the training
  prefixes at f alone; a test prefix is classified by the model whose training
  prefixes' median length is nearest its own (in log scale), which needs no
  knowledge of the fraction;
- **blend**: the mean of the recipe's ``predict_proba`` and per fraction's.

On halves of the official training series only (the splits of
``bench_early_classification.py --tuning``: ItalyPowerDemand, ArrowHead and
BasicMotions splits 0-7, PLAID 0-1; the test series are never read). The rule,
fixed before the runs, is that of the recipe's earlier rounds: a candidate
passes if its mean over the 12 cells (four sets at 20%, 30%, 50%, each set's
mean over its splits) is at least the recipe's + 0.005 and no set's mean over
its three fractions is below the recipe's by more than 0.005; of those
passing, the higher 12-cell mean.

    python benchmarks/bench_early_fraction_models.py

(about 8 minutes) writes ``early_classification_fraction_models.json``; the
Early classification page shows it when the file exists
(``bench_early_classification.py --render``).
"""

import json
import warnings

import numpy as np
from _early_classification_report import FRACTION_MODELS_JSON, FRACTIONS
from bench_early_classification import prefixes, split
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from skseq import IOHMMClassifier

SPLITS = {"ItalyPowerDemand": 8, "ArrowHead": 8, "BasicMotions": 8, "PLAID": 2}


def fitted(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X, y)


def per_fraction_proba(models, log_lengths, X):
    """Each series' probabilities by the model whose training prefixes'
    median length is nearest its length (log scale)."""
    which = np.abs(np.log([len(x) for x in X])[:, None]
                   - log_lengths[None]).argmin(axis=1)
    proba = np.empty((len(X), models[0].classes_.shape[0]))
    for k, model in enumerate(models):
        index = np.flatnonzero(which == k)
        if index.size:
            proba[index] = model.predict_proba([X[i] for i in index])
    return proba


def run_one(name, seed):
    X_train, y_train, X_test, y_test = split(name, seed, tuning=True)
    recipe = fitted(IOHMMClassifier(features="shape_centred",
                                    n_prefixes=list(FRACTIONS), random_state=seed),
                    X_train, y_train)
    models, lengths = [], []
    for f in FRACTIONS:
        train = prefixes(X_train, f)
        models.append(fitted(IOHMMClassifier(features="shape_centred",
                                             random_state=seed), train, y_train))
        lengths.append(np.median([len(x) for x in train]))
    classes = recipe.classes_
    assert all(np.array_equal(m.classes_, classes) for m in models)
    accuracy = {}
    for f in FRACTIONS:
        test = prefixes(X_test, f)
        own = recipe.predict_proba(test)
        each = per_fraction_proba(models, np.log(lengths), test)
        accuracy[str(f)] = {
            key: float(np.mean(classes[p.argmax(axis=1)] == y_test))
            for key, p in (("recipe", own), ("per fraction", each),
                           ("blend", own + each))}
    return {"dataset": name, "seed": seed, "accuracy": accuracy}


def run_splits(run_one, path=None):
    """``run_one(name, seed)`` on every split of ``SPLITS``, one thread; its
    results, written to ``path`` if given."""
    results = []
    with threadpool_limits(1):
        for name, n_splits in SPLITS.items():
            for seed in range(n_splits):
                results.append(run_one(name, seed))
                print(name, seed, results[-1]["accuracy"], flush=True)
    if path is not None:
        path.write_text(json.dumps(results, indent=1), encoding="utf-8")
        print(f"wrote {path}")
    return results


def main():
    run_splits(run_one, FRACTION_MODELS_JSON)


if __name__ == "__main__":
    main()
