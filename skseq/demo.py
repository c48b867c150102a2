"""A one-minute tour: learn a regular grammar from random strings.

Run ``python -m skseq.demo``. GridSearchCV chooses the number of hidden states of an
IOHMMClassifier on Tomita's grammar #4 (binary strings without "000"), learned from
200 random strings of length 1-12; the demo prints the cross-validation scores, the
accuracy on every string of length 1-12 and on much longer strings, and the machine
the model learned.
"""

import time
import warnings

import numpy as np
from scipy.special import softmax
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV

from skseq import IOHMMClassifier
from skseq.datasets import make_tomita, make_tomita_exhaustive

GRAMMAR = 4


def main():
    start = time.perf_counter()
    X, y = make_tomita(GRAMMAR, 200, random_state=0)
    print(f"Tomita grammar #{GRAMMAR} (no '000' substring): {len(X)} random strings "
          f"of length 1-12, {int(y.sum())} accepted.")
    search = GridSearchCV(
        IOHMMClassifier(emission="state", random_state=0),
        {"n_states": [2, 3, 4, 5]},
        cv=3,
        n_jobs=-1,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        search.fit(X, y)

    print("\nCross-validation (3 folds), mean accuracy per number of states:")
    for n, score, std in zip(search.cv_results_["param_n_states"],
                             search.cv_results_["mean_test_score"],
                             search.cv_results_["std_test_score"], strict=True):
        chosen = "  <- chosen" if n == search.best_params_["n_states"] else ""
        print(f"  n_states={n}: {score:.3f} (+/- {std:.3f}){chosen}")

    X_all, y_all = make_tomita_exhaustive(GRAMMAR, 12)
    X_long, y_long = make_tomita(GRAMMAR, 200, min_length=50, max_length=100,
                                 random_state=1)
    print(f"\nAccuracy on all {len(X_all)} strings of length 1-12: "
          f"{search.score(X_all, y_all):.4f}")
    print(f"Accuracy on 200 random strings of length 50-100: "
          f"{search.score(X_long, y_long):.4f}")

    clf = search.best_estimator_
    trans = clf.transition_proba(np.eye(2)[:, None, :])[:, 0]  # (symbol, from, to)
    accept = softmax(clf.emission_intercept_, axis=1)[:, 1]
    print(f"\nThe learned machine (start state {np.argmax(clf.startprob_)}): most "
          "likely next state for each state and symbol, and each state's output")
    print("  state | on '0'        | on '1'        | P(accept)")
    for j in range(clf.n_states):
        cells = [f"-> {np.argmax(trans[k, j])} (p={trans[k, j].max():.2f})"
                 for k in range(2)]
        print(f"  {j:5d} | {cells[0]:13s} | {cells[1]:13s} | {accept[j]:.2f}")
    try:
        dfa = clf.to_automaton().minimize()
        print(f"\nAs a minimized automaton: {dfa.n_states} states (the minimal "
              "machine of grammar #4 has 4).")
    except ValueError as exc:
        print(f"\nNot read as an automaton: {exc}")
    print(f"\nDone in {time.perf_counter() - start:.1f} s.")


if __name__ == "__main__":
    main()
