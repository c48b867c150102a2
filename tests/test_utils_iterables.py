"""The helpers on per-step labels (``segments``, ``boundary_f1_score``) read
one-pass iterables (generators, iterators) once, as they read lists, and
refuse what holds no ordered labels with an error naming the argument."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from skseq.utils import boundary_f1_score, segments

# hand-worked: true boundaries at steps 2 (sequence 0) and 3 (sequence 1),
# predicted at 1 (sequence 0) and 3 (sequence 1): one of two matched at
# tolerance 0 (F1 1/2), both at tolerance 1 (F1 1)
TRUE = [[0, 0, 1, 1], ["a", "a", "a", "b"]]
PRED = [[0, 1, 1, 1], ["a", "a", "a", "b"]]


@pytest.mark.parametrize("form", [
    lambda seqs: (s for s in seqs),  # a generator of sequences
    lambda seqs: iter(seqs),  # an iterator of them
    lambda seqs: map(np.asarray, seqs),
    lambda seqs: [iter(s) for s in seqs],  # every sequence an iterator
    lambda seqs: (iter(s) for s in seqs),  # both
], ids=["generator", "iterator", "map", "iterator items", "both"])
def test_boundary_f1_score_reads_one_pass_iterables(form):
    assert boundary_f1_score(form(TRUE), form(PRED)) == 0.5
    assert boundary_f1_score(form(TRUE), PRED, tolerance=1) == 1.0
    assert boundary_f1_score(TRUE, form(PRED), tolerance=1) == 1.0


def test_one_sequence_as_a_generator():
    # one sequence: boundary at 2 against 1 and 2 (precision 1/2, recall 1)
    assert boundary_f1_score(iter([0, 0, 1, 1]), (v for v in [0, 1, 0, 0])) == (
        pytest.approx(2 / 3))
    starts, stops, labels = segments(v for v in ["x", "x", "y", "x"])
    assert_array_equal(starts, [0, 2, 3])
    assert_array_equal(stops, [2, 3, 4])
    assert_array_equal(labels, ["x", "y", "x"])
    assert_array_equal(segments(iter([5]))[0], [0])


@pytest.mark.parametrize("y_true, message", [
    (3, "y_true must hold per-step labels .*got int"),
    (None, "y_true must hold per-step labels .*got NoneType"),
    (np.array(3), "y_true must hold per-step labels .*got ndarray"),
    ({(0, 1), (1, 1)}, "y_true is a set, which has no order"),
    ({0: [0, 1]}, "y_true is a dict, which has no order"),
])
def test_what_holds_no_ordered_labels_is_refused_by_name(y_true, message):
    with pytest.raises(TypeError, match=message):
        boundary_f1_score(y_true, [[0, 1]])
    with pytest.raises(TypeError, match=message.replace("y_true", "y_pred")):
        boundary_f1_score([[0, 1]], y_true)


def test_an_empty_iterator_has_no_sequence():
    with pytest.raises(ValueError, match="y_true has 0 sequences"):
        boundary_f1_score(iter([]), [[0]])
