"""
One fit across a Dask cluster
=============================

When the sequences live on a Dask cluster, :class:`~skseq.IOHMMClassifier` fits
one model across the workers: each worker keeps its shard of sequences, and at
every iteration of the solver computes its shard's share of the objective and
gradient; only parameters and gradients travel. The result is the model a
local fit of the same data gives, from the same starting points.

Here a ``LocalCluster`` of two workers (threads of this process, to keep the
example light) holds the 2-sequence problem of Bengio, Simard & Frasconi
(1994) as a Dask array, in four shards.
"""

import dask.array as da
import matplotlib.pyplot as plt
import numpy as np
from dask.distributed import Client, LocalCluster

from skseq import IOHMMClassifier
from skseq.datasets import make_two_sequence
from skseq.utils import to_padded

X_local, y = make_two_sequence(800, max_length=20, random_state=0)
X_padded = to_padded(X_local)  # (800, 20, 1), NaN after each sequence's end
params = dict(n_states=3, features="raw", init="hold", n_init=2, max_iter=60,
              random_state=0)  # hold: states that keep the first steps

# %%
# The same model, fitted locally and on the cluster
# --------------------------------------------------
local = IOHMMClassifier(**params).fit(X_padded, y)

with (
    LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                 dashboard_address=None) as cluster,
    Client(cluster) as client,
):
    X = da.from_array(X_padded, chunks=(200, -1, -1))  # 4 shards of sequences
    clf = IOHMMClassifier(**params).fit(X, y)
    # Predictions on a Dask array are a Dask array, computed on the workers.
    predicted = clf.predict(X)
    accuracy = clf.score(X, y)
    predicted, accuracy = predicted.compute(), float(accuracy.compute())



def difference(a, b):
    return max(np.abs(getattr(a, name) - getattr(b, name)).max()
               for name in ("transition_coef_", "transition_intercept_",
                            "emission_coef_", "emission_intercept_"))


print(f"iterations: {clf.n_iter_} on the cluster, {local.n_iter_} locally")
print(f"objective: {clf.objective_:.12f} on the cluster, "
      f"{local.objective_:.12f} locally")
print(f"largest difference of the fitted parameters: {difference(clf, local):.1e}")
print(f"same predictions: {np.array_equal(predicted, local.predict(X_padded))}, "
      f"training accuracy {accuracy:.3f}")

# %%
# The shards' sums are grouped by shard, so their last bits may differ from
# the local ones; over the ~30 iterations of a fit run to convergence, L-BFGS
# amplifies such differences along directions where the objective is nearly
# flat. A local fit of the same sequences in another order, whose sums are
# grouped differently too, is the yardstick:
order = np.r_[400:800, 0:400]
reordered = IOHMMClassifier(**params).fit(X_padded[order], y[order])
print(f"local fit, sequences reordered: {difference(reordered, local):.1e}")

# %%
# The objective after every iteration: the two curves coincide.
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(local.loss_curve_, lw=4, alpha=0.4, label="local fit")
ax.plot(clf.loss_curve_, "k--", lw=1, label="across 2 Dask workers")
ax.set_xlabel("iteration")
ax.set_ylabel("objective J (per sequence)")
ax.legend()
fig.tight_layout()
plt.show()
