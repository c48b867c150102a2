"""Speed of skseq against hmmlearn and the IOHMM package.

Everything is measured side by side in one run on this machine and written as
Markdown to ``doc/results/speed.md``:

1. kernel throughput: skseq's forward-backward with a transition matrix per step,
   as the fit uses it (``xi_mode=XI_STEP`` / ``XI_GRAD`` written over the
   transition array), against hmmlearn's scaled forward + backward + xi-sum kernels
   with one fixed matrix (``hmmlearn._hmmc``), one sequence, one thread;
2. threads: the same E-step on many sequences with ``n_jobs=1`` and ``n_jobs=2``;
3. end to end on the same data: ``IOHMMClassifier.score_samples`` against
   ``GaussianHMM.score``, and one EM iteration of each;
4. one EM iteration against the ``IOHMM`` package, which needs numpy<2 and so runs
   in its own virtual environment, as a subprocess of this script;
5. peak memory of ``fit`` (``benchmarks/bench_memory.py``);
6. whole fits: a whole ``fit`` against hmmlearn's, ``solver="em"`` against
   ``"lbfgs"``, ``n_jobs=2`` against 1, the default ``n_init`` against one restart
   on small data, ``score_samples`` against ``GaussianHMM.score``, and
   scikit-learn's ``check_estimator`` on the default estimators. The page opens
   with a summary of the ratios; the console also prints each against the target
   the project set for it (``Target``).

Every IOHMM here is fitted with ``features="raw"`` (the paper's model on the
inputs themselves): on real-valued series ``IOHMMClassifier`` defaults to the
nonlinear "shape" representation, whose fit adds a convolution and a PCA.

Timings are wall-clock, the best of ``--repeat`` runs, interleaved (A, B, A, B, ...)
so that load from other processes hits both sides alike; the load average is
recorded with the results.

    python benchmarks/bench_speed.py [--quick] [--repeat 7] [--iohmm-python PATH]
                                     [--no-check-estimator]

The IOHMM environment (path also read from ``$SKSEQ_IOHMM_PYTHON``; that part is
skipped when it does not exist)::

    python3 -m venv /work/iohmm-venv
    /work/iohmm-venv/bin/pip install "numpy<2" "scikit-learn<1.5" "pandas<2.3" IOHMM

(IOHMM 0.0.7 passes ``multi_class=`` to ``LogisticRegression``, removed in
scikit-learn 1.5.)
"""

import argparse
import json
import logging
import os
import platform
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "doc" / "results" / "speed.md"
IOHMM_PYTHON = os.environ.get("SKSEQ_IOHMM_PYTHON", "/work/iohmm-venv/bin/python")
# Bytes of per-step transition matrices in the kernel benchmarks: far more than the
# L2 cache, so the kernels stream them from memory as a real E-step does.
KERNEL_BYTES = 128 * 2**20


def best_times(cases, repeat):
    """Best wall time of each case, the cases run interleaved ``repeat`` times.

    A case is ``(prepare, run)``: ``prepare()`` (untimed, may be None) returns the
    argument of ``run``.
    """
    best = [np.inf] * len(cases)
    for _ in range(repeat):
        for k, (prepare, run) in enumerate(cases):
            arg = None if prepare is None else prepare()
            start = time.perf_counter()
            run(arg)
            best[k] = min(best[k], time.perf_counter() - start)
    return best


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(x) for x in row) + " |" for row in rows]
    return "\n".join(lines)


def _random_chain(rng, n_steps, n):
    """Per-step transition matrices, emissions and start of a random chain."""
    trans = rng.dirichlet(np.ones(n), size=(n_steps, n))
    log_emit = rng.normal(size=(n_steps, n))
    startprob = rng.dirichlet(np.ones(n))
    return startprob, trans, log_emit


# -- 1. kernels -------------------------------------------------------------------
def _restorer(work, trans):
    """Copy the matrices back before each run: xi overwrites them, as in the fit."""
    def restore():
        np.copyto(work, trans)
        return work
    return restore


def _skseq_e_step(startprob, log_emit, offsets, mode, n_jobs):
    from skseq._kernels.forward_backward import forward_backward

    return lambda buf: forward_backward(startprob, buf, log_emit, offsets,
                                        xi_mode=mode, xi_out=buf, n_jobs=n_jobs)


def _kernel_row(rng, n, repeat, scale):
    from hmmlearn import _hmmc

    from skseq._kernels.forward_backward import XI_GRAD, XI_STEP

    T = max(1000, int(scale * KERNEL_BYTES / (8 * n * n)))
    startprob, trans, log_emit = _random_chain(rng, T, n)
    offsets = np.array([0, T], dtype=np.intp)
    transmat = rng.dirichlet(np.ones(n), size=n)
    frameprob = np.exp(log_emit)  # hmmlearn takes likelihoods: exp not timed

    def hmmlearn_fb(_):
        _, fwd, scaling = _hmmc.forward_scaling(startprob, transmat, frameprob)
        bwd = _hmmc.backward_scaling(startprob, transmat, frameprob, scaling)
        _hmmc.compute_scaling_xi_sum(fwd, transmat, bwd, frameprob)

    restore = _restorer(np.empty_like(trans), trans)
    t_h, t_step, t_grad = best_times(
        [(None, hmmlearn_fb),
         (restore, _skseq_e_step(startprob, log_emit, offsets, XI_STEP, 1)),
         (restore, _skseq_e_step(startprob, log_emit, offsets, XI_GRAD, 1))],
        repeat,
    )
    return n, T, T / t_h, T / t_step, T / t_grad


def bench_kernels(states, repeat, scale):
    rng = np.random.default_rng(0)
    return [_kernel_row(rng, n, repeat, scale) for n in states]


def _kernel_collection_row(rng, n, repeat, scale):
    """As ``_kernel_row``, on many sequences of 50-150 steps (the same total size).

    hmmlearn's kernels take one sequence per call, and its ``fit`` calls them in a
    Python loop over the sequences, as done here (the slices are made beforehand,
    untimed); skseq takes the packed sequences in one call.
    """
    from hmmlearn import _hmmc

    from skseq._kernels.forward_backward import XI_GRAD, XI_STEP

    T = max(20_000, int(scale * KERNEL_BYTES / (8 * n * n)))
    lengths = rng.integers(50, 151, size=max(2, T // 100))
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.intp)
    T = int(offsets[-1])
    startprob, trans, log_emit = _random_chain(rng, T, n)
    transmat = rng.dirichlet(np.ones(n), size=n)
    frameprob = np.exp(log_emit)
    pieces = [frameprob[a:b] for a, b in zip(offsets[:-1], offsets[1:], strict=True)]

    def hmmlearn_fb(_):
        for fp in pieces:
            _, fwd, scaling = _hmmc.forward_scaling(startprob, transmat, fp)
            bwd = _hmmc.backward_scaling(startprob, transmat, fp, scaling)
            _hmmc.compute_scaling_xi_sum(fwd, transmat, bwd, fp)

    restore = _restorer(np.empty_like(trans), trans)
    t_h, t_step, t_grad = best_times(
        [(None, hmmlearn_fb),
         (restore, _skseq_e_step(startprob, log_emit, offsets, XI_STEP, 1)),
         (restore, _skseq_e_step(startprob, log_emit, offsets, XI_GRAD, 1))],
        repeat,
    )
    return n, len(lengths), T, T / t_h, T / t_step, T / t_grad


def bench_kernels_collection(states, repeat, scale):
    rng = np.random.default_rng(4)
    return [_kernel_collection_row(rng, n, repeat, scale) for n in states]


# -- 2. threads -------------------------------------------------------------------
def _threads_row(rng, n, repeat, scale):
    from skseq._kernels.forward_backward import XI_STEP

    T = max(20_000, int(scale * KERNEL_BYTES / (8 * n * n)))
    lengths = rng.integers(50, 151, size=max(2, T // 100))
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.intp)
    T = int(offsets[-1])
    startprob, trans, log_emit = _random_chain(rng, T, n)
    restore = _restorer(np.empty_like(trans), trans)
    two = _skseq_e_step(startprob, log_emit, offsets, XI_STEP, 2)
    t1, t2 = best_times(
        [(restore, _skseq_e_step(startprob, log_emit, offsets, XI_STEP, 1)),
         (restore, two)],
        repeat,
    )
    # Cores this process actually got while running 2 threads (CPU time / wall):
    # below 2, other processes held the machine.
    buf = restore()
    wall, cpu = time.perf_counter(), time.process_time()
    two(buf)
    cores = (time.process_time() - cpu) / (time.perf_counter() - wall)
    return n, len(lengths), T, T / t1, T / t2, t1 / t2, cores


def bench_threads(states, repeat, scale):
    rng = np.random.default_rng(1)
    return [_threads_row(rng, n, repeat, scale) for n in states]


# -- 3. end to end against hmmlearn -------------------------------------------------
def _sequences(rng, n_seq, length, n_features):
    X = rng.normal(size=(n_seq, length, n_features))
    X[:, :, 0] += np.cumsum(rng.normal(scale=0.3, size=(n_seq, length)), axis=1)
    y = (X[:, -1, 0] > 0).astype(int)
    return X, y


def _end_to_end_row(X, y, n, repeat):
    from hmmlearn.hmm import GaussianHMM

    from skseq import IOHMMClassifier

    n_seq, length, n_features = X.shape
    X_cat = X.reshape(-1, n_features)
    lengths = np.full(n_seq, length)
    clf = IOHMMClassifier(n_states=n, solver="em", max_iter=1, n_init=1,
                          features="raw", random_state=0)
    hmm = {impl: GaussianHMM(n_components=n, covariance_type="diag", n_iter=1,
                             random_state=0, implementation=impl)
           for impl in ("log", "scaling")}
    # One EM iteration without hmmlearn's k-means initialisation: start from the
    # parameters of a first fit.
    bare = GaussianHMM(n_components=n, covariance_type="diag", n_iter=1,
                       random_state=0, implementation="scaling", init_params="")
    clf.fit(X, y)
    for model in hmm.values():
        model.fit(X_cat, lengths)
    for name in ("startprob_", "transmat_", "means_"):
        setattr(bare, name, getattr(hmm["scaling"], name).copy())
    bare.covars_ = hmm["scaling"]._covars_.copy()  # the (n, d) diagonals
    scores = best_times(
        [(None, lambda _: clf.score_samples(X, y)),
         (None, lambda _: hmm["log"].score(X_cat, lengths)),
         (None, lambda _: hmm["scaling"].score(X_cat, lengths))],
        repeat,
    )
    fits = best_times(
        [(None, lambda _: clf.fit(X, y)), (None, lambda _: bare.fit(X_cat, lengths))],
        repeat,
    )
    # With hmmlearn's k-means initialisation (slow; fewer runs).
    fits_init = best_times(
        [(None, lambda _: hmm["log"].fit(X_cat, lengths)),
         (None, lambda _: hmm["scaling"].fit(X_cat, lengths))],
        max(1, repeat // 3),
    )
    return n, n_seq * length, scores, [fits[0], *fits_init, fits[1]]


def bench_end_to_end(states, repeat, scale):
    from sklearn.exceptions import ConvergenceWarning
    from threadpoolctl import threadpool_limits

    logging.getLogger("hmmlearn").setLevel(logging.ERROR)
    rng = np.random.default_rng(2)
    X, y = _sequences(rng, max(20, int(1000 * scale)), 50, 4)
    # One thread for BLAS and OpenMP on both sides: the comparison is single-core,
    # and k-means' OpenMP threads otherwise spin for seconds on a busy machine.
    with warnings.catch_warnings(), threadpool_limits(limits=1):
        warnings.simplefilter("ignore", ConvergenceWarning)
        rows = [_end_to_end_row(X, y, n, repeat) for n in states]
    return rows, X.shape


# -- 4. the IOHMM package --------------------------------------------------------------
IOHMM_SHAPE = (200, 50, 2)  # sequences, length, input features
IOHMM_STATES = 4


def _iohmm_data(scale):
    rng = np.random.default_rng(3)
    n_seq, length, n_features = IOHMM_SHAPE
    n_seq = max(10, int(n_seq * scale))
    U = rng.normal(size=(n_seq, length, n_features))
    # A step-level binary output driven by the inputs (categorical per step).
    Y = (U[:, :, 0] + 0.5 * rng.normal(size=(n_seq, length)) > 0).astype(int)
    return U, Y


def iohmm_worker(data_path, repeat):
    """Run inside the IOHMM environment: time one EM iteration, print JSON."""
    import pandas as pd
    from IOHMM import CrossEntropyMNL, DiscreteMNL, UnSupervisedIOHMM
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)
    warnings.simplefilter("ignore")
    data = np.load(data_path)
    U, Y = data["U"], data["Y"]
    columns = [f"u{k}" for k in range(U.shape[2])]
    frames = [pd.DataFrame(dict(zip(columns, u.T, strict=True), y=yy))
              for u, yy in zip(U, Y, strict=True)]
    best_setup = best_train = np.inf
    for _ in range(repeat):
        model = UnSupervisedIOHMM(num_states=int(data["n_states"]), max_EM_iter=1,
                                  EM_tol=-1.0)
        model.set_models(model_emissions=[DiscreteMNL(solver="lbfgs")],
                         model_transition=CrossEntropyMNL(solver="lbfgs"),
                         model_initial=CrossEntropyMNL(solver="lbfgs"))
        model.set_inputs(covariates_initial=[], covariates_transition=columns,
                         covariates_emissions=[columns])
        model.set_outputs([["y"]])
        start = time.perf_counter()
        model.set_data(frames)
        mid = time.perf_counter()
        model.train()  # max_EM_iter=1: one M-step and one E-step
        end = time.perf_counter()
        best_setup = min(best_setup, mid - start)
        best_train = min(best_train, end - mid)
    import IOHMM

    print(json.dumps({"set_data": best_setup, "train": best_train,
                      "version": getattr(IOHMM, "__version__", "0.0.7"),
                      "numpy": np.__version__}))


def bench_iohmm(python, repeat, scale):
    from sklearn.exceptions import ConvergenceWarning
    from threadpoolctl import threadpool_limits

    from skseq import IOHMMClassifier

    U, Y = _iohmm_data(scale)
    X, y = list(U), list(Y)
    clf = IOHMMClassifier(n_states=IOHMM_STATES, solver="em", max_iter=1, n_init=1,
                          features="raw", random_state=0)
    with warnings.catch_warnings(), threadpool_limits(limits=1):
        warnings.simplefilter("ignore", ConvergenceWarning)
        (t_fit,) = best_times([(None, lambda _: clf.fit(X, y))], repeat)
    result = {"skseq_fit": t_fit, "shape": U.shape}
    if not Path(python).exists():
        result["skipped"] = f"{python} not found"
        return result
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "data.npz"
        np.savez(path, U=U, Y=Y, n_states=IOHMM_STATES)
        out = subprocess.run(
            [python, __file__, "--iohmm-worker", str(path),
             "--repeat", str(max(1, min(repeat, 3)))],
            capture_output=True, text=True, check=True,
        )
    result.update(json.loads(out.stdout.strip().splitlines()[-1]))
    return result


# -- 5. memory ----------------------------------------------------------------------
def bench_memory_rows(states, n_steps):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_memory import peak_fit_bytes

    rows = []
    for solver in ("lbfgs", "em"):
        for n in states:
            peak, bar = peak_fit_bytes(n_steps, n, solver=solver)
            rows.append((solver, n, peak / 1e6, bar / 1e6, peak / bar))
    return rows


# -- 6. issue 15: whole fits ----------------------------------------------------------
def _cores_during(run):
    """CPU time over wall time of one run of ``run()``: the cores the process got."""
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return (time.process_time() - cpu) / (time.perf_counter() - wall)


def bench_fit_vs_hmmlearn(repeat, scale):
    """GaussianHMM(8, "diag", n_iter=20).fit against IOHMMClassifier(n_states=8,
    max_iter=20, tol=0, n_init=1).fit, lbfgs and em, on 1,000 x 50 x 8."""
    from hmmlearn.hmm import GaussianHMM

    from skseq import IOHMMClassifier

    rng = np.random.default_rng(5)
    X, y = _sequences(rng, max(20, int(1000 * scale)), 50, 8)
    X_cat, lengths = X.reshape(-1, 8), np.full(X.shape[0], 50)

    def iohmm(solver):
        return IOHMMClassifier(n_states=8, max_iter=20, tol=0, n_init=1,
                               features="raw", solver=solver, random_state=0)

    hmm = GaussianHMM(8, "diag", n_iter=20, random_state=0)
    fits = {"lbfgs": iohmm("lbfgs"), "em": iohmm("em")}
    t_hmm, t_lbfgs, t_em = best_times(
        [(None, lambda _: hmm.fit(X_cat, lengths)),
         (None, lambda _: fits["lbfgs"].fit(X, y)),
         (None, lambda _: fits["em"].fit(X, y))],
        max(1, repeat // 2),
    )
    return {"shape": X.shape, "hmmlearn": t_hmm, "lbfgs": t_lbfgs, "em": t_em,
            "n_iter": (fits["lbfgs"].n_iter_, fits["em"].n_iter_, hmm.monitor_.iter),
            "objective": (fits["lbfgs"].objective_, fits["em"].objective_)}


def bench_fit_threads(repeat, scale):
    """The same fit with n_jobs=1 and n_jobs=2 on 2,000 x 100 x 8, n=8."""
    from skseq import IOHMMClassifier

    rng = np.random.default_rng(6)
    X, y = _sequences(rng, max(20, int(2000 * scale)), 100, 8)
    est = {j: IOHMMClassifier(n_states=8, max_iter=20, tol=0, n_init=1,
                              features="raw", n_jobs=j, random_state=0)
           for j in (1, 2)}
    t1, t2 = best_times([(None, lambda _: est[1].fit(X, y)),
                         (None, lambda _: est[2].fit(X, y))], max(1, repeat // 2))
    cores = _cores_during(lambda: est[2].fit(X, y))
    return {"shape": X.shape, "1": t1, "2": t2, "cores": cores}


def _small_data():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(30, 3))
    y_class = (X[:, 0] + 0.5 * rng.normal(size=30) > 0).astype(int)
    y_value = X[:, 0] + 0.3 * rng.normal(size=30)
    return X, y_class, y_value


def bench_default_restarts(repeat):
    """Default fit against one restart, 30 one-step rows x 3 features."""
    from skseq import HierarchicalIOHMM, IOHMMClassifier, IOHMMRegressor

    X, y_class, y_value = _small_data()
    rows = []
    for Estimator, y in ((IOHMMClassifier, y_class), (IOHMMRegressor, y_value),
                         (HierarchicalIOHMM, y_class)):
        default, one = Estimator(random_state=0), Estimator(n_init=1, random_state=0)
        t_default, t_one = best_times(
            [(None, lambda _, e=default, y=y: e.fit(X, y)),
             (None, lambda _, e=one, y=y: e.fit(X, y))], repeat)
        n_dropped = int(np.sum(default.init_objectives_ > default.objective_
                               + 1e-3 * max(1.0, abs(default.objective_))))
        rows.append((Estimator.__name__, default.n_init_, t_default, t_one,
                     default.n_iter_, one.n_iter_, n_dropped))
    return rows


def bench_score_samples(repeat, scale):
    """IOHMMClassifier.score_samples against GaussianHMM.score, n=8, 200 x 1,000 x 3."""
    from hmmlearn.hmm import GaussianHMM

    from skseq import IOHMMClassifier

    rng = np.random.default_rng(8)
    X, y = _sequences(rng, max(10, int(200 * scale)), 1000, 3)
    X_cat, lengths = X.reshape(-1, 3), np.full(X.shape[0], 1000)
    clf = IOHMMClassifier(n_states=8, max_iter=3, n_init=1, features="raw",
                          random_state=0).fit(X, y)
    hmm = {impl: GaussianHMM(8, "diag", n_iter=3, random_state=0,
                             implementation=impl).fit(X_cat, lengths)
           for impl in ("log", "scaling")}
    t_skseq, t_log, t_scaling = best_times(
        [(None, lambda _: clf.score_samples(X, y)),
         (None, lambda _: hmm["log"].score(X_cat, lengths)),
         (None, lambda _: hmm["scaling"].score(X_cat, lengths))], repeat)
    return {"shape": X.shape, "skseq": t_skseq, "log": t_log, "scaling": t_scaling}


def bench_check_estimator():
    """Seconds of check_estimator on every default estimator (one process)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _check_timing import default_estimators, time_checks

    rows = []
    for est in default_estimators():
        seconds, records = time_checks(est)
        failed = [name for name, status, _, _ in records if status == "failed"]
        skipped = [name for name, status, _, _ in records if status == "skipped"]
        slowest = max(records, key=lambda r: r[2])
        rows.append((type(est).__name__, seconds, len(records), failed, skipped,
                     slowest[0], slowest[2]))
    return rows


# -- 6. whole fits, and the summary of the ratios -------------------------------------
class Target:
    """One summary figure: measured, the project's target, met or not, and why."""

    def __init__(self, what, value, bar, higher_is_better, size, cause=""):
        self.what, self.value, self.bar = what, value, bar
        self.met = value >= bar if higher_is_better else value <= bar
        self.sign = ">=" if higher_is_better else "<="
        self.size, self.cause = size, cause

    def row(self):
        """The console's row: against the target."""
        value = self.value if np.isfinite(self.value) else float("nan")
        return (self.what, self.size, f"{value:.3g}", f"{self.sign} {self.bar:g}",
                "met" if self.met else "**missed**", "" if self.met else self.cause)

    def page_row(self):
        """The page's row: the figure, and where the time goes when it disappoints."""
        value = self.value if np.isfinite(self.value) else float("nan")
        return (self.what, self.size, f"{value:.3g}", "" if self.met else self.cause)


def _whole_fit_sections(emit, args, scale, kernel_single, kernel_collection, iohmm,
                      memory_worst):
    bars = []
    emit("## 6. Whole fits")
    emit()
    fit = bench_fit_vs_hmmlearn(args.repeat, scale)
    n_seq, length, d = fit["shape"]
    size = f"{n_seq} x {length} x {d}, n=8"
    emit(f"{n_seq} sequences x {length} steps x {d} features, one binary label "
         "per sequence. hmmlearn: `GaussianHMM(8, \"diag\", n_iter=20)` (its k-means "
         "initialisation included, as in any fit; BLAS and OpenMP on one thread on "
         "both sides); skseq: `IOHMMClassifier(n_states=8, "
         "max_iter=20, tol=0, n_init=1, features=\"raw\")`, both solvers. Best of "
         f"{max(1, args.repeat // 2)}, interleaved. Iterations run (lbfgs, em, "
         f"hmmlearn): {fit['n_iter']}. The objective J reached after them (the "
         "penalised negative log-likelihood per sequence; lbfgs, em): "
         f"({fit['objective'][0]:.4g}, {fit['objective'][1]:.4g}): an iteration "
         "of each solver does different work, so the ratio of times says what an "
         "iteration costs, not how soon each solver fits.")
    emit()
    emit(table(["hmmlearn fit (s)", "skseq lbfgs fit (s)", "skseq em fit (s)",
                "hmmlearn / lbfgs", "em / lbfgs"],
               [(_fmt(fit["hmmlearn"]), _fmt(fit["lbfgs"]), _fmt(fit["em"]),
                 f"{fit['hmmlearn'] / fit['lbfgs']:.2f}",
                 f"{fit['em'] / fit['lbfgs']:.2f}")]))
    emit()
    bars.append(Target("GaussianHMM.fit / IOHMMClassifier.fit (lbfgs, 20 iterations)",
                    fit["hmmlearn"] / fit["lbfgs"], 30, True, size,
                    f"the lbfgs fit is ~21 evaluations of the fused value-and-"
                    f"gradient pass, ~{fit['lbfgs'] / 21 * 1e3:.0f} ms each on "
                    f"{n_seq * length:,} steps (the serial forward-backward chain, "
                    f"n^2 exp per step, doc/results/fused.md); hmmlearn's 20 "
                    f"iterations take {fit['hmmlearn']:.1f} s"))
    bars.append(Target("solver=\"em\" / solver=\"lbfgs\" (20 iterations)",
                    fit["em"] / fit["lbfgs"], 1.5, False, size,
                    "an EM iteration is the fused E-step (~1 lbfgs evaluation), "
                    "the weighted Gram matrices of the state networks' bound "
                    "step (T n d(d+1)/2 products) and the output networks' "
                    "L-BFGS M-step; an lbfgs iteration is ~1 evaluation"))

    thr = bench_fit_threads(args.repeat, scale)
    n_seq, length, d = thr["shape"]
    emit(f"Threads: the same lbfgs fit on {n_seq} x {length} x {d}, `n_jobs=1` "
         "against `n_jobs=2` (BLAS on one thread in both). Cores obtained: CPU time "
         "over wall time of one 2-thread fit (the speed-up cannot exceed it).")
    emit()
    emit(table(["n_jobs=1 (s)", "n_jobs=2 (s)", "speed-up", "cores obtained"],
               [(_fmt(thr["1"]), _fmt(thr["2"]), f"{thr['1'] / thr['2']:.2f}",
                 f"{thr['cores']:.2f}")]))
    emit()
    bars.append(Target("fit n_jobs=1 / n_jobs=2", thr["1"] / thr["2"], 1.6, True,
                    f"{n_seq} x {length} x {d}, n=8",
                    f"the process obtained {thr['cores']:.2f} cores during the "
                    "2-thread fit (the machine was shared): not measurable here"))

    rows = bench_default_restarts(args.repeat)
    emit("Restarts on small data: 30 one-step rows x 3 features; the default "
         "estimator (`n_init=\"auto\"`: 50 restarts here, in lockstep) against "
         "`n_init=1`. Dropped: restarts stopped early by the drop rule (their "
         "objective is above the best by more than the margin).")
    emit()
    emit(table(["estimator", "restarts", "default fit (s)", "n_init=1 fit (s)",
                "default / one", "iterations (best, one)", "dropped"],
               [(name, k, _fmt(a), _fmt(b), f"{a / b:.2f}", f"{i}, {j}", dr)
                for name, k, a, b, i, j, dr in rows]))
    emit()
    causes = {
        "IOHMMRegressor": "the lockstep batch runs as long as its slowest restart "
                          "(max_iter=200 here) and pays ~1 ms of Python per batched "
                          "evaluation",
        "HierarchicalIOHMM": "the lockstep batch forms every restart's level "
                             "factors, matrices and gradients in NumPy "
                             "(_families/hierarchy.py gradient_batch) and runs "
                             "one forward-backward per restart",
    }
    for name, _, a, b, _, _, _ in rows:
        bars.append(Target(f"{name}() fit / n_init=1 fit", a / b, 5, False,
                        "30 x 1 x 3", causes.get(name, "per-evaluation overhead")))

    sc = bench_score_samples(args.repeat, scale)
    n_seq, length, d = sc["shape"]
    best_hmm = min(sc["log"], sc["scaling"])
    emit(f"Scoring: {n_seq} sequences x {length} steps x {d} features, n=8: "
         "`IOHMMClassifier.score_samples` (validation, emissions, and the fused "
         "pass of skseq._kernels.fused: the transition matrices formed inside the "
         "kernel, the forward and backward recursions and an unused gradient) "
         "against `GaussianHMM.score` (both implementations; the faster counts).")
    emit()
    emit(table(["skseq score_samples (s)", "hmmlearn score, log (s)",
                "hmmlearn score, scaling (s)", "hmmlearn (best) / skseq"],
               [(_fmt(sc["skseq"]), _fmt(sc["log"]), _fmt(sc["scaling"]),
                 f"{best_hmm / sc['skseq']:.2f}")]))
    emit()
    bars.append(Target("GaussianHMM.score / score_samples", best_hmm / sc["skseq"], 1.0,
                    True, f"{n_seq} x {length} x {d}, n=8",
                    "score_samples runs the fused pass (forward, backward and "
                    "the unused gradient: there is no forward-only fused kernel)"))

    if args.no_check_estimator:
        emit("check_estimator: not timed (`--no-check-estimator`).")
        emit()
    else:
        rows = bench_check_estimator()
        emit("scikit-learn's `check_estimator` on every default estimator, one "
             "after the other in this process (seconds; the slowest check).")
        emit()
        emit(table(["estimator", "seconds", "checks", "failed", "skipped",
                    "slowest check (s)"],
                   [(name, f"{t:.1f}", k, ", ".join(f) or "-", ", ".join(sk) or "-",
                     f"{slow} ({ts:.1f})") for name, t, k, f, sk, slow, ts in rows]))
        emit()
        total = sum(r[1] for r in rows)
        bars.append(Target("check_estimator, all default estimators (s)", total, 180,
                        False, "sklearn's data", "see the table of section 6"))
        failed = [f"{name}: {', '.join(f)}" for name, _, _, f, _, _, _ in rows if f]
        bars.append(Target("check_estimator checks failed", len(failed), 0, False,
                        "sklearn's data", "; ".join(failed)))

    for n in (8, 32):
        bars.append(Target(f"kernels / hmmlearn, collection, n={n}",
                        kernel_collection[n], 2, True, "section 1",
                        "memory-bound on the shared machine"))
        bars.append(Target(f"kernels / hmmlearn, one long sequence, n={n}",
                        kernel_single[n], 2, True, "section 1",
                        "one long sequence streams T n^2 8 B of matrices from "
                        "memory three times; hmmlearn keeps one matrix in cache"))
    solver, n, peak, bar, ratio = memory_worst
    bars.append(Target("fit peak memory / (3 T n^2 8 B + data), worst case", ratio, 1.0,
                    False, f"{solver}, n={n}", "see section 5"))
    if "skipped" in iohmm:
        bars.append(Target("IOHMM package / skseq, one EM iteration", float("nan"), 100,
                        True, "section 4", f"not measured: {iohmm['skipped']}"))
    else:
        ratio = (iohmm["set_data"] + iohmm["train"]) / iohmm["skseq_fit"]
        bars.append(Target("IOHMM package / skseq, one EM iteration", ratio, 100, True,
                        "section 4",
                        f"skseq's fit {iohmm['skseq_fit'] * 1e3:.1f} ms against "
                        f"{iohmm['set_data'] + iohmm['train']:.2f} s; the ratio "
                        "swings by ~10% between runs on the shared machine (108x "
                        "in the page of commit aac08a8)"))
    return bars


def _console_summary(bars):
    """The summary against the project's targets, for the console only."""
    return ["Summary against the targets", "",
            table(["figure", "size", "measured", "target", "status",
                   "cause when missed"], [b.row() for b in bars]), ""]


def _page_summary(bars, quick):
    lines = ["## In short", ""]
    if quick:
        lines += ["**A `--quick` run: smaller data than the full run (a tenth of the "
                  "sequences, 100,000 memory steps); the sizes are in the table.**",
                  ""]
    lines += [
        "Each figure is a ratio of two measurements of this run (the "
        "`check_estimator` rows: seconds, and a count). In a row \"A / B\" of "
        "times, a figure above 1 means that B is faster; the kernel rows compare "
        "steps per second, a figure above 1 meaning that skseq's kernels are "
        "faster; the memory row is the peak over its bound. The last column says "
        "where the time goes, from the profile of this code, where a figure is "
        "weaker than the project aimed for.",
        "",
        table(["figure", "size", "ratio", "where the time goes"],
              [b.page_row() for b in bars]),
        ""]
    return lines


# -- report -------------------------------------------------------------------------
def _environment():
    import hmmlearn
    import scipy
    import sklearn

    import skseq

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "hmmlearn": hmmlearn.__version__,
        "skseq": skseq.__version__,
        "cpu": cpu,
        "cores": os.cpu_count(),
    }


ABOUT = """**What is measured.** How fast skseq's forward-backward kernels, fits and
scoring run, and how much memory a fit takes, against hmmlearn (`GaussianHMM`,
the usual hidden Markov model library for Python) and the `IOHMM` package (the
other input/output HMM implementation for Python), on synthetic data of the
sizes given in each section, every IOHMM with `features="raw"`. Every figure is
a ratio of two timings from the same run on the same 2-core machine, shared
with other work, so it says how the two compare, not how fast a machine is.
The models differ: hmmlearn fits one fixed transition matrix and a generative
model of the features; skseq a conditional model whose transition matrix
changes with every step's input, which costs more per step.

**Regenerate** with `python benchmarks/bench_speed.py` (a few minutes; the
`IOHMM` package rows need `--iohmm-python` pointing at a Python where it is
installed, as the script's docstring says).

**Limits.** An iteration of the generalized EM solver (`solver="em"`) costs
about as much as one of the default L-BFGS solver (the summary's ratio), but
the two iterations do different work: section 6 gives the objective each
reaches in the same number."""

NOTES = """## Reading these figures

- On one long sequence, with a matrix per step, skseq's E-step streams T n^2 8
  bytes three times (the forward pass reads the matrices, the backward pass reads
  them and writes xi over them), while hmmlearn's kernels keep their one matrix in
  cache: from n = 8 up, skseq's throughput there is bounded by memory bandwidth
  (at n = 32, 24 KiB per step), hmmlearn's by arithmetic. On a collection of
  sequences of ordinary length, the matrices of a sequence are still in cache when
  its backward pass reads them, and the arithmetic is what counts. This is why, at
  32 states, the single-sequence ratio stays below 2 while the collection ratio is
  above it.
- Timings are best-of-N wall-clock; on a machine shared with other work they
  swing by 5-10% between runs (the IOHMM ratio by as much), and the ratios of
  memory-bound kernels fall when other processes share the memory bus.
- The kernels are built twice: portable, and for AVX2 + FMA, which is picked at
  import time when the CPU has both (`skseq._kernels._build` picks it; the
  machine line above says which).
- The thread speed-up cannot exceed the cores the process obtained (last column of
  section 2); on a machine shared with other work it says little about the code.
- skseq's `fit` and `score_samples` also compute the transition matrices of every
  step from the inputs (a softmax per state and step, n^2 exp per step): the price
  of an input-driven model, which hmmlearn does not pay."""


def _fmt(x, digits=3):
    return f"{x:.{digits}g}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--quick", action="store_true",
                        help="smaller data (a smoke test, not for the record)")
    parser.add_argument("--iohmm-python", default=IOHMM_PYTHON)
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--memory-steps", type=int, default=1_000_000)
    parser.add_argument("--iohmm-worker", help=argparse.SUPPRESS)
    parser.add_argument("--no-check-estimator", action="store_true",
                        help="skip timing check_estimator (minutes)")
    parser.add_argument("--write-quick", action="store_true",
                        help="write the page even with --quick (it says so)")
    args = parser.parse_args()
    if args.iohmm_worker:
        iohmm_worker(args.iohmm_worker, args.repeat)
        return
    scale = 0.1 if args.quick else 1.0
    memory_steps = 100_000 if args.quick else args.memory_steps
    env = _environment()
    load_before = os.getloadavg()
    start = time.perf_counter()
    out = []

    def emit(text=""):
        print(text, flush=True)
        out.append(text)

    command = "python benchmarks/bench_speed.py" + (" --quick" if args.quick else "")
    if args.iohmm_python != IOHMM_PYTHON:
        command += " --iohmm-python PATH"
    if args.quick:
        command += " --write-quick" if args.write_quick else ""
    emit("# Speed: skseq against hmmlearn and the IOHMM package")
    emit()
    emit(ABOUT)
    emit()
    emit(f"Generated by `{command}` (best of {args.repeat} interleaved runs, "
         "wall-clock).")
    emit()
    from skseq._kernels.forward_backward import _forward_backward as _kernels

    emit(f"Machine: {env['cpu']}, {env['cores']} cores, kernels "
         f"`{_kernels.__name__}`. Python {env['python']}, "
         f"numpy {env['numpy']}, scipy {env['scipy']}, scikit-learn "
         f"{env['scikit-learn']}, hmmlearn {env['hmmlearn']}, skseq {env['skseq']}.")
    emit()
    header_end = len(out)

    # 1.
    rows = bench_kernels((2, 8, 32), args.repeat, scale)
    kernel_single = {n: min(st, g) / h for n, _, h, st, g in rows}
    emit("## 1. Forward-backward kernels, one thread")
    emit()
    emit("One sequence of T steps. skseq: a transition matrix per step, the E-step "
         "as the fit runs it (`forward_backward(..., xi_mode=XI_STEP or XI_GRAD, "
         "xi_out=trans)`: exp of the emissions, scaled forward, backward, and the "
         "per-step pairwise posteriors / logit gradient written over the matrices). "
         "hmmlearn: `_hmmc.forward_scaling` + `backward_scaling` + "
         "`compute_scaling_xi_sum` with one fixed matrix, given the likelihoods "
         "(their exp not timed). The per-step matrices take "
         f"{KERNEL_BYTES * scale / 2**20:.0f} MiB, streamed from memory.")
    emit()
    emit(table(
        ["n_states", "T", "hmmlearn (steps/s)", "skseq XI_STEP (steps/s)",
         "skseq XI_GRAD (steps/s)", "XI_STEP / hmmlearn", "XI_GRAD / hmmlearn"],
        [(n, T, _fmt(h), _fmt(s), _fmt(g), f"{s / h:.2f}", f"{g / h:.2f}")
         for n, T, h, s, g in rows],
    ))
    emit()
    rows = bench_kernels_collection((2, 8, 32), args.repeat, scale)
    kernel_collection = {n: min(st, g) / h for n, _, _, h, st, g in rows}
    emit("The same kernels on a collection of sequences of 50-150 steps (the same "
         "total size): hmmlearn's three kernels called per sequence, as its `fit` "
         "calls them; skseq's one call on the packed sequences. A sequence's "
         "matrices now stay in cache from its forward to its backward pass.")
    emit()
    emit(table(
        ["n_states", "sequences", "steps", "hmmlearn (steps/s)",
         "skseq XI_STEP (steps/s)", "skseq XI_GRAD (steps/s)", "XI_STEP / hmmlearn",
         "XI_GRAD / hmmlearn"],
        [(n, k, T, _fmt(h), _fmt(s), _fmt(g), f"{s / h:.2f}", f"{g / h:.2f}")
         for n, k, T, h, s, g in rows],
    ))
    emit()

    # 2.
    rows = bench_threads((2, 8, 32), args.repeat, scale)
    emit("## 2. Threads over sequences")
    emit()
    emit("The same E-step (`XI_STEP`) on many sequences of 50-150 steps, "
         "`n_jobs=1` against `n_jobs=2`. The last column is the process's CPU time "
         "over wall time during a 2-thread run: the speed-up cannot exceed it.")
    emit()
    emit(table(
        ["n_states", "sequences", "steps", "1 thread (steps/s)", "2 threads (steps/s)",
         "speed-up", "cores obtained with 2 threads"],
        [(n, s, T, _fmt(a), _fmt(b), f"{r:.2f}", f"{c:.2f}")
         for n, s, T, a, b, r, c in rows],
    ))
    emit()

    # 3.
    rows, (n_seq, length, n_features) = bench_end_to_end((2, 8), args.repeat, scale)
    emit("## 3. End to end against hmmlearn, same data")
    emit()
    emit(f"{n_seq} sequences of {length} steps, {n_features} features, one binary "
         "label per sequence. skseq: `IOHMMClassifier(n_states=n, solver=\"em\", "
         "max_iter=1, n_init=1)` (input-driven transitions and outputs); hmmlearn: "
         "`GaussianHMM(n_components=n, covariance_type=\"diag\", n_iter=1)` on the "
         "concatenated steps with `lengths`. The models differ (a conditional "
         "model of the labels against a generative model of the features); what "
         "is compared is the time to score and to run one EM iteration on the same "
         "sequences. `score_samples` includes validation, the per-step transition "
         "matrices (softmax of the state networks) and the forward pass; hmmlearn's "
         "`score` its emission log-likelihoods and forward pass (`implementation`: "
         "`log` is hmmlearn's default). skseq's `fit` includes validation, "
         "initialisation, one E-step, the M-step (a bound step for the state "
         "networks, 5 L-BFGS iterations for the output networks) and the "
         "E-step at its result; hmmlearn's `fit` includes its "
         "k-means initialisation (best of fewer runs: it is slow), the last column "
         "starts from fitted parameters (`init_params=\"\"`), i.e. one bare EM "
         "iteration. BLAS and OpenMP are limited to one thread on both sides.")
    emit()
    emit(table(
        ["n_states", "steps", "skseq score_samples (s)", "hmmlearn score, log (s)",
         "hmmlearn score, scaling (s)", "hmmlearn score / skseq (best impl.)"],
        [(n, T, _fmt(s[0]), _fmt(s[1]), _fmt(s[2]), f"{min(s[1], s[2]) / s[0]:.2f}")
         for n, T, s, _ in rows],
    ))
    emit()
    emit(table(
        ["n_states", "skseq fit, 1 EM iter (s)", "hmmlearn fit, log (s)",
         "hmmlearn fit, scaling (s)", "hmmlearn 1 EM iter, no init (s)",
         "hmmlearn bare iter / skseq fit"],
        [(n, _fmt(f[0]), _fmt(f[1]), _fmt(f[2]), _fmt(f[3]), f"{f[3] / f[0]:.2f}")
         for n, _, _, f in rows],
    ))
    emit()

    # 4.
    res = bench_iohmm(args.iohmm_python, args.repeat, scale)
    n_seq, length, n_features = res["shape"]
    emit("## 4. One EM iteration against the IOHMM package")
    emit()
    emit(f"{n_seq} sequences of {length} steps, {n_features} input features, a "
         f"binary output at every step, {IOHMM_STATES} states. skseq: "
         "`IOHMMClassifier(solver=\"em\", max_iter=1, n_init=1)` with step-level "
         "labels (softmax state networks of the inputs, softmax output networks of "
         "the inputs), the whole `fit`. IOHMM: `UnSupervisedIOHMM(max_EM_iter=1)` "
         "with `CrossEntropyMNL` transitions of the same inputs and a "
         "`DiscreteMNL` output of the same inputs; `set_data` (its validation and "
         "random initial posteriors) plus `train` (one M-step, scikit-learn "
         "L-BFGS to convergence, then one E-step), run in its own environment.")
    emit()
    if "skipped" in res:
        emit(f"IOHMM part skipped: {res['skipped']}. skseq fit: "
             f"{res['skseq_fit']:.4f} s.")
    else:
        iohmm = res["set_data"] + res["train"]
        emit(table(
            ["IOHMM version (numpy)", "IOHMM set_data + train (s)",
             "IOHMM train only (s)", "skseq fit (s)", "speed-up"],
            [(f"{res['version']} ({res['numpy']})", _fmt(iohmm), _fmt(res["train"]),
              _fmt(res["skseq_fit"]), f"{iohmm / res['skseq_fit']:.0f}x")],
        ))
    emit()

    # 5.
    rows = bench_memory_rows((2, 4, 8), memory_steps)
    memory_worst = max(rows, key=lambda row: row[4])
    emit("## 5. Peak memory of fit")
    emit()
    emit(f"`benchmarks/bench_memory.py`: one sequence of {memory_steps} steps "
         "(plus one of 5), 1 feature, 3 iterations, tracemalloc peak of `fit`, "
         "against the bound 3 x T n^2 8 bytes + the data (three arrays of the "
         "size of the per-step transition matrices).")
    emit()
    emit(table(["solver", "n_states", "peak (MB)", "bound (MB)", "peak / bound"],
               [(s, n, f"{p:.1f}", f"{b:.1f}", f"{r:.2f}") for s, n, p, b, r in rows]))
    emit()
    # 6. One BLAS / OpenMP thread on both sides, as in section 3 (hmmlearn's
    # k-means otherwise spins OpenMP threads for seconds on a busy machine;
    # skseq pins BLAS to one thread in fit anyway, its n_jobs threads are its own).
    from sklearn.exceptions import ConvergenceWarning
    from threadpoolctl import threadpool_limits

    with warnings.catch_warnings(), threadpool_limits(limits=1):
        warnings.simplefilter("ignore", ConvergenceWarning)
        bars = _whole_fit_sections(emit, args, scale, kernel_single,
                                 kernel_collection, res, memory_worst)
    load_after = os.getloadavg()
    emit(f"Load average (1 min) {load_before[0]:.1f} before, {load_after[0]:.1f} "
         f"after; {time.perf_counter() - start:.0f} s in all.")
    emit()
    emit(NOTES)
    # The summary goes first, after the header; the targets only to the console.
    out[header_end:header_end] = _page_summary(bars, args.quick)
    print("\n".join(_console_summary(bars)))
    if not args.quick or args.write_quick:
        args.output.write_text("\n".join(out) + "\n")
        print(f"\nwritten to {args.output}")


if __name__ == "__main__":
    main()
