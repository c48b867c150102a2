"""Peak memory of IOHMMClassifier.fit on one long sequence, against 3 T n^2 8 bytes.

The bar (DESIGN §4): peak memory of ``fit`` <= 3 x (T * n_states^2 * 8 bytes) plus
the data itself. NumPy reports its allocations to tracemalloc, so the peak below
is every array ``fit`` allocates (the caller's X excluded).

    python benchmarks/bench_memory.py [--steps 1000000] [--states 2 3 4 8]
"""

import argparse
import tracemalloc
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from skseq import IOHMMClassifier


def peak_fit_bytes(n_steps, n_states, n_features=1, solver="lbfgs", seed=0,
                   features="raw"):
    """tracemalloc peak of ``fit`` and the bar. ``features="raw"``: the IOHMM's
    own memory (the default "shape" representation of real-valued series adds
    its projected features, (n_steps, 128) doubles)."""
    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(n_steps, n_features)), rng.normal(size=(5, n_features))]
    y = [0, 1]
    clf = IOHMMClassifier(n_states=n_states, n_init=1, max_iter=3, solver=solver,
                          features=features, random_state=0)
    tracemalloc.start()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    data = sum(x.nbytes for x in X)
    bar = 3 * (n_steps + 5) * n_states**2 * 8 + data
    return peak, bar


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=1_000_000)
    parser.add_argument("--states", type=int, nargs="+", default=[2, 3, 4, 8])
    args = parser.parse_args()
    print(f"T = {args.steps} steps, 1 feature, 3 iterations")
    print("solver  n_states  peak_MB   bar_MB  peak/bar")
    for solver in ("lbfgs", "em"):
        for n in args.states:
            peak, bar = peak_fit_bytes(args.steps, n, solver=solver)
            print(f"{solver:6s}  {n:8d}  {peak / 1e6:7.1f}  {bar / 1e6:7.1f}  "
                  f"{peak / bar:8.2f}")


if __name__ == "__main__":
    main()
