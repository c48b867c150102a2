"""The hierarchical transition family (skseq._families.hierarchy): its free
parameters against the rank of its Jacobian, its hold start level by level."""

import numpy as np
import pytest
from _jacobian import jacobian_rank
from numpy.testing import assert_allclose

from skseq._families.hierarchy import HierarchicalTransitions
from skseq._families.starts import HOLD_LOGIT


@pytest.mark.parametrize("learn", [False, True])
def test_hierarchical_free_parameters_are_the_jacobian_rank(learn):
    rng = np.random.default_rng(1)
    family = HierarchicalTransitions((2, 3), 2, (4.0, 2.0), learn)
    theta = family.init(rng, 1.0)
    U = rng.normal(size=(40, 2))
    assert family.n_free_params() == jacobian_rank(
        lambda t: family.probs(t, U), theta)


def test_hold_start_of_the_hierarchy_under_every_parent_value():
    family = HierarchicalTransitions((3, 2), 2, (10.0, 1.0), True)
    random = family.unpack(family.init(np.random.RandomState(0), 1.0))
    hold = family.unpack(family.init(np.random.RandomState(0), 1.0, start="hold"))
    for key in random:
        added = hold[key] - random[key]
        if key.startswith("intercept"):
            n, m, _ = added.shape
            for j in range(n):
                for k in range(m):
                    for i in range(n):
                        want = HOLD_LOGIT if i == j and j > 0 else 0.0
                        assert added[j, k, i] == pytest.approx(want, abs=1e-12)
        elif key == "persistence_logit":
            # learned time scales start at (10, 1), and at 1 with a hold start:
            # logit(w) = log(timescale - 1), kept >= log(0.01)
            assert_allclose(random[key], [np.log(9.0), np.log(0.01)], rtol=1e-12)
            assert_allclose(hold[key], [np.log(0.01), np.log(0.01)], rtol=1e-12)
        else:
            assert_allclose(added, 0.0, atol=1e-12)
    # a held value of the slow level stays with probability >= 0.998 at zero
    # input and zero random weights: e^7 / (e^7 + 2)
    assert np.exp(HOLD_LOGIT) / (np.exp(HOLD_LOGIT) + 2) > 0.998
