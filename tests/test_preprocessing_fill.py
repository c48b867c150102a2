"""ForwardFill: each missing value takes its feature's last observed value in
the same sequence; a leading gap the feature's training mean."""

import copy

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline

from skseq import IOHMMClassifier
from skseq.preprocessing import ForwardFill

nan = np.nan


def _gappy():
    return [np.array([[nan, 1.0], [2.0, nan], [nan, 3.0]]),
            np.array([[4.0, nan]]),   # not sequence 0's last value: the mean
            np.array([[nan, nan], [5.0, 6.0], [nan, nan]])]


def test_forward_fill_equals_the_hand_worked_fill():
    fill = ForwardFill().fit(_gappy())
    # observed: feature 0 holds 2, 4, 5; feature 1 holds 1, 3, 6
    m0, m1 = 11 / 3, 10 / 3
    assert_allclose(fill.fill_values_, [m0, m1], rtol=1e-15)
    out = fill.transform(_gappy())
    assert_allclose(out[0], [[m0, 1.0], [2.0, 1.0], [2.0, 3.0]], rtol=1e-15)
    assert_allclose(out[1], [[4.0, m1]], rtol=1e-15)
    assert_allclose(out[2], [[m0, m1], [5.0, 6.0], [5.0, 6.0]], rtol=1e-15)


def test_the_fill_is_causal():
    fill = ForwardFill().fit(_gappy())
    x = _gappy()[0]
    whole = fill.transform([x])[0]
    for t in range(1, len(x) + 1):
        assert_array_equal(fill.transform([x[:t]])[0], whole[:t])


def test_a_padded_array_keeps_its_padding_and_fills_an_all_missing_step():
    X = np.array([[[1.0], [nan], [3.0], [nan]],   # an all-NaN step inside, padding
                  [[nan], [2.0], [nan], [nan]]])
    out = ForwardFill().fit_transform(X)
    # observed: 1, 3, 2 (mean 2)
    assert_array_equal(out[0, :3, 0], [1.0, 1.0, 3.0])
    assert_array_equal(out[1, :2, 0], [2.0, 2.0])
    assert np.isnan(out[0, 3:]).all() and np.isnan(out[1, 2:]).all()


def test_one_step_rows_are_filled_with_the_means_like_a_simple_imputer():
    rng = np.random.default_rng(0)
    table = rng.normal(size=(20, 3))
    table[rng.random(table.shape) < 0.3] = nan
    assert_allclose(ForwardFill().fit_transform(table),
                    SimpleImputer().fit_transform(table), rtol=1e-14)


def test_names_pipeline_and_refusals():
    frames = [pd.DataFrame(x, columns=["speed", "load"]) for x in _gappy()]
    fill = ForwardFill().fit(frames)
    assert_array_equal(fill.get_feature_names_out(), ["speed", "load"])
    pipe = make_pipeline(ForwardFill(), IOHMMClassifier(n_states=2, n_init=1,
                                                        max_iter=5, random_state=0))
    with pytest.warns(Warning):  # few iterations: ConvergenceWarning
        pipe.fit(_gappy(), [0, 1, 0])
    state = copy.deepcopy(vars(fill))
    with pytest.raises(ValueError, match=r"ForwardFill: feature 1 has no observed "
                       r"value in the training sequences"):
        fill.fit([np.array([[1.0, nan], [2.0, nan]])])
    with pytest.raises(ValueError, match=r"sequence 0 contains inf at step 1 "
                       r"\(feature 0\); infinite values are not allowed"):
        fill.fit([np.array([[1.0, 1.0], [np.inf, 2.0]])])
    assert_array_equal(fill.fill_values_, state["fill_values_"])
    assert_array_equal(fill.feature_names_in_, ["speed", "load"])
