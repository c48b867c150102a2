"""The page of ``bench_real_data.py``: its tables, prose and figure.

``report`` rewrites ``doc/results/real_data.md`` and ``real_data.png`` from the
JSON the script saves (``real_data.json``, and ``real_data_carryover.json``,
``real_data_ablation.json``, ``real_data_scaling.json`` when present). The
labels of the rows the page singles out are defined here, and the script
imports them.
"""

import json

import numpy as np
from _real_data_prose import CHOSEN, SPEED, TRIED
from _report import RESULTS, mean_range, table, write

DEFAULT = "skseq IOHMMClassifier() (default)"
FORMER = "default, principal components only (former default)"
N_STATES_1 = "default representation, n_states=1"
MINIROCKET = "MiniRocket + ridge (sktime)"
TUNED_GRID = {"alpha": [0.01, 0.1, 1.0], "n_states": [2, 4]}


def _stats(runs, key):
    vals = [r[key] for r in runs if r.get(key) is not None]
    return (np.mean(vals), min(vals), max(vals)) if vals else None


def _cell(runs, key, fmt="{:.3f}"):
    vals = [r[key] for r in runs if r.get(key) is not None]
    return mean_range(vals, fmt) if vals else "failed"


def last_run(saved, name):
    """The models fitted on set ``name`` in the same run as MiniRocket's row:
    those of the last refit that fitted MiniRocket there (all, without refits)."""
    for refit in reversed(saved.get("refits", [])):
        if MINIROCKET in refit["models"] and name in refit["datasets"]:
            return set(refit["models"])
    return set(saved["results"][name])


def set_table(res, same_run=None):
    """The set's rows; the fit-time ratio only for the models of MiniRocket's
    run (``same_run``, default all): other runs' times are not comparable."""
    mr = _stats(res[MINIROCKET], "fit")[0] if MINIROCKET in res else None
    rows = []
    for label, runs in res.items():
        fit = _stats(runs, "fit")
        ratio = ("" if mr is None or fit is None
                 else "(earlier run)" if same_run is not None and label not in same_run
                 else f"{fit[0] / mr:.1f}x")
        rows.append([label, _cell(runs, "acc"), _cell(runs, "train"),
                     _cell(runs, "fit", "{:.2f}"), ratio])
    return table(["model", "test accuracy", "training accuracy", "fit (s)",
                  "fit / MiniRocket"], rows)


def ablation_table(abl):
    names = list(abl["results"])
    variants = list(next(iter(abl["results"].values())))
    rows = [[v] + [_cell(abl["results"][n][v], "acc") for n in names]
            + [_cell(abl["results"][n][v], "fit", "{:.2f}") for n in names]
            for v in variants]
    return table(["change"] + [f"{n} acc" for n in names]
                 + [f"{n} fit (s)" for n in names], rows)


def _mean(runs, key):
    s = _stats(runs, key)
    return None if s is None else s[0]


def summary_table(results):
    """The default against MiniRocket and its own n_states=1 variant."""
    rows = []
    for name, res in results.items():
        if DEFAULT not in res or MINIROCKET not in res:
            continue
        d, m = res[DEFAULT], res[MINIROCKET]
        one, former = res.get(N_STATES_1), res.get(FORMER)
        gap = _mean(d, "acc") - _mean(m, "acc")
        alphas = [r["alpha"] for r in d if r.get("alpha") is not None]
        fit = _mean(d, "fit") / _mean(m, "fit")
        pred = (_mean(d, "predict") / _mean(m, "predict")
                if _mean(m, "predict") else None)
        rows.append([name, _cell(d, "acc"), _cell(m, "acc"), f"{gap:+.3f}",
                     _cell(one, "acc") if one else "",
                     _cell(former, "acc") if former else "",
                     (f"{min(alphas):.2g}-{max(alphas):.2g}" if alphas else ""),
                     f"{fit:.1f}x", "" if pred is None else f"{pred:.1f}x"])
    return table(["data set", "default", "MiniRocket", "difference",
                  "default with n_states=1", "former default", "alpha chosen",
                  "fit / MiniRocket's", "predict / MiniRocket's"], rows)


def _median_ratio(results, key):
    ratios = [_mean(res[DEFAULT], key) / _mean(res[MINIROCKET], key)
              for res in results.values()
              if DEFAULT in res and MINIROCKET in res
              and _mean(res[MINIROCKET], key)]
    return float(np.median(ratios)) if ratios else float("nan")


def _peer_at(n, seconds, slope, measured):
    """How MiniRocket's fit time on ``n`` sequences was obtained."""
    if measured:
        return (f"MiniRocket + ridge, measured on {n:,} sequences in this run, "
                f"took {seconds:.0f} s (time ~ n^{slope:.2f} from the size below)")
    return (f"A power law through MiniRocket's two largest sizes (time ~ "
            f"n^{slope:.2f}) puts its fit on {n:,} sequences at about "
            f"{seconds:.0f} s")


def scaling_text(sc):
    if not sc:
        return ""
    d1, d2 = sc["default"]["1"], sc["default"]["2"]
    sizes = sorted(int(n) for n in sc["minirocket"])
    fits = [sc["minirocket"][str(n)]["fit"] for n in sizes]
    # MiniRocket's ridge grows about as n^2 (memory) to n^3 (time): a power
    # law through the two largest sizes, extended to n_sequences.
    slope = np.log(fits[-1] / fits[-2]) / np.log(sizes[-1] / sizes[-2])
    n = sc["n_sequences"]
    extrapolated = fits[-1] * (n / sizes[-1]) ** slope
    measured = sizes[-1] == n
    caveat = "" if measured else " (an extrapolation, not a measurement)"
    peer_note = (": its cross-validated ridge solves an eigenproblem as large as "
                 "the number of sequences" + ("" if measured else
                 " (measured once at 10,000 sequences earlier: about 700 s "
                 "and 5.4 GB on a quieter machine)"))
    rows = [[f"default, 1 thread, {n:,} sequences", f"{d1['fit']:.1f}",
             f"{d1['predict']:.2f}"],
            [f"default, n_jobs=2, {n:,} sequences", f"{d2['fit']:.1f}",
             f"{d2['predict']:.2f}"]]
    rows += [[f"MiniRocket + ridge, {k:,} sequences", f"{f:.1f}",
              f"{sc['minirocket'][str(k)]['predict']:.2f}"]
             for k, f in zip(sizes, fits, strict=True)]
    return f"""
## Many sequences (`--scaling`)

Synthetic random walks of 100 steps, one channel, two classes (a bump in the
first or the second half); fit on the training set, predict 1,000 sequences.
The default fits {n:,} sequences; MiniRocket + ridge fits
{", ".join(f"{k:,}" for k in sizes)}{peer_note}.

{table(["model", "fit (s)", "predict 1,000 (s)"], rows)}

{_peer_at(n, extrapolated, slope, measured)}:
**{extrapolated / d1['fit']:.1f}x** the default's {d1['fit']:.1f} s{caveat}.
With `n_jobs=2` the default fits {d1['fit'] / d2['fit']:.2f}x faster than with
one thread, on a machine shared with other work (a second core is not free
there; the figure is what was measured).{_threads_text(sc.get("threads"))}
"""


def _threads_text(th):
    """The two-thread speed-up measured on its own (``--scaling --threads-only``)."""
    if not th:
        return ""
    mean = {k: {key: np.mean([r[key] for r in th["runs"] if r["n_jobs"] == k])
                for key in ("fit", "predict")} for k in (1, 2)}
    fits = " / ".join(f"{r['fit']:.1f}" for r in th["runs"])
    return (f"\n\nMeasured on its own (`--scaling --threads-only`, load average "
            f"{th['load']:.1f} before, {th['n_sequences']:,} sequences, fits with "
            f"1, 2, 2, 1 threads: {fits} s): `n_jobs=2` fits "
            f"**{mean[1]['fit'] / mean[2]['fit']:.2f}x** faster than one thread "
            f"and predicts {mean[1]['predict'] / mean[2]['predict']:.2f}x faster.")


# The page; its fields are filled in by ``markdown``.
PAGE = """# Real data: skseq against its peers

**What was measured**: test accuracy, fit time and predict time of the
default `IOHMMClassifier()` on four classification sets of the UCR/UEA
archive, and on four more kept aside, against MiniRocket with its ridge
classifier (the strongest fast peer) and other peers. Seeds {seeds} for
every stochastic model (mean, and lowest-highest in brackets). Every model
was limited to {threads} BLAS/OpenMP/torch thread(s) on a 2-core machine
shared with other work; {versions}.

**Data.** Official train/test splits (`<Name>_TRAIN.ts` / `_TEST.ts` from
sktime's wheel, parsed by `benchmarks/_ucr.py`): BasicMotions (6 channels,
100 steps, 40 training sequences), PLAID (1 channel, 100-1,344 steps, 537),
ItalyPowerDemand (1 channel, 24 steps, 67) and ArrowHead (1 channel, 251
steps, 36).

**The default** is `IOHMMClassifier(random_state=seed)` on the raw
sequences, exactly as shipped. On these real-valued series it reads every
step through its shape representation (per step, causal MiniRocket-style
dilated-kernel indicators and amplitude levels, their mean over the prefix,
projected on whitened principal components, with the cross-fitted decisions
of a ridge classifier on all of them) and chooses its L2 penalty from
the training data (`alpha="auto"`: the leave-one-out error of a ridge
read-out, as `RidgeClassifierCV` chooses its own; the chosen value is
`alpha_`, in the table below).

**Peers.** MiniRocket (sktime's MiniRocket / MiniRocketMultivariate /
MiniRocketMultivariateVariable, 9,996 features, `RidgeClassifierCV`), one
hmmlearn `GaussianHMM(3, "diag")` per class, LogisticRegression and
HistGradientBoosting on summary features (mean, std, first, last, min, max,
length), an LSTM (32 units, Adam, window means to 200 steps), 1-NN
ED / full-window DTW on equal-length sets; and skseq recipes: the default's
representation into `n_states=1` (`transition="homogeneous"`) or into a
`LogisticRegression` at the last step, `features="raw"` (the paper's model),
and a 3-fold grid search over {tuned_grid}.

## The default against MiniRocket

{summary}

Mean test accuracy over the four sets: default {mean_default:.3f},
MiniRocket {mean_minirocket:.3f}, default with `n_states=1`
{mean_one_state:.3f}. Median over the sets of the default's fit time
over MiniRocket's: {fit_median:.1f}x; of predict time: {predict_median:.1f}x.

![test accuracy of the default against MiniRocket](real_data.png)

*Each point is a data set: MiniRocket's mean test accuracy across, the
default's up; the whiskers span the lowest and highest seed. Above the diagonal
the default is more accurate. Hollow points are the sets kept aside.*

**Verdicts**, test accuracy of the default against MiniRocket (seeds
{seeds}):

{verdicts}

## When to use which model

{when}

{limits}{scaling}
## Per data set

The rows {same_run} come from one run (the last
refit); the others from earlier runs of the same script, on a machine whose
speed varied between runs: their fit times are not compared with this run's
MiniRocket ("earlier run"). Of those, the default representation into a
LogisticRegression reads the principal components only (it fits the
representation without the classes), and the grid search read an older
projection (fitted on sampled steps only); the other models have not changed
since.

{sections}
{carry_text}
{chosen}{abl_text}
{tried}
{speed}
## How to regenerate this page

    python benchmarks/bench_real_data.py               # the four sets
    python benchmarks/bench_real_data.py --carry-over  # sets kept aside
    python benchmarks/bench_real_data.py --scaling     # 10,000 sequences
    python benchmarks/bench_real_data.py --scaling --threads-only  # 1 vs 2 threads

(`--report-only` rewrites this page and its figure from the saved JSON; with
`--only MODEL ...` a run refits only those rows and keeps the others).
"""


def verdicts(results, kept_aside=False):
    """One line per set: the default against MiniRocket, with the spreads."""
    lines = []
    for name, res in results.items():
        if DEFAULT not in res or MINIROCKET not in res:
            continue
        d, m = _stats(res[DEFAULT], "acc"), _stats(res[MINIROCKET], "acc")
        gap = d[0] - m[0]
        word = ("level with" if f"{abs(gap):.3f}" == "0.000"
                else "ahead of" if gap > 0 else "behind")
        overlap = d[1] <= m[2] and m[1] <= d[2]
        spread = ("the ranges over seeds overlap" if overlap
                  else "the ranges over seeds do not overlap")
        fit = _mean(res[DEFAULT], "fit") / _mean(res[MINIROCKET], "fit")
        what = "" if word == "level with" else f" by {abs(gap):.3f}"
        lines.append(
            f"- **{name}**{' (kept aside)' if kept_aside else ''}: {word} "
            f"MiniRocket{what}. The default {_cell(res[DEFAULT], 'acc')}, "
            f"MiniRocket {_cell(res[MINIROCKET], 'acc')}: {spread}. Fit "
            f"time {fit:.1f}x MiniRocket's.")
    return "\n".join(lines)


def _gaps(results):
    """The default's mean test accuracy minus MiniRocket's, per set."""
    return {n: _mean(res[DEFAULT], "acc") - _mean(res[MINIROCKET], "acc")
            for n, res in results.items() if DEFAULT in res and MINIROCKET in res}


def _row_means(results, label):
    """The mean test accuracy of ``label`` on each set that has it."""
    return {n: _mean(res[label], "acc") for n, res in results.items()
            if label in res}


def when_to_use(results, carry, sc):
    """Which model to pick, in a list written from the saved figures."""
    means = {m: np.mean(list(_row_means(results, m).values()))
             for m in (DEFAULT, MINIROCKET)}
    one = {n: abs(_mean(res[N_STATES_1], "acc") - _mean(res[DEFAULT], "acc"))
           for n, res in results.items() if N_STATES_1 in res}
    one_fit = [_mean(res[N_STATES_1], "fit") / _mean(res[DEFAULT], "fit")
               for res in results.values() if N_STATES_1 in res]
    raw = _row_means(results, "skseq IOHMMClassifier(features='raw')")
    tuned = "skseq IOHMMClassifier (tuned)"
    both = {**results, **(carry or {}).get("results", {})}
    better = [n for n, res in both.items() if tuned in res
              and _mean(res[tuned], "acc") > _mean(res[DEFAULT], "acc")]
    n_tuned = sum(tuned in res for res in both.values())
    cost = [_mean(res[tuned], "fit") / _mean(res[DEFAULT], "fit")
            for res in both.values() if tuned in res]
    ahead = [n for n, res in (carry or {}).get("results", {}).items()
             if DEFAULT in res and MINIROCKET in res
             and _mean(res[DEFAULT], "acc") > _mean(res[MINIROCKET], "acc")]
    lines = [
        f"- **MiniRocket + ridge**, when whole-sequence accuracy on small sets "
        f"and fit time are what matter: on the four sets it is more accurate on "
        f"average ({means[MINIROCKET]:.3f} against {means[DEFAULT]:.3f}) and "
        f"fits faster (median {_median_ratio(results, 'fit'):.1f}x).",
        f"- **`IOHMMClassifier()`**, the default, for a model whose hidden "
        f"states are discrete and read the sequence step by step, at an "
        f"accuracy close to MiniRocket's: within "
        f"{max(abs(g) for g in _gaps(results).values()):.3f} "
        f"on the four sets, and ahead on {len(ahead)} of the "
        f"{len((carry or {}).get('results', {}))} sets kept aside "
        f"({', '.join(ahead) or 'none'}).",
    ]
    if sc:
        d1 = sc["default"]["1"]["fit"]
        mr = sc["minirocket"].get(str(sc["n_sequences"]))
        if mr:
            lines.append(
                f"- **`IOHMMClassifier()` on many sequences**: on "
                f"{sc['n_sequences']:,} synthetic sequences it fitted "
                f"{mr['fit'] / d1:.1f}x faster than MiniRocket + ridge, whose "
                f"cross-validated ridge grows with the number of sequences "
                f"(section \"Many sequences\").")
    lines += [
        f"- **`n_states=1`** (`transition=\"homogeneous\"`), when one state "
        f"is enough: on the four sets its test accuracy is within "
        f"{max(one.values()):.3f} of the default's, and it fits in "
        f"{min(one_fit):.2f}-{max(one_fit):.2f} of the default's time.",
        f"- **Not `features=\"raw\"`** (the model of Bengio & Frasconi 1996 on "
        f"the raw values) on real-valued series like these: "
        f"{min(raw.values()):.3f}-{max(raw.values()):.3f} test accuracy on "
        f"the four sets (an earlier run).",
        f"- **A grid search** over `alpha` and `n_states` did not pay here: it "
        f"was more accurate than the default on {len(better)} of the {n_tuned} "
        f"sets where it ran, at {min(cost):.0f}x to {max(cost):.0f}x the "
        f"default's fit time (from different runs; it read an older "
        f"projection).",
    ]
    return "\n".join(lines)


def _and(items):
    """``a``, ``a and b``, ``a, b and c``; ``none`` for no items."""
    if not items:
        return "none"
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def limits(results, carry):
    """The limits, plainly, written from the saved figures."""
    means = {m: np.mean(list(_row_means(results, m).values()))
             for m in (DEFAULT, MINIROCKET)}
    gaps = _gaps(results)
    worst = min(gaps, key=gaps.get)
    ratios = [_mean(res[DEFAULT], "fit") / _mean(res[MINIROCKET], "fit")
              for res in results.values()]
    kept = _gaps((carry or {}).get("results", {}))
    ahead = _and([f"{n} ({g:+.3f})" for n, g in kept.items() if g > 0])
    behind = _and([f"{n} ({g:+.3f})" for n, g in kept.items() if g < 0])
    return f"""## Limits

- **Accuracy.** On these sets the default is not yet as accurate as
  MiniRocket on average ({means[DEFAULT]:.3f} against
  {means[MINIROCKET]:.3f}); {worst} is {abs(gaps[worst]):.3f} behind.
- **Fit time on small sets.** It is not as fast to fit: median
  {_median_ratio(results, 'fit'):.1f}x MiniRocket's fit time in the table's
  run ({min(ratios):.1f}x to {max(ratios):.1f}x over the four sets). Earlier
  refits are under "Where the fit's time goes".
- **Sets kept aside.** On the sets never used to choose anything, the
  default is ahead of MiniRocket on {ahead}, behind on {behind}.
- **Small sets.** On ArrowHead (36 training series) the test split
  disagrees with the training split about the ridge's decisions (under "How
  the defaults were chosen").
- **What was measured.** Whole-sequence classification on eight archive
  sets, three seeds, on a 2-core machine shared with other work: fit times
  are comparable only within a run.
"""


def _carry_text(carry):
    """The section on the sets kept aside, or nothing without them."""
    if not carry:
        return ""
    carry_sections = "\n\n".join(
        f"### {n} (kept aside)\n\n"
        f"{set_table(carry['results'][n], same_run=last_run(carry, n))}"
        for n in carry["results"])
    return f"""
## Sets kept aside (`--carry-over`)

Archive sets shipped with sktime that were never used to choose anything:
the same comparison, seeds {carry['seeds']}.

{summary_table(carry['results'])}

{carry_sections}
"""


def _ablation_text(abl):
    """The section on one change at a time, or nothing without it."""
    return "" if not abl else f"""
## One change at a time (`--ablation`)

Options of the model and of its representation (`ShapeFeatures`), changed one
at a time, measured before the penalty was chosen from the data (with
`alpha=0.01`, the former default); seeds {abl['seeds']}, test accuracy mean
(lowest-highest) and fit time.

{ablation_table(abl)}
"""


def markdown(saved, carry, abl=None, sc=None):
    """The page, from the saved runs: the panel (``saved``), the sets kept
    aside (``carry``), the ablation (``abl``) and the scaling run (``sc``)."""
    results = saved["results"]
    names = list(results)
    sections = "\n\n".join(
        f"### {n}\n\n{set_table(results[n], last_run(saved, n))}" for n in names)
    run = [m for m in results[names[0]] if m in last_run(saved, names[0])]
    means = {m: np.mean([_mean(r[m], "acc") for r in results.values()])
             for m in (DEFAULT, MINIROCKET, N_STATES_1)}
    return PAGE.format(
        threads=saved["threads"], seeds=saved["seeds"], versions=saved["versions"],
        tuned_grid=TUNED_GRID, summary=summary_table(results),
        mean_default=means[DEFAULT], mean_minirocket=means[MINIROCKET],
        mean_one_state=means[N_STATES_1],
        fit_median=_median_ratio(results, "fit"),
        predict_median=_median_ratio(results, "predict"),
        verdicts=_all_verdicts(results, carry),
        when=when_to_use(results, carry, sc), limits=limits(results, carry),
        scaling=scaling_text(sc),
        same_run=", ".join(f"`{m}`" for m in run), sections=sections,
        carry_text=_carry_text(carry), abl_text=_ablation_text(abl),
        chosen=CHOSEN, tried=TRIED,
        speed=SPEED.format(fit_median=_median_ratio(results, "fit")))


def _all_verdicts(results, carry):
    """The verdicts on the four sets, then on the sets kept aside."""
    kept = verdicts(carry["results"], kept_aside=True) if carry else ""
    return verdicts(results) + ("\n" + kept if kept else "")


def figure(saved, carry=None):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.2, 5.0))
    for results, hollow in ((saved["results"], False),
                            ((carry or {}).get("results", {}), True)):
        for name, res in results.items():
            if DEFAULT not in res or MINIROCKET not in res:
                continue
            d, m = _stats(res[DEFAULT], "acc"), _stats(res[MINIROCKET], "acc")
            ax.errorbar(m[0], d[0], xerr=[[m[0] - m[1]], [m[2] - m[0]]],
                        yerr=[[d[0] - d[1]], [d[2] - d[0]]], fmt="o",
                        mfc="white" if hollow else "C0", color="C0", capsize=3)
            ax.annotate(name, (m[0], d[0]), textcoords="offset points",
                        xytext=(5, -10), fontsize=8)
    lo = min(ax.get_xlim()[0], ax.get_ylim()[0])
    ax.plot([lo, 1.0], [lo, 1.0], color="grey", lw=0.8)
    ax.set_xlim(lo, 1.005)
    ax.set_ylim(lo, 1.005)
    ax.set_xlabel("MiniRocket + ridge: test accuracy")
    ax.set_ylabel("IOHMMClassifier(): test accuracy")
    fig.tight_layout()
    return fig


def _recipes_first(results, recipes):
    """Each set's rows with the skseq recipes first, in the order of ``recipes``."""
    return {name: {**{m: res[m] for m in recipes if m in res}, **res}
            for name, res in results.items()}


def _saved(name):
    """The JSON saved by a run of the script, or None if there was none."""
    path = RESULTS / name
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def report(recipes):
    """Rewrite ``real_data.md`` and ``real_data.png`` from the saved JSON;
    ``recipes``: the labels of the skseq recipes, listed first in every set."""
    saved = json.loads((RESULTS / "real_data.json").read_text(encoding="utf-8"))
    saved["results"] = _recipes_first(saved["results"], recipes)
    carry = _saved("real_data_carryover.json")
    abl = _saved("real_data_ablation.json")
    sc = _saved("real_data_scaling.json")
    write("real_data.md", markdown(saved, carry, abl, sc))
    figure(saved, carry).savefig(RESULTS / "real_data.png", dpi=110)
    print(f"wrote {RESULTS / 'real_data.png'}")
