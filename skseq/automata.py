"""Deterministic finite automata over a finite alphabet.

The :class:`DFA` class is the symbolic counterpart of the recurrent models in
this package: a state machine extracted from (or compared with) a trained
network can be represented, run on one-hot sequences, minimized and tested for
language equivalence.
"""

import json
from collections import deque

import numpy as np

from ._data import is_number
from ._data.names import distinct_texts

__all__ = ["DFA"]


def _bfs_order(transitions, start):
    """States reachable from ``start``, in breadth-first order.

    Successors are visited in symbol-index order, so the order depends only on
    the shape of the machine, not on how its states happen to be numbered.
    """
    rows = transitions.tolist()
    seen = {start}
    order = [start]
    queue = deque(order)
    while queue:
        for nxt in rows[queue.popleft()]:
            if nxt not in seen:
                seen.add(nxt)
                order.append(nxt)
                queue.append(nxt)
    return order


def _symbol_texts(alphabet):
    """The symbols as they appear in edge labels: each as its str, or, where
    another symbol prints the same (``1`` and ``"1"``), as its repr
    (:func:`~skseq._data.names.distinct_texts`); JSON-quoted when it could be
    misread (a comma, quote or backslash, outer spaces, control characters,
    or nothing at all)."""
    return [text if (text and text == text.strip() and text.isprintable()
                     and not any(c in text for c in ',"\\'))
            else json.dumps(text, ensure_ascii=False)
            for text in distinct_texts(alphabet)]


def _read_only(array):
    array.setflags(write=False)
    return array


def _unequal_to_itself(symbol):
    """Whether ``symbol != symbol`` (a NaN), so that no input matches it."""
    try:
        return bool(symbol != symbol)
    except (TypeError, ValueError):
        return False


def _in_alphabet(symbol, alphabet):
    """Whether ``symbol`` is one of the alphabet's symbols (not an index)."""
    try:
        return bool(symbol in alphabet)
    except (TypeError, ValueError):  # e.g. an array compared element-wise
        return False


class DFA:
    """Complete deterministic finite automaton.

    Every state has exactly one outgoing transition per symbol, so a rejecting
    sink ("dead") state counts as a state like any other.

    Parameters
    ----------
    n_states : int
        Number of states, at least 1. States are the integers
        ``0, ..., n_states - 1``.
    alphabet : sequence of hashable
        Symbol labels, e.g. ``["0", "1"]``. Its length is the number of
        symbols; symbol ``a`` in :meth:`accepts` and column ``a`` of the
        one-hot inputs of :meth:`predict` stand for ``alphabet[a]``.
    transitions : array-like of int, shape (n_states, n_symbols)
        ``transitions[q, a]`` is the state reached from state ``q`` on symbol
        index ``a``. Integral-valued floats are accepted.
    start : int, default=0
        Initial state.
    accepting : iterable of int or array-like of bool, default=()
        Accepting states, given either as state indices or as a boolean mask
        of length ``n_states``.

    Attributes
    ----------
    n_states : int
        Number of states.
    alphabet : tuple
        Symbol labels.
    transitions : ndarray of int64, shape (n_states, n_symbols)
        Read-only transition table.
    start : int
        Initial state.
    accepting : ndarray of bool, shape (n_states,)
        Read-only mask of accepting states.

    Examples
    --------
    Strings over ``{0, 1}`` with an even number of ``1``, written with a
    redundant third state that behaves like state 0:

    >>> import numpy as np
    >>> from skseq.automata import DFA
    >>> dfa = DFA(3, ["0", "1"], [[0, 1], [1, 2], [2, 1]], start=0,
    ...           accepting=[0, 2])
    >>> dfa.accepts([1, 0, 1])
    True
    >>> dfa.accepts([1, 1, 1])
    False
    >>> dfa.minimize()
    DFA(n_states=2, alphabet=('0', '1'), transitions=[[0, 1], [1, 0]], start=0, \
accepting=[0])
    >>> dfa.is_equivalent(dfa.minimize())
    True

    :meth:`predict` runs one-hot encoded sequences:

    >>> onehot = np.eye(2)
    >>> dfa.predict([onehot[[1, 0, 1]], onehot[[1]], onehot[[]]])
    array([1, 0, 1])
    """

    def __init__(self, n_states, alphabet, transitions, start=0, accepting=()):
        if not is_number(n_states, integral=True):
            raise TypeError(f"n_states must be an integer, got {n_states!r}")
        if n_states < 1:
            raise ValueError(f"n_states must be >= 1, got {n_states}")
        self.n_states = int(n_states)
        self.alphabet = self._check_alphabet(alphabet)
        self.transitions = self._check_transitions(transitions)
        if not is_number(start, integral=True):
            raise TypeError(f"start must be an integer state, got {start!r}")
        if not 0 <= start < self.n_states:
            raise ValueError(
                f"start = {start} is not a state (n_states={self.n_states})"
            )
        self.start = int(start)
        self.accepting = self._check_accepting(accepting)

    @staticmethod
    def _check_alphabet(alphabet):
        # Sets have no reliable order, and the order defines the symbol indices.
        if isinstance(alphabet, (set, frozenset, dict)):
            raise TypeError(
                "alphabet must be an ordered sequence of symbols, got "
                f"{type(alphabet).__name__}"
            )
        try:
            alphabet = tuple(alphabet)
        except TypeError:
            raise TypeError(
                f"alphabet must be a sequence of symbols, got {alphabet!r}"
            ) from None
        if not alphabet:
            raise ValueError("alphabet is empty; a DFA needs at least one symbol")
        first_seen = {}
        for i, symbol in enumerate(alphabet):
            try:
                j = first_seen.setdefault(symbol, i)
            except TypeError:
                raise TypeError(f"alphabet[{i}] = {symbol!r} is not hashable") from None
            if _unequal_to_itself(symbol):
                raise ValueError(
                    f"alphabet[{i}] = {symbol!r} is not equal to itself (NaN): no "
                    "input could ever be read as it; use another symbol")
            if j != i:
                raise ValueError(
                    f"alphabet has duplicate symbol {symbol!r} at positions {j} and {i}"
                )
        return alphabet

    def _check_transitions(self, transitions):
        shape = (self.n_states, len(self.alphabet))
        try:
            table = np.asarray(transitions)
        except ValueError as exc:  # ragged nested sequences
            raise ValueError(
                "transitions must be a rectangular array of shape "
                f"(n_states, n_symbols) = {shape}: {exc}"
            ) from None
        if table.shape != shape:
            raise ValueError(
                f"transitions has shape {table.shape}, expected "
                f"(n_states, n_symbols) = {shape}"
            )
        if table.dtype == object:
            for pos, value in np.ndenumerate(table):
                if not is_number(value, integral=True):
                    raise TypeError(
                        f"transitions[{pos[0]}, {pos[1]}] = {value!r} is not an "
                        "integer state"
                    )
        elif table.dtype.kind == "f":
            integral = np.isfinite(table) & (table == np.round(table))
            if not integral.all():
                q, a = np.argwhere(~integral)[0]
                raise ValueError(
                    f"transitions[{q}, {a}] = {table[q, a]} is not an integer state"
                )
        elif table.dtype.kind not in "iu":
            raise TypeError(
                f"transitions must hold integer states, got dtype {table.dtype}"
            )
        # Compare on the original dtype so that huge unsigned values cannot
        # wrap around into range during the int64 cast.
        outside = (table < 0) | (table >= self.n_states)
        if outside.any():
            q, a = np.argwhere(outside)[0]
            raise ValueError(
                f"transitions[{q}, {a}] = {table[q, a]} is not a state "
                f"(n_states={self.n_states})"
            )
        return _read_only(table.astype(np.int64))

    def _check_accepting(self, accepting):
        if isinstance(accepting, np.ndarray) and accepting.dtype == bool:
            return self._check_mask(accepting)
        try:
            items = list(accepting)
        except TypeError:
            raise TypeError(
                "accepting must be an iterable of states or a boolean mask, "
                f"got {accepting!r}"
            ) from None
        is_bool = [isinstance(x, (bool, np.bool_)) for x in items]
        if items and all(is_bool):
            return self._check_mask(np.asarray(items, dtype=bool))
        if any(is_bool):
            raise TypeError(
                "accepting mixes booleans and state indices; give either a "
                "boolean mask or a list of states"
            )
        mask = np.zeros(self.n_states, dtype=bool)
        for i, state in enumerate(items):
            if not is_number(state, integral=True):
                raise TypeError(f"accepting[{i}] = {state!r} is not an integer")
            if not 0 <= state < self.n_states:
                raise ValueError(
                    f"accepting[{i}] = {state} is not a state "
                    f"(n_states={self.n_states})"
                )
            mask[state] = True
        return _read_only(mask)

    def _check_mask(self, mask):
        if mask.shape != (self.n_states,):
            raise ValueError(
                f"accepting mask has shape {mask.shape}, expected "
                f"(n_states,) = ({self.n_states},)"
            )
        return _read_only(mask.copy())

    def __repr__(self):
        return (
            f"DFA(n_states={self.n_states}, alphabet={self.alphabet!r}, "
            f"transitions={self.transitions.tolist()!r}, start={self.start}, "
            f"accepting={np.flatnonzero(self.accepting).tolist()!r})"
        )

    def __reduce__(self):
        # Rebuild through __init__ so the arrays come back read-only.
        return (
            type(self),
            (
                self.n_states,
                self.alphabet,
                self.transitions,
                self.start,
                self.accepting,
            ),
        )

    def accepts(self, symbols):
        """Whether the automaton accepts a string of symbol indices.

        Parameters
        ----------
        symbols : iterable of int
            Symbol indices in ``range(len(alphabet))``.

        Returns
        -------
        accepted : bool
            ``True`` if the run from :attr:`start` ends in an accepting
            state. The empty string is accepted iff the start state is.
        """
        n_symbols = len(self.alphabet)
        state = self.start
        for i, symbol in enumerate(symbols):
            if not is_number(symbol, integral=True) or not 0 <= symbol < n_symbols:
                hint = ""
                if _in_alphabet(symbol, self.alphabet):
                    hint = (f"; it is a symbol of the alphabet {self.alphabet}: "
                            "pass indices, [dfa.alphabet.index(s) for s in "
                            "string]")
                raise ValueError(
                    f"symbols[{i}] = {symbol!r} is not a symbol index in "
                    f"range({n_symbols}){hint}"
                )
            state = self.transitions[state, symbol]
        return bool(self.accepting[state])

    def predict(self, X):
        """Accept (1) or reject (0) each of a collection of one-hot sequences.

        Parameters
        ----------
        X : list of array-like of shape (len_i, n_symbols), or ndarray of \
shape (n_sequences, max_len, n_symbols)
            One-hot encoded sequences; the symbol at each step is the argmax of
            its row. A 3-D array holds sequences of different lengths padded
            at the end with all-NaN rows. ``n_symbols`` must equal
            ``len(alphabet)``.

        Returns
        -------
        y : ndarray of int64, shape (n_sequences,)
            1 where the sequence is accepted, 0 where it is rejected.
        """
        if isinstance(X, np.ndarray):
            symbols, lengths = self._encode_padded(X)
        else:
            symbols, lengths = self._encode_list(X)
        # One vectorized step per time index over all still-running sequences.
        state = np.full(len(lengths), self.start, dtype=np.int64)
        for t in range(symbols.shape[1]):
            running = lengths > t
            state[running] = self.transitions[state[running], symbols[running, t]]
        return self.accepting[state].astype(np.int64)

    def _encode_padded(self, X):
        if X.ndim != 3:
            raise ValueError(
                f"X as an array must be 3-D (n_sequences, max_len, n_symbols), "
                f"got shape {X.shape}; pass a list to give separate sequences"
            )
        n_symbols = len(self.alphabet)
        if X.shape[2] != n_symbols:
            raise ValueError(
                f"every sequence X[i] has {X.shape[2]} columns (X.shape = "
                f"{X.shape}) but the alphabet has {n_symbols} symbols"
            )
        X = np.asarray(X, dtype=float)
        nan = np.isnan(X)
        real_row = ~nan.all(axis=2)
        steps = np.arange(1, X.shape[1] + 1)
        # Length = position of the last row that is not all-NaN padding.
        lengths = np.max(np.where(real_row, steps, 0), axis=1, initial=0)
        inside = steps <= lengths[:, None]
        bad = nan.any(axis=2) & inside
        if bad.any():
            i, t = np.argwhere(bad)[0]
            raise ValueError(
                f"X[{i}] has NaN at step {t}, inside the sequence; only all-NaN "
                "rows at the end count as padding"
            )
        return np.argmax(np.where(nan, -np.inf, X), axis=2), lengths

    def _encode_list(self, X):
        try:
            sequences = list(X)
        except TypeError:
            raise TypeError(
                "X must be a 3-D array or a list of 2-D one-hot arrays, got "
                f"{type(X).__name__}"
            ) from None
        n_symbols = len(self.alphabet)
        arrays = []
        for i, seq in enumerate(sequences):
            seq = np.asarray(seq, dtype=float)
            if seq.ndim != 2:
                raise ValueError(
                    f"X[{i}] has shape {seq.shape}; expected a 2-D one-hot array "
                    f"of shape (length, {n_symbols})"
                )
            if seq.shape[1] != n_symbols:
                raise ValueError(
                    f"X[{i}] has {seq.shape[1]} columns but the alphabet has "
                    f"{n_symbols} symbols"
                )
            nan_row = np.isnan(seq).any(axis=1)
            if nan_row.any():
                raise ValueError(
                    f"X[{i}] has NaN at step {np.argmax(nan_row)}; sequences "
                    "given as a list must not contain NaN"
                )
            arrays.append(seq)
        lengths = np.array([len(seq) for seq in arrays], dtype=np.int64)
        symbols = np.zeros((len(arrays), lengths.max(initial=0)), dtype=np.int64)
        if arrays:
            # Row-major boolean assignment fills each sequence's prefix in order.
            inside = np.arange(symbols.shape[1]) < lengths[:, None]
            symbols[inside] = np.concatenate(arrays).argmax(axis=1)
        return symbols, lengths

    def minimize(self):
        """Equivalent automaton with the fewest states.

        States unreachable from :attr:`start` are dropped, then equivalent
        states are merged by Moore's partition refinement: starting from the
        accepting / rejecting split, each state's block is refined by the
        blocks of its successors until the number of blocks stops growing.
        Each round is vectorized with numpy (a few sorts of ``n_states``
        integers per symbol). The number of rounds is bounded by the
        length of the longest chain of distinguishing suffixes: small for
        typical machines, up to ``n_states`` for a long counter, where the
        quadratic worst case of Moore's method (unlike Hopcroft's
        ``O(n k log n)``) shows.

        Returns
        -------
        dfa : DFA
            The minimal automaton, with states numbered in breadth-first order
            from the start state (start is 0, successors visited in alphabet
            order). Since the minimal DFA is unique up to renaming states, two
            equivalent automata minimize to identical ``transitions``, ``start``
            and ``accepting``.
        """
        reachable = np.array(_bfs_order(self.transitions, self.start))
        index = np.empty(self.n_states, dtype=np.int64)
        index[reachable] = np.arange(len(reachable))
        table = index[self.transitions[reachable]]
        accepting = self.accepting[reachable]

        n = len(reachable)
        kinds, block = np.unique(accepting, return_inverse=True)
        n_blocks = len(kinds)
        while True:
            # Number the distinct (block, successor blocks...) signatures one
            # column at a time; ids stay < n, so id * n + block cannot overflow.
            # Starting from the current block makes each round a refinement,
            # so an unchanged count means an unchanged partition.
            refined = block
            for successor in block[table].T:
                _, refined = np.unique(refined * n + successor, return_inverse=True)
            if refined.max() + 1 == n_blocks:
                break
            block, n_blocks = refined, refined.max() + 1

        _, representative = np.unique(block, return_index=True)
        quotient = block[table[representative]]
        # reachable[0] is the start state, so block[0] is the start block.
        order = np.array(_bfs_order(quotient, int(block[0])))
        rename = np.empty(n_blocks, dtype=np.int64)
        rename[order] = np.arange(n_blocks)
        return DFA(
            n_blocks,
            self.alphabet,
            rename[quotient[order]],
            start=0,
            accepting=accepting[representative[order]],
        )

    def is_equivalent(self, other):
        """Whether two automata accept exactly the same language.

        Explores the pairs of states reachable together in the product
        automaton, breadth-first from the pair of start states; the languages
        differ iff some reachable pair disagrees on acceptance.

        Parameters
        ----------
        other : DFA
            Automaton over the same alphabet.

        Returns
        -------
        equivalent : bool
        """
        if not isinstance(other, DFA):
            raise TypeError(f"other must be a DFA, got {type(other).__name__}")
        if self.alphabet != other.alphabet:
            raise ValueError(
                f"alphabets differ: {self.alphabet!r} vs {other.alphabet!r}"
            )
        # Pairs are coded as p * m + q; a set keeps memory proportional to the
        # reachable part of the product rather than to n_states * m.
        m = other.n_states
        seen = {self.start * m + other.start}
        p = np.array([self.start])
        q = np.array([other.start])
        while p.size:
            if np.any(self.accepting[p] != other.accepting[q]):
                return False
            successors = self.transitions[p] * m + other.transitions[q]
            frontier = [x for x in np.unique(successors).tolist() if x not in seen]
            seen.update(frontier)
            p, q = np.divmod(np.array(frontier, dtype=np.int64), m)
        return True

    def _edge_labels(self):
        """``{(from, to): label}``, the symbols of parallel transitions merged.

        The label lists the symbols in alphabet order, separated by commas; a
        symbol that holds a comma, a quote or a backslash (or is empty, has
        outer spaces or control characters) is written as a JSON string, and
        symbols that print the same (``1`` and ``"1"``) by their repr, so
        every label reads back unambiguously.
        """
        edges = {}
        texts = _symbol_texts(self.alphabet)
        for state, row in enumerate(self.transitions.tolist()):
            for target, text in zip(row, texts, strict=True):
                edges.setdefault((state, target), []).append(text)
        return {key: ",".join(symbols) for key, symbols in edges.items()}

    def to_dot(self):
        """Graphviz DOT source of the state diagram.

        Accepting states are drawn as double circles; an invisible node points
        at the start state; transitions between the same pair of states are
        merged into one edge labelled like ``"0,1"``. A symbol that contains a
        comma, a quote or a backslash (or is empty, has outer spaces or control
        characters) appears as a JSON string, e.g. ``"a,b",c`` for the symbols
        ``a,b`` and ``c``; the label is then escaped for DOT, so Graphviz shows
        it literally. Symbols that print the same appear as their reprs (and
        positions, where even these coincide): the alphabet ``[1, "1"]``
        labels its edges ``1`` and ``'1'``.

        Returns
        -------
        dot : str

        Examples
        --------
        >>> from skseq.automata import DFA
        >>> dfa = DFA(2, ["a", "b,c"], [[1, 0], [1, 1]], start=0, accepting=[1])
        >>> print(dfa.to_dot())  # doctest: +NORMALIZE_WHITESPACE
        digraph DFA {
            rankdir=LR;
            __start__ [shape=point, style=invis];
            0 [shape=circle];
            1 [shape=doublecircle];
            __start__ -> 0;
            0 -> 1 [label="a"];
            0 -> 0 [label="\\"b,c\\""];
            1 -> 1 [label="a,\\"b,c\\""];
        }
        """

        def quote(label):
            # In a DOT string only \" is an escape; a doubled backslash stays
            # two, which Graphviz's labels show as one (a lone one would start
            # an escape such as \n or \N).
            escaped = label.replace("\\", "\\\\").replace('"', '\\"')
            return f'"{escaped}"'

        lines = [
            "digraph DFA {",
            "    rankdir=LR;",
            "    __start__ [shape=point, style=invis];",
        ]
        for state, accepting in enumerate(self.accepting):
            shape = "doublecircle" if accepting else "circle"
            lines.append(f"    {state} [shape={shape}];")
        lines.append(f"    __start__ -> {self.start};")
        for (state, target), label in self._edge_labels().items():
            lines.append(f"    {state} -> {target} [label={quote(label)}];")
        lines.append("}")
        return "\n".join(lines) + "\n"
