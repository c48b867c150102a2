"""HybridHMMClassifier(window="auto"): the window chosen with the chain on
held-out training sequences, against tasks whose right window is known by
construction, and its parts against direct computations."""

import itertools

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.linear_model import LogisticRegression

from skseq import HybridHMMClassifier, _hybrid_select
from skseq._data import check_sequences
from skseq._hybrid_select import held_out_steps, label_posteriors, select_window


def _task(lag, rng, n_steps=160):
    """One channel of noise labelled by the sign of its value ``lag`` steps
    ago: the raw lags of a window of 8 are lags 0-7, those of a window of 32
    lags 0-4, 8, ..., 28, so that a lag of 6 is read by the first only, and a
    lag of 20 by the second only."""
    x = rng.normal(size=n_steps)
    on = np.concatenate([np.zeros(lag, dtype=bool), x[:-lag] > 0])
    return x[:, None], np.where(on, "on", "off")


@pytest.mark.parametrize("lag, window", [(6, 8), (20, 32)])
@pytest.mark.parametrize("transitions", ["learned", "none"])
def test_auto_window_is_the_one_the_task_needs(lag, window, transitions):
    rng = np.random.default_rng(0)
    X, y = zip(*[_task(lag, rng) for _ in range(8)], strict=True)
    X, y = list(X), list(y)
    params = {"estimator": LogisticRegression(), "features": "lags",
              "transitions": transitions, "n_states_per_label": 1,
              "random_state": 0}
    model = HybridHMMClassifier(window="auto", **params).fit(X, y)
    assert model.window_ == window
    # the final fit is that of the chosen window, given
    given = HybridHMMClassifier(window=window, **params).fit(X, y)
    assert given.window_ == window
    assert_allclose(np.vstack(model.predict_proba(X)),
                    np.vstack(given.predict_proba(X)))


def test_held_out_steps_against_a_loop(monkeypatch):
    monkeypatch.setattr(_hybrid_select, "SELECTION_STEPS", 10)
    lengths = [3, 5, 4, 6, 2, 7]
    seqs = check_sequences([np.zeros((n, 1)) for n in lengths])
    held = np.array([True, False, True, True, True, False])
    rows, offsets = held_out_steps(seqs, held, np.random.RandomState(5))
    # the same draw, then whole sequences until they hold 10 steps
    order = np.random.RandomState(5).permutation(np.flatnonzero(held))
    taken, total = [], 0
    for s in order:
        taken.append(s)
        total += lengths[s]
        if total >= 10:
            break
    starts = np.concatenate([[0], np.cumsum(lengths)])
    expected = [np.arange(starts[s], starts[s + 1]) for s in sorted(taken)]
    assert_array_equal(rows, np.concatenate(expected))
    assert_array_equal(offsets, np.concatenate([[0], np.cumsum(
        [lengths[s] for s in sorted(taken)])]))


class _Fixed:
    """A fitted classifier of some targets with given probabilities."""

    def __init__(self, classes, proba):
        self.classes_, self.proba = np.array(classes), np.array(proba)

    def predict_proba(self, x):
        return self.proba


def test_label_posteriors_sum_each_labels_parts():
    # targets label * 2 + part; target 2 (label 1, part 0) never seen
    fixed = _Fixed([0, 1, 3, 4], [[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.5, 0.0]])
    got = label_posteriors(fixed, np.zeros((2, 1)), 3, 2)
    assert_allclose(got, [[0.3, 0.3, 0.4], [0.5, 0.5, 0.0]])
    # one part per label; a label never seen has probability 0
    got = label_posteriors(_Fixed([0, 2], [[0.6, 0.4]]), np.zeros((1, 1)), 3, 1)
    assert_allclose(got, [[0.6, 0.0, 0.4]])


def _filtered_by_enumeration(start, trans, lik):
    """The most probable state at every step given the steps so far, by
    summing every state path (the state before the first step drawn from
    ``start``)."""
    out = []
    for t in range(lik.shape[0]):
        p = np.zeros(start.shape[0])
        for path in itertools.product(range(start.shape[0]), repeat=t + 1):
            q = (start @ trans)[path[0]] * lik[0, path[0]]
            for s in range(1, t + 1):
                q *= trans[path[s - 1], path[s]] * lik[s, path[s]]
            p[path[-1]] += q
        out.append(p.argmax())
    return np.array(out)


def test_select_window_filters_with_the_fitting_halfs_chain():
    labels = np.array([0, 0, 1, 1, 1, 1, 0, 1, 1, 1, 0, 0])
    seqs = check_sequences([np.zeros((3, 1))] * 4)
    held = np.array([False, False, True, True])  # the last two scored
    proba = {8: np.array([[0.68, 0.32], [0.04, 0.96], [0.67, 0.33],
                          [0.81, 0.19], [0.4, 0.6], [0.87, 0.13]]),
             32: np.array([[0.62, 0.38], [0.36, 0.64], [0.53, 0.47],
                           [0.43, 0.57], [0.0, 1.0], [0.3, 0.7]])}

    def chosen(start, trans):
        """The window whose filter labels more held-out steps right (ties:
        32), the filter by enumeration, the likelihoods proba / 0.5."""
        right = {w: np.sum(np.concatenate([
            _filtered_by_enumeration(start, trans, p[:3] / 0.5),
            _filtered_by_enumeration(start, trans, p[3:] / 0.5)]) == labels[6:])
            for w, p in proba.items()}
        return 8 if right[8] > right[32] else 32

    # counted by hand, +1 each: the fitting half (first labels 0 and 1;
    # 0->0, 0->1, 1->1 twice) and, for contrast, all four sequences
    fitting = chosen(np.array([0.5, 0.5]), np.array([[0.5, 0.5], [0.25, 0.75]]))
    every = chosen(np.array([0.5, 0.5]), np.array([[0.5, 0.5], [2 / 6, 4 / 6]]))
    assert fitting != every
    got = select_window(lambda w, rows: (proba[w], np.array([0.5, 0.5])), seqs,
                        labels, np.ones(4), (held, None, None), (8, 32),
                        np.random.RandomState(0), 1, (1.0,))
    assert got == (fitting, 1.0)



def test_select_window_and_scale_together_by_enumeration():
    # two fitting sequences of one label each, two held out with one change
    labels = np.array([0] * 4 + [1] * 4 + [0, 0, 1, 1] + [1, 1, 0, 0])
    seqs = check_sequences([np.zeros((4, 1))] * 4)
    held = np.array([False, False, True, True])
    proba = {8: np.array([[0.7, 0.3], [0.6, 0.4], [0.3, 0.7], [0.25, 0.75],
                          [0.3, 0.7], [0.2, 0.8], [0.6, 0.4], [0.35, 0.65]]),
             32: np.array([[0.8, 0.2], [0.7, 0.3], [0.45, 0.55], [0.4, 0.6],
                           [0.2, 0.8], [0.3, 0.7], [0.9, 0.1], [0.85, 0.15]])}
    # the fitting half's chain counted by hand, +1 each: no change seen
    start, trans = np.array([0.5, 0.5]), np.array([[0.8, 0.2], [0.2, 0.8]])
    scales = (0.35, 0.5, 0.7, 1.0)
    best, expected = -1, None
    for w, s in itertools.product((32, 8), scales):  # ties: 32, then smaller
        lik = (proba[w] / 0.5) ** s
        right = np.sum(np.concatenate([
            _filtered_by_enumeration(start, trans, lik[:4]),
            _filtered_by_enumeration(start, trans, lik[4:])]) == labels[8:])
        if right > best:
            best, expected = right, (w, s)
    assert expected == (32, 1.0)  # only the largest scale follows the change
    got = select_window(lambda w, rows: (proba[w], np.array([0.5, 0.5])), seqs,
                        labels, np.ones(4), (held, None, None), (8, 32),
                        np.random.RandomState(0), 1, scales)
    assert got == expected


def test_auto_scale_is_a_fit_at_that_scale():
    X, y = _segments(6, np.random.default_rng(3), noise=2.0)
    params = {"estimator": LogisticRegression(), "random_state": 0}
    model = HybridHMMClassifier(likelihood_scale="auto", **params).fit(X, y)
    assert model.likelihood_scale_ in _hybrid_select.SCALES
    given = HybridHMMClassifier(window=model.window_, features=model.features_,
                                likelihood_scale=model.likelihood_scale_,
                                **params).fit(X, y)
    assert_allclose(np.vstack(model.predict_proba(X)),
                    np.vstack(given.predict_proba(X)))
    # a number set after fit is the scale prediction uses
    other = 1.0 if model.likelihood_scale_ != 1.0 else 0.35
    given.set_params(likelihood_scale=other).fit(X, y)
    model.set_params(likelihood_scale=other)
    assert_allclose(np.vstack(model.predict_proba(X)),
                    np.vstack(given.predict_proba(X)))


def test_scale_set_after_fit_is_checked_and_auto_needs_a_fit_with_auto():
    X, y = _segments(4, np.random.default_rng(0))
    model = HybridHMMClassifier(LogisticRegression(), window=8, features="lags",
                                likelihood_scale=0.7).fit(X, y)
    expected = np.vstack(model.predict_proba(X))
    # no choice was made in fit: "auto" is refused, not taken as the 0.7 fitted
    for bad, match in [("auto", "chosen in fit"), (-1.0, "likelihood_scale"),
                       (0.0, "likelihood_scale"), ("Auto", "likelihood_scale"),
                       (np.nan, "likelihood_scale"), (None, "likelihood_scale")]:
        model.set_params(likelihood_scale=bad)
        with pytest.raises(ValueError, match=match):
            model.predict_proba(X)
    model.set_params(likelihood_scale=0.7)
    assert_array_equal(np.vstack(model.predict_proba(X)), expected)

def _segments(n_sequences, rng, n_steps=60, noise=1.0):
    """Sequences of segments of 10 steps, labelled "a" and "b" in turn, whose
    one channel is the label's level (0 or 1) plus noise."""
    X, y = [], []
    for i in range(n_sequences):
        label = (np.arange(n_steps) // 10 + i) % 2
        X.append((label + noise * rng.normal(size=n_steps))[:, None])
        y.append(np.array(["a", "b"])[label])
    return X, y


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_auto_ignores_sequences_of_weight_zero_or_unlabelled(seed):
    # a sequence of weight 0, or with no labelled step, is in no fit: with
    # "auto" as without, the model is the one fitted without it
    X, y = _segments(6, np.random.default_rng(1))
    extra_X, extra_y = _segments(2, np.random.default_rng(2))
    extra_y[1] = np.full(60, None, dtype=object)  # unlabelled
    params = {"estimator": LogisticRegression(), "random_state": seed}
    model = HybridHMMClassifier(**params).fit(
        extra_X + X, extra_y + y, sample_weight=[0.0, 1.0] + [1.0] * 6)
    without = HybridHMMClassifier(**params).fit(X, y)
    assert (model.window_, model.features_) == (without.window_, without.features_)
    assert_allclose(np.vstack(model.predict_proba(X)),
                    np.vstack(without.predict_proba(X)))


class _ProbaOnly:
    """A logistic regression seen through ``fit``, ``predict_proba`` and
    ``classes_`` only, all that ``estimator`` needs."""

    def __init__(self, random_state=None):
        self.random_state = random_state

    def get_params(self, deep=True):
        return {"random_state": self.random_state}

    def set_params(self, **params):
        self.random_state = params.get("random_state", self.random_state)
        return self

    def fit(self, X, y, sample_weight=None):
        self.model_ = LogisticRegression().fit(X, y, sample_weight=sample_weight)
        self.classes_ = list(self.model_.classes_)  # not even an array
        return self

    def predict_proba(self, X):
        return self.model_.predict_proba(X)


def test_auto_with_an_estimator_without_predict():
    X, y = _segments(6, np.random.default_rng(1), noise=2.0)
    model = HybridHMMClassifier(_ProbaOnly(), random_state=4).fit(X, y)
    plain = HybridHMMClassifier(LogisticRegression(), random_state=4).fit(X, y)
    assert (model.window_, model.features_) == (plain.window_, plain.features_)
    assert_allclose(np.vstack(model.predict_proba(X)),
                    np.vstack(plain.predict_proba(X)))


def test_auto_window_without_transitions_scores_the_models_labels():
    # transitions="none": the fitted model labels a step argmax_c
    # prior_c^(1 - s) * p_c^s (states drawn afresh from the priors, the
    # posteriors over the priors raised to s), not argmax_c p_c; the window is
    # chosen by that label. Held out: the second sequence, labels 0, 0, 0, 1.
    seqs = check_sequences([np.zeros((4, 1)), np.zeros((4, 1))])
    labels = np.array([0, 0, 0, 1, 0, 0, 0, 1])
    prior = np.array([0.9, 0.1])
    proba = {32: np.array([[0.4, 0.6]] * 3 + [[0.05, 0.95]]),
             8: np.array([[0.6, 0.4]] * 3 + [[0.3, 0.7]])}
    truth = labels[4:]
    for window, p in proba.items():
        by_hand = np.argmax(np.sqrt(prior * p), axis=1)  # s = 0.5
        # window 32: the model's labels all right, the classifier's one in 4
        assert np.mean(by_hand == truth) == (1.0 if window == 32 else 0.75)
        assert np.mean(p.argmax(axis=1) == truth) == (0.25 if window == 32 else 1.0)

    def chain_proba(window, rows):
        assert_array_equal(rows, np.arange(4, 8))
        return proba[window], prior

    split = (np.array([False, True]), None, None)
    for k in (1, 2):
        chosen = _hybrid_select.select_window(
            chain_proba, seqs, labels, np.ones(2), split, (8, 32),
            np.random.RandomState(0), k, (0.5,), chained=False)
        assert chosen == (32, 0.5)


def test_states_per_label_changed_after_fit_is_refused():
    X, y = _segments(4, np.random.default_rng(0))
    model = HybridHMMClassifier(LogisticRegression(), window=8,
                                features="lags").fit(X, y)
    expected = model.predict(X)
    for k in (1, 4):  # an IndexError, then every step labelled "a"
        model.set_params(n_states_per_label=k)
        with pytest.raises(ValueError, match="n_states_per_label changed"):
            model.predict(X)
    # refitted, or set back, it predicts as fitted
    model.set_params(n_states_per_label=2)
    assert_array_equal(np.concatenate(model.predict(X)), np.concatenate(expected))
    # the window is read from the fit (window_), the scale meant to be tuned
    model.set_params(window=32, likelihood_scale=1.0).predict(X)


def test_auto_without_a_half_to_hold_out():
    # one labelled sequence (the other of weight 0): no choice, 32 and summaries
    X, y = _segments(2, np.random.default_rng(0))
    for weight in (None, [1.0, 0.0]):
        model = HybridHMMClassifier(LogisticRegression()).fit(
            X[:1] if weight is None else X, y[:1] if weight is None else y,
            sample_weight=weight)
        assert (model.window_, model.features_) == (32, "summaries")
