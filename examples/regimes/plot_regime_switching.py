"""
Regime-switching regression
===========================

A sensor's output follows one of two linear laws, and which law is in force
(the *regime*) switches when an exogenous input crosses a threshold, then
persists. :class:`~skseq.IOHMMRegressor` learns both laws and the switching rule
from the sequences alone, with no regime labels. Its prediction is the mixture
mean E[y_t | u_1..t], and ``return_std=True`` gives the standard deviation of the
predictive mixture. :meth:`~skseq.IOHMMRegressor.predict_state_proba` shows the
regime the model believes it is in, step by step and causally.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score

from skseq import IOHMMRegressor

rng = np.random.default_rng(0)


def simulate(n_sequences, length=120):
    """u_0 drives the output, u_1 switches the regime; y = a_r u_0 + c_r + noise."""
    slope, intercept = np.array([2.0, -1.5]), np.array([1.0, -1.0])
    X, y, regimes = [], [], []
    for _ in range(n_sequences):
        u = np.column_stack([np.sin(np.arange(length) / 6) + 0.3 * rng.normal(
            size=length), rng.normal(size=length)])
        r, rs = rng.integers(2), []
        for t in range(length):
            if u[t, 1] > 1.5:
                r = 1
            elif u[t, 1] < -1.5:
                r = 0
            rs.append(r)
        rs = np.array(rs)
        X.append(u)
        y.append(slope[rs] * u[:, 0] + intercept[rs] + 0.3 * rng.normal(size=length))
        regimes.append(rs)
    return X, y, regimes


X_train, y_train, _ = simulate(40)
X_test, y_test, regimes_test = simulate(20)

# %%
# Fit on step-level targets (one target per step) and compare with a pooled
# linear regression on the same inputs.
model = IOHMMRegressor(n_states=2, n_init=5, random_state=0).fit(X_train, y_train)
pooled = LinearRegression().fit(np.concatenate(X_train), np.concatenate(y_train))
print(f"IOHMMRegressor test R^2: {model.score(X_test, y_test):.3f}")
print("pooled LinearRegression test R^2: "
      f"{r2_score(np.concatenate(y_test), pooled.predict(np.concatenate(X_test))):.3f}")
print("per-regime slopes on u_0:", model.emission_coef_[0, :, 0].round(2))
print("per-regime intercepts:", model.emission_intercept_[:, 0].round(2))

# %%
# One test sequence: the predicted mean with its +/- 2 std band, and the
# inferred regime (the filtered probability of the state with the larger slope).
mean, std = model.predict(X_test[:1], return_std=True)
mean, std = mean[0], std[0]
state = int(np.argmax(model.emission_coef_[0, :, 0]))
p_state = model.predict_state_proba(X_test[:1])[0][:, state]
t = np.arange(len(mean))

fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 5.5), sharex=True,
                               gridspec_kw={"height_ratios": [2, 1]})
ax1.fill_between(t, mean - 2 * std, mean + 2 * std, alpha=0.3,
                 label="predicted mean +/- 2 std")
ax1.plot(t, mean, lw=1.5, label="predicted mean")
ax1.plot(t, y_test[0], ".", ms=3, color="k", label="observed")
ax1.set_ylabel("y")
ax1.legend(loc="upper right", fontsize=8)
ax2.step(t, regimes_test[0] == 0, where="mid", color="k", lw=1,
         label="true regime is the slope-2 one")
ax2.plot(t, p_state, label="P(slope-2 regime | u_1..t)")
ax2.set_xlabel("step")
ax2.set_ylabel("slope-2 regime")
ax2.legend(loc="upper right", fontsize=8)
fig.suptitle("IOHMMRegressor on a regime-switching sequence")
fig.tight_layout()
plt.show()
