"""Bengio & Frasconi (1996), Table 6 and Figure 5: IOHMMs on Tomita's grammars.

For each grammar, the paper's model size n* (Table 6: 2, 8, 7, 4, 4, 3, 3), an
ergodic IOHMM with state-only (Moore) outputs is trained on Tomita's own
training set from ``--trials`` random initialisations (``n_init=1``,
``random_state=0..trials-1``). A trial "converges" when it classifies every
training string correctly; converged trials are tested on all strings of length
1-12. Three estimators are reported:

* ``gem``: the paper's algorithm, generalized EM (``solver="em"``), with a weak
  prior ``alpha=1e-3`` (the configuration of this table);
* ``lbfgs``: the package's default solver, single initialisation;
* ``default``: ``IOHMMClassifier(n*, emission="state")`` as shipped
  (``n_init="auto"``: 50 restarts here), one fit per seed.

Also reported: a diagnostic "confident" convergence (every training label given
a probability of at least 0.9) and a few variations of ``gem`` (initial weight
scale, prior, stopping, start distribution, state networks) tried against the
gaps to the paper.

Model size (the paper's §6): GridSearchCV over n = 2..8 and ``--size-seeds``
single-initialisation GEM seeds, trained on Tomita's set and validated on 20 random
strings of length <= 12 (a ``PredefinedSplit``); the size with the best mean
validation accuracy over seeds is n*. The same grid gives the Figure 5 analogue
(frequency of a perfect training fit and validation accuracy against n).

    python benchmarks/bench_tomita_table6.py [--quick] [--trials 20]
"""

import argparse
import json
import time
import warnings

import numpy as np
from _report import table, versions, write
from joblib import Parallel, delayed
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, PredefinedSplit

from skseq import IOHMMClassifier
from skseq.datasets import load_tomita_training_set, make_tomita, make_tomita_exhaustive

# Bengio & Frasconi (1996), Table 6: n*, minimal FSA size, convergence, average /
# worst / best accuracy of converged trials, Watrous & Kuhn's best of 5 second-order
# nets.
PAPER = {
    1: (2, 2, 0.600, 1.000, 1.000, 1.000, 1.000),
    2: (8, 3, 0.800, 0.965, 0.834, 1.000, 1.000),
    3: (7, 5, 0.150, 0.867, 0.775, 1.000, 0.783),
    4: (4, 4, 0.100, 1.000, 1.000, 1.000, 0.609),
    5: (4, 4, 0.100, 1.000, 1.000, 1.000, 0.668),
    6: (3, 3, 0.350, 1.000, 1.000, 1.000, 0.462),
    7: (3, 5, 0.450, 0.856, 0.815, 1.000, 0.557),
}
ESTIMATORS = {
    "gem": {"solver": "em", "alpha": 1e-3, "n_init": 1},
    "lbfgs": {"n_init": 1},
    "default": {},
}
SIZES = range(2, 9)
# Variations of `gem` tried against the gaps (grammar, label, parameters):
# initial weight scale, prior, stopping, start distribution, state networks.
GEM = ESTIMATORS["gem"]
ABLATIONS = [
    (7, "init_scale=0.1", {**GEM, "init_scale": 0.1}),
    (7, "init_scale=3", {**GEM, "init_scale": 3.0}),
    (7, "alpha=0", {**GEM, "alpha": 0.0}),
    (7, "max_iter=1000, tol=1e-8", {**GEM, "max_iter": 1000, "tol": 1e-8}),
    (7, "startprob fixed on state 0", {**GEM, "startprob": [1.0, 0.0, 0.0]}),
    (7, 'transition="additive"', {**GEM, "transition": "additive"}),
    (5, "alpha=1e-2", {**GEM, "alpha": 1e-2}),
    (5, "alpha=1e-1", {**GEM, "alpha": 1e-1}),
    (3, "alpha=1e-2", {**GEM, "alpha": 1e-2}),
    (2, "alpha=1e-2", {**GEM, "alpha": 1e-2}),
    # starting points (init=, issue 17): hold and permutation starts
    (7, 'init="hold"', {**GEM, "init": "hold"}),
    (7, 'init="permutation"', {**GEM, "init": "permutation"}),
    (5, 'init="hold"', {**GEM, "init": "hold"}),
    (5, 'init="permutation"', {**GEM, "init": "permutation"}),
    (3, 'init="hold"', {**GEM, "init": "hold"}),
    (2, 'init="hold"', {**GEM, "init": "hold"}),
]
# Diagnostic only: a converged trial is "confident" when every training label
# gets a probability of at least MARGIN.
MARGIN = 0.9


def trial(grammar, n_states, seed, params):
    warnings.simplefilter("ignore", ConvergenceWarning)
    X, y = load_tomita_training_set(grammar)
    start = time.perf_counter()
    clf = IOHMMClassifier(n_states, emission="state", random_state=seed, **params)
    clf.fit(X, y)
    seconds = time.perf_counter() - start
    if clf.score(X, y) < 1.0:
        return False, None, seconds, 0.0
    # The smallest probability given to a training label: close to 1/2 when a
    # string is only just on the right side of the decision threshold.
    margin = float(np.exp(clf.score_samples(X, y)).min())
    X_test, y_test = make_tomita_exhaustive(grammar, 12)
    return True, clf.score(X_test, y_test), seconds, margin


def summarize(results):
    accs = [acc for ok, acc, *_ in results if ok]
    confident = [acc for ok, acc, _, margin in results if ok and margin >= MARGIN]
    return {
        "convergence": len(accs) / len(results),
        "accs": accs,
        "confident": len(confident) / len(results),
        "confident_accs": confident,
        "seconds": float(np.mean([r[2] for r in results])),
    }


def select_size(grammar, seeds, n_jobs):
    """GridSearchCV: train on Tomita's set, validate on 20 random strings."""
    warnings.simplefilter("ignore", ConvergenceWarning)
    X, y = load_tomita_training_set(grammar)
    X_val, y_val = make_tomita(grammar, 20, max_length=12, random_state=1000 + grammar)
    fold = np.r_[np.full(len(X), -1), np.zeros(len(X_val), int)]
    search = GridSearchCV(
        IOHMMClassifier(emission="state", **ESTIMATORS["gem"]),
        {"n_states": list(SIZES), "random_state": list(range(seeds))},
        cv=PredefinedSplit(fold), refit=False, return_train_score=True, n_jobs=n_jobs,
    )
    search.fit(list(X) + list(X_val), np.r_[y, y_val])
    res = search.cv_results_
    sizes = np.array(res["param_n_states"], dtype=int)
    val = np.array([res["mean_test_score"][sizes == n].mean() for n in SIZES])
    perfect = np.array([(res["mean_train_score"][sizes == n] == 1.0).mean()
                        for n in SIZES])
    return int(list(SIZES)[np.argmax(val)]), val, perfect


def fmt(x):
    return "–" if x is None else f"{x:.3f}"


ABOUT = """**What is measured.** How often an IOHMM learns each of Tomita's
seven regular grammars (binary strings, accepted or not) from Tomita's own
small training sets, and how well the learned models generalize to all 8,190
strings of length 1-12, against Bengio & Frasconi's (1996) Table 6 and the
best of Watrous & Kuhn's (1992) second-order nets quoted there. Three ways to
fit: the paper's generalized EM, the default L-BFGS solver from one start, and
the estimator's defaults (50 restarts).

**In short.** With the paper's model sizes, generalized EM matches the paper
on grammars #1, #4 and #6 and matches its convergence on #3; it falls short on
#2, #5, #7 and #3's accuracy. The trials
that miss a grammar stop at local optima (GEM meets its tolerance; five times
the iterations change nothing); the measured cause per grammar is under *Why
trials fail*. For your own grammar, choose the number of states by
cross-validation on more strings (the README's grid search learns #1, #4 and
#6 exactly from 200 random strings).

**Regenerate** with `python benchmarks/bench_tomita_table6.py` (about 8
minutes), or only this page and its figure from the saved results with
`--render`.

**Limits.** The paper does not give its initial weights or M-step learning
rate, nor its stopping rule for this experiment; Tomita's training sets have
16-24 strings, so several machines fit them and the one found decides the test
accuracy."""


def _results_table(rows):
    """Convergence and accuracy per grammar and estimator, beside the paper's."""
    header = ["grammar", "n*", "estimator", "convergence", "average", "worst",
              "best", "fit (s)", "paper: convergence", "paper: average",
              "paper: worst / best", "W&K best",
              f"confident (P ≥ {MARGIN}): convergence / average"]
    body = []
    for g in PAPER:
        n, _, conv, avg, worst, best, wk = PAPER[g]
        for name in ESTIMATORS:
            s = rows[g][name]
            accs = s["accs"]
            meets = (s["convergence"] >= conv and accs and np.mean(accs) >= avg - 5e-4)
            body.append([
                f"#{g}", n, f"`{name}`", f"{s['convergence']:.2f}",
                fmt(np.mean(accs) if accs else None) + (" ✓" if meets else ""),
                fmt(min(accs) if accs else None), fmt(max(accs) if accs else None),
                f"{s['seconds']:.2f}", f"{conv:.2f}", f"{avg:.3f}",
                f"{worst:.3f} / {best:.3f}", f"{wk:.3f}",
                f"{s['confident']:.2f} / "
                + fmt(np.mean(s["confident_accs"]) if s["confident_accs"] else None),
            ])
    return table(header, body)


def _setting(args):
    """How the table's trials were made."""
    return f"""\
**Setting.** Tomita's own training sets (`load_tomita_training_set`, the empty
string left out), ergodic `IOHMMClassifier(n*, emission="state")` with the
paper's n*, {args.trials} initialisations per grammar
(`random_state=0..{args.trials - 1}`).
A trial converges when it classifies every training string correctly;
average / worst / best are accuracies on all 8,190 strings of length 1-12
(`make_tomita_exhaustive(g, 12)`) over the converged trials. The paper's text
says its test corpus has 2^12 - 1 strings of length <= 12; we use every string
of length 1-12. Estimators: `gem` = the paper's generalized EM
(`solver="em", alpha=1e-3, n_init=1`); `lbfgs` = the default solver,
`n_init=1`; `default` = the estimator as shipped (`n_init="auto"`, i.e. 50
restarts on these small sets, {args.default_seeds} seeds; the "convergence" column is
then the fraction of seeds whose best restart fits the training set).
✓: convergence and average accuracy both at least the paper's. Fit time is per trial.
The paper does not give its initial weight distribution, M-step learning rate or
stopping rule (§6 gives the model, the encoding, 20 trials and the success
criterion); ours are the estimator's defaults except `alpha`."""


READING = f"""**Reading the table.** From one start, neither solver dominates on these
small symbolic sets (in the run saved here): GEM (`gem`) fits the training
set more often than L-BFGS (`lbfgs`) on #3, #6 and #7, less often on #2 and
#5, and where both fit it GEM's fits generalize as well or better except on
#2. The shipped default (L-BFGS with `n_init="auto"`,
the restart with the best training likelihood kept) reaches a perfect
training fit more often but can pick a restart that generalizes far worse
(grammar #2).
The "confident" column is a diagnostic, not the paper's criterion: among all
trials, the fraction whose fit gives every training label a probability of at
least {MARGIN}, and their average test accuracy. Where it is much lower than the
convergence column, most "converged" trials classify some training strings only
just on the right side of 1/2, and those are the trials that generalize badly."""


def _sizes_section(sizes, args):
    """The model size chosen by cross-validation against the paper's."""
    size_rows = [[f"#{g}", PAPER[g][0], PAPER[g][1], sizes[g][0]]
                 + [f"{v:.2f} ({p:.1f})" for v, p in zip(sizes[g][1], sizes[g][2],
                                                          strict=True)]
                 for g in PAPER]
    size_header = ["grammar", "paper n*", "minimal FSA", "selected n"] + [
        f"n = {n}" for n in SIZES]
    return f"""\
**Model size by cross-validation** (paper §6 and Figure 5). GridSearchCV over
`n_states` = 2..8 × `random_state` = 0..{args.size_seeds - 1}
(the `gem` estimator), trained on Tomita's set and
validated on 20 random strings of length 1-12 (`make_tomita(g, 20, max_length=12,
random_state=1000 + g)`, a `PredefinedSplit`). Cells: mean validation accuracy
over seeds (fraction of seeds fitting the training set perfectly); the selected
n has the best mean validation accuracy (ties: the smallest).

{table(size_header, size_rows)}"""


def markdown(rows, sizes, ablations, args, elapsed):
    """The page, from the saved rows, sizes and variations."""
    return f"""# Tomita's grammars (Bengio & Frasconi 1996, Table 6)

{ABOUT}

Generated by `benchmarks/bench_tomita_table6.py{' --quick' if args.quick else ''}`
in {elapsed / 60:.1f} min; {versions()}.

{_setting(args)}

{_results_table(rows)}

{READING}

**Variations of `gem` tried against the gaps** ({args.trials} seeds each, same
protocol; the `gem` row above is the reference):

{table(["grammar", "n*", "variation", "convergence", "average", "worst", "best",
        "paper: convergence / average"], ablations)}

{gap_analysis(rows, ablations, args.trials, sizes)}

{why_trials_fail()}

{_sizes_section(sizes, args)}

![Figure 5 analogue](tomita_table6.png)
"""


def _matches(rows):
    """The grammars where the `gem` row meets the paper's convergence and
    average, and the others with what falls short."""
    met, gaps = [], []
    for g, (_, _, conv, avg, *_) in PAPER.items():
        s = rows[g]["gem"]
        ours = np.mean(s["accs"]) if s["accs"] else None
        short = []
        if s["convergence"] < conv:
            short.append(f"convergence {s['convergence']:.2f} vs {conv:.2f}")
        if ours is None or ours < avg - 5e-4:
            short.append(f"average {fmt(ours)} vs {avg:.3f}")
        (gaps if short else met).append(f"#{g}" + (f" ({', '.join(short)})"
                                                    if short else ""))
    return met, gaps


def _grammar_notes(rows, ablations, trials):
    """The measured gaps of grammars #7, #5, #2 and #3."""
    g7 = [float(r[3]) for r in ablations if r[0] == "#7"]
    g5 = rows[5]["gem"]
    return [
        "* **Grammar #7** (n* = 3, minimal FSA 5 states): a perfect training fit "
        "is rare for every solver; the paper's 3-state solution is not "
        "deterministic (its Figure 7). "
        + (f"None of the variations of `gem` above brings convergence above "
           f"{max(g7):.2f}. " if g7 else "")
        + "The shipped default (L-BFGS, 50 restarts, best likelihood kept) fits "
        f"the training set for {rows[7]['default']['convergence']:.2f} of its "
        "seeds.",
        f"* **Grammar #5**: {len(g5['accs'])} of {trials} `gem` trials "
        f"fit the training set, but only {round(g5['confident'] * trials)}"
        " of them with every training label at probability "
        f">= {MARGIN}; the others sit just above 1/2 on some strings and "
        "generalize at the level of the worst column. The paper's converged "
        "trials all generalized perfectly, with a lower convergence rate: its "
        "optimizer ends in fewer, sharper fits than ours.",
        "* **Grammars #2 and #3** (n* = 8 and 7, minimal FSA 3 and 5): many more "
        "states than needed and 16-24 training strings: several machines fit the "
        "set, and which one the fit ends in decides the test accuracy (the "
        "worst columns). A stronger prior (`alpha=1e-2`, variations above) is "
        "no cure.",
    ]


def _starts_note(ablations):
    """Convergence / average of `gem` from one hold or permutation start."""
    starts = {(r[0], r[2]): r for r in ablations if r[2].startswith("init=")}

    def start(g, label):
        r = starts.get((f"#{g}", f'init="{label}"'))
        return "–" if r is None else f"{r[3]} / {r[4]}"
    return (
        "* **Starting points** (convergence / average of `gem` from one hold or "
        "permutation start, `init=`; see the user guide's *Training long "
        "memory*): a hold start (the chain starts in a state that reads, the "
        f"others keep their value) gives #7 {start(7, 'hold')}, #2 "
        f"{start(2, 'hold')}, #3 {start(3, 'hold')}, #5 {start(5, 'hold')}; a "
        f"permutation start gives #7 {start(7, 'permutation')} and #5 "
        f"{start(5, 'permutation')}. A hold start suits a fact read once and "
        "kept (the 2-sequence problem), not the grammars' counters and parities, "
        "which must keep moving; neither start reaches #7's 0.45.")


def gap_analysis(rows, ablations, trials, sizes):
    """Where the `gem` rows match the paper, and the measured size of each gap."""
    met, gaps = _matches(rows)
    same = [f"#{g}" for g in PAPER if sizes[g][0] == PAPER[g][0]]
    lines = [
        "* `gem` matches the paper (convergence and average) on "
        f"{', '.join(met) or 'no grammar'}; "
        f"it falls short on {', '.join(gaps) or 'none'}.",
        *_grammar_notes(rows, ablations, trials),
        _starts_note(ablations),
        "* **Model size**: our cross-validation (below) selects the paper's n* "
        f"on {', '.join(same) or 'none'} of the seven grammars. With 20 "
        "validation strings, one string is 0.05 of accuracy, and neighbouring "
        "sizes are often closer than that. The paper averages 20 trials per size "
        "(Figure 5), we average the --size-seeds given (see below); it does not "
        "say how it broke near-ties.",
        "* The paper does not state its initial weights or its M-step learning "
        "rate, and states its stopping rule only for its other experiments "
        "(§5.3: stop once the task is learned or after a budget); read that "
        "way for the grammars (*Why trials fail*, below) it raises convergence "
        "but closes no accuracy gap.",
    ]
    return "**Gap analysis (the `gem` rows against the paper).**\n\n" + "\n".join(
        lines)


# The reading of why_trials_fail's table, from the run saved with this page.
WHY_READING = """The objective is the fit's J (penalised negative log-likelihood per
string). Read per grammar (the `package` rows unless said):

* **#2 and #3** (n* = 8 and 7 states, minimal FSA 3 and 5): the trials that
  miss end at objectives about ten times those of the trials that learn the
  set, at GEM's tolerance, and a longer budget changes nothing: local optima.
  The paper's stopping rule raises convergence (on #2 past the paper's)
  without reaching the paper's average accuracy: it catches trials that pass
  through a perfect training fit before their objective settles (the learned
  trials' objectives are higher). Which of the several machines that fit
  16-24 strings a trial ends in decides its accuracy.
* **#5**: the trials that learn the set end at objectives in the same range
  as those that do not (0.07-0.11, where a grammar's machine gives about
  0.01), none with every label at probability 0.9: none of the 20 starts
  reaches the 4-state machine, and the fits that "learn" sit just above 1/2
  on some strings. The shipped default
  (50 restarts) does find it (its confident column).
* **#7** (n* = 3, minimal FSA 5): the lowest objective belongs to a trial that
  does not learn the set. With 3 states maximum likelihood does not imply
  separating the training strings; whether a trial counts as converged is
  which side of 1/2 a few strings fall on, which no stopping rule fixes.
"""


def why_trials_fail():
    """Per grammar, how the `gem` trials that do not learn the training set
    end, under the variations of ``bench_restarts.py --table6`` (read from
    its saved results, if any)."""
    from _report import RESULTS

    path = RESULTS / "tomita_table6_gem.json"
    if not path.exists():
        return ""
    saved = json.loads(path.read_text())
    body = []
    for g, variants in saved["results"].items():
        conv, avg = PAPER[int(g)][2:4]
        for label, runs in variants.items():
            accs = [r["acc"] for r in runs if r["learned"]]
            failed = [r for r in runs if not r["learned"]]
            optimum = sum(r["converged"] for r in failed)
            best = [min((r["objective"] for r in runs if r["learned"] == ok),
                        default=None) for ok in (True, False)]
            body.append([f"#{g}", label, f"{len(accs) / len(runs):.2f}",
                         fmt(np.mean(accs) if accs else None), optimum,
                         len(failed) - optimum,
                         f"{np.median([r['n_iter'] for r in runs]):.0f}",
                         " / ".join(fmt(b) for b in best),
                         f"{conv:.2f} / {avg:.3f}"])
    return f"""**Why trials fail** (`{saved['command']}`, the `gem` setting above,
seeds 0-{len(runs) - 1}). Variations: `package` is the `gem` row (the package's
starts, `max_iter=200`, `tol=1e-5`); `scale1` draws the starts at scale 1 (as
before the linear models' small start); `max_iter=1000` gives GEM five times
the budget; `stop when learned` reads the paper's stopping rule closely
("when either some allowed number of sequence presentations has been
performed or the task has been learned", Bengio & Frasconi 1996, §5.3, stated
there for its other experiments): GEM runs in chunks of 5 iterations and stops
at the first chunk after which every training string is classified right.
Of the trials that do not learn the training set, "at tol" counts those
where GEM met its tolerance (the objective fell by less than `tol` in an
iteration: a local optimum, or a plateau flatter than `tol`), "max_iter"
those that ran out of iterations.

{table(["grammar", "variation", "convergence", "average", "failed: at tol",
        "failed: max_iter", "median iterations",
        "lowest objective: learned / failed", "paper: convergence / average"],
       body)}

{WHY_READING}
"""


def figure(sizes):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 7, figsize=(17, 2.8), sharey=True)
    for ax, g in zip(axes, PAPER, strict=True):
        _, val, perfect = sizes[g]
        ax.bar(list(SIZES), perfect, color="0.75", label="perfect training fit")
        ax.plot(list(SIZES), val, "k^-", label="validation accuracy")
        ax.axvline(PAPER[g][0], color="tab:red", ls="--", lw=1, label="paper n*")
        ax.set_title(f"Grammar #{g}")
        ax.set_xlabel("n_states")
    axes[0].legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    return fig


def _render(args, raw):
    """Rewrite the page and figure from the saved results ``raw``."""
    from _report import RESULTS

    saved = json.loads(raw.read_text())
    vars(args).update(saved["args"])
    rows = {int(g): v for g, v in saved["rows"].items()}
    sizes = {int(g): (v[0], np.array(v[1]), np.array(v[2]))
             for g, v in saved["sizes"].items()}
    write("tomita_table6.md", markdown(rows, sizes, saved["ablations"], args,
                                       saved["elapsed"]))
    figure(sizes).savefig(RESULTS / "tomita_table6.png", dpi=110)


def _ablations(args):
    """The variations of gem (none with ``--no-ablation``): a table row each."""
    ablations = []
    for g, label, params in ([] if args.no_ablation else ABLATIONS):
        n = PAPER[g][0]
        s = summarize(Parallel(n_jobs=args.n_jobs)(
            delayed(trial)(g, n, seed, params) for seed in range(args.trials)))
        accs = s["accs"]
        ablations.append([f"#{g}", n, label, f"{s['convergence']:.2f}",
                          fmt(np.mean(accs) if accs else None),
                          fmt(min(accs) if accs else None),
                          fmt(max(accs) if accs else None),
                          f"{PAPER[g][2]:.2f} / {PAPER[g][3]:.3f}"])
        print(f"ablation grammar {g} {label}: convergence {s['convergence']:.2f}",
              flush=True)
    return ablations


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--default-seeds", type=int, default=10)
    parser.add_argument("--size-seeds", type=int, default=10)
    parser.add_argument("--quick", action="store_true",
                        help="5 trials, 1 default seed, 2 size-selection seeds")
    parser.add_argument("--no-ablation", action="store_true",
                        help="skip the variations of gem")
    parser.add_argument("--n-jobs", type=int, default=-1)
    parser.add_argument("--render", action="store_true",
                        help="only rewrite the page and figure from tomita_table6.json")
    args = parser.parse_args()
    if args.quick:
        args.trials, args.default_seeds, args.size_seeds = 5, 1, 2
    from _report import RESULTS

    raw = RESULTS / "tomita_table6.json"
    if args.render:
        _render(args, raw)
        return
    start = time.perf_counter()
    rows, sizes = {}, {}
    for g in PAPER:
        n = PAPER[g][0]
        rows[g] = {}
        for name, params in ESTIMATORS.items():
            seeds = range(args.default_seeds if name == "default" else args.trials)
            results = Parallel(n_jobs=args.n_jobs)(
                delayed(trial)(g, n, seed, params) for seed in seeds)
            rows[g][name] = summarize(results)
            s = rows[g][name]
            print(f"grammar {g} n={n} {name:8s} convergence {s['convergence']:.2f} "
                  f"mean acc {fmt(np.mean(s['accs']) if s['accs'] else None)}",
                  flush=True)
        sizes[g] = select_size(g, args.size_seeds, args.n_jobs)
        print(f"grammar {g}: selected n = {sizes[g][0]}", flush=True)
    ablations = _ablations(args)
    elapsed = time.perf_counter() - start
    raw.write_text(json.dumps({
        "args": {k: getattr(args, k) for k in ("trials", "default_seeds",
                                               "size_seeds", "quick")},
        "elapsed": elapsed, "rows": rows, "ablations": ablations,
        "sizes": {g: [int(n), list(map(float, v)), list(map(float, f))]
                  for g, (n, v, f) in sizes.items()},
    }, indent=0, default=float))
    write("tomita_table6.md", markdown(rows, sizes, ablations, args, elapsed))
    fig = figure(sizes)

    fig.savefig(RESULTS / "tomita_table6.png", dpi=110)
    print(f"wrote {RESULTS / 'tomita_table6.png'}")


if __name__ == "__main__":
    main()
