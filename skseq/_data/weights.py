"""Sample and class weights: ``sample_weight`` in every accepted form, checked;
the sequences a fit reads (those of positive weight, class weights included);
class weights checked against the classes; the weights that count copies of a
sequence (:class:`CopyWeights`).
"""

from typing import NamedTuple

import numpy as np
from sklearn.utils.class_weight import compute_class_weight

from .sequences import Targets, _check_container, _object_as_float

__all__ = ["WHOLE_SEQUENCES", "CopyWeights", "check_class_weights",
           "check_sample_weight", "check_score_weight", "class_weights",
           "dict_class_weights", "finite_sum", "kept_sequences", "kept_targets",
           "kept_weights", "weighed_sequences", "weighted_only"]

# -- sample_weight --------------------------------------------------------------
# Beyond this ratio of an L2 penalty to the total sequence weight the data cannot
# move the fit, and the penalty's gradient (alpha * theta / sum(w)) overflows
# float64 once squared inside L-BFGS at ~1e150.
_MAX_PENALTY_RATIO = 1e100
# Why weights summing below the smallest normal float64 are refused, by a fit
# and by a score.
_TINY_FIT = "the objective's 1 / sum(sample_weight) overflows; use larger weights."
_TINY_SCORE = (
    "such numbers lose precision (1e-320 keeps 11 significant bits), so the "
    "weighted score would be rounded. Only the weights' ratios matter to the "
    "score: scale them up.")


def check_sample_weight(sample_weight, n_sequences, *, alpha=0.0):
    """Per-sequence weights: ones when None, else finite, non-negative, 1-D.

    A scalar is one weight for every sequence; the weights may not all be zero.
    ``alpha``, an L2 penalty weighed against the weighted log-likelihood *summed*
    over the sequences, may not exceed their total weight by more than a factor
    1e100: weights summing to 1e-198 with ``alpha=0.01`` make the penalty 1e196
    times the data's (only the ratio matters: the weights and ``alpha`` both
    times c give the same model).
    """
    weight = _weights(sample_weight, n_sequences, _TINY_FIT)
    total = weight.sum()
    with np.errstate(over="ignore"):
        ratio = alpha / total
    if ratio > _MAX_PENALTY_RATIO:
        given = "" if sample_weight is not None else " (1 per sequence, the default)"
        raise ValueError(
            f"sample_weight sums to {total:.3g}{given} while alpha={alpha:g}: the "
            "L2 penalty is weighed against the log-likelihood summed over the "
            f"sequences with these weights, so it outweighs the data by a factor "
            f"{ratio:.3g}, the data could not move the fit and its gradient "
            "overflows. Only the ratio matters (weights and alpha both times c give "
            "the same model): scale sample_weight up, e.g. to mean 1 with alpha "
            "divided by the same mean, or lower alpha."
        )
    return weight


def check_score_weight(sample_weight, n_sequences):
    """Per-sequence weights of a score, checked as :func:`check_sample_weight`
    checks a fit's (no penalty to weigh them against)."""
    return _weights(sample_weight, n_sequences, _TINY_SCORE)


def _weights(sample_weight, n_sequences, tiny):
    """The weights as a validated float64 array (ones when None); ``tiny``
    says why a sum below the smallest normal float64 is refused."""
    if sample_weight is None:
        return np.ones(n_sequences)
    _check_container(sample_weight, "sample_weight", "one weight per sequence")
    try:
        raw = np.asarray(sample_weight)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(
            "sample_weight must be one number per sequence, got a ragged nested "
            "list."
        ) from exc
    if raw.dtype.kind not in "biufO":
        raise ValueError(
            f"sample_weight must be numeric, got an array of dtype {raw.dtype}."
        )
    if raw.dtype.kind == "O":  # strings are never numbers, as in X
        weight = _object_as_float(raw, "sample_weight", None,
                                  hint="weights must be numbers.")
    else:
        weight = raw.astype(np.float64)
    if weight.ndim == 0:
        weight = np.full(n_sequences, float(weight))
    if weight.shape != (n_sequences,):
        raise ValueError(
            f"sample_weight.shape == {weight.shape}, expected ({n_sequences},): one "
            "weight per sequence."
        )
    bad = ~np.isfinite(weight) | (weight < 0)
    if bad.any():
        s = np.flatnonzero(bad)[0]
        raise ValueError(
            f"sample_weight must be finite and non-negative, got {weight[s]} for "
            f"sequence {s}."
        )
    total = finite_sum(weight, (
        "sample_weight sums to more than the largest float64 "
        f"({weight.max():.3g} for one sequence); use smaller weights."))
    if total <= 0:
        raise ValueError("sample_weight sums to zero: every sequence has weight 0.")
    if total < np.finfo(np.float64).tiny:
        raise ValueError(
            f"sample_weight sums to {total:.3g}, below the smallest normal float64: "
            + tiny)
    return weight


def weighted_only(seqs, targets, weights):
    """The sequences a fit reads (:func:`weighed_sequences`), their targets,
    their ``weights`` (:func:`kept_weights`), and which sequences those are (a
    boolean mask; the inputs themselves when it marks them all).

    A sequence of weight 0, by its sample weight or its classes' weights,
    or without targets (step-level targets, none of its steps labelled),
    adds nothing to the weighted objective; left out before anything reads
    the sequences, it changes nothing else either: not the number of
    restarts, the representation, the random draws, nor the rounding of a
    sum, so the fit is that of the data without it.
    """
    seq_of = seqs.sequence_of(targets.steps)
    keep = weighed_sequences(seq_of, *weights[1:])
    if keep.all():
        return seqs, targets, weights, keep
    return (kept_sequences(seqs, keep), kept_targets(seqs.offsets, targets, keep),
            kept_weights(keep, seq_of, *weights), keep)


def weighed_sequences(seq_of, fit_weight, target_weight=None):
    """Which sequences a fit reads (a boolean per sequence): those of positive
    weight in it (``fit_weight``, the sample weights times, for labels of
    whole sequences, their classes' weights) that hold a target of positive
    weight (``seq_of``, each target's sequence; ``target_weight``, per
    target, the classes' weights where they weigh labelled steps, None for
    1). A sequence without a target of positive weight, none of its steps
    labelled or all its labels of classes of weight 0, adds nothing to the
    weighted log-likelihood, as one of sample weight 0."""
    weighed = seq_of if target_weight is None else seq_of[target_weight > 0]
    return (fit_weight > 0) & (np.bincount(weighed, minlength=fit_weight.size) > 0)


def kept_weights(keep, seq_of, weight, fit_weight, target_weight):
    """The weights of the sequences ``keep`` marks: the sample weights, the
    fit's (``weight`` itself where they are the same array) and those of
    their targets (None stays None; ``seq_of``, each target's sequence)."""
    kept = weight[keep]
    return (kept, kept if fit_weight is weight else fit_weight[keep],
            None if target_weight is None else target_weight[keep[seq_of]])


def kept_sequences(seqs, keep):
    """The sequences ``keep`` (a boolean per sequence) marks, in their form."""
    kept = seqs.repeated(keep.astype(np.intp))
    return type(seqs)(data=kept.data, offsets=kept.offsets, form=seqs.form)


def kept_targets(offsets, targets, keep):
    """The targets of the sequences ``keep`` marks (of those laid out by
    ``offsets``), their steps counted among those sequences alone: what
    :func:`weighted_only` gives where only the layout is at hand (a Dask
    fit's sequences stay on its workers)."""
    seq_of = np.searchsorted(offsets, targets.steps, side="right") - 1
    held = keep[seq_of]
    kept_offsets = np.zeros(np.count_nonzero(keep) + 1, dtype=np.intp)
    np.cumsum(np.diff(offsets)[keep], out=kept_offsets[1:])
    new_index = np.cumsum(keep) - 1
    steps = (targets.steps[held] - offsets[seq_of[held]]
             + kept_offsets[new_index[seq_of[held]]])
    return Targets(steps=steps, values=targets.values[held],
                   step_level=targets.step_level)


class CopyWeights(NamedTuple):
    """The weights that count copies of the fitted sequences, beside the fit's.

    With integer ``sample_weight`` and ``class_weight`` a sequence stands for
    as many copies as its sample weight says, each weighed by its class
    weight: the sample weights alone count copies, the class weights only
    weigh the likelihood. Local and Dask fits build one and hand it to those
    who count copies: the leave-one-out of ``alpha="auto"`` (the owner's
    ``_alpha``, ``skseq._families.penalty``), the supervised axes
    (``skseq._families.supervised.read_out``) and the representation's fit.

    Attributes
    ----------
    weight : ndarray of shape (n_sequences,) or None
        The sample weights of the fitted sequences, without class weights;
        None where they are the fit's weights (no class weights).
    parent : ndarray of shape (n_sequences,) or None
        With ``n_prefixes``, the source sequence each fitted prefix was cut
        from (numbered from 0), so that the prefixes of one sequence are left
        out together; None when the fitted sequences are whole.
    parent_weight : ndarray of shape (n_sources,) or None
        With ``n_prefixes``, the sample weight of each source sequence: the
        copies its group of prefixes stands for; None otherwise.
    """

    weight: np.ndarray = None
    parent: np.ndarray = None
    parent_weight: np.ndarray = None

    def counting(self, weight, fit_weight):
        """These, the copies counted by ``weight`` (the sample weights) beside
        ``fit_weight`` (the fit's: ``weight`` times the class weights, the same
        array where there are none)."""
        return self._replace(weight=None if fit_weight is weight else weight)

    def of(self, fit_weight):
        """Per fitted sequence, the weights that count its copies (a prefix
        counts the copies of its source)."""
        if self.parent is not None:
            return self.parent_weight[self.parent]
        return fit_weight if self.weight is None else self.weight

    def kept(self, keep):
        """These for the sequences ``keep`` (a boolean per sequence) marks,
        their sources numbered as without the others."""
        weight = None if self.weight is None else self.weight[keep]
        if self.parent is None:
            return self._replace(weight=weight)
        sources, parent = np.unique(self.parent[keep], return_inverse=True)
        return CopyWeights(weight, parent, self.parent_weight[sources])


# whole sequences (no prefixes), each counting the copies its sample weight says
WHOLE_SEQUENCES = CopyWeights()


def finite_sum(values, message):
    """The sum of ``values``, or a ValueError with ``message`` where it
    overflows float64 (weights that are each legal can still sum to inf)."""
    with np.errstate(over="ignore"):
        total = values.sum()
    if not np.isfinite(total):
        raise ValueError(message)
    return total


# Class weights whose weighted labels sum beyond this overflow the objective.
_MAX_CLASS_WEIGHT_TOTAL = 1e150


def dict_class_weights(class_weight, classes):
    """The weight a ``{label: weight}`` dict gives every class (1 for those it
    does not name), looking each label up as given, then as scikit-learn's
    ``compute_class_weight`` does (by its ``int``, else its ``str``), which
    alone refuses string labels that read as integers. Keys that are not
    classes are ignored (a class may be absent from a cross-validation fold),
    unless classes also go unnamed: then a key was likely mistyped."""
    labels, found = classes.tolist(), []
    for label in labels:
        try:
            alias = int(label)
        except (TypeError, ValueError):
            alias = str(label)
        found.append(label if label in class_weight else
                     alias if alias in class_weight else None)
    unknown = [key for key in class_weight if key not in found]
    missing = [label for label, key in zip(labels, found, strict=True)
               if key is None]
    if unknown and missing:
        raise ValueError(
            f"class_weight names {unknown!r}, which are not classes, and not "
            f"the classes {missing!r}; the classes are {labels!r}."
        )
    for label, key in zip(labels, found, strict=True):
        value = None if key is None else class_weight[key]
        if key is not None and (np.ndim(value) != 0
                                or np.asarray(value).dtype.kind not in "biuf"):
            raise TypeError(
                f"class_weight for class {label!r} is {value!r}; class weights "
                "must be real numbers."
            )
    return np.array([1.0 if key is None else class_weight[key] for key in found],
                    dtype=float)


def class_weights(class_weight, classes, values, label_weight):
    """The weight of every class, checked (:func:`check_class_weights`):
    ``class_weight`` a dict or ``"balanced"``; ``values`` the labels' class
    indices, ``label_weight`` their sample weights. ``"balanced"`` counts the
    labels of positive weight, the others being left out of the fit: a class
    with none it cannot weigh."""
    read = label_weight > 0
    values, label_weight = values[read], label_weight[read]
    seen = np.isin(np.arange(classes.size), values)
    with np.errstate(divide="ignore", invalid="ignore"):
        per_class = (dict_class_weights(class_weight, classes)
                     if isinstance(class_weight, dict) else
                     compute_class_weight(class_weight, classes=classes,
                                          y=classes[values],
                                          sample_weight=label_weight)
                     if seen.all() else np.where(seen, 1.0, np.inf))
        # against sample weights of mean 1: their scale is the fit's (its
        # objective is normalised by their sum), not the class weights'
        weighted = label_weight / label_weight.mean() * per_class[values]
    check_class_weights(class_weight, classes, per_class, weighted)
    return per_class


def check_class_weights(class_weight, classes, per_class, weighted):
    """Refuse class weights that are negative, not finite, all zero, or so
    large that the weighted log-likelihood would overflow (``weighted``: the
    labels' class weights times their sample weights scaled to mean 1)."""
    balanced = isinstance(class_weight, str)
    for label, value in zip(classes.tolist(), per_class.tolist(), strict=True):
        if balanced and not np.isfinite(value):
            raise ValueError(
                f"class_weight='balanced' cannot weigh class {label!r}: "
                "sample_weight gives all of its labels weight 0. Drop that "
                "class, or give its sequences a positive sample_weight."
            )
        if not np.isfinite(value) or value < 0:
            raise ValueError(
                f"class_weight for class {label!r} is {value:g}; class weights "
                "must be finite and non-negative."
            )
    with np.errstate(over="ignore", invalid="ignore"):
        total = weighted.sum()
    if not total > 0:
        raise ValueError(
            f"class_weight={class_weight!r} gives every labelled sequence or step "
            "weight 0; at least one class needs a positive weight."
        )
    if not total < _MAX_CLASS_WEIGHT_TOTAL:
        label = classes.tolist()[int(np.argmax(per_class))]
        raise ValueError(
            f"class_weight for class {label!r} is {per_class.max():.3g}: the "
            f"labels' weights (with sample weights of mean 1) then sum to "
            f"{total:.3g} and the weighted log-likelihood "
            "overflows. Only the ratios between class weights matter: divide "
            "them all by the same number."
        )
