"""A sequence of sample_weight 0 in a fit across a Dask cluster is left out on
the worker that holds it, as a local fit leaves it out: the fit equals, to the
last bit, the Dask fit of the shards without it, and the local fit wherever
the sums over shards are the local sums (all the sequences of weight > 0 in
one shard).

An in-process ``LocalCluster`` of two workers, shared by the tests of this
module (test_dask.py runs the fits in worker processes)."""

import logging

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.base import clone

from skseq import HierarchicalIOHMM, IOHMMClassifier, IOHMMRegressor
from skseq.representations import ShapeFeatures

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
import dask  # noqa: E402 (after the skip: dask comes with distributed)

pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning")

_FITTED = ("startprob_", "transition_coef_", "transition_intercept_",
           "emission_coef_", "emission_intercept_", "n_iter_", "objective_",
           "loss_curve_", "n_init_", "init_objectives_", "features_", "alpha_",
           "log_likelihood_")


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                 processes=False, dashboard_address=":0",
                                 silence_logs=logging.ERROR) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def _flat(value):
    """Arrays of a list (the hierarchy's, one per level) joined into one."""
    if isinstance(value, list | tuple) and value and np.ndim(value[0]):
        return np.concatenate([np.ravel(v) for v in value])
    return np.asarray(value)


def _assert_same_fit(fitted, reference):
    for name in _FITTED:
        assert_array_equal(_flat(getattr(fitted, name)),
                           _flat(getattr(reference, name)), err_msg=name)


def _with_zeros(X, y, X0, y0, places):
    """X and y with the sequences X0 (targets y0) inserted before the
    sequences ``places`` (one place each) and their weights: 0 for these."""
    Xz, yz, zero = list(X), list(y), []
    for x0, t0, at in sorted(zip(X0, y0, places, strict=True),
                             key=lambda item: -item[2]):
        Xz.insert(at, x0)
        yz.insert(at, t0)
    for at in sorted(places):
        zero.append(at + len(zero))
    weight = np.ones(len(Xz))
    weight[zero] = 0.0
    return Xz, yz, weight


def _chunks(seqs, sizes):
    """A list of delayed shards of ``sizes`` sequences each."""
    bounds = np.cumsum([0, *sizes])
    assert bounds[-1] == len(seqs)
    return [dask.delayed(seqs[a:b]) for a, b in zip(bounds[:-1], bounds[1:],
                                                    strict=True)]


def test_auto_restarts_count_the_weighted_steps(client):
    """n_init="auto" counts the steps of the sequences of weight > 0 (2,100:
    47 restarts; with the 1,360 steps of weight 0 they were counted, 28),
    whether they fill a shard (left out as an empty one) or lie among
    sequences of weight > 0: the fit of the shards without them, bit for
    bit."""
    rng = np.random.default_rng(1)
    X = [rng.normal(size=(n, 2)) for n in (600, 500, 500, 500)]
    y = [x[:, 0] - x[:, 1] for x in X]
    X0 = [5 * rng.normal(size=(n, 2)) for n in (700, 400, 260)]
    Xz, yz, weight = _with_zeros(X, y, X0, [10 * x[:, 0] for x in X0], [0, 0, 2])
    est = IOHMMRegressor(2, max_iter=1, random_state=0)
    with_zeros = clone(est).fit(_chunks(Xz, [2, 2, 3]), yz, sample_weight=weight)
    without = clone(est).fit(_chunks(X, [2, 2]), y)
    assert without.n_init_ == 100_000 // 2100
    _assert_same_fit(with_zeros, without)


@pytest.mark.parametrize("est", [
    IOHMMRegressor(2, features="auto", n_init=1, max_iter=3, random_state=0),
    HierarchicalIOHMM((2, 2), timescales=(4, 1), task="regression", n_init=1,
                      max_iter=3, random_state=0),
])
def test_auto_features_read_the_weighted_sequences(client, est):
    """features="auto" reads +-1 codes as raw steps: a real-valued sequence of
    weight 0 made the cluster's fit choose another representation. With the
    sequences of weight > 0 in one shard, the fit is the local one bit for
    bit; all weights 0 give the local error, and leave the model as it was."""
    rng = np.random.default_rng(2)
    X = [rng.choice([-1.0, 1.0], size=(n, 2)) for n in (6, 7, 5, 8, 6, 7)]
    y = [float(x[:, 0].sum()) for x in X]
    Xz, yz, weight = _with_zeros(X, y, [rng.normal(size=(12, 2))], [3.0], [4])
    local = clone(est).fit(X, y)
    assert local.features_ == "raw"
    dist = clone(est).fit(_chunks(Xz, [7]), yz, sample_weight=weight)
    _assert_same_fit(dist, local)
    with pytest.raises(ValueError) as local_error:
        clone(est).fit(Xz, yz, sample_weight=np.zeros(7))
    with pytest.raises(ValueError) as dask_error:
        dist.fit(_chunks(Xz, [3, 4]), yz, sample_weight=np.zeros(7))
    assert str(dask_error.value) == str(local_error.value)
    _assert_same_fit(dist, local)


def test_class_of_weight_zero_on_the_shape_representation(client):
    """A class only sequences of weight 0 carry stays in ``classes_`` and is
    left out of the rest: the representation (fitted on the sequences of
    weight > 0, read out without the class), alpha="auto" and the fit are
    the local fit's, bit for bit with the sequences of weight > 0 in one
    shard (n_prefixes=[1.0], the sequences themselves, as 1)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(16, 12, 1)).cumsum(axis=1)
    y = (X[:, -1, 0] > 0).astype(int)
    Xz = np.concatenate([3 * rng.normal(size=(3, 12, 1)).cumsum(axis=1), X])
    yz = np.concatenate([[2, 2, 2], y])
    weight = np.r_[np.zeros(3), np.ones(16)]
    est = IOHMMClassifier(2, alpha="auto", n_prefixes=[1.0], max_iter=3,
                          features=ShapeFeatures(n_indicators=84),
                          random_state=0)
    local = clone(est).fit(Xz, yz, sample_weight=weight)
    assert_array_equal(local.classes_, [0, 1, 2])
    # a shard of weight 0, then one whose first sequence weighs 0
    dist = clone(est).fit(da.from_array(Xz, chunks=((2, 17), 12, 1)), yz,
                          sample_weight=weight)
    for name in ("projection_", "offset_"):
        assert_array_equal(getattr(dist.representation_, name),
                           getattr(local.representation_, name), err_msg=name)
    _assert_same_fit(dist, local)


def test_class_weight_zero_is_sample_weight_zero(client):
    """class_weight={1: 0} leaves the sequences of class 1 out on their
    workers, as sample_weight 0 does: n_init="auto" counts the other steps
    (2,120: 47 restarts; with the 1,260 of class 1 they were counted, 29), and
    the fit is the same bit for bit, whether they fill a shard or lie among
    the others."""
    rng = np.random.default_rng(4)
    X = [rng.normal(size=(n, 2)) for n in (700, 300, 800, 400, 620, 560)]
    y = np.array([0, 1, 0, 1, 2, 1])
    X[1], X[3], X[5] = (3 * x for x in (X[1], X[3], X[5]))
    est = IOHMMClassifier(2, features="raw", max_iter=1, random_state=0)
    chunks = _chunks(X, [1, 1, 4])
    by_class = clone(est).set_params(class_weight={1: 0}).fit(chunks, y)
    by_sample = clone(est).fit(chunks, y, sample_weight=(y != 1).astype(float))
    assert by_sample.n_init_ == 100_000 // 2120
    _assert_same_fit(by_class, by_sample)


def test_unlabelled_sequence_is_left_out(client):
    """Step-level labels: a sequence none of whose steps is labelled is left
    out on its worker, as one of sample_weight 0: among labelled sequences
    in one shard, the fit is the local one without it, bit for bit (before,
    features="auto" read the real-valued unlabelled sequence and chose
    "window", not "raw")."""
    rng = np.random.default_rng(5)
    X = [rng.choice([-1.0, 1.0], size=(n, 2)) for n in (6, 7, 5, 8, 6, 7)]
    y = [(x[:, 0] > 0).astype(float) for x in X]
    X0, y0 = 3 * rng.normal(size=(9, 2)), np.full(9, np.nan)
    est = IOHMMClassifier(2, n_init=2, max_iter=3, random_state=0)
    local = clone(est).fit(X, y)
    assert local.features_ == "raw"
    dist = clone(est).fit(_chunks([*X[:2], X0, *X[2:]], [7]),
                          [*y[:2], y0, *y[2:]])
    _assert_same_fit(dist, local)


def test_fit_lengths_are_those_of_the_weighted_sequences(client):
    """The training lengths the predict-time hints compare with are those of
    the sequences read (3, 5 and 7 steps), not of the 50-step ones of weight
    0, as in a local fit."""
    rng = np.random.default_rng(3)
    X = [rng.normal(size=(n, 1)) for n in (3, 5, 7)]
    X0 = [rng.normal(size=(50, 1)) for _ in range(4)]
    Xz, yz, weight = _with_zeros(X, [0, 1, 0], X0, [1, 0, 1, 0], [0, 1, 3, 3])
    est = IOHMMClassifier(2, n_init=1, max_iter=2, random_state=0)
    est.fit(_chunks(Xz, [3, 4]), yz, sample_weight=weight)
    assert (est._max_fit_length, est._median_fit_length) == (7, 5.0)


def test_class_weight_counts_no_copies_as_locally(client):
    """With class weights, a Dask fit weighs the representation by the sample
    weights alone and counts copies by them, as a local fit does: the same
    representation, alpha="auto" and fit, with every sequence in one shard."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(16, 12, 1)).cumsum(axis=1)
    y = np.arange(16) % 3
    weight = rng.integers(1, 4, size=16).astype(float)
    est = IOHMMClassifier(2, alpha="auto", max_iter=3, class_weight="balanced",
                          features=ShapeFeatures(n_indicators=84), random_state=0)
    local = clone(est).fit(X, y, sample_weight=weight)
    dist = clone(est).fit(da.from_array(X, chunks=((16,), 12, 1)), y,
                          sample_weight=weight)
    for name in ("projection_", "offset_"):
        assert_array_equal(getattr(dist.representation_, name),
                           getattr(local.representation_, name), err_msg=name)
    _assert_same_fit(dist, local)
