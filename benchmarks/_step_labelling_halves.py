"""The sections of the Step labelling page measured on the training halves
only (sessions built from halves of the official training recordings; the
test recordings are never read): the window chosen with the chain
(``bench_step_labelling_window.py``) and the representation read at two scales
(``bench_step_labelling.py --tuning``)."""

import numpy as np
from _report import table

# ``--tuning`` rows: (key, its model without transitions, label)
HALVES_MODELS = [
    ("hybrid", "hybrid_no_transitions", "HybridHMMClassifier() (default)"),
    ("hybrid_multiscale", "hybrid_multiscale_no_transitions",
     "features='multiscale'"),
    ("hybrid_multiscale_auto", "hybrid_multiscale_auto_no_transitions",
     "features='multiscale', likelihood_scale='auto'"),
    ("hgb_filter", "hgb", "HistGradientBoosting, last 32 steps + sticky HMM"),
]
# the seeds on which the candidates are compared, then those that confirm
CHOICE_SEEDS, CONFIRMATION_SEEDS = (0, 1, 2), (3, 4, 5)


def per_dataset(results):
    """Each data set's name and runs, in the order of the results."""
    return [(name, [r for r in results if r["dataset"] == name])
            for name in dict.fromkeys(r["dataset"] for r in results)]


def _mean_range(values, digits=4):
    return (f"{np.mean(values):.{digits}f} ({min(values):.{digits}f}-"
            f"{max(values):.{digits}f})")


def window_section(results):
    """The section written from ``bench_step_labelling_window.py``'s results
    (training halves only)."""
    lines = ["## The window, chosen with the chain (training halves)", "",
             "Measured by `python benchmarks/bench_step_labelling_window.py` on "
             "sessions built from halves of the official training recordings "
             "only (the `--tuning` construction; the test sessions above were "
             "not used): `HybridHMMClassifier(window=w)` fitted once per window "
             "and predicting at every `likelihood_scale`, and the same model "
             "with one state per label and no transitions at the same window. "
             "`auto` is `window='auto'` with `likelihood_scale='auto'` (the "
             "window, 8 or 32, and the scale, 0.35 to 1.0, with which the "
             "chain labels more held-out training steps; the scale column "
             "gives the scales chosen). The default, `window='auto'` at a "
             "scale of 0.5, chose 8 steps on every BasicMotions split and 32 on "
             "every PLAID one: its figures are those rows' at 0.5. Rows "
             "`8+32 (w)` combine the two windows' classifiers instead of "
             "choosing one: the chain filters the weighted product of their "
             "posteriors, weight w on the 8-step one (fit time: both fits). "
             "Cells: mean (min-max) "
             "over the seeds; chain − alone: the causal accuracy of the chain "
             "minus that of the same model without transitions.", ""]
    for name, runs in per_dataset(results):
        lines += [f"**{name}** (seeds {[r['seed'] for r in runs]}):", ""]
        rows = []
        for window in dict.fromkeys(str(c["window"]) for c in runs[0]["grid"]):
            cells = [c for r in runs for c in r["grid"] if str(c["window"]) == window]
            alone = [c["no_transitions"]["accuracy"] for c in cells]
            chosen = sorted({c.get("window_", c["window"]) for c in cells})
            for scale in cells[0]["scales"]:
                shown = scale if scale != "auto" else "auto ({})".format(", ".join(
                    map(str, sorted({c["likelihood_scale_"] for c in cells}))))
                got = {(mode, metric): [c["scales"][scale][mode][metric]
                                        for c in cells]
                       for mode in ("causal", "offline")
                       for metric in ("accuracy", "boundary_f1")}
                rows.append([
                    window if window.startswith("8+32")
                    else f"{window} ({', '.join(map(str, chosen))})", shown,
                    _mean_range(got["causal", "accuracy"]),
                    _mean_range(got["causal", "boundary_f1"], 3),
                    _mean_range(got["offline", "boundary_f1"], 3),
                    _mean_range(alone),
                    f"{np.mean(got['causal', 'accuracy']) - np.mean(alone):+.4f}",
                    f"{np.mean([c['fit_time'] for c in cells]):.1f}"])
        lines += [table(["window (read)", "scale", "causal accuracy",
                         "causal boundary F1", "offline boundary F1",
                         "no transitions, causal accuracy", "chain − alone",
                         "fit time (s)"], rows), ""]
    return lines



def _halves_row(runs, key, alone, label):
    """A row of the two-scales table: ``key``'s figures over ``runs``."""
    got = {(mode, metric): [r["models"][key][mode][metric] for r in runs]
           for mode in ("causal", "offline") for metric in ("accuracy", "boundary_f1")}
    alone_accuracy = [r["models"][alone]["causal"]["accuracy"] for r in runs]
    scales = sorted({r["models"][key].get("likelihood_scale", "") for r in runs}
                    - {""})
    return [label, _mean_range(got["causal", "accuracy"]), _mean_range(alone_accuracy),
            f"{np.mean(got['causal', 'accuracy']) - np.mean(alone_accuracy):+.4f}",
            _mean_range(got["causal", "boundary_f1"], 3),
            _mean_range(got["offline", "boundary_f1"], 3),
            f"{np.mean([r['models'][key]['fit_time'] for r in runs]):.2f}",
            ", ".join(map(str, scales)), _errors(runs, key, alone)]


def _errors(runs, key, alone):
    """The causal errors of ``key`` and of its model ``alone``, summed over
    ``runs``, in the first steps after a change and elsewhere (when kept)."""
    if any("causal_errors" not in r["models"].get(k, {})
           for r in runs for k in (key, alone)):
        return ""
    total = {k: [sum(r["models"][k]["causal_errors"][where] for r in runs)
                 for where in ("after_change", "elsewhere")] for k in (key, alone)}
    return "{} / {} ({} / {})".format(*total[key], *total[alone])


def multiscale_section(results):
    """The section written from ``bench_step_labelling.py --tuning``'s
    results: the default against the representation read at two scales, on
    the seeds that compare them and on those that confirm the comparison."""
    lines = ["## Two scales in one classifier (training halves)", "",
             "Measured by `python benchmarks/bench_step_labelling.py --tuning "
             "--seeds 6 --no-crf` on sessions built from halves of the official "
             "training recordings only (the construction of the previous "
             "section; the test sessions above were not used), all rows in one "
             "run. `features='multiscale'` fits one per-step classifier, once, "
             "on the raw values of each of the last 8 steps and the summaries "
             "(mean, maximum, minimum, standard deviation) over the last 8 and "
             "32 steps, with no choice on held-out training sessions; the "
             "default chooses between raw lags and summaries, and between 8 "
             "and 32 steps, on held-out halves and refits. With "
             "`likelihood_scale='auto'` the scale (0.35 to 1.0) is chosen on a "
             "held-out half, which costs one more fit of the classifier on "
             "half the sessions (the scale column gives the scales chosen). "
             "Each model is compared with itself without transitions (one "
             "state per label, `transitions='none'`): chain − alone is the "
             "difference of their causal accuracies. Errors: the wrong causal "
             "labels in the first 10 steps after each true change of label and "
             "elsewhere, summed over the seeds, of the model and (in brackets) "
             "of the same without transitions. Cells: mean (min-max) "
             "over the seeds; fit times within one run of a shared machine. "
             "A candidate was to become the default only if, on seeds 0-2 of "
             "both sets, it labelled at least as many steps correctly as the "
             "default, its chain at least as many as itself without "
             "transitions, its causal and offline boundary F1 were no more "
             "than 0.02 below the default's and it fitted no slower, and "
             "seeds 3-5 did not reverse the accuracy comparison.", ""]
    for name, runs in per_dataset(results):
        for seeds in (CHOICE_SEEDS, CONFIRMATION_SEEDS):
            chosen = [r for r in runs if r["seed"] in seeds]
            if not chosen or any("hybrid_multiscale" not in r["models"]
                                 for r in chosen):
                continue
            rows = [_halves_row(chosen, key, alone, label)
                    for key, alone, label in HALVES_MODELS]
            lines += [f"**{name}**, seeds {[r['seed'] for r in chosen]}:", "",
                      table(["model", "causal accuracy",
                             "without transitions", "chain − alone",
                             "causal boundary F1", "offline boundary F1",
                             "fit time (s)", "scale",
                             "errors after a change / elsewhere (alone)"],
                            rows), ""]
    return lines


def decisions_section(results):
    """The paragraph and table written from
    ``bench_step_labelling_decisions.py``'s results (training halves only)."""
    lines = ["**Switching sooner, at the decision** (training halves). Measured by "
             "`python benchmarks/bench_step_labelling_decisions.py` on sessions "
             "built from halves of the official training recordings only (the "
             "test sessions above were not used), on the fitted default: "
             "*switch x m* multiplies every transition between two labels by m "
             "(rows renormalised), which lowers the evidence a switch needs by "
             "about log(m); *current x β* takes the label that maximises the "
             "filtered log posterior plus β times the classifier's current log "
             "likelihood ratio, the current step's evidence counted again at the "
             "decision only. A candidate would have been proposed if its causal "
             "accuracy were at least the default's + 0.003 on BasicMotions and "
             "the default's - 0.002 on PLAID, with a causal boundary F1 at least "
             "the default's - 0.01 on both (a rule fixed before the runs). Cells: "
             "mean causal accuracy / causal boundary F1 over the seeds.", ""]
    sets = per_dataset(results)
    header = ["decision", "scale"] + [
        f"{name} (seeds {[r['seed'] for r in runs]})" for name, runs in sets]
    keys = dict.fromkeys((c["kind"], c["value"], c["scale"])
                         for _, runs in sets for r in runs for c in r["cells"])
    rows, means = [], {}
    for kind, value, scale in keys:
        label = ("default" if (kind, value, scale) == ("switch", 1, 0.5) else
                 f"switch x {value}" if kind == "switch" else f"current x {value}")
        if kind == "switch" and value == 1 and scale != 0.5:
            label = "(scale only)"
        row = [label, str(scale)]
        for name, runs in sets:
            cells = [c for r in runs for c in r["cells"]
                     if (c["kind"], c["value"], c["scale"]) == (kind, value, scale)]
            means[label, scale, name] = (np.mean([c["accuracy"] for c in cells]),
                                         np.mean([c["boundary_f1"] for c in cells]))
            row.append("{:.4f} / {:.3f}".format(*means[label, scale, name]))
        rows.append(row)
    return lines + [table(header, rows), "", _decisions_verdict(means), ""]


def _decisions_verdict(means):
    """The rule of ``bench_step_labelling_decisions.py`` applied to the
    candidates' mean (accuracy, boundary F1) per (label, scale, data set)."""
    margin = {"BasicMotions": 0.003, "PLAID": -0.002}
    passing = []
    for label, scale in dict.fromkeys(k[:2] for k in means):
        if label == "default":
            continue
        if all(means[label, scale, name][0] >= means["default", 0.5, name][0] + m
               and means[label, scale, name][1] >= means["default", 0.5, name][1] - 0.01
               for name, m in margin.items()):
            passing.append(f"{label} at {scale}")
    if passing:
        return "The rule proposes: " + ", ".join(passing) + "."
    default = means["default", 0.5, "BasicMotions"]
    label, scale = max((k[:2] for k in means if k[0] != "default"),
                       key=lambda k: means[k + ("BasicMotions",)][0])
    best = means[label, scale, "BasicMotions"]
    return (f"The rule proposes none. On BasicMotions the most accurate, {label} "
            f"at the scale {scale}, differs from the default by "
            f"{best[0] - default[0]:+.4f} in causal accuracy and by "
            f"{best[1] - default[1]:+.3f} in causal boundary F1.")


CLASSIFIER_ROWS = [
    ("default", "HybridHMMClassifier() (default)"),
    ("default alone", "HybridHMMClassifier() without transitions"),
    ("kernels 8", "kernels 8 + summaries"),
    ("kernels 8 alone", "kernels 8 + summaries, without transitions"),
    ("kernels 16", "kernels 16 + summaries"),
    ("kernels 16 alone", "kernels 16 + summaries, without transitions"),
    ("both views", "both views (the default's window, lags and summaries)"),
    ("all 32 lags, scale 0.5", "all 32 lags, scale 0.5"),
    ("all 32 lags, scale 1.0", "all 32 lags, scale 1.0"),
    ("all 32 lags, scale 0.5 alone", "all 32 lags, without transitions"),
    ("hgb_filter", "HistGradientBoosting, last 32 steps + sticky HMM")]
CLASSIFIER_CANDIDATES = ["kernels 8", "kernels 16", "both views",
                         "all 32 lags, scale 0.5", "all 32 lags, scale 1.0"]


def classifiers_section(results):
    """The paragraph and table written from
    ``bench_step_labelling_classifiers.py``'s results (training halves only)."""
    lines = ["**Other per-step classifiers** (training halves). Measured by "
             "`python benchmarks/bench_step_labelling_classifiers.py` on sessions "
             "built from halves of the official training recordings only, each "
             "with the default's gradient-boosted trees and chain: *kernels 8* "
             "and *kernels 16*, MiniRocket's causal dilated kernels' indicators "
             "pooled over a trailing window (dilations 1 and 2 over 8 steps; 1, "
             "2 and 4 over 16 steps) beside the summaries of the last 8 steps; "
             "*both views*, the default and a second classifier on the other "
             "view (raw lags or summaries) at the same window, the chain "
             "filtering the mean of their posteriors; *all 32 lags*, the raw "
             "values of each of the last 32 steps (what the gradient-boosting "
             "peer reads), at the default's scale and at 1.0. A candidate would "
             "have been proposed if its causal accuracy were at least the "
             "default's + 0.003 on BasicMotions and the default's - 0.002 on "
             "PLAID, its causal boundary F1 at least the default's - 0.01 on "
             "both, and it fitted no slower than gradient boosting on the last 32 "
             "steps (a rule fixed before the runs; PLAID was to run only if a "
             "candidate met BasicMotions' part). Cells: mean (min-max) over the "
             "seeds; fit times include building the features.", ""]
    for name, runs in per_dataset(results):
        rows = []
        for key, label in CLASSIFIER_ROWS:
            cells = [r["rows"][key] for r in runs]
            n_features = cells[0].get("n_features")
            rows.append([label + (f" ({n_features} features)" if n_features else ""),
                         _mean_range([c["accuracy"] for c in cells]),
                         _mean_range([c["boundary_f1"] for c in cells], 3),
                         f"{np.mean([c['fit_time'] for c in cells]):.2f}"])
        lines += [f"**{name}** (seeds {[r['seed'] for r in runs]}):", "",
                  table(["model", "causal accuracy", "causal boundary F1",
                         "fit time (s)"], rows), ""]
    lines += [_classifiers_verdict(results), ""]
    return lines


def _classifiers_verdict(results):
    """The rule's outcome on BasicMotions, in sentences with the figures."""
    runs = [r["rows"] for r in results if r["dataset"] == "BasicMotions"]

    def mean(key, what):
        return float(np.mean([r[key][what] for r in runs]))

    def differences(key):
        gain = mean(key, "accuracy") - mean("default", "accuracy")
        f1 = mean(key, "boundary_f1") - mean("default", "boundary_f1")
        return (f"{key}: {gain:+.4f} in causal accuracy, {f1:+.3f} in causal "
                f"boundary F1, fit {mean(key, 'fit_time'):.2f} s against the "
                f"peer's {mean('hgb_filter', 'fit_time'):.2f} s")

    figures = "; ".join(differences(key) for key in CLASSIFIER_CANDIDATES)
    if len(per_dataset(results)) == 1:
        return ("No candidate meets BasicMotions' part of the rule, so PLAID was "
                f"not run. Against the default on BasicMotions: {figures}.")
    return f"Against the default on BasicMotions: {figures}."
