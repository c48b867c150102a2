"""skseq on a Dask cluster (DESIGN §5): model selection through joblib's Dask
backend, and one fit across the workers of sequences held by the cluster.

A real ``dask.distributed.LocalCluster`` with two worker processes, shared by
the tests of this module. The reference of a fit across the cluster is the
local fit of the same data: the same restarts and iterations, parameters
equal to 1e-10 (the sums over sequences are grouped by shard, so only their
rounding may differ).
"""

import logging
import os
import pickle
import signal

import joblib
import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

from skseq import IOHMMClassifier, IOHMMRegressor
from skseq.datasets import make_tomita

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
db = pytest.importorskip("dask.bag")
import dask  # noqa: E402 (after the skip: dask comes with distributed)
from dask.delayed import Delayed  # noqa: E402

from skseq._fit import distributed as sharded  # noqa: E402
from skseq.representations import ShapeFeatures  # noqa: E402

pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning")

PARAMS = ("startprob_", "transition_coef_", "transition_intercept_",
          "emission_coef_", "emission_intercept_")


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                 dashboard_address=None,
                                 silence_logs=logging.ERROR) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def _padded(n=90, max_len=10, n_features=2, seed=0):
    """NaN-padded sequences of 3 to max_len steps and labels of their sums."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, max_len, n_features))
    lengths = rng.integers(3, max_len + 1, n)
    for i, length in enumerate(lengths):
        X[i, length:] = np.nan
    return X, (np.nansum(X[:, :, 0], axis=1) > 0).astype(int)


def _assert_same_fit(dist, local):
    assert dist.n_iter_ == local.n_iter_
    assert_allclose(dist.init_objectives_, local.init_objectives_, rtol=1e-12)
    for name in PARAMS:
        assert_allclose(getattr(dist, name), getattr(local, name), rtol=0,
                        atol=1e-10, err_msg=name)


def test_grid_search_on_local_dask_cluster_matches_local_run(client):
    X, y = make_tomita(4, n_samples=60, random_state=0)
    search = GridSearchCV(
        IOHMMClassifier(emission="state", n_init=2, max_iter=60, random_state=0),
        {"n_states": [2, 3, 4]},
        # A continuous score too, so that the comparison is not only of counts.
        scoring=["accuracy", "neg_log_loss"],
        refit="accuracy",
        cv=3,
    )
    with joblib.parallel_backend("sequential"):
        expected = clone(search).fit(X, y).cv_results_

    with (
        distributed.get_task_stream(client) as tasks,
        joblib.parallel_backend("dask"),
    ):
        result = clone(search).set_params(n_jobs=-1).fit(X, y)
        workers = set(client.scheduler_info()["workers"])

    # The 9 fits (3 candidates x 3 folds) ran on the cluster's workers.
    ran_on = {task["worker"] for task in tasks.data}
    assert len(tasks.data) >= 9
    assert ran_on and ran_on <= workers

    cv_results = result.cv_results_
    for k in range(3):
        assert_array_equal(cv_results[f"split{k}_test_accuracy"],
                           expected[f"split{k}_test_accuracy"])
        assert_allclose(cv_results[f"split{k}_test_neg_log_loss"],
                        expected[f"split{k}_test_neg_log_loss"], rtol=1e-10)
    assert_array_equal(cv_results["rank_test_accuracy"],
                       expected["rank_test_accuracy"])
    best = np.argmin(expected["rank_test_accuracy"])
    assert result.best_params_ == expected["params"][best]


def test_sharded_objective_is_the_local_one(client):
    # J and its gradient at random points: the sum over three uneven shards
    # against the Problem of all the data, and against finite differences.
    X, y = _padded(40)
    clf = IOHMMClassifier(2, features="raw", startprob="learn", alpha=0.3)
    Xd = da.from_array(X, chunks=(7, 10, 2))
    shards = sharded.Shards.pack(client, Xd)
    clf.fit(X, y)  # the local problem, rebuilt below from the same settings
    local, _ = clf._build_problem(clf._validate_X(X, reset=False), y, None)
    from skseq._base_dask import _build_problem
    dist, _ = _build_problem(clf, client, shards, y, None)
    thetas = np.random.default_rng(1).normal(size=(3, local.n_params))
    v_local, g_local = local.values_and_grads(thetas)
    v_dist, g_dist = dist.values_and_grads(thetas)
    assert_allclose(v_dist, v_local, rtol=1e-13)
    assert_allclose(g_dist, g_local, rtol=1e-11, atol=1e-14)
    eps, e = 1e-6, np.eye(local.n_params)[5]
    fd = (dist.value_and_grad(thetas[0] + eps * e)[0]
          - dist.value_and_grad(thetas[0] - eps * e)[0]) / (2 * eps)
    assert_allclose(g_dist[0, 5], fd, rtol=1e-6)


def test_classifier_fit_and_predictions_on_a_dask_array(client):
    X, y = _padded()
    kw = dict(n_states=2, features="raw", n_init=3, max_iter=25, random_state=0)
    local = IOHMMClassifier(**kw).fit(X, y)
    Xd = da.from_array(X, chunks=(40, 5, 2))  # uneven shards, steps split too
    dist = IOHMMClassifier(**kw).fit(Xd, da.from_array(y, chunks=40))
    _assert_same_fit(dist, local)
    assert dist.n_features_in_ == 2
    predicted = dist.predict(Xd)
    proba = dist.predict_proba(Xd)
    states = dist.predict_state_proba(Xd)
    score = dist.score(Xd, y)
    for out in (predicted, proba, states, score):
        assert isinstance(out, da.Array)
    assert_array_equal(predicted.compute(), local.predict(X))
    assert_allclose(proba.compute(), local.predict_proba(X), atol=1e-10)
    assert_allclose(states.compute(), local.predict_state_proba(X), atol=1e-10)
    assert float(score.compute()) == local.score(X, y)
    # labels of another kind than the classes: refused, as on local data
    with pytest.raises(ValueError, match="Mix of label input types"):
        dist.score(Xd, np.where(y == 1, "b", "a")).compute()
    # 2-D one-step rows: checked and warned of once for the whole array, in
    # its words, not for each chunk (run here on the client's thread, where
    # the chunks' warnings would be seen), the one-step sequences' predictions
    rows = np.nan_to_num(X[:, 0])
    with pytest.warns(UserWarning, match=r"2-D table \(90 rows of 2 features\)"
                      ) as record:
        got = dist.predict(da.from_array(rows, chunks=40)).compute(scheduler="sync")
    assert sum("2-D table" in str(w.message) for w in record) == 1
    assert_array_equal(got, local.predict(rows[:, None, :]))
    with pytest.raises(ValueError, match=r"expecting 2 features.*\(90 rows of 1"):
        dist.predict(da.from_array(rows[:, :1], chunks=40))


def test_regressor_fit_on_a_bag_and_delayed_chunks(client):
    X, _ = _padded(60, seed=2)
    seqs = [x[~np.isnan(x).all(axis=1)] for x in X]
    y = np.array([s[:, 1].mean() for s in seqs])
    weight = np.linspace(0.5, 2.0, 60)
    kw = dict(n_states=2, features="raw", n_init=2, max_iter=20, random_state=0)
    local = IOHMMRegressor(**kw).fit(seqs, y, sample_weight=weight)
    bag = db.from_sequence(seqs, npartitions=3)
    on_bag = IOHMMRegressor(**kw).fit(bag, y, sample_weight=weight)
    _assert_same_fit(on_bag, local)
    assert_allclose(float(on_bag.score(bag, y).compute()), local.score(seqs, y),
                    rtol=1e-10)
    local = IOHMMRegressor(**kw).fit(seqs, y)
    chunks = [dask.delayed(seqs[a:a + 25]) for a in range(0, 60, 25)]
    dist = IOHMMRegressor(**kw).fit(chunks, y)
    _assert_same_fit(dist, local)
    predicted = dist.predict(bag)
    assert isinstance(predicted, db.Bag)
    assert_allclose(np.array(predicted.compute()), local.predict(seqs), atol=1e-10)
    pieces = dist.predict(chunks)
    assert_allclose(np.concatenate(dask.compute(*pieces)), local.predict(seqs),
                    atol=1e-10)


def test_empty_partitions_are_left_out(client):
    # A bag's filter or repartition leaves empty partitions, and a list of
    # delayed chunks may hold an empty one: they hold no sequence, so the fit
    # is that of the others (and predictions skip them), not "X is empty".
    X, y = _padded(40, seed=3)
    seqs = [x[~np.isnan(x).all(axis=1)] for x in X]
    kw = dict(n_states=2, features="raw", n_init=1, max_iter=15, random_state=0)
    local = IOHMMClassifier(**kw).fit(seqs, y)
    bag = db.from_delayed([dask.delayed(seqs[:15]), dask.delayed([]),
                           dask.delayed(seqs[15:])])
    assert bag.npartitions == 3
    _assert_same_fit(IOHMMClassifier(**kw).fit(bag, y), local)
    assert_array_equal(np.array(local.predict(bag).compute()), local.predict(seqs))
    chunks = [dask.delayed(seqs[:15]), dask.delayed([]), dask.delayed(seqs[15:])]
    _assert_same_fit(IOHMMClassifier(**kw).fit(chunks, y), local)
    with pytest.raises(ValueError, match="every shard of the collection has 0"):
        IOHMMClassifier(**kw).fit(db.from_delayed([dask.delayed([])] * 2), [])


def _shape_data(seed=5):
    X = np.random.default_rng(seed).normal(size=(40, 24, 1)).cumsum(axis=1)
    return X, (X[:, -1, 0] > 0).astype(int)


def test_one_step_rows_in_a_bag_or_delayed_chunks_warn_once():
    # Each chunk of one-step rows warned for itself; now the first alone does
    # (run on this thread, where every chunk's warning would be seen), and
    # the predictions are those of the rows passed at once.
    X, y = _padded(20, max_len=4, seed=4)
    kw = dict(n_states=2, features="raw", n_init=1, max_iter=3, random_state=0)
    model = IOHMMClassifier(**kw).fit(np.nan_to_num(X), y)
    rows = np.nan_to_num(X[:, 0])
    expected = model.predict(rows[:, None, :])
    for collection in ([dask.delayed(rows[a:a + 7]) for a in range(0, 20, 7)],
                       db.from_sequence(rows.tolist(), npartitions=3)):
        with pytest.warns(UserWarning, match=r"2-D table \(7 rows") as record:
            got = dask.compute(model.predict(collection), scheduler="sync")[0]
        assert sum("2-D table" in str(w.message) for w in record) == 1
        assert_array_equal(np.concatenate([np.ravel(g) for g in got]), expected)


def test_shape_representation_and_alpha_auto(client):
    # features="auto" picks "shape" for real-valued series; fitted on the
    # sequences gathered from the workers (all of them, at this size), its
    # supervised axes read from the indicators the workers compute at the
    # read-out's rows, and alpha="auto" chosen from the output rows gathered
    # too: the local fit, its representation bit for bit. A representation
    # object given as features is fitted there the same way.
    X, y = _shape_data()
    kw = dict(n_states=2, alpha="auto", max_iter=10, random_state=0)
    local = IOHMMClassifier(**kw).fit(X, y)
    without = ShapeFeatures(supervised=False)
    unsupervised = IOHMMClassifier(**kw, features=without).fit(X, y)
    assert (local.representation_.n_output_features
            == unsupervised.representation_.n_output_features + 1)
    dist = IOHMMClassifier(**kw).fit(da.from_array(X, chunks=15), y)
    assert dist.features_ == local.features_ == "shape"
    assert dist.alpha_ == local.alpha_
    for name in ("projection_", "offset_"):
        assert_array_equal(getattr(dist.representation_, name),
                           getattr(local.representation_, name), err_msg=name)
    _assert_same_fit(dist, local)
    dist = IOHMMClassifier(**kw, features=without).fit(da.from_array(X, chunks=15), y)
    assert dist.features_ == "shape" and dist.alpha_ == unsupervised.alpha_
    assert not hasattr(without, "projection_")
    _assert_same_fit(dist, unsupervised)


def test_warm_start_rereads_the_supervised_axes_as_locally(client):
    # A warm refit on a Dask collection of the data of a (local) cold fit
    # continues it as a local warm refit does: the supervised axis is read
    # cross-fitted again, so alpha="auto" chooses what the cold fit chose
    # (read in sample, the axis separated the training set and alpha fell to
    # the floor, 1e-2); on new data, the read-out of the new data, as locally.
    X, y = _shape_data()
    cold = IOHMMClassifier(n_states=2, alpha="auto", max_iter=10,
                           random_state=0).fit(X, y)
    for data in (_shape_data(), _shape_data(seed=1)):
        dist, local = (pickle.loads(pickle.dumps(cold)).set_params(
            warm_start=True, max_iter=1) for _ in range(2))
        dist.fit(da.from_array(data[0], chunks=20), data[1])
        local.fit(*data)
        assert dist.alpha_ == local.alpha_ > 1e-2
        for name in ("projection_", "offset_"):
            assert_array_equal(getattr(dist.representation_, name),
                               getattr(local.representation_, name), err_msg=name)
        _assert_same_fit(dist, local)
    # on new data, the axis read anew
    assert not np.array_equal(local.representation_.projection_,
                              cold.representation_.projection_)


def test_one_shard_gives_the_local_fit_bit_for_bit(client):
    # The default classifier with class weights (which weigh the
    # representation's sequences and its read-out) on one shard: the sums
    # over shards are the local sums, so every fitted number is the local one.
    X, y = _shape_data()
    kw = dict(class_weight={0: 2, 1: 1}, max_iter=5, random_state=1)
    local = IOHMMClassifier(**kw).fit(X, y)
    dist = IOHMMClassifier(**kw).fit(da.from_array(X, chunks=40), y)
    assert dist.alpha_ == local.alpha_
    assert_array_equal(dist.representation_.projection_,
                       local.representation_.projection_)
    for name in ("init_objectives_", *PARAMS):
        assert_array_equal(getattr(dist, name), getattr(local, name), err_msg=name)


def test_step_level_labels_on_a_dask_array(client):
    X, _ = _padded(50, seed=4)
    seqs = [x[~np.isnan(x).all(axis=1)] for x in X]
    y = [(np.cumsum(s[:, 0]) > 0).astype(int) for s in seqs]
    kw = dict(n_states=2, features="raw", n_init=1, max_iter=15, random_state=0)
    local = IOHMMClassifier(**kw).fit(X, y)
    Xd = da.from_array(X, chunks=20)
    dist = IOHMMClassifier(**kw).fit(Xd, y)
    _assert_same_fit(dist, local)
    # per-step labels in the targets' form: a bag of per-sequence arrays
    bag = db.from_sequence(seqs, npartitions=2)
    for got, expected in zip(dist.predict(bag).compute(), local.predict(seqs),
                             strict=True):
        assert_array_equal(got, expected)
    assert_allclose(dist.predict_state_proba(Xd).compute(),
                    local.predict_state_proba(X), atol=1e-10)
    with pytest.raises(ValueError, match="pass the sequences as a Dask bag"):
        dist.predict(Xd)
    with pytest.raises(ValueError, match="one target per sequence"):
        dist.score(Xd, y)


def test_bad_shard_gives_the_local_error(client):
    X, y = _padded()
    X[57, 1, 0] = np.nan  # inside sequence 57, in the third shard
    with pytest.raises(ValueError) as local_error:
        IOHMMClassifier(2).fit(X, y)
    clf = IOHMMClassifier(2)
    with pytest.raises(ValueError) as dask_error:
        clf.fit(da.from_array(X, chunks=25), y)
    assert str(dask_error.value) == str(local_error.value)
    assert "sequence 57" in str(dask_error.value)
    assert not hasattr(clf, "n_features_in_")
    with pytest.raises(ValueError, match="solver='lbfgs' only"):
        IOHMMClassifier(2, solver="em").fit(da.from_array(X, chunks=25), y)
    X[57, 1, 0] = 0.0
    reg = IOHMMRegressor(2, max_iter=2).fit(X, y.astype(float))
    with pytest.raises(ValueError, match="no y, no return_std"):
        reg.predict(da.from_array(X, chunks=25), y)


def test_fit_survives_a_killed_worker(client, monkeypatch):
    # Kill the worker process holding the first shard at the third evaluation:
    # Dask recomputes its shards from the input's graph, the fit goes on and
    # ends where the local fit does. (Last in the module: the nanny restarts
    # the worker, but the cluster is not what it was.)
    X, y = _padded(60, seed=3)
    kw = dict(n_states=2, features="raw", n_init=2, max_iter=15, random_state=0)
    local = IOHMMClassifier(**kw).fit(X, y)
    data_terms = sharded.ShardedProblem.data_terms
    calls, killed = [], []

    def killing(self, thetas):
        calls.append(1)
        if len(calls) == 3:
            holder = next(iter(client.who_has([self.shard_problems[0]]).values()))
            killed.extend(client.run(os.getpid, workers=list(holder)).values())
            os.kill(killed[0], signal.SIGKILL)
        return data_terms(self, thetas)

    monkeypatch.setattr(sharded.ShardedProblem, "data_terms", killing)
    dist = IOHMMClassifier(**kw).fit(da.from_array(X, chunks=20), y)
    assert len(calls) > 3
    assert killed and killed[0] not in client.run(os.getpid).values()
    _assert_same_fit(dist, local)


def test_column_names_of_dataframes_are_recorded_and_checked(client):
    # DataFrames in a bag or in delayed lists carry names: the fit records
    # feature_names_in_ as a local fit does, predict checks them where the
    # data live, and names that differ between shards are refused
    pd = pytest.importorskip("pandas")
    X, y = _padded(12, seed=4)
    frames = [pd.DataFrame(x[~np.isnan(x).all(axis=1)], columns=["a", "b"])
              for x in X]
    kw = dict(n_states=2, features="raw", n_init=1, max_iter=2, random_state=0)
    local = IOHMMClassifier(**kw).fit(frames, y)
    assert_array_equal(local.feature_names_in_, ["a", "b"])
    dist = IOHMMClassifier(**kw).fit(db.from_sequence(frames, npartitions=2), y)
    assert_array_equal(dist.feature_names_in_, local.feature_names_in_)
    renamed = [f.rename(columns={"b": "c"}) for f in frames]
    with pytest.raises(ValueError, match="Feature names unseen at fit time"):
        dask.compute(*dist.predict([dask.delayed(renamed[:5])]))
    with pytest.raises(ValueError, match=r"sequence 5's column names differ from "
                       r"sequence 0's \(\['a', 'b'\]\): \['c'\] in place of \['b'\]"):
        IOHMMClassifier(**kw).fit([dask.delayed(frames[:5]),
                                   dask.delayed(renamed[5:])], y)


class _Frame(Delayed):
    """A Dask collection computing a DataFrame of one-step rows whose columns
    are known without computing it, as a Dask DataFrame's ``columns`` are."""

    __slots__ = ("columns",)

    def __init__(self, frame):
        lazy = dask.delayed(frame, traverse=False)
        super().__init__(lazy.key, lazy.dask)
        self.columns = frame.columns


@pytest.mark.filterwarnings("ignore:X has feature names")
def test_names_known_without_computing_are_checked_at_the_call():
    # the local predict's errors, raised by predict itself (nothing computed);
    # names the shards hold only when computed are checked there
    import pandas as pd
    rng = np.random.default_rng(5)
    rows = pd.DataFrame(rng.normal(size=(30, 2)), columns=["a", "b"])
    y = (rows["a"] > 0).to_numpy(int)
    clf = IOHMMClassifier(2, n_init=1, max_iter=2, random_state=0).fit(rows, y)
    plain = IOHMMClassifier(2, n_init=1, max_iter=2, random_state=0).fit(
        rows.to_numpy(), y)
    for model, frame in [(clf, rows.rename(columns={"b": "c"})),
                         (clf, rows[["b", "a"]]),
                         (plain, rows.assign(c=1.0))]:
        with pytest.raises(ValueError) as local:
            model.predict(frame)
        with pytest.raises(ValueError) as at_call:
            model.predict([_Frame(rows), _Frame(frame)])
        assert str(at_call.value) == str(local.value)
    got = dask.compute(*clf.predict([_Frame(rows[:10]), _Frame(rows[10:])]),
                       scheduler="sync")
    assert_array_equal(np.concatenate(got), clf.predict(rows))
    with pytest.raises(TypeError, match="X is a _Frame; on a Dask cluster"):
        clf.predict(_Frame(rows))


def test_regressor_hint_on_one_target_per_sequence_holds_on_a_cluster(client):
    # a fit across a cluster resolves its features on its own path: it gives
    # the hint a local fit of raw steps to one target per sequence gives
    from skseq.exceptions import InputHintWarning

    X, _ = _padded(30, seed=3)
    seqs = [x[~np.isnan(x).all(axis=1)] for x in X]
    y = np.array([s[:, 1].mean() for s in seqs])
    bag = db.from_sequence(seqs, npartitions=2)
    kw = dict(n_states=2, n_init=1, max_iter=5, random_state=0)
    with pytest.warns(InputHintWarning, match="features='shape'") as local:
        IOHMMRegressor(**kw).fit(seqs, y)
    with pytest.warns(InputHintWarning, match="features='shape'") as on_bag:
        IOHMMRegressor(**kw).fit(bag, y)
    hints = [w for w in on_bag if issubclass(w.category, InputHintWarning)]
    assert len(hints) == 1 and str(hints[0].message) == str(
        [w for w in local if issubclass(w.category, InputHintWarning)][0].message)
    assert hints[0].filename == __file__  # points at the caller's fit
