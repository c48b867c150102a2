"""A sequence of sample_weight 0 changes nothing in a fit: the fitted model
equals, to the last bit, the one fitted on the data without it (the same
restarts, iterations, stopping and parameters), also where the fit is stopped
by max_iter."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.base import clone

from skseq import HierarchicalIOHMM, IOHMMClassifier, IOHMMRegressor
from skseq.representations import ShapeFeatures

pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning")

_FITTED = ("startprob_", "transition_coef_", "transition_intercept_",
           "emission_coef_", "emission_intercept_", "emission_covariance_",
           "n_iter_", "converged_", "objective_", "loss_curve_", "n_init_",
           "init_objectives_", "features_", "log_likelihood_")


def _series(rng, lengths, binary=False):
    draw = ((lambda n: rng.choice([-1.0, 1.0], size=(n, 2))) if binary
            else (lambda n: rng.normal(size=(n, 2))))
    return [draw(int(n)) for n in lengths]


def _flat(value):
    """Arrays of a list (e.g. per level, per sequence) joined into one."""
    if isinstance(value, list | tuple) and value and np.ndim(value[0]):
        return np.concatenate([np.ravel(v) for v in value])
    return np.asarray(value)


def _assert_same_fit(with_zeros, without, X):
    for name in _FITTED:
        if hasattr(without, name):
            assert_array_equal(_flat(getattr(with_zeros, name)),
                               _flat(getattr(without, name)), err_msg=name)
    method = "predict_proba" if hasattr(without, "predict_proba") else "predict"
    assert_array_equal(_flat(getattr(with_zeros, method)(X)),
                       _flat(getattr(without, method)(X)))


def _fit_both(est, X, y, X0, y0, at=1):
    """``est`` fitted on (X, y), and a clone fitted with (X0, y0) of weight 0
    inserted before sequence ``at``."""
    Xz = X[:at] + X0 + X[at:]
    yz = (y[:at] + y0 + y[at:] if isinstance(y, list)
          else np.concatenate([y[:at], y0, y[at:]]))
    w = np.ones(len(Xz))
    w[at:at + len(X0)] = 0.0
    return clone(est).fit(Xz, yz, sample_weight=w), clone(est).fit(X, y)


@pytest.mark.parametrize("solver", ["lbfgs", "em"])
def test_regressor_stopped_by_max_iter(solver):
    """Step-level targets; the sequences of weight 0 are longer and on another
    scale, so that their rounding, if read, shows (EM summed them as zeros)."""
    rng = np.random.default_rng(0)
    X = _series(rng, rng.integers(5, 12, size=8))
    y = [np.where(x[:, 0] > 0, 2 * x[:, 0], -x[:, 1]) for x in X]
    X0 = [5 * x for x in _series(rng, [15, 9, 20])]
    y0 = [10 * rng.normal(size=len(x)) for x in X0]
    est = IOHMMRegressor(2, n_init=2, max_iter=30, solver=solver, random_state=0)
    with_zeros, without = _fit_both(est, X, y, X0, y0)
    assert without.n_iter_ == 30
    _assert_same_fit(with_zeros, without, X)


def test_regressor_auto_restarts_count_weighted_steps():
    """n_init="auto" sets the restarts by the number of steps: those of the
    weighted sequences only (2,100 steps: 47 restarts; with the 1,500 of
    weight 0 they were counted, 27)."""
    rng = np.random.default_rng(1)
    X = _series(rng, [700, 700, 700])
    y = [x[:, 0] - x[:, 1] for x in X]
    X0 = _series(rng, [1500])
    est = IOHMMRegressor(2, max_iter=2, random_state=0)
    with_zeros, without = _fit_both(est, X, y, X0, [X0[0][:, 0]])
    assert without.n_init_ == 100_000 // 2100
    _assert_same_fit(with_zeros, without, X)


def test_auto_features_read_weighted_sequences_only():
    """features="auto" reads symbols (+-1 codes) as raw steps; a real-valued
    sequence of weight 0 made it choose the shape representation."""
    rng = np.random.default_rng(2)
    X = _series(rng, [6, 7, 5, 8, 6, 7], binary=True)
    y = np.array([x[:, 0].sum() for x in X])
    X0 = _series(rng, [6])
    est = IOHMMRegressor(2, features="auto", n_init=1, max_iter=5,
                         random_state=0)
    with_zeros, without = _fit_both(est, X, y, X0, np.array([3.0]))
    assert without.features_ == "raw"
    _assert_same_fit(with_zeros, without, X)


@pytest.mark.parametrize("solver", ["lbfgs", "em"])
def test_classifier_stopped_by_max_iter(solver):
    """Every class has weighted sequences (a class seen only in sequences of
    weight 0 is still one of ``classes_``, as in scikit-learn, so that fit
    has one more output than the fit without them)."""
    rng = np.random.default_rng(3)
    X = _series(rng, rng.integers(3, 7, size=12))
    y = np.array([int(x[:, 0].sum() > 0) for x in X])
    X0 = [3 * x for x in _series(rng, [9, 4, 11])]
    est = IOHMMClassifier(2, n_init=2, max_iter=15, solver=solver,
                          random_state=0)
    with_zeros, without = _fit_both(est, X, y, X0, np.array([1, 0, 1]), at=5)
    _assert_same_fit(with_zeros, without, X)


def test_hierarchical_stopped_by_max_iter():
    rng = np.random.default_rng(4)
    X = _series(rng, rng.integers(4, 8, size=8))
    y = [x[:, 0] + x[:, 1] for x in X]
    X0 = [4 * x for x in _series(rng, [10, 13])]
    y0 = [rng.normal(size=len(x)) for x in X0]
    est = HierarchicalIOHMM((2, 2), features="raw", task="regression",
                            n_init=1, max_iter=6, solver="em", random_state=0)
    with_zeros, without = _fit_both(est, X, y, X0, y0, at=3)
    _assert_same_fit(with_zeros, without, X)


def test_prefix_fit_with_integer_weights_leaves_the_sequence_out():
    """``n_prefixes`` with ``alpha="auto"``: the prefixes of one sequence are
    left out together, each group standing for as many copies as its integer
    weight; a sequence of weight 0 before others of different weights must
    not shift the other groups' copies (the fit equals that without it)."""
    rng = np.random.default_rng(5)
    X = [np.cumsum(rng.normal(size=(n, 1)), axis=0)
         for n in rng.integers(12, 18, size=14)]
    y = np.array([int(x[-1, 0] > 0) for x in X])
    weight = np.tile([1.0, 3.0], 7)
    X0 = [rng.normal(size=(15, 1))]
    Xz, yz = X0 + X, np.concatenate([[1], y])
    est = IOHMMClassifier(2, n_prefixes=2, n_init=1, max_iter=5,
                          features=ShapeFeatures(n_indicators=168, n_components=8),
                          random_state=0)
    with_zero = clone(est).fit(Xz, yz, sample_weight=np.concatenate([[0.0], weight]))
    without = clone(est).fit(X, y, sample_weight=weight)
    assert with_zero.alpha_ == without.alpha_
    _assert_same_fit(with_zero, without, X)


# -- a class of class_weight 0 ---------------------------------------------------
def _class_one_zero(est, X, y, zero):
    """``est`` fitted with class 1 weighed 0 by ``class_weight``, and fitted
    with ``sample_weight`` 0 on the sequences ``zero`` instead."""
    by_class = clone(est).set_params(class_weight={1: 0.0}).fit(X, y)
    by_sample = clone(est).fit(X, y, sample_weight=np.where(zero, 0.0, 1.0))
    return by_class, by_sample


def _three_classes(rng, n, lengths, scale=1.0):
    """``n`` real-valued series of 3 classes (1 in every third) whose class
    shows in their drift; class 1's ``lengths`` steps long and ``scale``
    times larger, so that reading them, or their rounding, shows."""
    y = np.arange(n) % 3
    X = [np.cumsum(rng.normal(size=(int(rng.integers(6, 10)), 2)), axis=0)
         + 0.5 * c * np.arange(1, 3) for c in y]
    for i in np.flatnonzero(y == 1):
        X[i] = scale * np.cumsum(rng.normal(size=(lengths, 2)), axis=0)
    return X, y


@pytest.mark.parametrize("case", ["default", "raw", "prefixes"])
def test_class_weight_zero_is_sample_weight_zero(case):
    """class_weight={1: 0} fits as sample_weight 0 on the sequences of class
    1, bit for bit: they are left out before anything reads them. Before,
    the shape representation, alpha="auto" and the read-out met them (the
    default), n_init="auto" counted their steps (raw: the 2,400 steps
    of class 1 gave 40 restarts, not 50) and the sums added their zeros."""
    rng = np.random.default_rng(6)
    X, y = _three_classes(rng, 12, 600 if case == "raw" else 12, scale=4.0)
    est = {"default": IOHMMClassifier(2, max_iter=3, random_state=0),
           "raw": IOHMMClassifier(2, features="raw", max_iter=1, random_state=0),
           "prefixes": IOHMMClassifier(2, n_prefixes=2, max_iter=3,
                                       features=ShapeFeatures(n_indicators=84),
                                       random_state=0)}[case]
    by_class, by_sample = _class_one_zero(est, X, y, y == 1)
    assert by_sample.features_ == ("raw" if case == "raw" else "shape")
    if case == "raw":
        assert by_sample.n_init_ == 50
    assert by_class.alpha_ == by_sample.alpha_
    assert_array_equal(by_class.classes_, [0, 1, 2])
    _assert_same_fit(by_class, by_sample, X)


def test_class_weight_zero_with_auto_features():
    """features="auto" reads +-1 codes as raw steps: the real-valued
    sequences of a class of weight 0 made it choose the shape
    representation."""
    rng = np.random.default_rng(7)
    X = [rng.choice([-1.0, 1.0], size=(int(n), 2))
         for n in rng.integers(5, 9, size=9)]
    y = np.arange(9) % 3
    for i in np.flatnonzero(y == 1):
        X[i] = rng.normal(size=(7, 2))
    est = IOHMMClassifier(2, n_init=1, max_iter=3, random_state=0)
    by_class, by_sample = _class_one_zero(est, X, y, y == 1)
    assert by_sample.features_ == "raw"
    _assert_same_fit(by_class, by_sample, X)


def test_step_level_class_weight_zero_leaves_out_only_all_zero_sequences():
    """Step-level labels: a sequence whose labels are all of a class of
    weight 0 is left out as one of sample_weight 0; one that holds other
    labels stays, its steps of that class weighed 0. n_init="auto" counts
    the steps read: 2,129 (46 restarts; with the 407 of the sequences all of
    class 1, 2,536: 39; without the long mixed one, 50)."""
    rng = np.random.default_rng(8)
    X = [rng.normal(size=(int(n), 2)) for n in (6, 7, 5, 8, 400, 2100, 10)]
    y = [(x[:, 0] > 0).astype(int) for x in X]
    y[1][:] = 1  # all class 1, short
    y[4][:] = 1  # all class 1, long
    est = IOHMMClassifier(2, features="raw", class_weight={0: 2.0, 1: 0.0},
                          max_iter=1, random_state=0)
    all_one = np.array([np.all(t == 1) for t in y])
    by_class = clone(est).fit(X, y)
    by_sample = clone(est).fit(X, y, sample_weight=np.where(all_one, 0.0, 1.0))
    assert by_sample.n_init_ == 100_000 // 2129
    _assert_same_fit(by_class, by_sample, X)


def test_one_class_of_positive_weight():
    """The only class of positive weight: alpha="auto" is the raw inputs'
    prior (its read-out is certain, of curvature 0) and the output networks
    start from no shared read-out, which needs two classes (scikit-learn's
    LogisticRegression refused the one class)."""
    rng = np.random.default_rng(10)
    X = [np.cumsum(rng.normal(size=(10, 2)), axis=0) for _ in range(8)]
    y = np.arange(8) % 2
    est = IOHMMClassifier(2, max_iter=3, random_state=0)
    by_class, by_sample = _class_one_zero(est, X, 1 - y, y == 0)
    assert by_sample.features_ == "shape" and by_sample.alpha_ == 0.01
    _assert_same_fit(by_class, by_sample, X)
    assert np.all(by_class.predict(X) == 0)


@pytest.mark.parametrize("n_prefixes", [1, 2])
def test_every_sequence_of_weight_zero_is_refused(n_prefixes):
    """Class weights 0 on the classes that sample_weight leaves: no sequence
    weighs anything; refused, and the fitted model is left as it was."""
    rng = np.random.default_rng(9)
    X, y = _three_classes(rng, 9, 8)
    est = IOHMMClassifier(2, features="raw", n_init=1, max_iter=2,
                          n_prefixes=n_prefixes, random_state=0).fit(X, y)
    before = est.emission_coef_.copy()
    est.set_params(class_weight={0: 0, 2: 0.0})
    with pytest.raises(ValueError, match="gives every labelled sequence or "
                       "step weight 0; at least one class needs a positive"):
        est.fit(X, y, sample_weight=(y != 1).astype(float))
    assert_array_equal(est.emission_coef_, before)


# -- step-level labels: sequences without a label ----------------------------
def _symbols_with_unlabelled(rng, task):
    """+-1 codes labelled at every step, and a real-valued, longer sequence
    none of whose steps is labelled: read, it made features="auto" choose
    another representation and n_init="auto" count its steps."""
    X = [rng.choice([-1.0, 1.0], size=(int(n), 2))
         for n in rng.integers(5, 9, size=8)]
    y = [(x[:, 0] > 0).astype(float) for x in X]
    if task == "regression":
        y = [t + x[:, 1] for t, x in zip(y, X, strict=True)]
    return X, y, [3 * rng.normal(size=(9, 2))], [np.full(9, np.nan)]


@pytest.mark.parametrize("case", ["classifier", "regressor", "hierarchical"])
def test_unlabelled_sequence_is_left_out(case):
    """A sequence none of whose steps is labelled adds nothing to the
    weighted log-likelihood: the fit is that of the data without it, bit for
    bit, as with sample_weight 0. Before, the classifier's features="auto"
    chose "window" (not "raw") and n_init="auto" 1 restart (not 50); the
    total weight W held it."""
    rng = np.random.default_rng(11)
    task = "classification" if case == "classifier" else "regression"
    X, y, X0, y0 = _symbols_with_unlabelled(rng, task)
    est = {"classifier": IOHMMClassifier(2, max_iter=3, random_state=0),
           "regressor": IOHMMRegressor(2, max_iter=3, random_state=0),
           "hierarchical": HierarchicalIOHMM((2, 2), task="regression", n_init=1,
                                             max_iter=3, random_state=0)}[case]
    with_it = clone(est).fit(X[:3] + X0 + X[3:], y[:3] + y0 + y[3:])
    without = clone(est).fit(X, y)
    if case == "classifier":
        assert without.features_ == "raw" and without.n_init_ == 50
    _assert_same_fit(with_it, without, X)


def test_steps_of_a_class_of_weight_zero_weigh_nothing():
    """In a sequence that stays (it holds labels of other classes), the steps
    of a class of weight 0 are not in the objective: with alpha=0, objective_
    is minus the weighted mean over the sequences kept of log P(labels of the
    other classes | u), score_samples with those steps unlabelled (a sequence
    all of class 1, sequence 2, is left out)."""
    rng = np.random.default_rng(12)
    X = [rng.normal(size=(int(n), 2)) for n in rng.integers(5, 9, size=8)]
    y = [np.digitize(x[:, 0], [-0.5, 0.5]).astype(object) for x in X]
    y[2][:] = 1
    weight = np.linspace(0.5, 2.0, 8)
    clf = IOHMMClassifier(2, features="raw", alpha=0.0, n_init=1, max_iter=5,
                          class_weight={1: 0.0}, random_state=0)
    clf.fit(X, y, sample_weight=weight)
    kept = [0, 1, 3, 4, 5, 6, 7]
    assert sum(np.any(y[i] == 1) and np.any(y[i] != 1) for i in kept) >= 5
    loglik = clf.score_samples([X[i] for i in kept],
                               [np.where(y[i] == 1, None, y[i]) for i in kept])
    expected = -np.sum(weight[kept] * loglik) / weight[kept].sum()
    assert np.isclose(clf.objective_, expected, rtol=1e-12, atol=0)
