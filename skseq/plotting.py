"""Plots of what a sequence model learned: state posteriors, automata, loss curves,
step labels.

matplotlib is an optional dependency (``pip install skseq[plot]``); it is imported
only when a function is called. Every function draws on ``ax`` (or on the current
axes of a new figure when ``ax`` is None) and returns it. Labels (state names,
symbols, curve names) are drawn literally: a ``$`` in them is a dollar sign, not
the start of matplotlib's mathtext. Labels that would print the same (``1`` and
``"1"``) are shown by their repr (``1`` and ``'1'``), and by their position as
well where even the reprs coincide.
"""

import numpy as np

from ._data import is_number
from ._data.names import distinct_texts
from ._data.targets import _is_missing, _label_array
from ._plot_checks import (
    check_matrix,
    check_positive_curves,
    check_states,
    is_curve,
    loss_curve,
    one_sequence_proba,
    state_labels_for,
)
from .utils import _labels_1d, _plain, segments

__all__ = ["plot_automaton", "plot_loss_curve", "plot_state_proba", "plot_step_labels"]

def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(
            "skseq.plotting needs matplotlib: pip install matplotlib "
            "(or pip install skseq[plot])."
        ) from exc
    return plt


def _literal(texts):
    """Show user-given labels as written: no mathtext for a ``$`` in them."""
    for text in texts:
        text.set_parse_math(False)


def _axes(ax):
    plt = _pyplot()
    if ax is None:
        _, ax = plt.subplots()
    elif not isinstance(ax, plt.Axes):
        raise TypeError(f"ax must be a matplotlib Axes or None, got "
                        f"{type(ax).__name__}" + (" (its axes: fig.gca())" if
                                                  isinstance(ax, plt.Figure) else "")
                        + ".")
    return ax


def plot_state_proba(proba, ax=None, *, kind="area", state_labels=None,
                     cmap="viridis"):
    """Plot the state distribution over the steps of one sequence.

    Parameters
    ----------
    proba : array-like of shape (n_steps, n_states)
        One sequence's state probabilities, e.g. ``predict_state_proba(X)[i]``:
        at every step a distribution over the states (summing to 1, up to
        rounding of 1e-6). Trailing all-NaN rows (the padding of a 3-D result)
        are dropped.
    ax : matplotlib.axes.Axes, default=None
        Axes to draw on; a new figure's axes if None.
    kind : {"area", "heatmap"}, default="area"
        ``"area"``: the probabilities stacked, one band per state (they sum to 1
        at every step); ``"heatmap"``: an image with the states as rows.
    state_labels : list of str, default=None
        One label per state; default ``"state 0"``, ``"state 1"``, ...
        Labels that print the same are told apart (module notes).
    cmap : str or matplotlib.colors.Colormap, default="viridis"
        Colormap: the band colours (area) or the image's colours (heatmap).

    Returns
    -------
    ax : matplotlib.axes.Axes
        The axes drawn on. Steps are numbered from 1 on the x axis.

    See Also
    --------
    skseq.IOHMMClassifier.predict_state_proba : Filtered state distributions.

    Examples
    --------
    >>> import numpy as np
    >>> from skseq.plotting import plot_state_proba
    >>> proba = np.array([[0.9, 0.1], [0.5, 0.5], [0.2, 0.8]])
    >>> ax = plot_state_proba(proba)
    >>> len(ax.collections)  # one band per state
    2
    >>> ax = plot_state_proba(proba, kind="heatmap", state_labels=["low", "high"])
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['low', 'high']
    """
    if kind not in ("area", "heatmap"):
        raise ValueError(f"kind must be 'area' or 'heatmap', got {kind!r}.")
    proba = one_sequence_proba(proba)
    state_labels = distinct_texts(
        state_labels_for(state_labels, proba.shape[1], "state {}"))
    ax = _axes(ax)
    colormap = _pyplot().get_cmap(cmap)
    if kind == "area":
        _draw_area(ax, proba, state_labels, colormap)
    else:
        _draw_heatmap(ax, proba, state_labels, colormap)
    ax.set_xlabel("step")
    return ax


def _draw_area(ax, proba, state_labels, colormap):
    n_steps, n_states = proba.shape
    colors = colormap(np.linspace(0.0, 1.0, n_states))
    # Step t fills [t - 1/2, t + 1/2], like a heatmap cell.
    edges = np.arange(0.5, n_steps + 1.0)
    ax.stackplot(edges, np.vstack([proba, proba[-1:]]).T, labels=state_labels,
                 colors=colors, step="post")
    ax.set_ylim(0.0, 1.0)
    ax.set_xlim(0.5, n_steps + 0.5)
    ax.set_ylabel("state probability")
    _literal(ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0),
                       frameon=False).get_texts())


def _draw_heatmap(ax, proba, state_labels, colormap):
    n_steps, n_states = proba.shape
    image = ax.imshow(proba.T, aspect="auto", cmap=colormap, vmin=0.0, vmax=1.0,
                      origin="lower", interpolation="nearest",
                      extent=(0.5, n_steps + 0.5, -0.5, n_states - 0.5))
    ax.set_yticks(range(n_states), labels=state_labels, parse_math=False)
    ax.figure.colorbar(image, ax=ax, label="probability")


def plot_step_labels(labelings, ax=None, *, classes=None, cmap="tab10"):
    """Plot step labels of one sequence as coloured segments, one row each.

    Parameters
    ----------
    labelings : dict of str to array-like of shape (n_steps,)
        Named labellings of the same sequence, drawn top to bottom, e.g.
        ``{"truth": y[0], "causal": model.predict(X)[0]}``. Steps without a
        label (None, NaN or NaT) are left blank.
    ax : matplotlib.axes.Axes, default=None
        Axes to draw on; a new figure's axes if None.
    classes : array-like, default=None
        The labels in colour order (and in the legend), each once; default:
        the sorted labels that occur (in order of appearance if they cannot
        be sorted). Labels that print the same, such as ``1`` and ``"1"``,
        appear in the legend by their repr.
    cmap : str or matplotlib.colors.Colormap, default="tab10"
        Colormap of the labels. With the default, more than 10 labels take
        the 20 colours of "tab20", more than 20 evenly spaced colours of
        "turbo" (up to 256 labels, the colours "turbo" holds). No two labels
        share a colour: a colormap with fewer colours than there are labels
        (e.g. "Set1", 9 colours, for 12 labels) is refused.

    Returns
    -------
    ax : matplotlib.axes.Axes
        The axes drawn on. Step ``t`` (from 0) spans ``[t, t + 1)`` on the x axis.

    See Also
    --------
    skseq.utils.segments : The segments drawn here.

    Examples
    --------
    >>> from skseq.plotting import plot_step_labels
    >>> ax = plot_step_labels({"truth": ["a", "a", "b"], "guess": ["a", "b", "b"]})
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['truth', 'guess']
    >>> len(ax.collections)  # one collection of segments per row
    2
    """
    rows = _labeling_rows(labelings)
    classes = _classes(rows) if classes is None else _given_classes(classes)
    # every row checked before anything is drawn
    drawn = [_drawn_segments(name, labels, classes) for name, labels in rows.items()]
    plt = _pyplot()
    colors = _label_colors(plt, cmap, len(classes))
    ax = _axes(ax)
    for r, (starts, stops, seg_labels) in enumerate(drawn):
        ax.broken_barh(list(zip(starts, stops - starts, strict=True)), (r - 0.4, 0.8),
                       facecolors=[colors[classes.index(v)] for v in seg_labels])
    n_steps = next(iter(rows.values())).shape[0]
    ax.set_xlim(0, n_steps)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_yticks(range(len(rows)), labels=list(rows), parse_math=False)
    ax.set_xlabel("step")
    _class_legend(ax, plt, classes, colors)
    return ax


def _class_legend(ax, plt, classes, colors):
    """A legend of the classes' colours, beside the axes."""
    handles = [plt.Rectangle((0, 0), 1, 1, color=colors[i])
               for i in range(len(classes))]
    _literal(ax.legend(handles, distinct_texts(classes), loc="upper left",
                       bbox_to_anchor=(1.0, 1.0), frameon=False).get_texts())


def _label_colors(plt, cmap, n):
    """Colours of ``n`` labels: the default's first ``n`` of its 10 (of
    "tab20"'s 20 above 10 labels, evenly spaced ones of "turbo" above 20),
    else ``n`` colours evenly spaced over ``cmap``."""
    if isinstance(cmap, str) and cmap == "tab10" and n > 10:
        if n <= 20:
            return plt.get_cmap("tab20")(np.arange(n))
        cmap = "turbo"
    if isinstance(cmap, str) and cmap == "tab10":
        return plt.get_cmap(cmap)(np.arange(n) / 9.0)
    colors = plt.get_cmap(cmap)(np.linspace(0.0, 1.0, n))
    n_colors = np.unique(colors, axis=0).shape[0]
    if n_colors < n:
        name = getattr(cmap, "name", cmap)
        raise ValueError(
            f"cmap {name!r} gives {n_colors} distinct colours for {n} labels: "
            f"some labels would share a colour. Give a colormap of at least {n} "
            "colours, e.g. matplotlib.colors.LinearSegmentedColormap.from_list("
            f"'labels', matplotlib.colormaps['turbo'].colors, N={n}).")
    return colors


def _classes(rows):
    """The labels of the rows, missing ones left out: sorted, or in order of
    appearance where they cannot be sorted (mixed types)."""
    arrays = [labels[~_is_missing(labels)] for labels in rows.values()]
    if len({a.dtype.kind in "biuf" for a in arrays}) > 1:  # numbers beside text
        arrays = [a.astype(object) for a in arrays]
    values = np.concatenate(arrays)
    try:
        return list(np.unique(values))
    except TypeError:
        return list(dict.fromkeys(values.tolist()))


def _drawn_segments(name, labels, classes):
    """The segments of the labelling ``name`` that are drawn (starts, stops,
    labels; unlabelled steps are left blank), checked: every label is one of
    ``classes``."""
    starts, stops, seg_labels = segments(labels)
    drawn = ~_is_missing(seg_labels)
    starts, stops, seg_labels = starts[drawn], stops[drawn], seg_labels[drawn]
    unknown = [v for v in seg_labels if v not in classes]
    if unknown:
        raise ValueError(f"label {_plain(unknown[0])!r} of labelings[{name!r}] is "
                         f"not in classes {[_plain(c) for c in classes]}.")
    return starts, stops, seg_labels


def _given_classes(classes):
    """The ``classes`` given, as a list, checked: 1-D."""
    values = _label_array(classes)
    if values.ndim != 1:
        raise ValueError("classes must be a 1-D array-like of the labels in colour "
                         f"order, got shape {values.shape}.")
    values = list(values)
    for i, value in enumerate(values):
        if value in values[:i]:
            raise ValueError(f"classes holds {_plain(value)!r} twice: give each "
                             "label once (one colour and legend entry each).")
    return values


def _labeling_rows(labelings):
    """The labelings as arrays, checked: 1-D, one length, not empty."""
    if not isinstance(labelings, dict) or not labelings:
        raise TypeError("labelings must be a non-empty dict of name -> step labels "
                        f"of one sequence, got {type(labelings).__name__}.")
    rows = {name: _labels_1d(labels, f"labelings[{name!r}]")
            for name, labels in labelings.items()}
    lengths = {name: labels.shape for name, labels in rows.items()}
    if len(set(lengths.values())) != 1 or next(iter(lengths.values()))[0:1] == (0,):
        raise ValueError(f"labelings must hold 1-D labels of one sequence, of one "
                         f"length, got shapes {lengths}.")
    return rows


def _matrix_edges(matrix, min_proba):
    """The drawn edges' labels: each probability to 2 decimals, "<0.01" for
    one that would round to "0.00" (drawn, so not 0)."""
    return {
        (j, i): f"{matrix[j, i]:.2f}" if matrix[j, i] >= 0.005 else "<0.01"
        for j, i in zip(*np.nonzero((matrix >= min_proba) & (matrix > 0)),
                        strict=True)
    }


def plot_automaton(dfa_or_transition_matrix, ax=None, *, min_proba=0.05,
                   state_labels=None, start=None, accepting=None):
    """Draw a state diagram with matplotlib alone (no Graphviz needed).

    States sit on a circle, in order, clockwise from the top; each arrow is
    labelled with the symbols that take it (for an automaton) or with its
    probability (for a transition matrix). Accepting states are double circles
    and a short arrow from nowhere points at the start state.

    Parameters
    ----------
    dfa_or_transition_matrix : skseq.automata.DFA or array-like of shape \
            (n_states, n_states)
        An automaton (e.g. ``clf.to_automaton().minimize()``), or a matrix of
        transition probabilities indexed ``[from, to]``, each row summing to 1
        (e.g. one step of ``transition_proba``).
    ax : matplotlib.axes.Axes, default=None
        Axes to draw on; a new figure's axes if None.
    min_proba : float, default=0.05
        For a matrix: transitions with a smaller probability (and those of
        probability 0, with ``min_proba=0``) are not drawn.
    state_labels : list of str, default=None
        Text inside each state; default its index.
    start : int, default=None
        For a matrix: the state to mark as the start state (none if None). An
        automaton's own start state is always marked.
    accepting : array-like of int or bool, default=None
        For a matrix: the states to draw as double circles, as indices or as a
        boolean mask. An automaton's own accepting states are always used.

    Returns
    -------
    ax : matplotlib.axes.Axes
        The axes drawn on (equal aspect, no frame).

    See Also
    --------
    skseq.automata.DFA.to_dot : The same diagram as Graphviz source.

    Examples
    --------
    >>> from skseq.automata import DFA
    >>> from skseq.plotting import plot_automaton
    >>> # Binary strings with an even number of 1s.
    >>> dfa = DFA(2, "01", [[0, 1], [1, 0]], start=0, accepting=[0])
    >>> ax = plot_automaton(dfa)
    >>> sorted(t.get_text() for t in ax.texts)
    ['0', '0', '0', '1', '1', '1']

    A transition matrix works too; small probabilities are left out:

    >>> ax = plot_automaton([[0.9, 0.1], [0.02, 0.98]], start=0)
    >>> sorted(t.get_text() for t in ax.texts)
    ['0', '0.10', '0.90', '0.98', '1']
    """
    n_states, edges, start, accept_mask = _diagram(
        dfa_or_transition_matrix, start, accepting, min_proba)
    state_labels = state_labels_for(state_labels, n_states, "{}")
    ax = _axes(ax)
    _draw_diagram(ax, n_states, edges, start, accept_mask, state_labels)
    return ax


def _diagram(dfa_or_transition_matrix, start, accepting, min_proba):
    """``(n_states, edges, start, accept_mask)`` of a DFA, or of a transition
    matrix with the given start and accepting states (checked)."""
    from .automata import DFA

    if isinstance(dfa_or_transition_matrix, DFA):
        dfa = dfa_or_transition_matrix
        if start is not None or accepting is not None:
            raise ValueError(
                "start and accepting are read from the DFA; give them only with a "
                "transition matrix."
            )
        return (dfa.n_states, dfa._edge_labels(), dfa.start,
                np.asarray(dfa.accepting, dtype=bool))
    if hasattr(dfa_or_transition_matrix, "fit"):
        raise TypeError(
            "Expected a skseq.automata.DFA or a transition matrix (n_states, "
            "n_states), got the estimator "
            f"{type(dfa_or_transition_matrix).__name__}: pass "
            "the machine it learned, model.to_automaton() (IOHMMClassifier) or "
            "model.extract_automaton() (DiscretizedRNNClassifier), or one step "
            "of model.transition_proba(X)[i].")
    matrix = check_matrix(dfa_or_transition_matrix)
    if not (is_number(min_proba) and 0 <= min_proba <= 1):
        raise ValueError(f"min_proba must be a probability in [0, 1], got "
                         f"{min_proba!r}.")
    n_states = matrix.shape[0]
    edges = _matrix_edges(matrix, min_proba)
    accept_mask = np.zeros(n_states, dtype=bool)
    if accepting is not None:
        accepting = np.asarray(accepting)
        if accepting.dtype == bool:
            if accepting.shape != (n_states,):
                raise ValueError(
                    f"accepting mask has shape {accepting.shape}, expected "
                    f"({n_states},)."
                )
            accept_mask = accepting.copy()
        else:
            accept_mask[check_states(accepting.ravel(), n_states, "accepting")] = (
                True
            )
    if start is not None:
        start = int(check_states([start], n_states, "start")[0])
    return n_states, edges, start, accept_mask


def _unit(v):
    return v / np.linalg.norm(v)


def _rotate(v, angle):
    """v rotated counter-clockwise by ``angle`` radians."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def _draw_diagram(ax, n_states, edges, start, accept_mask, state_labels):
    from matplotlib.patches import Circle, FancyArrowPatch

    # Layout: states on the unit circle, clockwise from the top.
    angle = np.pi / 2 - 2 * np.pi * np.arange(n_states) / n_states
    centers = np.column_stack([np.cos(angle), np.sin(angle)])
    if n_states == 1:
        centers[:] = 0.0
    radius = 0.18 if n_states <= 3 else min(0.18, 0.7 * np.sin(np.pi / n_states))
    loop = 2.5 * radius  # length of a self-loop's Bezier handles
    arrow = {"arrowstyle": "-|>", "mutation_scale": 12, "lw": 1.0, "color": "0.2",
             "shrinkA": 0.0, "shrinkB": 0.0}

    for i, (x, y) in enumerate(centers):
        ax.add_patch(Circle((x, y), radius, fill=False, lw=1.2))
        if accept_mask[i]:
            ax.add_patch(Circle((x, y), 0.8 * radius, fill=False, lw=1.2))
        ax.text(x, y, state_labels[i], ha="center", va="center", fontsize=10,
                parse_math=False)

    for (j, i), label in edges.items():
        if i == j:
            text = _draw_self_loop(ax, centers, j, radius, loop, arrow)
        else:
            text = _draw_arc(ax, centers[j], centers[i], radius, arrow)
        ax.text(*text, label, ha="center", va="center", fontsize=9, parse_math=False,
                bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none"})

    if start is not None:
        out = _unit(centers[start]) if len(centers) > 1 else np.array([0.0, 1.0])
        side = _rotate(out, 1.5)  # from the side, away from the self-loop
        tip = centers[start] + radius * side
        ax.add_patch(FancyArrowPatch(tip + 1.5 * radius * side, tip, **arrow))

    pad = radius + loop + 0.1
    lim = np.abs(centers).max() + pad
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_aspect("equal")
    ax.set_axis_off()


def _draw_self_loop(ax, centers, j, radius, loop, arrow):
    """A teardrop outward from the layout's centre (upward for a lone state): a
    cubic Bezier leaving and re-entering state ``j`` radially. Returns where its
    label goes."""
    from matplotlib.patches import FancyArrowPatch
    from matplotlib.path import Path

    out = _unit(centers[j]) if len(centers) > 1 else np.array([0.0, 1.0])
    ends = []
    for turn in (0.5, -0.5):
        radial = _rotate(out, turn)
        point = centers[j] + radius * radial
        ends.append((point, point + loop * radial))
    (a, ca), (b, cb) = ends
    path = Path([a, ca, cb, b], [Path.MOVETO] + [Path.CURVE4] * 3)
    ax.add_patch(FancyArrowPatch(path=path, **arrow))
    # Just beyond the curve's middle, (a + 3 ca + 3 cb + b) / 8.
    return (a + 3 * ca + 3 * cb + b) / 8 + 0.5 * radius * out


def _draw_arc(ax, source, target, radius, arrow):
    """A bent arrow between two states' circles. Returns where its label
    goes."""
    from matplotlib.patches import FancyArrowPatch

    d = _unit(target - source)
    a, b = source + radius * d, target - radius * d
    rad = 0.2  # bend, so that j -> i and i -> j do not overlap
    ax.add_patch(FancyArrowPatch(a, b, connectionstyle=f"arc3,rad={rad}", **arrow))
    # matplotlib's arc3 curve is a quadratic Bezier whose control point is the
    # chord's midpoint plus rad * (dy, -dx): its middle is halfway there. The
    # label goes a little further out, so that the labels of j -> i and i -> j
    # stay apart.
    normal = np.array([d[1], -d[0]])
    bulge = 0.5 * rad * np.linalg.norm(b - a)
    return (a + b) / 2 + (bulge + 0.06) * normal


def plot_loss_curve(estimator_or_curves, ax=None, *, logy=False, **kwargs):
    """Plot training objectives per iteration.

    Parameters
    ----------
    estimator_or_curves : estimator, array-like, list or dict
        A fitted estimator with a ``loss_curve_`` attribute (e.g.
        :class:`~skseq.IOHMMClassifier`; a pipeline is read at its last
        step, a fitted search at its ``best_estimator_``), one curve (a
        sequence of numbers), a list of estimators or curves, or a dict
        ``{label: estimator or curve}`` (the labels go into a legend; keys
        that print the same, such as ``1`` and ``"1"``, by their repr).
    ax : matplotlib.axes.Axes, default=None
        Axes to draw on; a new figure's axes if None.
    logy : bool, default=False
        Logarithmic y axis; the objectives must be positive (a zero or
        negative one, which a log axis cannot show, is refused).
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.plot` for every curve, e.g.
        ``color="C0", alpha=0.5`` to draw many restarts of one model alike.

    Returns
    -------
    ax : matplotlib.axes.Axes
        The axes drawn on; iterations are numbered from 1.

    Examples
    --------
    >>> from skseq.plotting import plot_loss_curve
    >>> ax = plot_loss_curve({"lbfgs": [0.7, 0.4, 0.3], "em": [0.7, 0.6, 0.5, 0.45]})
    >>> len(ax.lines), ax.get_legend() is not None
    (2, True)
    """
    if isinstance(estimator_or_curves, dict):
        items = list(estimator_or_curves.items())
    elif isinstance(estimator_or_curves, (list, tuple)) and not is_curve(
        estimator_or_curves
    ):
        items = [(None, item) for item in estimator_or_curves]
    else:
        items = [(None, estimator_or_curves)]
    if not items:
        raise ValueError("No curves to plot.")
    curves = [(label, loss_curve(item)) for label, item in items]
    if logy:
        check_positive_curves(curves)
    ax = _axes(ax)
    named = [label for label, _ in curves if label is not None]
    texts = iter(distinct_texts(named))
    for label, curve in curves:
        line_kw = dict(kwargs)
        if label is not None:
            line_kw["label"] = next(texts)
        ax.plot(np.arange(1, curve.size + 1), curve, **line_kw)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel("iteration")
    ax.set_ylabel("objective")
    if any(line.get_label()[:1] not in ("", "_") for line in ax.lines):
        _literal(ax.legend().get_texts())
    return ax
