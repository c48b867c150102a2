"""Inputs that used to pass silently or fail far from their cause: each is
refused up front with a message naming the parameter, file or value."""

import importlib
import inspect
import io
import pkgutil
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval

import skseq
from skseq import (
    DiscretizedRNNClassifier,
    HierarchicalIOHMM,
    HybridHMMClassifier,
    IOHMMClassifier,
    IOHMMRegressor,
)
from skseq._data import check_sequences
from skseq.datasets import load_ts, make_tomita
from skseq.preprocessing import (
    DilatedConvolution,
    RunningPooling,
    SequenceFeatures,
    SequenceUnion,
)


@pytest.mark.parametrize("make", [
    lambda: IOHMMClassifier(2, n_jobs=0),
    lambda: IOHMMRegressor(2, n_jobs=0),
    lambda: HierarchicalIOHMM((2, 2), n_jobs=0),
    lambda: RunningPooling(n_jobs=0),
    lambda: DilatedConvolution(n_jobs=0),
    lambda: SequenceUnion([("pool", RunningPooling())], n_jobs=0),
    lambda: HybridHMMClassifier(n_jobs=0),
])
def test_n_jobs_zero_is_refused_at_validation(make):
    X, y = make_tomita(4, 6, random_state=0)
    est = make()
    with pytest.raises(ValueError, match="'n_jobs' parameter"):
        est.fit(X) if not hasattr(est, "predict") else est.fit(X, y)


def _fitted_for_n_jobs(make):
    """A fitted estimator, its call that reads ``n_jobs`` after fit, and X."""
    X, y = make_tomita(4, 6, random_state=0)
    est = make()
    if isinstance(est, HybridHMMClassifier):
        y = [np.where(np.cumsum(x[:, 0]) > 1, "a", "b") for x in X]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if hasattr(est, "predict"):
            return est.fit(X, y), getattr(est, "predict_proba", est.predict), X
        return est.fit(X), est.transform, X


@pytest.mark.parametrize("make", [
    lambda: IOHMMClassifier(2, n_init=1, max_iter=2, random_state=0),
    lambda: IOHMMRegressor(2, n_init=1, max_iter=2, random_state=0),
    lambda: HierarchicalIOHMM((2, 2), n_init=1, max_iter=2, random_state=0),
    lambda: HybridHMMClassifier(window=2, random_state=0),
    lambda: RunningPooling(3),
    lambda: DilatedConvolution(random_state=0),
    lambda: SequenceUnion([("pool", RunningPooling(2))]),
])
@pytest.mark.parametrize("bad", ["two", 0, 1.5, True])
def test_n_jobs_set_after_fit_is_refused_at_predict(make, bad):
    est, call, X = _fitted_for_n_jobs(make)
    before = call(X)
    est.set_params(n_jobs=bad)
    with pytest.raises(ValueError, match=f"'n_jobs' parameter of {type(est).__name__}"):
        call(X)
    est.set_params(n_jobs=None)
    for got, expected in zip(call(X), before, strict=True):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("make, name, bad", [
    (RunningPooling, "window", 2.5), (RunningPooling, "window", "x"),
    (RunningPooling, "statistic", "median"), (RunningPooling, "statistic", None),
    (lambda: SequenceFeatures(diff=True), "diff", "yes"),
])
def test_parameters_set_after_fit_are_checked_at_transform(make, name, bad):
    """A transformer reads its parameters again at transform: one set to a bad
    value after fit is refused by name (not a KeyError or a comparison of a
    str with an int deep inside, nor a window of 2.5 steps taken as it is)."""
    X = [np.arange(12.0).reshape(6, 2), np.ones((3, 2))]
    est = make().fit(X)
    before = est.transform(X)
    good = est.get_params()[name]
    est.set_params(**{name: bad})
    with pytest.raises(ValueError, match=f"'{name}' parameter of {type(est).__name__}"):
        est.transform(X)
    est.set_params(**{name: good})
    for got, expected in zip(est.transform(X), before, strict=True):
        np.testing.assert_array_equal(got, expected)


TS_HEADER = "@problemName T\n@univariate true\n@classLabel true a b\n@data\n"


def test_load_ts_names_file_and_line_of_bytes_that_are_not_utf8(tmp_path):
    path = tmp_path / "latin1.ts"
    path.write_bytes((TS_HEADER + "1,2:a\n").encode() + b"3,\xe94:b\n")
    with pytest.raises(ValueError, match=r"latin1\.ts, line 6: not UTF-8"):
        load_ts(path)
    with open(path, "rb") as f, pytest.raises(ValueError, match="line 6: not UTF-8"):
        load_ts(f)


def test_long_values_in_messages_are_cut_with_a_closed_quote():
    digits = "9" * 400
    with pytest.raises(ValueError) as info:
        load_ts(io.StringIO(TS_HEADER + f"1,{digits}x:a\n"))
    message = str(info.value)
    assert "'99999" in message and "...'" in message and len(message) < 200
    with pytest.raises(ValueError) as info:
        IOHMMClassifier(2).fit([np.array([[1], [10**400]], dtype=object)], [0])
    assert "000..." in str(info.value) and "too large" in str(info.value)
    assert len(str(info.value)) < 200


@pytest.fixture(scope="module")
def machines():
    X, y = make_tomita(4, 20, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        iohmm = IOHMMClassifier(2, emission="state", n_init=1, max_iter=2,
                                random_state=0).fit(X, y)
        rnn = DiscretizedRNNClassifier(n_hidden=2, n_init=1, max_iter=2,
                                       random_state=0).fit(X, y)
    return iohmm, rnn


def test_automaton_alphabet_of_the_wrong_length_is_named(machines):
    iohmm, rnn = machines
    with pytest.raises(ValueError, match="alphabet has 3 symbols.*2 input columns"):
        iohmm.to_automaton(alphabet=["a", "b", "c"], min_proba=0.0)
    with pytest.raises(ValueError, match="alphabet has 1 symbols.*2 input columns"):
        rnn.extract_automaton(alphabet=["a"])


@pytest.mark.parametrize("min_proba", [np.nan, -1.0, 1.0, 1.5])
def test_to_automaton_min_proba_outside_0_1_is_refused(machines, min_proba):
    with pytest.raises(ValueError,
                       match=r"min_proba must be a finite number in \[0, 1\)"):
        machines[0].to_automaton(min_proba=min_proba)


@pytest.mark.parametrize("max_states", [0, -1, 2.5])
def test_extract_automaton_max_states_must_be_a_positive_integer(machines,
                                                                max_states):
    with pytest.raises(ValueError, match="max_states must be an integer >= 1, got "):
        machines[1].extract_automaton(max_states=max_states)


@pytest.mark.parametrize("machine, kwargs", [
    (0, {"min_proba": True}), (1, {"max_states": np.True_})])
def test_automaton_numbers_refuse_a_bool_as_type_and_value_errors(machines, machine,
                                                                  kwargs):
    # min_proba raised a TypeError only, max_states a ValueError only
    with pytest.raises(TypeError, match=f"{next(iter(kwargs))} must be .*a bool"
                       ) as info:
        getattr(machines[machine], ("to_automaton", "extract_automaton")[machine])(
            **kwargs)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("bad", [1.2, -0.1])
def test_plots_refuse_values_that_are_not_probabilities(bad):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from skseq.plotting import plot_automaton, plot_state_proba

    plt.switch_backend("Agg")
    proba = np.array([[0.5, 0.5], [bad, 1 - bad]])
    try:
        with pytest.raises(ValueError, match=r"probabilities of at most 1; entry \[1"):
            plot_state_proba(proba)
        with pytest.raises(ValueError, match=r"probabilities of at most 1; entry \[1"):
            plot_automaton(proba)
        plot_state_proba(np.array([[1 + 1e-12, -1e-12]]))  # rounding is tolerated
    finally:
        plt.close("all")


def test_warm_start_refit_that_changes_features_or_classes_says_so():
    X, y = make_tomita(4, 12, random_state=0)
    clf = IOHMMClassifier(2, n_init=1, max_iter=2, warm_start=True, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
        coef = clf.emission_coef_.copy()
        with pytest.raises(ValueError, match=r"number of features changed: 2 "
                                             r"before, 3 now\. Set warm_start=False"):
            clf.fit([np.hstack([x, x[:, :1]]) for x in X], y)
        y3 = np.where(np.arange(len(y)) < 3, 2, y)
        with pytest.raises(ValueError, match=r"classes changed: \[0, 1\] before, "
                                             r"\[0, 1, 2\] now\. Set warm_start=False"):
            clf.fit(X, y3)
        np.testing.assert_array_equal(clf.emission_coef_, coef)
        clf.set_params(warm_start=False).fit(X, y3)  # what the message advises


def test_load_ts_skips_percent_comments_and_offers_numeric_labels():
    text = ("% exported by another toolkit\n%\n@problemName T\n@univariate true\n"
            "@classLabel true 1 2 10\n% a comment in the header\n@data\n"
            "1,2:10\n3,4:2\n5,6:1\n")
    X, y = load_ts(io.StringIO(text))
    assert len(X) == 3 and y.tolist() == ["10", "2", "1"]  # default: as written
    X, y = load_ts(io.StringIO(text), numeric_labels=True)
    assert y.dtype == np.int64 and y.tolist() == [10, 2, 1]
    assert np.unique(y).tolist() == [1, 2, 10]  # numeric order, unlike strings
    _, y = load_ts(io.StringIO(text.replace(" 10\n", " 0.5\n").replace(":10", ":0.5")),
                   numeric_labels=True)
    assert y.dtype == np.float64 and y.tolist() == [0.5, 2.0, 1.0]
    with pytest.raises(ValueError, match=r"line 10: numeric_labels=True.*'up'"):
        load_ts(io.StringIO(text.replace(" 1 2", " up 2").replace(":1\n", ":up\n")),
                numeric_labels=True)


def test_a_pandas_series_of_arrays_is_a_list_of_sequences():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(k, 2)) for k in (3, 5, 4)]
    series = pd.Series(X, index=[10, 11, 12])
    seqs = check_sequences(series)
    np.testing.assert_array_equal(seqs.lengths, [3, 5, 4])
    np.testing.assert_array_equal(seqs.data, np.concatenate(X))
    univariate = check_sequences(pd.Series([x[:, 0] for x in X]))
    np.testing.assert_array_equal(univariate.data[:, 0], np.concatenate(X)[:, 0])


def test_predicting_on_much_shorter_sequences_warns_once():
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(16, 1)) + s % 2 for s in range(8)]
    y = np.arange(8) % 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = IOHMMClassifier(2, n_init=1, max_iter=3, random_state=0).fit(X, y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf.predict([x[:3] for x in X])  # median 3 < 16 / 4
    short = [w for w in caught if "much shorter" in str(w.message)]
    assert len(short) == 1 and "median length 3 steps against 16" in str(
        short[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf.predict([x[:4] for x in X])  # a quarter: no warning


def test_prefixes_of_a_step_level_model_do_not_warn():
    # each step is predicted from the steps up to it: a prefix gets the prefix
    # of the whole sequence's prediction, the online use of such a model
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(16, 1)) + s % 2 for s in range(8)]
    y = [np.full(16, s % 2) for s in range(8)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = IOHMMClassifier(2, features="raw", n_init=1, max_iter=3,
                              random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        prefix = clf.predict([X[0][:3]])[0]
    np.testing.assert_array_equal(prefix, clf.predict([X[0]])[0][:3])


def test_running_means_of_values_near_the_float64_limit_stay_finite():
    big = np.finfo(np.float64).max / 2
    X = [np.array([[big], [big], [-big], [big], [big]])]
    # running means written out by hand: prefix means, and windows of 2
    prefix = np.array([big, big, big / 3, big / 2, 0.6 * big])[:, None]
    window = np.array([big, big, 0.0, 0.0, big])[:, None]
    np.testing.assert_allclose(RunningPooling().fit_transform(X)[0], prefix)
    np.testing.assert_allclose(RunningPooling(window=2).fit_transform(X)[0], window)
    # a scale that needs no care is untouched, bit for bit
    small = [x / big for x in X]
    np.testing.assert_array_equal(RunningPooling().fit_transform(small)[0],
                                  [[1.0], [1.0], [1 / 3], [0.5], [0.6]])


def test_dilated_convolution_values_near_the_float64_limit():
    rng = np.random.default_rng(0)
    X = [rng.choice([-1.0, 1.0], size=(12, 1)) for _ in range(2)]
    conv = DilatedConvolution(1, output="value").fit(X)
    scale = 2.0 ** 1000  # exact: the values scale with the inputs
    out = conv.transform([x * scale for x in X])
    np.testing.assert_array_equal(np.concatenate(out),
                                  np.concatenate(conv.transform(X)) * scale)
    with pytest.raises(ValueError, match="exceed the float64 range.*Scale"):
        conv.transform([x * 1e308 for x in X])


def test_huge_models_are_refused_before_allocating(monkeypatch):
    import skseq._base as base
    import skseq._fit.resources as resources

    def no_mask(*args):
        raise AssertionError("the n x n mask was built before the memory check")

    monkeypatch.setattr(resources, "_available_memory", lambda: 2**30)
    monkeypatch.setattr(base, "topology_mask", no_mask)
    X, y = make_tomita(4, 6, random_state=0)
    with pytest.raises(ValueError, match="40000 states .*40000x40000 transition "
                                         "mask.*fewer states"):
        IOHMMClassifier(40_000, features="raw").fit(X, y)
    with pytest.raises(ValueError, match="n_prefixes=100000000.*fewer prefixes"):
        IOHMMClassifier(2, n_prefixes=10**8).fit(X, y)
    with pytest.raises(ValueError, match="n_hidden=15000 units.*fewer hidden"):
        DiscretizedRNNClassifier(n_hidden=15_000).fit(X, y)


def test_available_memory_respects_an_address_space_limit():
    resource = pytest.importorskip("resource")
    from skseq._fit.resources import _available_memory

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/status") as f:
        mapped = next(int(line.split()[1]) * 1024 for line in f
                      if line.startswith("VmSize"))
    limit = mapped + 2**30
    if hard != resource.RLIM_INFINITY and hard < limit:
        pytest.skip("the hard address-space limit is already lower")
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        available = _available_memory()
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    assert available is not None and available <= 2**30


def test_a_sequence_alone_and_in_a_batch():
    """What the predict_proba docstring promises: state distributions equal bit
    for bit, probabilities to the last bits (a direct comparison, one sequence
    at a time against the batch)."""
    rng = np.random.default_rng(0)
    X = [np.cumsum(rng.normal(size=(int(k), 1)), axis=0)
         for k in rng.integers(8, 20, size=24)]
    y = np.array([int(x[-1, 0] > 0) for x in X])
    clf = IOHMMClassifier(n_states=2, n_init=1, max_iter=5,
                          random_state=0).fit(X, y)
    batch_states = clf.predict_state_proba(X)
    batch_proba = clf.predict_proba(X)
    for i, x in enumerate(X):
        assert np.array_equal(clf.predict_state_proba([x])[0], batch_states[i])
        np.testing.assert_allclose(clf.predict_proba([x])[0], batch_proba[i],
                                   rtol=0, atol=1e-14)


def _numeric_parameters():
    """(class, parameter) for every parameter with an integer or real interval
    among its constraints (and no boolean) of every estimator and transformer
    the public modules of skseq export."""
    modules = [skseq] + [importlib.import_module(f"skseq.{m.name}")
                         for m in pkgutil.iter_modules(skseq.__path__)
                         if not m.name.startswith("_")]
    classes = {getattr(m, name) for m in modules for name in getattr(m, "__all__", ())}
    return sorted(
        ((cls, name) for cls in classes
         if inspect.isclass(cls) and issubclass(cls, BaseEstimator)
         for name, constraints in cls._parameter_constraints.items()
         if "boolean" not in constraints
         and any(isinstance(c, Interval) for c in constraints)),
        key=lambda pair: (pair[0].__name__, pair[1]))


# The arguments the public classes require, by name
_REQUIRED = {"transformer_list": [("pool", RunningPooling())]}


@pytest.mark.parametrize("cls, name", _numeric_parameters(),
                         ids=lambda x: getattr(x, "__name__", x))
def test_a_bool_is_not_a_number(cls, name):
    # scikit-learn's Interval(numbers.Real, ...) admits True as 1.0, and
    # Interval(numbers.Integral, ...) as 1; the validation every fit runs
    # refuses it
    required = {p.name: _REQUIRED[p.name]
                for p in inspect.signature(cls).parameters.values()
                if p.default is inspect.Parameter.empty}
    est = cls(**required).set_params(**{name: True})
    with pytest.raises(ValueError, match=f"'{name}' parameter of {cls.__name__} "
                                         "must be .*Got True instead"):
        est._validate_params()


def test_a_bool_likelihood_scale_is_refused_at_fit():
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(6, 1)) for _ in range(4)]
    model = HybridHMMClassifier(likelihood_scale=True)
    with pytest.raises(ValueError, match="'likelihood_scale' parameter of "
                                         "HybridHMMClassifier must be a real"):
        model.fit(X, [np.array([0, 0, 0, 1, 1, 1])] * 4)
    assert not hasattr(model, "classes_")


def test_restarts_beyond_memory_are_refused_before_drawing(monkeypatch):
    import skseq._fit.objective as objective
    import skseq._fit.resources as resources

    def no_draw(*args):
        raise AssertionError("a starting point was drawn before the memory check")

    X, y = make_tomita(4, 6, random_state=0)
    monkeypatch.setattr(resources, "_available_memory", lambda: 2**30)
    monkeypatch.setattr(objective.Problem, "initial_theta", no_draw)
    # 10^9 starting points of 26 parameters: ~230 GB, drawn one by one
    with pytest.raises(ValueError, match=r"n_init=1000000000 \(a starting point "
                                         r"of 26 parameters.*231 GiB.*fewer restarts"):
        IOHMMClassifier(2, features="raw", n_init=10**9).fit(X, y)


@pytest.mark.parametrize("estimator", [IOHMMClassifier(n_states=2),
                                       IOHMMRegressor(n_states=2)])
def test_starts_that_overflow_name_init_scale(estimator):
    """Every start overflowing because ``init_scale`` is huge: the message
    names it, not only the inputs (of magnitude 1 here)."""
    X = np.eye(2)[[[0, 1, 1], [1, 0, 0], [0, 0, 1], [1, 1, 0]]]
    y = [0, 1, 1, 0]
    estimator.set_params(init_scale=1e300, n_init=1, max_iter=2, random_state=0)
    with pytest.raises(ValueError, match=r"diverged.*lower init_scale=1e\+300"):
        estimator.fit(X, y)
