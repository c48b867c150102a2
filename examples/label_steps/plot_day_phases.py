"""
States that follow the phases of a day
======================================

A day of Italy's power demand (ItalyPowerDemand, 24 hourly values) goes
through visible phases: a low, flat night, a rise in the morning, a plateau
through the day and an evening peak. With several states per label and
``phase_targets=True``, :class:`~skseq.HybridHMMClassifier` cuts every
labelled segment (here a whole day, labelled with its season) into parts of
equal length and trains its per-step classifier to tell the parts apart; the
states of a label then each have likelihoods of their own, and the decoded
state path says which part of the day the model believes it is in.
"""

import matplotlib.pyplot as plt
import numpy as np

from skseq import HybridHMMClassifier
from skseq.datasets import load_italy_power_demand
from skseq.plotting import plot_state_proba

X, y = load_italy_power_demand("train")
X_test, y_test = load_italy_power_demand("test")
steps_y = [np.repeat(c, len(x)) for x, c in zip(X, y, strict=True)]

model = HybridHMMClassifier(window=8, n_states_per_label=4, phase_targets=True,
                            random_state=0).fit(X, steps_y)
paths = model.decode(X_test)

# Where does the decoded part change? On the days that visit the four parts
# in order (972 of 1,029), at the hours of the training cut (6, 12 and 18:
# four parts of 6 hours): the 10th and 90th percentiles agree, but for the
# evening's part, which begins an hour early on some days. The decoded parts
# keep to the rhythm of the training cut.
in_order = [p for p in paths  # parts 1, 2, 3, 4, none skipped or revisited
            if len(np.unique(p % 4)) == 4 and np.all(np.diff(p % 4) >= 0)]
changes = np.array([np.flatnonzero(np.diff(p % 4)) + 1 for p in in_order])
print(f"{len(changes)} of {len(paths)} test days visit the 4 parts in order")
print("hour at which each part begins (10th, 50th, 90th percentile over days):")
for j in range(3):
    q = np.percentile(changes[:, j], [10, 50, 90])
    print(f"  part {j + 2}: {q[0]:.0f}, {q[1]:.0f}, {q[2]:.0f}")

# %%
# Three test days, each step coloured by its decoded part; below, the filtered
# state distribution of the first day (causal: from the hours so far).
names = ["night", "rise", "day", "evening"]
colors = plt.get_cmap("viridis")(np.linspace(0, 1, 4))
fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 5.5))
for d, offset in zip((0, 1, 2), (0.0, 4.0, 8.0), strict=True):
    part = paths[d] % 4
    top.plot(np.arange(24), X_test[d][:, 0] + offset, color="0.7", zorder=1)
    top.scatter(np.arange(24), X_test[d][:, 0] + offset, c=colors[part], zorder=2)
top.set_xlabel("hour")
top.set_ylabel("demand (z-score, days shifted)")
top.legend(handles=[plt.Line2D([], [], marker="o", linestyle="", color=c)
                    for c in colors], labels=names, loc="upper left",
           bbox_to_anchor=(1.0, 1.0), frameon=False)
labels = [f"{name} ({c})" for c in model.classes_ for name in names]
plot_state_proba(model.predict_state_proba(X_test[:1])[0], ax=bottom,
                 state_labels=labels, cmap="tab20")
fig.tight_layout()
plt.show()
