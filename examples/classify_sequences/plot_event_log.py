"""
Classifying sessions from a tabular event log
=============================================

Event data usually arrives as a long table: one row per event, a session id, a
timestamp, and what happened. :func:`skseq.utils.from_long_frame` turns such a
frame into sequences, one per session and ordered by time, keeping the events'
names; a :class:`~skseq.preprocessing.Stepwise` one-hot encoder then encodes
each event inside a pipeline, so cross-validation refits the encoder on every
training fold.

The label here depends on the *order* of events: a session ends in a purchase
when a ``pay`` event comes after an ``add to cart``. A model of event counts
cannot see order; an IOHMM can.
"""

# %%
# A long event table
# ------------------
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from skseq import IOHMMClassifier
from skseq.plotting import plot_automaton
from skseq.preprocessing import Stepwise
from skseq.utils import from_long_frame

ACTIONS = ["view", "search", "cart", "pay"]
rng = np.random.default_rng(0)
rows = []
for session in range(300):
    actions = rng.choice(ACTIONS, size=rng.integers(3, 16), p=[0.45, 0.3, 0.15, 0.1])
    carts = np.flatnonzero(actions == "cart")
    bought = carts.size > 0 and "pay" in actions[carts[0]:]
    start = pd.Timestamp("2024-03-01") + pd.Timedelta(minutes=int(rng.integers(10_000)))
    seconds = np.cumsum(rng.exponential(30.0, size=actions.size))
    for action, when in zip(actions, start + pd.to_timedelta(seconds, unit="s"),
                            strict=True):
        rows.append({"session": f"s{session:03d}", "time": when, "action": action,
                     "bought": int(bought)})
# Logs are rarely sorted: shuffle the rows.
events = pd.DataFrame(rows).sample(frac=1.0, random_state=0)
events.head()

# %%
# From the frame to sequences
# ---------------------------
# ``from_long_frame`` keeps the action names: each session is an array of
# strings, one per event, which the one-hot encoder of the pipeline reads. The
# label is constant within each session, so ``y`` comes out with one label per
# sequence.
X, y = from_long_frame(events, "session", time="time", target="bought",
                       features=["action"])
print(f"{len(X)} sessions of {min(map(len, X))}-{max(map(len, X))} events, "
      f"{y.mean():.0%} bought; the first begins {', '.join(X[0][:3, 0])}")

# %%
# Cross-validation
# ----------------
# The baseline sees the same events, counted per session, without their order.
# The encoder's categories are given in the order of ``ACTIONS``, the alphabet
# the automaton is read with below (by default they would be sorted).
cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
iohmm = make_pipeline(
    Stepwise(OneHotEncoder(categories=[ACTIONS], sparse_output=False)),
    IOHMMClassifier(n_states=3, emission="state", n_init=10, random_state=0),
)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)
    iohmm_scores = cross_val_score(iohmm, X, y, cv=cv, n_jobs=-1)
counts = np.array([[np.sum(x[:, 0] == action) for action in ACTIONS] for x in X])
count_scores = cross_val_score(LogisticRegression(), counts, y, cv=cv)
print(f"IOHMM pipeline:         {iohmm_scores.mean():.3f} +/- {iohmm_scores.std():.3f}")
print(f"event counts + LogReg:  {count_scores.mean():.3f} +/- {count_scores.std():.3f}")

# %%
# What the IOHMM learned
# ----------------------
# Fitted on all sessions, the model is nearly deterministic, so its automaton can
# be read off with the action names as the alphabet.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)
    iohmm.fit(X, y)
dfa = iohmm[-1].to_automaton(alphabet=ACTIONS).minimize()

fig, (ax_cv, ax_dfa) = plt.subplots(1, 2, figsize=(10.5, 4.2))
ax_cv.boxplot([count_scores, iohmm_scores], widths=0.5)
ax_cv.set_xticks([1, 2], labels=["event counts\n+ LogisticRegression",
                                 "Stepwise(OneHotEncoder)\n+ IOHMMClassifier"])
ax_cv.set_ylabel("accuracy (5 folds)")
ax_cv.set_title("Order matters")
plot_automaton(dfa, ax=ax_dfa)
ax_dfa.set_title("IOHMM as an automaton (double circle: bought)")
fig.tight_layout()
plt.show()
