"""The fused value-and-gradient pass against today's NumPy path (issue 15, item 1-2).

Everything is measured side by side in one run and written to
``doc/results/fused.md``:

1. one value-and-gradient of the state networks, ``"input"`` family, at n = 2, 4,
   8, 16 states and 8 features, on 1,000 sequences x 50 steps and on one sequence
   of 50,000 steps: the unfused path (the family's ``gradient_pass``: the (T, n, n)
   matrices, ``forward_backward`` writing the logit gradient over them, the
   family's ``backward``) against
   ``LinearTransitionPass`` (prepared once per data set, as a fit would); one
   thread, then two;
2. the ``"additive"`` family at 8 states;
3. peak memory of both paths (tracemalloc; the fused kernel's own scratch, C
   ``malloc`` that tracemalloc cannot see, is added from its formula);
4. R restarts in one call against R calls of one restart;
5. the builds of the kernel (portable, AVX2, AVX-512) on the same pass.

Timings are wall-clock, the best of ``--repeat`` runs, interleaved (A, B, A, B,
...) so that load from other processes hits both sides alike; BLAS runs on one
thread on both sides.

    PYTHONPATH=$PWD python benchmarks/bench_fused.py [--quick] [--repeat 7]
"""

import argparse
import os
import time
import tracemalloc

import numpy as np
from _report import table, versions, write
from bench_speed import best_times
from threadpoolctl import threadpool_limits

import skseq._kernels.fused as fused
from skseq._families.transitions import AdditiveTransitions, InputTransitions
from skseq._kernels._build import available, build
from skseq._kernels.forward_backward import Chain
from skseq._kernels.fused import LinearTransitionPass

N_FEATURES = 8


def _data(rng, lengths, n, family):
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.intp)
    T = int(offsets[-1])
    U = rng.normal(size=(T, N_FEATURES))
    fam = {"input": InputTransitions, "additive": AdditiveTransitions}[family](
        n, N_FEATURES)
    theta = fam.init(rng, 1.0)
    log_emit = np.zeros((T, n))
    last = offsets[1:] - 1  # one target per sequence, at its last step
    log_emit[last] = -np.abs(rng.normal(size=(len(last), n)))
    return dict(family=family, fam=fam, theta=theta, U=U, offsets=offsets,
                log_emit=log_emit, startprob=np.full(n, 1.0 / n))


def unfused(d, n_jobs=1):
    """Today's path, the family's own ``gradient_pass``: the (T, n, n) matrices,
    the logit gradient written over them, and the family's backward."""
    chain = Chain(d["startprob"], d["log_emit"], d["offsets"], n_jobs=n_jobs)
    return d["fam"].gradient_pass(d["theta"], d["U"], None, chain)


def fused_pass(d, n_jobs=1, R=1):
    """The fused pass, prepared once per data set as a fit would (the preparation
    is not timed), on R copies of the parameters."""
    key = ("pass", n_jobs)
    if key not in d:
        d[key] = LinearTransitionPass(d["family"], d["U"], d["offsets"],
                                      n_states=d["startprob"].shape[0], n_jobs=n_jobs)
    if ("params", R) not in d:
        p = d["fam"].unpack(d["theta"])
        d["params", R] = (np.tile(d["startprob"], (R, 1)),
                          np.tile(p["coef"], (R,) + (1,) * p["coef"].ndim),
                          np.tile(p["intercept"], (R, 1, 1)),
                          np.tile(d["log_emit"], (R, 1, 1)))
    return d[key](*d["params", R])


def _cores_obtained(run):
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return (time.process_time() - cpu) / (time.perf_counter() - wall)


def bench_pass(states, family, shapes, repeat):
    rows = []
    for n in states:
        for name, lengths in shapes:
            d = _data(np.random.default_rng(n), lengths, n, family)
            T = int(d["offsets"][-1])
            t_u1, t_f1, t_u2, t_f2 = best_times(
                [(None, lambda _, d=d: unfused(d, 1)),
                 (None, lambda _, d=d: fused_pass(d, 1)),
                 (None, lambda _, d=d: unfused(d, 2)),
                 (None, lambda _, d=d: fused_pass(d, 2))], repeat)
            cores = _cores_obtained(lambda d=d: fused_pass(d, 2))
            rows.append((n, name, T, t_u1, t_f1, t_u2, t_f2, cores))
    return rows


def _peak(run):
    run()  # the preparation (once per fit) and first-call allocations untraced
    tracemalloc.start()
    run()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def kernel_scratch_bytes(n, lengths, threads):
    """The fused kernel's own buffers (C malloc), per thread: a block of matrices,
    the emissions of the longest sequence or block, row sums and the lanes."""
    block = fused._fused.block_steps(n)
    longest = int(np.max(lengths))
    per_thread = (block * n * n + max(block, longest) * n + 2 * block * n
                  + 4 * 4 * n + 3 * n * n) * 8
    return per_thread * threads


def bench_memory(states, shapes):
    rows = []
    for n in states:
        for name, lengths in shapes:
            d = _data(np.random.default_rng(n), lengths, n, "input")
            T = int(d["offsets"][-1])
            peak_u = _peak(lambda d=d: unfused(d, 1))
            peak_f = _peak(lambda d=d: fused_pass(d, 1))
            scratch = kernel_scratch_bytes(n, lengths, 1)
            rows.append((n, name, T, peak_u, peak_f + scratch, T * n * n * 8))
    return rows


def bench_restarts(n, shapes, restarts, repeat):
    rows = []
    for name, lengths in shapes:
        d = _data(np.random.default_rng(5), lengths, n, "input")
        for R in restarts:
            def separate(_, d=d, R=R):
                for _ in range(R):
                    fused_pass(d, 1, 1)

            t_sep, t_batch, t_unfused = best_times(
                [(None, separate), (None, lambda _, d=d, R=R: fused_pass(d, 1, R)),
                 (None, lambda _, d=d, R=R: [unfused(d, 1) for _ in range(R)])],
                repeat)
            rows.append((name, R, t_unfused, t_sep, t_batch))
    return rows


def bench_builds(states, lengths, repeat):
    builds = available("_fused")[::-1]  # portable first
    modules = [build("_fused", b) for b in builds]
    names = [m.__name__.rpartition(".")[2] for m in modules]
    chosen = fused._fused
    rows = []
    for n in states:
        d = _data(np.random.default_rng(n), lengths, n, "input")

        def with_build(module, d=d):
            def run(_):
                fused._fused = module
                try:
                    fused_pass(d, 1)
                finally:
                    fused._fused = chosen
            return run

        times = best_times([(None, with_build(m)) for m in modules], repeat)
        rows.append((n, dict(zip(names, times, strict=True))))
    return rows, names


def _ms(t):
    return f"{1e3 * t:.3g}"


def _section(title, text, header, rows):
    """A Markdown section (title, what was measured, table), printed at once."""
    lines = [f"## {title}", "", text, "", table(header, rows), ""]
    print("\n".join(lines), flush=True)
    return lines


ABOUT = """**What is measured.** One evaluation of the fit's objective and its gradient
with respect to the state networks, the inner loop of every `fit` with the
default L-BFGS solver, computed two ways inside skseq: by the compiled fused
pass, which forms each step's transition matrix inside the forward-backward
recursion, and by the earlier NumPy path, which builds all (T, n, n) matrices
first. No other library fits this model, so the peer is skseq's own unfused
path; section 5 compares the builds of the kernel. Synthetic data: 1,000
sequences of 50 steps, or one sequence of 50,000 steps, with 8 features.

**Regenerate** with `python benchmarks/bench_fused.py` (a few minutes).

**Limits.** On one long sequence with 2 to 8 states, and with 4 states on the
collection, the fused pass was no faster than the unfused one in this run
(0.81-0.96x): the chain of steps is serial and the exponentials dominate. The
machine was shared with other work and two threads often obtained about half a
core between them ("cores obtained"), so the two-thread columns say little
about the code."""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--quick", action="store_true",
                        help="smaller data (a smoke test, not for the record)")
    args = parser.parse_args()
    n_seq = 100 if args.quick else 1000
    shapes = [(f"{n_seq} x 50", np.full(n_seq, 50)),
              (f"1 x {50 * n_seq}", np.array([50 * n_seq]))]
    small = [("30 x 1", np.ones(30, dtype=int)), ("100 x 20", np.full(100, 20)),
             shapes[0]]
    load, clock = os.getloadavg()[0], time.perf_counter()
    doc = ["# Fused value-and-gradient pass of the state networks", "", ABOUT, "",
           "Generated by `python benchmarks/bench_fused.py` (best of "
           f"{args.repeat} interleaved runs, wall-clock, BLAS on one thread). "
           f"{versions()}; kernel "
           f"`{fused._fused.__name__}`.", ""]
    with threadpool_limits(limits=1, user_api="blas"):
        doc += _family_sections(shapes, args.repeat)
        doc += _cost_sections(shapes, small, args.repeat)
    doc.append(f"Load average (1 min) {load:.1f} before, {os.getloadavg()[0]:.1f} "
               f"after; {time.perf_counter() - clock:.0f} s in all.")
    if not args.quick:
        write("fused.md", "\n".join(doc) + "\n")


def _family_sections(shapes, repeat):
    """Sections 1-2: one value and gradient of the `input` and `additive` families."""
    doc = []
    rows = bench_pass((2, 4, 8, 16), "input", shapes, repeat)
    doc += _section(
        "1. One value and gradient, `input` family, 8 features",
        "Unfused: `InputTransitions.gradient_pass` (the (T, n, n) matrices, "
        "`forward_backward` writing the logit gradient over them, the family's "
        "`backward`: today's lbfgs evaluation of the state networks). Fused: a "
        "`LinearTransitionPass` prepared once per data set (untimed, as once "
        "per fit), then called. One target per sequence (its last step). "
        "Threads: `n_jobs` of both (the unfused path threads only its "
        "forward-backward kernel). The last column: CPU time over wall time of "
        "a 2-thread fused run (the 2-thread speed-up cannot exceed it).",
        ["n_states", "data", "unfused 1 thread (ms)", "fused 1 thread (ms)",
         "speed-up, 1 thread", "unfused 2 threads (ms)", "fused 2 threads (ms)",
         "speed-up, 2 threads", "fused 2 / 1 threads", "cores obtained"],
        [(n, name, _ms(u1), _ms(f1), f"{u1 / f1:.2f}", _ms(u2), _ms(f2),
          f"{u2 / f2:.2f}", f"{f1 / f2:.2f}", f"{c:.2f}")
         for n, name, T, u1, f1, u2, f2, c in rows])
    rows = bench_pass((8,), "additive", shapes[:1], repeat)
    doc += _section(
        "2. The `additive` family, 8 states",
        "z_t[j, i] = (u_t V)_i + B[j, i]: the fused kernel takes n exponentials "
        "per step (exp(a_i) exp(B[j, i]) up to a row constant) instead of n^2.",
        ["n_states", "data", "unfused (ms)", "fused (ms)", "speed-up, 1 thread",
         "speed-up, 2 threads"],
        [(n, name, _ms(u1), _ms(f1), f"{u1 / f1:.2f}", f"{u2 / f2:.2f}")
         for n, name, T, u1, f1, u2, f2, c in rows])
    return doc


def _cost_sections(shapes, small, repeat):
    """Sections 3-5: peak memory, restarts in one call, builds of the kernel."""
    doc = []
    rows = bench_memory((2, 8), shapes)
    doc += _section(
        "3. Peak memory of one value and gradient",
        "tracemalloc peak of each path (NumPy reports its arrays to it); the "
        "fused kernel's own C scratch (a 1 MiB block of matrices, the emissions "
        "of its longest sequence, per thread) is added from its formula. The "
        "outputs (posteriors (T, n), gradient) are included.",
        ["n_states", "data", "unfused peak (MB)", "fused peak (MB)",
         "unfused / fused", "T n^2 8 B (MB)"],
        [(n, name, f"{pu / 1e6:.1f}", f"{pf / 1e6:.2f}", f"{pu / pf:.1f}",
          f"{b / 1e6:.1f}") for n, name, T, pu, pf, b in rows])
    rows = bench_restarts(4, small, (1, 8, 32), max(3, repeat // 2))
    doc += _section(
        "4. Restarts in one call",
        "R parameter sets of 4 states: one call of the prepared pass with all R "
        "against R calls of one, and R unfused evaluations; one thread. The "
        "fixed cost of a call (validation, allocation, Python) is paid once.",
        ["data", "R", "unfused, R calls (ms)", "fused, R calls (ms)",
         "fused, one call (ms)", "R calls / one call", "unfused / fused one call"],
        [(name, R, _ms(tu), _ms(ts), _ms(tb), f"{ts / tb:.2f}", f"{tu / tb:.2f}")
         for name, R, tu, ts, tb in rows])
    rows, builds = bench_builds((2, 8), shapes[0][1], repeat)
    doc += _section(
        "5. Builds of the kernel",
        f"The same fused pass ({shapes[0][0]}, `input`, one thread) with each "
        "build this CPU runs; `skseq._kernels._build` picks the widest.",
        ["n_states", *[f"{b} (ms)" for b in builds],
         *[f"{b} / portable" for b in builds[1:]]],
        [(n, *[_ms(t[b]) for b in builds],
          *[f"{t[builds[0]] / t[b]:.2f}" for b in builds[1:]]) for n, t in rows])
    return doc


if __name__ == "__main__":
    main()
