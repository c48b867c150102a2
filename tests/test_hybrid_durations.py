"""HybridHMMClassifier(durations="learned"): the semi-Markov chain's filter,
smoother and Viterbi against enumeration of state paths whose probability is
computed from the segments' durations directly, the censored hazard against a
hand-worked example, causality, bad input and pickling."""

import itertools
import pickle

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import logsumexp
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression

from skseq import HybridHMMClassifier
from skseq._families.duration_chain import (
    HAZARD_BANDWIDTH,
    duration_hazard,
    expanded_chain,
)
from skseq._families.semi_markov import filter_states, smooth_states, viterbi_path


def _path_probability(path, hazard, advance, switch, start, k):
    """P(state path) of the semi-Markov chain, from its segments: the first
    segment's label from ``start``, phase 0 at every segment's start, phase
    steps within a segment, and a segment that has lasted ``d`` steps ending
    with ``hazard[c, min(d, D) - 1]``."""
    cap = hazard.shape[1]
    label, phase = path[0] // k, path[0] % k
    p = start[label] * (phase == 0)
    d = 1
    for prev, cur in itertools.pairwise(path):
        c, j = divmod(prev, k)
        c2, j2 = divmod(cur, k)
        h = hazard[c, min(d, cap) - 1]
        if c2 != c:
            p *= h * switch[c, c2] * (j2 == 0)
            d = 1
            continue
        if j == k - 1:
            step = float(j2 == j)
        else:
            step = advance[c] * (j2 == j + 1) + (1 - advance[c]) * (j2 == j)
        p *= (1 - h) * step
        d += 1
    return p


def _problem(k, n_classes, seed=0, lengths=(4, 1, 5, 2), scale=1.0, cap=3):
    """A chain of ``cap`` durations and steps' log-likelihoods of standard
    deviation ``scale``; by default sequences of one step and of more than
    ``cap``."""
    rng = np.random.default_rng(seed)
    hazard = rng.uniform(0.1, 0.9, (n_classes, cap))
    # from three labels on, the switch is far from symmetric: which label a
    # segment leaves and which it enters differ
    switch = rng.dirichlet(np.full(n_classes, 0.5), size=n_classes)
    np.fill_diagonal(switch, 0.0)
    switch /= switch.sum(axis=1, keepdims=True)
    start = rng.dirichlet(np.ones(n_classes))
    advance = rng.uniform(0.2, 0.8, n_classes)
    offsets = np.r_[0, np.cumsum(lengths)]
    log_em = rng.normal(scale=scale, size=(offsets[-1], n_classes * k))
    chain = expanded_chain(hazard, advance, switch, start, k)
    return chain, (hazard, advance, switch, start, k), log_em, offsets


def _enumerate(parts, log_em):
    """Every state path of a sequence with its joint probability."""
    n_states = log_em.shape[1]
    for path in itertools.product(range(n_states), repeat=log_em.shape[0]):
        joint = _path_probability(path, *parts) * np.exp(
            log_em[np.arange(len(path)), path].sum())
        yield path, joint


def _enumerate_in_logs(parts, log_em):
    """The marginals of every step (n_steps, n_states) and the most likely
    path of a sequence, from all its state paths weighed in log space (exact
    however far apart the steps' likelihoods are)."""
    n_steps, n_states = log_em.shape
    paths = list(itertools.product(range(n_states), repeat=n_steps))
    with np.errstate(divide="ignore"):
        logs = np.array([np.log(_path_probability(path, *parts))
                         + log_em[np.arange(n_steps), path].sum() for path in paths])
    weights = np.exp(logs - logs.max())
    marginal = np.zeros(log_em.shape)
    for path, w in zip(paths, weights / weights.sum(), strict=True):
        marginal[np.arange(n_steps), path] += w
    return marginal, paths[int(np.argmax(logs))]


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("k", [1, 2])
def test_filter_smoother_viterbi_against_enumerated_segment_paths(k, n_classes):
    chain, parts, log_em, offsets = _problem(k, n_classes)
    filtered = filter_states(chain, log_em, offsets)
    smoothed = smooth_states(chain, log_em, offsets)
    decoded = viterbi_path(chain, log_em, offsets)
    for s in range(offsets.shape[0] - 1):
        e = log_em[offsets[s]:offsets[s + 1]]
        for t in range(e.shape[0]):  # filter: enumerate the prefix's paths
            marginal = np.zeros(e.shape[1])
            for path, joint in _enumerate(parts, e[:t + 1]):
                marginal[path[-1]] += joint
            assert_allclose(filtered[offsets[s] + t], marginal / marginal.sum())
        marginal, best, best_joint = np.zeros(e.shape), None, -1.0
        for path, joint in _enumerate(parts, e):
            marginal[np.arange(e.shape[0]), path] += joint
            if joint > best_joint:
                best, best_joint = path, joint
        assert_allclose(smoothed[offsets[s]:offsets[s + 1]],
                        marginal / marginal.sum(axis=1, keepdims=True))
        assert_array_equal(decoded[offsets[s]:offsets[s + 1]], best)


@pytest.mark.parametrize("seed", range(16))
def test_viterbi_against_enumerated_segment_paths_of_many_chains(seed):
    # weak steps' evidence, so that the chain (which label follows which, how
    # long a segment lasts, when its phase steps on) weighs on the best path
    # as much as the steps do; with 2 durations, a phase steps on mostly at
    # the last duration
    chain, parts, log_em, offsets = _problem(2, 3, seed, lengths=(5, 3, 1),
                                             scale=0.5, cap=2 + seed % 2)
    decoded = viterbi_path(chain, log_em, offsets)
    for s in range(offsets.shape[0] - 1):
        e = log_em[offsets[s]:offsets[s + 1]]
        best, _ = max(_enumerate(parts, e), key=lambda pair: pair[1])
        assert_array_equal(decoded[offsets[s]:offsets[s + 1]], best)


def test_filter_and_smoother_with_likelihoods_far_apart():
    # label 0 must end after one step (hazard 1) while the steps favour it by
    # e^3000: its likelihood relative to label 1's underflows, the marginals
    # must still be those of the enumerated paths (in log space), never NaN
    hazard = np.array([[1.0, 1.0], [0.5, 0.5]])
    switch, start = np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([0.8, 0.2])
    chain = expanded_chain(hazard, np.zeros(2), switch, start, 1)
    log_em = np.array([[3000.0, 0.0], [2000.0, -900.0], [0.0, 50.0],
                       [2500.0, 0.0], [-10.0, 0.0]])
    parts = (hazard, np.zeros(2), switch, start, 1)
    offsets = np.array([0, 5])
    filtered = filter_states(chain, log_em, offsets)
    smoothed = smooth_states(chain, log_em, offsets)
    for t in range(1, 6):  # the paths of the first t steps
        marginal, _ = _enumerate_in_logs(parts, log_em[:t])
        assert_allclose(filtered[t - 1], marginal[-1], atol=1e-12)
    assert_allclose(smoothed, marginal, atol=1e-12)


def _far_apart(case):
    """Tiny chains whose steps' log-likelihoods lie 800 nats and more apart:
    the scaled passes' messages lose entries to underflow there (0 / 0 in the
    smoothed distribution of (2, 3, 18); a wrong one of (2, 2, 35); a
    phase that must go back to 0 in the hand-made one), and sequences of
    narrow steps beside them."""
    if case == "hand":  # label 0's phase 1, then its phase 0: a new segment
        chain, parts, _, _ = _problem(2, 2, lengths=(3,))
        log_em = np.full((3, 4), -900.0)
        log_em[[0, 1, 2], [0, 1, 0]] = 0.0
        return chain, parts, log_em, np.array([0, 3])
    k, n_classes, seed = case
    chain, parts, log_em, offsets = _problem(k, n_classes, seed, lengths=(4, 2, 3),
                                             scale=400.0)
    log_em[4:6] /= 100.0  # the second sequence's steps are narrow
    return chain, parts, log_em, offsets


@pytest.mark.parametrize("case", [(2, 3, 18), (2, 2, 35), "hand"])
def test_filter_smoother_viterbi_with_likelihoods_hundreds_of_nats_apart(case):
    chain, parts, log_em, offsets = _far_apart(case)
    filtered = filter_states(chain, log_em, offsets)
    smoothed = smooth_states(chain, log_em, offsets)
    decoded = viterbi_path(chain, log_em, offsets)
    for s in range(offsets.shape[0] - 1):
        e, rows = log_em[offsets[s]:offsets[s + 1]], slice(offsets[s], offsets[s + 1])
        for t in range(1, e.shape[0] + 1):  # the paths of the first t steps
            marginal, best = _enumerate_in_logs(parts, e[:t])
            assert_allclose(filtered[offsets[s] + t - 1], marginal[-1], atol=1e-12)
        assert_allclose(smoothed[rows], marginal, atol=1e-12)
        assert_array_equal(decoded[rows], best)


def _dense_in_logs(parts, log_em):
    """Filtered and smoothed marginals of the hidden states of one sequence,
    by the forward-backward recursions on logarithms over the pairs (hidden
    state, duration so far) with a dense transition matrix written from the
    segments' rules (as in ``_path_probability``; durations from the last
    one on share its hazard)."""
    hazard, advance, switch, start, k = parts
    n_classes, cap = hazard.shape
    n = n_classes * k

    def index(state, d):
        return state * cap + min(d, cap) - 1

    trans = np.zeros((n * cap, n * cap))
    for (c, j), d in itertools.product(np.ndindex(n_classes, k), range(1, cap + 1)):
        e, h = index(c * k + j, d), hazard[c, d - 1]
        step = 0.0 if j == k - 1 else advance[c]
        trans[e, index(c * k + j, d + 1)] += (1 - h) * (1 - step)
        if j < k - 1:
            trans[e, index(c * k + j + 1, d + 1)] += (1 - h) * step
        for c2 in range(n_classes):
            trans[e, index(c2 * k, 1)] += h * switch[c, c2]
    first = np.zeros(n * cap)
    first[[index(c * k, 1) for c in range(n_classes)]] = start
    emit = np.repeat(log_em, cap, axis=1)
    with np.errstate(divide="ignore"):
        log_trans, alpha = np.log(trans), [np.log(first) + emit[0]]
    for t in range(1, log_em.shape[0]):
        alpha.append(logsumexp(alpha[-1][:, None] + log_trans, axis=0) + emit[t])
    beta = [np.zeros(n * cap)]  # the last segment is censored
    for t in range(log_em.shape[0] - 1, 0, -1):
        beta.insert(0, logsumexp(log_trans + emit[t] + beta[0], axis=1))

    def marginals(logs):
        logs = np.array(logs)
        p = np.exp(logs - logsumexp(logs, axis=1, keepdims=True))
        return p.reshape(-1, n, cap).sum(axis=2)

    return marginals(alpha), marginals(np.array(alpha) + np.array(beta))


def test_filter_and_smoother_of_many_states_per_label_with_steps_190_nats_apart():
    # five states per label, evidence for label 0's first state for 4 steps,
    # then for label 1's last: the path that entered label 1 at the start
    # (760 nats behind by step 3) is the only one there at step 4 and comes
    # back level at step 7, when the others have paid the 4 steps to reach
    # that state too; the scaled passes had dropped it (its probability
    # underflows) though no step spread beyond 200 nats, and gave label 1's
    # last state 0.15 too little
    hazard = np.full((2, 3), 0.2)
    advance, switch = np.full(2, 0.5), np.array([[0.0, 1.0], [1.0, 0.0]])
    parts = (hazard, advance, switch, np.array([0.5, 0.5]), 5)
    log_em = np.full((10, 10), -190.0)
    log_em[np.arange(10), [0] * 4 + [9] * 6] = 0.0
    chain, offsets = expanded_chain(*parts), np.array([0, 10])
    filtered, smoothed = _dense_in_logs(parts, log_em)
    assert_allclose(filter_states(chain, log_em, offsets), filtered, atol=1e-12)
    assert_allclose(smooth_states(chain, log_em, offsets), smoothed, atol=1e-12)
    # the reference against the enumerated state paths, on a chain of 2
    # states per label and a few steps
    _, small_parts, small_em, _ = _problem(2, 2, lengths=(4,))
    marginal, _ = _enumerate_in_logs(small_parts, small_em)
    assert_allclose(_dense_in_logs(small_parts, small_em)[1], marginal, atol=1e-12)


def test_hazard_censored_hand_worked():
    # label 0: lengths 2 (ends), 3 (ends), 2 (cut by the end of its sequence);
    # label 1: 3 (cut by the end), 1 (cut by the end), 2 (ends), 1 (cut by an
    # unlabelled step)
    labels = np.array([0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 1, -1])
    offsets = np.array([0, 5, 9, 13, 15])
    hazard = duration_hazard(labels, offsets, 2, 3, pseudocount=1.0)
    # ends seen over steps spent in the label, with one more step that ends
    g0, g1 = (2 + 1) / (7 + 1), (1 + 1) / (7 + 1)
    expected = [[(0 + g0) / (3 + 1), (1 + g0) / (3 + 1), (1 + g0) / (1 + 1)],
                [(0 + g1) / (4 + 1), (1 + g1) / (2 + 1), (0 + g1) / (1 + 1)]]
    assert_allclose(hazard, expected)
    # bandwidth 1: the Kaplan-Meier rates e_d / n_d (0 and 1/3 for label 0;
    # 0 and 1/2 for label 1) averaged over d - 1 .. d + 1 where in range
    smooth = duration_hazard(labels, offsets, 2, 3, pseudocount=1.0, bandwidth=1)
    rates = np.array([[1 / 6, 1 / 6, 1], [1 / 4, 1 / 4, 0]])
    at_risk = np.array([[3, 3, 1], [4, 2, 1]])
    shrink = np.array([[g0], [g1]])
    assert_allclose(smooth, (at_risk * rates + shrink) / (at_risk + 1))
    # a weight of 2 counts a sequence twice
    twice = np.concatenate([labels[:5], labels])
    assert_allclose(duration_hazard(labels, offsets, 2, 3,
                                    weight=np.array([2.0, 1, 1, 1])),
                    duration_hazard(twice, np.r_[0, offsets + 5], 2, 3))


def test_all_censored_label_can_still_end():
    # every segment is cut by the end of its sequence: no end seen, yet a
    # segment must be able to end (else the chain never leaves the label)
    labels = np.array([0, 0, 0, 1, 1, 1, 1])
    hazard = duration_hazard(labels, np.array([0, 3, 7]), 2, 3, pseudocount=1.0)
    assert_allclose(hazard[0], [(0 + 1 / 4) / (1 + 1)] * 3)
    # label 1's tail: 2 steps at durations >= 3, none ending
    assert_allclose(hazard[1], [(0 + 1 / 5) / (1 + 1)] * 2 + [(0 + 1 / 5) / (2 + 1)])
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(30, 1)) + 3 * (i % 2) for i in range(8)]
    y = [np.array(["ab"[i % 2]] * 30) for i in range(8)]
    model = HybridHMMClassifier(LogisticRegression(), window=4, features="summaries",
                                durations="learned").fit(X, y)
    change = np.concatenate([rng.normal(size=(50, 1)), rng.normal(size=(50, 1)) + 3])
    for algorithm in ("filter", "smooth", "viterbi"):
        labels = model.predict([change], algorithm=algorithm)[0]
        assert (labels[:40] == "a").all() and (labels[-40:] == "b").all(), algorithm
    # the weights count against a pseudocount of one step: weights 1e-9 act
    # as weights 1 against a pseudocount of 1e9 (the label chain's alike)
    scaled = clone(model).fit(X, y, sample_weight=np.full(8, 1e-9))
    codes = np.repeat(np.arange(8) % 2, 30)
    cap = model.duration_hazard_.shape[1]
    assert_allclose(scaled.duration_hazard_,
                    duration_hazard(codes, 30 * np.arange(9), 2, cap, pseudocount=1e9,
                                    bandwidth=HAZARD_BANDWIDTH), rtol=1e-9)


def _sessions(seed=0):
    """Sequences of noisy level segments of fixed lengths, labelled by level."""
    rng = np.random.default_rng(seed)
    X, y = [], []
    for _ in range(5):
        codes = rng.integers(0, 3, size=3)
        y.append(np.repeat(np.array(["a", "b", "c"])[codes], 8))
        X.append(np.repeat(codes * 1.0, 8)[:, None]
                 + rng.normal(scale=0.8, size=(24, 1)))
    return X, y


def _fitted(**params):
    X, y = _sessions()
    model = HybridHMMClassifier(LogisticRegression(), window=4, features="summaries",
                                durations="learned", **params)
    return model.fit(X, y), X, y


def test_learned_durations_fit_and_causality():
    model, X, y = _fitted()
    hazard = model.duration_hazard_
    assert hazard.shape[0] == 3 and np.all((hazard > 0) & (hazard < 1))
    codes = np.concatenate([np.searchsorted(model.classes_, v) for v in y])
    offsets = np.r_[0, np.cumsum([len(v) for v in y])]
    assert_allclose(hazard, duration_hazard(codes, offsets, 3, hazard.shape[1],
                                            bandwidth=HAZARD_BANDWIDTH))
    full = model.predict_proba(X[:2])
    for t in (1, 7, 9, 17):
        prefix = model.predict_proba([x[:t] for x in X[:2]])
        for p, f in zip(prefix, full, strict=True):
            assert_allclose(p, f[:t])
    for algorithm in ("smooth", "viterbi"):
        assert [len(p) for p in model.predict(X, algorithm=algorithm)] == [24] * 5
    states = model.decode(X[:1])[0]
    assert_array_equal(model.classes_[states // 2],
                       model.predict(X[:1], algorithm="viterbi")[0])


def test_an_integer_weight_is_a_repeated_sequence():
    # the chain (start, transitions, durations' hazard) counts a sequence of
    # weight w as w copies of it (0: left out), as the per-step classifier's
    # fit does (a logistic regression on fixed features)
    X, y = _sessions()
    weight = np.array([2, 1, 3, 0, 1])
    repeated = np.repeat(np.arange(5), weight)
    model = HybridHMMClassifier(LogisticRegression(solver="newton-cholesky"),
                                window=4, features="summaries", durations="learned")
    weighted = clone(model).fit(X, y, sample_weight=weight)
    copies = clone(model).fit([X[i] for i in repeated], [y[i] for i in repeated])
    for name in ("startprob_", "transmat_", "duration_hazard_", "class_prior_"):
        assert_allclose(getattr(weighted, name), getattr(copies, name),
                        rtol=1e-12, atol=1e-15, err_msg=name)
    for a, b in zip(weighted.predict_proba(X), copies.predict_proba(X), strict=True):
        assert_allclose(a, b, atol=1e-9)


def test_geometric_and_no_transitions_have_no_durations():
    model, X, y = _fitted(transitions="none")
    assert model.duration_hazard_ is None
    geometric = HybridHMMClassifier(LogisticRegression(), window=4,
                                    features="summaries").fit(X, y)
    assert geometric.duration_hazard_ is None


def test_bad_durations_refused_and_model_kept_and_pickled():
    model, X, y = _fitted()
    before = model.duration_hazard_.copy()
    model.set_params(durations="poisson")
    with pytest.raises(ValueError, match="durations"):
        model.fit(X, y)
    assert_array_equal(model.duration_hazard_, before)
    model.set_params(durations="learned")
    clone = pickle.loads(pickle.dumps(model))
    for a, b in zip(clone.predict_proba(X), model.predict_proba(X),
                    strict=True):
        assert_array_equal(a, b)


def test_passes_that_cannot_fit_in_memory_are_refused(monkeypatch):
    # the smoother keeps 8 bytes per expanded state and step of the longest
    # sequence, Viterbi 1: refused before allocating, the filter still runs
    model, X, _ = _fitted()
    n_expanded = model.duration_hazard_.size * model.n_states_per_label
    monkeypatch.setattr("skseq._fit.resources._available_memory",
                        lambda: 8 * n_expanded * 24 - 1)
    with pytest.raises(ValueError, match="durations='learned' on 24 steps needs"):
        model.predict(X, algorithm="smooth")
    assert len(model.predict(X, algorithm="viterbi")) == len(X)
    assert len(model.predict(X)) == len(X)
