"""
Regimes of the Federal-funds rate
=================================

Hamilton's (1989) Markov-switching model on the US Federal-funds rate,
1954-2010: the rate follows one of two regimes, each with its own mean, and a
Markov chain moves between them. :class:`~skseq.IOHMMRegressor` with
``transition="homogeneous"`` (one transition matrix), ``emission="state"`` (a
constant mean per regime), ``covariance_type="tied"`` (one variance) and
``startprob="stationary"`` is the model of statsmodels'
``MarkovRegression(rate, k_regimes=2)`` and Stata's ``mswitch dr``; with
``alpha=0`` the fit is the maximum likelihood estimate.

Given the observed rate, :meth:`~skseq.IOHMMRegressor.predict_state_proba`
gives the filtered probabilities P(regime at t | rate up to t) (Hamilton 1989)
and, with ``smoothed=True``, the smoothed ones given the whole series (Kim
1994). Then the transitions are made to depend on an input, the lagged output
gap: time-varying transition probabilities (statsmodels' ``exog_tvtp``).
"""

import matplotlib.pyplot as plt
import numpy as np

from skseq import IOHMMRegressor
from skseq.datasets import load_fedfunds

data = load_fedfunds()
rate = data.rate
years = np.array([int(q[:4]) + (int(q[-1]) - 1) / 4 for q in data.quarter])

# %%
# A switching mean with one variance
# ----------------------------------
# One sequence of 226 quarters; the regression has no input, so X is a column
# of zeros and y the rate at every step.
X, y = [np.zeros((len(rate), 1))], [rate]
model = IOHMMRegressor(2, transition="homogeneous", emission="state",
                       covariance_type="tied", startprob="stationary", alpha=0,
                       n_init=10, tol=1e-8, random_state=0).fit(X, y)
print(f"log-likelihood {model.log_likelihood_:.4f}")
se = model.standard_errors(X, y)
P = model.transition_proba(X)[0][0]
for i in range(2):
    print(f"regime {i}: mean {model.emission_intercept_[i, 0]:.3f} "
          f"(SE {se['emission_intercept'][i, 0]:.3f}), stays with probability "
          f"{P[i, i]:.3f} (SE {se['transition_proba'][i, i]:.3f})")
print(f"variance {model.emission_covariance_[0, 0]:.3f} "
      f"(SE {se['emission_covariance'][0, 0]:.3f})")

# %%
# Filtered and smoothed regime probabilities
# ------------------------------------------
# The filtered probability uses the rate up to each quarter (what was known
# then); the smoothed one the whole series. The one-step-ahead forecast of
# each quarter uses the rate up to the quarter before.
high = int(np.argmax(model.emission_intercept_[:, 0]))
filtered = model.predict_state_proba(X, y)[0][:, high]
smoothed = model.predict_state_proba(X, y, smoothed=True)[0][:, high]
forecast = model.predict(X, y)[0]

fig, axes = plt.subplots(2, 1, figsize=(8, 5), sharex=True)
axes[0].plot(years, rate, color="k", lw=1, label="Federal-funds rate")
axes[0].plot(years, forecast, color="C1", lw=1, label="one-step forecast")
axes[0].set_ylabel("percent")
axes[0].legend(loc="upper right")
axes[1].plot(years, filtered, color="C0", lw=1, label="filtered")
axes[1].plot(years, smoothed, color="C3", lw=1, label="smoothed")
axes[1].set_ylabel("P(high-rate regime)")
axes[1].set_xlabel("year")
axes[1].legend(loc="upper right")
fig.tight_layout()

# %%
# Time-varying transition probabilities
# -------------------------------------
# With ``transition="input"`` the transition probabilities depend on the
# inputs: here the output gap of the quarter before. The regime means still
# ignore the input (``emission="state"``). The transition logits'
# coefficients, relative to the last regime, are statsmodels' ``exog_tvtp``
# coefficients (with a constant).
gap = data.output_gap
X_gap, y_gap = [gap[:-1, None]], [rate[1:]]
tvtp = IOHMMRegressor(2, transition="input", emission="state",
                      covariance_type="tied", alpha=0, n_init=10,
                      random_state=0).fit(X_gap, y_gap)
print(f"log-likelihood {tvtp.log_likelihood_:.4f} "
      f"(constant transitions on the same quarters: "
      f"{model.score_samples([X[0][1:]], [rate[1:]])[0]:.4f})")
stay = tvtp.transition_proba(X_gap)[0]
high = int(np.argmax(tvtp.emission_intercept_[:, 0]))
low = 1 - high

fig, ax = plt.subplots(figsize=(8, 3))
ax.plot(years[1:], stay[:, high, high], label="P(stay high)")
ax.plot(years[1:], stay[:, low, low], label="P(stay low)")
ax.set_ylabel("transition probability")
ax.set_xlabel("year")
ax.legend(loc="lower left")
fig.tight_layout()
plt.show()
