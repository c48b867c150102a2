"""The running pooling called directly (``skseq._kernels.pooling``): in place
over the whole prefix, the refusal of bad arguments, and values that depend
on a sequence alone, whatever the threads and the other sequences of the call.

References: a plain loop over every step's window (``numpy.mean``, ``max`` and
``std`` of its slice); the same sequence pooled on its own on one thread.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skseq._kernels import pooling
from skseq.preprocessing import DilatedConvolution, RunningPooling


def _by_loop(x, offsets, window, statistic):
    reduce = {"mean": np.mean, "max": np.max, "std": np.std}[statistic]
    out = np.empty_like(x)
    for a, z in zip(offsets[:-1], offsets[1:], strict=True):
        for t in range(a, z):
            lo = a if window is None else max(a, t - window + 1)
            out[t] = reduce(x[lo : t + 1], axis=0)
    return out


def test_only_the_prefix_is_pooled_in_place():
    x = np.arange(12.0).reshape(6, 2)
    offsets = np.array([0, 4, 6])
    expected = pooling.running_pool(x, offsets, None, "mean")
    assert pooling.running_pool(x, offsets, None, "mean", out=x) is x
    assert_array_equal(x, expected)
    with pytest.raises(ValueError, match="cannot be pooled in place"):
        pooling.running_pool(x, offsets, 2, "mean", out=x)


@pytest.mark.parametrize("kwargs, match", [
    ({"offsets": [0, 3, 3, 6]}, "offsets do not partition"),
    ({"offsets": [0, 5]}, "offsets do not partition"),
    ({"window": 0}, "window must be at least 1, got 0"),
    ({"window": None, "statistic": "std"}, "needs a trailing window"),
    ({"out": np.empty((6, 3))}, "out must be a C-contiguous float64 array"),
    ({"out": np.empty((6, 2), dtype=np.float32)}, "out must be a C-contiguous"),
    ({"out": np.empty((2, 6)).T}, "out must be a C-contiguous"),
])
def test_bad_arguments_are_refused(kwargs, match):
    args = {"data": np.ones((6, 2)), "offsets": [0, 2, 6], "window": 2,
            "statistic": "mean", **kwargs}
    with pytest.raises(ValueError, match=match):
        pooling.running_pool(**args)


@pytest.mark.parametrize("window, statistic", [
    (w, s) for w in (None, 1, 4, 50) for s in ("mean", "max", "std")
    if w is not None or s != "std"])
def test_a_sequence_is_pooled_on_its_own(window, statistic):
    # 2**21 values: enough for two threads (1 << 20 values per thread at least)
    rng = np.random.default_rng(3)
    lengths = rng.integers(1, 120, size=7000)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    x = rng.normal(size=(offsets[-1], 8))
    together = pooling.running_pool(x, offsets, window, statistic, n_jobs=2)
    for s in (0, 1, 3500, 6999):
        a, z = offsets[s], offsets[s + 1]
        alone = pooling.running_pool(x[a:z], [0, z - a], window, statistic, n_jobs=1)
        assert_array_equal(together[a:z], alone)
    head = offsets[40]  # the first 40 sequences against a loop
    assert_allclose(together[:head], _by_loop(x[:head], offsets[:41], window,
                                              statistic), rtol=1e-13, atol=1e-14)


# The maximum kept a NaN for a number of steps that depended on its place in
# its block (at the first step of a window, none), the mean kept it until the
# window was summed afresh, and the standard deviation gave 0 for it.
@pytest.mark.parametrize("statistic, window", [
    ("max", 1), ("max", 3), ("max", 4), ("max", None),
    ("mean", 3), ("mean", 4), ("mean", None), ("std", 3), ("std", 4)])
def test_a_window_holding_a_nan_gives_nan_as_numpy(statistic, window):
    rng = np.random.default_rng(5)
    x = rng.normal(size=(23, 2))
    offsets = np.array([0, 9, 10, 23])
    # NaN at a sequence's first and last steps, inside, twice in one window,
    # alone in a sequence of one step, in one feature only
    for t in (0, 4, 8, 9, 12, 13, 17, 22):
        x[t, t % 2] = np.nan
    expected = _by_loop(x, offsets, window, statistic)
    got = pooling.running_pool(x, offsets, window, statistic)
    assert_array_equal(np.isnan(got), np.isnan(expected))
    assert_allclose(got, expected, rtol=1e-12, atol=1e-12)  # NaN equal NaN
    if window is None:  # in place too
        pooling.running_pool(x, offsets, None, statistic, out=x)
        assert_array_equal(x, got)


# A window near 2**63 overflowed the maximum's block arithmetic (wrong maxima,
# silently, from a sequence's offset on), and one beyond a C long failed in
# the conversion with an OverflowError.
@pytest.mark.parametrize("window", [2**62 + 1, 2**63 - 1, 2**70])
@pytest.mark.parametrize("statistic", ["mean", "max", "std"])
def test_a_window_longer_than_any_sequence_reads_whole_prefixes(window,
                                                                statistic):
    rng = np.random.default_rng(6)
    x = rng.normal(size=(14, 2))
    offsets = np.array([0, 5, 6, 14])
    assert_allclose(pooling.running_pool(x, offsets, window, statistic),
                    _by_loop(x, offsets, window, statistic), rtol=1e-13,
                    atol=1e-15)


@pytest.mark.parametrize("make", [
    lambda: RunningPooling(2),
    lambda: RunningPooling(statistic="max"),
    lambda: DilatedConvolution(1, output="value", pooling=2, random_state=0),
])
@pytest.mark.parametrize("value", [np.inf, -np.inf])
def test_the_public_poolers_refuse_infinite_inputs(make, value):
    """The kernels assume finite values (or NaN); the transformers that pool
    refuse +-inf where it is, before pooling, at fit and at transform."""
    rng = np.random.default_rng(4)
    X = [rng.normal(size=(12, 2)) for _ in range(3)]
    bad = [x.copy() for x in X]
    bad[1][2, 1] = value
    where = rf"sequence 1 contains {value} at step 2 \(feature 1\)"
    with pytest.raises(ValueError, match=where):
        make().fit(bad)
    fitted = make().fit(X)
    with pytest.raises(ValueError, match=where):
        fitted.transform(bad)
