"""The early-classification recipe averaged over several seeds, on the
training halves.

The recipe (``IOHMMClassifier(features="shape_centred", n_prefixes=[0.2, 0.3,
0.5, 1.0])``) draws its indicators' thresholds, its principal axes and its
starts from ``random_state``, and its accuracy on the first 20% of the test
series spreads by 0.02-0.04 between seeds. Two candidates, fixed before the
runs, average the class probabilities of several fits that differ only in
``random_state`` (1000 k + the split's seed; k = 0 is the recipe's own fit),
as scikit-learn's ``VotingClassifier(voting="soft")`` does:

- **3 seeds**: k = 0, 1, 2;
- **5 seeds**: k = 0 to 4.

On the halves of ``bench_early_fraction_models.py`` (the test series are
never read), with its rule, the recipe's earlier rounds' (fixed before these
runs): at least the recipe's 12-cell mean + 0.005, no set's mean below the
recipe's by more than 0.005; of those passing, the higher 12-cell mean, ties
within 0.001 to fewer seeds. Fit time, the members' together, is reported
and not judged: the early bars are accuracies.

    python benchmarks/bench_early_seeds.py

(about 10 minutes) writes ``early_classification_seeds.json``; the Early
classification page shows it (``bench_early_classification.py --render``).
"""

import time

import numpy as np
from _early_classification_report import FRACTIONS, SEEDS_JSON
from bench_early_classification import prefixes, split
from bench_early_fraction_models import fitted, run_splits

from skseq import IOHMMClassifier

MEMBERS = {"recipe": 1, "3 seeds": 3, "5 seeds": 5}


def run_one(name, seed):
    X_train, y_train, X_test, y_test = split(name, seed, tuning=True)
    models, fit_times = [], []
    for k in range(max(MEMBERS.values())):
        t0 = time.perf_counter()
        models.append(fitted(IOHMMClassifier(
            features="shape_centred", n_prefixes=list(FRACTIONS),
            random_state=1000 * k + seed), X_train, y_train))
        fit_times.append(time.perf_counter() - t0)
    classes = models[0].classes_
    assert all(np.array_equal(m.classes_, classes) for m in models)
    accuracy = {}
    for f in FRACTIONS:
        test = prefixes(X_test, f)
        proba = np.cumsum([m.predict_proba(test) for m in models], axis=0)
        accuracy[str(f)] = {
            key: float(np.mean(classes[proba[n - 1].argmax(axis=1)] == y_test))
            for key, n in MEMBERS.items()}
    return {"dataset": name, "seed": seed, "accuracy": accuracy,
            "fit_time": {key: float(sum(fit_times[:n])) for key, n in MEMBERS.items()}}


def main():
    run_splits(run_one, SEEDS_JSON)


if __name__ == "__main__":
    main()
