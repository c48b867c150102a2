"""The representation an IOHMM reads, chosen on held-out training sequences.

:func:`held_out_features` fits the estimator once per candidate
representation on half of the training sequences (half of each class when
every sequence has one label), scores each by its conditional log-likelihood
of the other half, and returns the candidate that scores best. It serves the
estimators whose ``features="auto"`` is a choice from the data rather than a
rule on the data's type (:class:`skseq.hierarchical.HierarchicalIOHMM`).
"""

import warnings

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import _safe_indexing, check_random_state

from ._data.held_out import held_out_half, sequence_keys
from ._data.representation import resolve

# The ranking fits: restarts each (the first kind of start of ``init``).
# Measured on the panel and the 2-sequence problem (doc/results/
# hierarchical_panel.md): one restart ranks the candidates as the full fits do.
RANKING_N_INIT = 1


def rule_or_raw(estimator, seqs, y, targets, weight, weighted):
    """``features="auto"`` chosen on held-out sequences: the representation
    the flat rule (:func:`~skseq._data.representation.resolve`) names, or raw
    steps; the choice and the held-out scores (None: no comparison, when
    ``features`` is not ``"auto"`` or the rule names raw steps)."""
    rule = resolve(estimator.features, seqs, targets.step_level)
    if estimator.features != "auto" or rule == "raw":
        return rule, None
    return held_out_features(estimator, seqs, y, targets, weight, weighted,
                             (rule, "raw"))


def held_out_features(estimator, seqs, y, targets, weight, weighted, candidates):
    """The best of ``candidates`` on held-out training sequences and the
    held-out score of each (a dict; None when no split exists).

    Each candidate's model is a clone of ``estimator`` with that ``features``,
    ``RANKING_N_INIT`` restarts and a seed drawn from ``random_state``, fitted on
    the other sequences (weighted by ``weight`` if ``weighted``) and scored by
    its mean log-likelihood per held-out sequence (weighted alike): a proper
    score, finer than the accuracy, whose ties on a few held-out sequences
    are common. The first candidate wins ties; a candidate whose fit fails
    scores -inf. The split is drawn over the distinct sequences (equal ones on
    the same side, those of weight 0 never held out), so that it depends
    neither on their order nor on a weight written as repetitions; with one
    label per sequence it is stratified and needs 2 distinct sequences of
    every class: otherwise, and with fewer than 4 sequences of positive
    weight, the first candidate is returned unscored.
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
    parts = []
    for part in (~held, held):
        rows = np.flatnonzero(part)
        # in the order of their keys: the fits do not see the given order
        rows = rows[np.argsort(keys[rows], kind="stable")]
        parts.append((_safe_indexing(X, rows), _safe_indexing(y, rows),
                      weight[rows] if weighted else None))
    scores = {name: _held_out_score(estimator, name, seed, *parts)
              for name in candidates}
    best = max(candidates, key=lambda name: scores[name])  # first of the ties
    if estimator.verbose:
        print("features='auto': held-out log-likelihood per sequence "
              + ", ".join(f"{name!r} {score:.4f}" for name, score in scores.items())
              + f": {best!r}", flush=True)
    return best, scores


def _held_out_score(estimator, features, seed, fit_part, held_part):
    """The held-out mean log-likelihood log P(y | u) per sequence of
    ``estimator`` with ``features``, fitted on ``fit_part`` (-inf if that fit
    fails)."""
    model = clone(estimator).set_params(
        features=features, n_init=RANKING_N_INIT, random_state=seed, verbose=0,
        warm_start=False)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(*fit_part[:2], sample_weight=fit_part[2])
    except ValueError:  # e.g. every restart diverged on these inputs
        return -np.inf
    log_likelihood = model.score_samples(*held_part[:2])
    return float(np.average(log_likelihood, weights=held_part[2]))
