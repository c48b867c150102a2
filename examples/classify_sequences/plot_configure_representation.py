"""
Configuring and tuning the input representation
===============================================

On real-valued series, :class:`~skseq.IOHMMClassifier` reads every step
through its shape representation (``features="shape"``): MiniRocket's dilated
kernels (Dempster, Schmidt & Webb 2021), thresholded, averaged over the
prefix and projected. The name gives its default options; an object of
:mod:`skseq.representations` gives others. Here, on ItalyPowerDemand (daily
electricity demand, 24 hourly steps, two seasons), three configurations are
compared: the default, MiniRocket's budget of 9,996 indicators (a whole
number of thresholds per kernel and dilation: 9,912 on these 24-step days), and
MiniRocket's rule for the thresholds (quantiles of one training series per
kernel and dilation). Then a grid search tunes the representation's options
as nested parameters, ``features__<option>``, beside the estimator's own.
"""

# %%
import time

import matplotlib.pyplot as plt
from sklearn.model_selection import GridSearchCV

from skseq import IOHMMClassifier
from skseq.datasets import load_italy_power_demand
from skseq.representations import ShapeFeatures

X_train, y_train = load_italy_power_demand("train")
X_test, y_test = load_italy_power_demand("test")

configurations = {
    'features="shape" (default)': "shape",
    "ShapeFeatures(n_indicators=9996)": ShapeFeatures(n_indicators=9996),
    'ShapeFeatures(threshold_sample="series")': ShapeFeatures(
        threshold_sample="series"),
}
scores, seconds = {}, {}
for name, features in configurations.items():
    clf = IOHMMClassifier(features=features, random_state=0)
    start = time.perf_counter()
    clf.fit(X_train, y_train)
    seconds[name] = time.perf_counter() - start
    scores[name] = clf.score(X_test, y_test)
    print(f"{name:42s} test accuracy {scores[name]:.3f}, "
          f"fit {seconds[name]:.2f} s, "
          f"{clf.representation_.convolution_.biases_.size} indicators")

# %%
# The object passed as ``features`` is left as it is: the estimator fits a
# clone, ``representation_``, and ``features_`` names its kind.
print(clf.features_, type(clf.representation_).__name__,
      hasattr(clf.features, "convolution_"))

# %%
# Tuning the representation with the estimator
# --------------------------------------------
# The options are nested parameters, as a ``Pipeline``'s steps' are; the
# representation is fitted anew on every training fold.
search = GridSearchCV(
    IOHMMClassifier(features=ShapeFeatures(), random_state=0),
    {"features__n_components": [16, 128], "n_states": [1, 4]},
    cv=3,
).fit(X_train, y_train)
print("best:", search.best_params_,
      f"cross-validated {search.best_score_:.3f}, "
      f"test {search.score(X_test, y_test):.3f}")

# %%
# Accuracy against fit time
# -------------------------
# One split and one seed: differences of a few test series are within the
# spread between seeds (see the Results pages for means over seeds and sets).
fig, ax = plt.subplots(figsize=(6, 3))
for name in configurations:
    ax.scatter(seconds[name], scores[name], s=40)
    ax.annotate(name, (seconds[name], scores[name]), fontsize=7,
                xytext=(4, 4), textcoords="offset points")
ax.set_xlabel("fit time (s)")
ax.set_ylabel("test accuracy")
ax.set_title("ItalyPowerDemand: three shape representations")
fig.tight_layout()
plt.show()
