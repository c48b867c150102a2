"""HybridHMMClassifier labels every step: one label per sequence gets a hint
that names the whole-sequence classifier."""

import warnings

import numpy as np
import pytest

from skseq import HybridHMMClassifier
from skseq.exceptions import InputHintWarning


def _sequences():
    rng = np.random.default_rng(0)
    return [rng.normal(size=(10, 1)) + s % 2 for s in range(8)]


def test_one_label_per_sequence_is_hinted():
    X = _sequences()
    with pytest.warns(InputHintWarning, match=r"use IOHMMClassifier\(\)") as caught:
        HybridHMMClassifier(random_state=0).fit(X, np.arange(8) % 2)
    assert caught[0].filename == __file__


def test_labels_at_every_step_are_not_hinted():
    X = _sequences()
    y = [np.full(10, s % 2) for s in range(8)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", InputHintWarning)
        HybridHMMClassifier(random_state=0).fit(X, y)
