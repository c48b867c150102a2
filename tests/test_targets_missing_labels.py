"""A missing label among one-per-sequence labels: the message counts them and
says what to do."""

import numpy as np
import pandas as pd
import pytest

from skseq import IOHMMClassifier


def test_missing_sequence_labels_counted_with_advice():
    X = [np.zeros((3, 1))] * 5
    y = pd.Series(["a", None, "b", np.nan, "a"])
    with pytest.raises(ValueError) as info:
        IOHMMClassifier().fit(X, y)
    message = str(info.value)
    assert "at sequence 1 (2 of 5 sequences)" in message
    assert "leave the unlabelled ones out of both X and y" in message
    # the advice works: the kept sequences fit
    keep = pd.notna(y).to_numpy()
    X_kept = [x + i for i, (x, k) in enumerate(zip(X, keep, strict=True)) if k]
    model = IOHMMClassifier(features="raw", n_init=1, max_iter=2)
    assert model.fit(X_kept, y[keep]).classes_.tolist() == ["a", "b"]
