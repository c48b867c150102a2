"""Long memory: the toggled-regimes generator and the restarts' starting points."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score

from skseq import IOHMMClassifier, IOHMMRegressor
from skseq.datasets import make_toggled_regimes, make_two_sequence
from skseq.hierarchical import HierarchicalIOHMM


# -- the generator -------------------------------------------------------------
def test_toggled_regimes_are_the_parity_of_the_events():
    X, y, regimes = make_toggled_regimes(6, max_length=40, n_features=3,
                                         event_rate=0.2, trigger_noise=0.4,
                                         noise=0.0, random_state=1,
                                         return_regimes=True)
    a = np.full(3, 2.0 / np.sqrt(3))
    for x, target, regime in zip(X, y, regimes, strict=True):
        assert x.shape == (len(target), 4)
        # the regime by a plain loop: flip at every step whose trigger is high
        state, by_hand = 0, []
        for t in range(len(x)):
            if x[t, -1] > 0.5:  # margin: 1 - 2 * 0.4 around 0.5
                state = 1 - state
            by_hand.append(state)
        assert_array_equal(regime, by_hand)
        sign = np.where(np.array(by_hand) == 0, 1.0, -1.0)
        # noise=0: the target is the regime's law exactly
        assert_allclose(target, sign * (x[:, :3] @ a + 1.0), rtol=1e-12, atol=1e-12)


def test_toggled_regimes_need_memory():
    # the pooled linear law of the current input explains about nothing; the
    # true regime's law explains 5 / (5 + 0.3^2) of the variance
    X, y, regimes = make_toggled_regimes(200, max_length=100, random_state=0,
                                         return_regimes=True)
    U, Y, R = np.concatenate(X), np.concatenate(y), np.concatenate(regimes)
    assert LinearRegression().fit(U, Y).score(U, Y) < 0.05
    oracle = (1.0 - 2.0 * R) * (2.0 * U[:, 0] + 1.0)
    assert abs(r2_score(Y, oracle) - 5 / 5.09) < 0.01
    assert 0.3 < R.mean() < 0.7  # both regimes are visited


def test_toggled_regimes_deterministic_and_lengths():
    a = make_toggled_regimes(5, max_length=30, min_length=10, random_state=3)
    b = make_toggled_regimes(5, max_length=30, min_length=10, random_state=3)
    for u, v in zip(a[0] + a[1], b[0] + b[1], strict=True):
        assert_array_equal(u, v)
    assert all(10 <= len(x) <= 30 for x in a[0])


@pytest.mark.parametrize("kwargs, match", [
    ({"event_rate": 1.5}, "event_rate must be a finite number in"),
    ({"noise": -1.0}, "noise must be a finite number >= 0"),
    ({"trigger_noise": float("nan")}, "trigger_noise"),
    ({"n_features": 0}, "n_features must be an integer >= 1"),
    ({"max_length": 0}, "max_length"),
])
def test_toggled_regimes_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_toggled_regimes(3, **kwargs)


# -- starting points -------------------------------------------------------------
def test_init_cycles_through_the_listed_starts():
    X, y = make_two_sequence(20, max_length=8, random_state=0)
    kw = dict(n_init=4, max_iter=5, random_state=0)
    auto = IOHMMClassifier(2, features="raw", **kw).fit(X, y)
    listed = IOHMMClassifier(2, features="raw", init=["random", "permutation"],
                             **kw).fit(X, y)
    assert_array_equal(auto.init_objectives_, listed.init_objectives_)
    hold = IOHMMClassifier(2, features="raw", init="hold", **kw).fit(X, y)
    assert not np.array_equal(auto.init_objectives_, hold.init_objectives_)


# written out by hand: three hold starts to one other, random and permutation in turn
HOLD_CYCLE = ["hold", "hold", "hold", "random", "hold", "hold", "hold", "permutation"]
RANDOM_CYCLE = ["random", "permutation"]


@pytest.mark.parametrize("n_states, learn, cycle, other", [
    ((2, 2), True, RANDOM_CYCLE, HOLD_CYCLE),
    ((2, 2, 2), True, RANDOM_CYCLE, ["permutation"]),
    ((2, 3), True, HOLD_CYCLE, ["permutation"]),
    ((3, 2), True, HOLD_CYCLE, RANDOM_CYCLE),
    ((3,), True, HOLD_CYCLE, ["permutation"]),
    ((3, 2), False, RANDOM_CYCLE, HOLD_CYCLE),
])
def test_hierarchy_auto_starts_hold_only_with_a_level_of_3_values(n_states, learn,
                                                                   cycle, other):
    # A level of 2 values has one held value, which cannot tell what it read:
    # with learned time scales "auto" includes hold starts only when some level
    # has 3 values or more.
    X, y = make_two_sequence(12, max_length=6, random_state=0)
    timescales = tuple(10.0 ** k for k in reversed(range(len(n_states))))
    kw = dict(n_states=n_states, timescales=timescales, learn_timescales=learn,
              n_init=3, max_iter=3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        auto = HierarchicalIOHMM(**kw).fit(X, y)
        listed = HierarchicalIOHMM(init=cycle, **kw).fit(X, y)
        other = HierarchicalIOHMM(init=other, **kw).fit(X, y)
    assert_array_equal(auto.init_objectives_, listed.init_objectives_)
    assert not np.array_equal(auto.init_objectives_, other.init_objectives_)


def test_hierarchy_auto_starts_are_three_holds_to_one_other():
    # Restart k of n_init=9 from the kind written by hand for k = 0..8: the
    # cycle of 8 and its wrap to a hold start; the previous cycle (hold,
    # random, permutation in turn) differs from the second restart on.
    X, y = make_two_sequence(12, max_length=6, random_state=0)
    kw = dict(n_states=(3,), timescales=(10,), features="raw", n_init=9, max_iter=3,
              random_state=0)
    by_hand = ["hold", "hold", "hold", "random", "hold", "hold", "hold",
               "permutation", "hold"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        auto = HierarchicalIOHMM(**kw).fit(X, y)
        listed = HierarchicalIOHMM(init=by_hand, **kw).fit(X, y)
        previous = HierarchicalIOHMM(init=["hold", "random", "permutation"],
                                     **kw).fit(X, y)
    assert_array_equal(auto.init_objectives_, listed.init_objectives_)
    assert auto.init_objectives_[0] == previous.init_objectives_[0]
    assert np.all(auto.init_objectives_[1:3] != previous.init_objectives_[1:3])


@pytest.mark.parametrize("init, match", [
    ([], "non-empty list"),
    (["hold", "identity"], "'identity' is none of them"),
])
def test_init_errors(init, match):
    X, y = make_two_sequence(6, max_length=5, random_state=0)
    with pytest.raises(ValueError, match=match):
        IOHMMClassifier(2, features="raw", init=init).fit(X, y)
    with pytest.raises(ValueError, match="init"):
        IOHMMClassifier(2, init="identity").fit(X, y)


# -- fits that must find memory ----------------------------------------------------
def test_regressor_recovers_a_toggle():
    X, y, regimes = make_toggled_regimes(50, max_length=30, random_state=0,
                                         return_regimes=True)
    reg = IOHMMRegressor(2, random_state=0).fit(X[:30], y[:30])
    oracle = r2_score(np.concatenate(y[30:]), np.concatenate(
        [(1.0 - 2.0 * r) * (2.0 * x[:, 0] + 1.0) for x, r in
         zip(X[30:], regimes[30:], strict=True)]))
    assert reg.score(X[30:], y[30:]) > 0.95 * oracle
    # the filtered states are the regimes, up to the states' names
    states = np.concatenate([p.argmax(axis=1) for p in
                             reg.predict_state_proba(X[30:])])
    agree = np.mean(states == np.concatenate(regimes[30:]))
    assert max(agree, 1 - agree) > 0.97


@pytest.mark.parametrize("data_seed", [0, 3])
def test_hierarchy_with_hold_starts_reads_the_first_steps(data_seed):
    # 3 pattern steps then 47-57 steps of noise of the same range: the model
    # must read the pattern and keep it (the long-memory problem, small)
    X, y = make_two_sequence(240, max_length=60, min_length=50,
                             random_state=data_seed)
    # on raw steps (the shape representation's prefix means read the first
    # steps from any start)
    kw = dict(features="raw", n_init=2, random_state=0)
    default = HierarchicalIOHMM((3, 2), **kw).fit(X[:40], y[:40])
    assert default.score(X[40:], y[40:]) >= 0.95
    # random starts diffuse the state and fit the noise instead
    random = HierarchicalIOHMM((3, 2), init="random", **kw).fit(X[:40], y[:40])
    assert random.score(X[40:], y[40:]) < 0.7
