"""Inputs that used to pass silently or fail far from their cause: each is
refused up front with a message naming the parameter, file or value."""

import io

import numpy as np
import pytest

from skseq import HierarchicalIOHMM, IOHMMClassifier, IOHMMRegressor
from skseq.datasets import load_ts, make_tomita
from skseq.preprocessing import DilatedConvolution, RunningPooling, SequenceUnion


@pytest.mark.parametrize("make", [
    lambda: IOHMMClassifier(2, n_jobs=0),
    lambda: IOHMMRegressor(2, n_jobs=0),
    lambda: HierarchicalIOHMM((2, 2), n_jobs=0),
    lambda: RunningPooling(n_jobs=0),
    lambda: DilatedConvolution(n_jobs=0),
    lambda: SequenceUnion([("pool", RunningPooling())], n_jobs=0),
])
def test_n_jobs_zero_is_refused_at_validation(make):
    X, y = make_tomita(4, 6, random_state=0)
    est = make()
    with pytest.raises(ValueError, match="'n_jobs' parameter"):
        est.fit(X) if not hasattr(est, "predict") else est.fit(X, y)


TS_HEADER = "@problemName T\n@univariate true\n@classLabel true a b\n@data\n"


def test_load_ts_names_file_and_line_of_bytes_that_are_not_utf8(tmp_path):
    path = tmp_path / "latin1.ts"
    path.write_bytes((TS_HEADER + "1,2:a\n").encode() + b"3,\xe94:b\n")
    with pytest.raises(ValueError, match=r"latin1\.ts, line 6: not UTF-8"):
        load_ts(path)
    with open(path, "rb") as f, pytest.raises(ValueError, match="line 6: not UTF-8"):
        load_ts(f)


def test_long_values_in_messages_are_cut_with_a_closed_quote():
    digits = "9" * 400
    with pytest.raises(ValueError) as info:
        load_ts(io.StringIO(TS_HEADER + f"1,{digits}x:a\n"))
    message = str(info.value)
    assert "'99999" in message and "...'" in message and len(message) < 200
    with pytest.raises(ValueError) as info:
        IOHMMClassifier(2).fit([np.array([[1], [10**400]], dtype=object)], [0])
    assert "000..." in str(info.value) and "too large" in str(info.value)
    assert len(str(info.value)) < 200
