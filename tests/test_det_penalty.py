"""The determinant reward of paper 000, §5.2 (``det_penalty``): its gradient
against finite differences, its weighting, and what it is for (parity)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from skseq import IOHMMClassifier, IOHMMRegressor
from skseq._data import Targets, check_sample_weight, check_sequences
from skseq._families.emissions import SoftmaxEmission
from skseq._families.hierarchy import HierarchicalTransitions
from skseq._families.layers import Identity
from skseq._families.transitions import TRANSITIONS
from skseq._fit.objective import Problem as _Problem
from skseq.datasets import make_parity


def _problem(n, transition, X, y, weight, mask=None, det_penalty=0.5):
    seqs = check_sequences(X)
    steps = seqs.last_steps
    targets = Targets(steps=steps, values=np.asarray(y), step_level=False)
    trans = TRANSITIONS[transition](n, seqs.n_features, 4)
    emit = SoftmaxEmission(n, Identity(seqs.n_features), 2)
    return _Problem(seqs, targets, check_sample_weight(weight, len(X)), trans, emit,
                    mask, None, 0.1, None, det_penalty)


def _reward(problem, theta_t):
    return problem.transition.det_reward(theta_t, problem.U, problem.mask,
                                         problem.step_weight)


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("transition", ["input", "additive", "homogeneous", "gated",
                                        "mlp"])
def test_gradient_with_det_reward_matches_finite_differences(n, transition):
    rng = np.random.default_rng(n)
    X = [rng.normal(size=(k, 2)) for k in (3, 5, 4, 2)]
    mask = np.ones((n, n), bool)
    mask[0, n - 1] = False
    problem = _problem(n, transition, X, [0, 1, 1, 0], rng.uniform(0.5, 2, 4), mask)
    theta = rng.normal(size=problem.n_start + problem.n_trans
                       + problem.emission.n_params)
    value, grad = problem.value_and_grad(theta)
    h = 1e-6
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = h
        fd = (problem.value_and_grad(theta + e)[0]
              - problem.value_and_grad(theta - e)[0]) / (2 * h)
        assert_allclose(grad[i], fd, rtol=1e-5, atol=1e-8)
    # the reward is really in the objective: it lowers J by det_penalty * reward
    plain = _problem(n, transition, X, [0, 1, 1, 0], problem.weight, mask, 0.0)
    reward = _reward(problem, problem.split(theta)[1])[0]
    assert 0.0 < reward <= 1.0
    assert_allclose(value, plain.value_and_grad(theta)[0] - 0.5 * reward, rtol=1e-12)


@pytest.mark.parametrize("learn", [False, True])
def test_hierarchical_det_reward_gradient_matches_finite_differences(learn):
    """The generic reward (through the family's expected_log) of a family that is
    not a plain softmax: the hierarchical product chain."""
    rng = np.random.default_rng(3)
    X = [rng.normal(size=(k, 2)) for k in (3, 5, 4, 2)]
    seqs = check_sequences(X)
    family = HierarchicalTransitions((2, 2), 2, (4.0, 1.0), learn)
    step_weight = rng.uniform(0.5, 2.0, seqs.data.shape[0])
    step_weight /= step_weight.sum()
    theta = family.init(rng, 1.0)
    value, grad = family.det_reward(theta, seqs.data, None, step_weight)
    A = family.probs(theta, seqs.data)
    assert_allclose(value, step_weight @ np.abs(np.linalg.det(A)), rtol=1e-12)
    h = 1e-6
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = h
        fd = (family.det_reward(theta + e, seqs.data, None, step_weight)[0]
              - family.det_reward(theta - e, seqs.data, None, step_weight)[0]) / (2 * h)
        assert_allclose(grad[i], fd, rtol=1e-5, atol=1e-9)


def test_det_reward_weight_two_equals_a_duplicated_sequence():
    rng = np.random.default_rng(7)
    X = [rng.normal(size=(k, 1)) for k in (4, 2, 6)]
    theta_t = TRANSITIONS["input"](2, 1, 4).init(rng, 1.0)
    weighted = _problem(2, "input", X, [0, 1, 0], [2.0, 1.0, 1.0])
    plain = _problem(2, "input", [X[0], X[0], X[1], X[2]], [0, 0, 1, 0], None)
    r_w, g_w = _reward(weighted, theta_t)
    r_p, g_p = _reward(plain, theta_t)
    assert_allclose(r_w, r_p, rtol=1e-12)
    assert_allclose(g_w, g_p, rtol=1e-10, atol=1e-14)


def test_det_reward_learns_parity_of_long_sequences():
    """Paper 000, §5.3: parity at T = 100 (lengths 50-100). Without the reward a
    2-state IOHMM stays at chance; with it, it learns the rule exactly."""
    X, y = make_parity(600, max_length=100, random_state=0)
    common = dict(n_states=2, emission="state", alpha=1e-3, n_init=10,
                  random_state=0)
    plain = IOHMMClassifier(**common).fit(X[:100], y[:100])
    det = IOHMMClassifier(det_penalty=1.0, **common).fit(X[:100], y[:100])
    assert plain.score(X[100:], y[100:]) < 0.7
    assert det.score(X[100:], y[100:]) == 1.0


@pytest.mark.parametrize("Estimator", [IOHMMClassifier, IOHMMRegressor])
def test_det_penalty_needs_lbfgs(Estimator):
    X = [np.ones((3, 1)), np.zeros((2, 1))]
    est = Estimator(n_states=2, solver="em", det_penalty=0.5, n_init=1)
    with pytest.raises(ValueError, match="det_penalty=0.5 needs solver='lbfgs'"):
        est.fit(X, [0, 1])
    assert not hasattr(est, "n_features_in_")
