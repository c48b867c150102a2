"""The IOHMM estimators on sequences held by a Dask cluster.

``fit`` on a Dask collection (:func:`fit_sharded`) takes the client of the
current Dask context (``distributed.get_client()``, as dask-ml's estimators
do), packs the shards on the workers (``skseq._fit.distributed``) and runs the
driver of ``skseq._base`` on a
:class:`~skseq._fit.distributed.ShardedProblem`: the same starting points, the
same solver, the same fitted attributes as a local fit of the same data.

What is decided on the client, and from what:

* the targets' encoding (classes, scaling) and the sample weights: from y
  and the sequences' lengths, brought to the client (one value per sequence);
  the sequences of weight 0 (by their sample or class weights) are then
  dropped on their workers
  (:meth:`~skseq._fit.distributed.Shards.keep_only`), and all that follows
  reads the others alone, as a local fit does;
* the input representation: fitted on whole sequences drawn at random, up to
  ``skseq._fit.distributed.SAMPLE_STEPS`` steps (all the sequences below it,
  which gives exactly the local fit), weighted as a local fit weighs them;
  ``features="raw"`` fits nothing; ``features="auto"`` resolves by the data's
  type alone (the hierarchy's held-out comparison of representations is not
  run across a cluster);
* the shape representation's supervised axes (``skseq._families.supervised``):
  the ridge read-out of a local fit, on the same rows (at most
  ``MAX_ROWS``, one per sequence, chosen from the sequences' layout), whose
  indicators' prefix means the workers holding them compute and the client
  gathers (at the defaults, 2,688 indicators and 16 levels per channel: for
  univariate series 54 MB at 2,500 rows); each worker's inputs take the rows'
  cross-fitted values;
* with a fitted representation (not ``"raw"``), the output networks' inputs at
  the supervised steps, one row per target, for ``alpha="auto"`` and the
  starting points.

The prediction methods decorated with :func:`dask_aware` return, on a Dask
collection, a collection of the same kind computed where the data live.
"""

import contextlib
import functools
import numbers

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.validation import (
    _check_feature_names,
    _check_n_features,
    _get_feature_names,
    check_is_fitted,
)

from ._data import (
    Sequences,
    accuracy,
    check_sequences,
    needs_lengths,
    restore_on_failure,
    score_targets,
)
from ._data.checks import check_rows, quiet_rows, record_fit_lengths
from ._data.dask import (
    block_shape,
    is_dask_collection,
    known_columns,
    shard_chunks,
    unsupported,
)
from ._data.prefixes import check_prefixes
from ._data.representation import refuse_out_of_memory, resolve_from
from ._data.thread_warnings import ignoring
from ._data.warm import keep_warm_names, refuse_warm_change
from ._data.weights import (
    CopyWeights,
    kept_targets,
    kept_weights,
    weighed_sequences,
)
from ._families.outputs import r2
from ._families.supervised import append_axes, read_out
from ._families.warm_axes import mark_axes, warm_axes
from ._fit.distributed import ShardedProblem, Shards
from ._fit.objective import Setup, fixed_startprob
from ._kernels._parallel import one_blas_thread

__all__ = ["dask_aware", "fit_sharded", "is_dask_collection", "score_dask"]


def _client():
    try:
        from distributed import get_client
    except ImportError as exc:  # pragma: no cover - the [dask] extra has it
        raise ImportError("fit on a Dask collection needs dask.distributed: pip "
                          "install 'skseq[dask]'.") from exc
    try:
        return get_client()
    except ValueError as exc:
        raise ValueError(
            "fit on a Dask collection needs a Dask client: create one first "
            "(distributed.Client(...)) or fit inside its context.") from exc


def _refuse_options(est):
    """The options a fit across shards does not support, refused up front."""
    if est.solver != "lbfgs":
        raise ValueError(
            f"On a Dask collection {type(est).__name__} fits with solver='lbfgs' "
            f"only (got solver={est.solver!r}): its evaluations are sums over "
            "sequences, which the shards give; the EM M-step is not.")
    if est.det_penalty:
        raise ValueError(
            f"det_penalty={est.det_penalty} is not supported on a Dask collection: "
            "pass det_penalty=0 or fit on NumPy data.")
    # (fractions all 1, [1.0], are the sequences themselves, as 1)
    n_prefixes = getattr(est, "n_prefixes", 1)
    whole = check_prefixes(n_prefixes)
    if not (isinstance(whole, numbers.Integral) and whole == 1):
        raise ValueError(
            f"n_prefixes={n_prefixes!r} is not supported on a Dask collection "
            "(the fit across shards reads the sequences themselves): pass "
            "n_prefixes=1 or fit on NumPy data.")


def _local(values, name):
    """A Dask array (or NumPy form) of per-sequence values, on the client."""
    if values is not None and is_dask_collection(values, name):
        import dask

        (values,) = dask.compute(values)
    return values


def fit_sharded(est, X, y, sample_weight=None):
    """``est.fit(X, y, sample_weight)`` for a Dask collection X."""
    with restore_on_failure(est):  # (its parameters validated by fit)
        _refuse_options(est)
        client = _client()
        n_features = getattr(est, "n_features_in_", None)
        shards = Shards.pack(client, X)
        if est._warm():
            refuse_warm_change("number of features", n_features, shards.n_features)
        names = est.__dict__.pop("feature_names_in_", None)
        if shards.feature_names is not None:  # as a local fit records them
            est.feature_names_in_ = shards.feature_names
        if est._warm():
            keep_warm_names(est, names)
        est.n_features_in_ = shards.n_features
        with one_blas_thread():
            problem, setup = _build_problem(est, client, shards, _local(y, "y"),
                                            _local(sample_weight, "sample_weight"))
            thetas0 = est._draw_starts(problem, setup)
            best, objectives = est._run_solver(problem, thetas0, setup.n_init)
            est._store_best(problem, setup, best, objectives)
    return est


def _build_problem(est, client, shards, y, sample_weight):
    """``BaseIOHMM._build_problem`` for sharded sequences: the decisions are
    the driver's own hooks; the data terms stay on the workers."""

    skeleton = shards.skeleton()
    weight, targets = est._encode_targets(skeleton, y, sample_weight)
    # class weights of sequence-level labels act as sample weights in all
    fit_weight, target_weight = est._target_weights(skeleton, targets, weight)
    # a sequence of weight 0 (by its sample or class weight) is read no
    # further (left out on its worker): the fit is that without it, as locally
    seq_of = skeleton.sequence_of(targets.steps)
    keep = weighed_sequences(seq_of, fit_weight, target_weight)
    if not keep.all():
        weight, fit_weight, target_weight = kept_weights(
            keep, seq_of, weight, fit_weight, target_weight)
        targets = kept_targets(shards.offsets, targets, keep)
        shards.keep_only(keep)
        skeleton = shards.skeleton()
    # those of the sequences read, as a local fit records them
    record_fit_lengths(est, skeleton.lengths)
    n = est._n_chain_states()
    mask = est._transition_mask()
    fixed_start = fixed_startprob(est.startprob, n)
    do_init = not est._warm()
    rng = check_random_state(est.random_state)
    axes = None
    # the weights that count copies: the sample weights, not the class weights
    copies = CopyWeights().counting(weight, fit_weight)
    if do_init:
        # weighed as a local fit weighs the representation's sequences
        weighed = None if sample_weight is None else copies.of(fit_weight)
        features, representation, axes = _represent(
            est, shards, targets, fit_weight, copies, weighed, rng)
    else:  # the fitted one, its supervised axes read anew, as locally
        features = est.features_
        representation, axes = warm_axes(est.representation_, functools.partial(
            _read_axes, est, shards, targets, fit_weight, copies))
    weight = fit_weight
    transition = est._make_transition(representation.n_state_features)
    emission = est.outputs_.make_emission(n, representation.n_output_features)
    families = (transition, emission, mask, fixed_start)
    problems = shards.problems(targets, weight, target_weight, representation,
                               families, est.n_jobs, axes)
    output_rows = None
    if features != "raw":
        output_rows = np.concatenate(client.gather(
            [client.submit(getattr, p, "U_targets") for p in problems]))
    alpha = est._alpha(features, output_rows, skeleton, targets, weight, copies)
    problem = ShardedProblem(client, shards, problems, targets, weight, families,
                             alpha, est.n_jobs, target_weight, output_rows,
                             est._transition_l1())
    n_init = est._n_init(shards.n_steps, features) if do_init else 1
    return problem, Setup(features, representation, (None, output_rows),
                           targets, weight, alpha, rng, do_init, n_init)


def _represent(est, shards, targets, weight, copies, weighed, rng):
    """The representation fitted on the client (its name and itself) and its
    supervised axes' ``(rows, values)`` (None without them): the sample of
    whole sequences fits it; the read-out reads the indicators at its rows,
    computed where the sequences are (``supervised.read_out``; ``weight`` and
    ``copies`` as :func:`_read_axes` takes them)."""
    features = resolve_from(est.features, shards.binary, shards.longest,
                            targets.step_level)
    # an estimator that records a held-out choice of features records none
    on_cluster = getattr(est, "_features_on_cluster", None)
    if on_cluster is not None:
        features = on_cluster(features)
    hint = getattr(est, "_hint_features", None)  # what the local fit warns of
    if hint is not None:
        hint(features, targets.step_level,
             resolve_from("auto", shards.binary, shards.longest), stacklevel=6)
    index, sample = shards.sample()
    representation = est._make_representation(features)
    with refuse_out_of_memory(est, features, sample.data.shape[0]):
        representation.fit(sample, rng, est.n_jobs, sample_weight=(
            None if weighed is None else weighed[index]))
    read = _read_axes(est, shards, targets, weight, copies, representation)
    axes = None if read is None else append_axes(representation, read)
    mark_axes(representation, 0 if axes is None or not axes[0].size
              else axes[1].shape[1])
    return representation.name, representation, axes


def _read_axes(est, shards, targets, weight, copies, representation):
    """``supervised.read_out`` of the representation, its indicators' means
    gathered from the workers, or None if it gets no supervised axes
    (``weight`` the fit's; ``copies`` the
    :class:`~skseq._data.weights.CopyWeights`)."""
    if not est._supervises(representation, targets):
        return None
    return read_out(representation, shards.skeleton(), targets, weight, copies,
                    means=functools.partial(shards.indicator_means, representation))


# -- predictions on Dask collections ----------------------------------------
def _per_block(method, est, args, kwargs, block, quiet=False):
    """A prediction method on one block; a per-step output of a padded block
    padded to the block's steps, so that the blocks line up. ``quiet``: a
    block of one-step rows is not warned of (the first block was). A block
    without sequences (which ``fit`` leaves out) gives an output of none, in
    the form and type of the others: a stand-in sequence's, cut to none."""
    empty = hasattr(block, "__len__") and len(block) == 0
    with quiet_rows(quiet or empty), _stand_in(est, block) as read:
        out = method(est, read, *args, **kwargs)
    if empty:
        out = out[:0]
    if not isinstance(block, np.ndarray):
        return out
    if isinstance(out, list):
        raise ValueError(
            f"{method.__name__} of this {type(est).__name__} gives per-step "
            "arrays in the form of its step-level targets, which a Dask array "
            "cannot hold: pass the sequences as a Dask bag (one array per "
            "sequence) to get a bag of them.")
    if block.ndim == 3 and _per_step(est, method):
        return block_shape(block, np.asarray(out))
    return out


@contextlib.contextmanager
def _stand_in(est, block):
    """``block``, or for a block without sequences one sequence of zeros in
    its form (a DataFrame keeps its columns; the missing names of another
    form are not warned of)."""
    if not (hasattr(block, "__len__") and len(block) == 0):
        yield block
    elif hasattr(block, "columns"):
        yield type(block)(np.zeros((1, len(block.columns))), columns=block.columns)
    else:
        if isinstance(block, np.ndarray) and block.ndim >= 2:
            read = np.zeros((1, *block.shape[1:-1], est.n_features_in_))
            read = read[:, :1] if read.ndim == 3 else read
        else:
            read = [np.zeros((1, est.n_features_in_))]
        with ignoring((UserWarning, "X does not have valid feature names")):
            yield read


def _on_collection(est, method, X, args, kwargs):
    """The method mapped over the shards of X: a Dask array for a Dask array
    (the first sequence is predicted on the client, to learn the output's
    shape and type; 2-D rows as the one-step sequences they are read as;
    blocks of unknown sizes, as a boolean mask leaves, are measured first), a
    bag for a bag, a list of delayed for a list."""
    import dask
    import dask.array as da
    import dask.bag as db

    check_is_fitted(est)
    if (args and args[0] is not None) or kwargs.get("y") is not None or (
            kwargs.get("return_std")):
        raise ValueError(
            f"{method.__name__} on a Dask collection takes the sequences alone "
            "(no y, no return_std); pass NumPy data for those.")
    if not isinstance(X, (da.Array, db.Bag, list, tuple)):
        raise unsupported(X)
    _check_known_names(est, X)
    call = functools.partial(_per_block, method, est, args, kwargs)
    # one-step rows in a bag's partitions or a list's chunks: warned of by the
    # first alone (their shape is known only where they are computed)
    quiet = functools.partial(call, quiet=True)
    if isinstance(X, db.Bag):
        return db.from_delayed([
            dask.delayed(_on_partition)(part, quiet if i else call)
            for i, part in enumerate(X.to_delayed(optimize_graph=False))])
    if not isinstance(X, da.Array):
        return [dask.delayed(quiet if i else call)(chunk)
                for i, chunk in enumerate(X)]
    if np.isnan(X.shape[0]):  # e.g. a boolean mask's: its blocks' sizes first
        X = X.compute_chunk_sizes()
    if X.ndim == 2:  # one-step rows: checked (and warned of) once, not per chunk
        check_rows(est, X.shape)
        X = X[:, None, :]
    X = X.rechunk({axis: -1 for axis in range(1, X.ndim)})
    probe = np.asarray(call(X[:1].compute()))
    blocks = [da.from_delayed(dask.delayed(call)(block),
                              shape=(size, *probe.shape[1:]), dtype=probe.dtype)
              for block, size in zip(X.to_delayed().ravel(), X.chunks[0],
                                     strict=True)]
    return da.concatenate(blocks, axis=0)


def _check_known_names(est, X):
    """The columns of the shards that are known without computing them (a
    Dask DataFrame's), checked at the call as a local prediction checks those
    of a DataFrame: names or a number of features that do not match raise its
    error here. Its warnings (names on one side only) are left to each shard,
    which warns when it is computed."""
    known = known_columns(X)
    if not known:
        return
    import pandas as pd  # a Dask DataFrame implies pandas

    for columns in known:
        frame = pd.DataFrame(columns=columns)
        # TypeError for names of mixed types, as locally
        if (_get_feature_names(frame) is not None
                and hasattr(est, "feature_names_in_")):
            _check_feature_names(est, frame, reset=False)
        _check_n_features(est, frame, reset=False)


def _on_partition(part, call):
    """The method on a bag's partition, as a list (an empty partition, which
    filters and repartitions leave, gives an empty one)."""
    part = list(part)
    return list(call(part)) if part else []


def _per_step(est, method):
    """Whether a method's output has a step axis (padded like X)."""
    return method.__name__ == "predict_state_proba" or bool(est.step_level_)


def dask_aware(method):
    """A prediction method that, given a Dask collection, returns one."""

    @functools.wraps(method)
    def wrapper(self, X, *args, **kwargs):
        if is_dask_collection(X):
            return _on_collection(self, method, X, args, kwargs)
        return method(self, X, *args, **kwargs)

    return wrapper


def score_dask(est, X, y, sample_weight=None):
    """``score`` on a Dask collection: a 0-d Dask array, the accuracy or R^2
    of the per-sequence predictions (computed where the data live) against y,
    as ``score`` on local data: the same checks of y and ``sample_weight``,
    with the same messages, and the same value. They are checked at the call
    where X is a Dask array (its number of sequences known) and y reads
    without the sequences' lengths; else once the lengths are known (computed
    where the sequences are, with the predictions)."""
    import dask
    import dask.array as da
    import dask.bag as db

    if est.step_level_:
        raise ValueError(
            "score on a Dask collection takes one target per sequence; this "
            f"{type(est).__name__} was fitted on step-level targets.")
    pred = est.predict(X)
    n = (X.shape[0] if isinstance(X, da.Array) and not np.isnan(X.shape[0])
         else None)
    lengths = None
    if (n is not None and not is_dask_collection(y, "y") and not needs_lengths(y)
            and not is_dask_collection(sample_weight, "sample_weight")):
        # the number of sequences is all the check needs: refused at the call
        skeleton = _skeleton(np.ones(n, dtype=np.intp))
        _, sample_weight = score_targets(y, skeleton, sample_weight,
                                         task=est.outputs_.task, step_level=False)
    else:
        # y, then the weights, as local score: both at compute, y's check
        # waiting for the sequences' lengths (or y's values)
        lengths = [dask.delayed(_chunk_lengths)(chunk)
                   for chunk in shard_chunks(X)[1]]
    if isinstance(pred, db.Bag):
        pred = dask.delayed(np.asarray)(pred)
    elif not isinstance(pred, da.Array):
        pred = dask.delayed(np.concatenate)(pred)
    value = dask.delayed(_score_predictions)(est.outputs_, y, pred, sample_weight,
                                             lengths)
    return da.from_delayed(value, shape=(), dtype=np.float64)


def _skeleton(lengths):
    """Sequences of these lengths without values (what checking y reads)."""
    return Sequences.skeleton(np.concatenate([[0], np.cumsum(lengths)]).astype(np.intp))


def _chunk_lengths(chunk):
    """The lengths of a chunk's sequences (none for an empty chunk)."""
    if not hasattr(chunk, "__len__"):
        chunk = list(chunk)
    if len(chunk) == 0:
        return np.zeros(0, dtype=np.intp)
    return check_sequences(chunk).lengths


def _score_predictions(outputs, y, pred, sample_weight, lengths):
    """The score of one target per sequence, as local ``score`` gives it:
    the accuracy (classification) or R^2 of the predictions ``pred``; y and
    the weights checked first as a local score checks them, if ``lengths``
    (the sequences' lengths, per chunk) are given (else they were checked at
    the call)."""
    if lengths is not None:
        skeleton = _skeleton(np.concatenate(lengths))
        _, sample_weight = score_targets(y, skeleton, sample_weight,
                                         task=outputs.task, step_level=False)
    if outputs.task == "classification":
        return accuracy(y, pred, outputs.classes_, sample_weight)
    outputs.check_width(y)
    return r2(y, pred, sample_weight)
