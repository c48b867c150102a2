"""HierarchicalIOHMM's ``features="auto"``: the representation chosen on
held-out training sequences."""

import numpy as np
import pytest

import skseq._base_features as base_features
from skseq._data import check_sequences
from skseq._data.held_out import (
    held_out_folds,
    held_out_half,
    held_out_subsample,
    sequence_keys,
)
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
    return HierarchicalIOHMM(n_init=1, max_iter=40, **{"random_state": 0, **kw})


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


def test_held_out_half_takes_half_of_the_sequences():
    assert held_out_half(7, np.random.RandomState(0)).sum() == 3


@pytest.mark.parametrize("n_folds", [2, 3, 5])
def test_the_folds_deal_every_class_evenly(n_folds):
    labels = np.array([0, 0, 1, 1, 1, 2, 2, 2, 2, 2, 2])
    folds = held_out_folds(n_folds, np.random.RandomState(0), labels,
                           np.arange(11.0))
    for members in ([0, 1], [2, 3, 4], list(range(5, 11)), list(range(11))):
        counts = np.bincount(folds[members], minlength=n_folds)
        assert counts.max() - counts.min() <= 1
    # a class of 2 falls in 2 folds: every fold's complement holds it
    assert folds[0] != folds[1]
    assert held_out_folds(n_folds, np.random.RandomState(0), np.array([0, 1, 1]),
                          np.arange(3.0)) is None


def test_the_split_ignores_the_order_and_repetitions_of_the_sequences():
    X, y = _frequency(16, 3)
    keys = sequence_keys(check_sequences(list(X)))
    order = np.random.RandomState(1).permutation(16)
    permuted = sequence_keys(check_sequences(list(X[order])))
    np.testing.assert_array_equal(permuted, keys[order])
    assert np.unique(keys).shape[0] == 16  # distinct sequences, distinct keys
    # a repeated sequence shares its key, so it falls on its copy's side
    folds = held_out_folds(2, np.random.RandomState(0), np.r_[y, y[0]],
                           np.r_[keys, keys[0]])
    assert folds[0] == folds[16] and np.sum(folds[:16] == 0) == 8
    # a sequence of weight 0 (key NaN) is never held out
    folds = held_out_folds(2, np.random.RandomState(0), y, np.r_[keys[:15], np.nan])
    assert folds[15] == -1 and np.all(folds[:15] >= 0)
    # a class only in sequences of weight 0 is in no fit: it does not stop
    # the split (it used to, and features="auto" then ranked nothing)
    folds = held_out_folds(2, np.random.RandomState(0), np.r_[y, 7, 7],
                           np.r_[keys, np.nan, np.nan])
    assert np.all(folds[16:] == -1) and np.sum(folds[:16] == 0) == 8


def _fake_scores(table, calls):
    """A stand-in for the ranking fits: the next score of ``table[features]``,
    each call's ``n_init`` recorded."""
    def score(estimator, features, n_init, seed, fit_part, held_part):
        calls.append((features, n_init))
        return table[features][sum(f == features for f, _ in calls) - 1]
    return score


@pytest.mark.parametrize("raw, n_raw_fits, chosen", [
    ([0.2, 1, 1, 1, 1], 1, "shape"),     # 0.2 + 4 < 5 * 0.9 after one fold
    ([0.6, 0.7, 1, 1, 1], 2, "shape"),   # 1.3 + 3 < 4.5 after two
    ([1, 1, 1, 1, 0.5], 5, "raw"),       # a tie (0.9) goes to raw steps
    ([0.6, 1, 1, 1, 1], 5, "raw"),
])
def test_raw_steps_stop_once_they_cannot_reach_the_shape(monkeypatch, raw,
                                                         n_raw_fits, chosen):
    calls = []
    monkeypatch.setattr(base_features, "_held_out_score",
                        _fake_scores({"shape": [0.9] * 5, "raw": raw}, calls))
    model = HierarchicalIOHMM(n_init="auto", max_iter=5, random_state=0).fit(
        *_last_step(20, 0))
    assert model.features_ == chosen
    # the shape first, on all 5 folds; raw steps on as many as can still tie
    assert [f for f, _ in calls] == ["shape"] * 5 + ["raw"] * n_raw_fits
    assert model.features_scores_["shape"] == pytest.approx(0.9)
    assert model.features_scores_["raw"] == pytest.approx(np.mean(raw[:n_raw_fits]))
    # the final fit's restarts: one on the shape representation, on raw steps
    # 100,000 / 200 steps clipped to 5-50 (n_init="auto"), at most 10
    assert {f: n for f, n in calls} == {"shape": 1, "raw": 10}
    calls.clear()
    HierarchicalIOHMM(n_init=7, max_iter=5, random_state=0).fit(*_last_step(20, 0))
    assert {f: n for f, n in calls} == {"shape": 7, "raw": 7}


def test_the_ranked_subsample_is_stratified_and_keeps_repetitions_together():
    labels = np.repeat([0, 1, 2], [30, 10, 3])
    keys = np.arange(43.0)
    drawn = held_out_subsample(20, np.random.RandomState(0), labels, keys)
    # limit * share, rounded down, at least 2: 20*30//43, 20*10//43, 2
    kept = ~np.isnan(drawn)
    assert [np.sum(kept[labels == c]) for c in (0, 1, 2)] == [13, 4, 2]
    np.testing.assert_array_equal(drawn[kept], keys[kept])
    np.testing.assert_array_equal(
        drawn, held_out_subsample(20, np.random.RandomState(0), labels, keys))
    # copies of a sequence share its key: kept or dropped with it; NaN stays
    copies = np.r_[keys, keys[:30], np.nan]
    drawn = held_out_subsample(20, np.random.RandomState(0),
                               np.r_[labels, labels[:30], 0], copies)
    np.testing.assert_array_equal(np.isnan(drawn[43:73]), np.isnan(drawn[:30]))
    assert np.isnan(drawn[-1]) and np.sum(~np.isnan(drawn[:43])) == 19
    # at most ``limit`` distinct sequences: all of them, and no draw
    rng = np.random.RandomState(0)
    assert held_out_subsample(43, rng, labels, keys) is keys
    assert rng.randint(1000) == np.random.RandomState(0).randint(1000)


def test_the_ranking_fits_see_at_most_the_subsample(monkeypatch):
    sizes = []

    def score(estimator, features, n_init, seed, fit_part, held_part):
        sizes.append((len(fit_part[0]), len(held_part[0])))
        return 1.0 if features == "raw" else 0.5
    monkeypatch.setattr(base_features, "_held_out_score", score)
    monkeypatch.setattr(base_features, "MAX_RANKED", 10)
    model = HierarchicalIOHMM(max_iter=5, random_state=0).fit(*_last_step(40, 0))
    # 10 of 40 sequences ranked (6 of the 24 of one class, 4 of the 16 of
    # the other): 8 fitted, 2 held out in each of the 5 folds
    assert sizes == [(8, 2)] * 10 and model.features_ == "raw"
