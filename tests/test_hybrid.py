"""HybridHMMClassifier: inference against brute force, the chain against counts,
causality, the data model, and the segment helpers on hand-worked examples."""

import itertools
import pickle

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.linear_model import LogisticRegression

from skseq import HybridHMMClassifier, IOHMMClassifier
from skseq._data import check_sequences
from skseq._data.window import window_lags, window_summaries
from skseq._families.label_chain import label_chain, segment_onsets, segment_phases
from skseq.utils import boundary_f1_score, segments


def _sessions(n_seq=4, seed=0):
    """Sequences of three noisy level segments, labelled by level."""
    rng = np.random.default_rng(seed)
    X, y = [], []
    for _ in range(n_seq):
        lengths = rng.integers(6, 12, size=3)
        codes = rng.permutation(3)
        y.append(np.repeat(np.array(["a", "b", "c"])[codes], lengths))
        X.append(np.column_stack([np.repeat(codes * 1.5, lengths)
                                  + rng.normal(scale=0.7, size=lengths.sum()),
                                  rng.normal(size=lengths.sum())]))
    return X, y


def _fitted(**params):
    X, y = _sessions()
    params = {"estimator": LogisticRegression(), "window": 4, "features": "summaries",
              **params}
    return HybridHMMClassifier(**params).fit(X, y), X, y


def _brute_force(startprob, transmat, log_emit):
    """Filtered and smoothed state marginals, and the best path, by enumerating
    every state path of a short sequence."""
    n, T = startprob.shape[0], log_emit.shape[0]
    emit = np.exp(log_emit)
    filtered = np.zeros((T, n))
    smoothed = np.zeros((T, n))
    best, best_path = -np.inf, None
    for path in itertools.product(range(n), repeat=T):
        # the state before the first step is drawn from startprob (the
        # package's convention), the first step's through one transition
        p = (startprob @ transmat)[path[0]] * emit[0, path[0]]
        prefix = [p]
        for t in range(1, T):
            p = p * transmat[path[t - 1], path[t]] * emit[t, path[t]]
            prefix.append(p)
        for t in range(T):
            smoothed[t, path[t]] += p
        if p > best:
            best, best_path = p, path
        # P(x_1..t, y_1..t): each prefix is counted once per continuation, so
        # divide by the number of continuations
        for t in range(T):
            filtered[t, path[t]] += prefix[t] / n ** (T - 1 - t)
    filtered /= filtered.sum(axis=1, keepdims=True)
    smoothed /= smoothed.sum(axis=1, keepdims=True)
    return filtered, smoothed, np.array(best_path)


@pytest.mark.parametrize("n_states_per_label, phase_targets",
                         [(1, False), (2, False), (2, True)])
def test_filter_smoother_viterbi_match_enumeration(n_states_per_label,
                                                   phase_targets):
    model, X, _ = _fitted(n_states_per_label=n_states_per_label,
                          phase_targets=phase_targets, likelihood_scale=0.5)
    x = [X[0][:5]]
    log_emit = model._log_emissions(check_sequences(x))
    filtered, smoothed, path = _brute_force(model.startprob_, model.transmat_,
                                            log_emit)
    assert_allclose(model.predict_state_proba(x)[0], filtered, rtol=1e-10)
    assert_allclose(model.predict_state_proba(x, smoothed=True)[0], smoothed,
                    rtol=1e-10)
    assert_array_equal(model.decode(x)[0], path)
    k = n_states_per_label
    labels = model.classes_[filtered.reshape(5, -1, k).sum(axis=2).argmax(axis=1)]
    assert_array_equal(model.predict(x)[0], labels)
    assert_array_equal(model.predict(x, algorithm="viterbi")[0],
                       model.classes_[path // k])


def test_viterbi_sums_out_the_state_before_the_first_step():
    # The state before the first step is drawn from startprob and summed out:
    # on a one-step sequence the most likely path is the most probable state
    # of its posterior, whatever the chain. A recursion that keeps the best
    # state before the first step instead (max, not sum) picks another state
    # where several predecessors share the mass.
    model, X, _ = _fitted(n_states_per_label=1, likelihood_scale=1.0)
    rows = np.concatenate(X)[::3]
    rng = np.random.default_rng(0)
    for _ in range(5):
        model.startprob_ = rng.dirichlet(np.ones(3))
        model.transmat_ = rng.dirichlet(np.full(3, 0.5), size=3)
        best = np.concatenate(model.predict_state_proba(rows)).argmax(axis=1)
        assert_array_equal(np.concatenate(model.decode(rows)), best)
        assert_array_equal(model.predict(rows, algorithm="viterbi"),
                           model.predict(rows, algorithm="smooth"))


@pytest.mark.parametrize("features, representation",
                         [("summaries", window_summaries), ("lags", window_lags)])
def test_scaled_likelihoods_are_posteriors_over_priors(features, representation):
    model, X, _ = _fitted(likelihood_scale=0.5, n_states_per_label=1,
                          features=features)
    features = representation(check_sequences(X[:1]), 4)
    proba = model.estimator_.predict_proba(features)
    # posteriors are floored at 1e-6 so that no step can veto a label for good
    expected = 0.5 * (np.log(np.maximum(proba, 1e-6)) - np.log(model.class_prior_))
    assert_allclose(model._log_emissions(check_sequences(X[:1])), expected)


def test_window_summaries_against_direct_computation():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(9, 2))
    got = window_summaries(check_sequences([x[:4], x[4:]]), 4)
    for part, rows in ((x[:4], got[:4]), (x[4:], got[4:])):
        for t in range(len(part)):
            expected = [part[t]]
            for w in (1, 4):
                past = part[max(0, t - w + 1): t + 1]
                expected += [past.mean(0), past.max(0), past.min(0), past.std(0)]
            assert_allclose(rows[t], np.concatenate(expected), atol=1e-12)


@pytest.mark.parametrize("window, lags", [(3, [0, 1, 2]), (9, range(9)),
                                          (32, [0, 1, 2, 3, *range(4, 32, 4)])])
def test_window_lags_against_direct_computation(window, lags):
    rng = np.random.default_rng(2)
    x = rng.normal(size=(40, 2))
    got = window_lags(check_sequences([x[:5], x[5:]]), window)
    for part, rows in ((x[:5], got[:5]), (x[5:], got[5:])):
        for t in range(len(part)):
            # before the start of a sequence: its first step
            expected = [part[max(0, t - d)] for d in lags]
            assert_array_equal(rows[t], np.concatenate(expected))


def _one_channel_task(kind, rng):
    """Step labels that only one representation can read: the sign of the
    value 4 steps ago (the raw lags hold it, no summary does), or whether a
    spike fell in the last 32 steps (the window maximum holds it; the lags see
    one step in 4)."""
    x = rng.normal(scale=0.1, size=150)
    if kind == "lag":
        x = rng.normal(size=150)
        y = np.concatenate([x[:1].repeat(4), x[:-4]]) > 0
    else:
        spikes = rng.random(150) < 0.04
        x[spikes] += 5.0
        y = np.array([spikes[max(0, t - 31): t + 1].any() for t in range(150)])
    return x[:, None], np.where(y, "on", "off")


@pytest.mark.parametrize("kind, window, chosen",
                         [("lag", 8, "lags"), ("spike", 32, "summaries")])
def test_auto_features_pick_the_representation_that_holds_the_label(kind, window,
                                                                    chosen):
    rng = np.random.default_rng(3)
    X, y = zip(*[_one_channel_task(kind, rng) for _ in range(6)], strict=True)
    model = HybridHMMClassifier(LogisticRegression(), window=window,
                                random_state=0).fit(list(X), list(y))
    assert model.features_ == chosen
    # one-step rows have no past: no held-out choice
    rows = HybridHMMClassifier(LogisticRegression())
    assert rows.fit(np.vstack(X), np.concatenate(y)).features_ == "summaries"


def test_label_chain_counts_hand_worked():
    # one sequence a a a b b, one b b a with the first step unlabelled
    labels = np.array([0, 0, 0, 1, 1, -1, 1, 0])
    offsets = np.array([0, 5, 8])
    start, trans = label_chain(labels, offsets, 2, 1, pseudocount=1.0)
    # first labels: a only (the second sequence starts unlabelled) -> (1+1, 0+1)
    assert_allclose(start, [2 / 3, 1 / 3])
    # pairs: a->a twice, a->b once, b->b once, b->a once; plus 1 each
    assert_allclose(trans, [[3 / 5, 2 / 5], [2 / 4, 2 / 4]])
    # two states per label: the same mean durations, (stays + leaves) / leaves
    start2, trans2 = label_chain(labels, offsets, 2, 2, pseudocount=1.0)
    assert_allclose(start2, [2 / 3, 0, 1 / 3, 0])
    leave_a, leave_b = 2 * 2 / 5, 1.0
    assert_allclose(trans2, [[1 - leave_a, leave_a, 0, 0],
                             [0, 1 - leave_a, leave_a, 0],
                             [0, 0, 1 - leave_b, leave_b],
                             [leave_b, 0, 0, 1 - leave_b]])


@pytest.mark.parametrize("phase_targets", [False, True])
def test_no_transitions_is_the_per_step_classifier(phase_targets):
    model, X, _ = _fitted(transitions="none", likelihood_scale=1.0,
                          phase_targets=phase_targets)
    proba = model.estimator_.predict_proba(window_summaries(check_sequences(X), 4))
    proba = np.maximum(proba, 1e-6)  # the floor of the scaled likelihoods
    proba /= proba.sum(axis=1, keepdims=True)
    proba = proba.reshape(proba.shape[0], 3, -1).sum(axis=2)  # labels
    assert_allclose(np.vstack(model.predict_proba(X)), proba, rtol=1e-9)


@pytest.mark.parametrize("algorithm", ["filter", "smooth", "viterbi"])
def test_predictions_are_per_step_and_the_filter_is_causal(algorithm):
    model, X, y = _fitted()
    full = model.predict(X, algorithm=algorithm)
    assert [len(p) for p in full] == [len(s) for s in y]
    if algorithm == "filter":
        for cut in (1, 7, 15):
            assert_array_equal(model.predict([X[0][:cut]])[0], full[0][:cut])
            assert_allclose(model.predict_proba([X[0][:cut]])[0],
                            model.predict_proba(X[:1])[0][:cut])
    assert np.mean(np.concatenate(full) == np.concatenate(y)) > 0.8


def test_unlabelled_steps_pickle_and_determinism():
    X, y = _sessions()
    y = [np.where(np.arange(len(s)) % 3 == 0, None, s).astype(object) for s in y]
    a = HybridHMMClassifier(window=4, random_state=0).fit(X, y)
    b = pickle.loads(pickle.dumps(a))
    c = HybridHMMClassifier(window=4, random_state=0).fit(X, y)
    for m in (b, c):
        assert_allclose(np.vstack(m.predict_proba(X)), np.vstack(a.predict_proba(X)))
    assert set(a.classes_) == {"a", "b", "c"}


def test_sequence_level_labels_give_one_label_per_sequence():
    X, y = _sessions()
    last = np.array([s[-1] for s in y])
    model = HybridHMMClassifier(estimator=LogisticRegression(), window=4).fit(X, last)
    assert model.predict(X).shape == (4,)
    assert model.predict_proba(X).shape == (4, len(model.classes_))
    with pytest.raises(ValueError, match="fitted on targets one per sequence"):
        model.score(X, y)


def test_bad_input_errors_and_failed_fit_leaves_model():
    model, X, y = _fitted()
    before = model.predict_proba(X)
    with pytest.raises(ValueError, match="algorithm must be"):
        model.predict(X, algorithm="forward")
    bad = [s[:-1] for s in y]
    with pytest.raises(ValueError, match="sequence 0 has"):
        model.fit(X, bad)
    with pytest.raises(ValueError, match="at least 2 classes"):
        model.fit(X, [np.full(len(s), "a") for s in y])
    with pytest.raises(ValueError, match="expecting 2 features"):
        model.predict([x[:, :1] for x in X])
    assert_allclose(np.vstack(model.predict_proba(X)), np.vstack(before))


class _NaNAtRow10(LogisticRegression):
    """A classifier whose probabilities are NaN at the 11th row it reads."""

    def predict_proba(self, X):
        proba = super().predict_proba(X)
        if proba.shape[0] > 10:
            proba[10] = np.nan
        return proba


def test_bad_probabilities_of_the_classifier_are_refused_naming_the_step():
    model, X, y = _fitted(estimator=_NaNAtRow10(), n_states_per_label=1)
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="nan at sequence 1, step 7"):
        model.predict([X[0][:3], X[1]])
    assert pickle.dumps(model) == before
    model.set_params(estimator=None).fit(X, y)  # a classifier that drops labels
    model.estimator_.classes_ = np.array(["a", "b", "c"])
    with pytest.raises(ValueError, match="classes_"):
        model.predict(X)


def test_a_chain_too_large_for_memory_is_refused_before_fitting():
    model, X, y = _fitted(n_states_per_label=1)
    before = pickle.dumps(model)
    for k in (10**6, 10**9):  # a bare MemoryError / "array is too big"
        with pytest.raises(ValueError, match=f"n_states_per_label={k}"):
            model.set_params(n_states_per_label=k).fit(X, y)
    model.set_params(n_states_per_label=1)
    assert pickle.dumps(model) == before


def test_smoothed_must_be_a_bool():
    # "no" or "False" would otherwise smooth, silently
    model, X, _ = _fitted(n_states_per_label=1)
    for method in (model.predict_proba, model.predict_state_proba,
                   model.predict_log_proba):
        for value in ("no", None):
            with pytest.raises(TypeError, match="smoothed must be True or False"):
                method(X, smoothed=value)


def test_step_labels_in_a_pandas_series_are_step_labels():
    pd = pytest.importorskip("pandas")
    X, y = _sessions()
    params = {"estimator": LogisticRegression(), "window": 4, "features": "summaries"}
    model = HybridHMMClassifier(**params).fit(X, pd.Series(y, index=[5, 6, 7, 8]))
    expected = HybridHMMClassifier(**params).fit(X, y)
    assert_array_equal(np.concatenate(model.predict_proba(X)),
                       np.concatenate(expected.predict_proba(X)))
    assert model.score(X, pd.Series(y)) == expected.score(X, y)


def test_score_with_weight_only_on_unlabelled_steps_says_so():
    # numpy's bare ZeroDivisionError before
    model, X, y = _fitted(n_states_per_label=1)
    y = [labels.astype(object) for labels in y]
    y[0][:] = None
    with pytest.raises(ValueError, match="nothing to score"):
        model.score(X, y, sample_weight=[1.0, 0.0, 0.0, 0.0])


def test_unlabelled_steps_marked_none_among_int_or_bool_labels():
    # None marks an unlabelled step whatever the labels' type ("Unknown label
    # type: unknown" before, for ints and bools): as NaN among floats
    X, y = _sessions()
    params = {"estimator": LogisticRegression(), "window": 4, "features": "summaries"}
    codes = [np.searchsorted(["a", "b", "c"], labels) for labels in y]
    as_objects = [c.astype(object) for c in codes]
    as_floats = [c.astype(float) for c in codes]
    as_objects[0][:4], as_floats[0][:4] = None, np.nan
    model = HybridHMMClassifier(**params).fit(X, as_objects)
    expected = HybridHMMClassifier(**params).fit(X, as_floats)
    assert_array_equal(model.classes_, [0, 1, 2])
    assert_array_equal(np.concatenate(model.predict_proba(X)),
                       np.concatenate(expected.predict_proba(X)))
    flags = [(c == 0).astype(object) for c in codes]
    flags[1][2] = None
    assert_array_equal(HybridHMMClassifier(**params).fit(X, flags).classes_,
                       [False, True])


def test_segments_hand_worked():
    starts, stops, labels = segments(np.array([3, 3, 1, 1, 1, 3]))
    assert_array_equal(starts, [0, 2, 5])
    assert_array_equal(stops, [2, 5, 6])
    assert_array_equal(labels, [3, 1, 3])
    starts, stops, labels = segments(["x"])
    assert_array_equal(starts, [0])
    assert_array_equal(stops, [1])
    with pytest.raises(ValueError, match="1-D"):
        segments(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="empty"):
        segments([])


def test_boundary_f1_hand_worked():
    truth = [np.array([0] * 5 + [1] * 5 + [2] * 5), np.array([0] * 6)]
    # boundaries at 5 and 10; predicted at 3, 6 and 14, and one in sequence 1
    pred = [np.array([0] * 3 + [5] * 3 + [1] * 8 + [2]), np.array([0] * 3 + [1] * 3)]
    # tolerance 1: 6 matches 5 (3 is 2 away); 14 is 4 from 10 -> 1 match
    # precision 1/4, recall 1/2 -> F1 = 2 * (1/8) / (3/4) = 1/3
    assert boundary_f1_score(truth, pred, tolerance=1) == pytest.approx(1 / 3)
    # tolerance 4: 3 matches 5 and 6 matches 10 (one to one) -> 2 matches
    assert boundary_f1_score(truth, pred, tolerance=4) == pytest.approx(
        2 * (2 / 4) * (2 / 2) / (2 / 4 + 2 / 2))
    assert boundary_f1_score([np.zeros(4)], [np.zeros(4)]) == 1.0
    with pytest.raises(ValueError, match="tolerance"):
        boundary_f1_score(truth, pred, tolerance=-1)
    with pytest.raises(ValueError, match="sequence 1 has"):
        boundary_f1_score(truth, [pred[0], pred[1][:-1]])


def test_boundary_f1_refuses_one_sequence_beside_a_collection():
    # one sequence of three labels was read as three sequences, and the
    # message counted 1 sequence against 3
    for truth, pred in (([[0, 1, 1]], [0, 0, 1]), ([0, 1, 1], [[0, 0, 1]])):
        with pytest.raises(ValueError, match="y_true is .* but y_pred is .*: pass "
                                             "both the same way"):
            boundary_f1_score(truth, pred)
    # passed the same way: one boundary each, at steps 1 and 2
    assert boundary_f1_score([0, 1, 1], [0, 0, 1], tolerance=1) == 1.0
    assert boundary_f1_score([[0, 1, 1]], [[0, 0, 1]]) == 0.0


def test_boundary_f1_takes_one_sequence_as_a_pandas_series():
    # a Series indexed by timestamps or by a slice of a frame holds no label 0
    truth = pd.Series([0, 0, 1, 1, 1, 2], index=np.arange(10, 16))
    pred = pd.Series([0, 1, 1, 1, 2, 2], index=np.arange(10, 16))
    # boundaries 2 and 5 against 1 and 4: none at tolerance 0, both at 1
    assert boundary_f1_score(truth, pred) == 0.0
    assert boundary_f1_score(truth, pred, tolerance=1) == 1.0
    assert boundary_f1_score([truth], [pred], tolerance=1) == 1.0


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_iohmm_with_step_labels_reads_the_recent_past_causally():
    X, y = _sessions(n_seq=3)
    model = IOHMMClassifier(n_states=2, n_init=1, max_iter=20, random_state=0)
    model.fit(X, y)
    assert model.features_ == "window"
    full = model.predict_proba(X[:1])[0]
    assert_allclose(model.predict_proba([X[0][:9]])[0], full[:9])
    # sequence-level labels keep the summary of the whole prefix
    last = np.array([s[-1] for s in y])
    assert IOHMMClassifier(n_states=2, n_init=1, max_iter=5).fit(X, last).features_ \
        == "shape"


def test_plot_step_labels_draws_one_row_per_labelling():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from skseq.plotting import plot_step_labels

    ax = plot_step_labels({"truth": ["a", "a", "b", "b"],
                           "guess": ["a", "b", "b", "a"]}, classes=["a", "b"])
    rows = [c.get_paths() for c in ax.collections]
    assert [len(r) for r in rows] == [2, 3]  # segments: a|b and a|b|a
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b"]
    with pytest.raises(ValueError, match="not in classes"):
        plot_step_labels({"truth": ["a", "c"]}, classes=["a", "b"])
    with pytest.raises(ValueError, match="one length"):
        plot_step_labels({"truth": ["a", "b"], "guess": ["a"]})
    with pytest.raises(TypeError, match="dict"):
        plot_step_labels(["a", "b"])


def test_segments_take_missing_labels_as_one_label():
    # unlabelled steps (None or NaN in step-level targets) are one label, as
    # None always was: a NaN is not a new segment at every step
    for gap in (None, np.nan):
        starts, stops, labels = segments(np.array(["a", gap, gap, "b"],
                                                  dtype=object))
        assert_array_equal(starts, [0, 1, 3])
        assert_array_equal(stops, [1, 3, 4])
    assert_array_equal(segments([np.nan, np.nan, 1.0, 1.0])[0], [0, 2])
    # boundaries of the truth at 1 and 3, predicted at 3: P = 1, R = 1/2
    truth = [np.array([0.0, np.nan, np.nan, 1.0, 1.0])]
    assert boundary_f1_score(truth, [np.array([0, 0, 0, 1, 1])]) == pytest.approx(
        2 / 3)
    # a list mixing 1 and "1" is not three "1"s
    assert_array_equal(segments([1, "1", 1])[0], [0, 1, 2])
    with pytest.raises(ValueError, match=r"prediction\[0\]"):
        segments([np.array(["a", "b"]), np.array(["a"])])  # predict's output


def test_segments_take_nat_as_a_missing_label():
    # datetime and timedelta labels: NaT marks an unlabelled step, as NaN does
    day = np.datetime64("2024-03-01", "D")
    nat = np.datetime64("NaT", "D")
    later = day + np.timedelta64(1, "D")
    # hand-worked: [day] [NaT NaT] [day day] [later] [NaT]
    expected = ([0, 1, 3, 5, 6], [1, 3, 5, 6, 7])
    dates = np.array([day, nat, nat, day, day, later, nat])
    durations = np.array([1, "NaT", "NaT", 1, 1, 2, "NaT"], dtype="m8[s]")
    as_objects = [day, pd.NaT, nat, day, day, later, None]
    for labels in (dates, durations, pd.Series(dates), as_objects):
        starts, stops, seg_labels = segments(labels)
        assert_array_equal(starts, expected[0])
        assert_array_equal(stops, expected[1])
        assert len(seg_labels) == 5
    # boundaries of the truth at 1, 3, 5 and 6, predicted at 3: P = 1, R = 1/4
    truth = [dates]
    predicted = [np.array([day, day, day, later, later, later, later])]
    assert boundary_f1_score(truth, predicted) == pytest.approx(2 * 0.25 / 1.25)


def test_boundary_f1_refusals_say_what():
    with pytest.raises(ValueError, match="0 sequences"):
        boundary_f1_score([], [])
    for tolerance in (None, np.nan, True):
        with pytest.raises(ValueError, match="tolerance"):
            boundary_f1_score([[0, 1]], [[0, 1]], tolerance=tolerance)
    with pytest.raises(ValueError, match="sequence 1 has 0 true labels"):
        boundary_f1_score([[0, 1], []], [[0, 1], []])


def test_plot_step_labels_leaves_unlabelled_steps_blank():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from skseq.plotting import plot_step_labels

    ax = plot_step_labels({"truth": ["a", None, None, "b"],
                           "float": [0.0, np.nan, 1.0, 1.0],
                           "mixed": np.array([1, "x", "x", 1], dtype=object)})
    # drawn segments (start, width) of every row: the gaps are not drawn
    drawn = [[tuple(p.vertices[0, :1]) + (np.ptp(p.vertices[:, 0]),)
              for p in c.get_paths()] for c in ax.collections]
    assert drawn == [[(0.0, 1.0), (3.0, 1.0)], [(0.0, 1.0), (2.0, 2.0)],
                     [(0.0, 1.0), (1.0, 2.0), (3.0, 1.0)]]
    # the default colours: one per label, however many labels
    for n in (3, 11, 25):
        ax = plot_step_labels({"truth": np.arange(n)})
        handles = ax.get_legend().get_patches()
        assert len({tuple(h.get_facecolor()) for h in handles}) == n


def test_segment_phases_hand_worked():
    # sequence 0: one run of 6 steps; sequence 1: a run of 2, a gap, a run of 1
    labels = np.array([0, 0, 0, 0, 0, 0, 1, 1, -1, 1])
    offsets = np.array([0, 6, 10])
    assert_array_equal(segment_phases(labels, offsets, 3),
                       [0, 0, 1, 1, 2, 2, 0, 1, 0, 0])
    # a run split by a sequence boundary is two runs
    assert_array_equal(segment_phases(np.array([2, 2, 2, 2]), np.array([0, 1, 4]), 2),
                       [0, 0, 0, 1])


def test_phase_targets_give_every_state_its_own_likelihoods():
    model, X, _ = _fitted(n_states_per_label=2, phase_targets=True,
                          likelihood_scale=1.0)
    assert_array_equal(model.estimator_.classes_, np.arange(6))
    proba = model.estimator_.predict_proba(window_summaries(check_sequences(X[:1]), 4))
    expected = (np.log(np.maximum(proba, 1e-6))
                - np.log(np.maximum(model.target_prior_, 1e-6)))
    assert_allclose(model._log_emissions(check_sequences(X[:1])), expected)
    # the label probabilities sum the states of each label
    labels = np.vstack(model.predict_proba(X[:1]))
    states = np.vstack(model.predict_state_proba(X[:1]))
    assert_allclose(labels, states.reshape(-1, 3, 2).sum(axis=2))


def test_phase_targets_on_one_step_sequences_fall_back_on_the_labels():
    # every segment is one step long: only the first part of a label is ever
    # seen, and its other parts take the label's likelihood
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2)) + np.repeat([[0.0, 0.0], [3.0, 3.0]], 20, axis=0)
    y = np.repeat(["a", "b"], 20)
    model = HybridHMMClassifier(LogisticRegression(), n_states_per_label=3,
                                phase_targets=True, likelihood_scale=1.0).fit(X, y)
    log_emit = model._log_emissions(check_sequences(X))
    assert_allclose(log_emit[:, [1, 2, 4, 5]], log_emit[:, [0, 0, 3, 3]])
    assert model.score(X, y) == 1.0


def test_segment_onsets_hand_worked():
    # sequence 0: a a | b b b b | ? | b | c c ; sequence 1: c | a a a
    labels = np.array([0, 0, 1, 1, 1, 1, -1, 1, 2, 2, 2, 0, 0, 0])
    offsets = np.array([0, 10, 14])
    # the first segment of a sequence and the run after an unlabelled step
    # follow no change of label
    assert_array_equal(segment_onsets(labels, offsets, 3).astype(int),
                       [0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1])
    assert not segment_onsets(labels, offsets, 0).any()


def _onset_weights_by_loop(y, n_steps, weight):
    """Per-step weights: ``weight`` within ``n_steps`` steps of a change of
    label inside the sequence, else 1 (a direct loop over every step)."""
    out = []
    for labels in y:
        for t in range(len(labels)):
            near = any(labels[s] != labels[s - 1] and all(
                labels[r] == labels[s] for r in range(s, t + 1))
                for s in range(max(1, t - n_steps + 1), t + 1))
            out.append(weight if near else 1.0)
    return np.array(out)


def test_onset_weight_refits_the_classifier_with_direct_weights():
    X, y = _sessions()
    model = HybridHMMClassifier(LogisticRegression(), window=6, features="summaries",
                                onset_weight=5.0).fit(X, y)
    weight = _onset_weights_by_loop(y, 3, 5.0)  # window // 2 steps
    features = window_summaries(check_sequences(X), 6)
    direct = LogisticRegression().fit(features, np.concatenate(y),
                                      sample_weight=weight)
    assert_allclose(model.estimator_.predict_proba(features),
                    direct.predict_proba(features), rtol=1e-8)
    labels = np.concatenate(y)
    prior = np.array([weight[labels == c].sum() for c in model.classes_])
    assert_allclose(model.class_prior_, prior / prior.sum())
    # onset_weight=1: every step weighs the same
    plain = HybridHMMClassifier(LogisticRegression(), window=6, features="summaries",
                                onset_weight=1.0).fit(X, y)
    unweighted = LogisticRegression().fit(features, labels)
    assert_allclose(plain.estimator_.predict_proba(features),
                    unweighted.predict_proba(features), rtol=1e-8)


def test_onset_weight_needs_a_classifier_that_takes_sample_weight():
    from sklearn.neighbors import KNeighborsClassifier

    model, X, y = _fitted()
    before = np.vstack(model.predict_proba(X))
    model.set_params(estimator=KNeighborsClassifier(), onset_weight=4.0)
    with pytest.raises(ValueError, match="KNeighborsClassifier does not accept "
                                         "sample_weight.*onset_weight=1"):
        model.fit(X, y)
    assert_allclose(np.vstack(model.predict_proba(X)), before)
    assert model.set_params(onset_weight=1).fit(X, y).score(X, y) > 0.8


def test_weights_whose_step_total_overflows_are_refused():
    # each weight is finite and their sum too, but over the labelled steps
    # (every step weighs its sequence's weight) the counts would overflow
    model, X, y = _fitted()
    before = np.vstack(model.predict_proba(X))
    huge = np.full(len(X), 1e308 / (2 * len(X)))
    with pytest.raises(ValueError, match="sample_weight summed over the labelled"):
        model.fit(X, y, sample_weight=huge)
    with pytest.raises(ValueError, match="sample_weight times onset_weight summed"):
        model.set_params(onset_weight=1e308).fit(X, y)
    assert_allclose(np.vstack(model.predict_proba(X)), before)
    # weights just below: finite probabilities, the same priors as weights 1
    refit = model.set_params(onset_weight=1.0).fit(X, y, sample_weight=huge / 1e4)
    proba = np.vstack(refit.predict_proba(X, smoothed=True))
    assert np.isfinite(proba).all()
    assert_allclose(refit.class_prior_, model.fit(X, y).class_prior_)
