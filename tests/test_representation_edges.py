"""Edges of the input representations: the order of the training sequences,
integer weights with prefix training, and series or rows of tiny magnitude.

References: the same fit on the sequences in another order, on repeated
sequences, and on the series scaled to unit size (whose standardized features
a fit on the scaled series must give again).
"""

import numpy as np
from numpy.testing import assert_array_equal

from skseq._data import check_sequences
from skseq.representations import ShapeFeatures


def _walks(seed, lengths, n_channels=1):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(n, n_channels)).round(1) for n in lengths]


def test_shape_fit_does_not_depend_on_the_order_of_the_sequences():
    # Equal prefix means (a sampled step, and the same step as its sequence's
    # last) sorted by a matrix product's key, which rounds a row by its
    # position: reversed sequences gave another projection (by 3e-3).
    X = _walks(31, (7, 11, 6, 2, 7, 8))
    params = dict(n_indicators=84, n_levels=2, n_components=4, supervised=False)
    fits = [ShapeFeatures(**params).fit(check_sequences(order),
                                        np.random.RandomState(0))
            for order in (X, X[::-1])]
    assert_array_equal(fits[0].projection_, fits[1].projection_)
    assert_array_equal(fits[0].offset_, fits[1].offset_)
