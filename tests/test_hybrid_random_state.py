"""HybridHMMClassifier's random_state seeds the random estimators inside the
per-step classifier it is given (a pipeline's steps, a calibrated
classifier's base): only the classifier's own ``random_state`` was set, so
that with ``random_state=0`` every fit of such a classifier differed."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.calibration import CalibratedClassifierCV
from sklearn.ensemble import RandomForestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skseq import HybridHMMClassifier


def _sessions():
    rng = np.random.default_rng(0)
    means = np.repeat([0.0, 1.0, 0.0, 1.0], 15)
    X = [(means + rng.normal(size=60))[:, None] for _ in range(4)]
    y = [np.repeat(["low", "high", "low", "high"], 15) for _ in range(4)]
    return X, y


def _fit(estimator, X, y):
    model = HybridHMMClassifier(estimator, window=8, features="lags",
                                random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(X, y)


@pytest.mark.parametrize("make", [
    lambda forest: make_pipeline(StandardScaler(), forest),
    lambda forest: CalibratedClassifierCV(forest, cv=2),
])
def test_nested_random_estimators_are_seeded(make):
    X, y = _sessions()
    first, second = (_fit(make(RandomForestClassifier(n_estimators=3)), X, y)
                     for _ in range(2))
    for a, b in zip(first.predict_proba(X), second.predict_proba(X), strict=True):
        assert_array_equal(a, b)


def test_a_nested_random_state_fixed_to_an_int_is_kept():
    X, y = _sessions()
    forest = RandomForestClassifier(n_estimators=3, random_state=7)
    model = _fit(make_pipeline(StandardScaler(), forest), X, y)
    assert model.estimator_.get_params()["randomforestclassifier__random_state"] == 7
    assert forest.random_state == 7  # the given estimator is not modified
