"""Classifying early: ``IOHMMClassifier(n_prefixes=[fractions])`` against a
direct loop over the prefixes, its checks, the causality of the prediction on
a prefix; ``features="shape_centred"`` against the public transformer with
centred kernels, and its refusal of step-level targets."""

import warnings

import numpy as np
import pytest
from _series import level_means, random_walks
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning

from skseq import IOHMMClassifier, IOHMMRegressor
from skseq._base_dask import _refuse_options
from skseq._data import check_sequences
from skseq._data.prefixes import prefix_sequences
from skseq._families.penalty import RAW_ALPHA
from skseq.preprocessing import DilatedConvolution
from skseq.representations import CentredShapeFeatures


def _series(seed=0, n=16, low=3, high=10):
    """Two classes of noisy 2-D signals (mean shifted), lengths low..high-1."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = [rng.normal(loc=0.7 * (2 * c - 1), size=(rng.integers(low, high), 2))
         for c in y]
    return X, y


def _fit_quiet(clf, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return clf.fit(*args, **kwargs)


def _loop_prefixes(X, y, w, fractions):
    """Every prefix x[:ceil(f T)], one per fraction, with weight w / n."""
    Xp, yp, wp = [], [], []
    for x, label, weight in zip(X, y, w, strict=True):
        for f in fractions:
            Xp.append(x[: int(np.ceil(f * len(x)))])
            yp.append(label)
            wp.append(weight / len(fractions))
    return Xp, np.array(yp), np.array(wp)


def test_prefixes_at_fractions_match_a_direct_loop():
    """The packed prefixes are the loop's, equal ones merged with their
    weights added; ceil is taken in floating point as the loop does
    (0.55 * 100 is 55.00000000000001: 56 steps)."""
    rng = np.random.default_rng(1)
    X = [rng.normal(size=(T, 1)) for T in (1, 2, 3, 7, 10, 31, 100)]
    fractions = [0.3, 0.1, 1.0, 0.55]  # unsorted on purpose
    prefixes, parent, share = prefix_sequences(check_sequences(X), fractions)
    got = {}
    steps = np.split(prefixes.data, prefixes.offsets[1:-1])
    for p, s, k in zip(steps, parent, share, strict=True):
        got[(s, len(p))] = (p, k)
    expected = {}
    for s, x in enumerate(X):
        for f in fractions:
            t = int(np.ceil(f * len(x)))
            old = expected.get((s, t), (x[:t], 0.0))
            expected[(s, t)] = (x[:t], old[1] + 1 / len(fractions))
    assert got.keys() == expected.keys()
    assert (6, 56) in got  # 0.55 * 100 in floating point
    for key, (p, k) in expected.items():
        assert_array_equal(got[key][0], p)
        assert_allclose(got[key][1], k, rtol=1e-15)
    # each sequence's shares add up to 1, and its prefixes come in order
    assert_allclose(np.bincount(parent, weights=share), 1.0, rtol=1e-15)
    assert np.all(np.diff(parent) >= 0)


def test_fraction_training_equals_fitting_the_loops_prefixes():
    """The fit on fractions is the fit of the loop's prefixes with weights
    w / n: the same problem from the same start."""
    X, y = _series(0)  # lengths >= 3: the three fractions give distinct prefixes
    w = np.random.default_rng(0).uniform(0.5, 2.0, size=len(X))
    fractions = [0.5, 0.2, 1.0]
    kw = dict(n_states=2, features="raw", n_init=1, max_iter=30, random_state=3)
    ours = _fit_quiet(IOHMMClassifier(n_prefixes=fractions, **kw), X, y,
                      sample_weight=w)
    Xp, yp, wp = _loop_prefixes(X, y, w, fractions)
    ref = _fit_quiet(IOHMMClassifier(**kw), Xp, yp, sample_weight=wp)
    assert_allclose(ours.transition_coef_, ref.transition_coef_, rtol=1e-8)
    assert_allclose(ours.emission_coef_, ref.emission_coef_, rtol=1e-8)
    assert_allclose(ours.log_likelihood_, ref.log_likelihood_, rtol=1e-10)
    # with equal prefixes (short sequences) merged, the objective is still
    # that of the loop's duplicated prefixes
    X2, y2 = _series(1, low=1, high=4)
    merged = _fit_quiet(IOHMMClassifier(n_prefixes=fractions, **kw), X2, y2)
    Xp, yp, wp = _loop_prefixes(X2, y2, np.ones(len(X2)), fractions)
    assert_allclose(merged.log_likelihood_, wp @ merged.score_samples(Xp, yp),
                    rtol=1e-12)


@pytest.mark.parametrize("bad", [[0.0, 0.5], [0.5, 1.5], [], [[0.5]],
                                 [np.nan], ["a"], [True, 0.5], [np.True_],
                                 ["0.5"], np.array([True, True])])
def test_bad_fractions_are_refused_and_leave_the_model(bad):
    # a bool (True read as 1.0, the whole sequence) and a string that reads as
    # a number ("0.5") were fitted as fractions, silently
    X, y = _series(2)
    clf = _fit_quiet(IOHMMClassifier(n_states=2, features="raw", n_init=1,
                                     max_iter=5, random_state=0), X, y)
    before = clf.emission_coef_.copy()
    with pytest.raises(ValueError, match="n_prefixes"):
        clf.set_params(n_prefixes=bad).fit(X, y)
    assert_array_equal(clf.emission_coef_, before)


def test_step_level_targets_with_prefixes_name_what_needs_sequence_labels():
    X, y = _series(2)
    steps = [np.full(len(x), c) for x, c in zip(X, y, strict=True)]
    # the default readout is not named as the cause
    cases = [({"n_prefixes": [0.5, 1.0]}, r"With n_prefixes=\[0.5, 1\.0\],"),
             ({"readout": "mean"}, "With readout='mean',")]
    for params, named in cases:
        with pytest.raises(ValueError, match=named):
            IOHMMClassifier(n_states=2, features="raw", **params).fit(X, steps)


@pytest.mark.parametrize("whole", [[1.0], [1.0, 1.0], np.array([1.0])])
def test_fractions_of_one_are_the_whole_sequences_as_n_prefixes_1(whole):
    # ceil(1.0 * T) = T for every T: the sequences themselves, so step-level
    # labels are accepted as with n_prefixes=1, and every fit is the same
    X, y = _series(2)
    steps = [np.full(len(x), c) for x, c in zip(X, y, strict=True)]
    for labels in (steps, y):
        params = dict(n_states=2, features="raw", n_init=1, max_iter=5,
                      random_state=0)
        one = _fit_quiet(IOHMMClassifier(**params), X, labels)
        fractions = _fit_quiet(IOHMMClassifier(n_prefixes=whole, **params), X,
                               labels)
        assert_array_equal(fractions.emission_coef_, one.emission_coef_)
        for got, expected in zip(fractions.predict(X), one.predict(X), strict=True):
            assert_array_equal(got, expected)


def test_a_bool_is_not_a_count_of_prefixes():
    # n_prefixes=True fitted one prefix, silently
    X, y = _series(2)
    clf = _fit_quiet(IOHMMClassifier(n_states=2, features="raw", n_init=1,
                                     max_iter=5, random_state=0), X, y)
    before = clf.emission_coef_.copy()
    for name in ("n_prefixes", "n_states"):
        with pytest.raises(ValueError, match=f"'{name}' parameter .* not a bool"):
            clf.set_params(**{name: True}).fit(X, y)
        clf.set_params(**{name: 1 if name == "n_prefixes" else 2})
    assert_array_equal(clf.emission_coef_, before)


def test_the_class_of_a_prefix_is_read_causally():
    """On the shape representation, a prefix's state distributions are the
    first rows of the whole sequence's, and a model trained on prefixes
    predicts on its shortest ones without the "much shorter" warning (a
    model trained on whole sequences warns)."""
    rng = np.random.default_rng(3)
    y = np.arange(12) % 2
    t = np.arange(40)
    X = [np.sin(t / (3 + 2 * c))[:, None] + 0.2 * rng.normal(size=(40, 1))
         for c in y]
    kw = dict(n_states=2, n_init=1, max_iter=10, random_state=0)
    clf = _fit_quiet(IOHMMClassifier(n_prefixes=[0.1, 1.0], **kw), X, y)
    assert clf.features_ == "shape"
    full = clf.predict_state_proba(X[:3])
    for k in (1, 4, 17):
        for got, whole in zip(clf.predict_state_proba([x[:k] for x in X[:3]]),
                              full, strict=True):
            assert_allclose(got, whole[:k], rtol=1e-12, atol=1e-15)
    short = [x[:4] for x in X]
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        clf.predict(short)
    whole_model = _fit_quiet(IOHMMClassifier(**kw), X, y)
    with pytest.warns(UserWarning, match="much shorter"):
        whole_model.predict(short)


def test_the_penalty_leaves_the_prefixes_of_a_sequence_out_together(monkeypatch):
    """``alpha="auto"`` on prefixes: the read-out's rows (one per prefix) are
    grouped by the training sequence they were cut from, and a sequence of
    weight 2 stands for two copies."""
    from skseq._families import outputs

    seen = []

    def spy(X, y, weight, groups=None, copies=None, copy_weight=None):
        seen.append((X.shape[0], groups, copies))
        return 1.0, None

    monkeypatch.setattr(outputs, "choose_alpha_classes", spy)
    X, y = _series(4, n=10, low=6, high=9)
    w = np.ones(len(X))
    w[3] = 2.0
    fractions = [0.3, 1.0]
    clf = _fit_quiet(IOHMMClassifier(n_states=1, features="shape_centred",
                                     n_prefixes=fractions, n_init=1, max_iter=2,
                                     random_state=0), X, y, sample_weight=w)
    assert clf.alpha_ == 1.0
    (n_rows, groups, copies), = seen
    expected = [s for s, x in enumerate(X) for f in fractions
                if len(x[: int(np.ceil(f * len(x)))]) > 0]
    assert n_rows == len(expected)
    assert_array_equal(np.sort(groups), np.sort(expected))
    assert_array_equal(copies, w)
    # without prefixes: no groups
    seen.clear()
    _fit_quiet(clf.set_params(n_prefixes=1), X, y)
    assert seen[0][1] is None


def test_centred_representation_equals_the_public_transformer():
    """Its inputs are the prefix means of MiniRocket's centred, zero-padded
    kernels (``DilatedConvolution(causal=False, padding="zero",
    pooling="prefix")`` with the same parameters) and of the amplitude
    levels, projected."""
    X = random_walks((30, 45, 12, 80, 1), n_channels=2, seed=4)
    seqs = check_sequences(X)
    rep = CentredShapeFeatures(n_components=10, n_state_components=4).fit(seqs, 0)
    conv = rep.convolution_
    assert not conv.causal and conv.padding == "zero"
    pooled = DilatedConvolution(**conv.get_params(), pooling="prefix").fit(X)
    assert_array_equal(pooled.biases_, conv.biases_)
    means = np.hstack([np.concatenate(pooled.transform(X)),
                       level_means(rep.levels_, X)])
    projected = means @ rep.projection_ - rep.offset_
    steps, at_rows = rep.inputs(seqs, seqs.last_steps)
    assert_allclose(steps, projected[:, :4], rtol=0, atol=1e-10)
    assert_allclose(at_rows, projected[seqs.last_steps], rtol=0, atol=1e-10)
    # not causal: a step's features change when a later step does
    later = [x.copy() for x in X]
    later[1][20:] += 5.0
    changed = rep.inputs(check_sequences(later), seqs.last_steps)[0]
    start = seqs.offsets[1]
    assert not np.allclose(changed[start + 19], steps[start + 19])


def test_centred_representation_refuses_step_level_targets():
    X, y = _series(5)
    kw = dict(n_states=2, n_init=1, max_iter=5, random_state=0)
    clf = _fit_quiet(IOHMMClassifier(features="shape_centred", **kw), X, y)
    assert clf.features_ == "shape_centred" and clf.n_init_ == 1
    before = clf.emission_coef_.copy()
    steps = [np.full(len(x), label) for x, label in zip(X, y, strict=True)]
    with pytest.raises(ValueError, match="features='shape_centred'.*step-level"):
        clf.fit(X, steps)
    assert_array_equal(clf.emission_coef_, before)
    with pytest.raises(ValueError, match="shape_centred"):
        IOHMMRegressor(features="shape_centred", **kw).fit(
            X, [x[:, :1] for x in X])


def test_prefix_training_is_refused_on_a_dask_collection():
    """A fit across shards reads the sequences themselves: n_prefixes would be
    ignored, so it is refused (and the fitted model left as it was)."""
    da = pytest.importorskip("dask.array")
    X = np.random.default_rng(0).normal(size=(8, 5, 1))
    y = np.arange(8) % 2
    clf = _fit_quiet(IOHMMClassifier(n_states=2, features="raw", n_init=1,
                                     max_iter=5, random_state=0), X, y)
    before = clf.emission_coef_.copy()
    for n_prefixes in (3, [0.5, 1.0]):
        with pytest.raises(ValueError, match="n_prefixes=.*Dask collection"):
            clf.set_params(n_prefixes=n_prefixes).fit(
                da.from_array(X, chunks=4), y)
        assert_array_equal(clf.emission_coef_, before)


def test_fractions_of_one_pass_the_dask_fit_as_n_prefixes_1():
    # [1.0] is the sequences themselves, which a fit across shards reads; it
    # was refused as prefix training (the option check, before any client)
    for whole in (1, [1.0], np.array([1.0, 1.0])):
        _refuse_options(IOHMMClassifier(n_prefixes=whole))
    for bad, match in (([0.5, 1.0], r"n_prefixes=\[0.5, 1.0\] is not supported"),
                       ([True], "not bools")):
        with pytest.raises(ValueError, match=match):
            _refuse_options(IOHMMClassifier(n_prefixes=bad))


@pytest.mark.parametrize("weight_of_last", [1.0, 0.5])
def test_prefixes_of_the_one_weighted_sequence(weight_of_last):
    """One sequence of positive weight, cut into prefixes: its prefixes are
    the read-out's only group, and it holds one class. ``alpha="auto"`` is the
    one-class penalty (leaving that group out leaves no rows: it raised
    numpy's LinAlgError), and the model predicts that class everywhere."""
    X, y = _series(5, n=8, low=6, high=9)
    w = np.zeros(len(X))
    w[-1] = weight_of_last
    clf = _fit_quiet(IOHMMClassifier(n_states=2, features="shape_centred",
                                     n_prefixes=[0.5, 1.0], n_init=1,
                                     max_iter=20, random_state=0),
                     X, y, sample_weight=w)
    assert clf.alpha_ == RAW_ALPHA
    assert_array_equal(clf.predict(X), np.full(len(X), y[-1]))


def test_prefixes_beyond_memory_are_refused_before_they_are_packed(monkeypatch):
    """The packed prefixes (every distinct prefix's steps: here 20 sequences
    of 2,000 steps, 50 prefixes each, about 1.02 million steps of 40 bytes)
    are refused in O(1) naming ``n_prefixes``, before they are gathered (they
    were packed first, and only the fit's later check refused them, naming
    states and steps)."""
    import skseq._data.prefixes as prefixes
    import skseq._fit.resources as resources

    def no_packing(*args):
        raise AssertionError("the prefixes were packed before the memory check")

    monkeypatch.setattr(resources, "_available_memory", lambda: 30 * 2**20)
    monkeypatch.setattr(prefixes, "prefix_sequences", no_packing)
    X = np.zeros((20, 2000, 1))
    y = np.arange(20) % 2
    steps = 20 * sum(-(-2000 * j // 50) for j in range(1, 51))
    with pytest.raises(ValueError, match=rf"n_prefixes=50 \({steps} steps of "
                                         r"prefixes.*fewer prefixes"):
        IOHMMClassifier(n_states=2, n_prefixes=50).fit(X, y)
