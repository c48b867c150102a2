"""Speed of the per-step representations (issue 14) against sktime's MiniRocket.

Everything is measured side by side in one run on this machine and written as
Markdown to ``doc/results/representations.md``:

* ``DilatedConvolution()`` (the defaults: 84 kernels x 4 dilations x 2 biases =
  672 indicators per step): fit (the bias quantiles) and transform, one thread
  and two;
* the same followed by ``RunningPooling()`` (the running PPV of every
  indicator), the same fused (``DilatedConvolution(pooling="prefix")``), and
  ``RunningPooling()`` alone on the 672 indicators;
* sktime's MiniRocket (its numba transform; compilation excluded by a warm-up
  call): the default 9,996 features and 672 features (``num_kernels=672``), one
  numba thread.

on three sets of the real-data panel (train and test sequences together; the
representations are fitted on the training split): ArrowHead (univariate, equal
lengths), PLAID (univariate, 100 to 1,344 steps; the first sequences up to
``--plaid-steps`` steps, because 672 float64 features per step take 5.4 kB a
step) and BasicMotions (6 channels).

Throughput is counted in *steps x features per second*: MiniRocket evaluates
every feature's indicator at every step and keeps their means, one row per
sequence; DilatedConvolution evaluates as many indicators but writes all of
them, one row per step.

Timings are wall-clock, the best of ``--repeat`` runs, interleaved (A, B, C, A,
B, C, ...) so that load from other processes hits every case alike; the load
average is recorded.

    python benchmarks/bench_representations.py [--repeat 5] [--quick]
"""

import argparse
import os
import platform
import time
import warnings

import _report
import _ucr
import numpy as np

from skseq.preprocessing import DilatedConvolution, RunningPooling


HEADER = ["set", "sequences", "steps", "transform", "features", "seconds",
          "M steps x features / s", "speed / MiniRocket (9,996)", "cores obtained"]


def best_times(cases, repeat):
    """Best wall time of every case (a callable), run interleaved, and the
    process's CPU time over the wall time of that run: the cores it obtained."""
    best, cores = [np.inf] * len(cases), [0.0] * len(cases)
    for _ in range(repeat):
        for k, run in enumerate(cases):
            start, cpu = time.perf_counter(), time.process_time()
            run()
            wall = time.perf_counter() - start
            if wall < best[k]:
                best[k], cores[k] = wall, (time.process_time() - cpu) / wall
    return best, cores


def _minirocket(X, num_kernels):
    """sktime's MiniRocket for X's shape: univariate, multivariate, or unequal
    lengths; and X in the form it takes."""
    from sktime.transformations.panel.rocket import (
        MiniRocket,
        MiniRocketMultivariate,
        MiniRocketMultivariateVariable,
    )

    lengths = {len(x) for x in X}
    n_channels = X[0].shape[1]
    if len(lengths) > 1:
        import pandas as pd

        return (MiniRocketMultivariateVariable(num_kernels=num_kernels,
                                               random_state=0),
                lambda Z: [pd.DataFrame(z) for z in Z])
    cls = MiniRocket if n_channels == 1 else MiniRocketMultivariate
    return (cls(num_kernels=num_kernels, random_state=0, n_jobs=1),
            lambda Z: np.stack([z.T for z in Z]).astype(np.float32))


def _cap(X, max_steps):
    """The first sequences of X holding at most ``max_steps`` steps."""
    total = np.cumsum([len(x) for x in X])
    return X[: max(1, int(np.searchsorted(total, max_steps, side="right")))]


def agreement_with_minirocket():
    """Largest difference between sktime's MiniRocket features and the means of
    our convolution's indicators at MiniRocket's fitted dilations and biases.

    Our kernel run centred with zero padding is MiniRocket's convolution; its
    PPV is the mean of the indicators over all steps, or, for every other
    (kernel, dilation) pair, over the steps whose window lies inside the
    series. Small integers make both sides' sums exact (sktime computes in
    float32), so they must agree exactly.
    """
    from sktime.transformations.panel.rocket import MiniRocket

    from skseq import _convolve

    rng = np.random.default_rng(0)
    n, length = 12, 120
    X = rng.integers(-6, 7, size=(n, 1, length)).astype(np.float32)
    rocket = MiniRocket(random_state=0, n_jobs=1).fit(X)
    expected = rocket.transform(X).to_numpy()
    dilations, per_dilation, biases = rocket.parameters
    n_comb = 84 * len(dilations)
    values = _convolve.dilated_convolution(
        X[:, 0].reshape(-1, 1).astype(np.float64),
        np.arange(0, n * length + 1, length), np.arange(n * length),
        dilations=np.asarray(dilations, dtype=np.intp),
        combination_ptr=np.arange(len(dilations) + 1) * 84,
        positions=np.tile(_convolve.KERNEL_POSITIONS, (len(dilations), 1)),
        channel_ptr=np.arange(n_comb + 1), channels=np.zeros(n_comb, np.intp),
        biases=np.empty((n_comb, 0)), causal=False, zero_pad=True,
    ).reshape(n, length, n_comb)
    ours = np.empty_like(expected)
    f = 0
    for i, d in enumerate(dilations):
        pad = 4 * d
        for k in range(84):
            conv = values[:, :, 84 * i + k]
            if (i + k) % 2:
                conv = conv[:, pad : length - pad]
            for _ in range(per_dilation[i]):
                ours[:, f] = (conv > biases[f]).mean(axis=1)
                f += 1
    return expected.shape[1], float(np.abs(ours - expected).max())


def bench_set(name, repeat, plaid_steps):
    X_train, _, X_test, _ = _ucr.load(name)
    X_all = X_train + X_test
    if name == "PLAID":
        X_all = _cap(X_all, plaid_steps)
        X_train = _cap(X_train, plaid_steps // 2)
    n_steps = sum(len(x) for x in X_all)

    conv = DilatedConvolution(random_state=0).fit(X_train)
    conv2 = DilatedConvolution(random_state=0, n_jobs=2).fit(X_train)
    prefix = DilatedConvolution(random_state=0, pooling="prefix").fit(X_train)
    pool = RunningPooling()
    indicators = conv.transform(X_all)
    pool.fit(indicators)
    n_ours = indicators[0].shape[1]
    rockets = []
    for num_kernels in (10_000, n_ours):
        rocket, convert = _minirocket(X_all, num_kernels)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # sktime deprecation notices
            rocket.fit(convert(X_train))
            n_features = rocket.transform(convert(X_all[:2])).shape[1]  # compile
        rockets.append((rocket, convert, n_features))
    del indicators

    def quiet(run):
        def wrapped():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                run()
        return wrapped

    cases = {
        "DilatedConvolution, 1 thread": (n_ours, lambda: conv.transform(X_all)),
        "DilatedConvolution, 2 threads": (n_ours, lambda: conv2.transform(X_all)),
        "DilatedConvolution + RunningPooling(), 1 thread": (
            n_ours, lambda: pool.transform(conv.transform(X_all))),
        "DilatedConvolution(pooling='prefix'), 1 thread": (
            n_ours, lambda: prefix.transform(X_all)),
    }
    for rocket, convert, n_features in rockets:
        label = f"sktime MiniRocket ({n_features} features), 1 thread"
        cases[label] = (n_features, quiet(
            lambda r=rocket, c=convert: r.transform(c(X_all))))
    times, cores = best_times([run for _, run in cases.values()], repeat)

    # RunningPooling alone, on precomputed indicators (its input not timed).
    indicators = conv.transform(X_all)
    (pool_time,), (pool_cores,) = best_times([lambda: pool.transform(indicators)],
                                             repeat)
    del indicators
    (fit_ours, fit_rocket), _ = best_times(
        [lambda: DilatedConvolution(random_state=0).fit(X_train),
         quiet(lambda r=rockets[0][0], c=rockets[0][1]: r.fit(c(X_train)))], repeat)

    # MiniRocket at its default width: the first MiniRocket case.
    reference = times[list(cases).index(next(k for k in cases if "MiniRocket" in k))]
    rows = []
    for (label, (n_features, _)), seconds, used in zip(cases.items(), times, cores,
                                                       strict=True):
        rows.append([name, len(X_all), n_steps, label, n_features,
                     f"{seconds:.3f}", f"{n_steps * n_features / seconds / 1e6:.0f}",
                     f"{reference / seconds:.2f}", f"{used:.2f}"])
    rows.append([name, len(X_all), n_steps, "RunningPooling() alone", n_ours,
                 f"{pool_time:.3f}", f"{n_steps * n_ours / pool_time / 1e6:.0f}",
                 f"{reference / pool_time:.2f}", f"{pool_cores:.2f}"])
    fit_row = [name, len(X_train), sum(len(x) for x in X_train), f"{fit_ours:.3f}",
               f"{fit_rocket:.3f}"]
    return rows, fit_row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true",
                        help="ArrowHead only, 2 repeats (a smoke test)")
    parser.add_argument("--plaid-steps", type=int, default=100_000)
    args = parser.parse_args()
    # One numba thread for MiniRocket: read when sktime first imports numba.
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    sets = ["ArrowHead"] if args.quick else ["ArrowHead", "PLAID", "BasicMotions"]
    repeat = 2 if args.quick else args.repeat
    load_before = os.getloadavg()
    start = time.perf_counter()
    rows, fit_rows = [], []
    for name in sets:
        r, f = bench_set(name, repeat, args.plaid_steps)
        rows += r
        fit_rows.append(f)
        print(_report.table(HEADER, r), flush=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        n_checked, difference = agreement_with_minirocket()
    load_after = os.getloadavg()
    command = "python benchmarks/bench_representations.py" + (
        " --quick" if args.quick else "")
    text = "\n".join([
        "# Speed: per-step representations against MiniRocket",
        "",
        f"Generated by `{command}` (best of {repeat} interleaved runs, "
        f"wall-clock, {time.perf_counter() - start:.0f} s in all). Issue 14.",
        "",
        f"{_report.versions('sktime', 'numba')}. "
        f"Load average {load_before[0]:.1f} before, {load_after[0]:.1f} after "
        f"(the machine is shared; {platform.processor() or platform.machine()}).",
        "",
        "## Transform",
        "",
        "Train and test sequences together (PLAID: the first sequences up to "
        f"{args.plaid_steps:,} steps). `DilatedConvolution()` with its defaults "
        "(84 kernels x 4 dilations x 2 biases, causal, edge padding, fitted on the "
        "training split) writes one row of indicators per step; MiniRocket one row "
        "of proportions of positive values per sequence. Throughput in steps x "
        "features per second; `speed / MiniRocket` is the time of MiniRocket "
        "(9,996 features) over the time of the row; `cores obtained` is the "
        "process's CPU time over the wall time of the timed run (a 2-thread "
        "speed-up cannot exceed it on a loaded machine).",
        "",
        _report.table(HEADER, rows),
        "",
        "## Fit",
        "",
        "`DilatedConvolution().fit` draws the channel subsets and computes the "
        "bias quantiles from the convolutions at up to 10,000 training steps; "
        "MiniRocket's fit (9,996 features) draws its biases from the convolution "
        "of one training sequence per feature.",
        "",
        _report.table(["set", "training sequences", "training steps",
                       "DilatedConvolution fit (s)", "MiniRocket fit (s)"],
                      fit_rows),
        "",
        "## Same convolution as MiniRocket",
        "",
        "sktime's MiniRocket fitted on 12 random series of 120 small integers "
        "(exact sums on both sides); our kernel run centred with zero padding, "
        "thresholded at MiniRocket's biases and averaged as it averages (all "
        "steps, or the unpadded middle for alternate kernel/dilation pairs): "
        f"largest difference over the {n_checked:,} features "
        f"**{difference:g}**.",
        "",
    ])
    _report.write("representations.md", text)


if __name__ == "__main__":
    main()
