"""HierarchicalIOHMM's ``features="auto"``: the representation chosen on
held-out training sequences."""

import numpy as np
import pytest

from skseq._data import check_sequences
from skseq._data.held_out import held_out_half, sequence_keys
from skseq.hierarchical import HierarchicalIOHMM


def _last_step(n, seed):
    """The class is which of two channels is larger at the last step: one
    raw step's linear read-out, where a summary of the whole prefix's shape
    holds the last step only diluted among 128 components."""
    X = np.random.RandomState(seed).standard_normal((n, 10, 2))
    return X, (X[:, -1, 0] > X[:, -1, 1]).astype(int)


def _frequency(n, seed):
    """The class is the period of a sine of random phase (4 or 16 steps): no
    linear network of one step's value tells them apart, the dilated kernels
    of the shape representation do."""
    rng = np.random.RandomState(seed)
    y = np.arange(n) % 2
    t = np.arange(24) + rng.uniform(0, 16, (n, 1))
    period = np.where(y == 1, 4, 16)[:, None]
    X = np.sin(2 * np.pi * t / period) + 0.05 * rng.standard_normal((n, 24))
    return X[:, :, None], y


def _auto(**kw):
    return HierarchicalIOHMM(n_init=1, **{"random_state": 0, **kw})


def test_raw_steps_chosen_where_the_class_is_one_steps_value():
    model = _auto().fit(*_last_step(20, 0))
    assert model.features_ == "raw"
    assert model.features_scores_["raw"] > model.features_scores_["shape"]


def test_shape_chosen_where_the_class_is_a_frequency():
    model = _auto().fit(*_frequency(16, 0))
    assert model.features_ == "shape"
    assert model.features_scores_["shape"] > model.features_scores_["raw"]


def test_the_choice_is_deterministic_and_the_fit_that_of_the_chosen_features():
    X, y = _last_step(20, 1)
    first, second = _auto().fit(X, y), _auto().fit(X, y)
    assert first.features_scores_ == second.features_scores_
    # the comparison draws from its own generator: the final fit is exactly
    # the one with the chosen representation named
    named = _auto(features=first.features_).fit(X, y)
    assert named.features_scores_ is None
    for name in ("emission_coef_", "startprob_", "transition_timescales_"):
        np.testing.assert_array_equal(getattr(first, name), getattr(named, name))


def test_sample_weight_decides_which_sequences_the_choice_serves():
    # the two problems side by side (the frequency series padded with a zero
    # channel); zero weight on one problem leaves the other's choice
    X_last, y_last = _last_step(20, 2)
    X_freq, y_freq = _frequency(16, 2)
    X = [x for x in X_last] + [np.hstack([x, np.zeros_like(x)]) for x in X_freq]
    y = np.concatenate([y_last, y_freq])
    on_last = np.r_[np.ones(20), np.zeros(16)]
    assert _auto().fit(X, y, sample_weight=on_last).features_ == "raw"
    assert _auto().fit(X, y, sample_weight=1 - on_last).features_ == "shape"


def test_symbols_and_too_few_sequences_need_no_comparison():
    X, y = _frequency(16, 0)
    symbols = _auto().fit(np.sign(X), y)  # every feature takes two values
    assert (symbols.features_, symbols.features_scores_) == ("raw", None)
    # a class of one sequence cannot be on both sides: the flat rule's choice
    few = _auto().fit(X[:3], np.array([0, 1, 1]))
    assert (few.features_, few.features_scores_) == ("shape", None)


def test_verbose_reports_the_scores(capsys):
    _auto(verbose=1).fit(*_last_step(20, 0))
    line = [s for s in capsys.readouterr().out.splitlines() if "held-out" in s]
    assert len(line) == 1 and line[0].endswith(": 'raw'")


def test_a_failed_fit_leaves_the_fitted_model_as_it_was():
    X, y = _last_step(20, 0)
    model = _auto().fit(X, y)
    before = {k: v for k, v in vars(model).items() if k.endswith("_")}
    model.set_params(n_states=(2, 0))  # refused after the comparison
    with pytest.raises(ValueError, match="n_states"):
        model.fit(X, y)
    assert model.features_scores_ is before["features_scores_"]
    np.testing.assert_array_equal(model.emission_coef_, before["emission_coef_"])


@pytest.mark.parametrize("labels", [None, np.array([0, 0, 1, 1, 1, 2, 2])])
def test_held_out_half_takes_half_of_each_class(labels):
    held = held_out_half(7, np.random.RandomState(0), labels)
    if labels is None:
        assert held.sum() == 3
    else:
        assert [held[labels == k].sum() for k in range(3)] == [1, 1, 1]
    assert held_out_half(3, np.random.RandomState(0), np.array([0, 1, 1])) is None


def test_the_split_ignores_the_order_and_repetitions_of_the_sequences():
    X, y = _frequency(16, 3)
    keys = sequence_keys(check_sequences(list(X)))
    order = np.random.RandomState(1).permutation(16)
    permuted = sequence_keys(check_sequences(list(X[order])))
    np.testing.assert_array_equal(permuted, keys[order])
    assert np.unique(keys).shape[0] == 16  # distinct sequences, distinct keys
    # a repeated sequence shares its key, so it falls on its copy's side
    held = held_out_half(17, np.random.RandomState(0), np.r_[y, y[0]],
                         np.r_[keys, keys[0]])
    assert held[0] == held[16] and held[:16].sum() == 8
