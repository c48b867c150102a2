"""
Learning a regular grammar with GridSearchCV
============================================

Tomita's grammar #4 accepts the binary strings that do not contain ``000``. Its
minimal automaton has four states: "no trailing 0", "one trailing 0", "two
trailing 0s" (all accepting) and a rejecting dead state entered on the third 0.

We learn it from 200 random strings of length 1 to 12. The number of hidden
states is chosen by 3-fold cross-validation, and the learned model is read
back as an automaton (:meth:`~skseq.IOHMMClassifier.to_automaton`) and drawn
with :func:`skseq.plotting.plot_automaton`.

``emission="state"`` makes the class depend on the state alone (a Moore
machine), which is what an automaton is.
"""

# %%
# Choose the number of states
# ---------------------------
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV

from skseq import IOHMMClassifier
from skseq.datasets import make_tomita, make_tomita_exhaustive
from skseq.plotting import plot_automaton

X, y = make_tomita(4, n_samples=200, random_state=0)
print(f"{len(X)} strings, {y.mean():.0%} accepted")

# n_init=10 restarts per fit keep this example fast; the default, "auto", would
# use 50 on data this small.
search = GridSearchCV(
    IOHMMClassifier(emission="state", n_init=10, random_state=0),
    {"n_states": [2, 3, 4, 5]},
    cv=3,
    n_jobs=-1,
)
with warnings.catch_warnings():
    # A few restarts stop at max_iter; the best one is kept regardless.
    warnings.simplefilter("ignore", ConvergenceWarning)
    search.fit(X, y)
print("chosen:", search.best_params_)

# %%
# The chosen model generalizes far beyond its training strings: to every
# string of length 1 to 12 and to strings eight times longer than any it saw.
X_all, y_all = make_tomita_exhaustive(4, max_length=12)
X_long, y_long = make_tomita(4, 200, min_length=50, max_length=100, random_state=1)
print(f"all {len(X_all)} strings of length 1-12: {search.score(X_all, y_all):.3f}")
print(f"200 strings of length 50-100: {search.score(X_long, y_long):.3f}")

# %%
# Read the automaton off the model
# --------------------------------
# The transition probabilities of the fitted model are all close to 0 or 1, so
# following the most likely successor of each state on each symbol gives a
# finite automaton. ``minimize()`` merges equivalent states (a model with more
# states than needed keeps duplicates). With the grammar's four states, the
# result is its minimal machine.
dfa = search.best_estimator_.to_automaton().minimize()
print(dfa)

fig, (ax_cv, ax_dfa) = plt.subplots(1, 2, figsize=(10, 4.2),
                                    gridspec_kw={"width_ratios": [1, 1.3]})
n_states = np.asarray(search.cv_results_["param_n_states"], dtype=int)
ax_cv.errorbar(n_states, search.cv_results_["mean_test_score"],
               yerr=search.cv_results_["std_test_score"], marker="o", capsize=3)
ax_cv.set_xticks(n_states)
ax_cv.set_xlabel("n_states")
ax_cv.set_ylabel("cross-validated accuracy")
ax_cv.set_title("Choosing n_states")
plot_automaton(dfa, ax=ax_dfa)
ax_dfa.set_title("Learned automaton (double circle: accept)")
fig.tight_layout()
plt.show()
