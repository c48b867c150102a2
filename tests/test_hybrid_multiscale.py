"""HybridHMMClassifier(features="multiscale"): the raw lags of the last
``window // 4`` steps beside the summaries of the last ``window``, against
direct computations from the raw series; causality; no held-out choice."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.linear_model import LogisticRegression
from test_hybrid import (  # noisy level segments, labelled by level
    _onset_weights_by_loop,
    _sessions,
)

from skseq import HybridHMMClassifier
from skseq._data import check_sequences
from skseq._data.window import window_multiscale, window_summaries


def _by_hand(part, t, window):
    """Step ``t``'s features from the raw rows ``part`` of one sequence."""
    short = max(1, window // 4)
    stride = max(1, short // 8)
    lags = list(range(min(stride, short))) + list(range(stride, short, stride))
    values = [part[max(0, t - d)] for d in lags]  # the first step before the start
    for w in (short, window):
        past = part[max(0, t - w + 1): t + 1]
        values += [past.mean(0), past.max(0), past.min(0), past.std(0)]
    return np.concatenate(values)


@pytest.mark.parametrize("window, n_lags", [(4, 1), (12, 3), (32, 8), (64, 9)])
def test_multiscale_features_against_the_raw_series(window, n_lags):
    # from 64 steps the short window's lags thin out (User Guide): 0, 1, 2, 4, ..., 14
    rng = np.random.default_rng(4)
    x = rng.normal(size=(45, 2))
    got = window_multiscale(check_sequences([x[:6], x[6:]]), window)
    assert got.shape == (45, 2 * (n_lags + 8))
    for part, rows in ((x[:6], got[:6]), (x[6:], got[6:])):
        for t in (0, 1, 3, 5, len(part) - 1):
            assert_allclose(rows[t], _by_hand(part, t, window), atol=1e-12)
    if window == 32:  # every one of the last 8 steps, lag-major, then summaries
        assert_array_equal(got[6 + 20, :16], x[6 + 20 - np.arange(8)].ravel())


def test_multiscale_is_causal():
    X, y = _level_sessions()
    full = window_multiscale(check_sequences(X[:1]), 8)
    model = HybridHMMClassifier(LogisticRegression(), features="multiscale",
                                window=8, random_state=0).fit(X, y)
    predicted = model.predict(X[:1])[0]
    for cut in (1, 5, 17):
        assert_array_equal(window_multiscale(check_sequences([X[0][:cut]]), 8),
                           full[:cut])
        assert_array_equal(model.predict([X[0][:cut]])[0], predicted[:cut])
    assert np.mean(np.concatenate(model.predict(X)) == np.concatenate(y)) > 0.8


def test_multiscale_fits_once_at_32_steps_without_a_held_out_choice(monkeypatch):
    X, y = _level_sessions()
    fits = []
    original = HybridHMMClassifier._fit_estimator

    def counted(self, *args):
        fits.append(args[0].shape)
        return original(self, *args)

    monkeypatch.setattr(HybridHMMClassifier, "_fit_estimator", counted)
    model = HybridHMMClassifier(LogisticRegression(), features="multiscale",
                                random_state=0).fit(X, y)
    assert (model.features_, model.window_, model.likelihood_scale_) == (
        "multiscale", 32, 0.5)
    # one fit, on every labelled step, of 8 lags and 8 summaries per channel
    assert fits == [(sum(map(len, y)), 16)]
    given = HybridHMMClassifier(LogisticRegression(), features="multiscale",
                                window=32, random_state=0).fit(X, y)
    assert_allclose(np.vstack(model.predict_proba(X)),
                    np.vstack(given.predict_proba(X)))


def test_multiscale_conventions():
    X, y = _level_sessions()
    params = {"estimator": LogisticRegression(), "features": "multiscale",
              "window": 8, "random_state": 0}
    model = HybridHMMClassifier(**params).fit(X, y)
    # padded input gives the same as a list of sequences
    padded = np.full((len(X), max(map(len, X)), 1), np.nan)
    for i, x in enumerate(X):
        padded[i, : len(x)] = x
    assert_allclose(np.vstack(model.predict_proba(padded)),
                    np.vstack(model.predict_proba(X)))
    # a sequence of weight 0 is a sequence dropped; unlabelled steps are read
    weighted = HybridHMMClassifier(**params).fit(X, y, sample_weight=[1, 1, 1, 1, 0])
    dropped = HybridHMMClassifier(**params).fit(X[:4], y[:4])
    assert_allclose(np.vstack(weighted.predict_proba(X)),
                    np.vstack(dropped.predict_proba(X)))
    partly = [np.where(np.arange(len(s)) % 4 == 0, None, s).astype(object) for s in y]
    assert HybridHMMClassifier(**params).fit(X, partly).predict(X[:1])[0].shape == (
        len(X[0]),)
    # one-step sequences (a 2-D array): the lags read the step itself
    rows = HybridHMMClassifier(**params).fit(np.vstack(X), np.concatenate(y))
    assert rows.predict(np.vstack(X)).shape == (sum(map(len, y)),)


def _level_sessions():
    """Five sequences of three noisy level segments, the level's channel only."""
    X, y = _sessions(n_seq=5)
    return [x[:, :1] for x in X], y


def test_bad_features_refused_and_the_model_left_as_it_was():
    X, y = _level_sessions()
    model = HybridHMMClassifier(LogisticRegression(), features="multiscale",
                                window=8, random_state=0).fit(X, y)
    before = np.vstack(model.predict_proba(X))
    for bad in ("Multiscale", "multi", None):
        model.set_params(features=bad)
        with pytest.raises(ValueError, match="'features' parameter"):
            model.fit(X, y)
    model.set_params(features="multiscale", window=0)
    with pytest.raises(ValueError, match="'window' parameter"):
        model.fit(X, y)
    # a bool is not a count (True passed as 1, and window_ was True)
    for name in ("window", "n_states_per_label"):
        model.set_params(**{"window": 8, "n_states_per_label": 2, name: True})
        with pytest.raises(ValueError, match=f"'{name}' parameter .* not a bool"):
            model.fit(X, y)
    model.set_params(n_states_per_label=2)
    assert_allclose(np.vstack(model.predict_proba(X)), before)
    assert model.features_ == "multiscale" and model.window_ == 8


@pytest.mark.parametrize("features", ["multiscale", "lags", "auto"])
def test_a_window_too_long_to_read_is_refused_in_its_name(features, monkeypatch):
    # 2**62 steps would read 2**57 lags per channel: refused before reading
    # (it raised a bare MemoryError or hung building the lags)
    X, y = _level_sessions()
    model = HybridHMMClassifier(LogisticRegression(), features=features, window=8,
                                random_state=0).fit(X, y)
    fitted = {k: v for k, v in vars(model).items() if k.endswith("_")}
    before = np.vstack(model.predict_proba(X))
    model.set_params(window=2**62)
    with pytest.raises(ValueError, match=r"features='(multiscale|lags)' at window="
                                         r"4611686018427387904"):
        model.fit(X, y)
    assert {k: v for k, v in vars(model).items() if k.endswith("_")}.keys() == (
        fitted.keys())
    assert model.window_ == 8 and model.estimator_ is fitted["estimator_"]
    # prediction checks its reading too (here with too little memory left)
    monkeypatch.setattr("skseq._fit.resources._available_memory", lambda: 1000)
    with pytest.raises(ValueError, match="at window=8 .*use a smaller window"):
        model.predict(X)
    monkeypatch.undo()
    assert_allclose(np.vstack(model.predict_proba(X)), before)


@pytest.mark.parametrize("reader", [window_multiscale, window_summaries])
def test_summaries_of_huge_values_do_not_overflow(reader):
    # squares of values near 2**700 overflowed: NaN spreads and means, then a
    # bare error deep inside the per-step classifier's fit
    x = np.random.default_rng(0).normal(size=(12, 2))
    x[:, 1] *= 3.0
    small = reader(check_sequences([x[:5], x[5:]]), 8)
    big = x * np.array([2.0**700, 1.0])  # one channel huge, the other as it was
    got = reader(check_sequences([big[:5], big[5:]]), 8)
    scale = np.tile([2.0**700, 1.0], got.shape[1] // 2)  # channel-minor columns
    assert_array_equal(got, small * scale)
    # a huge sequence leaves another's features as they were; a spike, the
    # spreads of the windows that do not hold it
    assert_array_equal(reader(check_sequences([big[:5], x[5:]]), 8)[5:], small[5:])
    spiked = np.random.default_rng(1).normal(size=(30, 2))
    spiked[0, 0] = 2.0**700
    far = reader(check_sequences([spiked]), 8)[-1, -2]  # channel 0, last 8 steps
    assert_allclose(far, spiked[-8:, 0].std(), rtol=1e-9)
    assert np.isfinite(reader(check_sequences([np.full((4, 1), 1.7e308)]), 8)).all()


def test_onset_weight_at_a_one_step_window_weighs_the_first_step():
    # max(1, window_ // 2) steps: at a window of 1, the first step of a segment
    X, y = _level_sessions()
    model = HybridHMMClassifier(LogisticRegression(), features="multiscale", window=1,
                                onset_weight=5.0).fit(X, y)
    features = window_multiscale(check_sequences(X), 1)
    direct = LogisticRegression().fit(features, np.concatenate(y),
                                      sample_weight=_onset_weights_by_loop(y, 1, 5.0))
    assert_allclose(model.estimator_.predict_proba(features),
                    direct.predict_proba(features), rtol=1e-8)
