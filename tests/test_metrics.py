"""step_scorer: scikit-learn's scorers on step-level targets, one sample per
labelled step, checked against the metrics computed by hand on the
concatenated steps."""

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.metrics import (
    accuracy_score,
    f1_score,
    log_loss,
    mean_squared_error,
    r2_score,
    roc_auc_score,
)
from sklearn.model_selection import KFold, cross_val_score, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from skseq import IOHMMClassifier, IOHMMRegressor
from skseq.metrics import step_scorer
from skseq.preprocessing import ForwardFill, Stepwise

pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning")


def _data(equal=False):
    rng = np.random.RandomState(0)
    X = [rng.randn(5 if equal else rng.randint(4, 9), 2) for _ in range(9)]
    return X, [(x[:, 0] > 0).astype(int) for x in X]


def _clf():
    return IOHMMClassifier(n_states=2, max_iter=3, random_state=0)


@pytest.fixture(scope="module")
def fitted():
    X, y = _data()
    y[1] = np.where(np.arange(y[1].shape[0]) == 0, None, y[1]).astype(object)
    return _clf().fit(X, y), X, y


def _labelled(y, per_step):
    """The labelled steps' targets and per-step outputs, concatenated."""
    keep = np.array([v is not None for v in np.concatenate(y)])
    return (np.concatenate(y)[keep].astype(int),
            np.concatenate(per_step)[keep], keep)


@pytest.mark.parametrize("name", ["accuracy", "f1_macro", "neg_log_loss",
                                  "roc_auc_ovr", "roc_auc"])
def test_scores_the_labelled_steps_as_samples(fitted, name):
    model, X, y = fitted
    sw = np.linspace(0.5, 2.0, len(X))
    true, proba, keep = _labelled(y, model.predict_proba(X))
    pred = proba.argmax(axis=1)
    w = np.repeat(sw, [x.shape[0] for x in X])[keep]
    expected = {
        "accuracy": accuracy_score(true, pred, sample_weight=w),
        "f1_macro": f1_score(true, pred, average="macro", sample_weight=w),
        "neg_log_loss": -log_loss(true, proba, sample_weight=w),
        "roc_auc_ovr": roc_auc_score(true, proba[:, 1], sample_weight=w),
        "roc_auc": roc_auc_score(true, proba[:, 1], sample_weight=w),
    }[name]
    got = step_scorer(name)(model, X, y, sample_weight=sw)
    assert got == pytest.approx(expected, rel=1e-12)


def test_cross_val_score_on_equal_lengths_scores_steps():
    # Equal lengths are where the plain "accuracy" reads each fold as a table
    # of one row per sequence (the fraction of sequences right at every step).
    X, y = _data(equal=True)
    cv = KFold(3, shuffle=True, random_state=0)
    expected = []
    for train, test in cv.split(X):
        model = _clf().fit([X[i] for i in train], [y[i] for i in train])
        pred = model.predict([X[i] for i in test])
        expected.append(accuracy_score(np.concatenate([y[i] for i in test]),
                                       np.concatenate(pred)))
    got = cross_val_score(_clf(), X, y, cv=cv, scoring=step_scorer("accuracy"))
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_regression_steps_r2_and_mse():
    X, _ = _data()
    y = [np.cumsum(x[:, 0]) for x in X]
    model = IOHMMRegressor(n_states=2, max_iter=3, random_state=0).fit(X, y)
    true, pred = np.concatenate(y), np.concatenate(model.predict(X))
    assert step_scorer("r2")(model, X, y) == pytest.approx(r2_score(true, pred))
    assert step_scorer("neg_mean_squared_error")(model, X, y) == pytest.approx(
        -mean_squared_error(true, pred))


def test_sequence_level_targets_are_scored_as_the_scorer_does():
    X, y = _data()
    labels = np.array([int(x[:, 0].mean() > 0) for x in X])
    model = _clf().fit(X, labels)
    assert step_scorer("accuracy")(model, X, labels) == accuracy_score(
        labels, model.predict(X))


def test_a_model_fitted_on_sequence_labels_is_refused_by_name():
    X, y = _data()
    model = _clf().fit(X, np.array([int(x[0, 0] > 0) for x in X]))
    with pytest.raises(ValueError, match="fitted on step-level targets"):
        step_scorer("accuracy")(model, X, y)


def test_sample_weight_routed_to_the_scorer():
    X, y = _data()
    sw = np.linspace(0.5, 2.0, len(X))
    cv = KFold(3)
    scorer = step_scorer("accuracy")
    with sklearn.config_context(enable_metadata_routing=True):
        got = cross_validate(
            clone(_clf()).set_fit_request(sample_weight=False), X, y, cv=cv,
            scoring=scorer.set_score_request(sample_weight=True),
            params={"sample_weight": sw})["test_score"]
    expected = []
    for train, test in cv.split(X):
        model = _clf().fit([X[i] for i in train], [y[i] for i in train])
        w = np.repeat(sw[test], [X[i].shape[0] for i in test])
        expected.append(accuracy_score(
            np.concatenate([y[i] for i in test]),
            np.concatenate(model.predict([X[i] for i in test])), sample_weight=w))
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_no_metric_is_refused_by_name():
    # check_scoring read None as "the estimator's score" and blamed the
    # estimator: "The estimator None does not [have a score method]"
    with pytest.raises(TypeError, match="step_scorer needs a metric.*got None"):
        step_scorer(None)


def test_a_list_of_metrics_gives_each_on_the_labelled_steps(fitted):
    model, X, y = fitted
    t, p, _ = _labelled(y, model.predict(X))
    assert step_scorer(["accuracy", "f1_macro"])(model, X, y) == pytest.approx(
        {"accuracy": accuracy_score(t, p), "f1_macro": f1_score(t, p, average="macro")})


@pytest.mark.filterwarnings("ignore::skseq._data.checks.InputHintWarning")
@pytest.mark.parametrize("form", ["padded", "rows"])
def test_two_outputs_of_one_step_sequences_are_scored_per_step(form):
    # predict gives them padded, (n, 1, 2): it was passed on unpacked as if
    # one row per step, and the metric refused an array "with dim 3"
    X, _ = _data()
    model = IOHMMRegressor(n_states=2, max_iter=3, random_state=0).fit(
        X, [x[:, ::-1] for x in X])
    rows = np.random.RandomState(1).randn(5, 2)
    X1 = rows[:, None, :] if form == "padded" else rows
    y1 = [r[None, ::-1] for r in rows]
    pred = np.concatenate([np.asarray(p).reshape(-1, 2) for p in model.predict(X1)])
    assert step_scorer("r2")(model, X1, y1) == pytest.approx(
        r2_score(np.concatenate(y1), pred))


def test_the_raw_steps_are_the_pipelines_to_read():
    """X with missing steps or symbols, for a pipeline that fills or encodes
    them: the scorer refused X itself (the search scored every fold NaN)."""
    X, y = _data()
    X[0][1, 0], X[2][0, 1] = np.nan, np.nan
    symbols = [np.where(x > 0, "up", "down").astype(object) for x in X]
    for first, X_raw in ((ForwardFill(), X), (Stepwise(OneHotEncoder()), symbols)):
        model = make_pipeline(first, _clf()).fit(X_raw, y)
        expected = f1_score(np.concatenate(y), np.concatenate(model.predict(X_raw)),
                            average="macro")
        assert step_scorer("f1_macro")(model, X_raw, y) == pytest.approx(expected)
        scores = cross_val_score(make_pipeline(first, _clf()), X_raw, y,
                                 cv=KFold(3), scoring=step_scorer("accuracy"),
                                 error_score="raise")
        assert np.isfinite(scores).all()
