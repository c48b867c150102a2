"""The page of ``bench_step_labelling.py``: its tables, prose and figure.

``report`` rewrites ``doc/results/step_labelling.md`` and ``figure``
``step_labelling.png`` from the saved results: ``step_labelling.json``, and
the sections of ``step_labelling_lag.json``, ``step_labelling_decisions.json``,
``step_labelling_classifiers.json``, ``step_labelling_estimators.json``,
``step_labelling_global.json``, ``step_labelling_folds.json``,
``step_labelling_window.json`` and
``step_labelling_tuning.json`` when present. The files' paths and the steps
counted as at a change (``AFTER``) are defined here, and the scripts import
them.
"""

import json

import numpy as np
from _report import RESULTS, table, versions, write
from _step_labelling_folds import FOLDS_JSON, folds_section
from _step_labelling_halves import (
    classifiers_section,
    decisions_section,
    estimators_section,
    global_chain_section,
    multiscale_section,
    per_dataset,
    window_section,
)

JSON = RESULTS / "step_labelling.json"
TUNING_JSON = RESULTS / "step_labelling_tuning.json"
LAG_JSON = RESULTS / "step_labelling_lag.json"  # bench_step_labelling_lag.py
WINDOW_JSON = RESULTS / "step_labelling_window.json"  # ..._window.py
DECISIONS_JSON = RESULTS / "step_labelling_decisions.json"  # ..._decisions.py
CLASSIFIERS_JSON = RESULTS / "step_labelling_classifiers.json"  # ..._classifiers.py
CLASSIFIERS_TEST_JSON = RESULTS / "step_labelling_classifiers_test.json"  # --test
GLOBAL_JSON = RESULTS / "step_labelling_global.json"  # ..._global.py
ESTIMATORS_JSON = RESULTS / "step_labelling_estimators.json"  # --estimators
AFTER = 10  # steps after a change counted as "at the change" (lag section)

MODELS = [("hybrid", "HybridHMMClassifier() (default)"),
          ("hybrid_no_transitions",
           "HybridHMMClassifier(transitions='none', n_states_per_label=1)"),
          ("hybrid_multiscale", "HybridHMMClassifier(features='multiscale')"),
          ("hybrid_onset16", "HybridHMMClassifier(onset_weight=16)"),
          ("hybrid_durations", "HybridHMMClassifier(durations='learned')"),
          ("hybrid_summaries", "HybridHMMClassifier(features='summaries', "
           "window=32, likelihood_scale=0.3)"),
          ("iohmm", "IOHMMClassifier() (default)"),
          ("hgb", "HistGradientBoosting, last 32 steps"),
          ("hgb_filter", "HistGradientBoosting + sticky HMM"),
          ("crf", "linear-chain CRF (crfsuite), last 32 steps")]


def _cell(runs, key, mode, metric):
    vals = [r["models"][key][mode][metric] for r in runs
            if key in r["models"] and mode in r["models"][key]]
    if not vals:
        return "", None
    mean = float(np.mean(vals))
    return f"{mean:.3f} ({min(vals):.3f}-{max(vals):.3f})", mean


ABOUT = ("How well does `HybridHMMClassifier()` label every step of real "
         "sessions, and find where their segments begin, causally (as the "
         "steps arrive) and offline? Against gradient-boosted trees on the "
         "last 32 steps (alone, and followed by a sticky HMM filter or "
         "Viterbi), a linear-chain CRF, the same model without its chain, "
         "and `IOHMMClassifier()`.")
REGENERATE = ("Regenerate with `python benchmarks/bench_step_labelling.py` "
              "(about 45 minutes on a shared 2-core machine; `--render` rewrites "
              "this page and its figure from `step_labelling.json`).")
SETUP = ("**What was measured.** Sessions are 2-5 recordings of one archive set "
         "(BasicMotions, PLAID) put end to end, every "
         "step labelled with its recording's class; training sessions use only "
         "the official training recordings (two random passes), test sessions "
         "only the test recordings. Cells: mean (min-max) over the seeds of the "
         "session construction (each model's random_state is the seed). Boundary "
         "F1 matches predicted and true label changes one to one within a "
         "tolerance of 10% of the median recording length (BasicMotions: 10 "
         "steps, PLAID: 30 steps). Causal: the label of step t from steps up to "
         "t. Offline: from the whole session (Viterbi; the CRF's decoding).")
LIMITS = [
    "**Two panel constructions only.** Sessions are concatenated recordings, "
    "so every change of label is abrupt and every segment lasts a whole "
    "recording.",
    "**The defaults were chosen on these two sets.** The hybrid's defaults "
    "(`features=\"auto\"`, `window=\"auto\"`, `likelihood_scale=0.5`, two "
    "states per label, `onset_weight=1`) were chosen on sessions cut from the "
    "training recordings of these two sets, split in halves by recording "
    "(`--tuning`).",
    "**The chain lags at a change** (section \"Why the chain lags at a "
    "change\"): it trades per-step accuracy right after each change for "
    "fewer errors inside segments.",
    "**The CRF is a weak baseline here.** It reads the same 32 raw values as "
    "the boosted trees, as numeric features with crfsuite's defaults (c1 = "
    "c2 = 0.1, 100 L-BFGS iterations); it is a weak per-step classifier of raw "
    "current values (PLAID).",
    "**Fit times** are comparable only within a run: the machine was shared "
    "with other jobs.",
]
# Why the rows other than the default are not the default.
ROW_NOTES = [
    "`features=\"auto\"` chooses the per-step representation (window "
    "summaries or raw lags) on held-out training sessions in every fit, and "
    "`window=\"auto\"` the window (8 or 32 steps) with the chain (see \"The "
    "window, chosen with the chain\").",
    "The row `features='multiscale'` reads both in one classifier, fitted once "
    "with no held-out choice: the raw values of each of the last 8 steps and "
    "the summaries over the last 8 and 32 steps. On the training halves it "
    "labelled fewer steps correctly than the default on BasicMotions (see "
    "\"Two scales in one classifier\"), so it is not the default, and its "
    "figures in the first tables were not used to choose.",
    "The row `features='summaries', window=32, likelihood_scale=0.3` is an "
    "earlier default, in the same run.",
    "The row `onset_weight=16` weighs the per-step classifier's training steps "
    "within half its window after each change of label 16 times. On the "
    "training halves, at a window of 32 steps, it raised BasicMotions' causal "
    "accuracy, but on PLAID's its chain no longer added accuracy to its "
    "classifier, so it is not the default; its figures in the first tables "
    "were not used to choose.",
    "The row `durations='learned'` gives the chain explicit segment durations "
    "(a hidden semi-Markov chain, Ferguson 1980, Yu 2010; the hazard of each "
    "label's segments counted from the training labels). On the training "
    "halves it tied the default's causal accuracy on BasicMotions (0.9243 "
    "against 0.9248, six splits) and moved PLAID's by +0.0005 (three "
    "splits), raising the causal boundary F1 on both (0.486 against 0.477, "
    "0.268 against 0.260; measured before the window summaries' standard "
    "deviation was computed exactly, which alone moves PLAID's accuracy on "
    "the halves by up to 0.016). Its chain's passes cost more (the causal "
    "prediction time of both is given under each set's table), so it is not "
    "the default, and its figures in the first tables were not used to "
    "choose.",
]


def _bullets(items):
    return [f"- {item}" for item in items] + [""]


def _intro():
    """The page's title and its paragraphs before the results."""
    return ["# Step labelling", "", ABOUT, "", SETUP, "",
            f"Environment: {versions('sklearn-crfsuite')}; one thread per model; "
            "the machine was shared with other jobs, so fit times are comparable "
            "only within a run.", "", REGENERATE, ""]


def _m(runs, key, mode, metric):
    """The mean of ``key``'s ``mode`` ``metric`` over ``runs`` (None if absent)."""
    return _cell(runs, key, mode, metric)[1]


def _verdict(name, runs):
    """One set's plain verdict: the default against the peers, with spreads."""
    def against(mode, metric, key, peer, first=True):
        a, b = _m(runs, "hybrid", mode, metric), _m(runs, key, mode, metric)
        how = ("level with" if f"{abs(a - b):.3f}" == "0.000"
               else f"ahead of {peer} by {a - b:.3f}" if a > b
               else f"behind {peer} by {b - a:.3f}")
        ours = f"{_cell(runs, 'hybrid', mode, metric)[0]} against " if first else ""
        return f"{how}, {ours}{_cell(runs, key, mode, metric)[0]}"

    fit = {k: np.mean([r["models"][k]["fit_time"] for r in runs])
           for k in ("hybrid", "hgb")}
    peer, alone = "the boosted trees + sticky HMM", "the same model without its chain"
    return [
        f"**{name}** (seeds {[r['seed'] for r in runs]}):", "",
        f"- causal accuracy: {against('causal', 'accuracy', 'hgb_filter', peer)}; "
        f"{against('causal', 'accuracy', 'hybrid_no_transitions', alone, False)};",
        f"- causal boundary F1: "
        f"{against('causal', 'boundary_f1', 'hgb_filter', peer)}; "
        f"{against('causal', 'boundary_f1', 'hybrid_no_transitions', alone, False)};",
        f"- offline boundary F1: "
        f"{against('offline', 'boundary_f1', 'crf', 'the CRF')};",
        f"- fit time {fit['hybrid']:.2f} s against the boosted trees' "
        f"{fit['hgb']:.2f} s (same run).", ""]


def _when_to_use(results):
    """Which model to pick, written from the first tables' means."""
    sets = dict(per_dataset(results))

    def m(key, mode="causal", metric="accuracy"):
        return ", ".join(f"{name} {_m(runs, key, mode, metric):.3f}"
                         for name, runs in sets.items())

    return [
        "**`HybridHMMClassifier()`** to label steps as they arrive and find "
        "where segments begin: its causal boundary F1 is "
        f"{m('hybrid', metric='boundary_f1')}, against "
        f"{m('hgb_filter', metric='boundary_f1')} for the boosted trees + "
        "sticky HMM; after the fact (`predict(X, algorithm=\"viterbi\")`) "
        f"{m('hybrid', 'offline', 'boundary_f1')}.",
        "**`HybridHMMClassifier(transitions='none', n_states_per_label=1)`** "
        "when only the per-step accuracy counts and the segments do not: "
        f"causal accuracy {m('hybrid_no_transitions')} (the default "
        f"{m('hybrid')}), but causal boundary F1 "
        f"{m('hybrid_no_transitions', metric='boundary_f1')}: without the chain "
        "the labels flicker.",
        "**`features='summaries', window=32, likelihood_scale=0.3`** (an "
        "earlier default) when the segments are long and their boundaries "
        "matter most: on PLAID its boundary F1 is above the default's, on "
        "BasicMotions below. Causal boundary F1 "
        f"{m('hybrid_summaries', metric='boundary_f1')}, offline "
        f"{m('hybrid_summaries', 'offline', 'boundary_f1')}; causal accuracy "
        f"{m('hybrid_summaries')}.",
        "**Not `IOHMMClassifier()`** for labelling steps: it classifies whole "
        f"sequences, and reaches a causal accuracy of {m('iohmm')} here.",
    ]


def _limits(results):
    """The limits, plainly: the fixed ones, then the checks the default fails."""
    failed = [f"on {name}, " + line[2:].replace(" — not met.", "")
              .replace(" >= ", ", below ").replace(" <= ", ", slower than ")
              for name, runs in per_dataset(results)
              for line in comparisons(runs) if line.endswith("not met.")]
    extra = ([f"**The default does not win every comparison** (the checks "
              f"under each set's table): {'; '.join(failed)}."] if failed else [])
    return ["## Limits", ""] + _bullets(LIMITS[:2] + extra + LIMITS[2:])


def _dataset_section(name, runs):
    """One data set: its sessions, the table of every model, the prediction
    times and the default against its peers."""
    r0 = runs[0]
    lines = [f"### {name}", "",
             f"Seeds {[r['seed'] for r in runs]}; for seed {r0['seed']}: "
             f"{r0['n_train_sessions']} training sessions "
             f"({r0['n_train_steps']} steps), {r0['n_test_sessions']} test "
             f"sessions ({r0['n_test_steps']} steps, "
             f"{r0['n_test_boundaries']} true boundaries).", ""]
    rows = []
    for key, label in MODELS:
        if not any(key in r["models"] for r in runs):
            continue
        fit = [r["models"][key]["fit_time"] for r in runs if key in r["models"]]
        rows.append([label, _cell(runs, key, "causal", "accuracy")[0],
                     _cell(runs, key, "causal", "boundary_f1")[0],
                     _cell(runs, key, "offline", "accuracy")[0],
                     _cell(runs, key, "offline", "boundary_f1")[0],
                     f"{np.mean(fit):.2f}"])
    lines += [table(["model", "causal accuracy", "causal boundary F1",
                     "offline accuracy", "offline boundary F1", "fit time (s)"],
                    rows), ""]
    lines += _prediction_times(runs)
    lines += ["The default against the others:", ""]
    lines += comparisons(runs)
    return lines


def _saved(path):
    """The results saved at ``path``, or None if that script was not run."""
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def _chosen_sections():
    """How the defaults were chosen: the notes on the rows, then the
    sections read from the other scripts' saved results, when present."""
    lines = ["## How the defaults were chosen", "",
             "The defaults were chosen on sessions built from the training "
             "recordings (halves of them, or three quarters); the one candidate "
             "that passed there was checked on the test sessions before any "
             "change, and rejected (under \"Other per-step classifiers\"). "
             "What the default's options do, and why the other rows of the "
             "first tables are not the default:", ""] + _bullets(ROW_NOTES)
    for path, section in ((WINDOW_JSON, window_section),
                          (TUNING_JSON, multiscale_section),
                          (FOLDS_JSON, folds_section)):
        if (saved := _saved(path)) is not None:
            lines += section(saved)
    return lines


def _tried_sections():
    """What was tried and not adopted, from the other scripts' saved results."""
    lines = ["## What was tried and not adopted", "",
             "Each experiment below fixed its rule for adopting a candidate "
             "before its run; none of the candidates became the default.", ""]
    if (saved := _saved(DECISIONS_JSON)) is not None:
        lines += decisions_section(saved)
    if (saved := _saved(CLASSIFIERS_JSON)) is not None:
        lines += classifiers_section(saved, _saved(CLASSIFIERS_TEST_JSON))
    for path, section in ((ESTIMATORS_JSON, estimators_section),
                          (GLOBAL_JSON, global_chain_section)):
        if (saved := _saved(path)) is not None:
            lines += section(saved)
    return lines


def report(results):
    """Rewrite the page from the saved results (and the other scripts')."""
    lines = _intro() + ["## Results", "", "In short, the default against its "
                        "peers on the test sessions:", ""]
    for name, runs in per_dataset(results):
        lines += _verdict(name, runs)
    for name, runs in per_dataset(results):
        lines += _dataset_section(name, runs)
    lines += ["## When to use which model", ""] + _bullets(_when_to_use(results))
    lines += _limits(results)
    if (saved := _saved(LAG_JSON)) is not None:
        lines += lag_section(saved)
    lines += _chosen_sections() + _tried_sections()
    write("step_labelling.md", "\n".join(lines) + "\n")


def _prediction_times(runs):
    """A line with the causal prediction time of the default and of the
    explicit durations, over all test sessions (when the run kept them)."""
    times = {key: [r["models"][key]["predict_time"] for r in runs
                   if "predict_time" in r["models"].get(key, {})]
             for key in ("hybrid", "hybrid_durations")}
    if not all(times.values()):
        return []
    return [f"Causal prediction time over all test sessions (same run): the "
            f"default {np.mean(times['hybrid']):.2f} s, "
            f"`durations='learned'` {np.mean(times['hybrid_durations']):.2f} s.",
            ""]


def _spread(values):
    values = np.asarray(values, dtype=float)
    q1, med, q3 = np.percentile(values, [25, 50, 75])
    return f"median {med:.1f} (quartiles {q1:.1f}-{q3:.1f}, mean {values.mean():.2f})"


def lag_section(results):
    """The section written from ``bench_step_labelling_lag.py``'s results."""
    lines = ["## Why the chain lags at a change", "",
             "Measured by `python benchmarks/bench_step_labelling_lag.py` on the "
             "test sessions above (same construction and seeds), for every true "
             "change of label from a to b: the steps until the default's per-step "
             "classifier alone (the same classifier, `transitions='none'`) first "
             "gives b, and until the default's causal chain does; the evidence the "
             "chain needs to switch, log(1 / P(switch a to b)) from its "
             "`transmat_`; and the evidence one step gives, the classifier's log "
             "posterior ratio of b over a, each divided by its prior, times "
             "`likelihood_scale`, at the first step the classifier gives b.", ""]
    for name, runs in per_dataset(results):
        rec = [c for r in runs for c in r["changes"]]
        get = {key: np.array([c[key] for c in rec], dtype=float) for key in rec[0]}
        # changes after which both give the new label within its segment
        both = (get["alone"] < get["length"]) & (get["chain"] < get["length"])
        trail = (get["chain"] - get["alone"])[both]
        near = {m: int(get[f"errors_{m}"].sum()) for m in ("alone", "chain")}
        total = {m: sum(r["errors"][m] for r in runs) for m in ("alone", "chain")}
        lines += [
            f"**{name}** (seeds {[r['seed'] for r in runs]}, {len(rec)} changes, "
            f"{sum(r['n_test_steps'] for r in runs)} steps, "
            f"`likelihood_scale={runs[0]['likelihood_scale']}`):", "",
            f"- the new label never given within its segment: by the classifier "
            f"alone after {int(np.sum(get['alone'] == get['length']))} changes, by "
            f"the chain after {int(np.sum(get['chain'] == get['length']))};",
            f"- after the {int(both.sum())} others, steps until the classifier "
            f"alone first gives the new label: {_spread(get['alone'][both])}; "
            f"until the chain does: {_spread(get['chain'][both])}; the chain "
            f"trails by {_spread(trail)} (at most {trail.max():.0f}; ahead after "
            f"{int(np.sum(trail < 0))} changes, level after "
            f"{int(np.sum(trail == 0))});",
            f"- evidence needed to switch: {_spread(get['needed'])} nats; evidence "
            f"of the classifier's first right step: {_spread(get['given'][both])} "
            f"nats;",
            f"- errors in the {AFTER} steps after each change: chain {near['chain']}, "
            f"classifier alone {near['alone']}; elsewhere: chain "
            f"{total['chain'] - near['chain']}, classifier alone "
            f"{total['alone'] - near['alone']}.", ""]
    lines += ["Where the chain makes more errors right after the changes than "
              "its classifier alone and fewer elsewhere, it lags: its switch "
              "waits until the scaled evidence adds up to log(1 / P(switch)). A "
              "larger `likelihood_scale` lowers that threshold in units of the "
              "classifier's evidence, so that the chain follows the classifier "
              "sooner but also switches on its brief errors inside segments. "
              "`onset_weight` acts on the evidence instead: a per-step "
              "classifier trained with the steps just after each change "
              "weighed more gives the new label from the mixed windows "
              "there, with more evidence per step.", ""]
    return lines


def comparisons(runs):
    def mean(key, mode, metric):
        return _cell(runs, key, mode, metric)[1]

    fit = {k: np.mean([r["models"][k]["fit_time"] for r in runs])
           for k in ("hybrid", "hgb")}
    peers = [  # (what, peer, mode, metric): the default against a peer
        ("causal accuracy", "HistGradientBoosting + filter", "hgb_filter",
         "causal", "accuracy"),
        ("causal boundary F1", "HistGradientBoosting + filter", "hgb_filter",
         "causal", "boundary_f1"),
        ("offline boundary F1", "the CRF's", "crf", "offline", "boundary_f1"),
        ("causal accuracy", "the same without transitions",
         "hybrid_no_transitions", "causal", "accuracy"),
        ("causal boundary F1", "the same without transitions",
         "hybrid_no_transitions", "causal", "boundary_f1"),
    ]
    checks = [(f"{what} of the default >= {name}", mean("hybrid", mode, metric),
               mean(key, mode, metric)) for what, name, key, mode, metric in peers]
    checks.append(("fit time of the default <= HistGradientBoosting's (same run)",
                   -fit["hybrid"], -fit["hgb"]))
    out = []
    for text, a, b in checks:
        if a is None or b is None:
            continue
        met = "met" if a >= b else "not met"
        shown = (f"{-a:.2f} s against {-b:.2f} s" if a < 0 or b < 0
                 else f"{a:.3f} against {b:.3f}")
        out.append(f"- {text}: {shown} — {met}.")
    return out + [""]


def figure(results):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [("causal", "accuracy", "causal per-step accuracy"),
              ("causal", "boundary_f1", "causal boundary F1"),
              ("offline", "boundary_f1", "offline boundary F1"),
              (None, "fit_time", "fit time (s)")]
    names = list(dict.fromkeys(r["dataset"] for r in results))
    fig, axes = plt.subplots(1, 4, figsize=(15, 4.4))
    width = 0.8 / len(MODELS)
    for ax, (mode, metric, title) in zip(axes, panels, strict=True):
        for m, (key, label) in enumerate(MODELS):
            means, lo, hi = [], [], []
            for name in names:
                vals = [r["models"][key]["fit_time"] if mode is None
                        else r["models"][key].get(mode, {}).get(metric, np.nan)
                        for r in results if r["dataset"] == name and key in r["models"]]
                vals = np.array(vals if vals else [np.nan], dtype=float)
                means.append(np.mean(vals))
                lo.append(np.mean(vals) - np.min(vals))
                hi.append(np.max(vals) - np.mean(vals))
            x = np.arange(len(names)) + (m - len(MODELS) / 2 + 0.5) * width
            ax.bar(x, means, width, yerr=[lo, hi], label=label)
        ax.set_xticks(np.arange(len(names)), names)
        ax.set_title(title)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8,
               frameon=False)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    fig.savefig(RESULTS / "step_labelling.png", dpi=110)
    print(f"wrote {RESULTS / 'step_labelling.png'}")
