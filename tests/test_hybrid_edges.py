"""HybridHMMClassifier and the step-level classifiers on edge inputs: the dtype
of the labels they return, against scikit-learn's; a label of prior 0; a
likelihood scale that sets the steps' likelihoods thousands of nats apart;
what plot_step_labels refuses."""

import itertools
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.multiclass import unique_labels

from skseq import HierarchicalIOHMM, HybridHMMClassifier, IOHMMClassifier
from skseq._data import check_sequences
from skseq._data.window import window_lags


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
    model = HybridHMMClassifier(GaussianNB(), window=2, features="lags",
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


def test_phase_targets_of_a_label_of_prior_zero_have_finite_likelihoods():
    # the only sequence of label "z" weighs the smallest subnormal: the
    # label's prior underflows to 0 and its (label, part) targets count as
    # never seen, so its states take the label's likelihood, whose prior is
    # floored at 1e-6 as every target's is (its logarithm was -inf: NaN)
    X, y = _levels(["lo", "high", "lo"])
    y[0] = np.full(12, "z")
    model = HybridHMMClassifier(DecisionTreeClassifier(max_depth=3), window=2,
                                features="lags", n_states_per_label=2,
                                phase_targets=True).fit(
        X, y, sample_weight=[5e-324, 1, 1, 1])
    assert list(model.classes_) == ["high", "lo", "z"]
    assert model.class_prior_[2] == 0
    features = window_lags(check_sequences(X[:2]), 2)
    posterior = np.zeros((features.shape[0], 6))
    posterior[:, model.estimator_.classes_] = model.estimator_.predict_proba(features)
    floored = np.maximum(posterior, 1e-6)
    expected = np.log(floored) - np.log(np.maximum(model.target_prior_, 1e-6))
    label_z = np.maximum(posterior[:, 4:].sum(axis=1), 1e-6)
    expected[:, 4:] = (np.log(label_z) - np.log(1e-6))[:, None]
    assert_allclose(model._log_emissions(check_sequences(X[:2])), 0.5 * expected)
    assert all(np.isfinite(p).all() for p in model.predict_proba(X, smoothed=True))


@pytest.mark.parametrize("phase_targets", [False, True])
def test_no_transitions_weighs_each_targets_posterior_against_its_prior(
        phase_targets):
    # at a scale s below 1 every target's probability is prior ** (1 - s) *
    # posterior ** s (the posterior floored at 1e-6), normalised; a label's
    # is the sum over its targets
    X, y = _levels(["lo", "high", "lo"])
    model = HybridHMMClassifier(GaussianNB(), window=2, features="lags",
                                n_states_per_label=2, phase_targets=phase_targets,
                                transitions="none", likelihood_scale=0.5).fit(X, y)
    posterior = model.estimator_.predict_proba(window_lags(check_sequences(X), 2))
    weighed = np.sqrt(model.target_prior_ * np.maximum(posterior, 1e-6))
    weighed /= weighed.sum(axis=1, keepdims=True)
    expected = weighed.reshape(weighed.shape[0], 2, -1).sum(axis=2)
    assert_allclose(np.vstack(model.predict_proba(X)), expected, rtol=1e-9)


def test_score_refuses_labels_of_another_type_as_scikit_learn_does():
    # string labels scored against numbers: every step counted wrong before
    X, y = _levels(["lo", "high", "lo"])
    numbers = [np.repeat([0, 1, 0], 4) for _ in X]
    # the reference: scikit-learn's check of the labels against the predictions
    # (its accuracy runs it from version 1.9; before, it scored them 0.0)
    with pytest.raises(ValueError, match="Mix of label input types"):
        unique_labels(np.concatenate(numbers), np.concatenate(y))
    model = HybridHMMClassifier(GaussianNB(), window=2, features="lags").fit(X, y)
    with pytest.raises(ValueError, match="Mix of label input types"):
        model.score(X, numbers)
    by_sequence = HybridHMMClassifier(GaussianNB(), window=2, features="lags")
    with pytest.raises(ValueError, match="Mix of label input types"):
        by_sequence.fit(X, ["lo", "high"] * 2).score(X, [0, 1] * 2)
    weight = np.array([1.0, 2.0, 0.5, 3.0])
    steps = np.repeat(weight, 12)
    expected = np.average(np.concatenate(model.predict(X)) == np.concatenate(y),
                          weights=steps)
    assert model.score(X, y, sample_weight=weight) == pytest.approx(expected)


class _ReadsTheStep:
    """A per-step classifier of two targets whose P(target 1) is the step's
    first feature (its classes taken from the targets of its fit)."""

    def fit(self, x, targets, sample_weight=None):
        self.classes_ = np.unique(targets)
        return self

    def predict_proba(self, x):
        return np.column_stack([1.0 - x[:, 0], x[:, 0]])

    def get_params(self, deep=True):
        return {}


def _marginals_by_enumeration(startprob, transmat, log_emit):
    """Filtered and smoothed state marginals of one sequence, from every state
    path weighed in log space (the state before the first step drawn from
    ``startprob``)."""
    n_steps, n = log_emit.shape
    first = startprob @ transmat
    filtered, smoothed = np.zeros((n_steps, n)), np.zeros((n_steps, n))
    for t in range(n_steps):
        paths = list(itertools.product(range(n), repeat=t + 1))
        with np.errstate(divide="ignore"):
            logs = np.array([np.log(first[p[0]]) + sum(
                np.log(transmat[a, b]) for a, b in itertools.pairwise(p))
                + log_emit[np.arange(t + 1), p].sum() for p in paths])
        weights = np.exp(logs - logs.max())
        for path, w in zip(paths, weights / weights.sum(), strict=True):
            filtered[t, path[-1]] += w
            if t == n_steps - 1:
                smoothed[np.arange(n_steps), path] += w
    return filtered, smoothed


def test_filter_and_smoother_at_a_scale_that_sets_steps_far_apart():
    # at likelihood_scale=100 a step's likelihoods lie about 1,400 nats apart:
    # the scaled passes dropped the paths that went through the second state
    # of label 1 before the last step (e^-1400 behind), which with those that
    # stayed in label 0 are the only ones to reach label 0 there, and gave
    # label 1 probability 1 where it has 0.35
    X = [np.array([[0.0], [0.0], [1.0], [1.0], [0.0], [0.0]])] * 3
    y = [np.array([0, 0, 1, 1, 0, 0])] * 3
    model = HybridHMMClassifier(_ReadsTheStep(), window=1, features="lags",
                                likelihood_scale=100.0).fit(X, y)
    x = [np.array([[1e-9], [1e-9], [1.0], [1e-9]])]
    log_emit = model._log_emissions(check_sequences(x))
    assert np.ptp(log_emit, axis=1).max() > 1000
    filtered, smoothed = _marginals_by_enumeration(model.startprob_,
                                                   model.transmat_, log_emit)
    assert_allclose(model.predict_state_proba(x)[0], filtered, atol=1e-12)
    assert_allclose(model.predict_state_proba(x, smoothed=True)[0], smoothed,
                    atol=1e-12)
    assert_allclose(model.predict_proba(x)[0],
                    filtered.reshape(4, 2, 2).sum(axis=2), atol=1e-12)


def test_plot_step_labels_names_the_labelling_or_classes_it_cannot_draw():
    # every refusal comes before matplotlib is imported, let alone a figure made
    from skseq.plotting import plot_step_labels

    # a prediction of several sequences (ragged or not) where one is drawn:
    # numpy's "inhomogeneous shape", and skseq's message naming "labels"
    for several in ([np.array([0, 1, 1]), np.array([1, 0])], [[0, 1], [1, 0]]):
        with pytest.raises(ValueError, match=r"labelings\['guess'\] must be a 1-D.*"
                                             r"prediction\[0\]"):
            plot_step_labels({"truth": [0, 1], "guess": several})
    # classes not a 1-D list: "truth value of an array ... is ambiguous",
    # "iteration over a 0-d array"
    for classes in ([[0, 1]], 1):
        with pytest.raises(ValueError, match="classes must be a 1-D"):
            plot_step_labels({"truth": [0, 1]}, classes=classes)
    with pytest.raises(ValueError, match=r"label 'c' of labelings\['guess'\] is "
                                         r"not in classes \['a', 'b'\]"):
        plot_step_labels({"truth": ["a", "b"], "guess": ["a", "c"]},
                         classes=np.array(["a", "b"]))


@pytest.mark.parametrize("flag", [True, np.True_])
def test_a_bool_likelihood_scale_set_after_fit_is_refused_as_in_fit(flag):
    # fit refuses a bool for the number (np.True_ is no real number to
    # scikit-learn's constraint, True is); prediction reads the scale again
    # (set_params after fit), where True passed as 1
    X, y = _levels(["lo", "high", "lo"])
    model = HybridHMMClassifier(GaussianNB(), window=2, features="lags")
    with pytest.raises(TypeError, match="'likelihood_scale' parameter") as fit:
        model.set_params(likelihood_scale=flag).fit(X, y)
    model.set_params(likelihood_scale=0.5).fit(X, y)
    before = model.predict_proba(X)
    model.set_params(likelihood_scale=flag)
    for call in (model.predict_proba, model.predict, model.decode):
        with pytest.raises(TypeError, match="'likelihood_scale' parameter") as got:
            call(X)
        assert str(got.value) == str(fit.value) and isinstance(got.value, ValueError)
    model.set_params(likelihood_scale=0.5)
    for a, b in zip(model.predict_proba(X), before, strict=True):
        assert_allclose(a, b, rtol=0, atol=0)


def test_hybrid_length_hints_ignore_sequences_of_weight_zero():
    # five-step sequences read, 200-step ones of weight 0: the short-input hint
    # compares with the five-step ones alone (median 5), so predicting on
    # five-step input warns of nothing
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(5, 2)) for _ in range(6)]
    X += [rng.normal(size=(200, 2)) for _ in range(6)]
    y = [np.array([0, 0, 1, 1, 1])] * 6 + [rng.integers(2, size=200)
                                           for _ in range(6)]
    model = HybridHMMClassifier(GaussianNB(), window=2, features="lags",
                                n_states_per_label=1)
    model.fit(X, y, sample_weight=[1] * 6 + [0] * 6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.predict([rng.normal(size=(5, 2))])


def test_nullable_integer_labels_with_a_missing_step_stay_integers():
    # pandas' Int64 labels with one missing step: numpy alone would read them
    # as 0.0, 1.0 and NaN, and the model would return float labels
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(30, 1)) for _ in range(6)]
    labels = [(x[:, 0] > 0).astype(np.int64) for x in X]
    y = [pd.Series(lab, dtype="Int64") for lab in labels]
    y[0][3] = pd.NA
    # the same labels as objects, the missing step None
    y_none = [lab.astype(object) for lab in labels]
    y_none[0][3] = None
    model = HybridHMMClassifier(random_state=0).fit(X, y)
    reference = HybridHMMClassifier(random_state=0).fit(X, y_none)
    assert model.classes_.dtype.kind == "i"
    assert_array_equal(model.classes_, [0, 1])
    pred = model.predict(X)
    assert all(p.dtype.kind == "i" for p in pred)
    for p, q in zip(pred, reference.predict(X), strict=True):
        assert_array_equal(p, q)
