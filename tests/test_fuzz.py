"""Validation fuzzing of every public entry point (issue 9).

Hypothesis generates containers (lists, tuples, nested lists, numpy arrays of
every ndim and dtype: object, bool, complex, int, float16/32/64, strings,
datetimes, with NaN/inf, empty arrays, None) for X, y and sample_weight, and calls
fit / predict / predict_proba / predict_log_proba / predict_state_proba / decode
/ score_samples / score / transform on every estimator. The contract:

* the only exceptions are ValueError, TypeError and NotFittedError, and their
  message names what is wrong (X, y, sample_weight, a sequence, a feature, ...) -
  never a numpy internal message;
* no RuntimeWarning (overflow, invalid value) escapes;
* a call that raises leaves a fitted model exactly as it was, and a prediction
  call never changes it;
* a call that succeeds returns finite numbers (NaN only as padding).

The CI run uses the "skseq-ci" settings profile (few examples);
``benchmarks/fuzz_long.py`` runs the same checks with many more.
"""

import copy
import functools
import os
import re
import warnings
from fractions import Fraction

import numpy as np
import pytest
from _states import assert_same_state, snapshot
from conftest import ESTIMATORS as SHARED
from conftest import FAST as SHARED_FAST
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.testing import assert_allclose
from sklearn.base import is_classifier
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from skseq import HybridHMMClassifier, IOHMMClassifier
from skseq.metrics import step_scorer
from skseq.preprocessing import Stepwise

# CI: a fixed set of examples (derandomize), and no shrinking, so that a failure
# costs seconds, not minutes (the long run shrinks to a minimal example).
settings.register_profile(
    "skseq-ci", max_examples=25, deadline=None, derandomize=True,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.filter_too_much])
settings.register_profile(
    "skseq-long", max_examples=5000, deadline=None,
    suppress_health_check=list(HealthCheck))
FUZZ = settings.get_profile(os.environ.get("SKSEQ_FUZZ_PROFILE", "skseq-ci"))

N_FEATURES = 2
FAST = {**SHARED_FAST, "max_iter": 3}
ESTIMATORS = {
    **{name: functools.partial(make, max_iter=3) for name, make in SHARED.items()},
    "hier-reg": functools.partial(SHARED["hier-reg"], n_states=(2, 1), max_iter=3),
    "stepwise": lambda: Stepwise(StandardScaler()),
    # a fast per-step classifier, and the window summaries (moments) it reads
    "hybrid": lambda: HybridHMMClassifier(LogisticRegression(), window=3,
                                          features="summaries", random_state=0),
}
PREDICT_METHODS = ["predict", "predict_proba", "predict_log_proba",
                   "predict_state_proba", "decode", "transition_proba",
                   "score_samples", "score", "transform"]
ALLOWED = (ValueError, TypeError, NotFittedError)

# A message must say what is wrong: name an argument or a part of the data ...
_NAMES = re.compile(
    r"\b(X|y|sample_weight|sequences?|steps?|features?|labels?|class(es)?|"
    r"targets?|outputs?|weights?|samples?|fitted|dtype|shape|array|data|n_states|"
    r"Stepwise|StandardScaler)\b|Complex|NaN|inf", re.IGNORECASE)
# ... and never be an internal error leaking from numpy/scipy.
_INTERNAL = re.compile(
    r"setting an array element with a sequence|inhomogeneous|could not broadcast|"
    r"operands could not be broadcast|out of bounds|ufunc|object too deep|"
    r"invalid literal|unhashable|not subscriptable|has no attribute|"
    r"unsupported operand|not supported between instances", re.IGNORECASE)


# -- strategies ---------------------------------------------------------------------
_any_float = st.floats(allow_nan=True, allow_infinity=True)
_scalars = st.one_of(
    _any_float, st.integers(-(2**70), 2**70), st.booleans(), st.none(),
    st.text(max_size=3), st.complex_numbers(max_magnitude=10), st.binary(max_size=2),
    st.sampled_from([np.nan, np.inf, -np.inf, 0.0, 1.0, -1.0, 1e308, 5e-324]))
_dtypes = st.sampled_from([
    np.float64, np.float32, np.float16, np.int8, np.int64, np.uint64, np.bool_,
    np.complex128, "U3", "S2", "datetime64[s]", "timedelta64[s]", object])


def _array(dtype, shape):
    if dtype is object:
        return hnp.arrays(object, shape, elements=_scalars)
    return hnp.arrays(dtype, shape)


_arrays = _dtypes.flatmap(lambda dtype: hnp.array_shapes(
    min_dims=0, max_dims=4, min_side=0, max_side=4).flatmap(
        lambda shape: _array(dtype, shape)))
_nested = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.tuples(inner, inner)), max_leaves=24)


@st.composite
def _sequences(draw):
    """Mostly well-formed sequence collections, with one thing possibly wrong:
    the paths past the first checks (features, NaN rows, lengths, dtypes)."""
    n_features = draw(st.sampled_from([N_FEATURES] * 4 + [1, 3]))
    lengths = draw(st.lists(st.integers(0 if draw(st.booleans()) else 1, 5),
                            min_size=1, max_size=5))
    dtype = draw(st.sampled_from([np.float64] * 3 + [np.float32, np.int64, bool,
                                                     object]))
    big = draw(st.booleans())
    elements = st.floats(-1e6, 1e6) if not big else st.floats(
        allow_nan=draw(st.booleans()), allow_infinity=draw(st.booleans()),
        width=64)
    seqs = []
    for k in lengths:
        x = draw(hnp.arrays(np.float64, (k, n_features), elements=elements))
        with np.errstate(all="ignore"):  # e.g. 1e300 cast to int64: garbage in
            seqs.append(x.astype(dtype))
    form = draw(st.sampled_from(["list", "tuple", "padded", "nested", "rows",
                                 "object-array", "1-d items"]))
    if form == "tuple":
        return tuple(seqs)
    if form == "nested":
        return [x.tolist() for x in seqs]
    if form == "1-d items":
        return [x[:, 0] for x in seqs]
    if form == "object-array":
        out = np.empty(len(seqs), dtype=object)
        out[:] = seqs
        return out
    if form == "rows":
        return np.concatenate(seqs).astype(np.float64)[:, :n_features]
    if form == "padded":
        max_len = max(lengths)
        out = np.full((len(seqs), max(max_len, 1), n_features), np.nan)
        for s, x in enumerate(seqs):
            out[s, : len(x)] = np.asarray(x, dtype=np.float64)
        return out
    return seqs


X_STRATEGY = st.one_of(_sequences(), _sequences(), _arrays, _nested,
                       st.lists(st.one_of(_arrays, _nested), max_size=4),
                       st.tuples(_arrays, _arrays), st.none())


@st.composite
def _targets(draw, n):
    """Targets for n sequences: mostly one per sequence, sometimes per step,
    sometimes of the wrong length or type."""
    kind = draw(st.sampled_from(["labels", "floats", "strings", "step", "wrong",
                                 "any"]))
    size = n if draw(st.integers(0, 4)) else draw(st.integers(0, 6))
    if kind == "labels":
        dtype = draw(st.sampled_from([np.int64, np.bool_, object, np.float64]))
        high = 1 if dtype is np.bool_ else 2
        return draw(hnp.arrays(dtype, size, elements=st.integers(0, high)))
    if kind == "floats":
        return draw(st.lists(_any_float, min_size=size, max_size=size))
    if kind == "strings":
        return draw(st.lists(st.sampled_from(["a", "b", "c", "", "a"]),
                             min_size=size, max_size=size))
    if kind == "step":
        return [draw(hnp.arrays(np.float64, draw(st.integers(0, 5)),
                                elements=st.one_of(st.integers(0, 1).map(float),
                                                   st.just(np.nan))))
                for _ in range(size)]
    if kind == "wrong":
        return draw(st.one_of(_arrays, _nested))
    return draw(st.one_of(_scalars, _arrays, _nested))


WEIGHT_STRATEGY = lambda n: st.one_of(  # noqa: E731
    st.none(), st.none(),
    hnp.arrays(np.float64, n, elements=st.floats(0, 10)),
    hnp.arrays(np.float64, n, elements=_any_float),
    _arrays, _nested, _scalars)


# -- the contract ----------------------------------------------------------------------
def _fitted_copy(name, _cache={}):  # noqa: B006 - a deliberate per-process cache
    """A fresh copy of a model fitted on valid data (fitted once per process)."""
    if name not in _cache:
        est = ESTIMATORS[name]()
        rng = np.random.default_rng(0)
        X = [rng.normal(size=(k, N_FEATURES)) for k in (3, 1, 4, 2, 5, 2)]
        y = (np.arange(6) % 2 if is_classifier(est) or name == "stepwise"
             else rng.normal(size=6))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _cache[name] = est.fit(X, y)
    return copy.deepcopy(_cache[name])


def check_message(exc):
    message = str(exc)
    assert _NAMES.search(message), f"uninformative {type(exc).__name__}: {message!r}"
    assert not _INTERNAL.search(message), (
        f"internal error leaked as {type(exc).__name__}: {message!r}")


def _numbers(out):
    if isinstance(out, (list, tuple)):
        parts = [_numbers(o) for o in out]
        return np.concatenate(parts) if parts else np.zeros(0)
    out = np.asarray(out)
    if out.dtype.kind not in "fc":
        return np.zeros(0)
    out = out.ravel()
    return out[~np.isnan(out)]


def check_output(out, method):
    values = _numbers(out)
    # log-probabilities may be -inf (probability 0), and so may R^2 when the
    # predictions of inputs near 1e308 square to inf; never NaN or +inf.
    if method in ("predict_log_proba", "score_samples", "score"):
        assert not np.isnan(values).any() and np.all(values < np.inf), method
    else:
        assert np.all(np.isfinite(values)), f"{method} returned non-finite values"


def _strict_warnings(est):
    """RuntimeWarnings are failures - except those a wrapped scikit-learn
    transformer raises in its own code (StandardScaler's variance of values near
    1e308 overflows in scikit-learn itself; Stepwise then reports the non-finite
    output with a clear ValueError). NumPy names its own reductions as the
    source of their overflows when called from compiled code or from a module
    it does not count as the caller's (an installed scikit-learn's sums): those
    are the transformer's too."""
    warnings.simplefilter("error", RuntimeWarning)
    warnings.filterwarnings("ignore", category=UserWarning)  # incl. sklearn's
    warnings.filterwarnings("ignore", category=FutureWarning)
    if isinstance(est, Stepwise):
        for module in (r"sklearn\.", r"numpy\._core\."):
            warnings.filterwarnings("ignore", category=RuntimeWarning,
                                    module=module)


def call(est, method, X, y=None, sample_weight=None):
    """One call under the contract; returns "ok" or the exception's type name."""
    with warnings.catch_warnings():
        _strict_warnings(est)
        try:
            if method == "fit":
                est.fit(X, y, sample_weight=sample_weight)
                return "ok"
            if method == "score":
                out = est.score(X, y, sample_weight=sample_weight)
            elif method == "score_samples":
                out = est.score_samples(X, y)
            else:
                out = getattr(est, method)(X)
        except ALLOWED as exc:
            check_message(exc)
            return type(exc).__name__
    check_output(out, method)
    return "ok"


def check_fit(name, X, y, sample_weight):
    """fit on fuzzed input: a clear error and an untouched model, or a model
    whose parameters and predictions are finite."""
    est = _fitted_copy(name)
    before = snapshot(est)
    if name == "stepwise":
        with warnings.catch_warnings():
            _strict_warnings(est)
            try:
                est.fit(X, y)
                outcome = "ok"
            except ALLOWED as exc:
                check_message(exc)
                outcome = type(exc).__name__
    else:
        outcome = call(est, "fit", X, y, sample_weight)
    if outcome != "ok":
        assert_same_state(snapshot(est), before)
        return outcome
    fitted = [v for k, v in vars(est).items() if k.endswith("_")
              and not k.startswith("_") and isinstance(v, (np.ndarray, float))
              and np.asarray(v).dtype.kind == "f"]
    for v in fitted:
        assert np.all(np.isfinite(v)), "fit gave non-finite parameters"
    if name == "stepwise":
        # The wrapped transformer's fitted state is its own: StandardScaler fitted
        # on values near 1e308 has an infinite variance, and Stepwise.transform
        # then reports the non-finite output with a clear ValueError (checked by
        # call); a model's fit, though, must predict its own training data.
        call(est, "transform", X)
    else:
        assert call(est, "predict", X) == "ok"
    return outcome


def check_predict(name, method, X, y):
    """A prediction method on fuzzed input: a clear error or finite output, and
    the model unchanged either way."""
    est = _fitted_copy(name)
    if not hasattr(est, method):
        return "absent"
    before = snapshot(est)
    outcome = call(est, method, X, y)
    assert_same_state(snapshot(est), before)
    return outcome


# -- the tests -----------------------------------------------------------------------
def _n_of(X):
    try:
        return len(X)
    except TypeError:
        return 3


@FUZZ
@given(data=st.data())
@pytest.mark.parametrize("name", ESTIMATORS)
def test_fuzz_fit(name, data):
    X = data.draw(X_STRATEGY, label="X")
    n = _n_of(X)
    y = data.draw(_targets(n), label="y")
    w = data.draw(WEIGHT_STRATEGY(n), label="sample_weight")
    check_fit(name, X, y, w)


@FUZZ
@given(data=st.data())
@pytest.mark.parametrize("name", ESTIMATORS)
def test_fuzz_predict(name, data):
    X = data.draw(X_STRATEGY, label="X")
    y = data.draw(_targets(_n_of(X)), label="y")
    for method in PREDICT_METHODS:
        check_predict(name, method, X, y)


@FUZZ
@given(data=st.data())
@pytest.mark.parametrize("name", ESTIMATORS)
def test_fuzz_calls_before_fit(name, data):
    """Before fit every method raises NotFittedError (or a validation error)."""
    X = data.draw(X_STRATEGY, label="X")
    y = data.draw(_targets(_n_of(X)), label="y")
    for method in PREDICT_METHODS:
        est = ESTIMATORS[name]()
        if not hasattr(est, method):
            continue
        assert call(est, method, X, y) != "ok", f"unfitted {method} returned"


# -- failures the fuzzing found (each failed before its fix) ------------------------
def test_ragged_or_overflowing_sample_weight_is_a_clear_value_error():
    X = [np.ones((2, 2))] * 3
    est = IOHMMClassifier(n_states=2, **FAST)
    with pytest.raises(ValueError, match="one number per sequence.*ragged"):
        est.fit(X, [0, 1, 0], sample_weight=[0.0, [], 1.0])
    with pytest.raises(ValueError, match="sample_weight sums to more than the "
                                         "largest float64"):
        est.fit(X, [0, 1, 0], sample_weight=[1e308] * 3)
    with pytest.raises(ValueError, match="sums to 4.94e-324, below the smallest"):
        est.fit(X, [0, 1, 0], sample_weight=[5e-324, 0.0, 0.0])
    with pytest.raises(ValueError, match="sequence 1 holds the string '2'"):
        est.fit(X, [0, 1, 0], sample_weight=np.array([1, "2", 1], dtype=object))


def _scoring(name):
    """A fitted model's score (or a step scorer's) as a function of the weights."""
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(k, N_FEATURES)) for k in (3, 1, 4, 2, 5, 2)]
    if name not in ("hybrid", "steps"):
        est = _fitted_copy(name)
        return functools.partial(est.score, X, est.predict(X))
    y = np.arange(6) % 2
    if name == "hybrid":
        est = HybridHMMClassifier(LogisticRegression(), window=1, features="lags")
    else:  # skseq.metrics.step_scorer on labels per step
        y = [np.arange(len(x)) % 2 for x in X]
        est = IOHMMClassifier(n_states=2, **FAST)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
    if name == "steps":
        return functools.partial(step_scorer("accuracy"), est, X, y)
    return functools.partial(est.score, X, y)


@pytest.mark.parametrize("name", ["clf", "reg", "hier-clf", "rnn", "hybrid", "steps"])
def test_score_refuses_subnormal_sample_weight_for_the_score(name):
    # weights summing below the smallest normal float64 were refused by
    # score with fit's reason (the objective's 1 / sum overflowing)
    score = _scoring(name)
    with pytest.raises(ValueError, match=r"^sample_weight sums to 6e-320, below "
                       r"the smallest normal float64: .*the weighted score"):
        score(sample_weight=np.full(6, 1e-320))
    assert score(sample_weight=np.full(6, 1e-300)) == score()


@pytest.mark.parametrize("name", ["reg", "hier-reg"])
def test_targets_near_the_float64_limit(name):
    """Targets whose squares (or sums) overflow: the standardization warned and
    divided by inf. Now a spread up to 1e150 fits, a larger one is refused."""
    X = [np.ones((2, 2)), np.zeros((1, 2)), np.full((3, 2), 0.5)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)
        # weights * targets overflow in the weighted mean
        est = ESTIMATORS[name]().fit(X, [1e10, 2e10, 3e10],
                                     sample_weight=[1e300, 1e300, 1e300])
        assert_allclose(est.outputs_.mean_, [2e10], rtol=1e-12)
        assert_allclose(est.outputs_.scale_, [np.sqrt(2 / 3) * 1e10], rtol=1e-12)
        assert np.all(np.isfinite(est.predict(X)))
        with pytest.raises(ValueError, match="standard deviation .* too large"):
            ESTIMATORS[name]().fit(X, [1e300, -1e300, 0.0])


def test_labels_beyond_the_int64_range_warn_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ValueError, match="Unknown label type: continuous"):
            IOHMMClassifier(**FAST).fit(np.zeros((3, 1)), [0.5, -8.8e269, 2.0])


def test_hierarchical_model_predicts_features_near_the_float64_limit():
    est = _fitted_copy("hier-reg")
    X = [np.array([[4.7e16, 4.4e37], [0.0, -3e93]]),
         np.array([[-5e16, -1.79e308], [1e-170, 2.7e145]])]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for out in (est.predict(X), est.predict_state_proba(X)[0]):
            assert all(np.isfinite(o).all() for o in out)


def test_rnn_score_validates_its_labels():
    """DiscretizedRNNClassifier.score passed y straight to accuracy_score, which
    warned on a NaN step label and accepted step-level labels."""
    est = _fitted_copy("rnn")
    X = [np.ones((4, 2))]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ValueError, match="does not support step-level labels"):
            est.score(X, [np.array([0.0, 1.0, np.nan, 1.0])])
        with pytest.raises(ValueError, match="X has 1 sequences but y has 2"):
            est.score(X, [0, 1])
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(k, 2)) for k in (3, 1, 4, 2)]
    pred = est.predict(X)
    assert est.score(X, pred) == 1.0
    flipped = 1 - pred
    assert est.score(X, flipped) == 0.0
    assert est.score(X, np.r_[pred[:2], flipped[2:]], sample_weight=[3, 1, 1, 1]) == (
        4 / 6)


def test_rnn_and_regressor_score_inputs_near_the_float64_limit():
    """Found by benchmarks/fuzz_long.py: overflow warnings from the RNN's step
    (matmul) and from R^2 of predictions near 1e200."""
    X = [np.array([[-1e300, 3e-27], [-1.79e308, -2.0]]), np.ones((2, 2))]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        proba = _fitted_copy("rnn").predict_proba(X)
        assert np.isfinite(proba).all()
        assert_allclose(proba.sum(axis=1), 1.0)
        reg = _fitted_copy("hier-reg")
        assert reg.score([np.full((3, 2), 3e203), np.ones((2, 2))], [0.0, 1.0]) < 0


def test_regressor_score_of_targets_near_the_smallest_float():
    """Found by benchmarks/fuzz_long.py: R^2 divides targets below 1e-100 and
    the predictions by the targets' largest magnitude, which took predictions
    near 200 of targets near 3e-307 beyond float64 (an overflow warning). The
    exact R^2, below -1e300, rounds to -inf."""
    X = [np.ones((2, 2)), np.zeros((1, 2)), np.full((3, 2), 0.5)]
    reg = ESTIMATORS["reg"]().fit(X, [100.0, 200.0, 300.0])
    y = [1e-307, -2e-307, 3e-307]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        got = reg.score(X, y)
    t = [Fraction(v) for v in y]
    mean = sum(t) / 3
    exact = 1 - (sum((a - Fraction(b)) ** 2 for a, b in zip(t, reg.predict(X),
                                                            strict=True))
                 / sum((a - mean) ** 2 for a in t))
    assert exact < -np.finfo(np.float64).max and got == -np.inf


def test_fit_of_inputs_whose_spread_overflows_advises_to_standardize():
    """Found by benchmarks/fuzz_long.py: the spread of inputs up to 1e214,
    read for the advice of a fit that did not converge, overflowed (a
    warning); it is beyond any standardized spread, and the advice says so."""
    X = np.array([[-3e77, 5e15], [-4e16, 0.0], [2.0, -3e77], [-1e214, 1e-184],
                  [-5e16, -3e-58], [-3e15, 5e16]])
    y = ["c", "c", "a", "c", "c", "b"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.warns(ConvergenceWarning, match="standardize the inputs"):
            IOHMMClassifier(2, features="raw", n_init=1, max_iter=2,
                            random_state=0).fit(X, y)


@pytest.mark.parametrize("name", ["clf", "reg"])
def test_bytes_beyond_ascii_among_string_targets_are_refused_by_name(name):
    """Found by benchmarks/fuzz_long.py: NumPy decodes bytes as ASCII to put
    them among strings, and raised a UnicodeDecodeError naming no argument."""
    X = [np.ones((2, 2)), np.zeros((1, 2)), np.full((3, 2), 0.5)]
    y = ["a", b"\xef", 1.0]
    match = {"clf": r"y mixes string and non-string labels: 'a' at sequence 0",
             "reg": r"y: sequence 0 holds the string 'a', which is not numeric"}
    with pytest.raises(ValueError, match=match[name]):
        ESTIMATORS[name]().fit(X, y)
    with pytest.raises(ValueError, match=match[name]):
        _fitted_copy(name).score(X, y)


@pytest.mark.parametrize("name", ["clf", "hier-clf", "rnn"])
def test_dates_scored_against_numeric_classes_are_refused_by_name(name):
    """Found by benchmarks/fuzz_long.py: dates scored against numeric classes
    failed in scikit-learn's or NumPy's sorting with a TypeError naming no
    argument; they are of another kind than the classes, as strings are."""
    X = [np.zeros((1, 2)), np.ones((1, 2))]
    y = np.array(["2001-03-14", "2002-01-01"], dtype="datetime64[D]")
    est = _fitted_copy(name)
    with pytest.raises(ValueError, match=r"Mix of label input types \(dates and "
                       r"numbers\): y holds dates but the model's classes_ are"):
        est.score(X, y)
    if hasattr(est, "score_samples"):
        with pytest.raises(ValueError, match=r"y contains labels not seen in fit: "
                           r"\[datetime.date\(2001, 3, 14\), .* the classes are "
                           r"\[0, 1\]"):
            est.score_samples(X, y)


def test_hybrid_predicts_windows_near_the_float64_limit_without_warnings():
    # a logistic per-step classifier's decision overflowed on the summaries
    # of steps near -1.8e308 (a RuntimeWarning from inside it); its saturated
    # probabilities are its answer
    est = _fitted_copy("hybrid")
    X = [np.zeros((3, N_FEATURES)), np.full((1, N_FEATURES), -1.79769313e308)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        proba = est.predict_proba(X)
        labels = est.predict(X)
    # fitted on one label per sequence: one distribution per sequence
    assert proba.shape == (2, 2) and np.all(np.isfinite(proba))
    assert_allclose(proba.sum(axis=1), 1.0)
    assert labels.shape == (2,)
