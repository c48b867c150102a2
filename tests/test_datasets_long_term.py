"""The long-term dependency generators: make_two_sequence and make_parity."""

import numpy as np
import pytest

from skseq.datasets import make_parity, make_two_sequence


def _class_patterns(X, y, n_informative):
    """Per-class first steps, stacked: {class: (n_k, n_informative)}."""
    return {k: np.array([x[:n_informative, 0]
                         for x, c in zip(X, y, strict=True) if c == k])
            for k in (0, 1)}


@pytest.mark.parametrize("max_length", [3, 4, 5, 6, 7, 10, 100])
def test_two_sequence_default_lengths(max_length):
    # Lengths in [max(3, T // 2), T] (the paper: between T/2 and T), never
    # shorter than the informative prefix; T = 5 used to raise.
    X, y = make_two_sequence(400, max_length=max_length, random_state=0)
    lengths = np.array([len(x) for x in X])
    low = max(3, max_length // 2)
    assert lengths.min() == low
    assert lengths.max() == max_length
    assert all(x.shape == (len(x), 1) for x in X)
    assert set(np.unique(y)) == {0, 1}


def test_two_sequence_structure():
    # The informative steps lie within `noise` of one pattern per class, the two
    # patterns differ, and later steps fill [-1, 1].
    noise = 0.1
    X, y = make_two_sequence(300, max_length=40, noise=noise, random_state=1)
    first = _class_patterns(X, y, 3)
    centres = {k: (v.max(axis=0) + v.min(axis=0)) / 2 for k, v in first.items()}
    for k, v in first.items():
        assert np.all(np.abs(v - centres[k]) <= noise + 1e-12)
        assert np.all(np.abs(centres[k]) <= 1 + noise)
    assert not np.allclose(centres[0], centres[1])
    rest = np.concatenate([x[3:, 0] for x in X])
    assert rest.min() >= -1 and rest.max() <= 1
    assert rest.min() < -0.95 and rest.max() > 0.95


def test_two_sequence_given_prototypes():
    proto = np.array([[0.5, -0.5, 0.25], [-0.75, 0.0, 1.0]])
    X, y = make_two_sequence(50, max_length=8, noise=0.0, prototypes=proto,
                             random_state=0)
    for x, label in zip(X, y, strict=True):
        np.testing.assert_array_equal(x[:3, 0], proto[label])


def test_two_sequence_shared_task_across_calls():
    # An int `prototypes` fixes the task independently of random_state: a test
    # set from a second call has the training set's class patterns.
    kw = dict(max_length=12, noise=0.05, prototypes=11)
    X1, y1 = make_two_sequence(100, random_state=0, **kw)
    X2, y2 = make_two_sequence(100, random_state=1, **kw)
    p1, p2 = _class_patterns(X1, y1, 3), _class_patterns(X2, y2, 3)
    for k in (0, 1):
        assert np.abs(p1[k].mean(axis=0) - p2[k].mean(axis=0)).max() < 2 * 0.05
    # ... but the samples themselves differ.
    assert not np.array_equal(X1[0], X2[0])
    # Without it, two seeds pose two different tasks (the documented default).
    X3, y3 = make_two_sequence(100, max_length=12, noise=0.05, random_state=1)
    p3 = _class_patterns(X3, y3, 3)
    assert np.abs(p1[0].mean(axis=0) - p3[0].mean(axis=0)).max() > 2 * 0.05


def test_two_sequence_deterministic():
    a = make_two_sequence(20, max_length=15, random_state=3)
    b = make_two_sequence(20, max_length=15, random_state=3)
    np.testing.assert_array_equal(a[1], b[1])
    for xa, xb in zip(a[0], b[0], strict=True):
        np.testing.assert_array_equal(xa, xb)


@pytest.mark.parametrize("kwargs, match", [
    ({"max_length": 2}, "max_length must be an integer >= 3"),
    ({"max_length": 10, "min_length": 2}, "min_length must be an integer >= 3"),
    ({"max_length": 10, "min_length": 11}, "min_length"),
    ({"n_informative": 0}, "n_informative"),
    ({"noise": -0.1}, "noise"),
    # NaN and inf reached numpy's uniform (an OverflowError there)
    ({"noise": np.nan}, "noise must be a finite number >= 0, got nan"),
    ({"noise": np.inf}, "noise must be a finite number >= 0, got inf"),
    ({"prototypes": np.zeros((2, 2))}, "prototypes"),
    ({"prototypes": [[0.0, np.nan, 0.0], [0.0, 0.0, 0.0]]}, "finite"),
])
def test_two_sequence_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_two_sequence(5, **kwargs)


def test_parity_labels_and_lengths():
    X, y = make_parity(200, max_length=9, random_state=0)
    lengths = np.array([len(x) for x in X])
    assert lengths.min() == 4 and lengths.max() == 9
    for x, label in zip(X, y, strict=True):
        assert set(np.unique(x)) <= {-1.0, 1.0}
        ones = sum(1 for v in x[:, 0] if v > 0)
        assert label == ones % 2
