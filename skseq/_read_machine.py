"""Reading a finite automaton off a fitted model of symbol strings.

Shared by :meth:`skseq.IOHMMClassifier.to_automaton` and
:meth:`skseq.DiscretizedRNNClassifier.extract_automaton`: the symbol labels, the
breadth-first table of a near-deterministic model, and the acceptance of the
empty string, which neither model is ever trained on.
"""

import numpy as np

from ._data import check_number
from .automata import DFA


def symbol_alphabet(estimator, alphabet):
    """The labels of a fitted model's one-hot input columns: ``alphabet``
    checked to have one per column, or the feature names, or "0", "1", ..."""
    n_symbols = estimator.n_features_in_
    if alphabet is None:
        names = getattr(estimator, "feature_names_in_", range(n_symbols))
        return [str(name) for name in names]
    if isinstance(alphabet, str) or not hasattr(alphabet, "__len__"):
        raise TypeError(f"alphabet must be a sequence of symbol labels, got "
                        f"{type(alphabet).__name__}.")
    if len(alphabet) != n_symbols:
        raise ValueError(
            f"alphabet has {len(alphabet)} symbols, but the model reads "
            f"{n_symbols} input columns (one per symbol, one-hot): give one label "
            "per column, in column order."
        )
    return alphabet


def check_threshold(value, name):
    """A probability threshold in [0, 1): NaN, negative or >= 1 is refused."""
    check_number(value, name, low=0, high=1, high_open=True,
                 where=" (the least probability a transition's most likely "
                 "successor must have; computed probabilities reach 1 only up "
                 "to rounding)")


def check_accept_empty(accept_empty):
    """``accept_empty`` is None (infer), True or False (a NumPy bool too; not
    1 or 0, which equal True and False but are counts elsewhere)."""
    if accept_empty is not None and not isinstance(accept_empty, bool | np.bool_):
        raise ValueError(
            f"accept_empty must be None, True or False, got {accept_empty!r}."
        )


def reachable_machine(trans, start, alphabet, min_proba):
    """The states reachable from ``start``, breadth-first over the symbols, and
    each one's most likely successor on every symbol (``trans[symbol, from,
    to]``), numbered in the order reached.

    Returns the model's state of every machine state and the machine's
    transition table; refuses a most likely successor below ``min_proba``.
    """
    ids, order, rows = {start: 0}, [start], []
    for state in order:  # breadth-first: `order` grows while we walk it
        row = []
        for k in range(trans.shape[0]):
            succ = int(np.argmax(trans[k, state]))
            if trans[k, state, succ] < min_proba:
                raise ValueError(
                    f"The model is not near-deterministic: from state {state} on "
                    f"symbol {alphabet[k]!r} its most likely successor has "
                    f"probability {trans[k, state, succ]:.3f} < "
                    f"min_proba={min_proba}."
                )
            if succ not in ids:
                ids[succ] = len(order)
                order.append(succ)
            row.append(ids[succ])
        rows.append(row)
    return order, rows


def with_start(alphabet, transitions, accepting, accept_empty):
    """The machine whose start state (state 0) accepts iff ``accept_empty``,
    every non-empty string keeping its acceptance.

    State 0 is relabelled if no string returns to it; otherwise a new start
    state, with state 0's transitions, goes in front (state 0).
    """
    accepting = [bool(a) for a in accepting]
    if accepting[0] == accept_empty:
        pass
    elif not any(0 in row for row in transitions):
        accepting = [accept_empty] + accepting[1:]
    else:
        shifted = [[target + 1 for target in row] for row in transitions]
        transitions = [shifted[0]] + shifted
        accepting = [accept_empty] + accepting
    return DFA(len(transitions), alphabet, transitions, start=0,
               accepting=np.array(accepting, dtype=bool))


def infer_empty_string(alphabet, transitions, accepting, accept_empty=None):
    """The machine (start state 0) with the empty string's answer given, or
    inferred when ``accept_empty`` is None.

    A model never classifies the empty string, so its start state's
    acceptance is not learned. Inferred by Occam's razor: of the two machines
    that agree on every non-empty string, the one whose minimal machine is
    smaller; on a tie, the accepting one.
    """
    if accept_empty is not None:
        return with_start(alphabet, transitions, accepting, accept_empty)
    machines = [with_start(alphabet, transitions, accepting, accept)
                for accept in (True, False)]
    sizes = [dfa.minimize().n_states for dfa in machines]
    return machines[int(sizes[1] < sizes[0])]
