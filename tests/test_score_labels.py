"""``score`` of the classifiers is scikit-learn's accuracy: labels of another
type than the classes (strings against numbers) are refused as
``sklearn.metrics.accuracy_score`` refuses them, and valid labels score as
before (the fraction of labelled steps, or sequences, predicted correctly)."""

import warnings

import numpy as np
import pytest
from conftest import ESTIMATORS
from sklearn.metrics import accuracy_score
from sklearn.utils.multiclass import unique_labels

MIX = "Mix of label input types"


def _fit(name, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning at a few iterations
        return ESTIMATORS[name](max_iter=2).fit(X, y)


def _data(seed=0, n=6):
    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(int(rng.integers(2, 6)), 2)) for _ in range(n)]
    steps = [rng.integers(0, 2, size=len(x)) for x in X]
    return rng, X, steps


@pytest.mark.parametrize("name, step_level", [
    ("clf", True), ("hier-clf", True), ("clf", False), ("hier-clf", False),
    ("rnn", False)])
def test_labels_of_another_type_are_refused_as_scikit_learn_does(name, step_level):
    _, X, steps = _data()
    ints = steps if step_level else np.arange(len(X)) % 2
    strs = ([np.array(["lo", "hi"])[s] for s in steps] if step_level
            else np.array(["lo", "hi"])[ints])
    # The reference: scikit-learn's check of the labels against the predictions
    # (its accuracy runs it from version 1.9; before, it scored them 0.0).
    with pytest.raises(ValueError, match=MIX):
        unique_labels(np.array(["lo", "hi"])[np.concatenate(steps)],
                      np.concatenate(steps))
    # strings against int classes: a bare "invalid literal for int()" before
    with pytest.raises(ValueError, match=MIX):
        _fit(name, X, ints).score(X, strs)
    # numbers against str classes: 0.0 (every step wrong) before
    with pytest.raises(ValueError, match=MIX):
        _fit(name, X, strs).score(X, ints)


@pytest.mark.parametrize("seed", range(4))
def test_step_score_is_the_accuracy_of_the_labelled_steps(seed):
    rng, X, steps = _data(seed)
    labels = np.array(["lo", "hi"], dtype=object)
    y = [np.where(rng.random(len(s)) < 0.3, None, labels[s]) for s in steps]
    y[0][0] = "lo"  # some step labelled in every case
    weight = rng.uniform(0.1, 3.0, size=len(X))
    model = _fit("clf", X, y)
    truth, pred, w = [], [], []
    for s, (labels_s, pred_s) in enumerate(zip(y, model.predict(X), strict=True)):
        known = np.array([v is not None for v in labels_s])
        truth.append(labels_s[known])
        pred.append(pred_s[known])
        w.append(np.full(known.sum(), weight[s]))
    truth, pred, w = map(np.concatenate, (truth, pred, w))
    expected = accuracy_score(truth, pred, sample_weight=w)
    assert model.score(X, y, sample_weight=weight) == expected
    # The formula used before, on valid labels.
    assert expected == accuracy_score(truth.astype(pred.dtype), pred,
                                      sample_weight=w)
    assert model.score(X, y) == accuracy_score(truth, pred)


@pytest.mark.parametrize("seed", range(3))
def test_sequence_score_is_unchanged_for_valid_labels(seed):
    rng, X, _ = _data(seed)
    y = rng.integers(0, 3, size=len(X))
    y[:3] = [0, 1, 2]
    weight = rng.uniform(0.1, 3.0, size=len(X))
    model = _fit("rnn", X, y)
    pred = model.predict(X)
    # The formula used before: the weighted mean of the correct predictions.
    before = float(np.average(y == pred, weights=weight))
    assert model.score(X, y, sample_weight=weight) == before
    assert model.score(X, y) == accuracy_score(y, pred)
