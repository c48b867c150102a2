"""Tomita's seven regular grammars over the binary alphabet.

The grammars of Tomita (1982) are the classic benchmark for learning
regular languages with recurrent networks (e.g. Bengio & Frasconi 1996,
Table 5). Sequences are returned as lists of one-hot encoded float64
arrays of shape ``(len_i, 2)`` and labels as a 1-D int array
(1 = accepted, 0 = rejected).
"""

import itertools
import json
import operator
import re
from importlib.resources import files

import numpy as np
from sklearn.utils import check_random_state

from .._data import check_flag, check_number

__all__ = [
    "all_strings",
    "load_tomita_training_set",
    "make_tomita",
    "make_tomita_exhaustive",
    "one_hot",
    "to_strings",
    "tomita_accepts",
]

_RE_1 = re.compile(r"1*")
_RE_2 = re.compile(r"(?:10)*")
_RE_7 = re.compile(r"0*1*0*1*")


def _grammar_3(s):
    # Reject an odd-length block of 0s anywhere after an odd-length block
    # of 1s (blocks are maximal runs). This is Tomita's original wording;
    # the "immediately after" reading misclassifies two strings of his
    # training set ("0111001101" and "11011100110").
    seen_odd_ones = False
    for symbol, run in itertools.groupby(s):
        odd = len(list(run)) % 2 == 1
        if symbol == "1" and odd:
            seen_odd_ones = True
        elif symbol == "0" and odd and seen_odd_ones:
            return False
    return True


_GRAMMARS = {
    1: lambda s: _RE_1.fullmatch(s) is not None,
    2: lambda s: _RE_2.fullmatch(s) is not None,
    3: _grammar_3,
    4: lambda s: "000" not in s,
    5: lambda s: s.count("0") % 2 == 0 and s.count("1") % 2 == 0,
    6: lambda s: (s.count("0") - s.count("1")) % 3 == 0,
    7: lambda s: _RE_7.fullmatch(s) is not None,
}


def _check_grammar(grammar):
    return check_number(grammar, "grammar", integral=True, low=min(_GRAMMARS),
                        high=max(_GRAMMARS))


def _check_int(value, name, min_value):
    return check_number(value, name, integral=True, low=min_value)


def _check_lengths(min_length, max_length):
    min_length = _check_int(min_length, "min_length", 1)
    max_length = _check_int(max_length, "max_length", 1)
    if min_length > max_length:
        raise ValueError(
            f"min_length ({min_length}) must be <= max_length ({max_length})."
        )
    return min_length, max_length


# all_strings and make_tomita_exhaustive list every string they return, so the
# count doubles with each unit of max_length; about 0.5 kB a string once one-hot
# encoded keeps the largest allowed corpus near 2 GB.
_MAX_STRINGS = 2**22


def _check_n_strings(min_length, max_length):
    """Refuse length ranges with more than ``_MAX_STRINGS`` binary strings."""
    if max_length < 63:
        n_strings = 2 ** (max_length + 1) - 2**min_length
        if n_strings <= _MAX_STRINGS:
            return
        n_strings = f"{n_strings:,}"
    else:  # not worth building a huge integer to refuse it
        n_strings = f"2**{max_length + 1} - 2**{min_length}"
    raise ValueError(
        f"max_length={max_length} (with min_length={min_length}) would make "
        f"{n_strings} strings; the limit is {_MAX_STRINGS:,} strings "
        "(max_length <= 21 with min_length=1)."
    )


def _as_binary_string(string):
    """Return `string` as a str of '0'/'1', validating every symbol."""
    if isinstance(string, str):
        for pos, char in enumerate(string):
            if char not in "01":
                raise ValueError(
                    f"Invalid symbol {char!r} at position {pos}; expected '0' or '1'."
                )
        return string
    chars = []
    for pos, symbol in enumerate(string):
        try:
            index = operator.index(symbol)
        except TypeError:
            index = None
        if index not in (0, 1):
            raise ValueError(
                f"Invalid symbol {symbol!r} at position {pos}; expected 0 or 1."
            )
        chars.append("01"[index])
    return "".join(chars)


def _check_alphabet(alphabet):
    if not isinstance(alphabet, str) or not alphabet:
        raise ValueError(f"alphabet must be a non-empty str, got {alphabet!r}.")
    if len(set(alphabet)) != len(alphabet):
        raise ValueError(f"alphabet has repeated symbols: {alphabet!r}.")


def tomita_accepts(grammar, string):
    """Tell whether a binary string belongs to one of Tomita's grammars.

    The seven languages over {0, 1} are:

    1. ``1*``.
    2. ``(10)*``.
    3. No odd-length block of 0s anywhere after an odd-length block
       of 1s (blocks are maximal runs of one symbol).
    4. No ``000`` substring.
    5. An even number of 0s and an even number of 1s.
    6. The number of 0s minus the number of 1s is a multiple of 3.
    7. ``0*1*0*1*``.

    The empty string is accepted by all seven grammars.

    Parameters
    ----------
    grammar : int
        Grammar number, 1 to 7.
    string : str or iterable of int
        A str of '0' and '1' characters, or an iterable of symbol
        indices 0 and 1.

    Returns
    -------
    accepted : bool
        True if `string` belongs to the language of `grammar`.

    Raises
    ------
    ValueError
        If `grammar` is not an integer in 1..7, or if `string` contains
        a symbol other than 0 and 1 (the message names its position).

    Examples
    --------
    >>> from skseq.datasets import tomita_accepts
    >>> tomita_accepts(4, "00100")
    True
    >>> tomita_accepts(4, "0001")
    False
    >>> tomita_accepts(7, [0, 1, 0, 1])
    True
    """
    grammar = _check_grammar(grammar)
    return bool(_GRAMMARS[grammar](_as_binary_string(string)))


def one_hot(strings, alphabet="01"):
    """One-hot encode a list of strings.

    Parameters
    ----------
    strings : list of str
        Non-empty strings over `alphabet`.
    alphabet : str, default="01"
        The symbols; the i-th symbol is encoded as the i-th unit vector.

    Returns
    -------
    X : list of ndarray of shape (len_i, len(alphabet))
        One float64 array per string.

    Raises
    ------
    ValueError
        If a string is empty or contains a symbol outside `alphabet` (the
        message names the string index and the position).

    Examples
    --------
    >>> from skseq.datasets import one_hot
    >>> X = one_hot(["01", "1"])
    >>> X[0]
    array([[1., 0.],
           [0., 1.]])
    >>> X[1].shape
    (1, 2)
    """
    if isinstance(strings, str):
        raise TypeError("strings must be a list of str, not a single str.")
    _check_alphabet(alphabet)
    index = {symbol: i for i, symbol in enumerate(alphabet)}
    eye = np.eye(len(alphabet), dtype=np.float64)
    X = []
    for i, string in enumerate(strings):
        if not isinstance(string, str):
            raise ValueError(f"String {i} is not a str: {string!r}.")
        if not string:
            raise ValueError(f"String {i} is empty.")
        codes = []
        for pos, char in enumerate(string):
            if char not in index:
                raise ValueError(
                    f"String {i} has unknown symbol {char!r} at position {pos}; "
                    f"alphabet is {alphabet!r}."
                )
            codes.append(index[char])
        X.append(eye[codes])
    return X


def to_strings(X, alphabet="01"):
    """Decode one-hot sequences back to strings (inverse of `one_hot`).

    Each row is mapped to the symbol of its largest entry.

    Parameters
    ----------
    X : list of array-like of shape (len_i, len(alphabet)), or ndarray of \
shape (n_sequences, max_len, len(alphabet))
        The encoded sequences; a 3-D array holds sequences of different
        lengths padded at the end with all-NaN rows.
    alphabet : str, default="01"
        The symbols, in column order.

    Returns
    -------
    strings : list of str
        One string per sequence.

    Raises
    ------
    ValueError
        If a sequence is not 2-D, is empty, does not have one column
        per symbol of `alphabet`, or has NaN other than trailing padding.

    Examples
    --------
    >>> from skseq.datasets import one_hot, to_strings
    >>> to_strings(one_hot(["0110", "1"]))
    ['0110', '1']
    """
    _check_alphabet(alphabet)
    strings = []
    for i, seq in enumerate(X):
        seq = np.asarray(seq)
        if seq.ndim != 2 or seq.shape[1] != len(alphabet):
            raise ValueError(
                f"Sequence {i} must have shape (length, {len(alphabet)}), "
                f"got {seq.shape}."
            )
        seq = _without_padding(seq, i)
        if seq.shape[0] == 0:
            raise ValueError(f"Sequence {i} is empty.")
        strings.append("".join(alphabet[k] for k in seq.argmax(axis=1)))
    return strings


def _without_padding(seq, i):
    """Sequence ``i`` without its trailing all-NaN rows; NaN elsewhere is
    refused."""
    if seq.dtype.kind not in "fc":
        return seq
    nan = np.isnan(seq)
    real = np.flatnonzero(~nan.all(axis=1))
    length = real[-1] + 1 if real.size else 0
    inside = np.flatnonzero(nan[:length].any(axis=1))
    if inside.size:
        raise ValueError(
            f"Sequence {i} has NaN at step {inside[0]}; only all-NaN rows at "
            "the end count as padding."
        )
    return seq[:length]


def all_strings(max_length, min_length=1):
    """List every binary string within a range of lengths.

    Parameters
    ----------
    max_length : int
        Largest length, >= `min_length`.
    min_length : int, default=1
        Smallest length, >= 1.

    Returns
    -------
    strings : list of str
        All strings over {0, 1} with ``min_length <= len <= max_length``,
        ordered by length, then lexicographically.

    Raises
    ------
    ValueError
        If the range holds more than 4,194,304 (``2**22``) strings, the
        limit that keeps memory in hand: ``max_length`` is at most 21 with
        ``min_length=1``. There are ``2**(max_length + 1) - 2**min_length``
        strings in the range.

    Examples
    --------
    >>> from skseq.datasets import all_strings
    >>> all_strings(2)
    ['0', '1', '00', '01', '10', '11']
    >>> len(all_strings(12))
    8190
    """
    min_length, max_length = _check_lengths(min_length, max_length)
    _check_n_strings(min_length, max_length)
    return [
        "".join(chars)
        for length in range(min_length, max_length + 1)
        for chars in itertools.product("01", repeat=length)
    ]


def _labelled(grammar, strings, return_strings):
    X = one_hot(strings)
    y = np.array([_GRAMMARS[grammar](s) for s in strings], dtype=np.int64)
    if return_strings:
        return X, y, list(strings)
    return X, y


def make_tomita(
    grammar,
    n_samples=200,
    *,
    min_length=1,
    max_length=12,
    random_state=None,
    return_strings=False,
):
    """Draw random binary strings labelled by one of Tomita's grammars.

    Each string has a length drawn uniformly from
    ``[min_length, max_length]`` and i.i.d. uniform symbols.

    Parameters
    ----------
    grammar : int
        Grammar number, 1 to 7 (see `tomita_accepts`).
    n_samples : int, default=200
        Number of strings, >= 1.
    min_length : int, default=1
        Smallest length, >= 1.
    max_length : int, default=12
        Largest length, >= `min_length`.
    random_state : int, RandomState instance or None, default=None
        Seed or generator, for reproducible output.
    return_strings : bool, default=False
        If True, also return the strings.

    Returns
    -------
    X : list of ndarray of shape (len_i, 2)
        One-hot encoded strings, float64.
    y : ndarray of shape (n_samples,)
        1 if the string is accepted by the grammar, else 0.
    strings : list of str
        The strings; only returned if `return_strings` is True.

    Examples
    --------
    >>> from skseq.datasets import make_tomita
    >>> X, y = make_tomita(4, n_samples=5, random_state=0)
    >>> len(X), y.shape
    (5, (5,))
    >>> X[0].shape[1], X[0].dtype
    (2, dtype('float64'))
    """
    grammar = _check_grammar(grammar)
    check_flag(return_strings, "return_strings")
    n_samples = _check_int(n_samples, "n_samples", 1)
    min_length, max_length = _check_lengths(min_length, max_length)
    rng = check_random_state(random_state)
    lengths = rng.randint(min_length, max_length + 1, size=n_samples)
    strings = ["".join("01"[b] for b in rng.randint(0, 2, size=n)) for n in lengths]
    return _labelled(grammar, strings, return_strings)


def make_tomita_exhaustive(grammar, max_length=12, min_length=1, return_strings=False):
    """Label every binary string within a range of lengths.

    With the defaults this is the test corpus of the literature: all
    8190 strings of length 1 to 12.

    Parameters
    ----------
    grammar : int
        Grammar number, 1 to 7 (see `tomita_accepts`).
    max_length : int, default=12
        Largest length, >= `min_length`.
    min_length : int, default=1
        Smallest length, >= 1.
    return_strings : bool, default=False
        If True, also return the strings.

    Returns
    -------
    X : list of ndarray of shape (len_i, 2)
        One-hot encoded strings, in the order of `all_strings`.
    y : ndarray of shape (n_strings,)
        1 if the string is accepted by the grammar, else 0.
    strings : list of str
        The strings; only returned if `return_strings` is True.

    Raises
    ------
    ValueError
        If the range holds more than 4,194,304 (``2**22``) strings, as in
        `all_strings`: ``max_length`` is at most 21 with ``min_length=1``.
        The one-hot arrays take about 0.5 kB a string, about 2 GB at the
        limit.

    Examples
    --------
    >>> from skseq.datasets import make_tomita_exhaustive
    >>> X, y, strings = make_tomita_exhaustive(2, max_length=4,
    ...                                        return_strings=True)
    >>> len(X)
    30
    >>> [s for s, label in zip(strings, y) if label]
    ['10', '1010']
    """
    grammar = _check_grammar(grammar)
    check_flag(return_strings, "return_strings")
    return _labelled(grammar, all_strings(max_length, min_length), return_strings)


def load_tomita_training_set(grammar, return_strings=False):
    """Load Tomita's original training set for one grammar.

    Parameters
    ----------
    grammar : int
        Grammar number, 1 to 7 (see `tomita_accepts`).
    return_strings : bool, default=False
        If True, also return the strings.

    Returns
    -------
    X : list of ndarray of shape (len_i, 2)
        One-hot encoded strings: the accepted ones first, then the
        rejected ones.
    y : ndarray of shape (n_strings,)
        1 for the accepted strings, 0 for the rejected ones.
    strings : list of str
        The strings; only returned if `return_strings` is True.

    Notes
    -----
    The empty string, part of some of Tomita's sets, is left out.

    Examples
    --------
    >>> from skseq.datasets import load_tomita_training_set
    >>> X, y, strings = load_tomita_training_set(1, return_strings=True)
    >>> strings[:3], y[:3].tolist()
    (['1', '11', '111'], [1, 1, 1])
    """
    grammar = _check_grammar(grammar)
    check_flag(return_strings, "return_strings")
    path = files("skseq.datasets") / "data" / "tomita_training_sets.json"
    sets = json.loads(path.read_text(encoding="utf-8"))["grammars"][str(grammar)]
    strings = sets["accept"] + sets["reject"]
    X = one_hot(strings)
    y = np.array([1] * len(sets["accept"]) + [0] * len(sets["reject"]), dtype=np.int64)
    if return_strings:
        return X, y, strings
    return X, y
