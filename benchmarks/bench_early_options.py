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
  components beside those decisions;
- round ``ridge``: **ridge by groups**, the penalty of the ridge whose
  cross-fitted decisions the output networks read chosen with the prefixes
  of one training sequence left out together (``penalty.group_loo_errors``)
  instead of one row at a time, as the output networks' own penalty is
  chosen (its cross-fitted values already leave a sequence's prefixes out
  together). Not an option of the package: the candidate replaces
  ``skseq._families.supervised.ridge_penalty`` in this process. Its rule,
  fixed before the run, asks for no harm rather than a gain (it removes an
  inconsistency): a 12-cell mean at least the recipe's, no set's mean below
  it by more than 0.005.

On the halves of ``bench_early_fraction_models.py`` (the test series are
never read), with the rule of the recipe's earlier rounds (fixed before these
runs): at least the recipe's 12-cell mean + 0.005, no set's mean below the
recipe's by more than 0.005; of those passing, the higher 12-cell mean. Fit
time is reported, not judged.

    python benchmarks/bench_early_options.py representation
    python benchmarks/bench_early_options.py components
    python benchmarks/bench_early_options.py ridge

(about 2 minutes each) write their round into
``early_classification_options.json``; the Early classification page shows
them (``bench_early_classification.py --render``).
"""

import argparse
import json
import time
from contextlib import contextmanager
from functools import partial

from _early_classification_report import FRACTIONS, OPTIONS_JSON
from bench_early_classification import centred, prefixes, split
from bench_early_fraction_models import fitted, run_splits

import skseq._families.supervised as supervised
from skseq._families.penalty import LAMBDAS, _best, group_loo_errors

# Each round's candidates, fixed before its run: ``CentredShapeFeatures``
# options (the recipe first, with none).
ROUNDS = {
    "representation": {"recipe": {}, "unsupervised": {"supervised": False},
                       "8 dilations": {"n_dilations": 8}},
    "components": {"recipe": {}, "32 components": {"n_components": 32},
                   "64 components": {"n_components": 64}},
    "ridge": {"recipe": {}, "ridge by groups": {}},
}


def _penalty_by_groups(U, d2, SY, weight, groups, copies, copy_weight=None):
    """``supervised.ridge_penalty`` with the rows of one group (a training
    sequence's prefixes) left out together."""
    return float(LAMBDAS[_best(group_loo_errors(U, d2, SY, weight, groups,
                                                copies))])


# Candidates that replace a function of the package while they are fitted.
PATCHES = {"ridge by groups": (supervised, "ridge_penalty", _penalty_by_groups)}


@contextmanager
def patched(key):
    """The package as candidate ``key`` needs it, restored afterwards."""
    if key not in PATCHES:
        yield
        return
    module, name, replacement = PATCHES[key]
    original = getattr(module, name)
    setattr(module, name, replacement)
    try:
        yield
    finally:
        setattr(module, name, original)


def run_one(name, seed, options):
    X_train, y_train, X_test, y_test = split(name, seed, tuning=True)
    accuracy = {str(f): {} for f in FRACTIONS}
    fit_time = {}
    for key, representation in options.items():
        model = centred(representation)(features="shape_centred",
                                        n_prefixes=list(FRACTIONS),
                                        random_state=seed)
        t0 = time.perf_counter()
        with patched(key):
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
