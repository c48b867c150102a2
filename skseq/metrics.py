"""scikit-learn's scorers for step-level targets.

A scorer named by a string (``scoring="f1_macro"`` in ``GridSearchCV`` or
``cross_val_score``) compares ``y`` with ``predict(X)`` as flat arrays of one
sample each. Step-level targets and predictions are lists of per-sequence
arrays, which it cannot read as such: it fails (the fold is scored NaN), or,
when every sequence of a fold has the same length, reads the list as a table
of one row per sequence and scores that instead. :func:`step_scorer` gives the
same scorer one sample per labelled step.
"""

import functools

import numpy as np
from sklearn.base import is_regressor
from sklearn.metrics import check_scoring

from ._data import Reading, check_score_weight, check_sequences, check_targets

__all__ = ["step_scorer"]

_RESPONSES = ("predict", "predict_proba", "predict_log_proba", "decision_function")

# The scorer reads the sequences' lengths only: their steps are the model's to
# read, which may be a pipeline that fills missing values or encodes symbols.
_ANY_STEPS = Reading(symbols=True, allow_nan=True)


def step_scorer(scoring):
    """A scorer that scores step-level targets step by step.

    With step-level targets (a list of per-step arrays) every labelled step
    is one sample: the metric compares the targets of the labelled steps with
    the model's per-step output there (``predict``, ``predict_proba`` or
    ``decision_function``, as the scorer asks), steps without a target left
    out, and each step weighted by its sequence's ``sample_weight``. With one
    target per sequence it is the scorer itself.

    Parameters
    ----------
    scoring : str, callable, list or dict
        A scorer name of :func:`sklearn.metrics.get_scorer` (``"accuracy"``,
        ``"f1_macro"``, ``"neg_log_loss"``, ``"roc_auc_ovr"``, ``"r2"``, ...)
        or a scorer made by :func:`sklearn.metrics.make_scorer`; a list of
        names, or a dict of names to either, gives a dict of scores per call.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y, sample_weight=None)``, for the ``scoring``
        argument of scikit-learn's searches and cross-validation.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import KFold, cross_val_score
    >>> from skseq import IOHMMClassifier
    >>> from skseq.metrics import step_scorer
    >>> rng = np.random.RandomState(0)
    >>> X = [rng.randn(6, 1) for _ in range(6)]
    >>> y = [(x[:, 0] > 0).astype(int) for x in X]
    >>> scores = cross_val_score(IOHMMClassifier(max_iter=5, random_state=0), X, y,
    ...                          cv=KFold(3), scoring=step_scorer("f1_macro"))
    >>> scores.shape
    (3,)
    """
    if scoring is None:
        raise TypeError(
            "step_scorer needs a metric (a scorer name such as 'f1_macro', or a "
            "callable), got None; for the estimator's own score, which already "
            "scores every labelled step, leave the search's scoring=None.")
    return _StepScorer(check_scoring(None, scoring=scoring))


class _StepScorer:
    """A scorer applied to the labelled steps of step-level targets."""

    def __init__(self, scorer):
        self._scorer = scorer

    def __call__(self, estimator, X, y, sample_weight=None, **kwargs):
        seqs = check_sequences(X, reading=_ANY_STEPS)
        task = "regression" if is_regressor(estimator) else "classification"
        targets = check_targets(y, seqs, task=task)
        if not targets.step_level:
            return self._scorer(estimator, X, y, sample_weight=sample_weight,
                                **kwargs)
        values = targets.values
        if values.ndim == 2 and values.shape[1] == 1:
            values = values[:, 0]
        if sample_weight is not None:
            weight = check_score_weight(sample_weight, seqs.n_sequences)
            kwargs["sample_weight"] = weight[seqs.sequence_of(targets.steps)]
        steps = _LabelledSteps(estimator, seqs.lengths, targets.steps,
                               values.ndim)
        return self._scorer(steps, X, values, **kwargs)

    def get_metadata_routing(self):
        return self._scorer.get_metadata_routing()

    def set_score_request(self, **kwargs):
        """Request metadata (``sample_weight``) as the wrapped scorer does."""
        self._scorer.set_score_request(**kwargs)
        return self

    def __repr__(self):
        return f"step_scorer({self._scorer!r})"


class _LabelledSteps:
    """An estimator whose per-step outputs are packed and cut to the labelled
    steps: what a scorer reads as one sample per step. Other attributes
    (``classes_``, tags) are the estimator's."""

    def __init__(self, estimator, lengths, steps, target_ndim):
        self._estimator = estimator
        self._lengths = lengths
        self._steps = steps
        self._target_ndim = target_ndim

    def __sklearn_tags__(self):
        return self._estimator.__sklearn_tags__()

    def __getattr__(self, name):
        attr = getattr(self._estimator, name)
        if name not in _RESPONSES:
            return attr

        @functools.wraps(attr)  # scikit-learn reads the method's name
        def packed(X):
            out = _packed_output(attr(X), self._lengths, name)[self._steps]
            if name == "predict" and out.ndim == 2 and self._target_ndim == 1:
                out = out[:, 0]  # one output, its targets 1-D
            return out

        return packed


def _packed_output(out, lengths, method):
    """Per-step output (a list of per-sequence arrays, or padded along the
    second axis) packed into one array of one row per step."""
    if isinstance(out, np.ndarray) and out.dtype != object:
        if out.shape[0] == lengths.sum() and (lengths == 1).all() and out.ndim < 3:
            return out  # one-step sequences: already one row per step
        if out.ndim < 2 or out.shape[0] != lengths.shape[0]:
            raise ValueError(
                f"{method} returned shape {out.shape}, not one output per step of "
                f"{lengths.shape[0]} sequences: step_scorer needs a model fitted "
                "on step-level targets."
            )
        out = [out[s, :n] for s, n in enumerate(lengths.tolist())]
    pieces = [np.asarray(piece) for piece in out]
    for s, (piece, n) in enumerate(zip(pieces, lengths.tolist(), strict=True)):
        if piece.ndim == 0 or piece.shape[0] != n:
            got = "one output" if piece.ndim == 0 else f"{piece.shape[0]} outputs"
            raise ValueError(
                f"{method} returned {got} for sequence {s} of {n} steps: "
                "step_scorer needs one output per step of X (a pipeline must "
                "keep the steps, and the model be fitted on step-level targets)."
            )
    return np.concatenate(pieces)
