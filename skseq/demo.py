"""A short tour: classify real series, then learn a grammar from strings.

Run ``python -m skseq.demo``. Part 1 fits the default ``IOHMMClassifier()`` on
ItalyPowerDemand (shipped with skseq: a day's 24 hourly loads, winter or summer
day) and prints its test accuracy next to simple baselines. Part 2 lets
GridSearchCV choose the number of hidden states on Tomita's grammar #4 (binary
strings without "000"), learned from 200 random strings, and prints the machine
the model learned.
"""

import time
import warnings

import numpy as np
from scipy.special import softmax
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skseq import IOHMMClassifier
from skseq.datasets import load_italy_power_demand, make_tomita, make_tomita_exhaustive

GRAMMAR = 4


def _say(text):
    print(text, flush=True)


def _summaries(X):
    """Per-sequence summary statistics: mean, std, min, max, first and last."""
    return np.array([np.concatenate([x.mean(0), x.std(0), x.min(0), x.max(0),
                                     x[0], x[-1]]) for x in X])


def real_series():
    X, y = load_italy_power_demand("train")
    X_test, y_test = load_italy_power_demand("test")
    _say(f"1. Real series: ItalyPowerDemand, {len(X)} training and {len(X_test)} "
         "test days of 24 hourly loads; is it a winter or a summer day?")
    rows = []
    start = time.perf_counter()
    clf = IOHMMClassifier(random_state=0).fit(X, y)
    rows.append(("IOHMMClassifier(), the default", clf.score(X_test, y_test),
                 time.perf_counter() - start))
    _say(f"   fitted the default estimator on the raw series in {rows[-1][2]:.1f} s "
         f"(features_={clf.features_!r})")
    start = time.perf_counter()
    raw = IOHMMClassifier(features="raw", n_init=5, random_state=0).fit(X, y)
    rows.append(("IOHMMClassifier(features='raw'), the paper's",
                 raw.score(X_test, y_test), time.perf_counter() - start))
    start = time.perf_counter()
    summary = make_pipeline(StandardScaler(), LogisticRegression())
    summary.fit(_summaries(X), y)
    rows.append(("logistic regression on summaries",
                 summary.score(_summaries(X_test), y_test),
                 time.perf_counter() - start))
    _say("   test accuracy:")
    for name, score, seconds in rows:
        _say(f"     {name:45s} {score:.3f}   (fit {seconds:.1f} s)")
    _say("   (MiniRocket, the archive's strongest fast method, scores about 0.965: "
         "see the docs' real-data results.)")


def grammar():
    X, y = make_tomita(GRAMMAR, 200, random_state=0)
    _say(f"\n2. A grammar: Tomita #{GRAMMAR} (no '000' substring), {len(X)} random "
         f"strings of length 1-12, {int(y.sum())} accepted. Choosing the number "
         "of states by 3-fold cross-validation:")
    search = GridSearchCV(
        IOHMMClassifier(emission="state", random_state=0),
        {"n_states": [2, 3, 4, 5]},
        cv=3,
        n_jobs=-1,
        verbose=1,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        search.fit(X, y)
    for n, score, std in zip(search.cv_results_["param_n_states"],
                             search.cv_results_["mean_test_score"],
                             search.cv_results_["std_test_score"], strict=True):
        chosen = "  <- chosen" if n == search.best_params_["n_states"] else ""
        _say(f"   n_states={n}: {score:.3f} (+/- {std:.3f}){chosen}")

    X_all, y_all = make_tomita_exhaustive(GRAMMAR, 12)
    X_long, y_long = make_tomita(GRAMMAR, 200, min_length=50, max_length=100,
                                 random_state=1)
    _say(f"   accuracy on all {len(X_all)} strings of length 1-12: "
         f"{search.score(X_all, y_all):.4f}")
    _say(f"   accuracy on 200 random strings of length 50-100: "
         f"{search.score(X_long, y_long):.4f}")

    clf = search.best_estimator_
    trans = clf.transition_proba(np.eye(2)[:, None, :])[:, 0]  # (symbol, from, to)
    accept = softmax(clf.emission_intercept_, axis=1)[:, 1]
    _say(f"   the learned machine (start state {np.argmax(clf.startprob_)}): most "
         "likely next state for each state and symbol, and each state's output")
    _say("     state | on '0'        | on '1'        | P(accept)")
    for j in range(clf.n_states):
        cells = [f"-> {np.argmax(trans[k, j])} (p={trans[k, j].max():.2f})"
                 for k in range(2)]
        _say(f"     {j:5d} | {cells[0]:13s} | {cells[1]:13s} | {accept[j]:.2f}")
    try:
        dfa = clf.to_automaton().minimize()
        _say(f"   as a minimized automaton: {dfa.n_states} states (the minimal "
             "machine of grammar #4 has 4).")
    except ValueError as exc:
        _say(f"   not read as an automaton: {exc}")


def main():
    start = time.perf_counter()
    real_series()
    grammar()
    _say(f"\nDone in {time.perf_counter() - start:.1f} s.")


if __name__ == "__main__":
    main()
