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
