"""The representation an IOHMM reads, chosen on held-out training sequences.

:func:`held_out_features` splits the training sequences in two halves (half
of each class when every sequence has one label), fits the estimator once per
candidate representation on each half, scores it on the other, and returns
the candidate whose mean score is best. It serves the estimators whose
``features="auto"`` is a choice from the data rather than a rule on the data's
type (:class:`skseq.hierarchical.HierarchicalIOHMM`).
"""

import warnings

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import _safe_indexing, check_random_state

from ._data.held_out import held_out_half, sequence_keys
from ._data.representation import resolve

# The ranking fits: restarts each (the first kind of start of ``init``), which
# keeps their cost near that of one full fit on the shape representation.
RANKING_N_INIT = 1


def rule_or_raw(estimator, seqs, y, targets, weight, weighted):
    """``features="auto"`` chosen on held-out sequences: the representation
    the flat rule (:func:`~skseq._data.representation.resolve`) names, or raw
    steps; the choice and the held-out scores (None: no comparison, when
    ``features`` is not ``"auto"`` or the rule names raw steps)."""
    rule = resolve(estimator.features, seqs, targets.step_level)
    if estimator.features != "auto" or rule == "raw":
        return rule, None
    chosen, scores = held_out_features(estimator, seqs, y, targets, weight,
                                       weighted, ("raw", rule))
    return (rule, None) if scores is None else (chosen, scores)


def held_out_features(estimator, seqs, y, targets, weight, weighted, candidates):
    """The best of ``candidates`` on held-out training sequences and the
    held-out score of each (a dict; None, and the first candidate, when no
    split exists).

    The training sequences are split in two halves; each candidate's model (a
    clone of ``estimator`` with that ``features``, ``RANKING_N_INIT`` restarts
    and a seed drawn from ``random_state``) is fitted on each half (weighted by
    ``weight`` if ``weighted``) and scored by its ``score`` (accuracy or R^2,
    weighted alike) on the other; a candidate's score is the mean of the two.
    The first candidate wins ties; a fit that fails scores -inf. The split is
    drawn over the distinct sequences (equal ones on the same side, those of
    weight 0 never held out), so that it depends neither on their order nor on
    a weight written as repetitions; with one label per sequence it is
    stratified and needs 2 distinct sequences of every class, and it needs 4
    sequences of positive weight.
    """
    rng = check_random_state(estimator.random_state)
    seed = rng.randint(np.iinfo(np.int32).max)
    classify = estimator.outputs_.task == "classification"
    labels = targets.values if classify and not targets.step_level else None
    keys = sequence_keys(seqs, weight if weighted else None)
    held = (held_out_half(seqs.n_sequences, np.random.RandomState(seed), labels,
                          keys) if np.sum(~np.isnan(keys)) >= 4 else None)
    if held is None:
        return candidates[0], None
    X = seqs.unpack(seqs.data)
    halves = []
    for half in (held, ~held & ~np.isnan(keys)):
        rows = np.flatnonzero(half)
        # in the order of their keys: the fits do not see the given order
        rows = rows[np.argsort(keys[rows], kind="stable")]
        halves.append((_safe_indexing(X, rows), _safe_indexing(y, rows),
                       weight[rows] if weighted else None))
    scores = {name: float(np.mean([
        _held_out_score(estimator, name, seed, halves[k], halves[1 - k])
        for k in (0, 1)])) for name in candidates}
    best = max(candidates, key=lambda name: scores[name])  # first of the ties
    if estimator.verbose:
        print("features='auto': held-out score "
              + ", ".join(f"{name!r} {score:.4f}" for name, score in scores.items())
              + f": {best!r}", flush=True)
    return best, scores


def _held_out_score(estimator, features, seed, fit_part, held_part):
    """The ``score`` on ``held_part`` of ``estimator`` with ``features``,
    fitted on ``fit_part`` (-inf if that fit fails)."""
    model = clone(estimator).set_params(
        features=features, n_init=RANKING_N_INIT, random_state=seed, verbose=0,
        warm_start=False)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(*fit_part[:2], sample_weight=fit_part[2])
    except ValueError:  # e.g. every restart diverged on these inputs
        return -np.inf
    return float(model.score(*held_part[:2], sample_weight=held_part[2]))
