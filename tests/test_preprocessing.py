"""Stepwise: a 2-D transformer applied to every step, the sequence form kept."""

import copy
import itertools
import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.decomposition import PCA
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import (
    FunctionTransformer,
    KBinsDiscretizer,
    OneHotEncoder,
    SplineTransformer,
    StandardScaler,
)

from skseq import IOHMMClassifier
from skseq._data.dilated import DilatedKernels, column_quantiles
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


def _list(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.normal(loc=3.0, scale=2.0, size=(k, 2)) for k in (3, 1, 4, 2)]


def _by_hand(X_list):
    """Pooled standardisation: mean and std over all steps of all sequences."""
    steps = np.concatenate(X_list)
    mean, std = steps.mean(axis=0), steps.std(axis=0)
    return [(x - mean) / std for x in X_list]


def test_list_in_list_out_equals_pooled_scaling():
    X = _list()
    out = Stepwise(StandardScaler()).fit_transform(X)
    assert isinstance(out, list)
    for got, expected in zip(out, _by_hand(X), strict=True):
        assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_padded_in_padded_out_equals_pooled_scaling():
    X = _list()
    padded = np.full((4, 4, 2), nan)
    for s, x in enumerate(X):
        padded[s, : len(x)] = x
    out = Stepwise(StandardScaler()).fit_transform(padded)
    assert out.shape == padded.shape
    assert_array_equal(np.isnan(out), np.isnan(padded))  # padding stays padding
    for s, expected in enumerate(_by_hand(X)):
        assert_allclose(out[s, : len(expected)], expected, rtol=1e-12, atol=1e-12)


def test_rows_in_rows_out_equal_plain_scaling():
    X = np.concatenate(_list())
    out = Stepwise(StandardScaler()).fit_transform(X)
    assert out.shape == X.shape
    assert_allclose(out, (X - X.mean(axis=0)) / X.std(axis=0), rtol=1e-12, atol=1e-12)


def test_one_hot_encoder_with_sparse_output_gives_dense_steps():
    X = [np.array([[0], [2], [1]]), np.array([[2]])]
    out = Stepwise(OneHotEncoder()).fit_transform(X)
    assert_array_equal(out[0], np.eye(3)[[0, 2, 1]])
    assert_array_equal(out[1], [[0.0, 0.0, 1.0]])


def test_dataframe_feature_names_are_recorded():
    X = pd.DataFrame({"u": [1.0, 2.0, 4.0], "v": [0.0, 1.0, 1.0]})
    step = Stepwise(StandardScaler()).fit(X)
    assert_array_equal(step.feature_names_in_, ["u", "v"])
    assert step.n_features_in_ == 2


def test_pipeline_with_cross_val_score_on_a_list():
    rng = np.random.default_rng(0)
    X = [rng.normal(loc=10.0, size=(rng.integers(1, 5), 2)) for _ in range(20)]
    y = np.array([0, 1] * 10)
    pipe = make_pipeline(
        Stepwise(StandardScaler()),
        IOHMMClassifier(n_states=2, n_init=1, max_iter=5, random_state=0),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning at max_iter=5
        scores = cross_val_score(pipe, X, y, cv=KFold(4), error_score="raise")
    assert scores.shape == (4,) and np.all((scores >= 0) & (scores <= 1))


def test_transform_checks_fit():
    with pytest.raises(NotFittedError, match="not fitted yet"):
        Stepwise(StandardScaler()).transform(_list())
    step = Stepwise(StandardScaler()).fit(_list())
    msg = r"X has 3 features, but Stepwise is expecting 2 features as input\."
    with pytest.raises(ValueError, match=msg):
        step.transform([np.ones((2, 3))])
    with pytest.raises(ValueError, match="sequence 1 contains NaN at step 0"):
        step.transform([np.ones((2, 2)), np.array([[nan, 1.0]])])


@pytest.mark.parametrize("transformer", [None, "scaler", np.mean])
def test_transformer_must_have_fit_and_transform(transformer):
    with pytest.raises(ValueError, match="'transformer' parameter of Stepwise"):
        Stepwise(transformer).fit(_list())


@pytest.mark.parametrize("func, match", [
    (lambda X: np.where(X > 4.0, nan, X), r"produced NaN or inf at sequence \d+, step"),
    (lambda X: X[:1], r"returned shape \(1, 2\) for 10 steps"),
    (lambda X: X[:, 0], r"returned shape \(10,\)"),
])
def test_transformer_output_is_checked(func, match):
    step = Stepwise(FunctionTransformer(func)).fit(_list())
    with pytest.raises(ValueError, match=match):
        step.transform(_list())


@pytest.mark.parametrize("transformer", [
    FunctionTransformer(lambda X: X[:, :0]),
    ColumnTransformer([("u", "drop", [0]), ("v", "drop", [1])]),
])
def test_a_transformer_of_no_columns_is_refused(transformer):
    # (n_steps, 0) sequences used to be passed on
    name = type(transformer).__name__
    match = rf"{name} returned no columns \(output shape \(1, 0\)\)"
    with pytest.raises(ValueError, match=match):
        Stepwise(transformer).fit(_list())
    # and at transform: a fitted transformer changed to return none
    step = Stepwise(FunctionTransformer()).fit(_list())
    step.transformer_.set_params(func=lambda X: X[:, :0])
    with pytest.raises(ValueError, match=r"FunctionTransformer returned no columns "
                                         r"\(output shape \(10, 0\)\)"):
        step.transform(_list())
    fitted = step.transformer_  # a refused fit leaves the fitted one
    with pytest.raises(ValueError, match=match):
        step.set_params(transformer=transformer).fit(_list())
    assert step.transformer_ is fitted


def _state(step):
    return copy.deepcopy({k: v for k, v in vars(step).items() if k.endswith("_")})


@pytest.mark.parametrize("bad_fit", [
    lambda step: step.fit([np.ones((2, 2)), np.array([[nan, 1.0]])]),  # bad X
    lambda step: step.fit([np.ones((1, 3))]),  # PCA fails: 1 sample, 3 features
    lambda step: step.set_params(transformer=None).fit(_list()),  # bad parameter
])
def test_a_failed_fit_leaves_the_fitted_stepwise_as_it_was(bad_fit):
    X = pd.DataFrame({"u": [1.0, 2.0, 4.0, 8.0], "v": [0.0, 1.0, 1.0, 3.0]})
    step = Stepwise(PCA(n_components=2)).fit(X)
    state, out = _state(step), step.transform(X)
    transformer = step.transformer_
    with pytest.raises((ValueError, TypeError)):
        bad_fit(step)
    assert step.transformer_ is transformer
    assert state.keys() == _state(step).keys()
    assert_array_equal(step.feature_names_in_, ["u", "v"])
    assert step.n_features_in_ == 2
    assert_array_equal(step.transformer_.components_, state["transformer_"].components_)
    step.set_params(transformer=PCA(n_components=2))
    assert_array_equal(step.transform(X), out)


# -- WindowMean and SequenceFeatures ---------------------------------------------
def _ragged(seed=0, lengths=(7, 1, 4, 12, 3)):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(k, 2)) for k in lengths]


def _window_means_by_hand(x, w):
    return np.array([x[a : a + w].mean(axis=0) for a in range(0, len(x), w)])


# (a window or a limit beyond NumPy's integers failed with an IndexError or an
# OverflowError: it is one window, or no limit)
@pytest.mark.parametrize("max_length, window", [(None, None), (None, 3), (4, None),
                                                (3, 2), (100, None), (None, 2**70),
                                                (2**70, None), (2**64, 2)])
def test_window_mean_equals_hand_loop(max_length, window):
    X = _ragged()
    out = WindowMean(max_length=max_length, window=window).fit_transform(X)
    assert isinstance(out, list)
    for x, got in zip(X, out, strict=True):
        w = max(window or 1, int(np.ceil(len(x) / max_length)) if max_length else 1)
        assert_allclose(got, _window_means_by_hand(x, w), rtol=1e-13)
        if max_length:
            assert len(got) <= max_length
    padded = WindowMean(max_length=max_length, window=window).fit_transform(
        to_padded(X))
    assert_allclose(padded, to_padded(out), rtol=1e-13)


def test_window_mean_of_steps_near_the_float64_limit_is_their_mean():
    # Their sum overflows, their mean does not: 1e308 + 1e308 is inf, and a
    # window of them came out inf (silently, besides numpy's RuntimeWarning).
    big = np.finfo(np.float64).max
    X = [np.array([[1e308, 1.0], [1e308, 3.0], [-1e308, 5.0]]),
         np.array([[big, 0.0], [big, 2.0], [big, 4.0], [big / 2, 6.0]])]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = WindowMean(window=2).fit_transform(X)
    assert_array_equal(out[0], [[1e308, 2.0], [-1e308, 5.0]])
    assert_array_equal(out[1], [[big, 1.0], [0.75 * big, 5.0]])
    # the windows of ordinary values in the same call are the plain means
    X.append(np.array([[0.1], [0.2], [0.7]]) * np.ones((1, 2)))
    assert_array_equal(WindowMean(window=3).fit_transform(X)[2],
                       [[(0.1 + 0.2 + 0.7) / 3] * 2])


def test_sequence_features_refuse_differences_past_the_float64_range():
    X = [np.ones((2, 2)), np.array([[0.0, 1e308], [0.0, -1e308]])]
    with pytest.raises(ValueError, match=r"difference at sequence 1, step 1 "
                                         r"\(feature 1\) exceeds the float64"):
        SequenceFeatures().fit_transform(X)
    # the same steps without their differences are taken as they are
    out = SequenceFeatures(diff=False, time=True).fit_transform(X)
    assert_array_equal(out[1][:, :2], X[1])
    # a jump between two sequences is no difference of either
    X = [np.array([[1e308]]), np.array([[-1e308], [-1e308]])]
    assert_array_equal(SequenceFeatures().fit_transform(X)[1],
                       [[-1e308, 0.0], [-1e308, 0.0]])


SEQUENCE_TRANSFORMERS = [
    lambda: Stepwise(StandardScaler()), lambda: WindowMean(window=2),
    lambda: SequenceFeatures(time=True), lambda: RunningPooling(window=2),
    lambda: DilatedConvolution(n_dilations=1, random_state=0),
    lambda: SequenceUnion([("a", SequenceFeatures()), ("b", "passthrough")]),
]


@pytest.mark.parametrize("make", SEQUENCE_TRANSFORMERS)
def test_pandas_output_is_a_frame_for_rows_and_sequences_keep_their_form(make):
    # scikit-learn's wrapping put every output into a DataFrame: sequences
    # failed with pandas' "Must pass 2-d input" or numpy's "inhomogeneous shape".
    X = _ragged()
    expected = make().fit_transform(X)
    for config in (lambda t: t.set_output(transform="pandas"),
                   lambda t: t):
        with sklearn.config_context(transform_output="pandas"):
            out = config(make()).fit_transform(X)
            padded = config(make()).fit(to_padded(X)).transform(to_padded(X))
        assert isinstance(out, list) and isinstance(padded, np.ndarray)
        for got, want in zip(out, expected, strict=True):
            assert_array_equal(got, want)
        assert_array_equal(padded, to_padded(expected))
    rows = pd.DataFrame(X[0], columns=["u", "v"], index=np.arange(10, 10 + len(X[0])))
    frame = make().set_output(transform="pandas").fit_transform(rows)
    assert isinstance(frame, pd.DataFrame)
    assert_array_equal(frame.index, rows.index)
    transformer = make().fit(rows)
    assert_array_equal(frame.columns, transformer.get_feature_names_out())
    assert_array_equal(frame.to_numpy(), transformer.transform(rows))


def test_pipeline_under_pandas_output_fits_on_sequences():
    X = _ragged()
    y = np.arange(len(X)) % 2
    pipe = make_pipeline(SequenceFeatures(), IOHMMClassifier(
        n_states=2, n_init=1, max_iter=5, random_state=0))
    expected = clone(pipe).fit(X, y).predict_proba(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        got = pipe.set_output(transform="pandas").fit(X, y).predict_proba(X)
    assert_array_equal(got, expected)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("shape", [(12, 20, 1), (12, 1)])
def test_transformer_outputs_are_not_taken_for_another_layout(shape):
    # 84 kernels on 20 steps (or on one-step rows) are more features than
    # steps: every estimator after the transformer warned at every fit that
    # its input looked channels first (or like series in a table).
    X = np.random.default_rng(0).normal(size=shape)
    y = np.arange(12) % 2
    conv = DilatedConvolution(n_dilations=1, random_state=0)
    pipe = make_pipeline(conv, RunningPooling(), IOHMMClassifier(
        n_states=2, n_init=1, max_iter=3, random_state=0))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)  # a UserWarning
        pipe.fit(X, y)
    # the same array, not from a transformer, still gets the hint
    with pytest.warns(UserWarning, match="channels first|look like the steps"):
        RunningPooling().fit(conv.transform(X).copy())
    # and the user's own channels-first array still does, at the first step
    with pytest.warns(UserWarning, match="channels first"):
        pipe.fit(np.zeros((12, 3, 20)), y)


def test_window_mean_keeps_rows_and_feature_names():
    df = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    wm = WindowMean(window=3).fit(df)
    assert_array_equal(wm.transform(df), df.to_numpy())  # one-step sequences
    assert_array_equal(wm.get_feature_names_out(), ["a", "b"])


def test_sequence_features_equal_hand_computation():
    X = _ragged(1)
    out = SequenceFeatures(diff=True, time=True).fit_transform(X)
    for x, got in zip(X, out, strict=True):
        diff = np.vstack([np.zeros((1, 2)), np.diff(x, axis=0)])
        time = np.linspace(0.0, 1.0, len(x)) if len(x) > 1 else np.zeros(1)
        assert_allclose(got, np.column_stack([x, diff, time]), rtol=1e-13,
                        atol=1e-15)
    only_time = SequenceFeatures(diff=False, time=True, keep_input=False)
    padded = only_time.fit_transform(to_padded(X))
    assert padded.shape == (5, 12, 1)
    assert_allclose(padded[3, :, 0], np.arange(12) / 11)
    assert np.isnan(padded[0, 7:]).all()  # padding stays padding


def test_sequence_features_names_and_errors():
    df = pd.DataFrame({"speed": [1.0, 2.0], "load": [3.0, 4.0]})
    sf = SequenceFeatures(time=True).fit(df)
    assert_array_equal(sf.get_feature_names_out(),
                       ["speed", "load", "diff_speed", "diff_load", "time"])
    assert_array_equal(sf.transform(df)[:, 2:], 0.0)  # one-step: no change yet
    with pytest.raises(ValueError, match="no feature"):
        SequenceFeatures(diff=False, keep_input=False).fit(df)
    with pytest.raises(ValueError, match="sequence 1 contains NaN at step 2"):
        sf.fit([np.ones((3, 2)), np.array([[0.0, 1.0], [1.0, 1.0], [np.nan, 1.0]])])
    assert sf.n_features_in_ == 2 and hasattr(sf, "feature_names_in_")  # unchanged
    # fitted with names, given none: scikit-learn's warning, then its error
    with pytest.warns(UserWarning, match="X does not have valid feature names, "
                      "but SequenceFeatures was fitted with feature names"), \
            pytest.raises(ValueError, match="3 features"):
        sf.transform([np.ones((2, 3))])
    with pytest.raises(NotFittedError):
        WindowMean(window=2).transform([np.ones((2, 3))])
    with pytest.raises(ValueError, match="max_length"):
        WindowMean(max_length=0).fit([np.ones((2, 3))])


def test_sequence_pipeline_with_readout_options_in_grid_search():
    """The tuned pipeline of the real-data benchmark, on a toy problem: the class
    is the sign of a level shift that happens at a random time."""
    rng = np.random.default_rng(0)
    X, y = [], []
    for s in range(40):
        T = rng.integers(20, 40)
        x = rng.normal(size=(T, 1))
        x[rng.integers(2, T - 5):] += 2.0 if s % 2 else -2.0
        X.append(x)
        y.append(s % 2)
    pipe = make_pipeline(WindowMean(max_length=10), SequenceFeatures(),
                         Stepwise(StandardScaler()),
                         IOHMMClassifier(n_states=2, features="raw", n_init=1,
                                         max_iter=50,
                                         random_state=0))
    grid = {"iohmmclassifier__readout": ["last", "mean"],
            "iohmmclassifier__n_prefixes": [1, 2]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = GridSearchCV(pipe, grid, cv=KFold(2)).fit(X, y)
    assert search.best_score_ >= 0.9


# -- DilatedConvolution, RunningPooling, SequenceUnion, to_raw_steps, on_raw_steps
# Per-step representations: DilatedConvolution, RunningPooling, SequenceUnion,
# the amplitude and position recipes, WindowMean.to_raw_steps and on_raw_steps.
#
# References are slow obvious loops written here: the kernels' weights from
# ``itertools.combinations``, every tap read by hand, ``np.quantile`` for the
# biases, ``np.mean`` / ``np.max`` over each window, ``math.fsum`` for long sums.


GOLDEN = (1 + 5**0.5) / 2
TAPS = list(itertools.combinations(range(9), 3))


def _integers(lengths, n_channels, seed=0):
    """Small integers: every sum is exact, so indicators compare exactly."""
    rng = np.random.default_rng(seed)
    return [rng.integers(-4, 5, size=(k, n_channels)).astype(float) for k in lengths]


def _conv_by_hand(x, t, kernel, dilation, channels, causal, zero):
    """sum_p w_p sum_ch x[step of tap p, ch], every tap read one by one."""
    weights = [2.0 if p in TAPS[kernel] else -1.0 for p in range(9)]
    total = 0.0
    for p in range(9):
        s = t + (p - 8) * dilation if causal else t + (p - 4) * dilation
        for ch in channels:
            if 0 <= s < len(x):
                value = x[s, ch]
            elif zero:
                value = 0.0
            else:
                value = x[0, ch] if s < 0 else x[-1, ch]
            total += weights[p] * value
    return total


def _values_by_hand(conv, X):
    """(len_i, n_combinations) convolution values of every sequence."""
    causal, zero = conv.causal, conv.padding == "zero"
    return [np.array([[_conv_by_hand(x, t, k, d, ch, causal, zero)
                       for (k, d), ch in zip(conv.combinations_, conv.channels_,
                                             strict=True)]
                      for t in range(len(x))]) for x in X]


def _indicators(values, biases):
    """Column m * n_biases + b is values[:, m] > biases[m, b]."""
    return (values[:, :, None] > biases[None]).reshape(values.shape[0], -1)


# -- DilatedConvolution -----------------------------------------------------------
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("padding", ["edge", "zero"])
@pytest.mark.parametrize("channels", ["combine", "each"])
def test_convolution_equals_direct_loop(causal, padding, channels):
    X = _integers((1, 5, 23, 12), n_channels=3)
    conv = DilatedConvolution(n_dilations=3, max_dilation=3, n_biases=2, causal=causal,
                              padding=padding, channels=channels, random_state=0)
    out = conv.fit_transform(X)
    values = _values_by_hand(conv, X)
    pooled = np.concatenate(values)
    # Biases: np.quantile of every combination's values over all training steps
    # at the levels frac(j * golden ratio), j = 1, 2, ...
    levels = (np.arange(1, pooled.shape[1] * 2 + 1) * GOLDEN) % 1.0
    expected = np.array([np.quantile(pooled[:, m], levels[2 * m : 2 * m + 2])
                         for m in range(pooled.shape[1])])
    assert_allclose(conv.biases_, expected, rtol=1e-12, atol=1e-12)
    for got, v in zip(out, values, strict=True):
        assert_array_equal(got, _indicators(v, conv.biases_))
    raw = conv.set_params(output="value").fit(X).transform(X)
    for got, v in zip(raw, values, strict=True):
        assert_array_equal(got, v)


@pytest.mark.parametrize("n_rows", [1, 2, 3, 9, 150, 5000])
def test_column_quantiles_equal_a_full_sort(n_rows):
    # Many ties (small integers), and more columns than one transposed block
    # (150 rows: sorted; 5,000: selected).
    rng = np.random.default_rng(n_rows)
    values = rng.integers(-3, 4, size=(n_rows, 140)).astype(float)
    values[:, 1] = rng.normal(size=n_rows)
    levels = rng.uniform(size=(140, 4))
    levels[0] = [0.0, 1.0, 0.5, 0.5]  # the ends, and a repeated level
    got = column_quantiles(values, levels)
    # the same interpolation read from a full sort, and np.quantile's own
    ordered = np.sort(values, axis=0)
    pos = levels * (n_rows - 1)
    lo = np.floor(pos).astype(int)
    hi = np.minimum(lo + 1, n_rows - 1)
    col = np.arange(140)[:, None]
    below, above = ordered[lo, col], ordered[hi, col]
    assert_array_equal(got, below + (pos - lo) * (above - below))
    expected = np.array([np.quantile(values[:, j], levels[j]) for j in range(140)])
    assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_biases_on_threads_equal_one_thread(monkeypatch):
    # Threads over dilations (made worth it on small data) give the same
    # biases, bit for bit, as one thread; and they do run.
    from skseq._data import dilated

    monkeypatch.setattr(dilated, "_MIN_VALUES_PER_THREAD", 1)
    n_tasks = []
    run = dilated._parallel.run
    monkeypatch.setattr(dilated._parallel, "run",
                        lambda tasks: n_tasks.append(len(tasks)) or run(tasks))
    X = _integers((30, 5, 23, 12), n_channels=2)
    fits, most = [], []
    for n_jobs in (None, 2):
        n_tasks.clear()
        fits.append(DilatedConvolution(n_dilations=3, max_dilation=3, n_biases=2,
                                       random_state=0, n_jobs=n_jobs).fit(X))
        most.append(max(n_tasks))
    assert most == [1, 2]
    assert_array_equal(fits[0].biases_, fits[1].biases_)


def test_combinations_dilations_and_channels():
    X = _integers((20, 40, 100), n_channels=12)
    conv = DilatedConvolution(n_dilations=3, random_state=0).fit(X)
    # Median length 40: the largest window of 8 d + 1 steps that fits has d = 4.
    assert_array_equal(conv.dilations_, [1, 2, 4])
    assert conv.combinations_.shape == (3 * 84, 2)
    assert_array_equal(conv.combinations_[:, 1], np.repeat([1, 2, 4], 84))
    assert_array_equal(conv.combinations_[:84, 0], np.arange(84))
    sizes = [len(ch) for ch in conv.channels_]
    assert min(sizes) >= 1 and max(sizes) <= 9  # MiniRocket: at most 9 channels
    assert len(set(sizes)) > 3  # the count itself is drawn
    for ch in conv.channels_:
        assert_array_equal(ch, np.unique(ch))
        assert ch.min() >= 0 and ch.max() < 12
    again = DilatedConvolution(n_dilations=3, random_state=0).fit(X)
    other = DilatedConvolution(n_dilations=3, random_state=1).fit(X)
    assert all(np.array_equal(a, b) for a, b in zip(conv.channels_, again.channels_,
                                                    strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(conv.channels_, other.channels_,
                                                        strict=True))
    each = DilatedConvolution(n_dilations=1, channels="each").fit(X)
    assert each.combinations_.shape == (84 * 12, 2)
    assert [c.tolist() for c in each.channels_[:13]] == [[c] for c in range(12)] + [[0]]


@pytest.mark.parametrize("n_channels", [1, 2, 12])
def test_channels_are_drawn_as_minirocket_draws_them(n_channels):
    """Each (dilation, kernel) in turn draws u ~ U(0, log2(min(n, 9) + 1))
    and then floor(2 ** u) channels without replacement (Dempster, Schmidt &
    Webb 2021): the same draws, from the same stream, as that loop with
    ``choice``, leaving the generator in the same state (a single channel
    too, whose draws change nothing but the stream)."""
    kernels = DilatedKernels(random_state=0)
    kernels.dilations_ = np.array([1, 3, 7])
    rng, reference = np.random.RandomState(5), np.random.RandomState(5)
    combinations, channels = kernels._draw_combinations(n_channels, rng)
    top = np.log2(min(n_channels, 9) + 1)
    for i, (d, k) in enumerate(itertools.product([1, 3, 7], range(84))):
        assert combinations[i].tolist() == [k, d]
        size = min(int(2.0 ** reference.uniform(0.0, top)), n_channels)
        expected = (reference.choice(n_channels, size, replace=False)
                    if n_channels > 1 else [0])
        assert channels[i].dtype == np.intp
        assert channels[i].tolist() == sorted(expected)
    assert len(channels) == combinations.shape[0] == 3 * 84
    assert rng.randint(2**31) == reference.randint(2**31)


@pytest.mark.parametrize("n_dilations, max_dilation, expected", [
    (4, 8, [1, 2, 4, 8]),  # 2 ** log2(8) must not round down to 7
    (4, 2, [1, 2]),        # 1, 1.26, 1.59, 2: two distinct values
    (1, 30, [1]),
    (5, 32, [1, 2, 5, 13, 32]),  # 2 ** (0, 1.25, 2.5, 3.75, 5)
])
def test_dilations_are_exponentially_spaced(n_dilations, max_dilation, expected):
    X = _integers((30,), n_channels=1)
    conv = DilatedConvolution(n_dilations, max_dilation=max_dilation, n_biases=1,
                              output="value").fit(X)
    assert_array_equal(conv.dilations_, expected)
    assert conv.transform(X)[0].shape == (30, 84 * len(expected))


def test_the_largest_dilation_is_the_kernels_and_larger_ones_are_refused():
    # 2**70 failed in np.log2 with a TypeError naming no parameter; 2**62 was
    # fitted with output="value" and refused by the kernel at transform; and
    # from about 9e5 on, the largest dilation was max_dilation - 1 (2 ** log2
    # rounded down)
    x = np.arange(1.0, 6.0)[:, None]
    top = np.iinfo(np.intp).max // 36  # 4 * 9 taps: the kernel's index range
    conv = DilatedConvolution(2, max_dilation=top, output="value").fit([x])
    assert_array_equal(conv.dilations_, [1, top])
    # every tap but the last reads before the start: the first value (edge)
    taps = np.full((84, 9), -1.0)
    for k, chosen in enumerate(itertools.combinations(range(9), 3)):
        taps[k, list(chosen)] = 2.0
    expected = x * taps[:, 8] + x[0, 0] * taps[:, :8].sum(axis=1)
    assert_allclose(conv.transform([x])[0][:, 84:], expected, atol=1e-13)
    for m in (894831, 1023644713):
        assert DilatedConvolution(3, max_dilation=m).fit([x]).dilations_[-1] == m
    for big in (top + 1, 2**62, 2**70):
        with pytest.raises(ValueError, match="'max_dilation' parameter"):
            DilatedConvolution(2, max_dilation=big, output="value").fit([x])


def test_feature_count_and_names():
    X = _integers((30, 20), n_channels=2)
    conv = DilatedConvolution(n_dilations=2, max_dilation=2, n_biases=3).fit(X)
    names = conv.get_feature_names_out()
    assert conv.transform(X)[0].shape == (30, 84 * 2 * 3) == (30, len(names))
    assert list(names[:4]) == ["k0_d1_q0", "k0_d1_q1", "k0_d1_q2", "k1_d1_q0"]
    each = DilatedConvolution(n_dilations=1, channels="each", output="value").fit(X)
    assert list(each.get_feature_names_out(["u", "v"])[:3]) == ["k0_d1_u", "k0_d1_v",
                                                                 "k1_d1_u"]


def test_causal_outputs_do_not_see_the_future():
    rng = np.random.default_rng(1)
    X = [rng.normal(size=(60, 2)), rng.normal(size=(35, 2))]
    t = 20
    future = [X[0].copy(), X[1]]
    future[0][t + 1 :] = rng.normal(size=(39, 2)) * 10.0
    for output in ("indicator", "value"):
        conv = DilatedConvolution(output=output, random_state=0).fit(X)
        before, after = conv.transform(X), conv.transform(future)
        assert_array_equal(before[0][: t + 1], after[0][: t + 1])
        assert not np.array_equal(before[0][t + 1 :], after[0][t + 1 :])
        assert_array_equal(before[1], after[1])
        centred = conv.set_params(causal=False).fit(X)
        assert not np.array_equal(centred.transform(X)[0][: t + 1],
                                  centred.transform(future)[0][: t + 1])


def test_forms_lengths_and_padding():
    X = _integers((7, 1, 30), n_channels=2, seed=2)
    conv = DilatedConvolution(n_dilations=2, max_dilation=2, random_state=0).fit(X)
    out = conv.transform(X)
    assert isinstance(out, list) and [len(o) for o in out] == [7, 1, 30]
    padded = conv.transform(to_padded(X))
    assert padded.shape == (3, 30, 84 * 2 * 2)
    assert_array_equal(padded, to_padded(out))  # NaN padding after each end
    rows = np.concatenate(X)
    with pytest.warns(UserWarning, match="2-D table"):  # rows after sequences
        out_rows = conv.transform(rows)
    assert out_rows.shape == (38, 84 * 2 * 2)
    # A one-step sequence is a flat window: every convolution is exactly 0.
    assert_array_equal(out_rows, np.broadcast_to(_indicators(
        np.zeros((1, 168)), conv.biases_), out_rows.shape))
    assert_array_equal(conv.set_params(output="value").fit(rows).transform(rows), 0.0)


def test_flat_windows_give_exact_zeros_at_any_level():
    # 0.1 + 0.1 + ... is not 9 * 0.1 in floating point; differences to the
    # anchor step are, so a flat stretch gives 0 and no random indicator bits.
    X = [np.full((40, 1), 0.1), np.full((10, 1), 1e9 + 0.3)]
    out = DilatedConvolution(output="value").fit(X).transform(X)
    assert_array_equal(np.concatenate(out), 0.0)


def test_transform_uses_the_biases_fitted_on_training_data():
    X_train = _integers((30, 25, 40), n_channels=1, seed=3)
    X_test = [3.0 * x + 2.0 for x in _integers((35, 12), n_channels=1, seed=4)]
    conv = DilatedConvolution(n_dilations=2, max_dilation=3, random_state=0)
    out = conv.fit(X_train).transform(X_test)
    values = _values_by_hand(conv, X_test)
    for got, v in zip(out, values, strict=True):
        assert_array_equal(got, _indicators(v, conv.biases_))
    refit = DilatedConvolution(n_dilations=2, max_dilation=3, random_state=0)
    assert not np.allclose(refit.fit(X_test).biases_, conv.biases_)


def test_subsample_draws_training_steps_for_the_biases():
    X = _integers((200, 150), n_channels=1, seed=5)
    full = DilatedConvolution(n_dilations=1, random_state=0).fit(X)
    values = np.concatenate(_values_by_hand(full, X))
    subs = [DilatedConvolution(n_dilations=1, subsample=50, random_state=seed).fit(X)
            for seed in (0, 0, 1)]
    assert_array_equal(subs[0].biases_, subs[1].biases_)
    assert not np.array_equal(subs[0].biases_, subs[2].biases_)
    assert not np.array_equal(subs[0].biases_, full.biases_)
    assert np.all(subs[0].biases_ >= values.min(axis=0)[:, None])
    assert np.all(subs[0].biases_ <= values.max(axis=0)[:, None])


@pytest.mark.parametrize("channels", ["combine", "each"])
def test_series_thresholds_are_quantiles_of_one_training_series(channels):
    # threshold_sample="series" (MiniRocket's rule): each combination's biases
    # are np.quantile of its by-hand convolution over ONE training series, at
    # the golden levels; the series differ between combinations; the same
    # series are drawn whatever the order of the collection.
    rng = np.random.default_rng(3)
    X = [rng.normal(size=(k, 2)) for k in (5, 13, 8, 11, 3)]
    kernels = DilatedConvolution(n_dilations=2, max_dilation=2, n_biases=3,
                                 channels=channels, threshold_sample="series",
                                 random_state=0)
    got = kernels.fit(X).biases_
    values = _values_by_hand(kernels, X)
    n_comb = got.shape[0]
    levels = ((np.arange(1, 3 * n_comb + 1) * GOLDEN) % 1.0).reshape(n_comb, 3)
    chosen = []
    for m in range(n_comb):
        by_series = [np.quantile(v[:, m], levels[m]) for v in values]
        match = [s for s, q in enumerate(by_series)
                 if np.allclose(q, got[m], rtol=1e-12, atol=1e-12)]
        assert len(match) == 1, m
        chosen.append(match[0])
    assert len(set(chosen)) == len(X)
    perm = [3, 0, 4, 2, 1]
    again = kernels.fit([X[i] for i in perm]).biases_
    assert_array_equal(again, got)


def test_series_thresholds_read_at_most_subsample_steps_of_a_series(monkeypatch):
    # A series longer than ``subsample``: its thresholds come from that many of
    # its steps (the kernel is never called on more), within its values'
    # range, not its full quantiles; the same draws in any order of the
    # collection.
    from skseq._data import dilated

    rng = np.random.default_rng(4)
    X = [rng.normal(size=(k, 1)) for k in (60, 4, 7)]
    calls = []
    convolve = dilated.convolution.dilated_convolution
    monkeypatch.setattr(dilated.convolution, "dilated_convolution",
                        lambda *a, **k: calls.append(a[2].size) or convolve(*a, **k))
    kernels = DilatedConvolution(n_dilations=1, n_biases=2, subsample=20,
                                 threshold_sample="series", random_state=0)
    got = kernels.fit(X).biases_
    assert max(calls) == 20
    values = _values_by_hand(kernels, X)[0]
    levels = ((np.arange(1, 2 * 84 + 1) * GOLDEN) % 1.0).reshape(84, 2)
    full = np.array([np.quantile(values[:, m], levels[m]) for m in range(84)])
    inside = (got >= values.min(axis=0)[:, None]) & (got <= values.max(axis=0)[:, None])
    long_ones = [m for m in range(84) if np.all(inside[m])
                 and not np.allclose(got[m], full[m])]
    assert len(long_ones) > 10
    again = kernels.fit(X[::-1]).biases_
    assert_array_equal(again, got)


def test_series_thresholds_ignore_order_among_series_of_equal_sums():
    # Integer series that are rotations of one another have the same length and
    # the same sum of every channel (a tie of any summary of their steps'
    # sums): the series drawn must still be the same in any order of the
    # collection (they were the ones at the drawn positions).
    base = np.arange(9.0)[:, None] % 4 * [1.0, -1.0] + [0.0, 3.0]
    X = [np.roll(base, r, axis=0) for r in (0, 2, 5, 7)]
    kernels = DilatedConvolution(n_dilations=1, n_biases=1,
                                 threshold_sample="series", random_state=0)
    got = kernels.fit(X).biases_
    for perm in ([3, 2, 1, 0], [1, 3, 0, 2]):
        assert_array_equal(kernels.fit([X[i] for i in perm]).biases_, got)


def test_series_thresholds_of_huge_values_are_those_of_the_values_scaled():
    # Values near float64's limit, whose convolution is finite but whose sum
    # over a long series is not: no overflow warning (an error for the package's
    # own code), and the thresholds those of the values divided by a power of
    # two (exact), times it.
    rng = np.random.default_rng(7)
    X = [1.0 + rng.normal(size=(k, 1)) ** 2 for k in (1500, 40, 900)]
    kernels = DilatedConvolution(n_dilations=1, n_biases=2,
                                 threshold_sample="series", random_state=0)
    small = kernels.fit(X).biases_
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        huge = kernels.fit([x * 2.0**1015 for x in X]).biases_
    assert_array_equal(huge, small * 2.0**1015)


def test_unequal_lengths_from_20_to_1400_steps():
    rng = np.random.default_rng(6)
    X = [np.cumsum(rng.integers(-3, 4, size=(k, 2)), axis=0).astype(float)
         for k in (20, 1400, 333)]
    conv = DilatedConvolution(output="value", random_state=0).fit(X)
    # Median 333: d <= 41; 2 ** (0, 1.79, 3.57, 5.36).
    assert_array_equal(conv.dilations_, [1, 3, 11, 41])
    out = conv.transform(X)
    assert [o.shape for o in out] == [(20, 336), (1400, 336), (333, 336)]
    for s, t in [(0, 0), (0, 19), (1, 5), (1, 700), (1, 1399), (2, 332)]:
        expected = [_conv_by_hand(X[s], t, k, d, ch, True, False)
                    for (k, d), ch in zip(conv.combinations_, conv.channels_,
                                          strict=True)]
        assert_array_equal(out[s][t], expected)


def test_threads_pooling_pickle_and_determinism():
    rng = np.random.default_rng(7)
    X = [rng.normal(size=(k, 1)) for k in (900, 1300, 400)]
    conv = DilatedConvolution(random_state=0).fit(X)
    out = conv.transform(X)
    threaded = DilatedConvolution(random_state=0, n_jobs=2).fit(X).transform(X)
    for a, b in zip(out, threaded, strict=True):
        assert_array_equal(a, b)
    restored = pickle.loads(pickle.dumps(conv))
    for a, b in zip(out, restored.transform(X), strict=True):
        assert_array_equal(a, b)
    for pooling, window in ((5, 5), ("prefix", None)):
        pooled = DilatedConvolution(random_state=0, pooling=pooling).fit(X).transform(X)
        for a, b in zip(RunningPooling(window).fit_transform(out), pooled,
                        strict=True):
            assert_array_equal(a, b)


def test_convolution_rejects_bad_input():
    X = _integers((10, 8), n_channels=2)
    conv = DilatedConvolution().fit(X)
    with pytest.raises(ValueError, match="X has 3 features, but DilatedConvolution "
                                         "is expecting 2"):
        conv.transform([np.ones((5, 3))])
    with pytest.raises(ValueError, match="sequence 1 contains NaN at step 2"):
        conv.transform([np.ones((4, 2)), np.array([[0, 1], [1, 1], [np.nan, 1]])])
    with pytest.raises(ValueError, match="sequence 0 is empty"):
        conv.transform([np.ones((0, 2))])
    with pytest.raises(ValueError, match="'n_dilations' parameter"):
        DilatedConvolution(n_dilations=0).fit(X)
    with pytest.raises(ValueError, match="'max_dilation' parameter"):
        DilatedConvolution(n_dilations=2, max_dilation=2**62).fit(X)
    with pytest.raises(ValueError, match="'padding' parameter"):
        DilatedConvolution(padding="reflect").fit(X)
    before = conv.biases_
    with pytest.raises(ValueError, match="'output' parameter"):
        conv.set_params(output="ppv").fit(X)
    assert conv.biases_ is before  # a failed fit leaves the fitted state
    conv.set_params(output="value", causal=False)
    with pytest.raises(ValueError, match="causal, output changed since fit"):
        conv.transform(X)
    conv.set_params(output="indicator", causal=True, n_jobs=2, pooling=3)
    assert conv.transform(X)[0].shape == (10, 84 * 2)  # not structural


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
