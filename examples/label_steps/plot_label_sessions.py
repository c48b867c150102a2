"""
Label every step of real sessions, and find their segments
==========================================================

ItalyPowerDemand's days (24 hourly values of Italy's power demand, 1997) are
either winter days (October to March, class ``"1"``) or summer days (class
``"2"``). Put a few days end to end and you have a *session* whose every step
carries its day's class: a step-labelling task, in which the label changes
where a day of one season follows a day of the other.

:class:`~skseq.HybridHMMClassifier` reads the recent past of every step with
a per-step classifier, and lets a sticky chain of label states weigh its
evidence over time (a hybrid HMM, Bourlard & Morgan 1994). ``predict`` is
causal (the label of step t uses the steps up to t only);
``algorithm="viterbi"`` relabels the whole session after the fact.
:func:`skseq.utils.segments` turns a labelling into segments, and
:func:`skseq.plotting.plot_step_labels` draws them against the truth.
"""

import matplotlib.pyplot as plt
import numpy as np

from skseq import HybridHMMClassifier
from skseq.datasets import load_italy_power_demand
from skseq.plotting import plot_step_labels
from skseq.utils import boundary_f1_score, segments


def sessions(X, y, rng, n_sessions):
    """Sessions of 2-5 random days, every step labelled with its day's class."""
    out_X, out_y = [], []
    for _ in range(n_sessions):
        days = rng.choice(len(X), size=rng.integers(2, 6), replace=False)
        out_X.append(np.vstack([X[d] for d in days]))
        out_y.append(np.concatenate([np.repeat(y[d], len(X[d])) for d in days]))
    return out_X, out_y


# Training sessions from the official training days, test sessions from the
# test days: no day is on both sides.
rng = np.random.default_rng(0)
X_train, y_train = sessions(*load_italy_power_demand("train"), rng, 40)
X_test, y_test = sessions(*load_italy_power_demand("test"), rng, 40)

model = HybridHMMClassifier(window=12, random_state=0).fit(X_train, y_train)
causal = model.predict(X_test)
offline = model.predict(X_test, algorithm="viterbi")

truth = np.concatenate(y_test)
for name, pred in [("causal", causal), ("offline", offline)]:
    accuracy = np.mean(np.concatenate(pred) == truth)
    f1 = boundary_f1_score(y_test, pred, tolerance=6)
    print(f"{name:8s} per-step accuracy {accuracy:.3f}, boundary F1 "
          f"(within 6 steps) {f1:.3f}")

# %%
# Segments of one session: where each begins, ends, and its label.
i = int(np.argmax([len(segments(t)[0]) for t in y_test]))  # many true segments
for start, stop, label in zip(*segments(offline[i]), strict=True):
    print(f"steps {start:3d}-{stop - 1:3d}: class {label}")

# %%
# The session, its true labels, and the two labellings. The causal labels
# switch 4-16 steps after each change of season, once the evidence has built
# up. The offline ones place the last two changes within a step, with
# hindsight, but pass over the second day (steps 24-47) altogether: its
# evidence did not pay for the chain's two extra switches. Hence the offline
# boundary F1 above, well below 1 although its accuracy is the higher.
fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 4), sharex=True,
                                  height_ratios=(2, 1.4))
top.plot(np.arange(len(X_test[i])) + 0.5, X_test[i][:, 0], color="0.2")
top.set_ylabel("demand (z-score per day)")
plot_step_labels({"truth": y_test[i], "causal": causal[i], "offline": offline[i]},
                 ax=bottom, classes=model.classes_)
fig.tight_layout()
plt.show()
