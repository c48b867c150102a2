"""IOHMMRegressor against independent references."""

import pickle
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score

from skseq import IOHMMRegressor
from skseq._data import Targets, check_sequences
from skseq._families.emissions import GaussianEmission
from skseq._families.layers import LAYERS
from skseq._families.transitions import InputTransitions
from skseq._fit.objective import Problem as _Problem

# A known 2-state IOHMM: the input's second feature switches the regime (a large
# u_1 pushes toward regime 1, a small one toward regime 0, otherwise the regime
# persists), and each regime has its own linear law y = a_i u_0 + c_i + noise.
TRUE_COEF = np.zeros((2, 2, 1))
TRUE_COEF[0, :, 0] = [2.0, -1.5]  # slope on u_0, per regime
TRUE_INTERCEPT = np.array([[1.0], [-1.0]])
NOISE_SD = 0.3
TRUE_TRANS_COEF = np.zeros((2, 2, 2))  # (feature, from, to)
TRUE_TRANS_COEF[1, :, 1] = 5.0  # u_1 raises the logit of regime 1 from any state
TRUE_TRANS_INTERCEPT = np.array([[3.0, 0.0], [0.0, 3.0]])  # persistence


def _sample(n_seq, rng, length=60):
    X, y = [], []
    for _ in range(n_seq):
        u = rng.normal(size=(length, 2))
        x = rng.integers(2)
        ys = np.empty(length)
        for t in range(length):
            z = u[t] @ TRUE_TRANS_COEF[:, x, :] + TRUE_TRANS_INTERCEPT[x]
            p = np.exp(z - z.max())
            x = rng.choice(2, p=p / p.sum())
            ys[t] = TRUE_COEF[0, x, 0] * u[t, 0] + TRUE_INTERCEPT[x, 0]
        X.append(u)
        y.append(ys + NOISE_SD * rng.normal(size=length))
    return X, y


def _true_model(X, y):
    """An estimator carrying the generating parameters."""
    model = IOHMMRegressor(n_states=2, n_init=1, max_iter=1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    model.startprob_ = np.array([0.5, 0.5])
    model.transition_coef_ = TRUE_TRANS_COEF
    model.transition_intercept_ = TRUE_TRANS_INTERCEPT
    model.emission_coef_ = TRUE_COEF
    model.emission_intercept_ = TRUE_INTERCEPT
    model.emission_covariance_ = np.full((2, 1), NOISE_SD**2)
    return model


def test_recovers_a_regime_switching_law():
    rng = np.random.default_rng(0)
    X, y = _sample(60, rng)
    X_test, y_test = _sample(60, rng)
    reg = IOHMMRegressor(n_states=2, n_init=5, random_state=0).fit(X, y)
    r2 = reg.score(X_test, y_test)
    r2_true = _true_model(X, y).score(X_test, y_test)
    pooled = LinearRegression().fit(np.concatenate(X), np.concatenate(y))
    r2_pooled = r2_score(np.concatenate(y_test), pooled.predict(np.concatenate(X_test)))
    assert r2 >= 0.95 * r2_true
    assert r2_pooled < 0.5 * r2
    # Regimes are found up to permutation: match them by their slopes.
    order = np.argsort(reg.emission_coef_[0, :, 0])[::-1]
    # ~1,800 noisy steps per regime give slope/intercept standard errors near
    # 0.3 / sqrt(1800) ~ 0.007: 0.05 is about seven of them.
    assert_allclose(reg.emission_coef_[0, order, 0], [2.0, -1.5], atol=0.05)
    assert_allclose(reg.emission_coef_[1, order, 0], [0.0, 0.0], atol=0.05)
    assert_allclose(reg.emission_intercept_[order, 0], [1.0, -1.0], atol=0.05)
    assert_allclose(reg.emission_covariance_[order, 0], [0.09, 0.09], rtol=0.15)


def _gaussian_problem(cov_type, emission, n_out, seed=0):
    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(k, 2)) for k in (2, 4, 3)]
    seqs = check_sequences(X)
    steps = np.array([0, 1, 3, 5, 6, 8])
    y = rng.normal(size=(len(steps), n_out)) * 3 + 10
    targets = Targets(steps=steps, values=y, step_level=True)
    emit = GaussianEmission(3, LAYERS[emission](2, 4), n_out, cov_type, 1e-3,
                            y_mean=np.full(n_out, 10.0), y_scale=np.full(n_out, 3.0))
    problem = _Problem(seqs, targets, rng.uniform(0.5, 2, 3), InputTransitions(3, 2),
                       emit, np.ones((3, 3), bool), None, 0.2, None)
    theta = rng.normal(size=3 + problem.n_trans + emit.n_params) * 0.5
    return problem, theta


@pytest.mark.parametrize("cov_type", ["diag", "spherical", "full", "tied"])
@pytest.mark.parametrize("emission", list(LAYERS))
def test_lbfgs_gradient_matches_finite_differences(cov_type, emission):
    problem, theta = _gaussian_problem(cov_type, emission, n_out=2)
    _, grad = problem.value_and_grad(theta)
    eps = 1e-6
    num = np.array([
        (problem.value_and_grad(theta + e)[0] - problem.value_and_grad(theta - e)[0])
        / (2 * eps) for e in np.eye(theta.size) * eps
    ])
    assert_allclose(grad, num, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("cov_type", ["diag", "spherical", "full", "tied"])
def test_log_prob_is_the_gaussian_density(cov_type):
    """Compare with scipy's multivariate normal, in the units of y."""
    from scipy.stats import multivariate_normal

    problem, theta = _gaussian_problem(cov_type, "input", n_out=2)
    emit = problem.emission
    theta_e = problem.split(theta)[2]
    U = problem.U_targets
    means, cov = emit.moments(theta_e, U)
    logp = emit.log_prob(theta_e, U, problem.y)
    for t in range(len(U)):
        for i in range(3):
            ref = multivariate_normal(means[t, i], cov[i]).logpdf(problem.y[t])
            assert_allclose(logp[t, i], ref, rtol=1e-10)


@pytest.mark.parametrize("cov_type", ["diag", "spherical", "full", "tied"])
def test_em_never_decreases_the_objective(cov_type):
    rng = np.random.default_rng(1)
    X, y = _sample(10, rng, length=20)
    y = [np.column_stack([v, 0.5 * v + rng.normal(size=v.shape)]) for v in y]
    reg = IOHMMRegressor(n_states=2, covariance_type=cov_type, solver="em",
                         warm_start=True, max_iter=1, n_init=1, random_state=0)
    objectives = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for _ in range(12):
            objectives.append(reg.fit(X, y).objective_)
    assert np.all(np.diff(objectives) <= 1e-10)
    assert objectives[-1] < objectives[0]


def test_predict_mean_and_std_by_hand():
    """One step: zeta = startprob A(u); mixture mean and standard deviation."""
    rng = np.random.default_rng(2)
    X, y = _sample(5, rng, length=10)
    model = _true_model(X, y)
    u = np.array([0.7, -0.2])
    z = np.einsum("k,kji->ji", u, TRUE_TRANS_COEF) + TRUE_TRANS_INTERCEPT
    A = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    zeta = np.array([0.5, 0.5]) @ A
    mu = TRUE_COEF[0, :, 0] * u[0] + TRUE_INTERCEPT[:, 0]
    mean = zeta @ mu
    std = np.sqrt(zeta @ (NOISE_SD**2 + mu**2) - mean**2)
    pred, pred_std = model.predict([u[None]], return_std=True)
    assert_allclose(pred[0], [mean])
    assert_allclose(pred_std[0], [std])


def test_extreme_targets_stay_finite():
    rng = np.random.default_rng(3)
    X, y = _sample(20, rng, length=15)
    y[3][7] += 1e4 * NOISE_SD  # a 10^4-sigma outlier
    reg = IOHMMRegressor(n_states=2, n_init=2, max_iter=50, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        reg.fit(X, y)
    assert np.isfinite(reg.log_likelihood_)
    assert np.isfinite(reg.score_samples(X, y)).all()


def test_constant_output_column_gives_no_nan():
    rng = np.random.default_rng(3)
    X, y = _sample(20, rng, length=15)
    y2 = [np.column_stack([v, np.full_like(v, 5.0)]) for v in y]
    for cov in ("diag", "full", "spherical"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            reg2 = IOHMMRegressor(n_states=2, covariance_type=cov, n_init=2,
                                  random_state=0).fit(X, y2)
        pred, std = reg2.predict(X, return_std=True)
        assert np.isfinite(np.concatenate(pred)).all()
        assert np.isfinite(np.concatenate(std)).all()
        assert np.isfinite(reg2.log_likelihood_)
        assert np.median(np.abs(np.concatenate(pred)[:, 1] - 5.0)) < 0.01


@pytest.mark.parametrize("step_level", [False, True])
def test_every_output_constant_is_predicted_exactly(step_level):
    """With every output constant the model still needs one, but the constant
    is predicted exactly, as a constant column beside others is."""
    rng = np.random.default_rng(3)
    X = [rng.normal(size=(8, 2)) for _ in range(6)]
    y = [np.full(8, 3.0) for _ in X] if step_level else np.full(6, 3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        reg = IOHMMRegressor(n_init=1, max_iter=20, random_state=0).fit(X, y)
    pred, std = reg.predict(X, return_std=True)
    assert_allclose(np.concatenate([np.ravel(p) for p in pred]), 3.0, rtol=0)
    assert_allclose(np.concatenate([np.ravel(s) for s in std]), 0.0, atol=0)
    drawn, _ = reg.sample(X, random_state=0)
    assert_allclose(np.concatenate(drawn), 3.0, rtol=0)


def test_a_variance_floor_that_dominates_y_is_named():
    """min_covar is in the units of y squared: on y of variance ~1e-18 the floor
    sets the noise model, and the fit is no longer scale-equivariant."""
    rng = np.random.default_rng(3)
    X = [rng.normal(size=(8, 1)) for _ in range(6)]
    y = [1e-9 * x[:, 0] for x in X]
    reg = IOHMMRegressor(n_init=1, max_iter=2, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        with pytest.warns(UserWarning, match="min_covar=1e-06 .* output 0"):
            reg.fit(X, y)
        with warnings.catch_warnings():
            warnings.filterwarnings("error", message=".*min_covar")
            reg.set_params(min_covar=1e-24).fit(X, y)
            reg.set_params(min_covar=1e-6).fit(X, [1e9 * v for v in y])


@pytest.mark.parametrize("y_new", [
    lambda y: [np.column_stack([v, 3 * v, -v]) for v in y],  # one output more
    lambda y: [np.column_stack([v, np.ones_like(v)]) for v in y],  # a constant one
])
def test_warm_start_refuses_changed_outputs_and_keeps_the_model(y_new):
    """The output networks' parameters are shaped by the modelled outputs: a
    warm start on other outputs is refused, the fitted model left as it was."""
    rng = np.random.default_rng(3)
    X = [rng.normal(size=(8, 1)) for _ in range(6)]
    y = [np.column_stack([x[:, 0], rng.normal(size=8)]) for x in X]
    reg = IOHMMRegressor(n_init=1, max_iter=3, random_state=0, warm_start=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        reg.fit(X, y)
        before = pickle.dumps(reg)
        with pytest.raises(ValueError, match="warm_start=True .* outputs"):
            reg.fit(X, y_new([v[:, 0] for v in y]))
    assert pickle.dumps(reg) == before


def test_targets_without_outputs_are_refused_by_name():
    X = [np.ones((8, 1))] * 6
    with pytest.raises(ValueError, match="y has 0 outputs"):
        IOHMMRegressor(n_init=1).fit(X, np.zeros((6, 0)))


def test_nan_step_targets_are_skipped():
    """Only the last step labelled == sequence-level target at the last step."""
    rng = np.random.default_rng(4)
    X, y = _sample(8, rng, length=12)
    model = _true_model(X, y)
    last = np.array([v[-1] for v in y])
    sparse = [np.where(np.arange(len(v)) == len(v) - 1, v, np.nan) for v in y]
    assert_allclose(model.score_samples(X, sparse), model.score_samples(X, last))
    reg = IOHMMRegressor(n_states=2, n_init=1, max_iter=5, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        reg.fit(X, sparse)
    assert reg.step_level_ and np.isfinite(reg.log_likelihood_)


def test_nan_inputs_are_rejected():
    X = [np.array([[0.0], [np.nan], [1.0]])]
    with pytest.raises(ValueError, match="sequence 0 contains NaN at step 1"):
        IOHMMRegressor().fit(X, [1.0])
    with pytest.raises(ValueError, match="sequence 1"):
        IOHMMRegressor().fit([np.ones((2, 1)), np.ones((1, 1))], [1.0, np.nan])


def test_padded_targets_and_outputs_follow_x():
    rng = np.random.default_rng(5)
    X, y = _sample(6, rng, length=8)
    X3 = np.full((6, 8, 2), np.nan)
    y3 = np.full((6, 8, 1), np.nan)
    for s in range(6):
        k = 8 - s % 3
        X3[s, :k], y3[s, :k, 0] = X[s][:k], y[s][:k]
    reg = IOHMMRegressor(n_states=2, n_init=1, max_iter=20, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        reg.fit(X3, y3)
    pred = reg.predict(X3)
    assert pred.shape == (6, 8, 1)
    assert np.isnan(pred[2, 6:]).all() and np.isfinite(pred[0]).all()
    assert np.isfinite(reg.score(X3, y3))


def test_the_fit_does_not_depend_on_the_units_of_y():
    """y in other units (and min_covar with them) is the same fit: the
    objective holds the log-Jacobian of the targets' standardization, so L-BFGS's
    convergence test, relative to its value, stopped at another iterate (the
    predictions differed by 3% between y and y * 1e6)."""
    rng = np.random.default_rng(0)
    u = rng.normal(size=(60, 1))
    y = np.r_[rng.normal(0, 1, 30), rng.normal(3, 1, 30)] + 0.5 * u[:, 0]
    fits = []
    for scale in (1.0, 1e6):
        reg = IOHMMRegressor(2, n_init=2, min_covar=1e-6 * scale**2, random_state=0)
        reg.fit([u], [y * scale])
        fits.append((reg, reg.predict([u])[0] / scale,
                     reg.predict([u], [y * scale])[0] / scale))
    (reg1, p1, q1), (reg2, p2, q2) = fits
    assert_allclose(p2, p1, rtol=1e-8)
    assert_allclose(q2, q1, rtol=1e-8)
    assert reg2.n_iter_ == reg1.n_iter_
    # the objective stays in the units of y: -log(1e6) per target, per sequence
    shift = pytest.approx(60 * np.log(1e6), rel=1e-9)
    assert reg2.objective_ - reg1.objective_ == shift
    assert reg2.loss_curve_[0] - reg1.loss_curve_[0] == shift


def test_the_still_falling_rate_does_not_depend_on_the_units_of_y():
    """The convergence warning's rate is relative to the objective without
    the constant that only the units of y set, as the solver's test is: y
    and y * 1e6 give the same figure (it differed by the log-Jacobian of
    1e6 per target in the denominator)."""
    rng = np.random.default_rng(0)
    u = rng.normal(size=(40, 1))
    y = np.r_[rng.normal(0, 1, 20), rng.normal(3, 1, 20)] + 0.5 * u[:, 0]
    rates = []
    for scale in (1.0, 1e6):
        reg = IOHMMRegressor(2, n_init=1, max_iter=12, min_covar=1e-6 * scale**2,
                             random_state=0)
        with pytest.warns(ConvergenceWarning) as record:
            reg.fit([u], [y * scale])
        message = str(record[0].message)
        rates.append(float(message.split("still falling by ")[1].split()[0]))
        # the objective without the log-Jacobian of standardizing y, by hand
        curve = np.asarray(reg.loss_curve_) - 40 * np.log(np.std(y * scale))
        expected = (curve[-11] - curve[-1]) / 10 / max(abs(curve[-1]), 1.0)
        assert rates[-1] == pytest.approx(expected, rel=0.06)
    assert f"{rates[0]:.1e}" == f"{rates[1]:.1e}"


@pytest.mark.parametrize("step_level", [False, True])
def test_score_refuses_another_number_of_outputs(step_level):
    # R^2 of 3 outputs against a model of 1 gave scikit-learn's "y_true and
    # y_pred have different number of output (3!=1)"
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(k, 2)) for k in (3, 4, 5, 6)]
    y = ([rng.normal(size=len(x)) for x in X] if step_level
         else rng.normal(size=len(X)))
    reg = IOHMMRegressor(n_states=2, max_iter=3, random_state=0).fit(X, y)
    wide = ([np.c_[t, t, t] for t in y] if step_level else np.c_[y, y, y])
    with pytest.raises(ValueError, match=r"^y has 3 outputs, but this "
                       r"IOHMMRegressor was fitted with 1\.$"):
        reg.score(X, wide)
    assert np.isfinite(reg.score(X, y))


@pytest.mark.parametrize("unit", [1e-20, 1e-13])
def test_targets_in_tiny_units_are_not_taken_for_constants(unit):
    """y * unit with min_covar * unit**2 is the same fit in other units. A
    spread below 1e-12 counted as constant whatever the floor, so these
    targets were predicted as their mean, with standard deviation 0."""
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(6, 1)) for _ in range(5)]
    y = [2.0 * x[:, 0] + rng.normal(scale=0.3, size=6) for x in X]
    fits = []
    for a in (1.0, unit):
        reg = IOHMMRegressor(2, min_covar=1e-6 * a * a, n_init=1, max_iter=5,
                             random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            reg.fit(X, [a * v for v in y])
        mean, std = reg.predict(X, return_std=True)
        fits.append((np.concatenate(mean) / a, np.concatenate(std) / a))
    assert np.all(fits[1][1] > 0)
    assert_allclose(fits[1][0], fits[0][0], rtol=1e-9)
    assert_allclose(fits[1][1], fits[0][1], rtol=1e-9)


def test_per_step_targets_padded_in_a_2d_array_get_a_hint():
    """A 2-D y is one row of outputs per sequence; per-step targets padded with
    NaN into one are refused (the shorter sequence's row holds NaN) with the
    form to give them in. The message said only that sequence-level targets
    must be finite. A multi-output y with a NaN inside a row gets no hint."""
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(n, 1)) for n in (5, 5, 3)]
    padded = np.full((3, 5), np.nan)
    for i, x in enumerate(X):
        padded[i, :len(x)] = 2.0 * x[:, 0]
    reg = IOHMMRegressor(2, n_init=1, max_iter=2, random_state=0)
    with pytest.raises(ValueError, match=r"at sequence 2; sequence-level targets "
                       r"must be finite\. A 2-D y holds 5 outputs per sequence; if "
                       r"its columns are steps padded with NaN, give the per-step "
                       r"targets as a list of arrays, one per sequence"):
        reg.fit(X, padded)
    inside = np.ones((3, 3))
    inside[1, 1] = np.nan
    with pytest.raises(ValueError, match=r"at sequence 1; sequence-level targets "
                       r"must be finite\.$"):
        reg.fit(X, inside)
