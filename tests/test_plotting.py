"""skseq.plotting: what is drawn, what is returned, and the errors."""

import io

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PolyCollection
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.image import AxesImage
from matplotlib.patches import Circle, FancyArrowPatch

from skseq import IOHMMClassifier
from skseq.automata import DFA
from skseq.datasets import make_tomita
from skseq.plotting import (
    plot_automaton,
    plot_loss_curve,
    plot_state_proba,
    plot_step_labels,
)


@pytest.fixture(autouse=True)
def agg_backend():
    """Draw off-screen, and free every figure a test made."""
    plt.switch_backend("Agg")
    yield
    plt.close("all")


def _arrows(ax):
    return [p for p in ax.patches if isinstance(p, FancyArrowPatch)]


def _circles(ax):
    return [p for p in ax.patches if isinstance(p, Circle)]


# -- plot_state_proba ----------------------------------------------------------


def test_state_proba_area_one_band_per_state():
    proba = np.random.default_rng(0).dirichlet(np.ones(3), size=7)
    ax = plot_state_proba(proba)
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == 3
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "state 0", "state 1", "state 2"]
    assert ax.get_xlim() == (0.5, 7.5)
    assert ax.get_ylim() == (0.0, 1.0)


def test_state_proba_heatmap_image_and_labels():
    proba = np.array([[1.0, 0.0], [0.25, 0.75], [0.0, 1.0]])
    fig, ax = plt.subplots()
    assert plot_state_proba(proba, ax=ax, kind="heatmap",
                            state_labels=["a", "b"]) is ax
    (image,) = [im for im in ax.get_images() if isinstance(im, AxesImage)]
    # States are rows: the image is the transposed probabilities.
    np.testing.assert_array_equal(image.get_array(), proba.T)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b"]
    assert len(fig.axes) == 2  # the axes and its colorbar


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_state_proba_drops_padding_of_a_3d_result():
    X, y = make_tomita(4, n_samples=30, random_state=0)
    clf = IOHMMClassifier(n_states=2, emission="state", n_init=1, max_iter=20,
                          random_state=0).fit(X, y)
    X_pad = np.full((2, 12, 2), np.nan)
    X_pad[0, :3] = np.eye(2)[[0, 1, 1]]
    X_pad[1] = np.eye(2)[np.arange(12) % 2]
    proba = clf.predict_state_proba(X_pad)  # (2, 12, 2), NaN after step 3 in [0]
    ax = plot_state_proba(proba[0], kind="heatmap")
    assert ax.get_images()[0].get_array().shape == (2, 3)


@pytest.mark.parametrize(
    "proba, kwargs, match",
    [
        (np.ones((2, 3, 2)) / 2, {}, "must be 2-D"),
        (np.ones(4), {}, "must be 2-D"),
        (np.full((3, 2), np.nan), {}, "no steps"),
        (np.array([[0.5, 0.5], [np.nan, 0.5], [0.5, 0.5]]), {}, "NaN inside"),
        (np.ones((3, 2)) / 2, {"kind": "pie"}, "kind must be"),
        (np.ones((3, 2)) / 2, {"state_labels": ["x"]}, "1 labels for 2 states"),
    ],
)
def test_state_proba_errors(proba, kwargs, match):
    with pytest.raises(ValueError, match=match):
        plot_state_proba(proba, **kwargs)


@pytest.mark.parametrize("kind", ["area", "heatmap"])
def test_state_proba_rows_must_sum_to_one(kind):
    # steps 1 and 2 sum to 3/4; the NaN padding after them is dropped
    proba = np.array([[0.5, 0.5], [0.5, 0.25], [0.25, 0.5], [np.nan, np.nan]])
    with pytest.raises(ValueError, match=r"step 1 sums to 0\.75\."):
        plot_state_proba(proba, kind=kind)
    proba[1:3] = [[0.5, 0.5 + 1e-9], [0.25, 0.75]]  # rounding is tolerated
    assert plot_state_proba(proba, kind=kind) is not None


# -- plot_automaton --------------------------------------------------------------

TOMITA4 = DFA(4, "01", [[1, 0], [2, 0], [3, 0], [3, 3]], start=0,
              accepting=[0, 1, 2])


def test_automaton_states_arrows_and_labels():
    ax = plot_automaton(TOMITA4)
    # 4 states, plus an inner circle for each of the 3 accepting ones.
    assert len(_circles(ax)) == 4 + 3
    # 8 transitions; the dead state's two self-loops merge into one arrow, so 7,
    # plus the start arrow.
    assert len(_arrows(ax)) == 7 + 1
    texts = sorted(t.get_text() for t in ax.texts)
    assert texts == sorted(["0", "1", "2", "3"] + ["0", "1"] * 3 + ["0,1"])
    assert not ax.axison
    assert ax.get_aspect() == 1.0


def test_automaton_from_transition_matrix():
    matrix = np.array([[0.9, 0.1, 0.0],
                       [0.0, 0.5, 0.5],
                       [0.01, 0.0, 0.99]])
    fig, ax = plt.subplots()
    out = plot_automaton(matrix, ax=ax, start=0, accepting=[2],
                         state_labels=["s", "m", "e"])
    assert out is ax
    assert len(_circles(ax)) == 3 + 1
    # Entries >= min_proba=0.05: 0.9, 0.1, 0.5, 0.5, 0.99 -> 5 arrows + start.
    assert len(_arrows(ax)) == 5 + 1
    assert sorted(t.get_text() for t in ax.texts) == sorted(
        ["s", "m", "e", "0.90", "0.10", "0.50", "0.50", "0.99"])


def test_automaton_matrix_without_start_and_boolean_accepting():
    ax = plot_automaton([[0.5, 0.5], [0.5, 0.5]], accepting=np.array([False, True]),
                        min_proba=0.6)
    assert len(_circles(ax)) == 2 + 1
    assert _arrows(ax) == []  # no edge reaches min_proba, no start state


def test_automaton_single_state():
    ax = plot_automaton(DFA(1, "ab", [[0, 0]], start=0, accepting=[0]))
    assert len(_circles(ax)) == 2
    assert len(_arrows(ax)) == 2  # the self-loop "a,b" and the start arrow
    assert "a,b" in [t.get_text() for t in ax.texts]


def test_automaton_of_a_fitted_model():
    X, y = make_tomita(1, n_samples=60, random_state=0)
    clf = IOHMMClassifier(n_states=2, emission="state", random_state=0).fit(X, y)
    dfa = clf.to_automaton().minimize()
    ax = plot_automaton(dfa)
    assert len(_circles(ax)) == dfa.n_states + int(dfa.accepting.sum())


@pytest.mark.parametrize(
    "matrix, kwargs, match",
    [
        (np.ones((2, 3)), {}, "square"),
        (np.ones((2, 2, 2)), {}, "square"),
        (np.zeros((0, 0)), {}, "square"),
        (np.array([[1.0, -0.1], [0.5, 0.5]]), {}, "non-negative"),
        (np.array([[np.nan, 1.0], [0.5, 0.5]]), {}, "finite"),
        # rows that are no distribution were drawn as if they were one
        (np.array([[0.5, 0.5], [0.3, 0.3]]), {},
         r"from every state.*row 1 sums to 0\.6"),
        (np.eye(2), {"start": 2}, "start: 2 is not a state"),
        (np.eye(2), {"accepting": [0, 5]}, "accepting: 5 is not a state"),
        (np.eye(2), {"accepting": np.array([True])}, "mask has shape"),
        (np.eye(2), {"state_labels": ["a"]}, "1 labels for 2 states"),
        (TOMITA4, {"start": 1}, "read from the DFA"),
    ],
)
def test_automaton_errors(matrix, kwargs, match):
    with pytest.raises(ValueError, match=match):
        plot_automaton(matrix, **kwargs)


# -- plot_loss_curve -------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_loss_curve_of_a_fitted_estimator():
    X, y = make_tomita(4, n_samples=40, random_state=0)
    clf = IOHMMClassifier(n_states=2, n_init=1, max_iter=15, random_state=0)
    clf.fit(X, y)
    ax = plot_loss_curve(clf)
    (line,) = ax.lines
    np.testing.assert_array_equal(line.get_ydata(), clf.loss_curve_)
    np.testing.assert_array_equal(line.get_xdata(),
                                  np.arange(1, len(clf.loss_curve_) + 1))
    assert ax.get_legend() is None
    assert ax.get_xlabel() == "iteration"


def test_loss_curve_dict_list_and_kwargs():
    fig, ax = plt.subplots()
    plot_loss_curve({"lbfgs": [3.0, 2.0, 1.0], "em": np.array([3.0, 2.5])}, ax=ax,
                    logy=True, color="k")
    assert [line.get_label() for line in ax.lines] == ["lbfgs", "em"]
    assert all(line.get_color() == "k" for line in ax.lines)
    assert ax.get_yscale() == "log"
    assert ax.get_legend() is not None
    ax2 = plot_loss_curve([[1.0, 0.5], [2.0, 1.0, 0.2]])
    assert [len(line.get_xdata()) for line in ax2.lines] == [2, 3]
    assert ax2.get_legend() is None


@pytest.mark.parametrize(
    "curves, error, match",
    [
        ({}, ValueError, "No curves"),
        ([], ValueError, "No curves"),
        (IOHMMClassifier(), ValueError, "fit it first"),
        ([[1.0, 2.0], "abc"], TypeError, "1-D curve"),
        (np.ones((2, 3)), TypeError, "1-D curve"),
        ({"a": np.array([])}, ValueError, "non-empty 1-D"),
        (3.0, TypeError, "1-D curve"),
    ],
)
def test_loss_curve_errors(curves, error, match):
    with pytest.raises(error, match=match):
        plot_loss_curve(curves)


def test_missing_matplotlib_gives_a_clear_error(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(ImportError, match="skseq.plotting needs matplotlib"):
        plot_loss_curve([1.0, 0.5])


# -- labels are drawn literally ---------------------------------------------------

# One label mathtext cannot parse (savefig would raise), one it would misrender
# (two dollar signs make "5 or " math italic).
DOLLARS = [r"$\notacommand$", "$5 or $10"]


def _save(fig):
    fig.savefig(io.BytesIO(), format="png")


def _drawn_labels(ax):
    legend = ax.get_legend()
    texts = list(ax.texts) + ax.get_yticklabels()
    texts += list(legend.get_texts()) if legend is not None else []
    return {t.get_text(): t for t in texts if "$" in t.get_text()}


def test_these_labels_do_break_mathtext():
    fig, ax = plt.subplots()
    ax.text(0.5, 0.5, DOLLARS[0])
    with pytest.raises(ValueError, match="Unknown symbol"):
        _save(fig)


@pytest.mark.parametrize("draw", [
    lambda: plot_state_proba([[0.9, 0.1], [0.2, 0.8]], state_labels=DOLLARS),
    lambda: plot_state_proba([[0.9, 0.1], [0.2, 0.8]], kind="heatmap",
                             state_labels=DOLLARS),
    lambda: plot_automaton(DFA(2, DOLLARS, [[1, 0], [1, 1]], 0, [1]),
                           state_labels=DOLLARS),
    lambda: plot_automaton([[0.5, 0.5], [0.0, 1.0]], state_labels=DOLLARS),
    lambda: plot_loss_curve({DOLLARS[0]: [2.0, 1.0], DOLLARS[1]: [3.0, 1.0]}),
], ids=["area", "heatmap", "dfa", "matrix", "loss"])
def test_dollar_signs_in_labels_are_drawn_literally(draw):
    ax = draw()
    _save(ax.figure)  # mathtext would raise here
    drawn = _drawn_labels(ax)
    assert set(DOLLARS) <= set(drawn)
    assert not any(t.get_parse_math() for t in drawn.values())


def test_automaton_edge_labels_with_commas_are_unambiguous():
    # "a,b" and "c" on one edge must not read like the three symbols a, b, c.
    dfa = DFA(2, ["a,b", "c", "d"], [[1, 1, 0], [1, 1, 1]], 0, [1])
    ax = plot_automaton(dfa)
    texts = sorted(t.get_text() for t in ax.texts)
    assert texts == sorted(["0", "1", "d", '"a,b",c', '"a,b",c,d'])


# -- arguments of every function ----------------------------------------------

PROBA = np.array([[0.9, 0.1], [0.2, 0.8]])


@pytest.mark.parametrize("draw", [
    lambda ax: plot_state_proba(PROBA, ax=ax),
    lambda ax: plot_state_proba(PROBA, ax=ax, kind="heatmap"),
    lambda ax: plot_step_labels({"a": [0, 1]}, ax=ax),
    lambda ax: plot_automaton(PROBA, ax=ax),
    lambda ax: plot_loss_curve([1.0, 0.5], ax=ax),
])
@pytest.mark.parametrize("ax, match", [
    ("axes", "got str"), (3, "got int"), ("figure", r"got Figure \(its axes: fig.gca"),
])
def test_ax_that_is_not_an_axes_is_refused_by_name(draw, ax, match):
    ax = plt.figure() if ax == "figure" else ax
    with pytest.raises(TypeError,
                       match=f"ax must be a matplotlib Axes or None, {match}"):
        draw(ax)


@pytest.mark.parametrize("proba", [
    [PROBA, PROBA[:1]],  # the whole result of predict_state_proba on a list
    [["a", "b"]],
])
def test_state_proba_that_is_no_array_says_what_to_pass(proba):
    with pytest.raises(TypeError, match=r"ONE sequence.*predict_state_proba\(X\)\[i\]"):
        plot_state_proba(proba)


@pytest.mark.parametrize("matrix", [IOHMMClassifier(), "abc"])
def test_automaton_of_neither_dfa_nor_matrix_names_both(matrix):
    with pytest.raises(TypeError, match="Expected a skseq.automata.DFA or a "
                                        "transition matrix"):
        plot_automaton(matrix)


@pytest.mark.parametrize("min_proba", ["x", np.nan, 2.0, -0.1, None])
def test_automaton_min_proba_must_be_a_probability(min_proba):
    # nan or 2 drew no arrow at all, silently; "x" failed inside numpy
    with pytest.raises(ValueError, match="min_proba must be a probability"):
        plot_automaton(PROBA, min_proba=min_proba)


def test_step_labels_of_numbers_beside_text_keep_their_types():
    # Concatenated, the rows' labels became strings ("0"), and the number 0 of
    # the first row was then "not in classes" nobody gave.
    ax = plot_step_labels({"truth": [0, 1, 1], "guess": ["0", "x", "x"]})
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    # order of appearance (unsortable); the string "0" by its repr, else the
    # legend would list 0 twice
    assert legend == ["0", "1", "'0'", "x"]
    colors = [c.get_facecolor() for c in ax.collections]
    # the number 0 and the string "0" are different labels: different colours
    np.testing.assert_raises(AssertionError, np.testing.assert_array_equal,
                             colors[0][0], colors[1][0])


def test_loss_curve_of_a_pandas_series():
    # refused as "Expected an estimator with loss_curve_ or a 1-D curve"
    ax = plot_loss_curve({"a": pd.Series([3.0, 2.0]), "b": [4.0, 1.0, 0.5]})
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), [3.0, 2.0])
    np.testing.assert_array_equal(ax.lines[1].get_ydata(), [4.0, 1.0, 0.5])


# -- what a plot would show wrong is refused -----------------------------------
def test_loss_curve_on_a_log_axis_refuses_a_non_positive_objective():
    # matplotlib leaves such a point out without a word: the curve drawn
    # would skip iteration 2
    with pytest.raises(ValueError, match=r"curve 'em' is -1.0 at iteration 2"):
        plot_loss_curve({"lbfgs": [3.0, 1.0], "em": [2.0, -1.0, 0.5]}, logy=True)
    with pytest.raises(ValueError, match=r"curve 0 is 0.0 at iteration 1"):
        plot_loss_curve([0.0, 1.0], logy=True)
    ax = plot_loss_curve([2.0, -1.0])  # a linear axis shows it
    assert ax.lines[0].get_ydata().tolist() == [2.0, -1.0]


def test_step_labels_never_share_a_colour():
    labels = list(range(12))
    with pytest.raises(ValueError, match=r"'Set1' gives 9 distinct colours for 12"):
        plot_step_labels({"x": labels}, cmap="Set1")
    with pytest.raises(ValueError, match=r"'turbo' gives \d+ distinct colours for 300"):
        plot_step_labels({"x": list(range(300))})
    # the message advises a colormap that works ('turbo', the default's last
    # resort, holds 256 colours)
    with pytest.raises(ValueError, match=r"from_list\('labels', matplotlib"
                                         r"\.colormaps\['turbo'\]\.colors, N=300\)"):
        plot_step_labels({"x": list(range(300))})
    cmap = LinearSegmentedColormap.from_list(
        "labels", matplotlib.colormaps["turbo"].colors, N=300)
    ax = plot_step_labels({"x": list(range(300))}, cmap=cmap)
    assert len({tuple(c) for c in ax.collections[0].get_facecolors()}) == 300
    ax = plot_step_labels({"x": labels}, cmap="viridis")
    assert len({tuple(c) for c in ax.collections[0].get_facecolors()}) == 12


def test_step_labels_classes_given_twice_are_refused():
    with pytest.raises(ValueError, match="classes holds 1 twice"):
        plot_step_labels({"x": [1, 1, 2]}, classes=[1, 2, 1])


def test_state_labels_as_one_string_are_refused():
    with pytest.raises(TypeError, match="got the string 'ab'"):
        plot_state_proba([[0.5, 0.5]], state_labels="ab")


def test_state_labels_not_a_list_are_named_and_a_generator_is_read():
    # a bare "object of type 'int' has no len()" named no argument
    with pytest.raises(TypeError, match="state_labels must be a list of 2 labels, "
                                        "one per state, got int"):
        plot_state_proba([[0.5, 0.5]], state_labels=2)
    with pytest.raises(TypeError, match="state_labels must be a list of 2 labels"):
        plot_automaton([[0.5, 0.5], [0.0, 1.0]], state_labels=2)
    ax = plot_state_proba([[0.5, 0.5]], kind="heatmap",
                          state_labels=(name for name in ["lo", "hi"]))
    assert [t.get_text() for t in ax.get_yticklabels()] == ["lo", "hi"]


def test_automaton_leaves_out_transitions_of_probability_zero():
    ax = plot_automaton([[1.0, 0.0], [0.5, 0.5]], min_proba=0.0)
    assert sorted(t.get_text() for t in ax.texts) == ["0", "0.50", "0.50", "1",
                                                      "1.00"]


def test_state_proba_per_level_says_to_pick_a_level_and_a_sequence():
    # HierarchicalIOHMM's predict_state_proba on a list: one list of sequences
    # per level; the message said to pass predict_state_proba(X)[i], which is
    # a level's list of sequences, refused again with the same advice
    levels = [[PROBA, PROBA[:1]], [np.ones((3, 3)) / 3, np.ones((1, 3)) / 3]]
    with pytest.raises(TypeError, match=r"predict_state_proba\(X\)\[level\]\[i\]"):
        plot_state_proba(levels)
    with pytest.raises(TypeError, match=r"predict_state_proba\(X\)\[i\]"):
        plot_state_proba(levels[0])
    assert len(plot_state_proba(levels[1][0]).collections) == 3


def test_nullable_integer_labels_read_as_integers_in_the_legend():
    # pandas' Int64 with a missing step became floats: the legend read "1.0"
    from skseq.plotting import plot_step_labels
    from skseq.utils import segments

    truth = pd.array([1, 1, 2, None], dtype="Int64")
    ax = plot_step_labels({"truth": truth, "guess": pd.array([1, 2, 2, 2],
                                                             dtype="Int64")})
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["1", "2"]
    plt.close(ax.figure)
    starts, stops, labels = segments(pd.Series(truth))
    assert starts.tolist() == [0, 2, 3] and stops.tolist() == [2, 3, 4]
    assert labels.tolist() == [1, 2, None]
    assert [type(v) for v in labels[:2]] == [int, int]
    # without a missing step, as before: the integers' own array
    assert segments(pd.Series([1, 1, 2], dtype="Int64"))[2].dtype.kind == "i"


def test_automaton_edge_below_half_a_hundredth_is_not_labelled_zero():
    # a drawn edge of probability 0.003 read "0.00"
    from skseq.plotting import plot_automaton

    matrix = np.array([[0.997, 0.003], [0.5, 0.5]])
    ax = plot_automaton(matrix, min_proba=0.001)
    texts = [t.get_text() for t in ax.texts]
    assert "<0.01" in texts and "0.00" not in texts
    assert texts.count("0.50") == 2 and "1.00" in texts
    plt.close(ax.figure)


def _legend(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_legends_tell_apart_labels_that_print_the_same():
    # 1 and "1" were both listed as "1"; labels that print differently keep
    # their str
    ax = plot_step_labels({"truth": np.array([2, 1, "1"], dtype=object)},
                          classes=[2, 1, "1"])
    assert _legend(ax) == ["2", "1", "'1'"]
    ax = plot_loss_curve({1: [3.0, 2.0], "1": [3.0, 1.0], "x": [2.0, 1.0]})
    assert _legend(ax) == ["1", "'1'", "x"]
    proba = np.array([[0.2, 0.3, 0.5]])
    ax = plot_state_proba(proba, state_labels=[np.int64(1), "1", "s"])
    assert _legend(ax) == ["1", "'1'", "s"]
    ax = plot_state_proba(proba, state_labels=[1, "1", "s"], kind="heatmap")
    assert [t.get_text() for t in ax.get_yticklabels()] == ["1", "'1'", "s"]
    # even the reprs coincide: the positions tell them apart
    ax = plot_state_proba(proba, state_labels=["a", "a", "b"])
    assert _legend(ax) == ["'a' (0)", "'a' (1)", "b"]


def test_automaton_edges_tell_apart_symbols_that_print_the_same():
    dfa = DFA(2, [1, "1"], [[1, 0], [1, 1]], start=0, accepting=[1])
    ax = plot_automaton(dfa, state_labels=["A", "B"])
    assert [t.get_text() for t in ax.texts] == ["A", "B", "1", "'1'", "1,'1'"]



@pytest.mark.parametrize("draw", [plot_state_proba, plot_automaton])
def test_a_value_out_of_range_is_named_as_a_plain_number(draw):
    """The entry was shown as numpy's repr: 'entry [0, 1] is np.float64(-0.1)'."""
    with pytest.raises(ValueError, match=r"entry \[0, 1\] is -0\.1\.$"):
        draw(np.array([[1.0, -0.1], [0.5, 0.5]]))
