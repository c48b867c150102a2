"""Learning long memory (issue 17): input-toggled regimes and the 2-sequence problem.

1. **Toggled regimes** (``skseq.datasets.make_toggled_regimes``): two linear
   regression laws, the regime flipped by events in the input, so that it is the
   parity of the events so far. Default ``IOHMMRegressor(n_states=2)`` against the
   true regime's law (the ceiling) and the pooled linear law, five data seeds; with
   the default margin between events and quiet steps, and with none.
2. **2-sequence problem with little data**: 3 pattern steps then 150-300 steps of
   noise in the pattern's range, 60 training sequences, 500 test sequences, five
   data seeds (``make_two_sequence(560, max_length=303, min_length=153,
   random_state=seed)``). ``HierarchicalIOHMM`` with two levels and nothing but
   ``n_states`` set, against the previous defaults (fixed time scales, random and
   permutation starts), one slow level (the recipe of
   ``bench_hierarchical.py``), a flat ``IOHMMClassifier`` with as many states, and
   the ceiling of a logistic regression that is given the first steps.

    PYTHONPATH=$PWD python benchmarks/bench_long_memory.py [--seeds 5] [--quick]

Writes ``doc/results/long_memory.md`` and ``long_memory.png``.
"""

import argparse
import time
import warnings

import numpy as np
from _report import RESULTS, table, versions, write
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import r2_score

from skseq import IOHMMClassifier, IOHMMRegressor
from skseq.datasets import make_toggled_regimes, make_two_sequence
from skseq.hierarchical import HierarchicalIOHMM

# -- 1. toggled regimes -------------------------------------------------------------
N_TOGGLE = 60  # training and test sequences each, 50-100 steps
TOGGLE_DATA = {"margin 0.5 (default)": {}, "no margin": {"trigger_noise": 0.5}}


def toggle_trial(data, seed):
    X, y, regimes = make_toggled_regimes(2 * N_TOGGLE, random_state=seed,
                                         return_regimes=True, **TOGGLE_DATA[data])
    train, test = slice(None, N_TOGGLE), slice(N_TOGGLE, None)
    start = time.perf_counter()
    model = IOHMMRegressor(n_states=2, random_state=seed).fit(X[train], y[train])
    seconds = time.perf_counter() - start
    y_test = np.concatenate(y[test])
    # the ceiling: the true regime's law, y = s (2 x + 1), at every test step
    oracle = np.concatenate([(1.0 - 2.0 * r) * (2.0 * x[:, 0] + 1.0)
                             for x, r in zip(X[test], regimes[test], strict=True)])
    pooled = LinearRegression().fit(np.concatenate(X[train]), np.concatenate(y[train]))
    return {"model": model.score(X[test], y[test]), "oracle": r2_score(y_test, oracle),
            "pooled": pooled.score(np.concatenate(X[test]), y_test),
            "seconds": seconds, "n_init": model.n_init_}


# -- 2. the 2-sequence problem ---------------------------------------------------------
N_TRAIN, N_TEST = 60, 500
MODELS = {
    "HierarchicalIOHMM((3, 2)) (defaults)":
        lambda seed: HierarchicalIOHMM((3, 2), random_state=seed),
    "HierarchicalIOHMM((3, 3)) (defaults)":
        lambda seed: HierarchicalIOHMM((3, 3), random_state=seed),
    "HierarchicalIOHMM((3, 2)), previous defaults":
        lambda seed: HierarchicalIOHMM((3, 2), learn_timescales=False,
                                       init=["random", "permutation"],
                                       random_state=seed),
    "one slow level: HierarchicalIOHMM((3,), timescales=(300,))":
        lambda seed: HierarchicalIOHMM((3,), timescales=(300,), random_state=seed),
    "flat IOHMMClassifier(6, features='raw')":
        lambda seed: IOHMMClassifier(6, features="raw", random_state=seed),
    "flat IOHMMClassifier(6, features='raw', init='hold')":
        lambda seed: IOHMMClassifier(6, features="raw", init="hold", random_state=seed),
    "flat IOHMMClassifier(9, features='raw')":
        lambda seed: IOHMMClassifier(9, features="raw", random_state=seed),
}


def two_sequence_data(seed):
    X, y = make_two_sequence(N_TRAIN + N_TEST, max_length=303, min_length=153,
                             random_state=seed)
    return X[:N_TRAIN], y[:N_TRAIN], X[N_TRAIN:], y[N_TRAIN:]


def ceiling(seed, n_steps):
    """Test accuracy of a logistic regression given the first ``n_steps`` inputs."""
    X, y, X_test, y_test = two_sequence_data(seed)
    first = [np.array([x[:n_steps, 0] for x in part]) for part in (X, X_test)]
    return LogisticRegression().fit(first[0], y).score(first[1], y_test)


def two_sequence_trial(name, seed):
    X, y, X_test, y_test = two_sequence_data(seed)
    model = MODELS[name](seed)
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    return {"accuracy": model.score(X_test, y_test), "seconds": seconds,
            "n_init": model.n_init_, "objectives": model.init_objectives_,
            "timescales": getattr(model, "transition_timescales_", None)}


# -- report -------------------------------------------------------------------------
def _seeds(values, fmt="{:.3f}"):
    return " / ".join(fmt.format(v) for v in values)


def markdown(toggle, two, ceilings, args, elapsed):
    rows = []
    for data, res in toggle.items():
        ratio = [r["model"] / r["oracle"] for r in res]
        rows.append([data, _seeds([r["model"] for r in res]),
                     _seeds([r["oracle"] for r in res]), _seeds(ratio),
                     f"{sum(q >= 0.95 for q in ratio)} / {len(ratio)}",
                     _seeds([r["pooled"] for r in res], "{:.2f}"),
                     f"{np.mean([r['seconds'] for r in res]):.1f}"])
    toggle_table = table(["data", "default IOHMMRegressor(2), test R²",
                          "true regime's law", "ratio", "ratio ≥ 0.95",
                          "pooled linear", "fit (s)"], rows)
    rows = []
    for name, res in two.items():
        acc = [r["accuracy"] for r in res]
        rows.append([name, _seeds(acc), f"**{np.mean(acc):.3f}**",
                     f"{np.mean([r['seconds'] for r in res]):.0f}",
                     f"{res[0]['n_init']}"])
    for k, acc in ceilings.items():
        rows.append([f"ceiling: logistic regression on steps 1-{k}" if k > 1 else
                     "ceiling: logistic regression on step 1", _seeds(acc),
                     f"{np.mean(acc):.3f}", "", ""])
    two_table = table(["model", f"test accuracy, seeds 0-{args.seeds - 1}", "mean",
                       "fit (s)", "restarts"], rows)
    default = next(iter(two))
    good = [_seeds(np.sort(r["objectives"]), "{:.2f}") for r in two[default]]
    return f"""# Learning long memory (issue 17)

Generated by `PYTHONPATH=$PWD python benchmarks/bench_long_memory.py{' --quick' if args.quick else ''}`
in {elapsed / 60:.1f} min; {versions()}. Heavy runs under `nice -n 10` on a shared
2-core machine: times are indicative.

## 1. Regimes toggled by the input

`make_toggled_regimes(120, random_state=seed)` (documented in
`skseq.datasets`): sequences of 50-100 steps, an input x_t ~ N(0, 1) and a
trigger channel that is 1 at an event (probability 0.1 per step) and 0 otherwise,
plus uniform noise in [-trigger_noise, trigger_noise]; each event flips the
regime, and y_t = ±(2 x_t + 1) + N(0, 0.3²) by regime. The first 60 sequences
train `IOHMMRegressor(n_states=2, random_state=seed)` (all other parameters
default), the last 60 test it (R² over all test steps). The ceiling is the true
regime's law; the pooled linear law (no memory) explains nothing. Seeds
0-{args.seeds - 1}.

{toggle_table}

With a margin between events and quiet steps (trigger_noise 0.25: events at
0.75-1.25, quiet steps at -0.25-0.25) the default fit finds the flip-flop on
every seed. Without one (trigger_noise 0.5), a step of trigger near 0.5 is
ambiguous, and the fit must place a sharp threshold exactly there: the previous
study of this issue (a Gaussian trigger with an event above 1.5, no margin)
measured that the fit does find the right machine (flip iff trigger > 1.45), but
with a slope of ~50 per unit of trigger, so that every step within ~0.04 of the
threshold leaves the filtered state near 50/50 for the rest of the sequence; the
true machine with a steeper slope has a *worse* penalised training objective
there (the L2 prior `alpha` and the likelihood of a target seen at every step
both prefer the soft threshold), so it is the objective, not the search, that
stops it. A smaller `alpha` (1e-3 to 0) helps partly (0.77-0.92 of the ceiling
there).

## 2. The 2-sequence problem: 150-300 steps of noise, 60 training sequences

`make_two_sequence(560, max_length=303, min_length=153, random_state=seed)`: the
class is carried by the first 3 steps (a class pattern in [-1, 1]³ plus noise in
[-0.2, 0.2]), then 150-300 steps of uniform noise in [-1, 1], the pattern's own
range, so that only the position tells the pattern from the noise, and the class
is asked for at the last step. The first 60 sequences train, the last 500 test;
`random_state=seed` for the models too, everything else default (`n_init="auto"`
gives {two[default][0]['n_init']} restarts on these 60 sequences).

{two_table}

The defaults of `HierarchicalIOHMM` are now `learn_timescales=True` and
`init="auto"`, which, with learned time scales, cycles the restarts through
`"hold"`, `"random"` and `"permutation"` starts. A hold start begins every level
in its first value, whose network is random (it reads the input), and puts a
stay logit of 7 on every other value (under every value of the slower level):
what the first steps wrote into the state survives 150-300 steps of noise from
the first iteration, and so does the gradient that flows back to the reading
network. Random starts diffuse the state within a few steps of noise (paper 000,
§5.1), and the fit then explains the training classes with the noise (training
objective about 0.6 against 0.01-0.2 when the pattern is read). The learned time
scales end near 1 on the successful fits: the slowness is a help for the search,
not part of the solution. Final training objectives of the default's restarts,
sorted, per seed: {'; '.join(good)}.

Cost: the hierarchy's restarts are as many as before; the fit time is that of
the table (learned time scales add one parameter per level).
"""


def figure(two, ceilings):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3.2))
    names = list(two)
    for k, name in enumerate(names):
        acc = [r["accuracy"] for r in two[name]]
        ax.scatter(acc, np.full(len(acc), k), color="k", s=14)
        ax.plot([np.mean(acc)] * 2, [k - 0.3, k + 0.3], color="C3")
    ceil = np.mean(ceilings[1])
    ax.axvline(ceil, color="0.6", ls=":", label="ceiling (step 1 only)")
    ax.set_yticks(range(len(names)), names, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("test accuracy (dots: data seeds, bar: mean)")
    ax.set_xlim(0.4, 1.02)
    ax.legend(frameon=False, fontsize=7, loc="lower left")
    ax.set_title("2-sequence problem, 150-300 noise steps, 60 training sequences",
                 fontsize=9)
    fig.tight_layout()
    return fig


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--quick", action="store_true",
                        help="2 seeds, the default hierarchy and the flat model only")
    args = parser.parse_args()
    warnings.simplefilter("ignore", ConvergenceWarning)
    if args.quick:
        args.seeds = 2
        for name in list(MODELS)[1:-3]:
            del MODELS[name]
    start = time.perf_counter()
    seeds = range(args.seeds)
    toggle = {data: [toggle_trial(data, s) for s in seeds] for data in TOGGLE_DATA}
    two = {}
    for name in MODELS:
        two[name] = []
        for s in seeds:
            two[name].append(two_sequence_trial(name, s))
            print(name, s, f"{two[name][-1]['accuracy']:.3f}", flush=True)
    ceilings = {k: [ceiling(s, k) for s in seeds] for k in (1, 3)}
    elapsed = time.perf_counter() - start
    text = markdown(toggle, two, ceilings, args, elapsed)
    print(text)
    write("long_memory.md", text)
    figure(two, ceilings).savefig(RESULTS / "long_memory.png", dpi=120)
    print(f"wrote {RESULTS / 'long_memory.png'}")


if __name__ == "__main__":
    main()
