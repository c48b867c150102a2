"""One fit across a Dask cluster: the objective of data held in shards.

Each shard of sequences is checked and packed once on a worker
(:meth:`Shards.pack`), drops there its sequences of weight 0
(:meth:`Shards.keep_only`), becomes there a :class:`~skseq._fit.objective.Problem`
of its own sequences (:meth:`Shards.problems`), and stays there as a Dask
future. J(theta) is the prior plus sums over sequences
(``Problem.data_terms``), so :class:`ShardedProblem` maps the data terms over
the shards and adds them on the client, always in shard order: only parameter
vectors, values and gradients cross the network, and the sum is the same at
every evaluation. The futures are computed from the input's task graph, never
scattered: when a worker is lost, Dask recomputes its shards on another from
the graph, and the fit goes on with the same numbers.
"""

import re
from typing import NamedTuple

import numpy as np

from .._data import Sequences, Targets, check_sequences
from .._data.dask import shard_chunks
from .._data.names import check_same_names, shared_names
from .._data.weights import kept_sequences
from .objective import Problem, _fsum

__all__ = ["ShardedProblem", "Shards"]

# The representation is fitted on the client from whole sequences drawn at
# random, up to about this many steps (all of them below it).
SAMPLE_STEPS = 200_000


class _Summary(NamedTuple):
    """What the client learns of a packed shard: the sequences' lengths and
    what ``features="auto"`` reads (per column: the shard's min, max, and
    whether every value is one of them)."""

    lengths: np.ndarray
    n_features: int
    form: str
    low: np.ndarray
    high: np.ndarray
    two_valued: np.ndarray


def _check_shard(chunk):
    """A shard's sequences checked and packed; None for a shard without
    sequences (a Dask bag's empty partition, an empty delayed list), which
    the fit leaves out."""
    if hasattr(chunk, "__len__") and len(chunk) == 0:
        return None
    return check_sequences(chunk)


def _shard_names(chunk):
    """:func:`~skseq._data.names.shared_names` of a shard's sequences (an
    empty shard has none)."""
    if hasattr(chunk, "__len__") and len(chunk) == 0:
        return None, None, False
    return shared_names(chunk)


def _feature_names(found, starts):
    """The column names every sequence of the collection shares, or None, from
    the shards' :func:`_shard_names` (ValueError where two shards' differ, as a
    local fit names it)."""
    reference, at = None, None
    for (names, first, _), start in zip(found, starts, strict=True):
        if names is None:
            continue
        if reference is None:
            reference, at = names, start + first
        else:
            check_same_names(names, reference, start + first, at)
    return reference if all(complete for _, _, complete in found) else None


def _summarize(seqs):
    if seqs is None:
        return None
    U = seqs.data
    low, high = U.min(axis=0), U.max(axis=0)
    return _Summary(seqs.lengths, seqs.n_features, seqs.form, low, high,
                    ((U == low) | (U == high)).all(axis=0))


def _located(exc, start):
    """The error of a shard's data, its sequence indices counted from the
    start of the whole collection (as a local fit names them)."""
    if not isinstance(exc, (ValueError, TypeError)):
        return exc
    message = re.sub(r"\bsequence (\d+)",
                     lambda m: f"sequence {int(m.group(1)) + start}", str(exc))
    return type(exc)(message)


class Shards:
    """The packed shards of a Dask collection of sequences, held by the
    workers (futures), and their lengths, gathered once (and the column names
    all their sequences share, ``feature_names``, or None)."""

    def __init__(self, client, packed, summaries, feature_names=None):
        self.client = client
        self.feature_names = feature_names
        self.n_features = summaries[0].n_features
        self.form = summaries[0].form
        self._lay_out(packed, summaries)

    def _lay_out(self, packed, summaries):
        """The shards ``packed`` and what the client knows of them."""
        self.packed, self._summaries = packed, summaries
        self.lengths = [s.lengths for s in summaries]
        counts = np.array([len(lengths) for lengths in self.lengths])
        self.starts = np.concatenate([[0], np.cumsum(counts)])
        all_lengths = np.concatenate(self.lengths)
        self.offsets = np.concatenate([[0], np.cumsum(all_lengths)]).astype(np.intp)
        low = np.min([s.low for s in summaries], axis=0)
        high = np.max([s.high for s in summaries], axis=0)
        self.binary = bool(all(
            s.two_valued.all() and np.all((s.low == low) | (s.low == high))
            and np.all((s.high == low) | (s.high == high)) for s in summaries))

    @classmethod
    def pack(cls, client, X, name="X"):
        """Check and pack every shard of X on the workers (ValueError naming
        the first bad sequence of the collection, as a local fit does)."""
        import dask

        _, chunks = shard_chunks(X, name)
        # (in one computation with the checks: each chunk computed once)
        futures = client.compute(
            [dask.delayed(_check_shard)(chunk) for chunk in chunks]
            + [dask.delayed(_shard_names)(chunk) for chunk in chunks])
        packed, named = futures[:len(chunks)], futures[len(chunks):]
        summaries = [client.submit(_summarize, future) for future in packed]
        client.gather(summaries + named, errors="skip")
        start, done, kept, found, starts = 0, [], [], [], []
        for future, summary, names in zip(packed, summaries, named, strict=True):
            for step in (future, names):
                if step.status == "error":
                    raise _located(step.exception(), start)
            if summary.result() is None:  # no sequences: nothing to fit
                continue
            done.append(summary.result())
            kept.append(future)
            found.append(names.result())
            starts.append(start)
            if done[-1].n_features != done[0].n_features:
                raise ValueError(
                    f"{name}: sequence {start} has {done[-1].n_features} features, "
                    f"but sequence 0 has {done[0].n_features}.")
            start += len(done[-1].lengths)
        if not done:
            raise ValueError(
                f"{name} is empty: every shard of the collection has 0 "
                "sequences, while a minimum of 1 is required.")
        return cls(client, kept, done, _feature_names(found, starts))

    def keep_only(self, keep):
        """Leave out the sequences that ``keep`` (a boolean per sequence of
        the collection) does not mark, on the workers that hold them: a shard
        left without sequences is left out, as an empty one is; one that
        loses some is summarized anew (``features="auto"`` reads the
        sequences kept)."""
        packed, summaries, changed = [], [], []
        for k, future in enumerate(self.packed):
            local = keep[self.starts[k]:self.starts[k + 1]]
            if not local.any():
                continue
            if not local.all():
                future = self.client.submit(kept_sequences, future, local)
                changed.append(len(packed))
            packed.append(future)
            summaries.append(self._summaries[k])
        done = self.client.gather([self.client.submit(_summarize, packed[k])
                                   for k in changed])
        for k, summary in zip(changed, done, strict=True):
            summaries[k] = summary
        self._lay_out(packed, summaries)

    @property
    def longest(self):
        """The longest sequence's length."""
        return int(np.diff(self.offsets).max())

    @property
    def n_sequences(self):
        return int(self.starts[-1])

    @property
    def n_steps(self):
        return int(self.offsets[-1])

    def skeleton(self):
        """The sequences' layout without their values (a read-only array of
        zeros that takes no memory): what encoding the targets needs."""
        return Sequences.skeleton(self.offsets, self.n_features, self.form)

    def sample(self, max_steps=SAMPLE_STEPS):
        """``(index, seqs)``: whole sequences drawn at random (all of them if
        they hold at most ``max_steps`` steps), gathered to the client, in
        their order in the collection."""
        index = np.arange(self.n_sequences)
        if self.n_steps > max_steps:
            order = np.random.default_rng(0).permutation(self.n_sequences)
            lengths = np.diff(self.offsets)[order]
            keep = max(1, int(np.searchsorted(np.cumsum(lengths), max_steps,
                                              side="right")))
            index = np.sort(order[:keep])
        taken = self._gather(self.starts, index, _take)
        data = np.concatenate([t[0] for t in taken])
        lengths = np.concatenate([t[1] for t in taken])
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.intp)
        return index, Sequences(data=data, offsets=offsets, form=self.form)

    def indicator_means(self, representation, steps):
        """The prefix means of a fitted representation's indicators at the
        sorted packed steps ``steps`` of the collection, each computed on the
        worker that holds its sequence and gathered to the client (the
        supervised read-out's rows: at most
        ``skseq._families.supervised.MAX_ROWS``)."""
        return np.concatenate(self._gather(
            self.offsets[self.starts], steps, _indicator_means, representation))

    def _gather(self, bounds, index, func, *args):
        """``func(shard, local, *args)`` on each shard k that holds some of the
        sorted ``index`` (``local``: those in ``[bounds[k], bounds[k + 1])``,
        counted from ``bounds[k]``), gathered in shard order."""
        parts = []
        for k, future in enumerate(self.packed):
            a, b = bounds[k], bounds[k + 1]
            local = index[(index >= a) & (index < b)] - a
            if local.size:
                parts.append(self.client.submit(func, future, local, *args))
        return self.client.gather(parts)

    def problems(self, targets, weight, target_weight, representation, families,
                 n_jobs, axes=None):
        """A Problem of each shard's sequences on its worker (futures): the
        global targets and weights cut at the shards' boundaries, and the
        supervised axes' cross-fitted values (``axes``: their rows, indices
        into ``targets.steps``, and values; or None) at its rows. The packed
        shards are then let go: each lives on in its Problem (on the worker
        that packed it, unless Dask moved the task, which would otherwise
        leave two copies), and Dask can still recompute it from the graph."""
        rows, values = axes if axes is not None else (np.zeros(0, int), None)
        futures = []
        for k, future in enumerate(self.packed):
            a, b = self.starts[k], self.starts[k + 1]
            first, last = self.offsets[a], self.offsets[b]
            lo, hi = np.searchsorted(targets.steps, [first, last])
            held = (rows >= lo) & (rows < hi)
            futures.append(self.client.submit(
                _shard_problem, future,
                Targets(targets.steps[lo:hi] - first, targets.values[lo:hi],
                        targets.step_level),
                weight[a:b], None if target_weight is None else target_weight[lo:hi],
                representation, families, n_jobs,
                (rows[held] - lo, None if values is None else values[held])))
        self.packed = None
        return futures


def _take(seqs, index):
    """The packed steps and lengths of the sequences ``index`` of a shard."""
    rows = np.concatenate([np.arange(seqs.offsets[s], seqs.offsets[s + 1])
                           for s in index])
    return seqs.data[rows], seqs.lengths[index]


def _indicator_means(seqs, steps, representation):
    return representation.indicator_means(seqs, steps)


def _shard_problem(seqs, targets, weight, target_weight, representation,
                   families, n_jobs, axes):
    transition, emission, mask, fixed_start = families
    inputs = representation.inputs(seqs, targets.steps, n_jobs)
    rows, values = axes  # the supervised axes' cross-fitted values
    if rows.size:
        inputs[1][rows, -values.shape[1]:] = values
    # The prior is the client's (ShardedProblem): a shard only gives data terms.
    return Problem(seqs, targets, weight, transition, emission, mask,
                   fixed_start, 0.0, n_jobs, target_weight=target_weight,
                   inputs=inputs)


def _facts(problem):
    """What the driver's messages say of a shard's inputs."""
    return (problem.input_magnitude(), problem.one_hot_inputs(),
            *problem.input_moments())


def _call(problem, method, thetas):
    return getattr(problem, method)(thetas)


class ShardedProblem(Problem):
    """The fitting problem of sequences held in shards by Dask workers, with
    the interface of :class:`~skseq._fit.objective.Problem` the lbfgs solver
    and the driver use: the data terms are the sum, in shard order, of the
    shards' own (each shard's :class:`Problem` on its worker); the prior and
    everything that depends only on theta are the client's."""

    def __init__(self, client, shards, problems, targets, weight, families,
                 alpha, n_jobs, target_weight=None, output_rows=None,
                 transition_l1=0.0):
        transition, emission, mask, fixed_start = families
        # The driver sizes the lockstep restarts by the number of steps: the
        # state inputs' shape, without their values.
        U = np.broadcast_to(np.zeros(1), (shards.n_steps, 0))
        if output_rows is None:
            output_rows = np.broadcast_to(np.zeros(1), (targets.steps.size, 0))
        super().__init__(shards.skeleton(), targets, weight, transition, emission,
                         mask, fixed_start, alpha, n_jobs,
                         target_weight=target_weight, inputs=(U, output_rows),
                         transition_l1=transition_l1)
        self.client = client
        self.shard_problems = problems
        self._shard_facts = client.gather([client.submit(_facts, p)
                                           for p in problems])

    def _map(self, method, thetas):
        thetas = np.ascontiguousarray(thetas, dtype=np.float64)
        return self.client.gather([
            self.client.submit(_call, p, method, thetas, pure=False)
            for p in self.shard_problems])

    def data_terms(self, thetas):
        parts = self._map("data_terms", thetas)
        values = np.array([_fsum(column)
                           for column in zip(*[v for v, _ in parts], strict=True)])
        grads = parts[0][1].copy()
        for _, g in parts[1:]:
            grads += g
        return values, grads

    def logliks(self, thetas):
        return np.concatenate(self._map("logliks", thetas), axis=1)

    def e_step(self, theta):
        raise NotImplementedError("the sharded problem has the lbfgs solver only")

    def input_magnitude(self):
        return max(f[0] for f in self._shard_facts)

    def one_hot_inputs(self):
        return all(f[1] for f in self._shard_facts)

    def input_moments(self):
        n = np.array([f[2] for f in self._shard_facts], dtype=np.float64)
        means = np.array([f[3] for f in self._shard_facts])
        stds = np.array([f[4] for f in self._shard_facts])
        with np.errstate(over="ignore", invalid="ignore"):  # as each shard's
            mean = n @ means / n.sum()
            var = n @ (stds**2 + (means - mean) ** 2) / n.sum()
        return int(n.sum()), mean, np.sqrt(var)


