"""Learning long memory: input-toggled regimes and the 2-sequence problem.

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
3. **Restarts chosen on held-out training sequences** (``--restarts``, run
   apart and kept in the saved results): for two levels and one slow level,
   single starts of the default's kinds, each fitted on the 60 training
   sequences and, from the same start, on 5 stratified folds of them; the
   restart the training objective keeps against the one the held-out
   accuracy or log-likelihood would keep.
4. **The cycle of start kinds** (``--cycles``, run apart likewise; see
   ``_start_cycles.py``): the previous default's cycle against the hold-heavy
   one, with the same restarts, on the training sequences.

    PYTHONPATH=$PWD python benchmarks/bench_long_memory.py [--seeds 5] [--quick]
    PYTHONPATH=$PWD python benchmarks/bench_long_memory.py --restarts [--seeds 5]
    PYTHONPATH=$PWD python benchmarks/bench_long_memory.py --cycles [--seeds 10]
    PYTHONPATH=$PWD python benchmarks/bench_long_memory.py --render

Writes ``doc/results/long_memory.md``, ``long_memory.png`` and the raw results,
``long_memory.json`` (``--render`` rewrites the page and figure from it).
"""

import argparse
import json
import time
import warnings

import numpy as np
from _report import RESULTS, table, versions, write
from _start_cycles import CYCLES, cycles_markdown, run_cycles
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import log_loss, r2_score
from sklearn.model_selection import StratifiedKFold

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
SLOW = "one slow level: HierarchicalIOHMM((3,), timescales=(300,))"
RAW = "HierarchicalIOHMM((3, 2), features='raw')"
FLAT = "flat IOHMMClassifier(6, features='raw')"
FLAT9 = "flat IOHMMClassifier(9, features='raw')"
FLAT_HOLD = "flat IOHMMClassifier(6, features='raw', init='hold')"
# How the page names a model whose key in the saved results reads otherwise.
SHOWN = {"HierarchicalIOHMM((3, 2)), previous defaults":
         "HierarchicalIOHMM((3, 2)), fixed time scales, random / permutation starts"}
MODELS = {
    "HierarchicalIOHMM((3, 2)) (defaults)":
        lambda seed: HierarchicalIOHMM((3, 2), random_state=seed),
    RAW:
        lambda seed: HierarchicalIOHMM((3, 2), features="raw", random_state=seed),
    "HierarchicalIOHMM((3, 3)) (defaults)":
        lambda seed: HierarchicalIOHMM((3, 3), random_state=seed),
    "HierarchicalIOHMM((3, 2)), previous defaults":
        lambda seed: HierarchicalIOHMM((3, 2), learn_timescales=False,
                                       init=["random", "permutation"],
                                       random_state=seed),
    SLOW:
        lambda seed: HierarchicalIOHMM((3,), timescales=(300,), random_state=seed),
    FLAT:
        lambda seed: IOHMMClassifier(6, features="raw", random_state=seed),
    FLAT_HOLD:
        lambda seed: IOHMMClassifier(6, features="raw", init="hold", random_state=seed),
    FLAT9:
        lambda seed: IOHMMClassifier(9, features="raw", random_state=seed),
}


def two_sequence_data(seed):
    X, y = make_two_sequence(N_TRAIN + N_TEST, max_length=303, min_length=153,
                             random_state=seed)
    return X[:N_TRAIN], y[:N_TRAIN], X[N_TRAIN:], y[N_TRAIN:]


def ceiling(seed, n_steps):
    """Test accuracy of a logistic regression given the first ``n_steps`` inputs
    (C=100: little regularization, the patterns' steps are 0.3-1.8 apart)."""
    X, y, X_test, y_test = two_sequence_data(seed)
    first = [np.array([x[:n_steps, 0] for x in part]) for part in (X, X_test)]
    return LogisticRegression(C=100.0).fit(first[0], y).score(first[1], y_test)


def two_sequence_trial(name, seed):
    X, y, X_test, y_test = two_sequence_data(seed)
    model = MODELS[name](seed)
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    timescales = getattr(model, "transition_timescales_", None)
    return {"accuracy": model.score(X_test, y_test), "seconds": seconds,
            "n_init": model.n_init_, "objectives": model.init_objectives_.tolist(),
            "features": model.features_,
            "features_scores": getattr(model, "features_scores_", None),
            "timescales": None if timescales is None else timescales.tolist()}


# -- 3. restarts chosen on held-out training sequences -------------------------------
# Single starts, restart k of kind START_KINDS[k % 8] (the default's cycle on
# these models, part 4) from random_state
# 1000 * seed + k: a start is drawn from the seed alone, so the fits of one
# start on the folds and on all 60 sequences begin at the same point.
SELECTED = {"HierarchicalIOHMM((3, 2))": {"n_states": (3, 2)},
            "one slow level ((3,), timescales=(300,))":
                {"n_states": (3,), "timescales": (300,)}}
N_STARTS, START_KINDS, N_FOLDS = 7, list(CYCLES.values())[-1], 5
RULES = {"training objective (the default)": lambda s: (-s["objective"],),
         "held-out accuracy (ties: objective)":
             lambda s: (s["held_out_accuracy"], -s["objective"]),
         "held-out log-likelihood": lambda s: (s["held_out_loglik"],)}


def _one_start(name, seed, k):
    return HierarchicalIOHMM(features="raw", init=START_KINDS[k % len(START_KINDS)],
                             n_init=1, random_state=1000 * seed + k,
                             **SELECTED[name])


def restart_trial(name, seed):
    """Per start: its training objective and test accuracy fitted on the 60
    training sequences, and its mean held-out accuracy and log-likelihood
    over the folds (fitted on four, scored on the fifth, from the same start)."""
    X, y, X_test, y_test = two_sequence_data(seed)
    folds = list(StratifiedKFold(N_FOLDS, shuffle=True, random_state=seed).split(X, y))
    starts = []
    for k in range(N_STARTS):
        model = _one_start(name, seed, k).fit(X, y)
        accuracy, loglik = [], []
        for train, held in folds:
            part = _one_start(name, seed, k).fit([X[i] for i in train], y[train])
            X_held = [X[i] for i in held]
            accuracy.append(part.score(X_held, y[held]))
            loglik.append(-log_loss(y[held], part.predict_proba(X_held),
                                    labels=part.classes_))
        starts.append({"objective": float(model.objective_),
                       "test": model.score(X_test, y_test),
                       "held_out_accuracy": float(np.mean(accuracy)),
                       "held_out_loglik": float(np.mean(loglik))})
    return starts


def restarts_section(restarts):
    """The test accuracy of the restart each rule keeps, per model and seed."""
    rows = []
    for name, trials in restarts.items():
        for rule, key in RULES.items():
            acc = [max(starts, key=key)["test"] for starts in trials]
            rows.append([name, rule, _seeds(acc), f"{np.mean(acc):.4f}"])
        good = [sum(s["objective"] < 0.35 for s in starts) for starts in trials]
        rows.append([name, "starts that read the pattern (objective < 0.35)",
                     " / ".join(f"{g} of {N_STARTS}" for g in good), ""])
    n = len(next(iter(restarts.values())))
    return table(["model", "restart kept by", f"test accuracy, seeds 0-{n - 1}",
                  "mean"], rows)


# -- report -------------------------------------------------------------------------
def _seeds(values, fmt="{:.3f}"):
    return " / ".join(fmt.format(v) for v in values)


ABOUT = """**What is measured.** Whether the estimators, with their defaults,
learn what must be remembered over many steps: (1) regimes of a regression
that input events toggle, for `IOHMMRegressor`; (2) a class set by the first 3
steps and asked for after 150-300 steps of noise, for `HierarchicalIOHMM`
against flat `IOHMMClassifier`s and logistic regressions on the first steps.
Synthetic data (`make_toggled_regimes`, `make_two_sequence`), 5 data seeds
each.

**In short.** The default `IOHMMRegressor(2)` finds the toggled regimes on 5
of 5 seeds (test R² 0.98, that of the true law) when events stand out from
quiet steps. `HierarchicalIOHMM((3, 2))` reaches MEAN32 mean test accuracy on
the 2-sequence problem, where flat IOHMMs with their defaults stay at chance;
a logistic regression on the first step alone reaches CEILING1: the fits read
step 1 and keep it.

**Regenerate** with `python benchmarks/bench_long_memory.py` (about 10
minutes; part 3 apart with `--restarts`, about 5 more, and part 4 with
`--cycles --seeds 10`, about 2), or only this page and
its figure from the saved results with `--render`.

**Limits.** When an event is hard to tell from a quiet step (no margin), the
regressor keeps a soft threshold and reaches 0.64-0.81 of the true law's R²;
on the 2-sequence problem the fits read the first step only, which leaves
seeds whose two patterns begin close together below the steps 1-3 ceiling,
and the held-out part of the training data keeps the same restarts as the
training objective (part 3)."""


def restarts_markdown(saved):
    """Part 3 of the page, if it was run."""
    if "restarts" not in saved:
        return ""
    restarts = saved["restarts"]
    pairs = [(name, seed, [max(starts, key=key)["test"] for key in RULES.values()])
             for name, trials in restarts.items()
             for seed, starts in enumerate(trials)]
    differ = [f"{name}, seed {seed}: {_seeds(acc)}" for name, seed, acc in pairs
              if len(set(acc)) > 1]
    return f"""## 3. Restarts chosen on held-out training sequences

Whether the restart the training objective keeps generalises worse than one a
held-out part of the training data would keep. Per model and data seed,
{N_STARTS} single starts of the default's kinds (three hold starts, a random
one, three hold starts: the hold-heavy cycle of part 4; raw steps,
`n_init=1`, `random_state=1000 * seed + k`), each fitted on
the 60 training sequences and, from the same start, on {N_FOLDS} stratified
folds of them (fitted on four, scored on the fifth); each rule keeps one of
the {N_STARTS}, and the table gives the test accuracy of its fit on all 60
sequences. Generated by `--restarts` in
{saved["restarts_elapsed"] / 60:.1f} min.

{restarts_section(restarts)}

The held-out rules keep a start of the same test accuracy as the training
objective on {len(pairs) - len(differ)} of {len(pairs)} (model, seed) pairs{
    "" if not differ else " (otherwise, objective / accuracy / log-likelihood: "
    + "; ".join(differ) + ")"}. Measured apart with the previous cycle's (hold,
random and permutation in turn) default fits' own 7 restarts (the same starts
on the folds, data seeds 0-9, both models): the held-out accuracy and
log-likelihood keep a restart of the same test accuracy as the training
objective on all 20 (model, seed) pairs. The starts that read
the pattern in one fit mostly end at the same objective (within 1e-3) and
then score the same on the test set; where they do not (one slow level: seed
0, objectives 0.157 and 0.269, test accuracy 0.884 and 0.870; seed 3, 0.170
and 0.223, test 0.938 and 0.976; seed 7, 0.0145 and 0.085, both 1.000) the
held-out accuracy and log-likelihood prefer the start the objective keeps
(seed 0: 0.800 and -0.380 against 0.767 and -0.468; seed 3: 0.950 and -0.148
against 0.933 and -0.174; seed 7: 1.000 both, -0.007 against -0.046).
Nothing in the training data points to a restart that generalises better, so
the fits keep the training objective's. {order(restarts)}
"""


def order(restarts):
    """How the two models' means compare with these starts."""
    means = {name: np.mean([max(starts, key=RULES[next(iter(RULES))])["test"]
                            for starts in trials])
             for name, trials in restarts.items()}
    (a, mean_a), (b, mean_b) = means.items()
    return (f"With these starts `{a}` scores {mean_a:.4f} and `{b}` {mean_b:.4f}"
            + (" (a tie)" if round(mean_a, 4) == round(mean_b, 4) else "")
            + ": which of the two is ahead, in part 2 as here, is the draw of "
            "their starts (where both read the pattern they reach the same "
            "training objective, and their test accuracies differ only on "
            "test sequences at the threshold both read).")


def markdown(saved, ceilings, args):
    toggle, two, elapsed = saved["toggle"], saved["two"], saved["elapsed"]
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
        rows.append([SHOWN.get(name, name), _seeds(acc), f"**{np.mean(acc):.3f}**",
                     f"{np.mean([r['seconds'] for r in res]):.0f}",
                     " / ".join(str(r["n_init"]) for r in res),
                     " / ".join(r.get("features", "raw") for r in res)])
    for k, acc in ceilings.items():
        rows.append([f"reference: logistic regression on steps 1-{k}" if k > 1 else
                     "reference: logistic regression on step 1", _seeds(acc),
                     f"{np.mean(acc):.3f}", "", "", ""])
    two_table = table(["model", f"test accuracy, seeds 0-{args.seeds - 1}", "mean",
                       "fit (s)", "restarts", "reads"], rows)
    default = next(iter(two))
    good = [_seeds(np.sort(r["objectives"]), "{:.2f}") for r in two[RAW]]
    chosen = [r["features"] for r in two[default]]
    margins = "; ".join(
        f"seed {s}: {r['features_scores']['shape']:.3f} / "
        f"{r['features_scores']['raw']:.3f}" for s, r in enumerate(two[default]))
    speedup = (np.mean([r["seconds"] for r in two[RAW]])
               / np.mean([r["seconds"] for r in two[FLAT_HOLD]]))
    ranking = (np.mean([r["seconds"] for r in two[default]])
               / np.mean([r["seconds"] for r in two[RAW]]))
    return f"""# Learning long memory

{ABOUT.replace("MEAN32", f"{np.mean([r['accuracy'] for r in two[default]]):.3f}")
      .replace("CEILING1", f"{np.mean(ceilings[1]):.3f}")}

Generated by `PYTHONPATH=$PWD python benchmarks/bench_long_memory.py{
    ' --quick' if args.quick else ''}` in {elapsed / 60:.1f} min; {versions()}.
Run under `nice -n 10` on a shared 2-core machine: times are indicative.

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
ambiguous, and the fit must place a sharp threshold exactly there: an earlier
study (a Gaussian trigger with an event above 1.5, no margin)
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
gives {two[RAW][0]['n_init']} restarts on raw steps of these 60 sequences, one on the
shape representation). "reads": the representation each fit read, per seed.

{two_table}

![2-sequence problem: test accuracy per data seed](long_memory.png)

**Two levels, one slow level, flat models.** Two levels with nothing but `n_states` set:
`(3, 2)` {np.mean([r["accuracy"] for r in two[default]]):.3f} mean held-out
accuracy. One slow level (`bench_hierarchical.py`'s recipe, with the same
defaults): {np.mean([r["accuracy"] for r in two[SLOW]]):.4f} against
{np.mean([r["accuracy"] for r in two[default]]):.4f}; with fixed time scales and
random / permutation starts the recipe measured 0.76 / 0.53 / 0.52 earlier. Both
read the first step and keep it; the class is one fact read once, which one
level of 3 values with a slow time scale holds, so the second level has nothing
to add here, and what separates them is which good restart each keeps (on data
seeds 5-9, not in the table, raw steps, part 4: both 0.866 / 1 / 1 / 0.988 / 1,
where with the previous cycle of starts two levels scored 0.812 on seed 8).
The difference in the table is seed 3 (measured apart with the previous
cycle, raw steps, the default restarts): both fits end at the same training
objective (0.16987 and 0.16982), with learned time scales 1.00003 / 1.010 and
1.00005, give every test sequence class probabilities within 0.010 of each
other, and disagree on 3 test sequences at 0.49-0.51 (a first step of
0.662-0.663, at the threshold both read). Which side of 0.5 each fit puts them
on is the draw of its starts: with the previous cycle one slow level scored
0.938 there and two levels 0.936, with the present one the other way round
(part 4: objectives 0.16969 and 0.16970). On every data seed of 0-9 their
kept objectives agree within 2e-4 (part 4), and so do their test accuracies
but for those sequences: the two-level fit finds the one-slow-level solution.
Both find the pattern from about the same share of their hold starts (part 4:
35 and 40 of 60; random and permutation starts none); with the previous
cycle's 3 hold starts in 7 restarts two levels missed it on seed 8, with the
present cycle's 6 no fit of either misses it on seeds 0-9.
Flat IOHMMs with as many states and their defaults stay at chance (6 states
{np.mean([r["accuracy"] for r in two[FLAT]]):.3f}, 9 states
{np.mean([r["accuracy"] for r in two[FLAT9]]):.3f}). But a flat IOHMM given the
same hold starts (`init="hold"`) reads the pattern as well, {speedup:.0f} times faster
than the hierarchy on named raw steps: on this problem what pays is the
start, and the hierarchy's defaults include it.

**What the default reads.** `features="auto"` deals the training sequences
to 5 folds (stratified, 12 of each class per fold), fits the shape
representation and raw steps on all folds but one with the final fit's
restarts (one on the shape representation, {two[RAW][0]['n_init']} on raw
steps), scores each on the fold left out, and keeps the one with the better
mean held-out accuracy (raw steps on ties; raw steps stop early once they
cannot reach the shape's mean). It chose {" / ".join(chosen)} on
seeds 0-{args.seeds - 1} (held-out accuracy, shape / raw: {margins}). The shape
representation can read the first steps too: its state networks see, at every
step, the mean of the shape indicators of the prefix so far, which at steps 1-3
is the pattern's. Raw steps alone (row `features='raw'`):
{np.mean([r["accuracy"] for r in two[RAW]]):.3f}; per seed, the default against
raw steps alone: {"; ".join(f"{a['accuracy']:.3f} / {b['accuracy']:.3f}"
                            for a, b in zip(two[default], two[RAW], strict=True))}.
An earlier ranking (two halves of 30 sequences, one restart each) chose the
shape representation on seeds 0 and 3 (0.872 and 0.908 against raw steps'
0.884 and 0.936): a single hold start on 30 sequences often missed the pattern
that 7 restarts on 60 find. Measured on data seeds 0-9 for the choice alone:
two halves with one restart chose the shape on 5 of 10 seeds for `(3, 2)` and
4 of 10 for one slow level; two halves with 7 restarts still on seeds 0 and 3
of 0-4 (raw steps on 30 sequences fit the noise: held-out 0.83 and 0.62); 5
folds with one restart on 5 of 10 for `(3, 2)`; 5 folds with the final fit's
restarts (the default now) on 2 of 10 for `(3, 2)` and none for one slow
level. Those two, seeds 5 and 8, are seeds where `(3, 2)` on raw steps is
weak with all 60 sequences (test 0.866 and 0.812) and fails on 48 (held-out
0.32 and 0.48, against the shape's 0.55 and 0.53); its test accuracy with the
shape representation is lower still (0.616 and 0.554). Raw steps' test
accuracy is at or above the shape's on all 10 seeds, for both models.

**What the other defaults do.** The defaults of `HierarchicalIOHMM` are also
`learn_timescales=True` and `init="auto"`, which, with learned time scales,
cycles the restarts through three `"hold"` starts to one `"random"` or
`"permutation"` start (part 4; fixed time scales keep `"random"` /
`"permutation"`, and the flat estimators are unchanged, bitwise). A hold
start begins every level in its first value, whose network is random (it
reads the input), puts a stay logit of 7 on every other value (under every
value of the slower level), and starts learned time
scales at 1: what the first steps wrote into the state survives 150-300 steps
of noise from the first iteration, and so does the gradient that flows back to
the reading network.

**Why random and permutation starts fail here (measured).** On raw steps (the
row with fixed time scales reads the shape representation, chosen on every
seed, which reads the first steps from any start), from those starts
the state diffuses within a few steps of noise (Bengio & Frasconi 1996, §5.1) and the
fit explains the 60 training classes with the noise: training objective 0.5-0.7,
chance on the test set. From hold starts the fit reads the pattern: final
training objectives of the `(3, 2)` restarts on raw steps, sorted, per seed:
{'; '.join(good)} (0.005-0.22: the pattern read; 0.5-0.7: the noise fitted).
Which start pays was measured on seeds 0 and 3 with 10 hold starts each,
counting restarts that end below 0.35: a stay logit of 7 or 10, 1-3 of 10; hold
starts whose learned time scales begin at `timescales` = (10, 1), 1-2 of 10, at
1, 5-7 of 10 (the slow start also kept the *reading* value, which then read the
noise some steps later); `(3, 3)` from (10, 1), 7 of 10. The learned time scales
end near 1 on the successful fits: slowness helps the search, it is not part of
the solution here.

**Remaining gap to 1.0 (measured).** Seeds 0 and 3 draw class patterns whose
first values are 0.30 and 0.34 apart (with noise in [-0.2, 0.2] on each), while
their second values are 0.89 and 0.77 apart. The raw-step fits kept there read step 1
(their test accuracy is that of the logistic regression on step 1 alone: 0.884
and 0.936 against 0.884 and 0.938); reading step 2 needs a state that waits one
step, which no start provides. Some restarts do read more: on seed 3, one
slow level's restarts include one at a training objective of 0.223 that
scores 0.976, against 0.938 for the one at 0.170 it kept with the previous
cycle of starts; the held-out part of the training data prefers the kept one
too (part 3).

**Cost.** The restarts are as many as before on raw steps (`n_init="auto"`,
here {two[RAW][0]['n_init']}); learned time scales add one parameter per level;
the default's choice adds ten ranking fits on 4/5 of the sequences, with the
final fit's restarts, so that the default costs {ranking:.0f} times the fit on
named raw steps here (the table's fit times; naming `features` skips the
choice).
A flat IOHMM can be given hold starts too (`init="hold"`, row above); it is not
its default, since the flat defaults were kept for the Tomita and parity
benchmarks (`bench_tomita_table6.py` measures hold starts on the grammars:
they suit a fact read once and kept, not counters). On El Hihi & Bengio's
(1995) Figure 2 (`hierarchical_figure2.md`) hold starts fit a level of 3 values
and almost never levels of 2, where the default keeps random and permutation.

{restarts_markdown(saved)}
{cycles_markdown(saved)}
## 5. The paper rows

* **Bengio & Frasconi (1996), Table 6** (`tomita_table6.md`, variations of `gem`):
  one hold start per trial raises grammar #7's convergence from 0.05 to 0.20 and gives
  #2 an average of 0.976 (paper 0.965) but at a convergence of 0.30 (paper
  0.80); it never fits #3 or #5. A permutation start gives #5 an average of
  0.877 (paper 1.000) and #7 a convergence of 0.15. The grammars need
  machines that keep moving (counters, parities), which a hold start does not
  suggest; #7's convergence (paper 0.45) remains the largest gap, with the
  causes measured on that page.
* **2-sequence problem, Figure 4a read literally** (`long_term.md`): the
  drawn graph lets the first transition alone choose the chain, so the class is
  decided by the first input; on the trials where a threshold on the first input
  separates the training set the training error is 0.0-0.1 %, and the remaining
  0.8-5.7 % comes from the trials whose two patterns' first values are closer
  than the noise. A start cannot change what the graph can read; the graph
  aligned with the 3 informative steps (ours, on that page) is at 0-0.2 %.
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
    ax.axvline(ceil, color="0.6", ls=":", label="logistic regression on step 1")
    ax.set_yticks(range(len(names)), [SHOWN.get(n, n) for n in names], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("test accuracy (dots: data seeds, red line: mean)")
    ax.set_xlim(0.4, 1.02)
    ax.legend(frameon=False, fontsize=7, loc="lower left")
    ax.set_title("2-sequence problem, 150-300 noise steps, 60 training sequences",
                 fontsize=9)
    fig.tight_layout()
    return fig


def run_two_parts(args):
    """Parts 1 and 2: the toggled regimes and the 2-sequence table."""
    if args.quick:
        args.seeds = 2
    start = time.perf_counter()
    seeds = range(args.seeds)
    toggle = {data: [toggle_trial(data, s) for s in seeds] for data in TOGGLE_DATA}
    print(toggle, flush=True)
    two = {}
    for name in MODELS:
        two[name] = []
        for s in seeds:
            two[name].append(two_sequence_trial(name, s))
            print(name, s, f"{two[name][-1]['accuracy']:.3f}", flush=True)
    return {"args": {"seeds": args.seeds, "quick": args.quick}, "toggle": toggle,
            "two": two, "elapsed": time.perf_counter() - start}


def run_restarts(seeds):
    """Part 3, kept in the saved results beside parts 1 and 2."""
    start = time.perf_counter()
    restarts = {}
    for name in SELECTED:
        restarts[name] = []
        for s in range(seeds):
            restarts[name].append(restart_trial(name, s))
            print(name, s, restarts[name][-1], flush=True)
    return {"restarts": restarts, "restarts_elapsed": time.perf_counter() - start}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--quick", action="store_true",
                        help="2 data seeds instead of 5")
    parser.add_argument("--restarts", action="store_true",
                        help="only run part 3 (restarts chosen on held-out "
                             "training sequences) into long_memory.json")
    parser.add_argument("--cycles", action="store_true",
                        help="only run part 4 (the cycle of start kinds) into "
                             "long_memory.json")
    parser.add_argument("--render", action="store_true",
                        help="only rewrite the page and figure from long_memory.json")
    args = parser.parse_args()
    raw = RESULTS / "long_memory.json"
    saved = json.loads(raw.read_text()) if raw.exists() else {}
    if not args.render:
        warnings.simplefilter("ignore", ConvergenceWarning)
        # each part keeps the other's saved results
        if args.cycles:
            saved.update(run_cycles(SELECTED, two_sequence_data, args.seeds))
        else:
            saved.update(run_restarts(args.seeds) if args.restarts
                         else run_two_parts(args))
        raw.write_text(json.dumps(saved, indent=1))
    vars(args).update(saved["args"])
    # cheap, so recomputed when rendering
    ceilings = {k: [ceiling(s, k) for s in range(args.seeds)] for k in (1, 3)}
    text = markdown(saved, ceilings, args)
    print(text)
    write("long_memory.md", text)
    figure(saved["two"], ceilings).savefig(RESULTS / "long_memory.png", dpi=120)
    print(f"wrote {RESULTS / 'long_memory.png'}")


if __name__ == "__main__":
    main()
