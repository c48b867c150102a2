"""
A slow level carries context across noise
=========================================

The 2-sequence problem (Bengio & Frasconi 1996, §5.3): the class is set by the first 3
steps and followed by 150-300 steps of uniform noise; only the last step is labelled.
A flat :class:`~skseq.IOHMMClassifier` never links the label to the distant start
and stays at chance. :class:`~skseq.HierarchicalIOHMM` with one *slow* level
(El Hihi & Bengio 1995, eq. 6: the level keeps its value with probability 1 -
1/timescale) starts out slow, so both the class and the learning signal survive the
noise. With ``learn_timescales=True`` it then learns how fast to move. The plot shows
the slow level's state distribution over time: set by the first steps, then held.
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.exceptions import ConvergenceWarning

from skseq import HierarchicalIOHMM, IOHMMClassifier
from skseq.datasets import make_two_sequence

X, y = make_two_sequence(650, max_length=300, min_length=150, random_state=3)
X_train, y_train, X_test, y_test = X[:150], y[:150], X[150:], y[150:]

params = dict(features="raw", emission="state", n_init=3, tol=1e-8, max_iter=300,
              random_state=0)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)
    slow = HierarchicalIOHMM((3,), timescales=(300,), learn_timescales=True,
                             **params).fit(X_train, y_train)
    flat = IOHMMClassifier(n_states=3, **params).fit(X_train, y_train)
print(f"slow level: test accuracy {slow.score(X_test, y_test):.3f}")
print(f"flat IOHMM: test accuracy {flat.score(X_test, y_test):.3f}")

# %%
# The slow level's state distribution over one test sequence of each class.
fig, axes = plt.subplots(1, 2, figsize=(9, 3.2), sharey=True)
for ax, label in zip(axes, (0, 1), strict=True):
    k = int(np.flatnonzero(y_test == label)[0])
    proba = slow.predict_state_proba(X_test[k : k + 1])[0][0]  # level 0
    for state in range(proba.shape[1]):
        ax.plot(proba[:, state], label=f"state {state}")
    ax.set_title(f"class {label}")
    ax.set_xlabel("step")
axes[0].set_ylabel("P(slow level = state | u_1..t)")
axes[1].legend(fontsize=8)
fig.suptitle("HierarchicalIOHMM: the slow level holds the class")
fig.tight_layout()
plt.show()
