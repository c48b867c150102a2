"""Real data: four UCR/UEA classification problems, skseq against its peers.

Official train/test splits of BasicMotions (6-D, length 100), PLAID (1-D,
lengths 100-1344), ItalyPowerDemand (1-D, 24) and ArrowHead (1-D, 251), read
from the ``.ts`` files inside sktime's wheel (see ``_ucr.py``; no download).
The default ``IOHMMClassifier()`` is compared in the same run with
MiniRocket + ridge and with its own ``n_states=1`` variant, on test accuracy,
fit time and predict time; other peers and skseq recipes complete the
per-set tables.

Every stochastic model is fitted with seeds 0..n_seeds-1 (its random_state);
the report gives mean and range of test accuracy, training accuracy and fit
time (the whole estimator: representation, model selection and fit). All
models run with one BLAS/OpenMP/torch thread (``--threads``): on a shared
2-core machine, threaded BLAS made the IOHMM's L-BFGS vector operations 30-50x
slower (see doc/results/real_data.md).

The models are defined in one place, ``RECIPES`` and ``PEERS`` below.

    python benchmarks/bench_real_data.py [--quick] [--seeds 3] [--datasets ...]
    python benchmarks/bench_real_data.py --carry-over   # kept-aside sets
    python benchmarks/bench_real_data.py --scaling      # 10,000 sequences
    python benchmarks/bench_real_data.py --ablation     # one change at a time
    python benchmarks/bench_real_data.py --report-only  # tables from the JSON

Results go to ``doc/results/real_data.json`` (``real_data_carryover.json``,
``real_data_scaling.json``, ``real_data_ablation.json``); ``--report-only``
rewrites ``real_data.md`` and the figure from them (``_real_data_report.py``,
which renders the page, also holds the labels of the rows it singles out;
``_real_data_prose.py`` its hand-written sections).
"""

import argparse
import json
import os
import time
import traceback
import warnings

import _ucr
import numpy as np
from _models import (
    HMMPerClass,
    MiniRocketClassifier,
    SummaryFeatures,
    TorchRNNClassifier,
    nn1_accuracy,
    warm_up_minirocket,
)
from _real_data_report import (
    DEFAULT,
    FORMER,
    MINIROCKET,
    N_STATES_1,
    TUNED_GRID,
    report,
)
from _report import RESULTS, versions
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from skseq import IOHMMClassifier
from skseq._data import check_sequences
from skseq.preprocessing import Stepwise, WindowMean
from skseq.representations import ShapeFeatures

DATASETS = ("BasicMotions", "PLAID", "ItalyPowerDemand", "ArrowHead")
# Kept aside: never tuned on; only to check that what paid carries over.
CARRY_OVER = ("GunPoint", "OSULeaf", "JapaneseVowels", "ACSF1")

# -- the skseq recipes (one place) -------------------------------------------
# The estimator as shipped: IOHMMClassifier(features="auto") reads these
# real-valued series through its shape representation (skseq._data.representation.
# ShapeFeatures: causal dilated-kernel and amplitude indicators, their mean over
# the prefix, whitened principal components; the state networks read the
# leading 8, the output networks all of them) with one start.
# The labels of the rows the page singles out (DEFAULT, FORMER, N_STATES_1,
# MINIROCKET) and the grid of the tuned recipe are in _real_data_report.py.
TUNED = "skseq IOHMMClassifier (tuned)"
SERIES = "default, thresholds from one series per kernel (MiniRocket's rule)"
# The two options that buy the most fit time (each validated on the training
# splits in results/shape_validation.md), measured together as a candidate.
FASTER = "default, 500 sampled steps and 1,344 indicators (candidate)"


class ShapeLastStep(ClassifierMixin, BaseEstimator):
    """A logistic regression on the default representation at each sequence's
    last step (the prefix mean over the whole sequence), fitted like the
    estimator's own: what the states and the per-step read-out add."""

    def __init__(self, C=100.0, random_state=None):
        self.C = C
        self.random_state = random_state

    def _inputs(self, X):
        seqs = check_sequences(X)
        return self.representation_.inputs(seqs, seqs.last_steps)[1]

    def fit(self, X, y):
        seqs = check_sequences(X)
        self.representation_ = ShapeFeatures().fit(
            seqs, check_random_state(self.random_state))
        self.estimator_ = LogisticRegression(C=self.C, max_iter=5000).fit(
            self._inputs(X), y)
        self.classes_ = self.estimator_.classes_
        return self

    def predict(self, X):
        check_is_fitted(self)
        return self.estimator_.predict(self._inputs(X))


def _variant(shape=None, **params):
    """The default with some of its own options, or of its representation
    (ShapeFeatures' parameters: ``features=ShapeFeatures(**shape)``, the
    representation ``features="auto"`` picks on the panel), changed."""
    if shape:
        params["features"] = ShapeFeatures(**shape)
    return lambda name, seed, quick: IOHMMClassifier(random_state=seed, **params)


RECIPES = {
    DEFAULT: lambda name, seed, quick: IOHMMClassifier(random_state=seed),
    # 3-fold CV over alpha and n_states; the representation is refitted on
    # each training fold, as any transformer in a Pipeline would be.
    TUNED: lambda name, seed, quick: GridSearchCV(
        IOHMMClassifier(random_state=seed), TUNED_GRID, cv=3),
    # The paper's model, linear in one step's raw input (the default before
    # features= existed, and what features="auto" still picks for symbols).
    "skseq IOHMMClassifier(features='raw')": lambda name, seed, quick: (
        IOHMMClassifier(features="raw", random_state=seed,
                        **({"n_init": 3} if quick else {}))),
    # What the state machine adds: the same representation without it.
    N_STATES_1: _variant(n_states=1, transition="homogeneous"),
    "default representation, LogisticRegression (last step)": (
        lambda name, seed, quick: ShapeLastStep(random_state=seed)),
    # The former default: the projection without the ridge read-out's
    # decisions (principal components only).
    FORMER: _variant({"supervised": False}),
    # The kernels' thresholds over one training series per (kernel, dilation)
    # pair, not over (up to 10,000 of) all the training steps.
    SERIES: _variant({"threshold_sample": "series"}),
    FASTER: _variant({"sample_steps": 500, "n_indicators": 1344}),
}

# --ablation: one change at a time against the default, on the three small
# panel sets (PLAID: too slow for every variant x 3 seeds; its rows of the main
# table answer the same questions for n_states=1 and the logistic regression).
ABLATION = {
    "default": _variant(),
    "n_states=2": _variant(n_states=2),
    "n_states=8": _variant(n_states=8),
    "transition='homogeneous' (states ignore the input)": _variant(
        transition="homogeneous"),
    "n_init=5 (restarts)": _variant(n_init=5),
    "alpha=0.001": _variant(alpha=0.001),
    "alpha=0.1": _variant(alpha=0.1),
    "alpha=1": _variant(alpha=1.0),
    "readout='mean'": _variant(readout="mean"),
    "emission='state'": _variant(emission="state"),
    "emission='mlp'": _variant(emission="mlp"),
    "state networks read 32 components": _variant({"n_state_components": 32}),
    "16 components": _variant({"n_components": 16}),
    "256 components": _variant({"n_components": 256}),
    "672 indicators per step": _variant({"n_indicators": 672}),
    "10,752 indicators per step": _variant({"n_indicators": 10752}),
    "8 dilations": _variant({"n_dilations": 8}),
    "no amplitude indicators": _variant({"n_levels": 0}),
    "thresholds over the full quantile range": _variant(
        {"quantile_range": (0.0, 1.0)}),
    "projection fitted on 500 sampled steps": _variant({"sample_steps": 500}),
    "... on 8,000 sampled steps": _variant({"sample_steps": 8000}),
}
ABLATION_SETS = ("BasicMotions", "ItalyPowerDemand", "ArrowHead")


def _lstm_epochs(name, quick):
    # PLAID's 537 sequences of 200 steps cost ~7 s an epoch: 30 epochs there.
    return 30 if quick or name == "PLAID" else 100


PEERS = {
    MINIROCKET: lambda name, seed, quick: MiniRocketClassifier(random_state=seed),
    "hmmlearn HMM per class": lambda name, seed, quick: make_pipeline(
        WindowMean(max_length=200), Stepwise(StandardScaler()),
        HMMPerClass(3, n_iter=30, random_state=seed)),
    "LogisticRegression (summary)": lambda name, seed, quick: make_pipeline(
        SummaryFeatures(), StandardScaler(),
        GridSearchCV(LogisticRegression(max_iter=5000),
                     {"C": [0.1, 1.0, 10.0]}, cv=3)),
    "HistGradientBoosting (summary)": lambda name, seed, quick: make_pipeline(
        SummaryFeatures(), HistGradientBoostingClassifier(random_state=seed)),
    "LSTM (PyTorch)": lambda name, seed, quick: make_pipeline(
        WindowMean(max_length=200), Stepwise(StandardScaler()),
        TorchRNNClassifier("lstm", hidden_size=32,
                           max_epochs=_lstm_epochs(name, quick),
                           learning_rate=1e-2, batch_size=16, random_state=seed)),
}
DETERMINISTIC = {"LogisticRegression (summary)"}  # one fit serves every seed


def fit_score(model, data):
    """(test accuracy, training accuracy, fit seconds), or Nones and the error."""
    X_train, y_train, X_test, y_test = data
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X_train, y_train)
        seconds = time.perf_counter() - start
        start = time.perf_counter()
        predicted = model.predict(X_test)
        predict_seconds = time.perf_counter() - start
        out = {"acc": float(np.mean(predicted == y_test)),
               "train": float(np.mean(model.predict(X_train) == y_train)),
               "fit": seconds, "predict": predict_seconds}
        if getattr(model, "alpha_", None) is not None:
            out["alpha"] = float(model.alpha_)
        return out
    except Exception as exc:  # recorded, not hidden: the report prints it
        traceback.print_exc()
        return {"acc": None, "train": None, "fit": time.perf_counter() - start,
                "error": f"{type(exc).__name__}: {exc}"[:300]}


def selected(model):
    """The tuned recipe's choice, for the report."""
    return getattr(model, "best_params_", None)


def run_set(name, seeds, quick, models, source, nn1=True):
    data = _ucr.load(name, source)
    out = {}
    for label, make in models.items():
        runs = []
        for seed in seeds:
            if label in DETERMINISTIC and runs:
                runs.append(dict(runs[0]))
                continue
            model = make(name, seed, quick)
            res = fit_score(model, data)
            if label == TUNED and res["acc"] is not None:
                res["best"] = selected(model)
            runs.append(res)
            print(f"{name} | {label} | seed {seed} | {res}", flush=True)
        out[label] = runs
    if nn1 and len({len(x) for x in data[0] + data[2]}) == 1:  # equal lengths
        for dtw in (False, True):
            t = time.perf_counter()
            acc = nn1_accuracy(*data, dtw=dtw)
            train = 1.0  # 1-NN recalls every training sequence
            out[f"1-NN {'DTW' if dtw else 'ED'}"] = [
                {"acc": acc, "train": train, "fit": time.perf_counter() - t}]
            print(name, "1-NN", dtw, acc, flush=True)
    return out


# -- scaling: many synthetic sequences -----------------------------------------
def synthetic(n_sequences, length=100, seed=0):
    """Random walks; the class is whether a bump (a rise and fall over 10
    steps) sits in the first or the second half."""
    rng = np.random.default_rng(seed)
    X = np.cumsum(rng.normal(scale=0.3, size=(n_sequences, length, 1)), axis=1)
    y = rng.integers(0, 2, size=n_sequences)
    where = rng.integers(0, length // 2 - 10, size=n_sequences) + y * (length // 2)
    bump = np.sin(np.linspace(0, np.pi, 10))[:, None]
    for i, t in enumerate(where):
        X[i, t : t + 10] += 2.0 * bump
    return X, y


def _timed(model, X, y, X_test):
    start = time.perf_counter()
    model.fit(X, y)
    fit = time.perf_counter() - start
    start = time.perf_counter()
    model.predict(X_test)
    return {"fit": fit, "predict": time.perf_counter() - start}


def scaling(n_sequences=10_000, peer_sizes=(1_000, 2_000, 4_000)):
    """Fit and predict times on synthetic sequences of 100 steps: the default
    with one and two threads on ``n_sequences``; MiniRocket + ridge at the
    ``peer_sizes`` (its cross-validated ridge needs ~n^2 memory and ~n^3
    time: measured once at 10,000 sequences it took 700 s and 5.4 GB)."""
    X, y = synthetic(n_sequences)
    X_test, _ = synthetic(1_000, seed=1)
    out = {"n_sequences": n_sequences, "default": {}, "minirocket": {}}
    for n_jobs in (1, 2):
        model = IOHMMClassifier(random_state=0, n_jobs=n_jobs)
        out["default"][str(n_jobs)] = _timed(model, X, y, X_test)
        print("default", n_jobs, out["default"][str(n_jobs)], flush=True)
    for n in peer_sizes:
        out["minirocket"][str(n)] = _timed(MiniRocketClassifier(random_state=0),
                                           X[:n], y[:n], X_test)
        print("minirocket", n, out["minirocket"][str(n)], flush=True)
    return out


def thread_speedup(n_sequences=10_000):
    """The default's fit and predict times with one and two threads
    (``n_jobs``), in the order 1, 2, 2, 1, and the load average before: for
    a machine with nothing else to do, where a second core is free."""
    X, y = synthetic(n_sequences)
    X_test, _ = synthetic(1_000, seed=1)
    out = {"n_sequences": n_sequences, "load": os.getloadavg()[0], "runs": []}
    for n_jobs in (1, 2, 2, 1):
        timed = _timed(IOHMMClassifier(random_state=0, n_jobs=n_jobs), X, y, X_test)
        out["runs"].append({"n_jobs": n_jobs, **timed})
        print("default", n_jobs, timed, flush=True)
    return out


def _parser():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: no PLAID, one seed, fewer epochs/restarts")
    parser.add_argument("--datasets", nargs="+", default=None)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1,
                        help="BLAS/OpenMP/torch threads for every model")
    parser.add_argument("--source", default=None,
                        help="sktime wheel or data folder (default: installed sktime)")
    parser.add_argument("--carry-over", action="store_true",
                        help="the kept-aside sets (not tuned on), to a separate JSON")
    parser.add_argument("--only", nargs="+", default=None, metavar="MODEL",
                        help="refit only these rows (labels as in the report) "
                             "and keep the others of the JSON")
    parser.add_argument("--ablation", action="store_true",
                        help="one change at a time on the small panel sets")
    parser.add_argument("--peer-sizes", nargs="+", type=int,
                        default=[1_000, 2_000, 4_000],
                        help="--scaling: MiniRocket's training sizes (10000: "
                        "measured at the default's size, ~700 s and 5.4 GB)")
    parser.add_argument("--scaling", action="store_true",
                        help="fit times on 10,000 synthetic sequences, to a "
                             "separate JSON")
    parser.add_argument("--threads-only", action="store_true",
                        help="--scaling: only the default with 1 and 2 threads "
                             "(for an idle machine), kept beside the saved run")
    parser.add_argument("--report-only", action="store_true",
                        help="rewrite the report from the JSON, no fitting")
    return parser


def _run_scaling(args):
    """``--scaling``: the synthetic sequences, saved to their own JSON."""
    path = RESULTS / "real_data_scaling.json"
    with threadpool_limits(args.threads):
        if args.threads_only:
            result = json.loads(path.read_text(encoding="utf-8"))
            result["threads"] = thread_speedup()
        else:
            warm_up_minirocket()
            result = scaling(peer_sizes=tuple(args.peer_sizes))
    path.write_text(json.dumps(result, indent=1), encoding="utf-8")


def _what_to_run(args):
    """The data sets, the models and the JSON of this run."""
    if args.carry_over:
        names = args.datasets or list(CARRY_OVER)
        models = {m: RECIPES[m] for m in (DEFAULT, TUNED, FORMER, SERIES, FASTER)}
        models.update({m: PEERS[m] for m in (MINIROCKET,
                                              "LogisticRegression (summary)",
                                              "HistGradientBoosting (summary)")})
        return names, models, RESULTS / "real_data_carryover.json"
    if args.ablation:
        names = args.datasets or list(ABLATION_SETS)
        return names, ABLATION, RESULTS / "real_data_ablation.json"
    names = args.datasets or [n for n in DATASETS if not (args.quick and n == "PLAID")]
    return names, {**RECIPES, **PEERS}, RESULTS / "real_data.json"


def _previous(args, names, raw, saved):
    """Keep the rows of an earlier run of the same kind that this run does not
    refit; the minutes those runs took."""
    before = 0.0  # minutes of the earlier runs whose sets are kept
    if raw.exists():  # a run of some sets updates theirs, keeps the others
        old = json.loads(raw.read_text(encoding="utf-8"))
        if all(old.get(k) == saved[k] for k in ("quick", "seeds", "threads")):
            saved["results"] = {n: r for n, r in old["results"].items()
                                if n not in names or args.only}
            before = old.get("elapsed", 0.0) if saved["results"] else 0.0
            saved["refits"] = old.get("refits", []) if saved["results"] else []
    return before


def main():
    args = _parser().parse_args()
    if args.report_only:
        report(RECIPES)
        return
    import torch

    torch.set_num_threads(args.threads)
    if args.scaling:
        _run_scaling(args)
        report(RECIPES)
        return
    names, models, raw = _what_to_run(args)
    seeds = list(range(1 if args.quick else args.seeds))
    saved = {"results": {}, "quick": args.quick, "seeds": seeds,
             "threads": args.threads,
             "versions": versions("hmmlearn", "torch", "sktime", "numba")}
    before = _previous(args, names, raw, saved)
    if args.only:  # refit these models only, keep the other rows
        models = {m: f for m, f in models.items() if m in args.only}
        saved.setdefault("refits", []).append({"models": list(models),
                                               "datasets": names})
    start = time.perf_counter()
    with threadpool_limits(args.threads):
        warm_up_minirocket()
        for name in names:
            res = run_set(name, seeds, args.quick, models, args.source,
                          nn1=not (args.carry_over or args.ablation or args.only))
            saved["results"][name] = {**saved["results"].get(name, {}), **res}
            saved["elapsed"] = before + time.perf_counter() - start
            raw.write_text(json.dumps(saved, indent=1), encoding="utf-8")  # so far
    report(RECIPES)


if __name__ == "__main__":
    main()
