"""Data shared by the tests of skseq.preprocessing."""

import numpy as np


def _ragged(seed=0, lengths=(7, 1, 4, 12, 3)):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(k, 2)) for k in lengths]
