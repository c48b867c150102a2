"""The shape representation on tables of one-step rows, against direct
NumPy and scikit-learn computations."""

import numpy as np
from sklearn.datasets import make_blobs
from sklearn.metrics import r2_score

from skseq import IOHMMClassifier, IOHMMRegressor
from skseq._data.checks import check_sequences
from skseq.representations import ShapeFeatures


def test_one_step_rows_are_seen_as_their_whitened_principal_components():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((40, 3)) @ np.array([[2.0, 0, 0], [1, 1, 0], [0, 0, 1e-3]])
    X[:, 2] += 5.0
    rep = ShapeFeatures().fit(check_sequences(X), rng=0)
    Z = rep.inputs(check_sequences(X), np.arange(40))[1]
    # whitened: mean 0, identity covariance (population), one component per
    # direction the rows span, less the third, whose variance is under 1e-4
    # of the first's (whitening would blow its rounding up)
    assert Z.shape[1] == 2
    np.testing.assert_allclose(Z.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(Z.T @ Z / 40, np.eye(2), atol=1e-10)
    # an affine map of the inputs: least squares reproduces every feature
    A = np.column_stack([X, np.ones(40)])
    coef = np.linalg.lstsq(A, Z, rcond=None)[0]
    np.testing.assert_allclose(A @ coef, Z, atol=1e-8)
    # the state networks see them all
    assert rep.n_state_features == rep.n_output_features == 2


def test_three_state_regressor_fits_a_table_of_one_step_rows():
    # A mixture of three regressions on 60 rows of a linear target (the
    # indicators of amplitude levels let the states' variances collapse onto
    # subsets of the rows: training R^2 near 0).
    rng = np.random.RandomState(0)
    X = rng.standard_normal((60, 4))
    y = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.1 * rng.standard_normal(60)
    model = IOHMMRegressor(3, features="shape", alpha=0.01, random_state=0).fit(X, y)
    assert r2_score(y, model.predict(X)) > 0.9


def test_a_heavily_weighted_class_wins_on_one_step_rows():
    # scikit-learn's class-weight check at a smaller size: class 0 weighted
    # 10^7 times the others should take nearly every point.
    X, y = make_blobs(60, centers=3, random_state=0, cluster_std=20)
    model = IOHMMClassifier(features="shape", n_states=1, random_state=0,
                            class_weight={0: 1000, 1: 1e-4, 2: 1e-4}).fit(X, y)
    assert np.mean(model.predict(X) == 0) > 0.87
