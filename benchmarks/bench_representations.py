"""Speed of the per-step representations against sktime's MiniRocket.

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

It then measures the inputs of ``features="shape"`` (``ShapeFeatures``, fitted
on the training split with its defaults), on the training splits of all four
sets of the panel: the fused kernel
(``skseq._kernels.convolution.prefix_indicators``: every step's 8 state
components and the 128 output components at the last steps) against the
NumPy walk it replaced (every step's indicators written, then projected and
summed; a copy of it is kept below as the reference) and
against sktime's MiniRocket transform; and where the time of the default
``IOHMMClassifier(random_state=0).fit`` goes.

Timings are wall-clock, the best of ``--repeat`` runs, interleaved (A, B, C, A,
B, C, ...) so that load from other processes hits every case alike; the load
average is recorded. The page (its tables' headers and prose) is rendered by
``_representations_report.py``; ``--render`` rewrites its prose around the
figures the page already holds, without measuring.

    python benchmarks/bench_representations.py [--repeat 5] [--quick]
    python benchmarks/bench_representations.py --render
"""

import argparse
import os
import time
import warnings

import _ucr
import numpy as np
from _report import RESULTS, table, write
from _representations_report import (
    FIT_HEADER,
    HEADER,
    PCA_HEADER,
    SHAPE_HEADER,
    page,
    read_page,
)

from skseq import IOHMMClassifier
from skseq._data import check_sequences
from skseq._data.dilated import DilatedKernels, column_quantiles
from skseq.preprocessing import DilatedConvolution, RunningPooling
from skseq.representations import ShapeFeatures


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

    from skseq._kernels import convolution

    rng = np.random.default_rng(0)
    n, length = 12, 120
    X = rng.integers(-6, 7, size=(n, 1, length)).astype(np.float32)
    rocket = MiniRocket(random_state=0, n_jobs=1).fit(X)
    expected = rocket.transform(X).to_numpy()
    dilations, per_dilation, biases = rocket.parameters
    n_comb = 84 * len(dilations)
    values = convolution.dilated_convolution(
        X[:, 0].reshape(-1, 1).astype(np.float64),
        np.arange(0, n * length + 1, length), np.arange(n * length),
        dilations=np.asarray(dilations, dtype=np.intp),
        combination_ptr=np.arange(len(dilations) + 1) * 84,
        positions=np.tile(convolution.KERNEL_POSITIONS, (len(dilations), 1)),
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


def _quiet(run):
    """``run`` with warnings silenced (sktime's deprecation notices)."""
    def wrapped():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run()
    return wrapped


def _fitted_rockets(X_train, X_all, widths):
    """sktime's MiniRocket fitted on ``X_train`` at each of ``widths`` (its
    ``num_kernels``) and compiled: (transformer, input conversion, features)."""
    rockets = []
    for num_kernels in widths:
        rocket, convert = _minirocket(X_all, num_kernels)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # sktime deprecation notices
            rocket.fit(convert(X_train))
            n_features = rocket.transform(convert(X_all[:2])).shape[1]  # compile
        rockets.append((rocket, convert, n_features))
    return rockets


def bench_set(name, repeat, plaid_steps):
    """The transforms' speed on set ``name`` (train and test sequences), and
    the fits' on its training split: the table's rows, and the fit's row."""
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
    del indicators
    rockets = _fitted_rockets(X_train, X_all, (10_000, n_ours))
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
        cases[label] = (n_features, _quiet(
            lambda r=rocket, c=convert: r.transform(c(X_all))))
    times, cores = best_times([run for _, run in cases.values()], repeat)

    # RunningPooling alone, on precomputed indicators (its input not timed).
    indicators = conv.transform(X_all)
    (pool_time,), (pool_cores,) = best_times([lambda x=indicators: pool.transform(x)],
                                             repeat)
    del indicators
    (fit_ours, fit_rocket), _ = best_times(
        [lambda: DilatedConvolution(random_state=0).fit(X_train),
         _quiet(lambda r=rockets[0][0], c=rockets[0][1]: r.fit(c(X_train)))], repeat)

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


# -- features="shape": the fused kernel ------------------------------------------
# ShapeFeatures._walk before the fused kernel (branch arch, cf71791), kept as
# the reference the kernel is timed against: sequence by sequence, 4,096 steps
# at a time, every step's indicators written (DilatedConvolution's kernel and
# the levels), then projected and summed.
_NUMPY_CHUNK = 4096


def numpy_walk(rep, seqs, rows, k):
    """The state inputs (k components, every step) and the output inputs (all
    components at ``rows``) of a fitted ShapeFeatures, the NumPy way."""
    conv = rep.convolution_
    W_steps, c_steps = rep.projection_[:, :k], rep.offset_[:k]
    W_rows, c_rows = rep.projection_, rep.offset_
    steps = np.empty((seqs.data.shape[0], k))
    at_rows = np.empty((rows.shape[0], W_rows.shape[1]))
    order = np.argsort(rows, kind="stable")
    sorted_rows = rows[order]
    for t0, t1 in zip(seqs.offsets[:-1], seqs.offsets[1:], strict=True):
        sum_steps, sum_rows = 0.0, 0.0
        for c0 in range(t0, t1, _NUMPY_CHUNK):
            c1 = min(c0 + _NUMPY_CHUNK, t1)
            indicators = np.hstack([
                conv._convolve(seqs, np.arange(c0, c1), conv.biases_),
                (seqs.data[c0:c1, :, None] > rep.levels_).reshape(c1 - c0, -1)])
            count = np.arange(c0 - t0 + 1, c1 - t0 + 1)[:, None]
            running = np.cumsum(indicators @ W_steps, axis=0) + sum_steps
            steps[c0:c1] = running / count - c_steps
            sum_steps = running[-1]
            a, b = np.searchsorted(sorted_rows, [c0, c1])
            picked = sorted_rows[a:b] - c0
            ends = np.unique(np.append(picked + 1, c1 - c0))
            pieces = np.add.reduceat(indicators, np.append(0, ends[:-1]), axis=0)
            running = np.cumsum(pieces, axis=0) + sum_rows
            sum_rows = running[-1]
            if b > a:
                means = running[np.searchsorted(ends, picked + 1)] / count[picked]
                at_rows[order[a:b]] = means @ W_rows - c_rows
    return steps, at_rows


def bench_shape(name, repeat):
    """The shape inputs of the training split (8 state components at every
    step, 128 output components at the last steps): fused kernel, NumPy walk,
    MiniRocket's transform of the same sequences."""
    from threadpoolctl import threadpool_limits

    X, _, _, _ = _ucr.load(name)
    seqs = check_sequences(X)
    rep = ShapeFeatures().fit(seqs, 0)
    rows, k = seqs.last_steps, rep.n_state_features
    rocket, convert = _minirocket(X, 10_000)
    Z = convert(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rocket.fit(Z)
        rocket.transform(convert(X[:2]))  # numba compilation
    with threadpool_limits(limits=1):
        fused, reference = rep._walk(seqs, rows, k), numpy_walk(rep, seqs, rows, k)
        difference = max(np.abs(a - b).max() for a, b in zip(fused, reference,
                                                              strict=True))

        def rocket_transform():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rocket.transform(Z)

        (t_fused, t_numpy, t_rocket), _ = best_times(
            [lambda: rep._walk(seqs, rows, k), lambda: numpy_walk(rep, seqs, rows, k),
             rocket_transform], repeat)
    return [name, seqs.n_sequences, seqs.data.shape[0], seqs.n_features,
            rep.projection_.shape[0], f"{t_fused:.3f}", f"{t_numpy:.3f}",
            f"{t_numpy / t_fused:.1f}", f"{t_rocket:.3f}", f"{t_fused / t_rocket:.2f}",
            f"{difference:.1e}"]


# -- where the default fit's time goes -------------------------------------------
class _Timers:
    """Wall time spent in chosen methods, while active (wrapped in place)."""

    def __init__(self, targets):
        self.targets, self.spent, self.saved = targets, {}, []

    def __enter__(self):
        for label, (owner, attr) in self.targets.items():
            method = getattr(owner, attr)
            self.saved.append((owner, attr, method))
            self.spent[label] = 0.0

            def timed(*args, _method=method, _label=label, **kwargs):
                start = time.perf_counter()
                try:
                    return _method(*args, **kwargs)
                finally:
                    self.spent[_label] += time.perf_counter() - start
            setattr(owner, attr, timed)
        return self

    def __exit__(self, *exc):
        for owner, attr, method in self.saved:
            setattr(owner, attr, method)

    def reset(self):
        self.spent = dict.fromkeys(self.spent, 0.0)


def fit_breakdown(name):
    """One default fit of the training split and one prediction of the test
    split, their time split among the representation's pieces."""
    import skseq._data.shape as representation

    X, y, X_test, y_test = _ucr.load(name)
    targets = {"shape fit": (ShapeFeatures, "fit"), "inputs": (ShapeFeatures, "inputs"),
               "walk": (ShapeFeatures, "_walk"),
               "biases": (DilatedKernels, "fit_packed"),
               "pca": (representation, "_principal_axes")}
    clf = IOHMMClassifier(random_state=0)
    with warnings.catch_warnings(), _Timers(targets) as timers:
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        clf.fit(X, y)
        total = time.perf_counter() - start
        fit = dict(timers.spent)
        timers.reset()
        start = time.perf_counter()
        accuracy = float(np.mean(clf.predict(X_test) == np.asarray(y_test)))
        predict = time.perf_counter() - start
        predicted = dict(timers.spent)
    walk_in_fit = fit["walk"] - fit["inputs"]  # the inputs are walks too
    rest = fit["shape fit"] - fit["biases"] - walk_in_fit - fit["pca"]
    optimisation = total - fit["shape fit"] - fit["inputs"]
    return [name, len(X), sum(len(x) for x in X), f"{total:.2f}",
            f"{fit['biases']:.3f}", f"{walk_in_fit:.3f}", f"{fit['pca']:.3f}",
            f"{rest:.3f}", f"{fit['inputs']:.3f}", f"{optimisation:.2f}",
            f"{predict:.2f}", f"{predicted['inputs']:.3f}", f"{accuracy:.3f}"]


# -- what else would cut the fit: measured, not adopted -------------------------
# The randomized SVD of ShapeFeatures.fit (skseq._data.shape.
# _principal_axes: single precision, 2 LU-normalized power iterations), the
# former double precision, and cheaper ones.
PCA_VARIANTS = {
    "current (randomized, 2 power iterations, single precision, LU-normalized)":
        dict(dtype=np.float32, n_iter=2, normalizer="LU"),
    "former (randomized, 2 power iterations, double precision)": dict(
        dtype=np.float64, n_iter=2, normalizer="auto"),
    "randomized, 2 power iterations, single precision, not normalized": dict(
        dtype=np.float32, n_iter=2, normalizer="auto"),
    "randomized, 1 power iteration, double precision": dict(
        dtype=np.float64, n_iter=1, normalizer="auto"),
}


def _axes_variant(dtype, n_iter, normalizer, spent):
    """``_principal_axes`` with the SVD in ``dtype``, ``n_iter`` power
    iterations and their ``normalizer`` (scikit-learn's ``"auto"`` is none
    for up to two), its times appended to ``spent``."""
    from sklearn.utils.extmath import randomized_svd, svd_flip

    def principal_axes(Z, n_components, seed, total):
        start = time.perf_counter()
        U, S, Vt = randomized_svd(Z.astype(dtype, copy=False), n_components,
                                  n_oversamples=10, n_iter=n_iter,
                                  power_iteration_normalizer=normalizer,
                                  flip_sign=False, random_state=seed)
        _, Vt = svd_flip(U, Vt, u_based_decision=False)
        S = S.astype(np.float64)
        spent.append(time.perf_counter() - start)
        return Vt.astype(np.float64), S**2 / total

    return principal_axes


def pca_variants(name, seeds):
    """The default classifier with the representation's SVD swapped (in this
    process only, through the name skseq._data.shape looks up)."""
    import skseq._data.shape as representation

    X, y, X_test, y_test = _ucr.load(name)
    rows = []
    for label, options in PCA_VARIANTS.items():
        spent, fits, accuracies = [], [], []
        saved = representation._principal_axes
        representation._principal_axes = _axes_variant(spent=spent, **options)
        try:
            for seed in range(seeds):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    start = time.perf_counter()
                    clf = IOHMMClassifier(random_state=seed).fit(X, y)
                    fits.append(time.perf_counter() - start)
                    accuracies.append(float(np.mean(clf.predict(X_test)
                                                    == np.asarray(y_test))))
        finally:
            representation._principal_axes = saved
        rows.append([name, label, seeds,
                     f"{np.mean(accuracies):.3f} ("
                     + ", ".join(f"{a:.3f}" for a in accuracies) + ")",
                     f"{np.median(fits):.2f}", f"{np.median(spent):.2f}"])
    return rows


def pca_threads(name, repeat):
    """The representation's randomized SVD, as it is, with one BLAS thread and
    with two, on the matrix ShapeFeatures.fit gives it (captured)."""
    from threadpoolctl import threadpool_limits

    import skseq._data.shape as representation

    X, _, _, _ = _ucr.load(name)
    captured = {}
    axes = representation._principal_axes

    def capture(Z, n_components, seed, total):
        captured["Z"], captured["n"], captured["total"] = Z.copy(), n_components, total
        return axes(Z, n_components, seed, total)

    representation._principal_axes = capture
    try:
        ShapeFeatures().fit(check_sequences(X), 0)
    finally:
        representation._principal_axes = axes
    Z, n, total = captured["Z"], captured["n"], captured["total"]

    def run(threads):
        def go():
            with threadpool_limits(limits=threads, user_api="blas"):
                axes(Z.copy(order="F"), n, 0, total)
        return go

    (one, two), _ = best_times([run(1), run(2)], repeat)
    return [name, f"{Z.shape[0]:,} x {Z.shape[1]:,}", f"{one:.2f}", f"{two:.2f}"]


def quantiles_by_partition(name, repeat):
    """The bias quantiles: a full sort of every column of the training
    convolutions against the selection the kernels use
    (``skseq._data.dilated.column_quantiles``: np.partition at the order
    statistics the levels need, same interpolation)."""
    X, _, _, _ = _ucr.load(name)
    seqs = check_sequences(X)
    conv = ShapeFeatures().fit(seqs, 0).convolution_
    n_steps = seqs.data.shape[0]
    rows = np.arange(n_steps)
    if n_steps > conv.subsample:
        rows = np.sort(np.random.default_rng(0).choice(n_steps, conv.subsample,
                                                       replace=False))
    values = conv._convolve(seqs, rows, np.empty((len(conv.channels_), 0)))
    n_comb, n_biases = conv.biases_.shape
    levels = np.random.default_rng(1).uniform(size=(n_comb, n_biases))
    pos = levels * (values.shape[0] - 1)
    lo = np.floor(pos).astype(np.intp)
    hi = np.minimum(lo + 1, values.shape[0] - 1)
    col = np.arange(n_comb)[:, None]

    def by_sort():
        ordered = np.sort(values, axis=0)
        below, above = ordered[lo, col], ordered[hi, col]
        return below + (pos - lo) * (above - below)

    def by_partition():
        return column_quantiles(values, levels)

    same = np.array_equal(by_sort(), by_partition())
    (t_sort, t_part), _ = best_times([by_sort, by_partition], repeat)
    return [name, f"{values.shape[0]:,} x {values.shape[1]:,}", f"{t_sort:.3f}",
            f"{t_part:.3f}", str(same)]


def _parser():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true",
                        help="ArrowHead only, 2 repeats (a smoke test)")
    parser.add_argument("--plaid-steps", type=int, default=100_000)
    parser.add_argument("--render", action="store_true",
                        help="only rewrite the page's prose around its figures")
    return parser


def _panel_rows(panel, repeat, seeds):
    """The shape inputs, the fit's breakdown and the measured alternatives on
    every set of ``panel``, each table printed as it grows."""
    shape_rows = []
    for name in panel:
        shape_rows.append(bench_shape(name, repeat))
        print(table(SHAPE_HEADER, shape_rows[-1:]), flush=True)
    breakdown_rows = []
    for name in panel:
        breakdown_rows.append(fit_breakdown(name))
        print(table(FIT_HEADER, breakdown_rows[-1:]), flush=True)
    pca_rows, thread_rows, quantile_rows = [], [], []
    for name in panel:
        pca_rows += pca_variants(name, seeds)
        thread_rows.append(pca_threads(name, repeat))
        quantile_rows.append(quantiles_by_partition(name, repeat))
        print(table(PCA_HEADER, pca_rows[-len(PCA_VARIANTS):]), flush=True)
    return {"shape_rows": shape_rows, "breakdown_rows": breakdown_rows,
            "pca_rows": pca_rows, "thread_rows": thread_rows,
            "quantile_rows": quantile_rows}


def main():
    args = _parser().parse_args()
    if args.render:
        path = RESULTS / "representations.md"
        write(path.name, page(read_page(path.read_text(encoding="utf-8"))))
        return
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
        print(table(HEADER, r), flush=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        agreement = agreement_with_minirocket()
    panel = ["ArrowHead"] if args.quick else ["ItalyPowerDemand", "ArrowHead",
                                              "BasicMotions", "PLAID"]
    seeds = 1 if args.quick else 3
    run = _panel_rows(panel, repeat, seeds)
    load_after = os.getloadavg()
    command = "python benchmarks/bench_representations.py" + (
        " --quick" if args.quick else "")
    run.update(command=command, repeat=repeat, load=(load_before[0], load_after[0]),
               seconds=time.perf_counter() - start, plaid_steps=args.plaid_steps,
               rows=rows, fit_rows=fit_rows, agreement=agreement, seeds=seeds)
    write("representations.md", page(run))


if __name__ == "__main__":
    main()
