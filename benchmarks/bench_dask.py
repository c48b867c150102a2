"""One IOHMMClassifier fit across a Dask LocalCluster against a local fit of the
same data: per-evaluation cost, scaling from 1 to 2 workers, peak memory per
worker, and the difference of the fitted parameters.

Data: n sequences of 100 steps with 3 standard-normal features, generated on
the workers chunk by chunk (the client never holds them for the cluster's
fits); the label of a sequence is the sign of its first feature's mean over the
last 20 steps. Model: 3 states, ``features="raw"``, ``tol=0`` (every fit runs
its ``max_iter`` iterations). Each worker is a process with one thread; the
local fit runs in the client process, one thread.

    PYTHONPATH=$PWD python benchmarks/bench_dask.py [--sizes 10000 100000]
    PYTHONPATH=$PWD python benchmarks/bench_dask.py --render
"""

import argparse
import logging
import os
import time
import warnings

import numpy as np
from _report import run_or_render, table, versions, write
from sklearn.exceptions import ConvergenceWarning

from skseq import IOHMMClassifier

LENGTH, N_FEATURES, CHUNK = 100, 3, 5_000
MODEL = dict(n_states=3, features="raw", tol=0.0, random_state=0)
PARAMS = ("startprob_", "transition_coef_", "transition_intercept_",
          "emission_coef_", "emission_intercept_")


def _chunk(k, n):
    """Sequences and labels of chunk k (a fixed seed per chunk)."""
    rng = np.random.default_rng(1000 + k)
    X = rng.normal(size=(n, LENGTH, N_FEATURES))
    return X, (X[:, -20:, 0].mean(axis=1) > 0).astype(int)


def dask_data(n):
    """X and y as Dask arrays whose chunks are generated where they are used."""
    import dask
    import dask.array as da

    sizes = [min(CHUNK, n - a) for a in range(0, n, CHUNK)]
    parts = [dask.delayed(_chunk)(k, size) for k, size in enumerate(sizes)]
    X = da.concatenate([da.from_delayed(p[0], (size, LENGTH, N_FEATURES), float)
                        for p, size in zip(parts, sizes, strict=True)])
    y = da.concatenate([da.from_delayed(p[1], (size,), int)
                        for p, size in zip(parts, sizes, strict=True)])
    return X, y


def _reset_peak_rss():
    """Reset this process's peak resident memory (Linux: VmHWM), return the
    current resident memory in MB."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    return _status_mb("VmRSS")


def _status_mb(field):
    with open("/proc/self/status") as f:
        line = next(line for line in f if line.startswith(field + ":"))
    return int(line.split()[1]) / 1024


def _peak_rss_mb():
    return _status_mb("VmHWM")


def _fit(X, y, max_iter, n_init, **params):
    clf = IOHMMClassifier(**{**MODEL, **params}, max_iter=max_iter, n_init=n_init)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    return clf, time.perf_counter() - start


def _evaluations(problem, n_params, repeats=5):
    """Seconds per evaluation of J and its gradient at one parameter set (the
    fastest of ``repeats``: the least disturbed by other work)."""
    theta = np.random.default_rng(0).normal(scale=0.1, size=(1, n_params))
    problem.values_and_grads(theta)  # warm: kernels prepared, caches filled
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        problem.values_and_grads(theta)
        times.append(time.perf_counter() - start)
    return min(times)


def on_cluster(n, n_workers, max_iter, n_init):
    """Fit, evaluation time and peak RSS per worker on a fresh LocalCluster."""
    from distributed import Client, LocalCluster

    from skseq._base_dask import _build_problem
    from skseq._fit.distributed import Shards

    with (
        LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                     dashboard_address=None, silence_logs=logging.ERROR,
                     memory_limit=0) as cluster,
        Client(cluster) as client,
    ):
        client.run(lambda: __import__("skseq"))
        base = client.run(_reset_peak_rss)
        X, y = dask_data(n)
        y = y.compute()  # one label per sequence: the user has them at hand
        clf, fit_time = _fit(X, y, max_iter, n_init)
        peak = client.run(_peak_rss_mb)
        # the evaluations alone, once the shards are in place
        start = time.perf_counter()
        shards = Shards.pack(client, X)
        pack = time.perf_counter() - start
        problem = _build_problem(clf, client, shards, y, None)[0]
        per_eval = _evaluations(problem, problem.n_params)
    return clf, {"workers": n_workers, "fit_s": fit_time, "pack_s": pack,
                 "eval_s": per_eval,
                 "base_rss_mb": sorted(base.values()),
                 "peak_rss_mb": sorted(peak.values())}


def _local_data(n):
    return (np.concatenate(a) for a in zip(*[
        _chunk(k, min(CHUNK, n - a)) for k, a in enumerate(range(0, n, CHUNK))],
        strict=True))


def local(n, max_iter, n_init):
    X, y = _local_data(n)
    clf, fit_time = _fit(X, y, max_iter, n_init)
    problem = clf._build_problem(clf._validate_X(X, reset=False), y, None)[0]
    return clf, {"workers": 0, "fit_s": fit_time,
                 "eval_s": _evaluations(problem, problem.n_params)}


def _max_diff(a, b):
    return max(float(np.abs(getattr(a, k) - getattr(b, k)).max()) for k in PARAMS)


def converged(n, n_init, tol=1e-5, max_iter=200):
    """Fits run to convergence (``tol``): the cluster's (2 workers) and the
    local one's, against the local fit of the same sequences in reverse
    order, whose sums are only grouped differently."""
    from distributed import Client, LocalCluster

    X, y = _local_data(n)
    fits = {"local": _fit(X, y, max_iter, n_init, tol=tol)[0],
            "local, sequences reversed": _fit(X[::-1], y[::-1], max_iter, n_init,
                                              tol=tol)[0]}
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                     dashboard_address=None, silence_logs=logging.ERROR,
                     memory_limit=0) as cluster,
        Client(cluster),
    ):
        fits["2 workers"] = _fit(dask_data(n)[0], y, max_iter, n_init, tol=tol)[0]
    ref = fits["local"]
    return {"n_sequences": n, "tol": tol, "rows": [
        {"run": name, "n_iter": int(clf.n_iter_), "objective": clf.objective_,
         "objective_diff": clf.objective_ - ref.objective_,
         "max_param_diff": _max_diff(clf, ref)} for name, clf in fits.items()]}


def run(sizes, max_iter, n_init, cluster_only=()):
    results = {"versions": versions("dask", "distributed"), "sizes": [],
               "cluster_only": []}
    for n in cluster_only:
        print(f"n = {n}, 2 workers only", flush=True)
        row = on_cluster(n, 2, max_iter, n_init)[1]
        print(row, flush=True)
        results["cluster_only"].append({"n_sequences": n, "n_steps": n * LENGTH,
                                        "row": row})
    for n in sizes:
        print(f"n = {n}", flush=True)
        ref, row = local(n, max_iter, n_init)
        rows = [row]
        diffs = []
        for n_workers in (1, 2):
            clf, row = on_cluster(n, n_workers, max_iter, n_init)
            assert clf.n_iter_ == ref.n_iter_
            row["max_param_diff"] = _max_diff(clf, ref)
            diffs.append(row["max_param_diff"])
            rows.append(row)
            print(row, flush=True)
        results["sizes"].append({"n_sequences": n, "n_steps": n * LENGTH,
                                 "n_iter": int(ref.n_iter_), "rows": rows})
    results["converged"] = converged(sizes[0], n_init)
    print(results["converged"], flush=True)
    results["settings"] = {"max_iter": max_iter, "n_init": n_init,
                           "cpus": os.cpu_count()}
    return results


def _intro(results):
    """The page's title, what is measured and how to regenerate it."""
    s = results["settings"]
    return [
        "# One fit across a Dask cluster",
        "",
        "What is measured: an `IOHMMClassifier` (3 states, `features=\"raw\"`, "
        f"{s['n_init']} restarts, {s['max_iter']} iterations with `tol=0`) "
        "fitted on sequences held by a `dask.distributed.LocalCluster` of 1 "
        "and 2 worker processes (one thread each), against the local fit of "
        "the same data in one process with one thread: wall time of the fit "
        "and of one evaluation of the objective and its gradient, the largest "
        "difference of the fitted parameters, and the peak resident memory of "
        "every worker. Data: sequences of 100 steps with 3 standard-normal "
        "features, generated on the workers chunk by chunk "
        f"({CHUNK} sequences per chunk).",
        "",
        "Regenerate with `PYTHONPATH=$PWD python benchmarks/bench_dask.py "
        "--cluster-only 1000000` (`--render` rewrites this page from "
        "`dask.json`).",
        "",
        _summary(results),
        "",
    ]


def _size_section(size):
    """One size: the local fit against the clusters of 1 and 2 workers."""
    rows = size["rows"]
    local_row = rows[0]
    body = [["local (1 process)", f"{local_row['fit_s']:.1f}", "", "1.00",
             f"{local_row['eval_s']:.3f}", "1.00", "", "", ""]]
    for r in rows[1:]:
        body.append([
            f"{r['workers']} worker{'s' if r['workers'] > 1 else ''}",
            f"{r['fit_s']:.1f}",
            f"{r['pack_s']:.1f}",
            f"{r['fit_s'] / local_row['fit_s']:.2f}",
            f"{r['eval_s']:.3f}", f"{r['eval_s'] / local_row['eval_s']:.2f}",
            f"{r['max_param_diff']:.1e}",
            " / ".join(f"{v:.0f}" for v in r["peak_rss_mb"]),
            " / ".join(f"{v:.0f}" for v in r["base_rss_mb"])])
    return [f"## {size['n_sequences']:,} sequences ({size['n_steps']:,} steps)", "",
            table(["run", "fit (s)", "pack (s)", "fit / local", "evaluation (s)",
                   "evaluation / local", "max |param diff|",
                   "peak RSS per worker (MB)", "RSS at start (MB)"], body),
            ""]


def _cluster_only_lines(results):
    """The sizes fitted on 2 workers only, one paragraph each."""
    lines = []
    for size in results.get("cluster_only", []):
        r = size["row"]
        grow = np.subtract(r["peak_rss_mb"], r["base_rss_mb"])
        lines += [
            f"At {size['n_sequences']:,} sequences ({size['n_steps']:,} steps; "
            "2 workers only, no local reference, which would hold all the steps "
            f"in one process): the fit took {r['fit_s']:.0f} s, an evaluation "
            f"{r['eval_s']:.2f} s, and each worker's peak rose by "
            + " / ".join(f"{g:.0f}" for g in grow)
            + f" MB ({np.mean(grow) * 2**20 / (size['n_steps'] / 2):.0f} bytes "
            "per step held).",
            ""]
    return lines


def _converged_section(c):
    """The fits run to convergence, against the local fit in reverse order."""
    return [
        f"## Fits run to convergence ({c['n_sequences']:,} sequences, "
        f"tol={c['tol']:g})",
        "",
        "The table above compares fits of a fixed number of iterations. Run "
        "to convergence, L-BFGS amplifies the last-bit differences of sums "
        "grouped differently (by shard, or by the order of the sequences) "
        "along directions where the objective is nearly flat: the local fit "
        "of the same sequences in reverse order is the yardstick.",
        "",
        table(["run", "iterations", "objective - local", "max |param diff|"],
              [[r["run"], r["n_iter"], f"{r['objective_diff']:.1e}",
                f"{r['max_param_diff']:.1e}"] for r in c["rows"]]),
        "",
    ]


LIMITS = [
    "## Limits",
    "",
    "* The machine has 2 cores, shared with other work while this ran: the "
    "times are ratios of runs made one after the other in the same "
    "session, and the 2-worker runs compete with everything else for the "
    "two cores. On a cluster each worker has its own machine.",
    "* The cluster's fit time includes packing the shards on the workers "
    "(the pack column, measured again after the fit) and fitting the "
    "targets' encoding on the client; the evaluation "
    "column is the cost of one evaluation of J and its gradient once the "
    "shards are in place, which is what an iteration repeats.",
    "* Sizes given with `--cluster-only` (10^6 sequences, 10^8 steps) "
    "ran on 2 workers without the local reference, which would hold all "
    "the steps in one process (about ten times what the local fit of "
    "10^7 steps holds) and its fit would take several times the cluster's "
    "on this machine, beside the other work; one run of each "
    "configuration, no repeats.",
    "",
]


def render(results):
    """The page, from the saved results."""
    lines = _intro(results)
    for size in results["sizes"]:
        lines += _size_section(size)
    lines += _memory_lines(results["sizes"])
    lines += _cluster_only_lines(results)
    lines += _converged_section(results["converged"])
    lines += [*LIMITS, results["versions"], ""]
    return "\n".join(lines)


def _summary(results):
    """The figures in short."""
    large = results["sizes"][-1]
    local_row, one, two = large["rows"]
    diff = max(r["max_param_diff"] for size in results["sizes"]
               for r in size["rows"][1:])
    return (
        f"In short: the fitted parameters equal the local fit's to {diff:.0e} "
        "or better (same restarts, same iterations); at "
        f"{large['n_sequences']:,} sequences one evaluation of the objective "
        f"costs {one['eval_s'] / local_row['eval_s']:.2f} times the local one "
        f"on 1 worker and {two['eval_s'] / local_row['eval_s']:.2f} times on 2 "
        f"workers ({one['eval_s'] / two['eval_s']:.2f}x faster than 1 worker); "
        "each worker's memory follows its share of the steps.")


def _memory_lines(sizes):
    """Peak memory per step a worker holds: the slope between the two largest
    sizes of (peak - start) against the worker's share of the steps."""
    if len(sizes) < 2:
        return []
    small, large = sizes[-2], sizes[-1]
    body = []
    for k in (1, 2):
        grow = [np.mean(np.subtract(size["rows"][k]["peak_rss_mb"],
                                    size["rows"][k]["base_rss_mb"]))
                for size in (small, large)]
        steps = [size["n_steps"] / k for size in (small, large)]
        slope = (grow[1] - grow[0]) * 2**20 / (steps[1] - steps[0])
        body.append([f"{k} worker{'s' if k > 1 else ''}", f"{steps[1]:,.0f}",
                     f"{grow[1]:.0f}", f"{slope:.0f}"])
    scaling = [size["rows"][1]["eval_s"] / size["rows"][2]["eval_s"]
               for size in sizes]
    return [
        "## Memory per worker and scaling",
        "",
        "Peak resident memory of a worker above its memory at start, at the "
        "largest size, and the memory per step it holds (the slope between "
        "the two largest sizes): each worker's memory follows its share of "
        "the steps.",
        "",
        table(["cluster", "steps per worker", "peak - start (MB)",
               "bytes per step held"], body),
        "",
        "Speed-up of one evaluation from 1 to 2 workers: "
        + ", ".join(f"{r:.2f}x at {size['n_sequences']:,} sequences"
                    for r, size in zip(scaling, sizes, strict=True))
        + " (two worker processes on the 2 shared cores, with the client "
        "beside them).",
        "",
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--max-iter", type=int, default=5)
    parser.add_argument("--n-init", type=int, default=2)
    parser.add_argument("--cluster-only", type=int, nargs="*", default=[],
                        help="sizes fitted on 2 workers only (no local "
                             "reference): memory per worker")
    parser.add_argument("--render", action="store_true")
    args = parser.parse_args()
    results = run_or_render(
        "dask.json",
        lambda: run(args.sizes, args.max_iter, args.n_init, args.cluster_only),
        args.render)
    write("dask.md", render(results))


if __name__ == "__main__":
    main()
