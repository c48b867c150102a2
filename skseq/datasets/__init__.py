"""Sequence data sets: generators and loaders."""

from ._long_term import make_parity, make_two_sequence
from ._tomita import (
    all_strings,
    load_tomita_training_set,
    make_tomita,
    make_tomita_exhaustive,
    one_hot,
    to_strings,
    tomita_accepts,
)
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
]
