"""The levels of a hierarchical state: their sizes, time scales and product.

The state of :class:`~skseq.HierarchicalIOHMM` is the Cartesian product of
levels, slowest first (El Hihi & Bengio, 1995); this mixin validates the levels'
parameters, builds the product chain's transitions and splits product-state
values into one digit per level.
"""

import numpy as np

from ._data import check_number
from ._families.hierarchy import HierarchicalTransitions


class HierarchyLevelsMixin:
    """Levels of a product state, read from ``n_states``, ``timescales``,
    ``min_timescales`` and ``learn_timescales``."""

    def _levels(self):
        """Validated ``n_states`` and ``timescales`` as tuples."""
        n_states, timescales = tuple(self.n_states), tuple(self.timescales)
        if not n_states:
            raise ValueError("n_states must give the size of at least one level, "
                             "got an empty sequence.")
        if len(timescales) != len(n_states):
            raise ValueError(
                f"timescales must have one entry per level: n_states has "
                f"{len(n_states)} levels {n_states} but timescales has "
                f"{len(timescales)} entries {timescales}."
            )
        return (tuple(check_number(n, "each entry of n_states", integral=True, low=1,
                                   where=f" in n_states={n_states}")
                      for n in n_states),
                tuple(check_number(tau, "each entry of timescales", low=1,
                                   where=f" in timescales={timescales}")
                      for tau in timescales))

    def _floors(self, timescales):
        """Validated ``min_timescales`` (None: no floor, 1 per level)."""
        if self.min_timescales is None:
            return None
        floors = tuple(self.min_timescales)
        if len(floors) != len(timescales):
            raise ValueError(
                f"min_timescales must have one entry per level: timescales has "
                f"{len(timescales)} entries {timescales} but min_timescales has "
                f"{len(floors)} entries {floors}.")
        return tuple(
            check_number(floor, "each entry of min_timescales", low=1, high=tau,
                         where=f" in min_timescales={floors}: between 1 and the "
                         f"level's time scale in timescales={timescales}")
            for floor, tau in zip(floors, timescales, strict=True))

    def _n_chain_states(self):
        return int(np.prod(self._levels()[0]))

    def _transition_mask(self):
        return None  # every product transition is allowed

    def _make_transition(self, n_features):
        n_states, timescales = self._levels()
        return HierarchicalTransitions(n_states, n_features, timescales,
                                       self.learn_timescales,
                                       self._floors(timescales))

    def _split_levels(self, values, fill):
        """Per-level digits of product-state values (C order), ``fill`` kept."""
        n_states = self._levels()[0]
        strides = np.cumprod((1,) + n_states[:0:-1])[::-1]
        return [np.where(values == fill, fill, values // stride % n)
                for stride, n in zip(strides, n_states, strict=True)]

    def _paths_per_level(self, paths):
        """Product-state paths (a list, or padded with -1) as one entry per level."""
        if isinstance(paths, list):
            per_seq = [self._split_levels(p, -1) for p in paths]
            return [list(level) for level in zip(*per_seq, strict=True)]
        return self._split_levels(paths, -1)
