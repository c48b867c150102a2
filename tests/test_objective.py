"""The objective of a fit (``skseq._fit.objective``): its exact sums, the
transition masks and start distributions it is built from, its penalty and the
fitted chain's predictions from arrays."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skseq._data import Targets, check_sequences
from skseq._families.emissions import SoftmaxEmission
from skseq._families.layers import Identity
from skseq._families.transitions import InputTransitions
from skseq._fit.objective import Problem, fixed_startprob, row_dots, topology_mask


def test_row_sums_of_the_objective_are_exact_and_survive_overflow():
    """The objective's per-row sums are correctly rounded (math.fsum: the same
    bits for any batch), and give inf / NaN where fsum itself would refuse."""
    a = np.array([[1e16, 1.0, -1e16], [1e200, 1e200, 1.0]])
    with np.errstate(over="ignore", invalid="ignore"):
        out = row_dots(a, np.array([1.0, 1e200, 1.0]))
        assert np.isnan(row_dots(np.array([np.inf, -np.inf]), np.ones(2)))
    # row 0: 1e16 + 1e200 - 1e16 exactly; row 1 overflows
    assert out[0] == 1e200 and out[1] == np.inf
    assert row_dots(a[0], np.ones(3)) == 1.0  # a plain sum gives 0.0


def test_topology_masks():
    assert topology_mask("ergodic", 3).all()
    assert_array_equal(topology_mask("left-right", 3),
                       [[1, 1, 0], [0, 1, 1], [0, 0, 1]])
    assert_array_equal(topology_mask([[1, 0], [1, 1]], 2), [[True, False],
                                                           [True, True]])
    with pytest.raises(ValueError, match=r"shape \(2, 3\), expected \(2, 2\)"):
        topology_mask(np.ones((2, 3), bool), 2)
    with pytest.raises(ValueError, match="state 1 has no allowed successor"):
        topology_mask([[1, 1], [0, 0]], 2)
    with pytest.raises(ValueError, match="boolean"):
        topology_mask([[1, 2], [1, 1]], 2)


def test_fixed_start_distributions():
    assert fixed_startprob("learn", 3) is None
    assert fixed_startprob("stationary", 3) == "stationary"
    assert_allclose(fixed_startprob("uniform", 4), np.full(4, 0.25))
    assert_allclose(fixed_startprob([0.2, 0.8], 2), [0.2, 0.8])
    with pytest.raises(ValueError, match=r"startprob sums to 1\.1; .* must sum to 1"):
        fixed_startprob([0.5, 0.6], 2)
    # the offending entry is named
    with pytest.raises(ValueError, match=r"startprob\[1\] is -0\.1: .* non-negative"):
        fixed_startprob([1.1, -0.1], 2)
    with pytest.raises(ValueError, match=r"startprob\[0\] is nan"):
        fixed_startprob([np.nan, 1.0], 2)
    with pytest.raises(ValueError, match=r"shape \(3,\), expected \(2,\)"):
        fixed_startprob([0.2, 0.3, 0.5], 2)


def test_penalty_is_half_alpha_times_the_input_weights_squared_per_weight():
    """J's penalty alpha/2 ||theta_w||^2 / W: input weights only, not
    intercepts nor start logits."""
    rng = np.random.default_rng(0)
    seqs = check_sequences([rng.normal(size=(3, 2)), rng.normal(size=(2, 2))])
    targets = Targets(steps=seqs.last_steps.copy(), values=np.array([0, 1]),
                      step_level=False)
    weight = np.array([1.0, 3.0])
    trans, emit = InputTransitions(2, 2), SoftmaxEmission(2, Identity(2), 2)
    problem = Problem(seqs, targets, weight, trans, emit, None, None, 0.7, None)
    theta = rng.normal(size=problem.n_params)
    theta_s, theta_t, theta_e = problem.split(theta)
    w_t = trans.unpack(theta_t)["coef"]
    w_e = emit.unpack(theta_e)["coef"]
    expected = 0.5 * 0.7 * (np.sum(w_t**2) + np.sum(w_e**2)) / 4.0
    assert_allclose(problem.penalty(theta), expected, rtol=1e-14)
    assert theta_s.size == 2  # a learned start: its logits come first


def test_warm_start_point_packs_the_fitted_parameters():
    rng = np.random.default_rng(1)
    seqs = check_sequences([rng.normal(size=(3, 2))])
    targets = Targets(steps=seqs.last_steps.copy(), values=np.array([1]),
                      step_level=False)
    trans, emit = InputTransitions(2, 2), SoftmaxEmission(2, Identity(2), 2)
    problem = Problem(seqs, targets, np.ones(1), trans, emit, None, None, 1.0, None)
    theta = rng.normal(size=problem.n_params)
    theta_s, theta_t, theta_e = problem.split(theta)
    start = problem.startprob(theta_s)
    again = problem.fitted_theta(start, trans.unpack(theta_t), emit.unpack(theta_e))
    # the start logits come back up to a constant, which softmax ignores
    assert_allclose(problem.startprob(problem.split(again)[0]), start, rtol=1e-14)
    assert_array_equal(again[2:], theta[2:])


def test_output_terms_by_blocks_of_steps_on_threads(monkeypatch):
    """The output networks' log-likelihoods and gradient taken by blocks of 3
    supervised steps on threads: the same bits with 1 and 2 threads (the
    blocks do not depend on n_jobs; both threads run), and the direct terms
    of all the steps at once up to rounding."""
    import threading

    import skseq._fit.objective as objective

    rng = np.random.default_rng(2)
    seqs = check_sequences([rng.normal(size=(int(t), 2)) for t in
                            rng.integers(2, 6, size=11)])
    targets = Targets(steps=seqs.last_steps.copy(), values=rng.integers(0, 3, 11),
                      step_level=False)
    weight = rng.uniform(0.5, 2.0, 11)

    def terms(n_jobs, rows_per_block):
        monkeypatch.setattr(objective, "_ROWS_PER_BLOCK", rows_per_block)
        problem = Problem(seqs, targets, weight, InputTransitions(2, 2),
                          SoftmaxEmission(2, Identity(2), 3), None, None, 0.3, n_jobs)
        thetas = np.random.default_rng(0).normal(size=(2, problem.n_params))
        return problem.values_and_grads(thetas)

    where = []
    grad_batch = SoftmaxEmission.grad_batch

    def recorded(self, *args):
        where.append(threading.get_ident())
        return grad_batch(self, *args)

    monkeypatch.setattr(SoftmaxEmission, "grad_batch", recorded)
    one, two = terms(1, 3), terms(2, 3)
    assert len(where) == 8 and len(set(where[4:])) == 2  # 4 blocks, 2 threads
    for a, b in zip(one, two, strict=True):
        assert_array_equal(a, b)
    direct = terms(1, 10**6)
    for a, b in zip(one, direct, strict=True):
        assert_allclose(a, b, rtol=1e-13, atol=1e-15)


def test_a_hierarchy_s_start_distribution_is_one_per_combination_of_states():
    from skseq import HierarchicalIOHMM

    rng = np.random.default_rng(0)
    X = [rng.normal(size=(6, 1)) for _ in range(6)]
    y = np.arange(6) % 2
    est = HierarchicalIOHMM((2, 2), startprob=np.ones(3) / 3)
    with pytest.raises(ValueError, match=r"expected \(4,\): one probability for "
                       r"each of the model's 4 hidden states \(a hierarchy's"):
        est.fit(X, y)
