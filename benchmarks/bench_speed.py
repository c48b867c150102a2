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
recorded with the results. The page's sections, summary and notes are written
by ``_speed_report.py`` from the measurements made here.

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
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import _speed_report as page
import numpy as np
from _speed_report import IOHMM_STATES, KERNEL_BYTES

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "doc" / "results" / "speed.md"
IOHMM_PYTHON = os.environ.get("SKSEQ_IOHMM_PYTHON", "/work/iohmm-venv/bin/python")


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


# -- 6. whole fits ----------------------------------------------------------------
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


def _parser():
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
    return parser


def _command(args):
    """The command line the page says it was generated by."""
    command = "python benchmarks/bench_speed.py" + (" --quick" if args.quick else "")
    if args.iohmm_python != IOHMM_PYTHON:
        command += " --iohmm-python PATH"
    if args.quick:
        command += " --write-quick" if args.write_quick else ""
    return command


def _whole_fit_sections(emit, args, scale):
    """Section 6, measured and written; its summary figures. One BLAS / OpenMP
    thread on both sides, as in section 3 (hmmlearn's k-means otherwise spins
    OpenMP threads for seconds on a busy machine; skseq pins BLAS to one thread
    in fit anyway, its n_jobs threads are its own)."""
    from sklearn.exceptions import ConvergenceWarning
    from threadpoolctl import threadpool_limits

    with warnings.catch_warnings(), threadpool_limits(limits=1):
        warnings.simplefilter("ignore", ConvergenceWarning)
        bars = page.whole_fits_section(
            emit, bench_fit_vs_hmmlearn(args.repeat, scale), args.repeat)
        bars += page.fit_threads_section(emit, bench_fit_threads(args.repeat, scale))
        bars += page.restarts_section(emit, bench_default_restarts(args.repeat))
        bars += page.scoring_section(emit, bench_score_samples(args.repeat, scale))
        bars += page.check_estimator_section(
            emit, None if args.no_check_estimator else bench_check_estimator())
    return bars


def main():
    args = _parser().parse_args()
    if args.iohmm_worker:
        iohmm_worker(args.iohmm_worker, args.repeat)
        return
    scale = 0.1 if args.quick else 1.0
    memory_steps = 100_000 if args.quick else args.memory_steps
    env = page.environment()
    load_before = os.getloadavg()
    start = time.perf_counter()
    out = []

    def emit(text=""):
        print(text, flush=True)
        out.append(text)

    from skseq._kernels.forward_backward import _forward_backward as _kernels

    page.header(emit, _command(args), args.repeat, env, _kernels.__name__)
    header_end = len(out)
    kernel_rows = bench_kernels((2, 8, 32), args.repeat, scale)
    page.kernels_section(emit, kernel_rows, scale)
    collection_rows = bench_kernels_collection((2, 8, 32), args.repeat, scale)
    page.collection_section(emit, collection_rows)
    page.threads_section(emit, bench_threads((2, 8, 32), args.repeat, scale))
    page.end_to_end_section(emit, *bench_end_to_end((2, 8), args.repeat, scale))
    iohmm = bench_iohmm(args.iohmm_python, args.repeat, scale)
    page.iohmm_section(emit, iohmm)
    memory_rows = bench_memory_rows((2, 4, 8), memory_steps)
    page.memory_section(emit, memory_rows, memory_steps)
    bars = _whole_fit_sections(emit, args, scale)
    bars += page.summary_targets(kernel_rows, collection_rows, memory_rows, iohmm)
    page.footer(emit, (load_before[0], os.getloadavg()[0]),
                time.perf_counter() - start)
    # The summary goes first, after the header; the targets only to the console.
    out[header_end:header_end] = page.page_summary(bars, args.quick)
    print("\n".join(page.console_summary(bars)))
    if not args.quick or args.write_quick:
        args.output.write_text("\n".join(out) + "\n")
        print(f"\nwritten to {args.output}")


if __name__ == "__main__":
    main()
