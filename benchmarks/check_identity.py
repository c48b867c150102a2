"""Fitted parameters and predictions of a set of configurations, saved or compared.

A refactoring that must not change behaviour is checked with it: save on the
previous commit, compare on the new one.

    python benchmarks/check_identity.py save before.npz      # on the old commit
    python benchmarks/check_identity.py compare before.npz   # on the new one

With ``--panel`` after the path, the configurations are instead the default
``IOHMMClassifier()`` on the real-data panel (BasicMotions, PLAID,
ItalyPowerDemand, ArrowHead; seed 0, and seed 1 on two of them; the test
splits' predict_proba), once with ``n_jobs=2``, all on one BLAS thread: what
a change to the default representation's speed must leave bit for bit.

``compare`` exits 1 unless every fitted attribute (public, ending in ``_``) and
every prediction (predict, predict_proba, predict_state_proba, transition_proba,
decode, score_samples, score) of every configuration is bitwise identical. The
configurations are those of the test suite's estimator checks plus the options
they leave out (det_penalty, readout, n_prefixes, mlp transitions, step-level
targets, EM for every transition family, warm start), on small data of every
kind: symbol strings, real-valued sequences, one-step rows.
"""

import sys
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from skseq import HierarchicalIOHMM, IOHMMClassifier, IOHMMRegressor
from skseq.datasets import make_parity, make_tomita, make_two_sequence


def _data():
    rng = np.random.default_rng(0)
    X_real = [rng.normal(size=(int(rng.integers(3, 12)), 3)) for _ in range(40)]
    y_class = np.array([int(x[:, 0].sum() > 0) + int(x[-1, 1] > 1) for x in X_real])
    y_reg = np.array([x[:, 0].mean() + 0.1 * x[-1, 2] for x in X_real])
    y_step_class = [(np.cumsum(x[:, 0]) > 0).astype(int) for x in X_real]
    y_step_reg = [np.column_stack([np.cumsum(x[:, 0]), x[:, 1] ** 2])
                  for x in X_real]
    X_rows = rng.normal(size=(30, 3))
    y_rows = (X_rows[:, 0] + X_rows[:, 1] ** 2 > 1).astype(int)
    X_tom, y_tom = make_tomita(4, 60, random_state=0)
    X_par, y_par = make_parity(40, max_length=12, random_state=0)
    X_two, y_two = make_two_sequence(40, max_length=15, random_state=0)
    return {
        "real-class": (X_real, y_class),
        "real-reg": (X_real, y_reg),
        "step-class": (X_real, y_step_class),
        "step-reg": (X_real, y_step_reg),
        "rows": (X_rows, y_rows),
        "rows-reg": (X_rows, X_rows[:, 0] * 2.0 - X_rows[:, 2]),
        "tomita": (X_tom, y_tom),
        "parity": (X_par, y_par),
        "two": (X_two, y_two),
    }


def _configs():
    """Every (dataset, estimator) configuration the check fits, in order."""
    return _checked_configs() + _unchecked_configs()


def _checked_configs():
    """The configurations of tests/test_common.py and tests/test_hierarchical.py."""
    c, r, h = IOHMMClassifier, IOHMMRegressor, HierarchicalIOHMM
    return [
        ("real-class", c(n_states=2, n_init=1, max_iter=50, random_state=0)),
        ("rows", c(n_states=2, n_init=1, max_iter=50, random_state=0)),
        ("tomita", c(n_states=3, transition="additive", emission="state",
                     solver="em", n_init=2, max_iter=20, random_state=0)),
        ("real-class", c(n_states=2, n_init=1, max_iter=50, readout="mean",
                         readout_start=0.0, n_prefixes=3, random_state=0)),
        ("real-reg", r(n_states=2, transition="additive", n_init=1, max_iter=50,
                       random_state=0)),
        ("step-reg", r(n_states=2, covariance_type="full", emission="state",
                       n_init=1, max_iter=30, random_state=0)),
        ("real-reg", r(n_states=3, covariance_type="spherical", emission="state",
                       transition="gated", n_init=1, max_iter=30, random_state=0)),
        ("two", h(n_init=1, max_iter=30, random_state=0)),
        ("tomita", h((2, 1, 2), timescales=(4, 2, 1), learn_timescales=True,
                     emission="state", solver="em", n_init=2, max_iter=10,
                     random_state=0)),
        ("real-reg", h(task="regression", n_init=1, max_iter=30, random_state=0)),
        ("step-reg", h((3, 2), timescales=(1, 5), task="regression",
                       covariance_type="spherical", learn_timescales=True,
                       n_init=1, max_iter=10, random_state=0)),
    ]


def _unchecked_configs():
    """Options the estimator checks leave out."""
    c, r, h = IOHMMClassifier, IOHMMRegressor, HierarchicalIOHMM
    return [
        ("parity", c(n_states=2, emission="state", det_penalty=1.0, alpha=1e-3,
                     n_init=3, max_iter=60, random_state=0)),
        ("real-reg", r(n_states=2, det_penalty=0.5, n_init=2, max_iter=40,
                       random_state=1)),
        ("real-class", c(n_states=3, transition="mlp", n_init=2, max_iter=40,
                         random_state=0)),
        ("real-class", c(n_states=3, transition="mlp", solver="em", n_init=1,
                         max_iter=5, random_state=0)),
        ("real-class", c(n_states=2, readout="mean", random_state=0, n_init=2,
                         max_iter=40)),
        ("step-class", c(n_states=3, n_init=2, max_iter=40, random_state=0)),
        ("step-class", c(n_states=3, solver="em", n_init=1, max_iter=8,
                         random_state=0)),
        ("tomita", c(n_states=4, emission="state", topology="left-right",
                     startprob="uniform", n_init=2, max_iter=40, random_state=2)),
        ("real-class", c(n_states=3, transition="homogeneous", n_init=2,
                         max_iter=40, random_state=0)),
        ("real-class", c(n_states=3, transition="homogeneous", solver="em",
                         n_init=1, max_iter=8, random_state=0)),
        ("real-class", c(n_states=3, transition="gated", solver="em", n_init=1,
                         max_iter=8, random_state=0)),
        ("real-class", c(n_states=3, transition="input", solver="em", n_init=1,
                         max_iter=8, random_state=0)),
        ("step-reg", r(n_states=2, covariance_type="diag", solver="em", n_init=1,
                       max_iter=8, random_state=0)),
        ("step-reg", r(n_states=3, covariance_type="full", solver="em", n_init=1,
                       max_iter=6, random_state=0)),
        ("rows-reg", r(n_states=2, n_init=2, max_iter=40, random_state=0)),
        ("real-class", h((2, 2), timescales=(5, 1), learn_timescales=True,
                         n_init=2, max_iter=30, random_state=0)),
        ("real-class", h((2, 3), timescales=(8, 1), solver="em", n_init=1,
                         max_iter=6, random_state=0)),
        ("real-class", c(n_states=2, n_init=1, max_iter=20, random_state=0,
                         warm_start=True)),
        ("real-class", c(n_states=3, n_init="auto", max_iter=15, random_state=4)),
    ]


def _record_attributes(obj, prefix, out):
    """Every fitted attribute (public, ending in ``_``) of ``obj``; a fitted
    sub-object of skseq (the representation, its kernels) by its own fitted
    attributes, so that no entry needs pickling."""
    for name, value in sorted(vars(obj).items()):
        if name.endswith("_") and not name.startswith("_"):
            if isinstance(value, list) and value and isinstance(value[0], np.ndarray):
                for k, v in enumerate(value):
                    out[f"{prefix}/{name}/{k}"] = np.asarray(v)
            elif type(value).__module__.startswith("skseq."):
                _record_attributes(value, f"{prefix}/{name}", out)
            else:
                try:
                    out[f"{prefix}/{name}"] = np.asarray(value)
                except ValueError:  # ragged
                    out[f"{prefix}/{name}"] = np.asarray(repr(value))


def _record(estimator, X, y, key, out):
    _record_attributes(estimator, f"{key}/attr", out)
    methods = ["predict", "predict_proba", "predict_state_proba",
               "transition_proba", "decode", "score_samples"]
    for method in methods:
        if not hasattr(estimator, method):
            continue
        result = getattr(estimator, method)(X)
        _store(out, f"{key}/{method}", result)
    _store(out, f"{key}/decode_y", estimator.decode(X, y))
    _store(out, f"{key}/score_samples_y", estimator.score_samples(X, y))
    out[f"{key}/score"] = np.asarray(estimator.score(X, y))


def _store(out, key, result):
    if isinstance(result, list):
        for k, item in enumerate(result):
            _store(out, f"{key}/{k}", item)
    else:
        out[key] = np.asarray(result)


def run():
    data = _data()
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for k, (dataset, estimator) in enumerate(_configs()):
            X, y = data[dataset]
            key = f"{k:02d}-{dataset}-{type(estimator).__name__}"
            estimator.fit(X, y)
            if estimator.get_params().get("warm_start"):
                estimator.set_params(max_iter=10).fit(X, y)
            _record(estimator, X, y, key, out)
    return out


# The default's fits on the panel that --panel records: (set, seed, n_jobs).
PANEL = [("ItalyPowerDemand", 0, None), ("ArrowHead", 0, None),
         ("BasicMotions", 0, None), ("PLAID", 0, None), ("ItalyPowerDemand", 1, None),
         ("ArrowHead", 1, None), ("ArrowHead", 0, 2)]


def run_panel():
    from _ucr import load
    from threadpoolctl import threadpool_limits

    out = {}
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for name, seed, n_jobs in PANEL:
            X, y, X_test, _ = load(name)
            estimator = IOHMMClassifier(random_state=seed, n_jobs=n_jobs).fit(X, y)
            key = f"{name}-{seed}-{n_jobs}"
            _record_attributes(estimator, f"{key}/attr", out)
            out[f"{key}/predict_proba"] = estimator.predict_proba(X_test)
    return out


def main():
    mode, path = sys.argv[1], sys.argv[2]
    results = run_panel() if "--panel" in sys.argv[3:] else run()
    if mode == "save":
        np.savez(path, **results)
        print(f"saved {len(results)} arrays to {path}")
        return
    before = np.load(path)
    # A file saved before sub-objects were recorded by their attributes holds
    # them pickled: they cannot be loaded safely (nor compared), and are left
    # out; the predictions they make are compared.
    pickled = {k for k in before.files if not _loads(before, k)}
    stored = set(before.files) - pickled
    missing = sorted(stored - set(results))
    extra = sorted(set(results) - stored)
    differ = [k for k in sorted(stored) if k in results
              and not _identical(before[k], results[k])]
    print(f"{len(before.files)} arrays before ({len(pickled)} pickled objects "
          f"left out), {len(results)} now: {len(missing)} missing, "
          f"{len(extra)} new, {len(differ)} differ; "
          f"{len(stored & set(results))} compared")
    for k in missing[:20]:
        print("  missing", k)
    for k in extra[:20]:
        print("  new", k)
    for k in differ[:40]:
        a, b = before[k], results[k]
        detail = ""
        if a.shape == b.shape and a.dtype.kind == "f":
            detail = f" max abs diff {np.nanmax(np.abs(a - b)):.3g}"
        print(f"  differs {k}{detail}")
    sys.exit(1 if (missing or differ) else 0)


def _loads(archive, key):
    try:
        archive[key]
    except ValueError:  # an object array: pickled
        return False
    return True


def _identical(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        return np.array_equal(a, b, equal_nan=True) and np.array_equal(
            np.signbit(a), np.signbit(b))
    return np.array_equal(a, b)


if __name__ == "__main__":
    main()
