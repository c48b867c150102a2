"""
Discretized versus analog recurrent nets on long strings
========================================================

Zeng, Goodman & Smyth (1993) train second-order recurrent nets on
short strings and test them on much longer ones. The ordinary ("analog") net's
hidden activations form clusters, one per state of the machine it learned, but
the clusters drift a little at each step; on long enough strings they merge and
the net makes mistakes. Their fix is to discretize every hidden unit to 0.8 or
0.2 in training *and* in use (training goes through with a pseudo-gradient):
the states are then isolated points, and a net that is right on its training
strings is a finite-state machine, right at every length that machine is.

Here, both nets learn Tomita's grammar #5 (an even number of 0s and an even
number of 1s) from 200 strings of length 1 to 15, for five seeds, and are
tested on strings of 10 to 2,000 symbols. The analog net trains until every
indicator error is below 0.2 (the paper's criterion, ``tol=0.2``).
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from skseq import DiscretizedRNNClassifier
from skseq.datasets import make_tomita
from skseq.plotting import plot_automaton

X, y = make_tomita(5, n_samples=200, max_length=15, random_state=0)
# Even lengths: for odd ones no string of grammar #5 is accepted.
lengths = [10, 50, 100, 200, 500, 1000, 2000]
tests = [make_tomita(5, 300, min_length=L, max_length=L, random_state=L)
         for L in lengths]

settings = {"analog": {"discretize": False, "tol": 0.2},
            "discretized": {"discretize": True}}
accuracy = {name: [] for name in settings}
nets = {}
for name, params in settings.items():
    for seed in range(5):
        net = DiscretizedRNNClassifier(random_state=seed, **params).fit(X, y)
        accuracy[name].append([net.score(X_t, y_t) for X_t, y_t in tests])
        nets.setdefault(name, net)  # keep seed 0 for the automaton below
    print(f"{name:12s} mean accuracy by length:",
          np.round(np.mean(accuracy[name], axis=0), 3).tolist())

# %%
# Accuracy against length, and the discretized net's machine
# ----------------------------------------------------------
# :meth:`~skseq.DiscretizedRNNClassifier.extract_automaton` reads the machine off
# the discrete states; minimized, it is the grammar's four-state machine (which
# counts 0s and 1s modulo 2).
fig, (ax_acc, ax_dfa) = plt.subplots(1, 2, figsize=(10.5, 4.2),
                                     gridspec_kw={"width_ratios": [1.3, 1]})
for (name, runs), color in zip(accuracy.items(), ["C1", "C0"], strict=True):
    runs = np.asarray(runs)
    ax_acc.plot(lengths, runs.T, color=color, alpha=0.3, lw=1)
    ax_acc.plot(lengths, runs.mean(axis=0), color=color, lw=2.5, marker="o",
                label=f"{name} (mean of 5 seeds)")
ax_acc.axvline(15, color="0.6", ls=":", label="longest training string")
ax_acc.set_xscale("log")
ax_acc.set_xlabel("string length")
ax_acc.set_ylabel("test accuracy (thin lines: single seeds)")
ax_acc.set_ylim(0.8, 1.01)
ax_acc.legend(loc="lower left")
ax_acc.set_title("Tomita #5")

dfa = nets["discretized"].extract_automaton()
print(f"extracted machine: {dfa.n_states} states, minimized: "
      f"{dfa.minimize().n_states}")
plot_automaton(dfa.minimize(), ax=ax_dfa)
ax_dfa.set_title("Discretized net, minimized machine")
fig.tight_layout()
plt.show()

# %%
# ``benchmarks/bench_rnn_stability.py`` repeats this on grammars #4 and #5 with
# ten seeds, on test strings drawn uniformly within each class; its table is in
# :doc:`/results`.
