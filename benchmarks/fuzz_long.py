"""Long validation fuzz run: the checks of tests/test_fuzz.py, many more examples.

Runs every check (fit, each prediction method, calls before fit) for every
estimator with ``--examples`` hypothesis examples each, records every contract
violation instead of stopping at the first, and prints a summary: examples run,
outcomes (ok / ValueError / TypeError / NotFittedError) and the distinct
violations with one reproducing input each.

    python benchmarks/fuzz_long.py --examples 5000
    python benchmarks/fuzz_long.py --examples 200 --estimators clf rnn --checks fit

Besides the suite's estimators, it runs ``HybridHMMClassifier`` as shipped
(``hybrid-default``) and with ``durations="learned"`` (``hybrid-durations``).

Exit status 1 if any violation was found.
"""

import argparse
import collections
import pathlib
import sys
import time
import traceback

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))
import test_fuzz as fz  # noqa: E402

from skseq import HybridHMMClassifier  # noqa: E402

# Too slow for the test suite's examples: the hybrid as shipped (gradient-boosted
# trees, the held-out choice of its window and representation), and with the
# explicit-duration chain.
fz.ESTIMATORS.update({
    "hybrid-default": lambda: HybridHMMClassifier(random_state=0),
    "hybrid-durations": lambda: HybridHMMClassifier(durations="learned", window=4,
                                                    random_state=0),
})


def _signature(exc):
    """A violation's identity: type, first line of its message, where it arose."""
    tb = traceback.extract_tb(exc.__traceback__)
    frames = [f for f in tb if "/skseq/" in f.filename] or tb[-1:]
    where = f"{pathlib.Path(frames[-1].filename).name}:{frames[-1].lineno}" if (
        frames) else "?"
    head = str(exc).splitlines()[0][:160] if str(exc) else ""
    return f"{type(exc).__name__} at {where}: {head}"


def run(name, check, examples, outcomes, violations):
    """Run one (estimator, check) pair for ``examples`` examples."""

    def body(data):
        X = data.draw(fz.X_STRATEGY)
        n = fz._n_of(X)
        y = data.draw(fz._targets(n))
        w = data.draw(fz.WEIGHT_STRATEGY(n)) if check == "fit" else None
        try:
            if check == "fit":
                outcomes[(name, check, fz.check_fit(name, X, y, w))] += 1
            elif check == "unfitted":
                for method in fz.PREDICT_METHODS:
                    est = fz.ESTIMATORS[name]()
                    if hasattr(est, method):
                        got = fz.call(est, method, X, y)
                        assert got != "ok", f"unfitted {method} returned"
                        outcomes[(name, method + " (unfitted)", got)] += 1
            else:
                for method in fz.PREDICT_METHODS:
                    got = fz.check_predict(name, method, X, y)
                    if got != "absent":
                        outcomes[(name, method, got)] += 1
        except Exception as exc:  # a violation: record, keep going
            key = (name, check, _signature(exc))
            if key not in violations:
                violations[key] = (repr(X)[:400], repr(y)[:200], repr(w)[:200])
            violations.setdefault(key + ("count",), 0)
            violations[key + ("count",)] += 1

    test = settings(max_examples=examples, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))(
        given(st.data())(body))
    test()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=5000,
                        help="hypothesis examples per estimator and check")
    parser.add_argument("--estimators", nargs="*", default=list(fz.ESTIMATORS),
                        choices=list(fz.ESTIMATORS))
    parser.add_argument("--checks", nargs="*", default=["fit", "predict", "unfitted"],
                        choices=["fit", "predict", "unfitted"])
    args = parser.parse_args(argv)
    outcomes = collections.Counter()
    violations = {}
    start = time.perf_counter()
    for name in args.estimators:
        for check in args.checks:
            t0 = time.perf_counter()
            run(name, check, args.examples, outcomes, violations)
            print(f"{name:9s} {check:9s} {args.examples} examples in "
                  f"{time.perf_counter() - t0:7.1f} s", flush=True)
    print(f"\nTotal {time.perf_counter() - start:.1f} s\n\nOutcomes (calls):")
    for (name, method, outcome), count in sorted(outcomes.items()):
        print(f"  {name:9s} {method:32s} {outcome:15s} {count}")
    found = {k: v for k, v in violations.items() if k[-1] != "count"}
    print(f"\n{len(found)} distinct contract violation(s)")
    for key, (X, y, w) in found.items():
        print(f"\n* [{key[0]} / {key[1]}] x{violations[key + ('count',)]}: {key[2]}\n"
              f"    X = {X}\n    y = {y}\n    sample_weight = {w}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
