"""Per-restart success rate of the lockstep L-BFGS against scipy's L-BFGS-B.

For each problem (Tomita grammars 1-7 and parity) the estimator builds its
objective and its random starts as a fit would; every start is then minimised
twice, by ``skseq._fit.lbfgs.minimize_batch`` (all starts in lockstep, no drop rule)
and by ``scipy.optimize.minimize(method="L-BFGS-B")`` one start at a time, with
the same tolerances. A start succeeds when the minimum it reaches classifies
every training sequence correctly. The table gives, per problem, the fraction
of successful starts for each solver, the fraction of starts where both end at
the same objective (to 1e-6 relative) and the mean objectives.

    OMP_NUM_THREADS=1 python benchmarks/bench_restarts.py [--starts 40] \
        [--n-samples 100] [--out doc/results/restarts.json]

``--gridsearch`` instead runs the model selection of the results page:
GridSearchCV over n_states 2-5 with ``n_init=5`` on 200 strings of length 1-12,
100 accepted and 100 rejected by Tomita's grammar 4, one line per sampling seed:

    OMP_NUM_THREADS=1 python benchmarks/bench_restarts.py --gridsearch \
        --seeds 0 1 2 3 4 5 6 7 [--init-scale 0.3]

``--panel --seeds 0 1 2 [--out doc/results/restarts_panel.json]`` fits the
default classifier on the real-data panel with the package's starts and with
the starts at scale 1.

``--table6 20 [--out doc/results/tomita_table6_gem.json]`` runs the GEM trials
of Bengio & Frasconi's (1996) Table 6 (``bench_tomita_table6.py``'s setting)
with the package's starts, at scale 1, with max_iter=1000 and with the paper's
stopping rule (stop once the training set is learned), and says of the trials
that do not learn it how many ended at a local optimum and how many at
max_iter.

``--start-scale S`` draws the linear models' starts at scale S instead of
``SMALL_START`` (0.3): 1.0 gives the starts drawn before the small start.
"""

import argparse
import json
import time
import warnings

import numpy as np
from scipy.optimize import minimize
from sklearn.model_selection import GridSearchCV, KFold

from skseq import IOHMMClassifier
from skseq._families.starts import SMALL_START
from skseq._fit.lbfgs import minimize_batch
from skseq.datasets import (
    load_tomita_training_set,
    make_parity,
    make_tomita,
    make_tomita_exhaustive,
)

# Problems: (name, data, n_states). The state counts are those of the smallest
# automaton of each language (Tomita 1-7 with a dead state where one is needed).
TOMITA_STATES = {1: 2, 2: 3, 3: 5, 4: 4, 5: 4, 6: 3, 7: 5}


def problems(n_samples, seed):
    for g, n in TOMITA_STATES.items():
        X, y = make_tomita(g, n_samples, max_length=10, random_state=seed)
        yield f"tomita{g}", X, y, n
    X, y = make_parity(n_samples, max_length=10, random_state=seed)
    yield "parity", X, y, 2


def problem_and_starts(X, y, n_states, n_starts, seed, **params):
    """The fit's objective and its first ``n_starts`` starting points."""
    captured = {}

    def capture(self, problem, thetas0, monitor):
        captured["problem"], captured["thetas0"] = problem, thetas0.copy()
        # a cheap result so that the fit completes
        return [{"theta": t, "n_iter": 0, "converged": True, "dropped": False,
                 "objective": float(problem.value_and_grad(t)[0]), "curve": []}
                for t in thetas0]

    clf = IOHMMClassifier(n_states, emission="state", n_init=n_starts,
                          random_state=seed, **params)
    owner = next(c for c in type(clf).__mro__ if "_solve_lbfgs" in vars(c))
    original = owner._solve_lbfgs
    owner._solve_lbfgs = capture
    try:
        clf.fit(X, y)
    finally:
        owner._solve_lbfgs = original
    return clf, captured["problem"], captured["thetas0"]


def perfect(problem, thetas):
    """Whether each parameter set classifies every training sequence right
    (binary labels: the true label's probability above 1/2)."""
    ll = problem.logliks(np.asarray(thetas))
    return (ll > np.log(0.5)).all(axis=1)


def run_scipy(problem, thetas0, tol, max_iter):
    out = []
    for t in thetas0:
        r = minimize(problem.value_and_grad, t, jac=True, method="L-BFGS-B",
                     options={"ftol": tol, "gtol": tol, "maxiter": max_iter})
        out.append((r.x, r.fun, r.nit))
    return (np.array([o[0] for o in out]), np.array([o[1] for o in out]),
            np.array([o[2] for o in out]))


def gridsearch(seed, **params):
    """Best n_states, accuracy on all strings up to 12 and on 200 strings of
    length 50-100, for one balanced training sample of Tomita 4."""
    X_all, y_all = make_tomita_exhaustive(4, 12)
    rng = np.random.RandomState(seed)
    idx = np.concatenate([rng.choice(np.flatnonzero(y_all == c), 100, replace=False)
                          for c in (0, 1)])
    rng.shuffle(idx)
    search = GridSearchCV(
        IOHMMClassifier(emission="state", n_init=5, random_state=0, **params),
        {"n_states": [2, 3, 4, 5]}, cv=KFold(3, shuffle=True, random_state=0))
    search.fit([X_all[i] for i in idx], y_all[idx])
    X_long, y_long = make_tomita(4, 200, min_length=50, max_length=100,
                                 random_state=1000)
    return (search.best_params_["n_states"], search.score(X_all, y_all),
            search.score(X_long, y_long))


def panel(seeds):
    """Test accuracy of the default classifier on the real-data panel with the
    package's starts and with the starts at scale 1, seed by seed."""
    import _ucr
    from bench_real_data import fit_score

    out = {}
    for name in ("ItalyPowerDemand", "BasicMotions", "ArrowHead", "PLAID"):
        data = _ucr.load(name, None)
        for label, kw in [("small", {}), ("scale1", {"init_scale": 1 / SMALL_START})]:
            for seed in seeds:
                r = fit_score(IOHMMClassifier(random_state=seed, **kw), data)
                out.setdefault(name, {}).setdefault(label, []).append(r)
                print(name, label, seed, r["acc"], f"{r['fit']:.1f} s", flush=True)
    return out


# Table 6's GEM variations (label, estimator parameters, stop when the training
# set is learned): the package's starts, the starts at scale 1, a longer
# budget, and the paper's stopping rule ("when either some allowed number of
# sequence presentations has been performed or the task has been learned",
# Bengio & Frasconi 1996, §5.3), checked every TABLE6_CHUNK iterations.
TABLE6_VARIANTS = [
    ("package", {}, False),
    ("scale1", {"init_scale": 1 / SMALL_START}, False),
    ("max_iter=1000", {"max_iter": 1000}, False),
    ("stop when learned", {}, True),
]
TABLE6_CHUNK = 5


def table6_trial(grammar, n_states, seed, params, stop_when_learned):
    """One GEM trial on Tomita's training set: whether it fits it, its test
    accuracy on all strings up to 12, iterations, whether GEM met its
    tolerance, the final objective and the seconds."""
    import bench_tomita_table6 as t6
    from sklearn.exceptions import ConvergenceWarning

    warnings.simplefilter("ignore", ConvergenceWarning)
    X, y = load_tomita_training_set(grammar)
    params = {**t6.GEM, **params}
    start = time.perf_counter()
    clf = IOHMMClassifier(n_states, emission="state", random_state=seed, **params)
    if stop_when_learned:
        budget, n_iter = params.get("max_iter", 200), 0
        clf.set_params(max_iter=TABLE6_CHUNK, warm_start=True)
        while n_iter < budget and not (n_iter and clf.score(X, y) == 1.0):
            clf.fit(X, y)
            n_iter += clf.n_iter_
            if clf.converged_:
                break
    else:
        clf.fit(X, y)
        n_iter = clf.n_iter_
    seconds = time.perf_counter() - start
    learned = clf.score(X, y) == 1.0
    X_test, y_test = make_tomita_exhaustive(grammar, 12)
    return {"learned": bool(learned),
            "acc": float(clf.score(X_test, y_test)) if learned else None,
            "n_iter": int(n_iter), "converged": bool(clf.converged_),
            "objective": float(clf.objective_), "seconds": seconds}


def table6(trials):
    """Bengio & Frasconi (1996), Table 6's GEM trials (bench_tomita_table6's
    setting) under TABLE6_VARIANTS: per grammar and variant, the share of
    trials fitting Tomita's training set, their mean accuracy on all strings
    up to length 12, and of the trials that do not fit it, how many stopped
    at GEM's tolerance (a local optimum) and how many at max_iter."""
    import bench_tomita_table6 as t6

    out = {}
    for g, paper in t6.PAPER.items():
        for label, kw, stop in TABLE6_VARIANTS:
            runs = [table6_trial(g, paper[0], seed, kw, stop) for seed in range(trials)]
            out.setdefault(g, {})[label] = runs
            accs = [r["acc"] for r in runs if r["learned"]]
            failed = [r for r in runs if not r["learned"]]
            print(f"#{g} n*={paper[0]} {label:18s} convergence "
                  f"{len(accs) / trials:.2f} accuracy "
                  f"{np.mean(accs) if accs else float('nan'):.3f} (paper "
                  f"{paper[2]:.2f} / {paper[3]:.3f}); not learned: "
                  f"{sum(r['converged'] for r in failed)} at a local optimum, "
                  f"{sum(not r['converged'] for r in failed)} at max_iter; "
                  f"{np.mean([r['seconds'] for r in runs]):.2f} s a trial",
                  flush=True)
    return out


def _parser():
    """The command line's options."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--starts", type=int, default=40)
    parser.add_argument("--n-samples", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--problems", nargs="+", default=None)
    parser.add_argument("--tol", type=float, default=None,
                        help="ftol and gtol of both solvers (default: the estimator's)")
    parser.add_argument("--init-scale", type=float, default=None)
    parser.add_argument("--start-scale", type=float, default=None,
                        help="the start scale of the (linear) models, instead of "
                             "the package's SMALL_START: sets init_scale to "
                             "S / SMALL_START")
    parser.add_argument("--init", default=None,
                        help="the estimator's init (default: its own)")
    parser.add_argument("--lockstep-only", action="store_true")
    parser.add_argument("--gridsearch", action="store_true")
    parser.add_argument("--table6", type=int, default=None, metavar="TRIALS",
                        help="Table 6's GEM trials, package's starts and scale 1")
    parser.add_argument("--panel", action="store_true",
                        help="the real-data panel, package's starts and scale 1")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--out", default=None)
    return parser


def _other_mode(args):
    """Run --table6, --panel or --gridsearch if asked; True if one ran."""
    if args.table6:
        out = table6(args.table6)
        if args.out:
            with open(args.out, "w") as fh:
                json.dump({"command": "python benchmarks/bench_restarts.py "
                           f"--table6 {args.table6}", "results": out}, fh, indent=1)
        return True
    if args.panel:
        out = panel(args.seeds)
        if args.out:
            with open(args.out, "w") as fh:
                json.dump({"command": "python benchmarks/bench_restarts.py --panel "
                           f"--seeds {' '.join(map(str, args.seeds))}",
                           "results": out}, fh, indent=1)
        return True
    if args.gridsearch:
        params = {} if args.init_scale is None else {"init_scale": args.init_scale}
        print("seed n_states acc(1-12) acc(50-100)")
        for seed in args.seeds:
            n, short, long = gridsearch(seed, **params)
            print(f"{seed:4d} {n:8d} {short:9.4f} {long:11.4f}", flush=True)
        return True
    return False


def _compare(name, X, y, n, args):
    """Lockstep against SciPy on one problem, from the same starts: its row."""
    params = {k: v for k, v in [("init_scale", args.init_scale),
                                ("init", args.init)] if v is not None}
    clf, problem, thetas0 = problem_and_starts(X, y, n, args.starts, args.seed,
                                               **params)
    tol = clf.tol if args.tol is None else args.tol
    t0 = time.perf_counter()
    res = minimize_batch(problem.values_and_grads, thetas0, max_iter=clf.max_iter,
                         ftol=tol, gtol=tol)
    t1 = time.perf_counter()
    if args.lockstep_only:
        xs, fs = res.x, res.fun
    else:
        xs, fs, _ = run_scipy(problem, thetas0, tol, clf.max_iter)
    t2 = time.perf_counter()
    ok_l, ok_s = perfect(problem, res.x), perfect(problem, xs)
    same = np.abs(res.fun - fs) <= 1e-6 * np.maximum(1.0, np.abs(fs))
    row = {"problem": name, "n_states": n, "starts": len(thetas0),
           "lockstep": float(ok_l.mean()), "scipy": float(ok_s.mean()),
           "same_optimum": float(same.mean()),
           "f_lockstep": float(res.fun.mean()), "f_scipy": float(fs.mean()),
           "lockstep_better": int((res.fun < fs - 1e-6).sum()),
           "scipy_better": int((fs < res.fun - 1e-6).sum()),
           "status": np.bincount(res.status, minlength=4).tolist(),
           "t_lockstep": t1 - t0, "t_scipy": t2 - t1}
    print(f"{name:9s} {n}  {row['lockstep']:8.3f}  {row['scipy']:5.3f}  "
          f"{row['same_optimum']:8.3f}  {row['f_lockstep']:10.4f}  "
          f"{row['f_scipy']:7.4f}  {t1 - t0:6.1f}  {t2 - t1:7.1f}  "
          f"better L/S {row['lockstep_better']}/{row['scipy_better']} "
          f"status {row['status']}", flush=True)
    return row


def main():
    args = _parser().parse_args()
    if args.start_scale is not None:
        args.init_scale = args.start_scale / SMALL_START
    if _other_mode(args):
        return
    rows = []
    print(f"{'problem':9s} n  lockstep  scipy  same_opt  f_lockstep  f_scipy  "
          "t_lock  t_scipy")
    for name, X, y, n in problems(args.n_samples, args.seed):
        if args.problems and name not in args.problems:
            continue
        rows.append(_compare(name, X, y, n, args))
    tot_l = np.mean([r["lockstep"] for r in rows])
    tot_s = np.mean([r["scipy"] for r in rows])
    print(f"mean success: lockstep {tot_l:.3f}, scipy {tot_s:.3f}")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump({"args": vars(args), "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
