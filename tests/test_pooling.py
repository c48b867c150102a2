"""The running pooling called directly (``skseq._kernels.pooling``): in place
over the whole prefix."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from skseq._kernels import pooling


def test_only_the_prefix_is_pooled_in_place():
    x = np.arange(12.0).reshape(6, 2)
    offsets = np.array([0, 4, 6])
    expected = pooling.running_pool(x, offsets, None, "mean")
    assert pooling.running_pool(x, offsets, None, "mean", out=x) is x
    assert_array_equal(x, expected)
    with pytest.raises(ValueError, match="cannot be pooled in place"):
        pooling.running_pool(x, offsets, 2, "mean", out=x)
