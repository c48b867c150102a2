"""Sequence data sets: generators, loaders and a reader for ``.ts`` files."""

from ._long_term import make_parity, make_two_sequence
from ._macro import load_fedfunds
from ._regimes import make_toggled_regimes
from ._tomita import (
    all_strings,
    load_tomita_training_set,
    make_tomita,
    make_tomita_exhaustive,
    one_hot,
    to_strings,
    tomita_accepts,
)
from ._ts import load_italy_power_demand, load_ts
from ._vending import make_vending_machine

__all__ = [
    "all_strings",
    "load_tomita_training_set",
    "make_tomita",
    "make_tomita_exhaustive",
    "one_hot",
    "to_strings",
    "tomita_accepts",
    "make_vending_machine",
    "make_parity",
    "make_two_sequence",
    "make_toggled_regimes",
    "load_ts",
    "load_italy_power_demand",
    "load_fedfunds",
]
