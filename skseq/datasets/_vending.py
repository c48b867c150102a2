"""The vending machine of Zeng, Goodman & Smyth (1993, §2).

"The machine takes in 3 types of coins: nickel, dime and quarter. Starting from
empty, a string of coins is entered into the machine. The machine accepts, i.e.
a candy bar may be selected, only if the total amount of money entered exceeds
30 cents." (after Carroll & Long, *Theory of Finite Automata*, 1989). Its
minimal machine has 8 states: the totals 0, 5, ..., 30 cents and "more than 30"
(absorbing, the only accepting state).
"""

import numpy as np
from sklearn.utils import check_random_state

from .._data import check_flag
from ._tomita import _check_int, _check_lengths, one_hot

__all__ = ["make_vending_machine"]

_COINS = "ndq"  # nickel, dime, quarter: one-hot columns 0, 1, 2
_CENTS = np.array([5, 10, 25])
_PRICE = 30


def make_vending_machine(
    n_samples=200,
    *,
    min_length=1,
    max_length=10,
    random_state=None,
    return_strings=False,
):
    """Draw random strings of coins labelled by the paper's vending machine.

    Each string has a length drawn uniformly from ``[min_length, max_length]``
    (Zeng, Goodman & Smyth 1993, §2) and i.i.d. uniform coins; it is accepted (y = 1)
    iff its coins add up to more than 30 cents.

    Parameters
    ----------
    n_samples : int, default=200
        Number of strings, >= 1.
    min_length : int, default=1
        Smallest length, >= 1.
    max_length : int, default=10
        Largest length, >= `min_length`.
    random_state : int, RandomState instance or None, default=None
        Seed or generator, for reproducible output.
    return_strings : bool, default=False
        If True, also return the strings, over the alphabet ``"ndq"``
        (nickel, dime, quarter).

    Returns
    -------
    X : list of ndarray of shape (len_i, 3)
        One-hot encoded coins, float64: nickel ``[1, 0, 0]``, dime
        ``[0, 1, 0]``, quarter ``[0, 0, 1]``.
    y : ndarray of shape (n_samples,)
        1 if the total exceeds 30 cents, else 0.
    strings : list of str
        The strings; only returned if `return_strings` is True.

    Examples
    --------
    >>> from skseq.datasets import make_vending_machine
    >>> X, y, strings = make_vending_machine(5, max_length=4, random_state=0,
    ...                                      return_strings=True)
    >>> strings, y.tolist()
    (['d', 'dqnq', 'nn', 'n', 'qdqq'], [0, 1, 0, 0, 1])
    >>> X[1]
    array([[0., 1., 0.],
           [0., 0., 1.],
           [1., 0., 0.],
           [0., 0., 1.]])
    """
    n_samples = _check_int(n_samples, "n_samples", 1)
    check_flag(return_strings, "return_strings")
    min_length, max_length = _check_lengths(min_length, max_length)
    rng = check_random_state(random_state)
    strings, y = _coin_strings(rng, n_samples, min_length, max_length)
    X = one_hot(strings, alphabet=_COINS)
    return (X, y, strings) if return_strings else (X, y)


def _coin_strings(rng, n_samples, min_length, max_length):
    """Random coin strings and whether each pays more than the price."""
    lengths = rng.randint(min_length, max_length + 1, size=n_samples)
    codes = [rng.randint(0, len(_COINS), size=n) for n in lengths]
    strings = ["".join(_COINS[c] for c in coins) for coins in codes]
    y = np.array([_CENTS[coins].sum() > _PRICE for coins in codes], dtype=np.int64)
    return strings, y
