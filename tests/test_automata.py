import itertools
import json
import pickle
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skseq.automata import DFA

BINARY = ["0", "1"]


def all_strings(max_len, symbols="01"):
    for n in range(max_len + 1):
        for chars in itertools.product(symbols, repeat=n):
            yield "".join(chars)


STRINGS_10 = list(all_strings(10))


def indices(s):
    return [int(c) for c in s]


def onehot(s, n_symbols=2):
    return np.eye(n_symbols)[indices(s)].reshape(len(s), n_symbols)


def tomita3(s):
    # Reject an odd run of 1s immediately followed by an odd run of 0s.
    runs = [(c, len(list(g))) for c, g in itertools.groupby(s)]
    return not any(
        a == "1" and b == "0" and m % 2 and n % 2
        for (a, m), (b, n) in itertools.pairwise(runs)
    )


# name -> (predicate, hand-built minimal machine, known minimal size)
TOMITA = {
    "1*": (
        lambda s: set(s) <= {"1"},
        DFA(2, BINARY, [[1, 0], [1, 1]], 0, [0]),
        2,
    ),
    "(10)*": (
        lambda s: s == "10" * (len(s) // 2),
        DFA(3, BINARY, [[2, 1], [0, 2], [2, 2]], 0, [0]),
        3,
    ),
    "tomita3": (
        tomita3,
        DFA(5, BINARY, [[0, 1], [2, 0], [3, 4], [2, 1], [4, 4]], 0, [0, 1, 3]),
        5,
    ),
    "no 000": (
        lambda s: "000" not in s,
        DFA(4, BINARY, [[1, 0], [2, 0], [3, 0], [3, 3]], 0, [0, 1, 2]),
        4,
    ),
    "even 0s and 1s": (
        lambda s: s.count("0") % 2 == 0 and s.count("1") % 2 == 0,
        DFA(4, BINARY, [[2, 1], [3, 0], [0, 3], [1, 2]], 0, [0]),
        4,
    ),
    "#0-#1 = 0 mod 3": (
        lambda s: (s.count("0") - s.count("1")) % 3 == 0,
        DFA(3, BINARY, [[1, 2], [2, 0], [0, 1]], 0, [0]),
        3,
    ),
    "0*1*0*1*": (
        lambda s: re.fullmatch("0*1*0*1*", s) is not None,
        DFA(5, BINARY, [[0, 1], [2, 1], [2, 3], [4, 3], [4, 4]], 0, [0, 1, 2, 3]),
        5,
    ),
}


def relabel(dfa, perm):
    """Same machine with state q renamed perm[q]."""
    perm = np.asarray(perm)
    table = np.empty_like(dfa.transitions)
    table[perm] = perm[dfa.transitions]
    mask = np.empty_like(dfa.accepting)
    mask[perm] = dfa.accepting
    return DFA(dfa.n_states, dfa.alphabet, table, perm[dfa.start], mask)


def inflate(dfa, copies, n_unreachable, seed):
    """Equivalent machine with duplicated, unreachable and shuffled states."""
    rng = np.random.default_rng(seed)
    n, k = dfa.transitions.shape
    n_live = n * copies
    total = n_live + n_unreachable
    table = np.empty((total, k), dtype=np.int64)
    mask = np.empty(total, dtype=bool)
    for q, c, a in itertools.product(range(n), range(copies), range(k)):
        # Copy c of q moves to another copy of the target: same language.
        table[q * copies + c, a] = dfa.transitions[q, a] * copies + (c + a + 1) % copies
        mask[q * copies + c] = dfa.accepting[q]
    # Unreachable states may point anywhere; nothing points to them.
    table[n_live:] = rng.integers(0, total, size=(n_unreachable, k))
    mask[n_live:] = rng.random(n_unreachable) < 0.5
    redundant = DFA(total, dfa.alphabet, table, dfa.start * copies, mask)
    return relabel(redundant, rng.permutation(total))


def assert_language(dfa, predicate, strings=STRINGS_10):
    for s in strings:
        assert dfa.accepts(indices(s)) == predicate(s), s


def assert_same_arrays(a, b):
    assert a.n_states == b.n_states
    assert a.start == b.start == 0
    np.testing.assert_array_equal(a.transitions, b.transitions)
    np.testing.assert_array_equal(a.accepting, b.accepting)


@st.composite
def dfas(draw, max_states, min_symbols=1, max_symbols=2):
    n = draw(st.integers(1, max_states))
    k = draw(st.integers(min_symbols, max_symbols))
    table = draw(
        st.lists(
            st.lists(st.integers(0, n - 1), min_size=k, max_size=k),
            min_size=n,
            max_size=n,
        )
    )
    mask = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    start = draw(st.integers(0, n - 1))
    return DFA(n, [str(a) for a in range(k)], table, start, mask)


# --- languages and minimization ---------------------------------------------


@pytest.mark.parametrize("name", TOMITA)
def test_tomita_machines_accept_their_language(name):
    predicate, dfa, size = TOMITA[name]
    assert_language(dfa, predicate)
    assert dfa.minimize().n_states == size == dfa.n_states


@pytest.mark.parametrize("name", TOMITA)
@pytest.mark.parametrize("copies, n_unreachable, seed", [(2, 3, 0), (3, 5, 1)])
def test_minimize_redundant_tomita(name, copies, n_unreachable, seed):
    predicate, minimal, size = TOMITA[name]
    redundant = inflate(minimal, copies, n_unreachable, seed)
    assert redundant.n_states == size * copies + n_unreachable
    assert_language(redundant, predicate)

    reduced = redundant.minimize()
    assert reduced.n_states == size
    assert reduced.is_equivalent(redundant)
    assert redundant.is_equivalent(reduced)
    assert reduced.is_equivalent(minimal)
    assert_language(reduced, predicate)
    # Canonical numbering: any equivalent machine minimizes to the same arrays.
    assert_same_arrays(reduced, minimal.minimize())


def test_counter_mod_12_reduces_to_mod_3():
    table = [[(d + 1) % 12, (d - 1) % 12] for d in range(12)]
    counter = DFA(12, BINARY, table, 0, [d for d in range(12) if d % 3 == 0])
    predicate, minimal, _ = TOMITA["#0-#1 = 0 mod 3"]
    assert_language(counter, predicate)
    reduced = counter.minimize()
    assert reduced.n_states == 3
    assert_language(reduced, predicate)
    assert_same_arrays(reduced, minimal.minimize())


def test_parity_counters_mod_4_reduce_to_4_states():
    # State 4 * (#0 mod 4) + (#1 mod 4).
    table = [
        [4 * ((s // 4 + 1) % 4) + s % 4, 4 * (s // 4) + (s % 4 + 1) % 4]
        for s in range(16)
    ]
    mask = [s // 4 % 2 == 0 and s % 4 % 2 == 0 for s in range(16)]
    counters = DFA(16, BINARY, table, 0, mask)
    predicate, minimal, _ = TOMITA["even 0s and 1s"]
    assert_language(counters, predicate)
    reduced = counters.minimize()
    assert reduced.n_states == 4
    assert_same_arrays(reduced, minimal.minimize())


def test_window_machine_for_no_000():
    # States remember the last (up to) three symbols, plus a dead state.
    windows = list(all_strings(3))
    dead = len(windows)
    table = []
    for w in windows:
        row = []
        for c in "01":
            longer = w + c
            row.append(dead if "000" in longer else windows.index(longer[-3:]))
        table.append(row)
    table.append([dead, dead])
    machine = DFA(len(windows) + 1, BINARY, table, 0, range(len(windows)))
    predicate, minimal, _ = TOMITA["no 000"]
    assert_language(machine, predicate)
    reduced = machine.minimize()
    assert reduced.n_states == 4
    assert_same_arrays(reduced, minimal.minimize())


def test_minimize_drops_unreachable_states():
    # States 2 and 3 are unreachable and distinguishable from everything.
    dfa = DFA(4, BINARY, [[0, 1], [1, 0], [3, 3], [2, 2]], 0, [0, 2])
    reduced = dfa.minimize()
    assert reduced.n_states == 2
    assert reduced.is_equivalent(dfa)


def test_minimize_canonical_breadth_first_numbering():
    predicate, minimal, _ = TOMITA["no 000"]
    shuffled = relabel(minimal, [3, 1, 0, 2])
    assert shuffled.start == 3
    reduced = shuffled.minimize()
    # Start 0; "0" leads to 1, "00" to 2, "000" to the dead state 3.
    assert reduced.transitions.tolist() == [[1, 0], [2, 0], [3, 0], [3, 3]]
    assert reduced.accepting.tolist() == [True, True, True, False]
    assert reduced.alphabet == ("0", "1")


@pytest.mark.parametrize("name", TOMITA)
def test_minimize_is_idempotent(name):
    once = inflate(TOMITA[name][1], 2, 4, 7).minimize()
    assert_same_arrays(once.minimize(), once)


def test_minimize_single_state_and_all_equivalent_states():
    assert DFA(1, ["a"], [[0]], 0, [0]).minimize().n_states == 1
    everything = DFA(3, BINARY, [[1, 2], [2, 0], [0, 1]], 1, [0, 1, 2])
    reduced = everything.minimize()
    assert reduced.n_states == 1
    assert reduced.transitions.tolist() == [[0, 0]]
    assert reduced.accepting.tolist() == [True]


@settings(max_examples=40, deadline=None)
@given(dfas(max_states=6, max_symbols=2))
def test_minimize_size_matches_myhill_nerode(dfa):
    # Reachable states need prefixes of length < n and distinguishable ones
    # are told apart by suffixes of length < n, so the number of distinct
    # residual rows is the number of Myhill-Nerode classes.
    k = len(dfa.alphabet)
    words = [
        list(w)
        for n in range(dfa.n_states)
        for w in itertools.product(range(k), repeat=n)
    ]
    rows = {tuple(dfa.accepts(p + s) for s in words) for p in words}
    reduced = dfa.minimize()
    assert reduced.n_states == len(rows)
    for w in words:
        assert reduced.accepts(w) == dfa.accepts(w)


@settings(max_examples=40, deadline=None)
@given(dfas(max_states=7, max_symbols=3), st.randoms(use_true_random=False))
def test_minimize_is_invariant_to_state_names(dfa, rnd):
    perm = list(range(dfa.n_states))
    rnd.shuffle(perm)
    assert_same_arrays(relabel(dfa, perm).minimize(), dfa.minimize())
    assert dfa.is_equivalent(dfa.minimize())


# --- equivalence -------------------------------------------------------------


def test_is_equivalent_detects_a_single_differing_string():
    ones = TOMITA["1*"][1]
    # 1* without "111": count 1s up to 4 (state 3 = exactly three), 5 dead.
    table = [[5, 1], [5, 2], [5, 3], [5, 4], [5, 4], [5, 5]]
    without_111 = DFA(6, BINARY, table, 0, [0, 1, 2, 4])
    differing = [
        s
        for s in STRINGS_10
        if ones.accepts(indices(s)) != without_111.accepts(indices(s))
    ]
    assert differing == ["111"]
    assert not ones.is_equivalent(without_111)
    assert not without_111.is_equivalent(ones)


def test_is_equivalent_finds_long_counterexample():
    everything = DFA(1, BINARY, [[0, 0]], 0, [0])
    # Accept every string except those of length exactly 9.
    table = [[min(i + 1, 10)] * 2 for i in range(11)]
    not_nine = DFA(11, BINARY, table, 0, [i != 9 for i in range(11)])
    assert not everything.is_equivalent(not_nine)
    assert not_nine.is_equivalent(inflate(not_nine, 2, 3, 5))


@settings(max_examples=60, deadline=None)
@given(dfas(max_states=3, min_symbols=2), dfas(max_states=3, min_symbols=2))
def test_is_equivalent_matches_brute_force(a, b):
    # The product has at most 9 states, so a difference shows by length 8.
    words = [indices(s) for s in all_strings(8)]
    expected = all(a.accepts(w) == b.accepts(w) for w in words)
    assert a.is_equivalent(b) == expected == b.is_equivalent(a)


@settings(max_examples=60, deadline=None)
@given(dfas(max_states=6, min_symbols=2), st.data())
def test_is_equivalent_after_flipping_one_state(a, data):
    flip = data.draw(st.integers(0, a.n_states - 1))
    mask = a.accepting.copy()
    mask[flip] = not mask[flip]
    b = DFA(a.n_states, a.alphabet, a.transitions, a.start, mask)
    # The languages differ exactly on the strings ending in the flipped state,
    # which, if reachable at all, is reached by a string shorter than n_states.
    words = [indices(s) for s in all_strings(a.n_states - 1)]
    expected = all(a.accepts(w) == b.accepts(w) for w in words)
    assert a.is_equivalent(b) == expected == b.is_equivalent(a)


def test_is_equivalent_requires_same_alphabet_and_a_dfa():
    dfa = TOMITA["1*"][1]
    other = DFA(2, ["a", "b"], dfa.transitions, 0, [0])
    with pytest.raises(ValueError, match="alphabets differ"):
        dfa.is_equivalent(other)
    with pytest.raises(TypeError, match="must be a DFA"):
        dfa.is_equivalent("1*")


# --- running ------------------------------------------------------------------


def test_accepts_empty_string_uses_start_state():
    assert DFA(2, BINARY, [[1, 1], [1, 1]], 0, [0]).accepts([])
    assert not DFA(2, BINARY, [[1, 1], [1, 1]], 0, [1]).accepts(iter([]))


def test_accepts_numpy_and_generator_input():
    predicate, dfa, _ = TOMITA["no 000"]
    assert dfa.accepts(np.array([0, 0, 1, 0, 0]))
    assert not dfa.accepts(int(c) for c in "1000")


@pytest.mark.parametrize(
    "bad, pos", [([0, 1, 2], 2), ([0, -1], 1), ([1.0], 0), (["1"], 0)]
)
def test_accepts_rejects_bad_symbols(bad, pos):
    dfa = TOMITA["1*"][1]
    with pytest.raises(ValueError, match=rf"symbols\[{pos}\]"):
        dfa.accepts(bad)


def test_accepts_symbols_by_name_says_to_pass_indices():
    dfa = DFA(3, ["a", "b"], [[1, 0], [1, 2], [2, 2]], 0, [2])
    with pytest.raises(ValueError, match=r"symbols\[0\] = 'a' .*alphabet "
                       r"\('a', 'b'\): pass indices, \[dfa\.alphabet\.index"):
        dfa.accepts("ab")
    assert dfa.accepts([dfa.alphabet.index(s) for s in "ab"])


def test_accepts_rejects_bool_symbol():
    with pytest.raises(ValueError, match=r"symbols\[0\] = True"):
        TOMITA["1*"][1].accepts([True])


@pytest.mark.parametrize("name", TOMITA)
def test_predict_list_and_padded_array_agree(name):
    predicate, minimal, _ = TOMITA[name]
    dfa = inflate(minimal, 2, 2, 3)
    rng = np.random.default_rng(0)
    strings = [""] + [
        "".join(rng.choice(["0", "1"], size=n)) for n in rng.integers(0, 12, 60)
    ]
    expected = np.array([predicate(s) for s in strings], dtype=np.int64)

    as_list = dfa.predict([onehot(s) for s in strings])
    padded = np.full((len(strings), 11, 2), np.nan)
    for i, s in enumerate(strings):
        padded[i, : len(s)] = onehot(s)
    as_array = dfa.predict(padded)

    assert as_list.dtype == as_array.dtype == np.int64
    assert as_list.shape == (len(strings),)
    np.testing.assert_array_equal(as_list, expected)
    np.testing.assert_array_equal(as_array, expected)


def test_predict_all_strings_up_to_length_10():
    predicate, dfa, _ = TOMITA["tomita3"]
    padded = np.full((len(STRINGS_10), 10, 2), np.nan)
    for i, s in enumerate(STRINGS_10):
        padded[i, : len(s)] = onehot(s)
    expected = [int(predicate(s)) for s in STRINGS_10]
    assert dfa.predict(padded).tolist() == expected


def test_predict_uses_argmax_of_soft_rows_and_int_arrays():
    dfa = TOMITA["1*"][1]
    soft = np.array([[0.2, 0.8], [0.4, 0.6]])
    assert dfa.predict([soft, soft[:, ::-1]]).tolist() == [1, 0]
    assert dfa.predict([np.array([[0, 1], [0, 1]])]).tolist() == [1]
    assert dfa.predict(np.array([[[0, 1]], [[1, 0]]])).tolist() == [1, 0]


def test_predict_empty_inputs():
    dfa = TOMITA["1*"][1]
    assert dfa.predict([]).shape == (0,)
    assert dfa.predict(np.zeros((0, 4, 2))).shape == (0,)
    assert dfa.predict(np.zeros((2, 0, 2))).tolist() == [1, 1]
    assert dfa.predict(np.full((1, 3, 2), np.nan)).tolist() == [1]
    assert dfa.predict([np.zeros((0, 2))]).tolist() == [1]


def test_predict_validation():
    dfa = TOMITA["1*"][1]
    good = onehot("11")
    with pytest.raises(ValueError, match=r"X\[1\] has 3 columns"):
        dfa.predict([good, np.eye(3)])
    with pytest.raises(ValueError, match="3 columns"):
        dfa.predict(np.zeros((2, 4, 3)))
    with pytest.raises(ValueError, match=r"X\[1\] has shape \(2,\)"):
        dfa.predict([good, [0, 1]])
    with pytest.raises(ValueError, match="must be 3-D"):
        dfa.predict(good)
    with pytest.raises(ValueError, match=r"X\[0\] has NaN at step 1"):
        dfa.predict([np.array([[0, 1], [np.nan, 1]])])
    with pytest.raises(TypeError, match="X must be"):
        dfa.predict(5)

    padded = np.full((3, 4, 2), np.nan)
    padded[0, :2] = good
    padded[2, :3] = onehot("101")
    padded[2, 1, 0] = np.nan  # half-NaN row inside sequence 2
    with pytest.raises(ValueError, match=r"X\[2\] has NaN at step 1"):
        dfa.predict(padded)
    padded[2, 1] = np.nan  # an all-NaN row followed by data is not padding
    with pytest.raises(ValueError, match=r"X\[2\] has NaN at step 1"):
        dfa.predict(padded)


# --- construction and validation ---------------------------------------------


def test_attributes_are_normalized_and_read_only():
    dfa = DFA(
        np.int64(3),
        "ab",
        np.array([[0, 1], [2, 2], [1, 0]], dtype=np.uint8),
        np.int32(1),
        {2},
    )
    assert dfa.n_states == 3 and type(dfa.n_states) is int
    assert dfa.start == 1 and type(dfa.start) is int
    assert dfa.alphabet == ("a", "b")
    assert dfa.transitions.dtype == np.int64
    assert dfa.accepting.dtype == bool
    assert dfa.accepting.tolist() == [False, False, True]
    with pytest.raises(ValueError, match="read-only"):
        dfa.transitions[0, 0] = 1
    with pytest.raises(ValueError, match="read-only"):
        dfa.accepting[0] = True


def test_inputs_are_copied():
    table = np.array([[0, 1], [1, 0]])
    mask = np.array([True, False])
    dfa = DFA(2, BINARY, table, 0, mask)
    table[0, 0] = 1
    mask[1] = True
    assert dfa.transitions.tolist() == [[0, 1], [1, 0]]
    assert dfa.accepting.tolist() == [True, False]


def test_accepting_as_mask_or_indices_and_float_table():
    by_mask = DFA(3, BINARY, np.zeros((3, 2)), 0, [True, False, True])
    by_array_mask = DFA(3, BINARY, np.zeros((3, 2)), 0, np.array([1, 0, 1], dtype=bool))
    by_index = DFA(3, BINARY, [[0, 0]] * 3, 0, (2, 0, 2))
    for dfa in (by_mask, by_array_mask, by_index):
        assert dfa.accepting.tolist() == [True, False, True]
        assert dfa.transitions.dtype == np.int64
    assert DFA(3, BINARY, [[0, 0]] * 3, 0, np.array([0, 2])).accepting.tolist() == [
        True,
        False,
        True,
    ]
    assert not DFA(1, BINARY, [[0, 0]]).accepting.any()


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"n_states": 0}, ValueError, "n_states must be >= 1"),
        ({"n_states": 2.0}, TypeError, "n_states must be an integer"),
        ({"n_states": True}, TypeError, "n_states must be an integer"),
        ({"alphabet": []}, ValueError, "alphabet is empty"),
        (
            {"alphabet": ["0", "1", "0"]},
            ValueError,
            "duplicate symbol '0' at positions 0 and 2",
        ),
        ({"alphabet": {"0", "1"}}, TypeError, "ordered sequence"),
        (
            {"alphabet": [float("nan"), float("nan")]},
            ValueError,
            r"alphabet\[0\] = nan is not equal to itself",
        ),
        ({"alphabet": 2}, TypeError, "alphabet must be a sequence"),
        (
            {"alphabet": [["0"], ["1"]]},
            TypeError,
            r"alphabet\[0\] = \['0'\] is not hashable",
        ),
        (
            {"transitions": [[0, 1], [1, 0]]},
            ValueError,
            r"shape \(2, 2\), expected .* \(3, 2\)",
        ),
        ({"transitions": [[0, 1], [1], [0, 0]]}, ValueError, "rectangular"),
        (
            {"transitions": [[0, 1], [2, 7], [0, 0]]},
            ValueError,
            r"transitions\[1, 1\] = 7 is not a state \(n_states=3\)",
        ),
        (
            {"transitions": [[0, -1], [2, 2], [0, 0]]},
            ValueError,
            r"transitions\[0, 1\] = -1 is not a state",
        ),
        (
            {"transitions": [[0, 1], [2, 2], [0.5, 0]]},
            ValueError,
            r"transitions\[2, 0\] = 0.5 is not an integer",
        ),
        (
            {"transitions": [[0, 1], [2, 2], [np.nan, 0]]},
            ValueError,
            r"transitions\[2, 0\] = nan is not an integer",
        ),
        (
            {"transitions": [["0", "1"], ["2", "2"], ["0", "0"]]},
            TypeError,
            "integer states, got dtype <U1",
        ),
        ({"transitions": [[True, False]] * 3}, TypeError, "got dtype bool"),
        (
            {"transitions": np.array([[0, 1], [2, None], [0, 0]], dtype=object)},
            TypeError,
            r"transitions\[1, 1\] = None",
        ),
        ({"start": 3}, ValueError, r"start = 3 is not a state \(n_states=3\)"),
        ({"start": -1}, ValueError, "start = -1 is not a state"),
        ({"start": "0"}, TypeError, "start must be an integer"),
        (
            {"accepting": [0, 5]},
            ValueError,
            r"accepting\[1\] = 5 is not a state \(n_states=3\)",
        ),
        ({"accepting": [1.0]}, TypeError, r"accepting\[0\] = 1.0 is not an integer"),
        ({"accepting": [True, False]}, ValueError, r"mask has shape \(2,\), expected"),
        ({"accepting": [True, 2]}, TypeError, "mixes booleans"),
        ({"accepting": 2}, TypeError, "accepting must be an iterable"),
        (
            {"accepting": np.zeros((3, 1), dtype=bool)},
            ValueError,
            r"mask has shape \(3, 1\)",
        ),
    ],
)
def test_validation_errors(kwargs, error, message):
    params = {
        "n_states": 3,
        "alphabet": BINARY,
        "transitions": [[0, 1], [2, 2], [0, 0]],
        "start": 0,
        "accepting": [2],
    }
    params.update(kwargs)
    with pytest.raises(error, match=message):
        DFA(**params)


# --- output and serialization -------------------------------------------------


def test_to_dot():
    dfa = TOMITA["no 000"][1]
    dot = dfa.to_dot()
    assert dot.startswith("digraph")
    for q in range(dfa.n_states):
        assert f"    {q} [shape=" in dot
    assert dot.count("doublecircle") == 3
    assert "__start__ -> 0;" in dot
    assert "style=invis" in dot
    assert '0 -> 1 [label="0"];' in dot
    # Parallel edges of the dead state are merged, labels in alphabet order.
    assert '3 -> 3 [label="0,1"];' in dot
    assert dot.count("->") == 1 + 7


def _dot_labels(dot):
    r"""Edge labels of ``to_dot`` output as Graphviz shows them: the quoted
    string as DOT's lexer reads it (only \" is an escape; \\ stays a pair), then
    the label's own escapes (\\ shows as one backslash). Fails on invalid text."""
    edge = re.compile(r'^    (\d+) -> (\d+) \[label="((?:[^"\\]|\\.)*)"\];$')
    labels = {}
    for line in dot.splitlines():
        if "->" not in line or line.startswith("    __start__"):
            continue
        match = edge.match(line)
        assert match, f"not a valid DOT edge statement: {line!r}"
        raw = match.group(3)
        # Every backslash is doubled or escapes a quote: no \n, \N, ... is left
        # for Graphviz to interpret.
        assert re.fullmatch(r'(?:[^\\]|\\[\\"])*', raw), raw
        shown = re.sub(r'\\([\\"])', r"\1", raw)
        labels[int(match.group(1)), int(match.group(2))] = shown
    return labels


def _split_symbols(label):
    """Symbols of a shown label: comma-separated, JSON strings where quoted."""
    decoder, symbols, i = json.JSONDecoder(), [], 0
    while True:
        if label.startswith('"', i):
            symbol, i = decoder.raw_decode(label, i)
        else:
            end = label.find(",", i)
            end = len(label) if end < 0 else end
            symbol, i = label[i:end], end
        symbols.append(symbol)
        if i == len(label):
            return symbols
        assert label[i] == ","
        i += 1


@pytest.mark.parametrize("alphabet", [
    ["0", "1", "2"],
    ["a,b", "c", "d"],
    ['say "hi"', "a\\b", "\\"],
    [",", '","', ""],
    [" x", "tab\there", "new\nline"],
    ["\\N", "\\n", 'end\\'],
    ["$x$", "é,ü", "x"],
])
def test_to_dot_labels_are_valid_and_unambiguous(alphabet):
    # Edges merge the symbols 0 and 1 (0 -> 1), and all three (1 -> 1).
    dfa = DFA(2, alphabet, [[1, 1, 0], [1, 1, 1]], 0, [1])
    labels = _dot_labels(dfa.to_dot())
    assert set(labels) == {(0, 1), (0, 0), (1, 1)}
    assert _split_symbols(labels[0, 1]) == alphabet[:2]
    assert _split_symbols(labels[0, 0]) == alphabet[2:]
    assert _split_symbols(labels[1, 1]) == alphabet


def test_to_dot_tells_apart_symbols_that_print_the_same():
    # str(1) == str("1"): both showed as 1, e.g. the self-loop as "1,1"; the
    # symbols that collide are shown by their repr, the others as before
    dfa = DFA(2, [1, "1", "x"], [[1, 1, 0], [1, 1, 1]], 0, [1])
    labels = _dot_labels(dfa.to_dot())
    assert labels == {(0, 1): "1,'1'", (0, 0): "x", (1, 1): "1,'1',x"}
    # a repr that is another symbol's str: the position tells them apart
    dfa = DFA(1, [1, "1", "'1'"], [[0, 0, 0]], 0, [0])
    assert _dot_labels(dfa.to_dot()) == {
        (0, 0): "1,'1' (1),'1' (2)"}
    # without a collision a symbol keeps its str
    assert _dot_labels(DFA(1, [1, "2"], [[0, 0]]).to_dot()) == {(0, 0): "1,2"}


def test_pickle_round_trip():
    dfa = inflate(TOMITA["tomita3"][1], 2, 3, 0)
    clone = pickle.loads(pickle.dumps(dfa))
    assert isinstance(clone, DFA)
    assert clone.n_states == dfa.n_states and clone.start == dfa.start
    assert clone.alphabet == dfa.alphabet
    np.testing.assert_array_equal(clone.transitions, dfa.transitions)
    np.testing.assert_array_equal(clone.accepting, dfa.accepting)
    assert not clone.transitions.flags.writeable
    assert not clone.accepting.flags.writeable
    assert clone.is_equivalent(dfa)


def test_repr_round_trips():
    dfa = TOMITA["(10)*"][1]
    text = repr(dfa)
    assert text.startswith("DFA(n_states=3, alphabet=('0', '1')")
    clone = eval(text, {"DFA": DFA})
    assert_same_arrays(clone, dfa)
