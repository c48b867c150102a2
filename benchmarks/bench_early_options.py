"""Two options of the early-classification recipe's representation, on the
training halves.

The recipe (``IOHMMClassifier(features="shape_centred", n_prefixes=[0.2, 0.3,
0.5, 1.0])``) reads its series through ``CentredShapeFeatures()``. Two
candidates, fixed before the runs, change one option of it each:

- **unsupervised** (``supervised=False``): without the decisions of a ridge
  classifier on all the indicators appended to the principal components, so
  that the output networks read the unsupervised projection only;
- **8 dilations** (``n_dilations=8``): half the dilations for the same
  indicator budget (twice the thresholds each), the largest dilations, whose
  kernels span more than a 20% prefix, weighing less.

On the halves of ``bench_early_fraction_models.py`` (the test series are
never read), with the rule of the recipe's earlier rounds (fixed before these
runs): at least the recipe's 12-cell mean + 0.005, no set's mean below the
recipe's by more than 0.005; of those passing, the higher 12-cell mean. Fit
time is reported, not judged.

    python benchmarks/bench_early_options.py

(about 8 minutes) writes ``early_classification_options.json``; the Early
classification page shows it (``bench_early_classification.py --render``).
"""

import time

from bench_early_classification import FRACTIONS, OPTIONS_JSON, centred, prefixes, split
from bench_early_fraction_models import fitted, run_splits

OPTIONS = {"recipe": {}, "unsupervised": {"supervised": False},
           "8 dilations": {"n_dilations": 8}}


def run_one(name, seed):
    X_train, y_train, X_test, y_test = split(name, seed, tuning=True)
    accuracy = {str(f): {} for f in FRACTIONS}
    fit_time = {}
    for key, options in OPTIONS.items():
        model = centred(options)(features="shape_centred",
                                 n_prefixes=list(FRACTIONS), random_state=seed)
        t0 = time.perf_counter()
        fitted(model, X_train, y_train)
        fit_time[key] = time.perf_counter() - t0
        for f in FRACTIONS:
            accuracy[str(f)][key] = float(
                (model.predict(prefixes(X_test, f)) == y_test).mean())
    return {"dataset": name, "seed": seed, "accuracy": accuracy,
            "fit_time": fit_time}


def main():
    run_splits(run_one, OPTIONS_JSON)


if __name__ == "__main__":
    main()
