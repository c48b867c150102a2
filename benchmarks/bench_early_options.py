"""Options of the early-classification recipe's representation, on the
training halves.

The recipe (``IOHMMClassifier(features="shape_centred", n_prefixes=[0.2, 0.3,
0.5, 1.0])``) reads its series through ``CentredShapeFeatures()``. Each round's
candidates (``ROUNDS``), fixed before its run, change one option of it:

- round ``representation``: **unsupervised** (``supervised=False``), without
  the decisions of a ridge classifier on all the indicators appended to the
  principal components; **8 dilations** (``n_dilations=8``), half the
  dilations for the same indicator budget (twice the thresholds each), the
  largest dilations, whose kernels span more than a 20% prefix, weighing less;
- round ``components`` (fixed after the first showed that the ridge's
  decisions carry the early evidence): **32 components** and **64
  components** (``n_components``, against 128), fewer unsupervised principal
  components beside those decisions.

On the halves of ``bench_early_fraction_models.py`` (the test series are
never read), with the rule of the recipe's earlier rounds (fixed before these
runs): at least the recipe's 12-cell mean + 0.005, no set's mean below the
recipe's by more than 0.005; of those passing, the higher 12-cell mean. Fit
time is reported, not judged.

    python benchmarks/bench_early_options.py representation
    python benchmarks/bench_early_options.py components

(about 2 minutes each) write their round into
``early_classification_options.json``; the Early classification page shows
them (``bench_early_classification.py --render``).
"""

import argparse
import json
import time
from functools import partial

from bench_early_classification import FRACTIONS, OPTIONS_JSON, centred, prefixes, split
from bench_early_fraction_models import fitted, run_splits

# Each round's candidates, fixed before its run: ``CentredShapeFeatures``
# options (the recipe first, with none).
ROUNDS = {
    "representation": {"recipe": {}, "unsupervised": {"supervised": False},
                       "8 dilations": {"n_dilations": 8}},
    "components": {"recipe": {}, "32 components": {"n_components": 32},
                   "64 components": {"n_components": 64}},
}


def run_one(name, seed, options):
    X_train, y_train, X_test, y_test = split(name, seed, tuning=True)
    accuracy = {str(f): {} for f in FRACTIONS}
    fit_time = {}
    for key, representation in options.items():
        model = centred(representation)(features="shape_centred",
                                        n_prefixes=list(FRACTIONS),
                                        random_state=seed)
        t0 = time.perf_counter()
        fitted(model, X_train, y_train)
        fit_time[key] = time.perf_counter() - t0
        for f in FRACTIONS:
            accuracy[str(f)][key] = float(
                (model.predict(prefixes(X_test, f)) == y_test).mean())
    return {"dataset": name, "seed": seed, "accuracy": accuracy,
            "fit_time": fit_time}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("round", choices=list(ROUNDS))
    args = parser.parse_args()
    saved = (json.loads(OPTIONS_JSON.read_text(encoding="utf-8"))
             if OPTIONS_JSON.exists() else {})
    saved[args.round] = run_splits(partial(run_one, options=ROUNDS[args.round]))
    OPTIONS_JSON.write_text(json.dumps(saved, indent=1), encoding="utf-8")
    print(f"wrote {OPTIONS_JSON}")


if __name__ == "__main__":
    main()
