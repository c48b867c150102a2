"""Inputs that used to pass silently or fail far from their cause: each is
refused up front with a message naming the parameter, file or value."""

import numpy as np
import pytest

from skseq import HierarchicalIOHMM, IOHMMClassifier, IOHMMRegressor
from skseq.datasets import make_tomita
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
