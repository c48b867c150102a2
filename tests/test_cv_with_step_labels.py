"""What scikit-learn's cross-validation does with skseq's targets, as the data
model guide says: step-level labels get no stratified split."""

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold, check_cv


def _step_level(n):
    rng = np.random.RandomState(0)
    return [rng.randint(0, 2, size=rng.randint(3, 7)) for _ in range(n)]


def test_an_integer_cv_with_step_level_labels_is_kfold_without_shuffling():
    y = _step_level(10)
    cv = check_cv(5, y, classifier=True)
    assert type(cv) is KFold and not cv.shuffle
    # folds of consecutive sequences, in the order of X
    X = np.zeros((10, 1))
    assert [test.tolist() for _, test in cv.split(X, y)] == [
        [0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]


def test_an_integer_cv_with_sequence_labels_is_stratified():
    y = np.arange(10) % 2
    assert type(check_cv(5, y, classifier=True)) is StratifiedKFold
