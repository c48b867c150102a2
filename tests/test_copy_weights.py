"""The weights that count copies (``skseq._data.weights.CopyWeights``), against
hand-worked values."""

import numpy as np
from numpy.testing import assert_array_equal

from skseq._data.weights import CopyWeights


def test_counting_is_none_where_the_fit_weights_are_the_sample_weights():
    weight = np.array([2.0, 1.0])
    assert CopyWeights().counting(weight, weight).weight is None
    fit_weight = weight * np.array([0.5, 3.0])  # class weights 0.5 and 3
    assert CopyWeights().counting(weight, fit_weight).weight is weight


def test_of_counts_sample_weights_and_a_prefix_its_source():
    fit_weight = np.array([1.0, 6.0])
    assert CopyWeights().of(fit_weight) is fit_weight
    assert_array_equal(CopyWeights(np.array([2.0, 3.0])).of(fit_weight), [2, 3])
    # three prefixes of source 1 (weight 3), one of source 0 (weight 2)
    prefixes = CopyWeights(None, np.array([1, 1, 0, 1]), np.array([2.0, 3.0]))
    assert_array_equal(prefixes.of(np.ones(4)), [3, 3, 2, 3])


def test_kept_renumbers_the_sources_left():
    copies = CopyWeights(np.array([1.0, 2, 2, 4]), np.array([0, 1, 1, 2]),
                         np.array([1.0, 2, 4]))
    kept = copies.kept(np.array([True, False, False, True]))
    assert_array_equal(kept.weight, [1, 4])
    assert_array_equal(kept.parent, [0, 1])  # source 2 is now source 1
    assert_array_equal(kept.parent_weight, [1, 4])
