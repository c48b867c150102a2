"""Per-step representations besides DilatedConvolution: RunningPooling,
SequenceUnion, the amplitude and position recipes, WindowMean.to_raw_steps
and on_raw_steps.

References are slow obvious loops written here: ``np.mean`` / ``np.max``
over each window, ``math.fsum`` for long sums.
"""

import math
import warnings

import numpy as np
import pytest
from _preprocessing_helpers import _ragged
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import (
    FunctionTransformer,
    KBinsDiscretizer,
    SplineTransformer,
    StandardScaler,
)

from skseq import IOHMMClassifier
from skseq.preprocessing import (
    DilatedConvolution,
    RunningPooling,
    SequenceFeatures,
    SequenceUnion,
    Stepwise,
    WindowMean,
    on_raw_steps,
)
from skseq.utils import to_padded

nan = np.nan


# -- RunningPooling ---------------------------------------------------------------
@pytest.mark.parametrize("window", [None, 1, 2, 3, 7, 100])
@pytest.mark.parametrize("statistic", ["mean", "max"])
def test_running_pooling_equals_direct_loop(window, statistic):
    rng = np.random.default_rng(8)
    X = [rng.normal(size=(k, 3)) for k in (1, 2, 7, 30, 15)]
    out = RunningPooling(window, statistic=statistic).fit_transform(X)
    reduce = np.mean if statistic == "mean" else np.max
    for x, got in zip(X, out, strict=True):
        expected = np.array([reduce(x[(0 if window is None else max(0, t - window + 1)):
                                      t + 1], axis=0) for t in range(len(x))])
        assert_allclose(got, expected, rtol=1e-14, atol=1e-15)
    padded = RunningPooling(window, statistic=statistic).fit_transform(to_padded(X))
    assert_allclose(padded, to_padded(out), rtol=0, atol=0)


def test_running_mean_is_exact_on_long_sequences():
    # 10^6 steps with a large offset: a plain running sum would drift by
    # ~1e-10 relative; compensation (prefix) and fresh sums (window) do not.
    rng = np.random.default_rng(9)
    x = 1e6 + rng.random(1_000_000)
    prefix = RunningPooling().fit_transform([x[:, None]])[0][:, 0]
    window = RunningPooling(1000).fit_transform([x[:, None]])[0][:, 0]
    for t in (999, 500_123, 999_999):
        assert_allclose(prefix[t], math.fsum(x[: t + 1]) / (t + 1), rtol=1e-15)
        assert_allclose(window[t], math.fsum(x[t - 999 : t + 1]) / 1000, rtol=1e-15)
    naive = np.cumsum(x)[-1] / x.size  # what the compensation buys
    assert abs(naive - math.fsum(x) / x.size) > abs(prefix[-1] - math.fsum(x) / x.size)


def test_running_pooling_is_causal_and_keeps_forms():
    rng = np.random.default_rng(10)
    X = [rng.normal(size=(12, 2)), rng.normal(size=(4, 2))]
    changed = [X[0].copy(), X[1]]
    changed[0][6:] += 5.0
    for pool in (RunningPooling(), RunningPooling(3, statistic="max")):
        a, b = pool.fit_transform(X), pool.transform(changed)
        assert_array_equal(a[0][:6], b[0][:6])
        assert not np.array_equal(a[0][6:], b[0][6:])
    rows = rng.normal(size=(5, 2))
    assert_array_equal(RunningPooling(4).fit_transform(rows), rows)  # one step each
    pool = RunningPooling().fit(rows)
    assert list(pool.get_feature_names_out()) == ["x0", "x1"]
    with pytest.raises(ValueError, match="'window' parameter"):
        RunningPooling(window=0).fit(X)
    with pytest.raises(ValueError, match="'statistic' parameter"):
        RunningPooling(statistic="median").fit(X)


# -- SequenceUnion, amplitude and position ------------------------------------------
def test_union_concatenates_per_step_in_every_form():
    rng = np.random.default_rng(11)
    X = [rng.normal(size=(k, 2)) for k in (9, 1, 14)]
    parts = [DilatedConvolution(n_dilations=1, random_state=0),
             Stepwise(SplineTransformer(n_knots=3)), SequenceFeatures(keep_input=False)]
    union = SequenceUnion([("shape", parts[0]), ("amplitude", parts[1]),
                           ("drop_me", "drop"), ("raw", "passthrough"),
                           ("change", parts[2])],
                          transformer_weights={"change": 2.0})
    out = union.fit_transform(X)
    pieces = [p.fit_transform(X) for p in parts]
    for s, got in enumerate(out):
        expected = np.hstack([pieces[0][s], pieces[1][s], X[s], 2.0 * pieces[2][s]])
        assert_array_equal(got, expected)
    assert_array_equal(union.transform(to_padded(X)), to_padded(out))
    rows = np.concatenate(X)  # 2-D rows: one-step sequences, 2-D out
    one_step = union.transform([row[None] for row in rows])
    with pytest.warns(UserWarning, match="2-D table"):
        assert_array_equal(union.transform(rows), np.concatenate(one_step))
    names = union.get_feature_names_out()
    assert len(names) == out[0].shape[1]
    assert list(names[-4:]) == ["raw__x0", "raw__x1", "change__diff_x0",
                                "change__diff_x1"]
    assert union.transformer_list[0][1] is parts[0]  # the clones were fitted


@pytest.mark.parametrize("kwargs, error, match", [
    # a misspelt name left its transformer unweighted, silently
    ({"transformer_weights": {"dif": 2.0}}, ValueError,
     r"weight for 'dif', which is not a transformer of transformer_list"),
    # NaN features, which a 3-D output would read as padding
    ({"transformer_weights": {"diff": np.nan}}, ValueError, "finite number"),
    ({"transformer_weights": {"diff": "2"}}, ValueError, "finite number"),
    ({"transformer_weights": {"diff": True}}, ValueError, "finite number"),
    # "'SequenceFeatures' object is not subscriptable"
    ({"transformer_list": [SequenceFeatures()]}, TypeError,
     r"holds SequenceFeatures\(\); expected \(name, transformer\) pairs"),
    ({"n_jobs": True}, ValueError, "must be an int, not a bool"),
])
def test_union_refuses_bad_entries_and_weights_by_name(kwargs, error, match):
    X = _ragged()
    union = SequenceUnion([("diff", SequenceFeatures())]).fit(X)
    expected = union.transform(X)
    with pytest.raises(error, match=match):
        clone(union).set_params(**kwargs).fit(X)
    with pytest.raises(error, match=match):  # and at transform, after fit
        union.set_params(**kwargs).transform(X)
    union.set_params(transformer_list=[("diff", SequenceFeatures())], n_jobs=None,
                     transformer_weights={"diff": 2.0})
    for got, want in zip(union.transform(X), expected, strict=True):
        assert_array_equal(got, 2.0 * want)


def test_union_refuses_a_weight_that_overflows_its_features():
    """A finite weight times finite features can leave float64: refused,
    naming the transformer, its weight and where, at fit (leaving the union
    unfitted) and at transform; the largest weight that fits is kept exactly
    (before, inf went on to the next step, refused there without a word of
    the weight)."""
    X = [np.array([[1.0], [2.0], [-3.0]]), np.array([[0.5], [40.0]])]
    union = SequenceUnion([("raw", "passthrough"),
                           ("diff", SequenceFeatures(keep_input=False))],
                          transformer_weights={"diff": 1e307})
    match = (r"transformer_weights gives 'diff' the weight 1e\+307, which takes "
             r"its output feature 0 at sequence 1, step 1 \(39.5\) beyond")
    with pytest.raises(ValueError, match=match):
        union.fit_transform(X)
    assert not hasattr(union, "transformers_")
    union.fit(X[:1])
    assert_array_equal(union.transform(X[:1])[0][:, 1], [0.0, 1e307, -5e307])
    with pytest.raises(ValueError, match=match):
        union.transform(X)


@pytest.mark.parametrize("transformer, name", [
    (WindowMean(window=True), "window"), (WindowMean(max_length=True), "max_length"),
    (RunningPooling(window=True), "window"),
    (DilatedConvolution(n_dilations=True), "n_dilations"),
    (DilatedConvolution(n_biases=True), "n_biases"),
])
def test_a_count_of_true_is_refused(transformer, name):
    # scikit-learn's checks take True for the integer 1
    with pytest.raises(ValueError, match=f"'{name}' parameter .* not a bool"):
        transformer.fit(_ragged())


def test_union_rejects_length_changes_and_reaches_nested_parameters():
    X = [np.arange(8.0)[:, None], np.arange(5.0)[:, None]]
    union = SequenceUnion([("raw", "passthrough"), ("short", WindowMean(window=2))])
    with pytest.raises(ValueError, match="transformer 'short' returned 4 steps for "
                                         "the 8 of sequence 0"):
        union.fit(X)
    union = SequenceUnion([("shape", DilatedConvolution(n_dilations=1))])
    assert union.set_params(shape__n_biases=3).get_params()["shape__n_biases"] == 3
    assert union.fit_transform(X)[0].shape == (8, 84 * 3)
    with pytest.raises(ValueError, match="every transformer is 'drop'"):
        SequenceUnion([("a", "drop")]).fit(X)


@pytest.mark.parametrize("transformer", [
    SplineTransformer(n_knots=4, degree=2),
    KBinsDiscretizer(n_bins=3, encode="onehot"),  # sparse output, made dense
    KBinsDiscretizer(n_bins=4, encode="ordinal", strategy="uniform"),
])
def test_amplitude_bases_through_stepwise(transformer):
    """The amplitude recipe is scikit-learn's, fitted on the pooled steps."""
    rng = np.random.default_rng(12)
    X = [rng.normal(size=(k, 2)) for k in (6, 1, 11)]
    out = Stepwise(transformer).fit_transform(X)
    direct = transformer.fit(np.concatenate(X))
    for x, got in zip(X, out, strict=True):
        expected = direct.transform(x)
        expected = expected.toarray() if hasattr(expected, "toarray") else expected
        assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    padded = Stepwise(transformer).fit(X).transform(to_padded(X))
    assert_allclose(padded, to_padded(out), rtol=1e-12, atol=1e-12)
    test = [rng.normal(size=(4, 2)) * 5.0]  # beyond the training range: fitted bins
    assert_allclose(Stepwise(transformer).fit(X).transform(test)[0],
                    np.asarray(getattr(direct.transform(test[0]), "toarray",
                                       lambda: direct.transform(test[0]))()),
                    rtol=1e-12, atol=1e-12)


def _toy(n=16, length=30, seed=13):
    """Class 1 has a burst (a local shape) at a random time; the level is the
    same in both classes."""
    rng = np.random.default_rng(seed)
    X, y = [], []
    for s in range(n):
        x = rng.normal(scale=0.3, size=(length, 1))
        if s % 2:
            t = rng.integers(5, length - 5)
            x[t : t + 3, 0] += [3.0, -3.0, 3.0]
        X.append(x)
        y.append(s % 2)
    return X, np.array(y)


def test_local_shape_amplitude_and_position_compose_before_an_iohmm():
    X, y = _toy()
    representation = SequenceUnion([
        ("shape", make_pipeline(DilatedConvolution(n_dilations=2, n_biases=1,
                                                   random_state=0),
                                RunningPooling())),
        ("amplitude", Stepwise(SplineTransformer(n_knots=3))),
        ("position", SequenceFeatures(keep_input=False, time=True)),
    ])
    pipe = make_pipeline(representation, Stepwise(StandardScaler()),
                         IOHMMClassifier(n_states=2, n_init=1, max_iter=50,
                                         random_state=0))
    grid = {"sequenceunion__shape__dilatedconvolution__n_biases": [1, 2]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning on tiny data
        search = GridSearchCV(pipe, grid, cv=KFold(2)).fit(X, y)
    assert search.best_estimator_.score(X, y) >= 0.9
    proba = on_raw_steps(search.best_estimator_, "predict_state_proba", X)
    assert [p.shape for p in proba] == [(30, 2)] * len(X)


def test_causal_representation_keeps_state_posteriors_causal():
    X, y = _toy(seed=14)
    pipe = make_pipeline(DilatedConvolution(n_dilations=2, n_biases=1, random_state=0),
                         RunningPooling(), Stepwise(StandardScaler()),
                         IOHMMClassifier(n_states=2, n_init=1, max_iter=30,
                                         random_state=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe.fit(X, y)
    changed = [x.copy() for x in X]
    changed[0][15:] += 4.0
    a = on_raw_steps(pipe, "predict_state_proba", X)[0]
    b = on_raw_steps(pipe, "predict_state_proba", changed)[0]
    assert_allclose(a[:15], b[:15], rtol=1e-12, atol=1e-14)
    assert not np.allclose(a[15:], b[15:])


# -- WindowMean.to_raw_steps and on_raw_steps ---------------------------------------
def _pad(values, fill=np.nan):
    """(n_sequences, max_len, ...) array of per-sequence arrays, ``fill`` after."""
    out = np.full((len(values), max(len(v) for v in values), *values[0].shape[1:]),
                  fill, dtype=np.result_type(values[0], np.min_scalar_type(fill)))
    for s, v in enumerate(values):
        out[s, : len(v)] = v
    return out


def _repeat_by_hand(values, lengths, windows):
    """Raw step t of sequence s gets values[s][t // w_s]."""
    return [np.array([v[t // w] for t in range(n)])
            for v, n, w in zip(values, lengths, windows, strict=True)]


@pytest.mark.parametrize("max_length, window", [(None, 3), (4, None), (3, 2)])
@pytest.mark.parametrize("trailing", [(), (2,), (3, 3)])
def test_to_raw_steps_equals_direct_loop(max_length, window, trailing):
    rng = np.random.default_rng(15)
    X = [rng.normal(size=(k, 2)) for k in (7, 1, 12, 3)]
    wm = WindowMean(max_length=max_length, window=window).fit(X)
    n_win = [len(x) for x in wm.transform(X)]
    windows = [max(window or 1, -(-len(x) // max_length) if max_length else 1)
               for x in X]
    values = [rng.normal(size=(n, *trailing)) for n in n_win]
    expected = _repeat_by_hand(values, [len(x) for x in X], windows)
    got = wm.to_raw_steps(values, X)
    assert isinstance(got, list)
    for a, b in zip(got, expected, strict=True):
        assert_array_equal(a, b)
    padded = wm.to_raw_steps(_pad(values), to_padded(X))
    assert padded.shape == (4, 12, *trailing)
    assert_array_equal(padded, _pad(expected))
    paths = [rng.integers(0, 3, size=n) for n in n_win]  # decode-like: -1 padding
    got = wm.to_raw_steps(_pad(paths, fill=-1), X)
    assert got.dtype.kind == "i"
    assert_array_equal(got, _pad(_repeat_by_hand(paths, [len(x) for x in X], windows),
                                 fill=-1))


def test_to_raw_steps_errors_name_the_sequence():
    X = [np.zeros((6, 1)), np.zeros((4, 1))]
    wm = WindowMean(window=2).fit(X)
    with pytest.raises(ValueError, match="values has 1 sequences but X has 2"):
        wm.to_raw_steps([np.zeros(3)], X)
    with pytest.raises(ValueError, match="sequence 1 has 3 steps, but WindowMean "
                                         "makes 2 windows of its 4 raw steps"):
        wm.to_raw_steps([np.zeros(3), np.zeros(3)], X)
    with pytest.raises(ValueError, match="sequence 1 has per-step shape"):
        wm.to_raw_steps([np.zeros((3, 2)), np.zeros((2, 3))], X)
    with pytest.raises(ValueError, match="2 steps per sequence, but WindowMean makes "
                                         "3 windows of sequence 0"):
        wm.to_raw_steps(np.zeros((2, 2)), X)
    with pytest.raises(ValueError, match="X has 2 features"):
        wm.to_raw_steps([np.zeros(3), np.zeros(2)], [np.zeros((6, 2))] * 2)


def _window_pipe(X, y):
    pipe = make_pipeline(Stepwise(StandardScaler()), WindowMean(window=3),
                         IOHMMClassifier(n_states=2, n_init=1, max_iter=30,
                                         random_state=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pipe.fit(X, y)


@pytest.mark.parametrize("method", ["predict_state_proba", "decode",
                                    "transition_proba"])
def test_on_raw_steps_through_a_fitted_pipeline(method):
    rng = np.random.default_rng(16)
    X = [rng.normal(size=(k, 1)) + (s % 2) for s, k in enumerate((9, 7, 12, 4, 10, 6))]
    y = np.arange(6) % 2
    pipe = _window_pipe(X, y)
    windowed = getattr(pipe[-1], method)(pipe[:-1].transform(X))
    expected = _repeat_by_hand(windowed, [len(x) for x in X], [3] * 6)
    got = on_raw_steps(pipe, method, X)
    for a, b in zip(got, expected, strict=True):
        assert_array_equal(a, b)
    padded = on_raw_steps(pipe, method, to_padded(X))
    for s, e in enumerate(expected):
        assert_array_equal(padded[s, : len(e)], e)


@pytest.mark.parametrize("method", ["predict_proba", "predict"])
def test_on_raw_steps_refuses_per_sequence_outputs(method):
    rng = np.random.default_rng(16)
    X = [rng.normal(size=(12, 1)) + (s % 2) for s in range(6)]
    pipe = _window_pipe(X, np.arange(6) % 2)  # windows of 3: 4 per sequence
    with pytest.raises(ValueError, match="one value per sequence"):
        on_raw_steps(pipe, method, X)


def test_on_raw_steps_follows_nested_pipelines_and_plain_estimators():
    rng = np.random.default_rng(17)
    X = [rng.normal(size=(k, 1)) + (s % 2) for s, k in enumerate((8, 5, 9, 6))]
    y = np.arange(4) % 2
    pipe = _window_pipe(X, y)
    nested = make_pipeline(make_pipeline(pipe[0], pipe[1]), "passthrough", pipe[-1])
    assert_array_equal(np.concatenate(on_raw_steps(nested, "decode", X)),
                       np.concatenate(on_raw_steps(pipe, "decode", X)))
    plain = on_raw_steps(pipe[-1], "predict_state_proba", X)
    assert_array_equal(plain[0], pipe[-1].predict_state_proba(X)[0])
    # Without a WindowMean, any method (here a sequence-level one) passes through.
    no_window = make_pipeline(pipe[0], pipe[-1])
    assert_array_equal(on_raw_steps(no_window, "predict", X), no_window.predict(X))


def test_on_raw_steps_rejects_other_length_changes():
    rng = np.random.default_rng(18)
    X = [rng.normal(size=(k, 1)) + (s % 2) for s, k in enumerate((8, 5, 9, 6))]
    pipe = _window_pipe(X, np.arange(4) % 2)
    drop_last = FunctionTransformer(lambda X: [x[:-1] for x in X])
    bad = make_pipeline(drop_last, pipe[-1])
    with pytest.raises(ValueError, match="FunctionTransformer changes the lengths"):
        on_raw_steps(bad, "predict_state_proba", X)
