"""The transition families (skseq._families.transitions) and their starting
points (skseq._families.starts), against independent references: the rank of
their Jacobians, finite differences, the expected log-likelihood computed
directly."""

import numpy as np
import pytest
from _jacobian import jacobian_rank
from numpy.testing import assert_allclose
from scipy.special import log_softmax

from skseq._families.starts import HOLD_LOGIT
from skseq._families.transitions import TRANSITIONS
from skseq._kernels.forward_backward import XI_STEP, Chain


def _masks():
    """Allowed transitions: all; two forbidden; left-right (the last state
    has no choice); one state (none has one); two blocks of two states."""
    some = np.ones((3, 3), bool)
    some[0, 2] = some[2, 1] = False
    blocks = np.kron(np.eye(2, dtype=bool), np.ones((2, 2), bool))
    return {"all": np.ones((3, 3), bool), "some": some,
            "left-right": np.triu(np.tril(np.ones((3, 3), bool), 1)),
            "one state": np.ones((1, 1), bool), "blocks": blocks}


@pytest.mark.parametrize("name", list(TRANSITIONS))
@pytest.mark.parametrize("masked", list(_masks()))
def test_transition_free_parameters_are_the_jacobian_rank(name, masked):
    rng = np.random.default_rng(0)
    mask, d = _masks()[masked], 2
    n = mask.shape[0]
    family = TRANSITIONS[name](n, d, 3)
    theta = family.init(rng, 1.0)
    U = rng.normal(size=(40, d))
    rank = jacobian_rank(lambda t: family.probs(t, U, mask), theta)
    assert family.n_free_params(mask) == rank


def test_mlp_backward_matches_finite_differences():
    family = TRANSITIONS["mlp"](3, 2, 8)
    rng = np.random.default_rng(0)
    theta = family.init(rng, 1.0, start="permutation")
    U, G = rng.normal(size=(7, 2)), rng.normal(size=(7, 3, 3))
    eps = 1e-6
    numeric = [
        (np.sum(G * family.logits(theta + eps * e, U))
         - np.sum(G * family.logits(theta - eps * e, U))) / (2 * eps)
        for e in np.eye(family.n_params)
    ]
    np.testing.assert_allclose(family.backward(theta, U, G), numeric, atol=1e-6)


def _direct_q_trans(family, theta, U, xi):
    """sum xi log softmax(z) by SciPy, from the family's logits."""
    return float(np.sum(xi * log_softmax(family.logits(theta, U), axis=2)))


@pytest.mark.parametrize("name", ["input", "additive", "gated", "mlp"])
@pytest.mark.parametrize("scale", [1.0, 400.0])  # 400: logits beyond +-690
@pytest.mark.parametrize("masked", [False, True])
def test_transition_objective_matches_direct_computation(name, scale, masked):
    rng = np.random.default_rng(0)
    n, d, T = 3, 2, 3000
    family = TRANSITIONS[name](n, d, 4)
    theta = family.init(rng, 1.0)
    U = rng.normal(size=(T, d)) * scale
    mask = np.ones((n, n), bool)
    if masked:
        mask[0, 2] = mask[2, 0] = False
    xi = rng.random((T, n, n)) * mask
    objective = family.m_step_objective(U, xi, mask if masked else None)
    value, grad = objective(theta)
    ref_value, ref_grad = family.expected_log(theta, U, xi.copy(),
                                              mask if masked else None)
    assert_allclose(value, ref_value, rtol=1e-12)
    assert_allclose(grad, ref_grad, rtol=1e-10, atol=1e-10 * np.abs(ref_grad).max())
    if not masked:
        assert_allclose(value, _direct_q_trans(family, theta, U, xi), rtol=1e-10)


@pytest.mark.parametrize("name", ["input", "additive", "gated", "homogeneous", "mlp"])
def test_hold_start_adds_the_stay_logit_to_every_state_but_the_first(name):
    family = TRANSITIONS[name](3, 2, 4)
    random = family.unpack(family.init(np.random.RandomState(0), 1.0))
    hold = family.unpack(family.init(np.random.RandomState(0), 1.0, start="hold"))
    expected = np.diag([0.0, HOLD_LOGIT, HOLD_LOGIT])
    for key in random:
        added = hold[key] - random[key]
        assert_allclose(added, expected if key == "intercept" else 0.0, atol=1e-12)


@pytest.mark.parametrize("name", list(TRANSITIONS))
def test_permutation_start_adds_a_permutation_to_every_square_block(name):
    """Each (n, n) slice (the intercept, each input's weights) gets 3 * scale on
    a permutation matrix; the other blocks are left as drawn."""
    n, scale = 3, 0.5
    family = TRANSITIONS[name](n, 2, 4)
    random = family.unpack(family.init(np.random.RandomState(0), scale))
    moved = family.unpack(family.init(np.random.RandomState(0), scale,
                                      start="permutation"))
    for key in random:
        added = moved[key] - random[key]
        if added.shape[-2:] != (n, n):
            assert_allclose(added, 0.0, atol=1e-12)
            continue
        for block in added.reshape(-1, n, n):
            assert_allclose(np.sort(block, axis=1)[:, :-1], 0.0, atol=1e-12)
            assert_allclose(block.max(axis=1), 3 * scale, rtol=1e-12)
            assert sorted(np.argmax(block, axis=1)) == list(range(n))


def test_only_the_mlp_family_uses_n_hidden():
    """The registry's common signature (n_states, n_features, n_hidden)."""
    for name, family in TRANSITIONS.items():
        small, large = family(3, 2, 2), family(3, 2, 5)
        assert (small.n_params != large.n_params) == (name == "mlp")
    assert TRANSITIONS["mlp"](3, 2, 5).layer.n_hidden == 5


@pytest.mark.parametrize("name", ["input", "additive"])
@pytest.mark.parametrize("n", [3, 8])  # 8: the compiled log-normaliser
def test_fused_e_step_gives_the_m_step_objective_of_the_pairwise_posteriors(name, n):
    # GEM's E-step through the fused pass forms no (T, n, n) posteriors; its
    # M-step objective must equal sum xi log A at the pairwise posteriors of a
    # plain forward-backward, at the E-step's parameters and away from them.
    rng = np.random.default_rng(0)
    d, lengths = 2, rng.integers(1, 9, size=12)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    family = TRANSITIONS[name](n, d)
    theta, other = family.init(rng, 1.0), family.init(rng, 1.0)
    U = rng.normal(size=(offsets[-1], d))
    chain = Chain(rng.dirichlet(np.ones(n)), rng.normal(size=(offsets[-1], n)),
                  offsets, rng.uniform(0.5, 2.0, size=len(lengths)))
    post = family.posterior_pass(theta, U, None, chain)
    assert not isinstance(post.xi, np.ndarray)
    xi = chain.posteriors(family.probs(theta, U, None), XI_STEP).xi
    objective = family.m_step_objective(U, post.xi, None)
    for t in (theta, other, theta):
        value, grad = objective(t)
        ref_value, ref_grad = family.expected_log(t, U, xi.copy(), None)
        assert_allclose(value, ref_value, rtol=1e-10)
        assert_allclose(grad, ref_grad, rtol=1e-8, atol=1e-10 * np.abs(ref_grad).max())
