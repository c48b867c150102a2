"""The checks of :mod:`skseq.plotting`'s arguments: state probabilities of one
sequence, transition matrices, state labels and indices, loss curves. Each
refuses what it cannot draw with a ValueError (or TypeError) naming the
argument and the entry at fault."""

import numbers

import numpy as np

from ._data import is_number

# Probabilities computed in floating point may leave [0, 1] by this much,
PROBABILITY_ROUNDING = 1e-9
# and a distribution's sum may leave 1 by this much (float32 probabilities of
# a few dozen states round by ~1e-7).
SUM_ROUNDING = 1e-6


def as_float_array(values, message):
    """``values`` as a float array; TypeError saying ``message`` and what was
    given when they cannot be one (ragged lists, strings, objects)."""
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{message}, got {type(values).__name__}: {exc}") from exc


def _depth(values):
    """How many axes ``values`` nests, read along its first items (a list of
    arrays of other lengths has no array shape)."""
    depth = 0
    while isinstance(values, (list, tuple)) and len(values):
        values, depth = values[0], depth + 1
    return depth + np.ndim(values)


def one_sequence_proba(proba):
    """The state probabilities of one sequence, without trailing NaN padding,
    checked: probabilities that sum to 1 at every step."""
    # one result per level (HierarchicalIOHMM's) nests the sequences once more
    what = ("predict_state_proba(X)[level][i] (one level's, of one sequence)"
            if _depth(proba) > 3 else "predict_state_proba(X)[i]")
    proba = as_float_array(
        proba, "proba must be the state probabilities of ONE sequence, an array "
        f"(n_steps, n_states); pass {what}")
    if proba.ndim != 2:
        raise ValueError(
            "proba must be 2-D (n_steps, n_states), the state probabilities of ONE "
            f"sequence, got shape {proba.shape}; pass {what}."
        )
    real = ~np.isnan(proba).all(axis=1)
    n_steps = int(np.max(np.flatnonzero(real), initial=-1)) + 1
    proba = proba[:n_steps]
    if n_steps == 0 or proba.shape[1] == 0:
        raise ValueError("proba has no steps or no states to plot.")
    if np.isnan(proba).any():
        raise ValueError("proba contains NaN inside the sequence.")
    check_probabilities(proba, "proba")
    check_sums(proba, "proba", "at every step", "step")
    return proba


def state_labels_for(state_labels, n_states, default):
    """The given labels, one per state, or ``default`` formatted with each
    state's index."""
    if state_labels is None:
        return [default.format(i) for i in range(n_states)]
    if isinstance(state_labels, str):
        raise TypeError(f"state_labels must be a list of {n_states} labels, one "
                        f"per state, got the string {state_labels!r}.")
    try:
        state_labels = list(state_labels)  # a one-pass iterable read once
    except TypeError:
        raise TypeError(f"state_labels must be a list of {n_states} labels, one "
                        f"per state, got {type(state_labels).__name__}.") from None
    if len(state_labels) != n_states:
        raise ValueError(
            f"state_labels has {len(state_labels)} labels for {n_states} states."
        )
    return state_labels


def check_matrix(matrix):
    """A transition matrix (n_states, n_states) of probabilities, as floats."""
    matrix = as_float_array(
        matrix, "Expected a skseq.automata.DFA or a transition matrix (n_states, "
        "n_states)")
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or matrix.size == 0:
        raise ValueError(
            "A transition matrix must be a square (n_states, n_states) array "
            f"indexed [from, to], got shape {matrix.shape}."
        )
    check_probabilities(matrix, "A transition matrix")
    check_sums(matrix, "A transition matrix", "from every state", "row")
    return matrix


def check_sums(values, name, where, unit):
    """Refuse rows of ``values`` that are no distribution over the states (a
    sum off 1 by more than rounding); the message names the first such row as
    the ``unit`` it is (a step, a row) and its sum."""
    sums = values.sum(axis=1)
    off = np.flatnonzero(np.abs(sums - 1.0) > SUM_ROUNDING)
    if off.size:
        raise ValueError(
            f"{name} must hold a distribution over the states {where} (a row "
            f"that sums to 1); {unit} {off[0]} sums to {float(sums[off[0]])!r}.")


def check_probabilities(values, name):
    """Refuse values that are not probabilities (rounding error of 1e-9 aside)."""
    bad = ~(np.isfinite(values) & (values >= -PROBABILITY_ROUNDING)
            & (values <= 1 + PROBABILITY_ROUNDING))
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{name} must hold finite, non-negative probabilities of at most 1; "
            f"entry {list(where)} is {float(values[where])!r}."
        )


def _plain(value):
    """numpy scalars as Python ones, for error messages."""
    return value.item() if isinstance(value, np.generic) else value


def check_states(states, n_states, name):
    """``states`` as state indices (intp), each an integer in range(n_states)."""
    for state in states:
        if not is_number(state, integral=True) or not 0 <= state < n_states:
            raise ValueError(
                f"{name}: {_plain(state)!r} is not a state index in range({n_states})."
            )
    return np.asarray(states, dtype=np.intp)


def check_positive_curves(curves):
    """Refuse a curve with an objective a log axis cannot show (zero or
    negative: matplotlib would leave it out without a word), naming the
    curve and the iteration."""
    for k, (label, curve) in enumerate(curves):
        bad = np.flatnonzero(curve <= 0)
        if bad.size:
            name = f"curve {label!r}" if label is not None else f"curve {k}"
            raise ValueError(
                f"logy=True needs positive objectives; {name} is "
                f"{float(curve[bad[0]])!r} at iteration {int(bad[0]) + 1}: "
                "plot it with logy=False.")


def is_curve(obj):
    """Whether ``obj`` is one curve: a 1-D array or a non-empty list of numbers."""
    if hasattr(obj, "__array__") and hasattr(obj, "ndim"):  # numpy, pandas
        return obj.ndim == 1
    return isinstance(obj, (list, tuple)) and all(
        isinstance(v, numbers.Real) for v in obj
    ) and len(obj) > 0


def _final_model(item):
    """The model inside a fitted search (``best_estimator_``) or a pipeline
    (its last step), as scikit-learn's displays read them; else ``item``."""
    while True:
        if hasattr(item, "best_estimator_"):
            item = item.best_estimator_
        elif hasattr(item, "steps") and hasattr(item, "_final_estimator"):
            item = item._final_estimator
        else:
            return item


def loss_curve(item):
    """The objectives of ``item`` (a fitted model, pipeline or search, or a
    curve) as a non-empty 1-D float array."""
    item = _final_model(item)
    if hasattr(item, "loss_curve_"):
        item = item.loss_curve_
    elif not is_curve(item):
        if hasattr(item, "fit"):
            raise ValueError(
                f"{type(item).__name__} has no loss_curve_: fit it first (or it "
                "does not record one)."
            )
        raise TypeError(
            f"Expected an estimator with loss_curve_ or a 1-D curve, got {item!r}."
        )
    curve = np.asarray(item, dtype=np.float64)
    if curve.ndim != 1 or curve.size == 0:
        raise ValueError(f"A loss curve must be a non-empty 1-D sequence, got "
                         f"shape {curve.shape}.")
    return curve
