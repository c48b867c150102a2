"""
Reading the states: posteriors, transitions and the Viterbi path
================================================================

An IOHMM's hidden state is its memory, and it can be read at every step.

* :meth:`~skseq.IOHMMClassifier.predict_state_proba` gives the *filtered*
  distribution P(x_t | u_1..u_t): what the model believes after reading the
  first t inputs, computed causally (Bengio & Frasconi 1996, eqs. 4 and 6).
* :meth:`~skseq.IOHMMClassifier.transition_proba` gives the transition matrix
  the input chose at each step (eq. 2).
* :meth:`~skseq.IOHMMClassifier.decode` gives the single most likely state path
  (Viterbi), optionally given the label as well.

We fit a model of Tomita's grammar #4 (no ``000``) and follow one string.
"""

# %%
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.exceptions import ConvergenceWarning

from skseq import IOHMMClassifier
from skseq.datasets import make_tomita, one_hot
from skseq.plotting import plot_automaton, plot_state_proba

X, y = make_tomita(4, n_samples=200, random_state=0)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)
    clf = IOHMMClassifier(n_states=4, emission="state", random_state=0).fit(X, y)

string = "1100101001101000110"
x = one_hot([string])  # a list with one (19, 2) sequence
proba = clf.predict_state_proba(x)[0]  # (19, 4): one row per step
path = clf.decode(x)[0]
print("string:       ", " ".join(string))
print("Viterbi path: ", " ".join(map(str, path)))
print("accepted?     ", clf.predict(x)[0])

# %%
# The state distribution at each step
# -----------------------------------
# The model is sure of its state at every step: it has learned a deterministic
# machine. Each state is a count of trailing 0s, and one state is the dead
# state entered on the third 0 in a row, which nothing leaves. The Viterbi path
# (white dots) follows the most probable state.
fig, (ax_area, ax_heat) = plt.subplots(2, 1, figsize=(9, 5.5), sharex=True)
plot_state_proba(proba, ax=ax_area)
ax_area.set_title(f"Filtered state distribution on '{string}'")
ax_area.set_xlabel("")
plot_state_proba(proba, ax=ax_heat, kind="heatmap", cmap="Blues")
ax_heat.plot(np.arange(1, len(string) + 1), path, "o", color="white", ms=5,
             mec="black")
ax_heat.set_title("The same as a heatmap; white dots: the Viterbi path")
ax_heat.set_xticks(np.arange(1, len(string) + 1), labels=list(string))
ax_heat.set_xlabel("input symbol at each step")
fig.tight_layout()
plt.show()

# %%
# The transitions the inputs choose
# ---------------------------------
# With one-hot symbols there are only two transition matrices, one per symbol;
# ``transition_proba`` of the two one-step "strings" ``0`` and ``1`` gives them,
# indexed ``[from, to]``. Drawing each as a diagram shows the machine: on ``1``
# every live state returns to "no trailing 0"; on ``0`` the states advance
# toward the dead state, the only one that rejects (single circle).
trans = clf.transition_proba(np.eye(2)[:, None, :])[:, 0]  # (symbol, from, to)
# With emission="state", a state accepts when its class logits favour class 1.
accepting = np.argmax(clf.emission_intercept_, axis=1) == 1
fig, axes = plt.subplots(1, 2, figsize=(9, 4))
for symbol, ax in enumerate(axes):
    plot_automaton(trans[symbol], ax=ax, min_proba=0.5, accepting=accepting,
                   start=int(np.argmax(clf.startprob_)))
    ax.set_title(f"P(next state | state, input '{symbol}')")
fig.tight_layout()
plt.show()

# %%
# Given the label too
# -------------------
# ``decode(X, y)`` maximises P(states, y | u): the path that also explains the
# label. For this near-deterministic model it is the same path; on noisy data
# the two can differ, and the labelled path is the better explanation of a
# training sequence.
print("decode(X, y):", clf.decode(x, clf.predict(x))[0])
