"""HybridHMMClassifier and the step-level classifiers on edge inputs: the dtype
of the labels they return, against scikit-learn's."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from skseq import HierarchicalIOHMM, HybridHMMClassifier, IOHMMClassifier


def _levels(labels, n_seq=4, seed=0):
    """Sequences of three noisy level segments labelled ``labels``."""
    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(12, 1)) + np.repeat([0, 3, 0], 4)[:, None]
         for _ in range(n_seq)]
    y = [np.repeat(np.asarray(labels), 4) for _ in range(n_seq)]
    return X, y


@pytest.mark.parametrize("labels", [["lo", "high", "lo"], [0, 5, 0],
                                    [False, True, False], [0.0, 2.0, 0.0]])
def test_hybrid_returns_labels_of_the_dtype_scikit_learn_gives(labels):
    X, y = _levels(labels)
    # the reference: a scikit-learn classifier on the same step labels
    expected = LogisticRegression().fit(np.vstack(X), np.concatenate(y))
    model = HybridHMMClassifier(LogisticRegression(), window=2, features="lags",
                                n_states_per_label=1).fit(X, y)
    assert model.classes_.dtype == expected.classes_.dtype
    for algorithm in ("filter", "smooth", "viterbi"):
        for predicted in model.predict(X, algorithm=algorithm):
            assert predicted.dtype == expected.predict(X[0]).dtype
    by_sequence = model.fit(X, [labels[0], labels[1]] * 2).predict(X)
    assert by_sequence.dtype == model.classes_.dtype == expected.classes_.dtype


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("make", [
    lambda: IOHMMClassifier(n_states=2, max_iter=2, random_state=0),
    lambda: HierarchicalIOHMM(max_iter=2, random_state=0)])
def test_step_level_string_labels_keep_their_dtype(make):
    X, y = _levels(["lo", "high", "lo"])
    model = make().fit(X, y)
    assert model.classes_.dtype == np.dtype("<U4")
    assert model.predict(X)[0].dtype == np.dtype("<U4")
