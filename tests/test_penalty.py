"""``alpha="auto"`` (``skseq._families.penalty``): the leave-one-out errors of the
ridge read-out against refitting without each row, and the choice against the
amount of data."""

import warnings

import numpy as np
from numpy.testing import assert_allclose
from sklearn.exceptions import ConvergenceWarning

from skseq import IOHMMClassifier, IOHMMRegressor
from skseq._families.penalty import (
    LAMBDAS,
    RAW_ALPHA,
    _centred_svd,
    choose_alpha_classes,
    choose_alpha_gaussian,
    group_loo_errors,
    ridge_loo,
    softmax_readout,
)


def _brute_force_loo(X, Y, weight, lam):
    """Weighted ridge with an unpenalised intercept refitted without each row."""
    total = 0.0
    for i in range(X.shape[0]):
        keep = np.arange(X.shape[0]) != i
        w = weight[keep]
        A = np.hstack([X[keep], np.ones((keep.sum(), 1))])
        P = lam * np.eye(A.shape[1])
        P[-1, -1] = 0.0  # the intercept is not penalised
        coef = np.linalg.solve(A.T @ (w[:, None] * A) + P, A.T @ (w[:, None] * Y[keep]))
        err = Y[i] - np.append(X[i], 1.0) @ coef
        total += weight[i] * err @ err
    return total


def test_leave_one_out_errors_equal_refits():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 4))
    Y = X @ rng.normal(size=(4, 2)) + rng.normal(size=(12, 2))
    errors, _ = ridge_loo(X, Y, np.ones(12))
    for k in (0, 10, 20, 28):
        assert_allclose(errors[k], _brute_force_loo(X, Y, np.ones(12), LAMBDAS[k]),
                        rtol=1e-8)


def test_an_integer_weight_equals_repeating_the_row():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(10, 3))
    Y = X @ rng.normal(size=(3, 1)) + rng.normal(size=(10, 1))
    weight = rng.integers(0, 4, size=10)
    repeated = np.repeat(np.arange(10), weight)
    errors, variances = ridge_loo(X, Y, weight.astype(float))
    for k in (0, 14, 28):
        assert_allclose(errors[k], _brute_force_loo(
            X[repeated], Y[repeated], np.ones(repeated.size), LAMBDAS[k]),
            rtol=1e-8)
    assert_allclose(variances, ridge_loo(X[repeated], Y[repeated],
                                         np.ones(repeated.size))[1], rtol=1e-8)


def _brute_force_group_loo(X, Y, weight, groups, copies, lam):
    """Weighted ridge refitted with one copy of each group left out (the
    fraction 1 / copies of its rows' weight), scored on the group's rows."""
    total = 0.0
    A = np.hstack([X, np.ones((X.shape[0], 1))])
    P = lam * np.eye(A.shape[1])
    P[-1, -1] = 0.0  # the intercept is not penalised
    for g in np.unique(groups):
        rows = groups == g
        w = np.where(rows, weight * (1 - 1 / copies[g]), weight)
        coef = np.linalg.solve(A.T @ (w[:, None] * A) + P, A.T @ (w[:, None] * Y))
        err = Y[rows] - A[rows] @ coef
        total += np.sum(weight[rows, None] * err**2)
    return total


def test_leave_group_out_errors_equal_refits():
    """Rows of one group (the prefixes of one sequence) left out together; a
    group of integer weight 2 counts as two copies, one left out: the same
    errors as that group written twice."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(13, 3))
    Y = X @ rng.normal(size=(3, 2)) + rng.normal(size=(13, 2))
    groups = np.array([0, 0, 0, 1, 1, 2, 2, 2, 3, 4, 4, 1, 3])  # uneven sizes
    weight = rng.uniform(0.2, 1.0, size=13)
    weight[groups == 2] = 2.0
    copies = np.array([1.0, 1.0, 2.0, 1.0, 1.0])
    errors = group_loo_errors(*_centred_svd(X, Y, weight), weight, groups, copies)
    for k in (0, 10, 20, 28):
        assert_allclose(errors[k], _brute_force_group_loo(
            X, Y, weight, groups, copies, LAMBDAS[k]), rtol=1e-8)
    twice = np.concatenate([np.arange(13), np.flatnonzero(groups == 2)])
    groups2 = np.concatenate([groups, np.full(3, 5)])
    weight2 = np.where(np.isin(groups2, [2, 5]), 1.0, weight[twice])
    assert_allclose(errors, group_loo_errors(
        *_centred_svd(X[twice], Y[twice], weight2), weight2, groups2,
        np.ones(6)), rtol=1e-8)
    # groups of one row each: the leave-one-out errors
    single = np.arange(13)
    assert_allclose(group_loo_errors(*_centred_svd(X, Y, np.ones(13)), np.ones(13),
                                     single, np.ones(13)),
                    ridge_loo(X, Y, np.ones(13))[0], rtol=1e-8)


def test_noise_gets_the_strongest_penalty_and_signal_a_weak_one():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 10))
    noise = rng.integers(0, 3, size=200)
    # the strongest ridge penalty, at the curvature of near-uniform classes
    assert choose_alpha_classes(X, noise, np.ones(200))[0] > LAMBDAS[0] / 3
    signal = np.argmax(X @ rng.normal(size=(10, 3)), axis=1)
    assert choose_alpha_classes(X, signal, np.ones(200))[0] < 10


def _noise_at_the_best_penalty(X, Y):
    """The leave-one-out best penalty (by refits) and the noise variance
    there: the residual sum of squares over n less the trace of the hat
    matrix (intercept included), both computed directly."""
    n = X.shape[0]
    lam = LAMBDAS[np.argmin([_brute_force_loo(X, Y, np.ones(n), lam)
                             for lam in LAMBDAS])]
    A = np.hstack([X, np.ones((n, 1))])
    P = lam * np.eye(A.shape[1])
    P[-1, -1] = 0.0
    hat = A @ np.linalg.solve(A.T @ A + P, A.T)
    resid = Y - hat @ Y
    return lam, np.sum(resid**2) / Y.shape[1] / (n - np.trace(hat))


def test_gaussian_penalty_is_the_ridge_penalty_over_the_noise_variance():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 5))
    Y = X @ rng.normal(size=(5, 1)) + 0.5 * rng.normal(size=(30, 1))
    alpha, _ = choose_alpha_gaussian(X, Y, np.ones(30))
    lam, noise = _noise_at_the_best_penalty(X, Y)
    assert_allclose(alpha, lam / noise, rtol=1e-8)


def test_a_nearly_interpolating_ridge_gets_a_finite_prior():
    # more columns than rows: at a weak penalty the ridge fits every row, and
    # its residuals' own mean square (about 1e-7 here) would make the prior
    # precision explode
    rng = np.random.default_rng(5)
    X = rng.normal(size=(12, 40))
    Y = X[:, :2] @ np.ones((2, 1)) + 0.1 * rng.normal(size=(12, 1))
    alpha, _ = choose_alpha_gaussian(X, Y, np.ones(12))
    lam, noise = _noise_at_the_best_penalty(X, Y)
    assert_allclose(alpha, lam / noise, rtol=1e-6)
    assert alpha < 1e3


def test_the_gaussian_penalty_of_integer_weights_is_that_of_repeated_rows():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(10, 3))
    Y = X @ rng.normal(size=(3, 1)) + rng.normal(size=(10, 1))
    weight = rng.integers(1, 4, size=10)
    repeated = np.repeat(np.arange(10), weight)
    assert_allclose(choose_alpha_gaussian(X, Y, weight.astype(float))[0],
                    choose_alpha_gaussian(X[repeated], Y[repeated],
                                          np.ones(repeated.size))[0], rtol=1e-8)


def test_a_regressor_on_the_shape_of_few_series_reads_them():
    # 20 series whose target is their mean plus their spread: the shape
    # representation's components nearly interpolate 20 targets, and the
    # penalty must not shrink the read-out to the mean (test R^2 near 0)
    def series(n, seed):
        r = np.random.RandomState(seed)
        X = [r.normal(size=(r.randint(20, 60), 1)) * r.uniform(0.5, 2) + r.normal()
             for _ in range(n)]
        return X, np.array([x.mean() + x.std() for x in X]) + 0.2 * r.normal(size=n)

    X, y = series(20, 0)
    X_test, y_test = series(200, 100)
    model = IOHMMRegressor(features="shape", random_state=0).fit(X, y)
    assert model.alpha_ < 1e3
    assert model.score(X_test, y_test) > 0.3


def test_estimators_record_the_penalty_they_used():
    rng = np.random.default_rng(2)
    X = [np.cumsum(rng.normal(size=(15, 1)), axis=0) for _ in range(16)]
    y = np.array([float(x[-1, 0] > 0) for x in X])
    shape = IOHMMClassifier(2, features="shape", random_state=0).fit(X, y)
    assert 0 < shape.alpha_ <= LAMBDAS[0] / 2.0
    raw = IOHMMClassifier(2, features="raw", n_init=1, random_state=0).fit(X, y)
    assert raw.alpha_ == RAW_ALPHA
    fixed = IOHMMRegressor(2, features="shape", alpha=0.3, n_init=1,
                           random_state=0).fit(X, y)
    assert fixed.alpha_ == 0.3


def test_a_warm_refit_on_the_same_data_chooses_the_cold_fits_penalty():
    # The warm refit reads the shape representation's supervised columns as
    # the cold fit did (cross-fitted at the training sequences), not in
    # sample: those separate the training set and drove the penalty down
    # (0.235 against 1.24 here).
    rng = np.random.default_rng(6)
    y = rng.integers(0, 2, 40)
    X = [rng.normal(size=(rng.integers(6, 10), 2)) + 0.6 * label for label in y]
    clf = IOHMMClassifier(n_states=2, max_iter=10, n_init=1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
        cold_alpha, cold_projection = clf.alpha_, clf.representation_.projection_
        clf.set_params(warm_start=True, max_iter=1).fit(X, y)
    assert clf.features_ == "shape" and cold_alpha > 0.1
    assert clf.alpha_ == cold_alpha
    np.testing.assert_array_equal(clf.representation_.projection_, cold_projection)


def test_the_choice_does_not_depend_on_the_order_of_the_rows():
    # rows repeated with other weights: sorted by a key that a matrix product
    # rounds by the row's position, their order (and the errors, to 1e-9)
    # followed the order they came in
    for seed in (1, 4, 7):
        rng = np.random.default_rng(seed)
        n, d = int(rng.integers(8, 40)), int(rng.integers(3, 20))
        X = rng.normal(size=(n, d))
        k = n // 2
        source = rng.integers(k, n, size=k)
        X[:k] = X[source]
        y = rng.integers(0, 2, size=n)
        y[:k] = y[source]
        weight = rng.integers(1, 4, size=n).astype(float)
        order = rng.permutation(n)
        alpha, errors = choose_alpha_classes(X, y, weight)
        alpha_p, errors_p = choose_alpha_classes(X[order], y[order], weight[order])
        assert alpha == alpha_p
        np.testing.assert_array_equal(errors, errors_p)


def test_no_penalty_reads_out_the_unpenalised_logistic_regression():
    """``alpha=0`` on the shape representation: the output networks' shared
    start is the unpenalised read-out (it divided by alpha: ZeroDivisionError),
    where the weighted log-likelihood's gradient vanishes."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)  # overlapping classes
    weight = rng.uniform(0.5, 2.0, size=60)
    coef, intercept = softmax_readout(X, y, weight, 0.0, 2)
    logits = X @ coef + intercept
    proba = np.exp(logits - logits.max(axis=1, keepdims=True))
    proba /= proba.sum(axis=1, keepdims=True)
    residual = weight[:, None] * (proba - np.eye(2)[y]) / weight.sum()
    # (at alpha=1 the same mean gradient is alpha * coef / weight.sum(), 0.015)
    assert np.abs(np.hstack([X, np.ones((60, 1))]).T @ residual).max() < 2e-4
    Xs = [rng.normal(loc=0.3 * label, size=(12, 1)).cumsum(axis=0) for label in y[:16]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = IOHMMClassifier(n_states=2, features="shape", alpha=0.0, max_iter=3,
                              random_state=0).fit(Xs, y[:16])
    assert clf.alpha_ == 0.0
    assert np.isfinite(clf.predict_proba(Xs)).all()
