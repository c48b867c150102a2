"""The hierarchical transition family (skseq._families.hierarchy): its free
parameters against the rank of its Jacobian, its hold start level by level, its
restarts in lockstep."""

import numpy as np
import pytest
from _jacobian import jacobian_rank
from numpy.testing import assert_allclose, assert_array_equal

from skseq._families.hierarchy import HierarchicalTransitions
from skseq._families.starts import HOLD_LOGIT
from skseq._kernels.forward_backward import Chain


@pytest.mark.parametrize("learn", [False, True])
def test_hierarchical_free_parameters_are_the_jacobian_rank(learn):
    rng = np.random.default_rng(1)
    family = HierarchicalTransitions((2, 3), 2, (4.0, 2.0), learn)
    theta = family.init(rng, 1.0)
    U = rng.normal(size=(40, 2))
    assert family.n_free_params() == jacobian_rank(
        lambda t: family.probs(t, U), theta)


def test_hold_start_of_the_hierarchy_under_every_parent_value():
    family = HierarchicalTransitions((3, 2), 2, (10.0, 1.0), True)
    random = family.unpack(family.init(np.random.RandomState(0), 1.0))
    hold = family.unpack(family.init(np.random.RandomState(0), 1.0, start="hold"))
    for key in random:
        added = hold[key] - random[key]
        if key.startswith("intercept"):
            n, m, _ = added.shape
            for j in range(n):
                for k in range(m):
                    for i in range(n):
                        want = HOLD_LOGIT if i == j and j > 0 else 0.0
                        assert added[j, k, i] == pytest.approx(want, abs=1e-12)
        elif key == "persistence_logit":
            # learned time scales start at (10, 1), and at 1 with a hold start:
            # logit(w) = log(timescale - 1), kept >= log(0.01)
            assert_allclose(random[key], [np.log(9.0), np.log(0.01)], rtol=1e-12)
            assert_allclose(hold[key], [np.log(0.01), np.log(0.01)], rtol=1e-12)
        else:
            assert_allclose(added, 0.0, atol=1e-12)
    # a held value of the slow level stays with probability >= 0.998 at zero
    # input and zero random weights: e^7 / (e^7 + 2)
    assert np.exp(HOLD_LOGIT) / (np.exp(HOLD_LOGIT) + 2) > 0.998


def _slow_stay(A, n_fast):
    """P(the slow level keeps its value) from product matrices (T, N, N), the
    slow level the most significant digit."""
    T, N, _ = A.shape
    blocks = A.reshape(T, N // n_fast, n_fast, N // n_fast, n_fast).sum(axis=4)
    return np.einsum("tjfj->tjf", blocks)


@pytest.mark.parametrize("logit", [-40.0, -3.0, 0.0, 5.0])
def test_learned_slow_timescale_never_falls_below_its_floor(logit):
    """Time scales (10, 1), floors (4, 1): a logit of -40 sits on the floor,
    and the slow level stays with probability >= 1 - 1/4 whatever its network
    says (here: always move)."""
    floor = 4.0
    family = HierarchicalTransitions((2, 2), 1, (10.0, 1.0), True, (floor, 1.0))
    p = family.unpack(family.init(np.random.RandomState(0), 1.0))
    for s in range(2):
        p[f"coef{s}"][:] = 0.0
        p[f"intercept{s}"][:] = 30.0 * (1 - np.eye(2))[:, None, :]  # move
    theta = family.pack({"coef": [p["coef0"], p["coef1"]],
                         "intercept": [p["intercept0"], p["intercept1"]],
                         "timescales": [10.0, 1.0]})
    theta[-2:] = logit  # persistence_logit, the last block
    sig = 1.0 / (1.0 + np.exp(-logit))
    # 1 / (1 - w), w = w_min + (1 - w_min) sig, 1 - w = (1 - sig) / floor
    want = [floor / (1.0 - sig), 1.0 / (1.0 - sig)]
    timescales = family.coefficients(theta)["timescales"]
    assert_allclose(timescales, want, rtol=1e-12)
    assert timescales[0] >= floor
    stay = _slow_stay(family.probs(theta, np.zeros((3, 1))), 2)
    assert (stay >= 1.0 - 1.0 / floor - 1e-12).all()
    assert_allclose(stay, 1.0 - 1.0 / timescales[0], atol=1e-12)
    # the round trip through the fitted time scales keeps the logit (at -40,
    # 1 + e^-40 rounds to 1: the time scale is the floor itself)
    if logit > -40:
        values = family.coefficients(theta)
        assert_allclose(family.pack(values)[-2:], [logit, logit], atol=1e-9)


def test_hold_start_begins_learned_timescales_at_their_floors():
    family = HierarchicalTransitions((3, 2), 2, (10.0, 1.0), True, (4.0, 1.0))
    theta = family.init(np.random.RandomState(0), 1.0, start="hold")
    # the logit starts at log(0.01): 1 - sigmoid = 1 / 1.01
    assert_allclose(family.coefficients(theta)["timescales"], [4.04, 1.01],
                    rtol=1e-12)
    theta = family.init(np.random.RandomState(0), 1.0)
    assert_allclose(family.coefficients(theta)["timescales"], [10.0, 1.01],
                    rtol=1e-12)


def test_without_floors_a_learned_level_reaches_the_flat_model():
    """min_timescales unset: a single learned level at logit -40 has w ~ 4e-18,
    its matrices the flat IOHMM's softmax of the network."""
    family = HierarchicalTransitions((3,), 2, (300.0,), True)
    theta = family.init(np.random.RandomState(0), 1.0)
    theta[-1] = -40.0
    p = family.unpack(theta)
    U = np.random.default_rng(0).normal(size=(4, 2))
    z = np.einsum("td,djki->tjki", U, p["coef0"]) + p["intercept0"]
    flat = np.exp(z - np.log(np.exp(z).sum(axis=-1, keepdims=True)))[:, :, 0]
    assert_allclose(family.probs(theta, U), flat, atol=1e-15)
    assert family.coefficients(theta)["timescales"][0] == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize("level_states", [(2, 3), (3,), (2, 1, 2)])
def test_batched_restarts_equal_separate_calls_bitwise(level_states, monkeypatch):
    """The lockstep restarts' passes (every set's matrices and gradients in
    whole-array operations, in chunks) give each set the bits of its own
    gradient_pass, whatever the other sets and the chunk size."""
    import skseq._families.passes as passes

    rng = np.random.default_rng(3)
    family = HierarchicalTransitions(level_states, 2, (8.0,) * len(level_states), True)
    U = rng.normal(size=(30, 2))
    offsets, weight = np.array([0, 4, 17, 30]), rng.random(3)
    N, R = family.n_states, 4
    thetas = np.stack([family.init(rng, 1.0) for _ in range(R)])
    startprob = rng.dirichlet(np.ones(N), size=R)
    log_emit = rng.normal(size=(R, 30, N))
    for batch_bytes in (1 << 26, 1):  # all sets at once, one set a chunk
        monkeypatch.setattr(passes, "_BATCH_BYTES", batch_bytes)
        batched = family.gradient_passes(U, None, offsets, weight)
        res = batched(thetas, startprob, log_emit)
        logliks = batched.logliks(thetas, startprob, log_emit)
        for r in range(R):
            chain = Chain(startprob[r], log_emit[r], offsets, weight)
            post, grad = family.gradient_pass(thetas[r], U, None, chain)
            assert_array_equal(res.grad[r], grad)
            assert_array_equal(res.gamma[r], post.gamma)
            assert_array_equal(res.start_post[r], post.start_post)
            assert_array_equal(res.loglik[r], post.loglik)
            assert_array_equal(logliks[r], chain.forward(
                family.probs(thetas[r], U)).loglik)
