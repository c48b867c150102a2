"""Messages show a NumPy scalar as the value it holds: 'b', not np.str_('b')."""

import numpy as np
import pytest

from skseq import IOHMMClassifier
from skseq._data.sequences import quote


def test_string_step_named_plainly():
    X = [np.array([[1.0, np.str_("walk")]], dtype=object)]
    with pytest.raises(ValueError) as info:
        IOHMMClassifier().fit(X, [1])
    assert "the string 'walk', which is not numeric" in str(info.value)
    assert "np.str_" not in str(info.value)


@pytest.mark.parametrize("value, text", [
    (np.str_("a"), "'a'"), (np.float64(2.5), "2.5"), (np.int32(-3), "-3"),
    (np.bool_(True), "True"), (np.bytes_(b"z"), "b'z'"),
])
def test_quote_numpy_scalars(value, text):
    assert quote(value) == text


def test_quote_keeps_dates_as_numpy():
    # .item() of a date may be an int (nanoseconds) or None (NaT): kept as is
    assert "datetime64" in quote(np.datetime64("NaT"))
    assert "datetime64" in quote(np.datetime64(1, "ns"))


@pytest.mark.parametrize("name", ["iohmm", "hybrid", "rnn"])
def test_the_only_class_named_plainly(name):
    from skseq import HybridHMMClassifier
    from skseq.rnn import DiscretizedRNNClassifier

    label = np.str_("a")
    X = [np.random.default_rng(0).normal(size=(5, 1)) for _ in range(4)]
    if name == "iohmm":
        est, y = IOHMMClassifier(), np.array([label] * 4, dtype=object)
    elif name == "hybrid":
        est, y = HybridHMMClassifier(), [np.array([label] * 5, dtype=object)] * 4
    else:
        est, y = DiscretizedRNNClassifier(), np.array([label] * 4, dtype=object)
        X = [np.eye(2)[[0, 1, 0]]] * 4
    with pytest.raises(ValueError, match="only one class: 'a'\\."):
        est.fit(X, y)
