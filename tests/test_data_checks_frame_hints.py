"""The layout hints of a DataFrame say what works on a DataFrame:
X.to_numpy()[:, :, None], not X[:, :, None] (which pandas refuses)."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

from skseq import IOHMMClassifier
from skseq.exceptions import InputHintWarning

pytestmark = pytest.mark.filterwarnings("ignore", category=ConvergenceWarning)


def _series(n=12, T=10, seed=0):
    rng = np.random.default_rng(seed)
    return np.cumsum(rng.normal(size=(n, T)), axis=1)  # columns move together


def _model():
    return IOHMMClassifier(features="raw", n_states=2, n_init=1, max_iter=2,
                           random_state=0)


def _hint(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    hints = [str(w.message) for w in caught if w.category is InputHintWarning]
    assert len(hints) == 1
    return hints[0]


def test_fit_on_wide_frame_hints_frame_expressions():
    wide = pd.DataFrame(_series(), columns=[f"t{i}" for i in range(10)])
    y = np.arange(12) % 2
    hint = _hint(lambda: _model().fit(wide, y))
    assert "(or X.to_numpy()[:, :, None])" in hint
    assert "pass X.to_numpy()[:, None, :]" in hint
    assert "InputHintWarning" in hint  # how to keep the frame, names and all
    # the advice works: read as 12 series of 10 steps, with no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", InputHintWarning)
        model = _model().fit(wide.to_numpy()[:, :, None], y)
    assert model.n_features_in_ == 1


def test_fit_on_wide_array_keeps_array_expressions():
    hint = _hint(lambda: _model().fit(_series(), np.arange(12) % 2))
    assert "(or X[:, :, None])" in hint and "pass X[:, None, :]." in hint


def test_predict_on_wide_frame_hints_frame_expression():
    model = _model().fit(_series()[:, :, None], np.arange(12) % 2)
    wide = pd.DataFrame(_series(n=3, seed=1))
    with pytest.raises(ValueError, match=r"pass X\.to_numpy\(\)\[:, :, None\]"):
        model.predict(wide)
