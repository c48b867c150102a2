"""The representation an IOHMM reads, chosen on held-out training sequences.

:func:`held_out_features` deals the training sequences to ``N_FOLDS`` folds
(stratified when every sequence has one label), fits the estimator per
candidate representation on all folds but one, scores it on that one, and
returns the candidate whose mean score is best. It serves the estimators whose
``features="auto"`` is a choice from the data rather than a rule on the data's
type (:class:`skseq.hierarchical.HierarchicalIOHMM`).

Each ranking fit is the final fit's procedure on 4/5 of the sequences: the
same number of restarts (``n_init``, or the number ``"auto"`` gives the whole
training set), at most ``MAX_RANKING_INITS``. Two halves fitted with one
restart each ranked a representation by how often its single start failed
and by how much it lost on half the data: on the 2-sequence problem of the
long-memory results, raw steps need most of the 60 training sequences and
more than one hold start, and the shape representation neither (Kohavi
1995 and Hastie, Tibshirani & Friedman 2009, §7.10.1: a held-out estimate
fitted on few of the sequences is biased against the learner whose accuracy
still rises with more of them).

Of a large training set only a stratified draw of ``MAX_RANKED`` distinct
sequences is ranked: the ranking fits' cost grows with the sequences while
the choice needs only enough held-out sequences to tell the candidates
apart (on PLAID's 537 training series, 250 leave the choice and cut the
default's fit time: ``doc/results/hierarchical_panel.md``).
"""

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import _safe_indexing, check_random_state

from ._data.held_out import held_out_folds, held_out_subsample, sequence_keys
from ._data.representation import is_auto, resolve
from ._data.thread_warnings import ignoring

N_FOLDS = 5
# At most this many distinct training sequences take part in the ranking
# (a stratified draw), 4/5 of them in each ranking fit.
MAX_RANKED = 250
# At most this many restarts per ranking fit: the 2-sequence problem's raw
# steps need more than 3 (n_init="auto" gives them 7); the panel's small sets
# get 11-50, and with 10 their raw steps scored as well on held-out series
# (doc/results/hierarchical_panel.md) at half the cost or less.
MAX_RANKING_INITS = 10


def rule_or_raw(estimator, seqs, y, targets, weight, weighted):
    """``features="auto"`` chosen on held-out sequences: the representation
    the flat rule (:func:`~skseq._data.representation.resolve`) names, or raw
    steps; the choice and the held-out scores (None: no comparison, when
    ``features`` is not ``"auto"``, e.g. a representation object, or the rule
    names raw steps)."""
    rule = resolve(estimator.features, seqs, targets.step_level)
    if not is_auto(estimator.features) or rule == "raw":
        return rule, None
    chosen, scores = held_out_features(estimator, seqs, y, targets, weight,
                                       weighted, ("raw", rule))
    return (rule, None) if scores is None else (chosen, scores)


def held_out_features(estimator, seqs, y, targets, weight, weighted, candidates):
    """The best of ``candidates`` on held-out training sequences and the
    held-out score of each (a dict; None, and the first candidate, when no
    split exists).

    The training sequences (at most about ``MAX_RANKED``, a stratified draw)
    are dealt to ``N_FOLDS`` folds; each candidate's model (a clone of
    ``estimator`` with that ``features``, the final fit's number of restarts
    up to ``MAX_RANKING_INITS`` and a seed drawn from ``random_state``) is
    fitted on all folds but one (weighted by ``weight`` if ``weighted``) and
    scored by its ``score`` (accuracy or R^2, weighted alike, at most 1) on that one; a
    candidate's score is the mean over the folds. The first candidate wins
    ties and is ranked last: once even perfect scores on its remaining folds
    cannot reach the best mean, it is not fitted on them (the choice is that
    of all folds) and its score is the mean over the folds fitted. A fit that
    fails scores -inf. The folds are drawn over the distinct sequences (equal
    ones in the same fold, those of weight 0 never held out), so that they
    depend neither on their order nor on a weight written as repetitions;
    with one label per sequence they are stratified and need 2 distinct
    sequences of every class, and they need 4 sequences of positive weight.
    """
    rng = check_random_state(estimator.random_state)
    seed = rng.randint(np.iinfo(np.int32).max)
    classify = estimator.outputs_.task == "classification"
    labels = targets.values if classify and not targets.step_level else None
    split_rng = np.random.RandomState(seed)
    keys = held_out_subsample(MAX_RANKED, split_rng, labels,
                              sequence_keys(seqs, weight if weighted else None))
    folds = (held_out_folds(N_FOLDS, split_rng, labels, keys)
             if np.sum(~np.isnan(keys)) >= 4 else None)
    if folds is None:
        return candidates[0], None
    parts = _fold_parts(seqs.unpack(seqs.data), y, weight if weighted else None,
                        keys, folds)
    n_steps = seqs.data.shape[0]
    scores = {}
    for name in (*candidates[1:], candidates[0]):
        rivals = max(scores.values(), default=-np.inf)
        fold_scores = []
        for k, part in enumerate(parts):
            if np.sum(fold_scores) + len(parts) - k < rivals * len(parts) - 1e-9:
                break  # cannot reach the best mean any more
            fold_scores.append(_held_out_score(
                estimator, name,
                min(estimator._n_init(n_steps, name), MAX_RANKING_INITS),
                seed, *part))
        scores[name] = float(np.mean(fold_scores))
    scores = {name: scores[name] for name in candidates}
    best = max(candidates, key=lambda name: scores[name])  # first of the ties
    if estimator.verbose:
        print("features='auto': held-out score "
              + ", ".join(f"{name!r} {score:.4f}" for name, score in scores.items())
              + f": {best!r}", flush=True)
    return best, scores


def _fold_parts(X, y, weight, keys, folds):
    """Per fold with a held-out weight, the (X, y, weight) it is fitted on and
    the one it is scored on, each in the order of the keys (the fits do not
    see the given order)."""
    parts = []
    for fold in range(folds.max() + 1):
        part = []
        for side in (~np.isnan(keys) & (folds != fold), folds == fold):
            rows = np.flatnonzero(side)
            rows = rows[np.argsort(keys[rows], kind="stable")]
            part.append((_safe_indexing(X, rows), _safe_indexing(y, rows),
                         None if weight is None else weight[rows]))
        held_weight = (part[1][2] if weight is not None
                       else np.ones(np.sum(folds == fold)))
        if np.sum(held_weight) > 0:
            parts.append(part)
    return parts


def _held_out_score(estimator, features, n_init, seed, fit_part, held_part):
    """The ``score`` on ``held_part`` of ``estimator`` with ``features`` and
    ``n_init`` restarts, fitted on ``fit_part`` (-inf if that fit fails)."""
    model = clone(estimator).set_params(
        features=features, n_init=n_init, random_state=seed, verbose=0,
        warm_start=False)
    try:
        with ignoring((ConvergenceWarning, "")):  # this thread's, not others'
            model.fit(*fit_part[:2], sample_weight=fit_part[2])
    except ValueError:  # e.g. every restart diverged on these inputs
        return -np.inf
    return float(model.score(*held_part[:2], sample_weight=held_part[2]))
