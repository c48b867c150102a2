"""Edges of the input representations: the order of the training sequences,
integer weights with prefix training, and series or rows of tiny magnitude.

References: the same fit on the sequences in another order, on repeated
sequences, and on the series scaled to unit size (whose standardized features
a fit on the scaled series must give again).
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skseq import IOHMMClassifier
from skseq._data import check_sequences
from skseq.representations import ShapeFeatures, WindowFeatures


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


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_integer_weight_equals_repeating_the_sequence_with_prefixes():
    # With n_prefixes the representation saw each prefix's share of its
    # sequence's weight, a fraction, and so every prefix once whatever the
    # weight: the window statistics differed from the repeated sequences'.
    X = _walks(0, (3, 5, 6, 8, 4, 7))
    y = [0, 1, 0, 1, 0, 1]
    kw = dict(n_states=2, n_init=1, max_iter=5, features="window",
              random_state=0, n_prefixes=3)
    weighted = IOHMMClassifier(**kw).fit(X, y, sample_weight=[2, 1, 1, 1, 1, 3])
    repeated = IOHMMClassifier(**kw).fit(X + [X[0], X[5], X[5]], y + [0, 1, 1])
    for name in ("mean_", "scale_"):
        assert_allclose(getattr(weighted.representation_, name),
                        getattr(repeated.representation_, name), rtol=1e-12)
    assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X),
                    atol=1e-9)


def test_window_features_standardize_series_of_tiny_magnitude():
    # A spread below 1e-12 counted as none: a series near 1e-20 kept its raw
    # (nearly zero) values, and the networks saw no variation.
    seqs = check_sequences(_walks(1, (4, 9, 6), n_channels=2))
    tiny = check_sequences([x * 1e-20 for x in _walks(1, (4, 9, 6), 2)])
    rows = np.arange(seqs.data.shape[0])
    unit = WindowFeatures(window=4).fit(seqs, None).inputs(seqs, rows)[0]
    scaled = WindowFeatures(window=4).fit(tiny, None).inputs(tiny, rows)[0]
    assert_allclose(scaled, unit, atol=1e-9)


def test_a_table_of_tiny_rows_keeps_its_principal_components():
    # The squared singular values underflowed below 1e-160: one zero feature.
    rows = np.random.default_rng(2).normal(size=(12, 3))
    unit = ShapeFeatures().fit(check_sequences(rows), np.random.RandomState(0))
    tiny = ShapeFeatures().fit(check_sequences(rows * 1e-170),
                               np.random.RandomState(0))
    assert tiny.projection_.shape == unit.projection_.shape == (3, 3)
    seqs = check_sequences(rows)
    assert_allclose(tiny.inputs(check_sequences(rows * 1e-170), [0])[0],
                    unit.inputs(seqs, [0])[0], atol=1e-9)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_balanced_class_weights_of_equal_classes_change_no_prefix_fit():
    # Counted over the prefixes' shares, "balanced" weighs two classes of equal
    # weight 1 up to an ulp: the weight 2 of a sequence then read as 2 + 4e-16,
    # no longer two copies (the representation and the penalty counted it once).
    X = _walks(0, (3, 5, 6, 8, 4, 7, 12, 9))
    y = [0, 1, 0, 1, 0, 1, 0, 1]
    weight = [0, 1, 1, 1, 1, 1, 2, 1]  # 4 and 4
    kw = dict(n_states=2, n_init=1, max_iter=5, features="window",
              random_state=0, n_prefixes=3)
    plain = IOHMMClassifier(**kw).fit(X, y, sample_weight=weight)
    balanced = IOHMMClassifier(**kw, class_weight="balanced").fit(
        X, y, sample_weight=weight)
    assert_allclose(balanced.representation_.mean_, plain.representation_.mean_,
                    rtol=1e-12)
    assert_allclose(balanced.predict_proba(X), plain.predict_proba(X), atol=1e-9)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_supervised_axes_count_an_integer_weight_as_copies_with_prefixes():
    # The ridge's penalty was chosen leaving out one row at a time, a row of
    # weight below 1 whole: a prefix of a sequence of weight 2 (its share,
    # 2/3) left both copies out, where the repeated sequence leaves one.
    X = _walks(0, (3, 5, 6, 8, 4, 7, 12, 9))
    y = [0, 1, 0, 1, 0, 1, 0, 1]
    kw = dict(n_states=2, n_init=1, max_iter=5, random_state=0, n_prefixes=3,
              features=ShapeFeatures(n_indicators=84, n_levels=2, n_components=4))
    weighted = IOHMMClassifier(**kw).fit(
        X, y, sample_weight=[2, 1, 1, 1, 1, 1, 1, 3])
    repeated = IOHMMClassifier(**kw).fit(X + [X[0], X[7], X[7]], y + [0, 1, 1])
    assert_allclose(weighted.representation_.projection_,
                    repeated.representation_.projection_, atol=1e-9)
    assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X),
                    atol=1e-9)
