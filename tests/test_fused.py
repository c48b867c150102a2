"""The fused value-and-gradient pass against independent references.

References: the families' own ``gradient_pass`` (the (T, n, n) matrices, the
forward-backward writing the logit gradient over them, and the family's
``backward``; itself tested against enumeration in test_forward_backward.py),
brute-force enumeration of all state paths, central
finite differences, and a log-space recursion for extreme emissions.
"""

import itertools

import numpy as np
import pytest
from _builds import kernel_build_fixture
from numpy.testing import assert_allclose, assert_array_equal

import skseq._kernels.fused as fused
from skseq._families.transitions import (
    AdditiveTransitions,
    InputTransitions,
    TransitionFamily,
)
from skseq._fit.objective import topology_mask
from skseq._kernels.forward_backward import Chain
from skseq._kernels.fused import linear_transition_pass

FAMILIES = {"input": InputTransitions, "additive": AdditiveTransitions}

kernel_build = kernel_build_fixture("_fused", fused)


def _kernel():
    """The build of the kernel under test."""
    return fused._fused


def _problem(rng, family, lengths, n, d, mask=None, emit_scale=2.0, scale=1.0,
             supervised=0.4):
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.intp)
    T = int(offsets[-1])
    U = rng.normal(size=(T, d))
    coef = rng.normal(scale=scale, size=(d, n, n) if family == "input" else (d, n))
    intercept = rng.normal(scale=scale, size=(n, n))
    log_emit = np.zeros((T, n))
    rows = rng.random(T) < supervised
    log_emit[rows] = -np.abs(rng.normal(size=(rows.sum(), n))) * emit_scale
    startprob = rng.dirichlet(np.ones(n))
    weight = rng.uniform(0.5, 2.0, size=len(lengths))
    return dict(startprob=startprob, coef=coef, intercept=intercept, U=U,
                log_emit=log_emit, offsets=offsets, mask=mask, weight=weight)


def _fused(family, p, **kwargs):
    """The fused pass on one parameter set (R = 1), unbatched results."""
    res = linear_transition_pass(
        family, p["startprob"][None], p["coef"][None], p["intercept"][None], p["U"],
        p["log_emit"][None], p["offsets"], mask=p["mask"], weight=p["weight"],
        **kwargs)
    return (res.loglik[0], res.gamma[0], res.start_post[0], res.grad_theta()[0],
            bool(res.finite[0]))


def _family(family, p):
    n, d = p["startprob"].shape[0], p["U"].shape[1]
    fam = FAMILIES[family](n, d)
    return fam, fam.pack({"coef": p["coef"], "intercept": p["intercept"]})


def _chain(p):
    return Chain(p["startprob"], p["log_emit"], p["offsets"], p["weight"])


def _unfused(family, p):
    """The generic gradient pass of the families: the (T, n, n) matrices, the
    forward-backward writing the logit gradient over them, and the family's
    backward."""
    fam, theta = _family(family, p)
    with np.errstate(over="ignore", invalid="ignore"):
        post, grad = TransitionFamily.gradient_pass(fam, theta, p["U"], p["mask"],
                                                    _chain(p))
    return post.loglik, post.gamma, post.start_post, grad


def _assert_matches_unfused(family, p, rtol=1e-10):
    ll, gamma, start_post, grad, finite = _fused(family, p)
    ll_r, gamma_r, start_r, grad_r = _unfused(family, p)
    assert finite
    assert_allclose(ll, ll_r, rtol=rtol, atol=1e-12)
    assert_allclose(gamma, gamma_r, rtol=rtol, atol=1e-12)
    assert_allclose(start_post, start_r, rtol=rtol, atol=1e-12)
    # relative to the gradient's scale: entries near 0 are sums that cancel
    assert_allclose(grad, grad_r, rtol=0, atol=rtol * max(1.0, np.abs(grad_r).max()))


@pytest.mark.parametrize("family", ["input", "additive"])
@pytest.mark.parametrize("n", [1, 2, 3, 8, 9])
@pytest.mark.parametrize("topology", ["ergodic", "left-right"])
def test_matches_unfused_path(family, n, topology):
    rng = np.random.default_rng(n)
    lengths = rng.integers(1, 40, size=23)
    lengths[:3] = [1, 1, 2]
    mask = topology_mask(topology, n)
    p = _problem(rng, family, lengths, n, d=5, mask=mask)
    _assert_matches_unfused(family, p)


@pytest.mark.parametrize("family", ["input", "additive"])
def test_long_sequences_recompute_their_blocks(family):
    """Sequences longer than a block take the path that forms their matrices
    again in the backward pass; mixed with short ones, and one exactly a block."""
    rng = np.random.default_rng(4)
    block = _kernel().block_steps(8)
    p = _problem(rng, family, [3, 2 * block + 300, 7, block + 1, block, 20], 8, d=3)
    _assert_matches_unfused(family, p)


def _enumerate(startprob, trans, log_emit):
    """log P(y) and state posteriors of one sequence over all paths x_0..x_T."""
    n, T = startprob.shape[0], log_emit.shape[0]
    joint = {}
    for path in itertools.product(range(n), repeat=T + 1):
        prob = startprob[path[0]]
        for t in range(T):
            prob *= trans[t, path[t], path[t + 1]] * np.exp(log_emit[t, path[t + 1]])
        joint[path] = prob
    total = sum(joint.values())
    gamma = np.zeros((T, n))
    start = np.zeros(n)
    for path, prob in joint.items():
        start[path[0]] += prob / total
        for t in range(T):
            gamma[t, path[t + 1]] += prob / total
    return np.log(total), gamma, start


@pytest.mark.parametrize("family", ["input", "additive"])
def test_matches_enumeration(family):
    rng = np.random.default_rng(7)
    n, d = 3, 2
    p = _problem(rng, family, [4, 1, 3], n, d, supervised=1.0)
    ll, gamma, start_post, _, _ = _fused(family, p)
    for s, (t0, t1) in enumerate(zip(p["offsets"][:-1], p["offsets"][1:],
                                     strict=True)):
        U = p["U"][t0:t1]
        if family == "input":
            z = np.einsum("tk,kji->tji", U, p["coef"]) + p["intercept"]
        else:
            z = (U @ p["coef"])[:, None, :] + p["intercept"]
        trans = np.exp(z) / np.exp(z).sum(axis=2, keepdims=True)
        ll_bf, gamma_bf, start_bf = _enumerate(p["startprob"], trans,
                                               p["log_emit"][t0:t1])
        w = p["weight"][s]
        assert_allclose(ll[s], ll_bf, rtol=1e-12)
        assert_allclose(gamma[t0:t1], w * gamma_bf, rtol=1e-10, atol=1e-13)
        assert_allclose(start_post[s], w * start_bf, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("family", ["input", "additive"])
@pytest.mark.parametrize("topology", ["ergodic", "left-right"])
def test_gradient_matches_finite_differences(family, topology):
    rng = np.random.default_rng(11)
    n, d = 3, 2
    p = _problem(rng, family, [5, 2, 6], n, d, mask=topology_mask(topology, n))
    grad = _fused(family, p)[3]

    def value(theta):
        q = dict(p)
        q["coef"] = theta[: p["coef"].size].reshape(p["coef"].shape)
        q["intercept"] = theta[p["coef"].size :].reshape(n, n)
        return p["weight"] @ _fused(family, q)[0]

    theta = np.concatenate([p["coef"].ravel(), p["intercept"].ravel()])
    eps = 1e-6
    num = np.array([(value(theta + eps * e) - value(theta - eps * e)) / (2 * eps)
                    for e in np.eye(theta.size)])
    assert_allclose(grad, num, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("family", ["input", "additive"])
def test_extreme_emissions_take_the_shifted_path(family):
    """Emissions down to -1e4 and up to +800 (beyond exp's range): finite, equal
    to the unfused kernel and to a log-space recursion."""
    rng = np.random.default_rng(5)
    n = 3
    p = _problem(rng, family, [60, 1, 25], n, d=2)
    p["log_emit"] = rng.uniform(-1e4, 0, size=p["log_emit"].shape)
    p["log_emit"][::7] = rng.uniform(700, 800, size=p["log_emit"][::7].shape)
    ll, gamma, _, grad, finite = _fused(family, p)
    assert finite and np.isfinite(gamma).all()
    _assert_matches_unfused(family, p)
    # log-space forward recursion of the first sequence
    U, le = p["U"][:60], p["log_emit"][:60]
    z = (np.einsum("tk,kji->tji", U, p["coef"]) if family == "input"
         else (U @ p["coef"])[:, None, :]) + p["intercept"]
    log_trans = z - np.logaddexp.reduce(z, axis=2, keepdims=True)
    log_a = np.log(p["startprob"])
    for t in range(60):
        log_a = np.logaddexp.reduce(log_a[:, None] + log_trans[t], axis=0) + le[t]
    assert_allclose(ll[0], np.logaddexp.reduce(log_a), rtol=1e-12)


@pytest.mark.parametrize("family", ["input", "additive"])
def test_impossible_targets_give_minus_inf_and_no_gradient(family):
    """A sequence whose target no reachable state can emit: loglik -inf, zero
    posteriors, and the gradient of the others alone; reported not finite."""
    rng = np.random.default_rng(8)
    n = 8
    block = _kernel().block_steps(n)
    lengths = [4, 6, 3, block + 200]  # the last one is longer than a block
    p = _problem(rng, family, lengths, n, d=2, mask=topology_mask("left-right", n))
    p["startprob"] = np.eye(n)[0]
    # Left-right from state 0: after one step only states 0 and 1 are reachable.
    p["log_emit"][4, :2] = -np.inf  # first step of sequence 1
    p["log_emit"][-lengths[3], :2] = -np.inf  # first step of sequence 3
    ll, gamma, start_post, grad, finite = _fused(family, p)
    assert not finite
    assert ll[1] == -np.inf and ll[3] == -np.inf
    assert np.isfinite(ll[[0, 2]]).all()
    assert not gamma[4:10].any() and not gamma[-lengths[3]:].any()
    assert not start_post[[1, 3]].any()
    q = dict(p)
    q["weight"] = p["weight"] * np.array([1.0, 0.0, 1.0, 0.0])
    q["log_emit"] = p["log_emit"].copy()
    q["log_emit"][4, :2] = 0.0
    q["log_emit"][-lengths[3], :2] = 0.0
    _, gamma_q, start_q, grad_q, _ = _fused(family, q)
    assert_allclose(grad, grad_q, rtol=1e-12, atol=1e-14)
    assert_allclose(gamma[:4], gamma_q[:4], rtol=1e-12)


@pytest.mark.parametrize("family", ["input", "additive"])
def test_wide_logits_take_the_shifted_softmax(family):
    """Logits beyond +-690 (exp would overflow) still give the exact softmax."""
    rng = np.random.default_rng(9)
    p = _problem(rng, family, [30, 12], 4, d=3, scale=300.0)
    assert np.abs(p["coef"]).max() * np.abs(p["U"]).max() > 690
    _assert_matches_unfused(family, p, rtol=1e-9)


def test_additive_factored_exponentials_fall_back_when_they_underflow():
    """exp(a_i - max a) exp(B_ji - max B_j) can underflow where the row's own
    logits do not (a = (0, -800), B_0 = (-800, 0)): that row is redone directly."""
    p = dict(startprob=np.array([0.5, 0.5]), coef=np.array([[0.0, -800.0]]),
             intercept=np.array([[-800.0, 0.0], [0.0, 0.0]]),
             U=np.array([[1.0], [0.5], [1.0]]), log_emit=np.log([[0.9, 0.2]] * 3),
             offsets=np.array([0, 3], dtype=np.intp), mask=None,
             weight=np.array([1.0]))
    _assert_matches_unfused("additive", p)
    # row 0 of step 0 has logits (-800, -800): uniform
    n, d = 2, 1
    res = linear_transition_pass("additive", p["startprob"][None], p["coef"][None],
                                 p["intercept"][None], p["U"], p["log_emit"][None],
                                 p["offsets"])
    assert np.isfinite(res.grad_theta()).all() and res.finite[0]
    assert res.grad_coef.shape == (1, d, n)


@pytest.mark.parametrize("family", ["input", "additive"])
def test_inputs_near_the_float64_limit_saturate_the_logits(family):
    """Products u_t coef that overflow saturate at +-1e300 as linear_map does: the
    same log-likelihoods and posteriors as the unfused path. (One feature: with
    several, whether a partial sum overflows depends on the summation order.)"""
    rng = np.random.default_rng(12)
    n = 3
    p = _problem(rng, family, [6, 5], n, d=1, scale=3.0)
    p["U"][2] = 1e308
    p["U"][7] = -1e308
    assert np.abs(p["coef"]).max() > 1.8  # some products overflow
    ll, gamma, start_post, grad, finite = _fused(family, p)
    ll_r, gamma_r, start_r, grad_r = _unfused(family, p)
    assert np.isfinite(ll).all() and np.isfinite(gamma).all()
    assert_allclose(ll, ll_r, rtol=1e-10)
    assert_allclose(gamma, gamma_r, rtol=1e-10, atol=1e-12)
    assert_allclose(start_post, start_r, rtol=1e-10, atol=1e-12)
    # the gradient holds u_t G_t: overflowed (and reported) or equal
    assert finite == bool(np.isfinite(grad_r).all())
    if finite:
        assert_allclose(grad, grad_r, rtol=1e-10)


def test_several_huge_features_give_valid_probabilities():
    rng = np.random.default_rng(18)
    p = _problem(rng, "input", [6, 5], 3, d=2)
    p["U"][2] = [1e308, -1e308]
    ll, gamma, start_post, _, _ = _fused("input", p)
    assert np.isfinite(ll).all()
    assert_allclose(gamma.sum(axis=1), np.repeat(p["weight"], [6, 5]), rtol=1e-10)


def test_non_finite_parameters_are_reported():
    rng = np.random.default_rng(13)
    p = _problem(rng, "input", [4, 4], 2, d=2)
    p["coef"][0, 0, 0] = np.nan
    assert not _fused("input", p)[4]


@pytest.mark.parametrize("family", ["input", "additive"])
def test_batched_restarts_equal_separate_calls_bitwise(family):
    rng = np.random.default_rng(14)
    n, d, R = 4, 3, 3
    p = _problem(rng, family, rng.integers(1, 60, size=40), n, d)
    coef = rng.normal(size=(R, *p["coef"].shape))
    intercept = rng.normal(size=(R, n, n))
    startprob = rng.dirichlet(np.ones(n), size=R)
    log_emit = np.stack([p["log_emit"] * (r + 1) for r in range(R)])
    batch = linear_transition_pass(family, startprob, coef, intercept, p["U"],
                                   log_emit, p["offsets"], weight=p["weight"])
    for r in range(R):
        one = linear_transition_pass(family, startprob[r : r + 1], coef[r : r + 1],
                                     intercept[r : r + 1], p["U"], log_emit[r : r + 1],
                                     p["offsets"], weight=p["weight"])
        for a, b in zip(batch, one, strict=True):
            assert_array_equal(a[r], b[0])


@pytest.mark.parametrize("family", ["input", "additive"])
def test_threads_give_bitwise_identical_results(family, monkeypatch):
    monkeypatch.setattr(fused, "_MIN_WORK_PER_THREAD", 1)
    monkeypatch.setattr(fused, "_CHUNK_STEPS", 50)
    rng = np.random.default_rng(15)
    n, d, R = 3, 2, 2
    p = _problem(rng, family, rng.integers(1, 40, size=60), n, d)
    args = (family, np.tile(p["startprob"], (R, 1)),
            np.stack([p["coef"], 2 * p["coef"]]),
            np.stack([p["intercept"], -p["intercept"]]), p["U"],
            np.stack([p["log_emit"]] * R), p["offsets"])
    assert len(fused.sequence_chunks(p["offsets"])) > 4
    one = linear_transition_pass(*args, weight=p["weight"], n_jobs=1)
    two = linear_transition_pass(*args, weight=p["weight"], n_jobs=2)
    for a, b in zip(one, two, strict=True):
        assert_array_equal(a, b)


def test_chunks_depend_on_the_data_only():
    offsets = np.concatenate([[0], np.cumsum(np.full(100, 50))]).astype(np.intp)
    chunks = fused.sequence_chunks(offsets)
    assert chunks[0][0] == 0 and chunks[-1][1] == 100
    assert all(a < b for a, b in chunks)
    assert all(b == c for (_, b), (c, _) in itertools.pairwise(chunks))
    assert len(fused.sequence_chunks(np.array([0, 10**6], dtype=np.intp))) == 1


def test_empty_sequence_has_loglik_zero():
    rng = np.random.default_rng(16)
    p = _problem(rng, "input", [3, 0, 2], 2, d=2)
    ll, gamma, start_post, _, finite = _fused("input", p)
    assert finite and ll[1] == 0.0
    assert_allclose(start_post[1], p["weight"][1] * p["startprob"])
    _assert_matches_unfused("input", p)


@pytest.mark.parametrize("family", ["input", "additive"])
def test_a_long_sequence_stays_finite(family):
    rng = np.random.default_rng(17)
    n, T = 3, 100_000
    p = _problem(rng, family, [T], n, d=2, supervised=0.05)
    ll, gamma, start_post, grad, finite = _fused(family, p)
    assert finite and np.isfinite(ll).all() and np.isfinite(gamma).all()
    assert ll[0] < -100  # thousands of supervised steps
    assert_allclose(gamma.sum(axis=1), p["weight"][0], rtol=1e-10)


@pytest.mark.parametrize(
    "change, match",
    [
        (dict(coef=np.zeros((1, 2, 3, 3))), "coef has shape"),
        (dict(intercept=np.zeros((1, 2, 3))), "intercept has shape"),
        (dict(log_emit=np.zeros((1, 4, 2))), "log_emit has shape"),
        (dict(offsets=np.array([0, 3])), "offsets must rise"),
        (dict(mask=np.array([[1, 0], [0, 0]])), "allowed entry in every row"),
        (dict(weight=np.ones(3)), "weight has shape"),
        (dict(family="gated"), "family must be one of"),
    ],
)
def test_bad_shapes_are_rejected(change, match):
    args = dict(family="input", startprob=np.full((1, 2), 0.5),
                coef=np.zeros((1, 2, 2, 2)), intercept=np.zeros((1, 2, 2)),
                U=np.zeros((5, 2)), log_emit=np.zeros((1, 5, 2)),
                offsets=np.array([0, 2, 5]), mask=None, weight=None)
    args.update(change)
    with pytest.raises(ValueError, match=match):
        linear_transition_pass(args.pop("family"), args.pop("startprob"),
                               args.pop("coef"), args.pop("intercept"), args.pop("U"),
                               args.pop("log_emit"), args.pop("offsets"), **args)


@pytest.mark.parametrize("family", ["input", "additive"])
def test_the_families_gradient_pass_is_the_fused_one(family):
    """family.gradient_pass runs the fused kernel: the generic pass's
    posteriors and gradient in the family's order, without the (T, n, n)
    statistics; gradient_passes gives the same for a batch."""
    rng = np.random.default_rng(19)
    p = _problem(rng, family, rng.integers(1, 30, size=12), 3, d=4,
                 mask=topology_mask("left-right", 3))
    fam, theta = _family(family, p)
    post, grad = fam.gradient_pass(theta, p["U"], p["mask"], _chain(p))
    ll, gamma, start_post, grad_r = _unfused(family, p)
    assert post.xi is None
    assert_allclose(post.loglik, ll, rtol=1e-12)
    assert_allclose(post.gamma, gamma, rtol=1e-10, atol=1e-13)
    assert_allclose(post.start_post, start_post, rtol=1e-10, atol=1e-13)
    assert_allclose(grad, grad_r, rtol=0, atol=1e-10 * np.abs(grad_r).max())
    thetas = np.stack([theta, 2 * theta])
    passes = fam.gradient_passes(p["U"], p["mask"], p["offsets"], p["weight"])
    batch = passes(thetas, np.stack([p["startprob"]] * 2),
                   np.stack([p["log_emit"]] * 2))
    assert_array_equal(batch.grad[0], grad)
    assert_array_equal(batch.loglik[0], post.loglik)
    assert_array_equal(passes.logliks(thetas, np.stack([p["startprob"]] * 2),
                                      np.stack([p["log_emit"]] * 2)), batch.loglik)
    q = dict(p, coef=2 * p["coef"], intercept=2 * p["intercept"])
    assert_allclose(batch.grad[1], _unfused(family, q)[3], rtol=0,
                    atol=1e-10 * np.abs(batch.grad[1]).max())


def test_a_nonlinear_layer_takes_the_generic_pass():
    from skseq._families.layers import TanhLayer

    fam = InputTransitions(2, 3, layer=TanhLayer(3, 4))
    post, _ = fam.gradient_pass(fam.init(np.random.default_rng(0), 1.0),
                                np.zeros((4, 3)), None,
                                Chain(np.full(2, 0.5), np.zeros((4, 2)),
                                      np.array([0, 4])))
    assert post.xi is not None


# -- the GEM M-step's log-normaliser (LinearNormalizer) ------------------------------
def _direct_normalizer(family, coef, intercept, U, rows):
    """sum_t,j rows[t, j] logsumexp_i z_t[j, i] and its gradient, step by step."""
    from scipy.special import logsumexp, softmax

    n = intercept.shape[0]
    value, g_coef, g_b = 0.0, np.zeros_like(coef), np.zeros_like(intercept)
    for u, r in zip(U, rows, strict=True):
        if family == "input":
            z = np.einsum("k,kji->ji", u, coef) + intercept
        else:
            z = (u @ coef)[None, :] + intercept
        value += r @ logsumexp(z, axis=1)
        G = r[:, None] * softmax(z, axis=1)  # d value / d z
        g_b += G
        g_coef += (np.einsum("k,ji->kji", u, G) if family == "input"
                   else np.outer(u, G.sum(axis=0)))
    assert g_coef.shape == coef.shape and n == rows.shape[1]
    return value, g_coef, g_b


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("scale", [1.0, 400.0])  # 400: logits beyond +-690, shifted
def test_normalizer_matches_a_direct_computation(family, scale):
    rng = np.random.default_rng(11)
    n, d = 3, 2
    # more steps than one block of the kernel (block_steps(3) = 14,563)
    T = _kernel().block_steps(n) + 37
    U = rng.normal(size=(T, d))
    rows = rng.random((T, n))
    coef = scale * rng.normal(size=(d, n, n) if family == "input" else (d, n))
    intercept = rng.normal(size=(n, n))
    value, g_coef, g_b = fused.LinearNormalizer(family, U, rows)(coef, intercept)
    ref = _direct_normalizer(family, coef, intercept, U[:200], rows[:200])
    head = fused.LinearNormalizer(family, U[:200], rows[:200])(coef, intercept)
    assert_allclose(head[0], ref[0], rtol=1e-12)
    assert_allclose(head[1], ref[1], rtol=1e-10, atol=1e-10)
    assert_allclose(head[2], ref[2], rtol=1e-10, atol=1e-10)
    # the whole data set (several blocks): the sum of its two halves
    cut = T // 2
    parts = [fused.LinearNormalizer(family, U[a:b], rows[a:b])(coef, intercept)
             for a, b in ((0, cut), (cut, T))]
    assert_allclose(value, parts[0][0] + parts[1][0], rtol=1e-12)
    assert_allclose(g_coef, parts[0][1] + parts[1][1], rtol=1e-10)
    assert_allclose(g_b, parts[0][2] + parts[1][2], rtol=1e-10)


@pytest.mark.parametrize("family", FAMILIES)
def test_normalizer_gradient_matches_finite_differences(family):
    rng = np.random.default_rng(12)
    n, d, T = 3, 2, 40
    U, rows = rng.normal(size=(T, d)), rng.random((T, n))
    coef = rng.normal(size=(d, n, n) if family == "input" else (d, n))
    intercept = rng.normal(size=(n, n))
    norm = fused.LinearNormalizer(family, U, rows)
    _, g_coef, g_b = norm(coef, intercept)
    theta = np.concatenate([coef.ravel(), intercept.ravel()])

    def f(th):
        return norm(th[: coef.size].reshape(coef.shape),
                    th[coef.size :].reshape(n, n))[0]

    eps = 1e-6
    fd = [(f(theta + eps * e) - f(theta - eps * e)) / (2 * eps)
          for e in np.eye(theta.size)]
    assert_allclose(np.concatenate([g_coef.ravel(), g_b.ravel()]), fd, rtol=1e-7,
                    atol=1e-7)


@pytest.mark.parametrize("family", FAMILIES)
def test_m_step_objective_through_the_kernel_equals_the_pairwise_one(family):
    """The M-step objective of the fused families (the linear part from xi once,
    the normaliser through the kernel) against sum xi log A computed from xi
    directly (TransitionFamily.expected_log, no sharing)."""
    from skseq._families.transitions import LinearSoftmaxObjective, SoftmaxTransitions

    rng = np.random.default_rng(13)
    n, d, T = 8, 3, 300  # the kernel runs from 8 states
    fam = FAMILIES[family](n, d)
    U = rng.normal(size=(T, d))
    xi = rng.random((T, n, n))
    theta = fam.init(rng, 1.0) + rng.normal(size=fam.n_params)
    objective = LinearSoftmaxObjective(fam, U, xi)
    assert objective.fused is not None
    value, grad = objective(theta)
    ref_value, ref_grad = SoftmaxTransitions.expected_log(fam, theta, U, xi.copy(),
                                                          None)
    assert_allclose(value, ref_value, rtol=1e-12)
    assert_allclose(grad, ref_grad, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("transition", ["input", "additive"])
@pytest.mark.parametrize("topology", ["ergodic", "left-right"])
def test_score_samples_through_the_kernel_equal_the_forward_pass(transition,
                                                                  topology):
    """score_samples takes the fused pass for these families; the unfused
    forward recursion over the (T, n, n) matrices gives the same values."""
    from skseq import IOHMMClassifier

    rng = np.random.default_rng(14)
    X = [rng.normal(size=(int(rng.integers(1, 12)), 2)) for _ in range(25)]
    y = [int(x[-1, 0] > 0) for x in X]
    clf = IOHMMClassifier(n_states=3, transition=transition, topology=topology,
                          features="raw", n_init=1, max_iter=15,
                          random_state=0).fit(X, y)
    seqs = clf._checked(X)
    targets = clf.outputs_.encode(y, seqs)
    model = clf._fitted_model()
    U, U_targets = clf._inputs(seqs, targets.steps)
    log_emit = model.log_emissions(U.shape[0], U_targets, targets)
    forward = model.forward(seqs.offsets, model.transitions(U), log_emit,
                            None).loglik
    assert_allclose(clf.score_samples(X, y), forward, rtol=1e-10, atol=1e-12)
