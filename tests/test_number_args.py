"""Plain number arguments (not estimator parameters): one check, so a bool is
refused, NumPy's integers are accepted and the error names the argument the
same way everywhere."""

import re
from fractions import Fraction

import matplotlib
import numpy as np
import pytest
from numpy.testing import assert_array_equal

from skseq import HierarchicalIOHMM
from skseq._data import check_number, is_number
from skseq._data.shape import ShapeFeatures
from skseq._plot_checks import check_states
from skseq.datasets import make_toggled_regimes, make_tomita, make_two_sequence
from skseq.plotting import plot_automaton
from skseq.preprocessing import SequenceUnion
from skseq.utils import boundary_f1_score

matplotlib.use("Agg")


@pytest.mark.parametrize("value, integral, expected", [
    (3, True, True), (np.int64(3), True, True), (np.uint8(3), True, True),
    (3.0, True, False), (True, True, False), (np.True_, True, False),
    (0.5, False, True), (np.float32(0.5), False, True), (Fraction(1, 2), False, True),
    (np.int64(3), False, True), (False, False, False), (np.False_, False, False),
    (np.array(3), True, False), ("3", False, False), (None, False, False),
    (1 + 0j, False, False),
])
def test_is_number(value, integral, expected):
    assert is_number(value, integral) is expected


def test_check_number_returns_python_numbers_within_bounds():
    got = check_number(np.int64(7), "k", integral=True, low=1, high=7)
    assert got == 7 and type(got) is int
    got = check_number(Fraction(1, 4), "p", low=0, high=1, high_open=True)
    assert got == 0.25 and type(got) is float
    assert check_number(np.inf, "tolerance", low=0, finite=False) == np.inf


@pytest.mark.parametrize("value, kwargs, message", [
    (True, dict(integral=True, low=1),
     "k must be an integer >= 1, got a bool (True) in here."),
    # NumPy's bool as NumPy prints it: np.True_ from NumPy 2, True before
    (np.True_, dict(),
     f"k must be a finite number, got a bool ({np.True_!r}) in here."),
    (2.0, dict(integral=True), "k must be an integer, got 2.0 in here."),
    ("1", dict(low=0, high=1), "k must be a finite number in [0, 1], got '1' in here."),
])
def test_check_number_refuses_what_is_not_a_number(value, kwargs, message):
    with pytest.raises(TypeError, match=re.escape(message)) as info:
        check_number(value, "k", where=" in here", **kwargs)
    assert isinstance(info.value, ValueError)  # as scikit-learn's parameter errors


@pytest.mark.parametrize("value, kwargs, message", [
    (0, dict(integral=True, low=1), "k must be an integer >= 1, got 0."),
    (8, dict(integral=True, low=1, high=7), "k must be an integer in [1, 7], got 8."),
    (1.0, dict(low=0, high=1, high_open=True),
     "k must be a finite number in [0, 1), got 1.0."),
    (np.nan, dict(finite=False), "k must be a number, got nan."),
    (-np.inf, dict(), "k must be a finite number, got -inf."),
    (10 ** 400, dict(), "k must be a finite number, got 1000"),  # beyond the floats
])
def test_check_number_refuses_out_of_bounds(value, kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        check_number(value, "k", **kwargs)
    assert not isinstance(info.value, TypeError)


def _union_fit(weight):
    union = SequenceUnion([("raw", "passthrough")], transformer_weights={"raw": weight})
    return union.fit_transform([np.arange(3.0)[:, None]])


def _hierarchical_fit(n_states=(2, 2), timescales=(4, 1)):
    X, y = make_tomita(4, 10, random_state=0)
    HierarchicalIOHMM(n_states=n_states, timescales=timescales).fit(X, y)


# Each site was refusing a bool with a ValueError only (check_threshold with a
# TypeError only); the quantile range, a plot's start state and min_proba took
# True as 1.
@pytest.mark.parametrize("call, name", [
    (lambda b: make_tomita(b, 5), "grammar"),
    (lambda b: make_tomita(1, b), "n_samples"),
    (lambda b: make_two_sequence(5, max_length=10, noise=b), "noise"),
    (lambda b: make_toggled_regimes(5, max_length=10, event_rate=b), "event_rate"),
    (lambda b: boundary_f1_score([[0, 1]], [[0, 1]], tolerance=b), "tolerance"),
    (_union_fit, "the weight of 'raw'"),
    (lambda b: _hierarchical_fit(n_states=(2, b)), "n_states"),
    (lambda b: _hierarchical_fit(timescales=(4, b)), "timescales"),
])
@pytest.mark.parametrize("flag", [True, np.True_])
def test_a_bool_is_refused_by_every_number_argument(call, name, flag):
    with pytest.raises(TypeError, match=f"{name} must be .*, got a bool") as info:
        call(flag)
    assert isinstance(info.value, ValueError)


def test_a_bool_is_not_a_state_a_probability_or_a_quantile():
    with pytest.raises(ValueError, match=r"start: True is not a state index"):
        check_states([True], 2, "start")
    with pytest.raises(ValueError, match="min_proba must be a probability"):
        plot_automaton(np.full((2, 2), 0.5), min_proba=True)
    with pytest.raises(ValueError, match="quantile_range must be"):
        ShapeFeatures(quantile_range=(False, True))._validate_params()


def test_a_fraction_counts_as_the_real_number_it_is():
    # numpy's isfinite refused fractions with a TypeError naming no argument
    assert_array_equal(_union_fit(Fraction(1, 2))[0], _union_fit(0.5)[0])
    fraction = make_toggled_regimes(3, max_length=8, event_rate=Fraction(1, 5),
                                    random_state=0)
    decimal = make_toggled_regimes(3, max_length=8, event_rate=0.2, random_state=0)
    for a, b in zip(fraction[0], decimal[0], strict=True):
        assert_array_equal(a, b)
