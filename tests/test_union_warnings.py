"""SequenceUnion checks X once: each warning about X is given once, in the
union's name, not again by every transformer it holds."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from joblib import parallel_config
from numpy.testing import assert_array_equal
from sklearn.preprocessing import FunctionTransformer, StandardScaler

from skseq.preprocessing import SequenceFeatures, SequenceUnion, Stepwise

RNG = np.random.default_rng(0)
ROWS = RNG.normal(size=(6, 2))
FRAME = pd.DataFrame(ROWS, columns=["a", "b"])
SEQUENCES = [RNG.normal(size=(k, 2)) for k in (9, 3, 14)]


def _union(n_jobs=None):
    return SequenceUnion([("scaled", Stepwise(StandardScaler())),
                          ("diff", SequenceFeatures()), ("raw", "passthrough")],
                         n_jobs=n_jobs)


# Each case warned once per transformer holding a fit (2) and once by the
# union itself: three times.
@pytest.mark.parametrize("fit_on, then, message", [
    (FRAME, ROWS, "X does not have valid feature names, but SequenceUnion was "
     "fitted with feature names"),
    (ROWS, FRAME, "X has feature names, but SequenceUnion was fitted without"),
    (SEQUENCES, np.concatenate(SEQUENCES), r"X is a 2-D table \(26 rows of 2 "
     r"features\): each row is read as a sequence of ONE step, but this "
     "SequenceUnion"),
])
@pytest.mark.parametrize("n_jobs", [None, 2])
def test_transform_warns_once_of_x(fit_on, then, message, n_jobs):
    with parallel_config(backend="threading"):  # threads: their warnings reach us
        union = _union(n_jobs).fit(fit_on)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = union.transformers_[0][1].transform(then)
        with pytest.warns(UserWarning) as record:
            got = union.transform(then)
    assert len(record) == 1, [str(w.message) for w in record]
    assert re.match(message, str(record[0].message))
    assert np.asarray(got).shape[-1] == 2 + 4 + 2  # the outputs, untouched
    assert_array_equal(np.asarray(got)[..., :2], np.asarray(expected))


def test_fit_warns_once_of_a_layout_that_looks_mistaken():
    X = RNG.normal(size=(2, 3, 40))  # channels first?
    with pytest.warns(UserWarning, match=r"X is a 3-D array of shape \(2, 3, 40\)"
                      ) as record:
        _union().fit_transform(X)
    assert len(record) == 1


def _warn_and_keep(x):
    warnings.warn("a warning of the inner transformer", RuntimeWarning, stacklevel=2)
    return x


def test_other_warnings_of_the_transformers_pass():
    inner = Stepwise(FunctionTransformer(_warn_and_keep))
    with pytest.warns(RuntimeWarning, match="of the inner transformer"):
        union = SequenceUnion([("own", inner)]).fit(SEQUENCES)
    with pytest.warns(RuntimeWarning, match="of the inner transformer") as record:
        union.transform(SEQUENCES)
    assert len(record) >= 1
