import json
import re
from importlib.resources import files
from math import comb

import numpy as np
import pytest

from skseq.datasets import (
    all_strings,
    load_tomita_training_set,
    make_toggled_regimes,
    make_tomita,
    make_tomita_exhaustive,
    make_vending_machine,
    one_hot,
    to_strings,
    tomita_accepts,
)

# The shipped file, where the imported package is (a checkout or an installation).
DATA = files("skseq.datasets") / "data"

# Hand-checked membership: (accepted, rejected) strings per grammar.
HAND_CASES = {
    1: (["", "1", "111"], ["0", "101", "110"]),
    2: (["", "10", "1010"], ["1", "01", "100", "1011"]),
    3: (
        ["", "0", "1", "01", "110", "100", "1001", "1001100"],
        ["10", "1000", "11010", "1001101", "011100110"],
    ),
    4: (["00", "00100", "1001001"], ["000", "0001", "10100010"]),
    5: (["", "11", "0110", "0011"], ["0", "01", "000111"]),
    6: (["", "111", "01", "000", "00001"], ["1111", "0", "00", "0111"]),
    7: (
        ["", "0101", "0110", "1001", "1101", "000111000111"],
        ["1010", "10101", "01010", "110100"],
    ),
}


def _grammar_3_dfa(s):
    # Independent automaton: "no odd 0-block anywhere after an odd 1-block".
    # States: start, odd run of 1s (no odd 1-block yet), odd 0-run after an
    # odd 1-block, safe after an odd 1-block, dead.
    delta = {
        ("start", "0"): "start",
        ("start", "1"): "odd1",
        ("odd1", "0"): "bad0",
        ("odd1", "1"): "start",
        ("bad0", "0"): "safe",
        ("bad0", "1"): "dead",
        ("safe", "0"): "bad0",
        ("safe", "1"): "safe",
        ("dead", "0"): "dead",
        ("dead", "1"): "dead",
    }
    state = "start"
    for char in s:
        state = delta[state, char]
    return state not in ("bad0", "dead")


def _count_accepted(grammar, max_length):
    return sum(tomita_accepts(grammar, s) for s in all_strings(max_length))


@pytest.mark.parametrize("grammar", range(1, 8))
def test_hand_cases(grammar):
    accepted, rejected = HAND_CASES[grammar]
    for s in accepted:
        assert tomita_accepts(grammar, s) is True, s
    for s in rejected:
        assert tomita_accepts(grammar, s) is False, s


def test_symbol_index_input():
    assert tomita_accepts(7, [0, 1, 0, 1])
    assert not tomita_accepts(7, (1, 0, 1, 0))
    assert tomita_accepts(4, np.array([0, 0, 1, 0, 0]))
    assert not tomita_accepts(4, iter([0, 0, 0]))
    assert tomita_accepts(np.int64(1), [])


@pytest.mark.parametrize("grammar", range(1, 8))
def test_shipped_training_set_classified_as_labelled(grammar):
    sets = json.loads((DATA / "tomita_training_sets.json").read_text())
    sets = sets["grammars"][str(grammar)]
    for s in sets["accept"]:
        assert tomita_accepts(grammar, s), s
    for s in sets["reject"]:
        assert not tomita_accepts(grammar, s), s


@pytest.mark.parametrize("grammar", range(1, 8))
def test_load_training_set(grammar):
    sets = json.loads((DATA / "tomita_training_sets.json").read_text())
    sets = sets["grammars"][str(grammar)]
    X, y, strings = load_tomita_training_set(grammar, return_strings=True)
    assert strings == sets["accept"] + sets["reject"]
    assert y.tolist() == [1] * len(sets["accept"]) + [0] * len(sets["reject"])
    assert to_strings(X) == strings
    assert len(load_tomita_training_set(grammar)) == 2


def test_all_strings():
    assert all_strings(2) == ["0", "1", "00", "01", "10", "11"]
    assert all_strings(3, min_length=3) == [
        "000",
        "001",
        "010",
        "011",
        "100",
        "101",
        "110",
        "111",
    ]
    strings = all_strings(12)
    assert len(strings) == 2**13 - 2 == 8190
    assert len(set(strings)) == 8190


def test_accepted_counts():
    n = 12
    assert _count_accepted(1, n) == 12
    assert _count_accepted(2, n) == 6
    # No "000": tribonacci-like recurrence.
    counts = [1, 2, 4]
    while len(counts) <= n:
        counts.append(counts[-1] + counts[-2] + counts[-3])
    assert _count_accepted(4, n) == sum(counts[1:])
    # Even #0 and even #1: 2^(k-1) strings of each even length k.
    assert _count_accepted(5, n) == sum(2 ** (k - 1) for k in range(2, n + 1, 2))
    # (#0 - #1) = (k - 2 * #1) divisible by 3.
    expected = sum(
        comb(k, ones)
        for k in range(1, n + 1)
        for ones in range(k + 1)
        if (k - 2 * ones) % 3 == 0
    )
    assert _count_accepted(6, n) == expected
    # 0*1*0*1*: at most 3 symbol changes if starting with 0, else at most 2.
    expected = sum(
        sum(comb(k - 1, c) for c in range(4)) + sum(comb(k - 1, c) for c in range(3))
        for k in range(1, n + 1)
    )
    assert _count_accepted(7, n) == expected


def test_grammar_3_matches_automaton():
    for s in all_strings(10):
        assert tomita_accepts(3, s) == _grammar_3_dfa(s), s


def test_make_tomita_exhaustive():
    X, y, strings = make_tomita_exhaustive(2, max_length=6, return_strings=True)
    assert strings == all_strings(6)
    assert len(X) == y.shape[0] == 126
    assert [s for s, label in zip(strings, y, strict=True) if label] == [
        "10",
        "1010",
        "101010",
    ]
    X, y = make_tomita_exhaustive(1, max_length=5, min_length=3)
    assert [x.shape[0] for x in X] == [3] * 8 + [4] * 16 + [5] * 32
    assert y.sum() == 3


def test_make_tomita_shapes_and_labels():
    X, y, strings = make_tomita(
        6,
        n_samples=50,
        min_length=2,
        max_length=7,
        random_state=0,
        return_strings=True,
    )
    assert isinstance(X, list) and len(X) == len(strings) == 50
    assert y.shape == (50,) and y.dtype.kind == "i"
    for x, s, label in zip(X, strings, y, strict=True):
        assert x.dtype == np.float64 and x.shape == (len(s), 2)
        assert 2 <= len(s) <= 7
        assert label == tomita_accepts(6, s)
    assert to_strings(X) == strings
    assert set(np.unique(y)) <= {0, 1}


def test_make_tomita_deterministic():
    a = make_tomita(4, n_samples=30, random_state=42, return_strings=True)
    b = make_tomita(
        4, n_samples=30, random_state=np.random.RandomState(42), return_strings=True
    )
    c = make_tomita(4, n_samples=30, random_state=43, return_strings=True)
    assert a[2] == b[2]
    np.testing.assert_array_equal(a[1], b[1])
    for xa, xb in zip(a[0], b[0], strict=True):
        np.testing.assert_array_equal(xa, xb)
    assert a[2] != c[2]


def test_make_tomita_covers_lengths():
    _, _, strings = make_tomita(
        1,
        n_samples=400,
        min_length=3,
        max_length=5,
        random_state=0,
        return_strings=True,
    )
    assert {len(s) for s in strings} == {3, 4, 5}
    _, _, strings = make_tomita(
        1,
        n_samples=5,
        min_length=4,
        max_length=4,
        random_state=0,
        return_strings=True,
    )
    assert all(len(s) == 4 for s in strings)


def test_one_hot_and_to_strings():
    X = one_hot(["0", "01", "110"])
    np.testing.assert_array_equal(X[1], [[1.0, 0.0], [0.0, 1.0]])
    assert [x.shape for x in X] == [(1, 2), (2, 2), (3, 2)]
    assert all(x.dtype == np.float64 for x in X)
    strings = all_strings(5)
    assert to_strings(one_hot(strings)) == strings
    X = one_hot(["cab"], alphabet="abc")
    np.testing.assert_array_equal(X[0], np.eye(3)[[2, 0, 1]])
    assert to_strings(X, alphabet="abc") == ["cab"]
    assert one_hot([]) == []


@pytest.mark.parametrize("grammar", [0, 8, -1, "2", 2.0, None, True])
def test_bad_grammar(grammar):
    with pytest.raises(ValueError, match=re.escape(repr(grammar))):
        tomita_accepts(grammar, "01")
    with pytest.raises(ValueError, match="grammar"):
        make_tomita(grammar)
    with pytest.raises(ValueError, match="grammar"):
        make_tomita_exhaustive(grammar, max_length=2)
    with pytest.raises(ValueError, match="grammar"):
        load_tomita_training_set(grammar)


@pytest.mark.parametrize("flag", ["no", 2.5, None, 1])
def test_return_switches_must_be_true_or_false(flag):
    # a truthy string or number returned the strings (a 3-tuple), None did not
    calls = [lambda: make_tomita(4, 3, return_strings=flag),
             lambda: make_tomita_exhaustive(4, max_length=2, return_strings=flag),
             lambda: load_tomita_training_set(4, return_strings=flag),
             lambda: make_vending_machine(3, return_strings=flag)]
    for call in calls:
        with pytest.raises(TypeError, match="return_strings must be True or False"):
            call()
    with pytest.raises(TypeError, match="return_regimes must be True or False"):
        make_toggled_regimes(3, return_regimes=flag)
    assert len(make_vending_machine(3, return_strings=np.True_)) == 3


def test_bad_symbols():
    with pytest.raises(ValueError, match="position 2"):
        tomita_accepts(1, "0120")
    with pytest.raises(ValueError, match="position 0"):
        tomita_accepts(1, "a")
    with pytest.raises(ValueError, match="position 1"):
        tomita_accepts(1, [1, 2])
    with pytest.raises(ValueError, match="position 0"):
        tomita_accepts(1, ["1"])
    with pytest.raises(ValueError, match="String 1.*'a'.*position 1"):
        one_hot(["01", "0a"])
    with pytest.raises(ValueError, match="String 1 is empty"):
        one_hot(["01", ""])
    with pytest.raises(TypeError):
        one_hot("0101")
    with pytest.raises(ValueError, match="Sequence 0"):
        to_strings([np.zeros((3, 3))])
    with pytest.raises(ValueError, match="Sequence 1 is empty"):
        to_strings([np.eye(2), np.zeros((0, 2))])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_samples": 0}, "n_samples"),
        ({"n_samples": 2.5}, "n_samples"),
        ({"min_length": 0}, "min_length"),
        ({"min_length": 5, "max_length": 4}, "min_length"),
        ({"max_length": 0}, "max_length"),
    ],
)
def test_make_tomita_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_tomita(1, **kwargs)


def test_bad_lengths():
    with pytest.raises(ValueError, match="max_length"):
        all_strings(0)
    with pytest.raises(ValueError, match="min_length"):
        all_strings(3, min_length=0)
    with pytest.raises(ValueError, match="min_length"):
        make_tomita_exhaustive(1, max_length=3, min_length=4)


def test_too_many_strings_refused_up_front():
    # 2**41 - 2 strings of length 1 to 40 would hang or exhaust memory;
    # the counts below are sum(2**k for k in range(min, max + 1)), by hand.
    with pytest.raises(ValueError, match=r"max_length=40 .* 2,199,023,255,550 "
                       r"strings; the limit is 4,194,304"):
        all_strings(40)
    with pytest.raises(ValueError, match=r"max_length=22 .* 8,388,606 strings"):
        make_tomita_exhaustive(4, max_length=22)
    with pytest.raises(ValueError, match=r"min_length=21\) would make 6,291,456"):
        make_tomita_exhaustive(4, max_length=22, min_length=21)
    with pytest.raises(ValueError, match=r"2\*\*1000000001 - 2\*\*1 strings"):
        all_strings(10**9)


def test_string_limit_is_inclusive():
    # 2**22 strings of length exactly 22 is the limit itself (the listing
    # would take seconds, so only the guard is called here)
    from skseq.datasets._tomita import _MAX_STRINGS, _check_n_strings

    assert _MAX_STRINGS == 2**22
    _check_n_strings(22, 22)
    with pytest.raises(ValueError, match="8,388,608 strings"):
        _check_n_strings(23, 23)


def test_to_strings_reads_padded_arrays_and_refuses_nan_inside():
    # a padding row was read as the first symbol ("0"), NaN inside as well
    strings = ["0110", "1", "10"]
    X = np.full((3, 4, 2), np.nan)
    for i, string in enumerate(strings):
        X[i, : len(string)] = np.eye(2)[[int(c) for c in string]]
    assert to_strings(X) == strings
    assert to_strings(list(X)) == strings
    with pytest.raises(ValueError, match="Sequence 1 has NaN at step 0"):
        to_strings([np.eye(2), np.array([[np.nan, 1.0], [1.0, 0.0]])])
    with pytest.raises(ValueError, match="Sequence 0 is empty"):
        to_strings(np.full((1, 2, 2), np.nan))
