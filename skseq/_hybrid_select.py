"""What :class:`~skseq.HybridHMMClassifier` chooses from its own training
sequences, on a random half of them held out: the per-step representation
(``features="auto"``), the length of the window it reads (``window="auto"``)
and the scale of its likelihoods (``likelihood_scale="auto"``)."""

import functools

import numpy as np

from ._data.held_out import held_out_half
from ._data.lifecycle import check_params
from ._data.window import n_columns, window_lags, window_multiscale, window_summaries
from ._families.label_chain import fit_weights, label_chain
from ._fit.resources import check_allocation
from ._kernels.forward_backward import forward_backward

# The per-step representations ``features="auto"`` chooses from.
REPRESENTATIONS = {"summaries": window_summaries, "lags": window_lags}
# Every per-step representation, by its ``features`` name.
READERS = {**REPRESENTATIONS, "multiscale": window_multiscale}

# Labelled steps, at most, on which each candidate's classifier is fitted, and
# held-out steps on which it is scored.
SELECTION_STEPS = 20_000

# ``window="auto"``: the candidates, from the shortest.
WINDOWS = (8, 32)

# ``likelihood_scale="auto"``: the candidates, from the smallest; and the
# scale taken when there is nothing to choose on.
SCALES = (0.35, 0.5, 0.7, 1.0)
DEFAULT_SCALE = 0.5

# Floor of the per-step posteriors before their logarithm: a classifier that
# gives a label probability 0 would otherwise veto that label for good.
MIN_PROBA = 1e-6


def scale_in_use(model):
    """The likelihood scale a fitted :class:`HybridHMMClassifier` ``model``
    predicts with: its ``likelihood_scale`` as it stands (checked: it may be
    set after fit), or for ``"auto"`` the one its fit chose; a ValueError if
    that fit chose none (it was given a number)."""
    check_params(model, ("likelihood_scale",))
    if model.likelihood_scale != "auto":
        return model.likelihood_scale
    if not getattr(model, "_scale_chosen_", False):
        raise ValueError(
            "likelihood_scale='auto' is chosen in fit, but this model was fitted "
            "with a number: refit it with 'auto', or set a number.")
    return model.likelihood_scale_


def check_reading(model, seqs, params, n_classes=None):
    """ValueError, in O(1) before reading, if the per-step features that a
    hybrid of parameters ``params`` reads of ``seqs`` (every candidate of its
    ``features`` and ``window``) cannot fit in memory: the matrix and its copy
    of the labelled rows, 8 bytes an entry; with ``n_classes``, also its chain
    (the transition matrix and a filter's passes over ``seqs``)."""
    if n_classes is not None:
        n_states = n_classes * params["n_states_per_label"]
        check_allocation(
            model, 8 * n_states * (n_states + 4 * seqs.data.shape[0]),
            f"n_states_per_label={params['n_states_per_label']} ({n_states} "
            f"states for {n_classes} labels)", "use fewer states per label.")
    names = REPRESENTATIONS if params["features"] == "auto" else (params["features"],)
    n_steps, n_channels = seqs.data.shape
    for window in candidate_windows(params):
        for name in names:
            n = n_columns(name, window) * n_channels
            check_allocation(
                model, 16 * n * n_steps,
                f"features={name!r} at window={window} ({n} features per step, "
                f"{n_steps} steps)", "use a smaller window.")


def read(model, features, seqs, window):
    """The per-step features ``features`` of ``seqs`` at ``window``, checked
    first (:func:`check_reading`)."""
    check_reading(model, seqs, {"features": features, "window": window})
    return READERS[features](seqs, window)


def held_out_split(seqs, steps, rng):
    """A random half of the sequences held out (a mask over the sequences),
    and the labelled steps (indices into ``steps``) of each side, at most
    ``SELECTION_STEPS`` of each: those to fit on, then those held out. The
    half is drawn among the sequences holding some of the labelled ``steps``
    (of positive weight), so that a sequence of weight 0, or unlabelled,
    changes the choice no more than it changes the fit: not at all."""
    labelled = np.unique(seqs.sequence_of(steps))
    held = np.zeros(seqs.n_sequences, dtype=bool)
    held[labelled] = held_out_half(labelled.shape[0], rng)
    side = held[seqs.sequence_of(steps)]
    rows = []
    for mask in (~side, side):
        index = np.flatnonzero(mask)
        if index.shape[0] > SELECTION_STEPS:
            index = np.sort(rng.choice(index, SELECTION_STEPS, replace=False))
        rows.append(index)
    return held, rows[0], rows[1]


def predicted_targets(estimator, x, threads):
    """The most probable target at the rows ``x`` (``estimator`` needs no
    ``predict``), its ``predict_proba`` run within ``threads()``."""
    with threads():
        return np.asarray(estimator.classes_)[estimator.predict_proba(x).argmax(axis=1)]


def select_features(fit, predict, seqs, steps, targets, weight, split, window):
    """The representation whose classifier, fitted (``fit(features)``, the
    fitting steps' rows) on the split's fitting steps, labels more of its
    held-out steps correctly (accuracy weighted by ``weight``); and the
    classifiers fitted, by representation."""
    _, fit_rows, held_rows = split
    accuracy, fitted = {}, {}
    for name, representation in REPRESENTATIONS.items():
        features = representation(seqs, window)[steps]
        fitted[name] = fit(features[fit_rows])
        predicted = predict(fitted[name], features[held_rows])
        accuracy[name] = np.average(predicted == targets[held_rows],
                                    weights=weight[held_rows])
    return ("lags" if accuracy["lags"] > accuracy["summaries"] else "summaries",
            fitted)


def held_out_steps(seqs, held, rng):
    """Whole held-out sequences in a random order until they hold
    ``SELECTION_STEPS`` steps (or all of them): their packed steps, in order,
    and their offsets among those steps."""
    order = rng.permutation(np.flatnonzero(held))
    lengths = seqs.lengths[order]
    n = int(np.searchsorted(np.cumsum(lengths), SELECTION_STEPS)) + 1
    order = np.sort(order[:n])
    lengths = seqs.lengths[order]
    offsets = np.zeros(order.shape[0] + 1, dtype=np.intp)
    np.cumsum(lengths, out=offsets[1:])
    rows = np.repeat(seqs.offsets[order] - offsets[:-1], lengths) + np.arange(
        offsets[-1])
    return rows, offsets


def log_likelihood_ratio(proba, prior):
    """log P(target | window) - log P(target), both floored at ``MIN_PROBA``:
    the scaled log-likelihoods of the hybrid's states before the scale
    (Bourlard & Morgan 1994)."""
    return np.log(np.maximum(proba, MIN_PROBA)) - np.log(np.maximum(prior, MIN_PROBA))


def filtered_labels(proba, prior, startprob, transmat, offsets, scale):
    """The causal filter's most probable label at every step (Bourlard &
    Morgan 1994: the posteriors ``proba`` over the labels, divided by their
    ``prior`` and raised to ``scale``, as the likelihoods of the chain's
    states, ``startprob.shape[0] // n_labels`` states per label)."""
    n_steps, n_labels = proba.shape
    k = startprob.shape[0] // n_labels
    log_lik = scale * log_likelihood_ratio(proba, prior)
    gamma = forward_backward(startprob, transmat[None], np.repeat(log_lik, k, axis=1),
                             offsets, backward=False).gamma
    return gamma.reshape(n_steps, n_labels, k).sum(axis=2).argmax(axis=1)


def target_proba(estimator, x, n_targets, seqs=None):
    """P(target | window) at the rows ``x`` for the targets ``0 ..
    n_targets - 1`` (0 for those the per-step classifier never saw), checked:
    its ``classes_`` must be among those targets, and its ``predict_proba`` a
    finite, non-negative array of one column per class; a bad value is named
    by its sequence and step when the rows are every step of ``seqs``."""
    classes = np.asarray(estimator.classes_)
    # windows of inputs near float64's limit can overflow inside the
    # classifier (a linear model's decision): probabilities it saturates are
    # its answer; any it leaves non-finite are refused below, by step
    with np.errstate(over="ignore", under="ignore", invalid="ignore",
                     divide="ignore"):
        values = np.asarray(estimator.predict_proba(x))
    name = f"The per-step classifier {type(estimator).__name__}"
    if (classes.ndim != 1 or classes.dtype.kind not in "iu"
            or not np.isin(classes, np.arange(n_targets)).all()):
        raise ValueError(f"{name} has classes_ {classes!r}, but it was fitted on "
                         f"the targets 0..{n_targets - 1} and must keep them.")
    if values.shape != (x.shape[0], classes.shape[0]):
        raise ValueError(f"{name}'s predict_proba gave shape {values.shape} for "
                         f"{x.shape[0]} rows and {classes.shape[0]} classes_.")
    bad = ~(np.isfinite(values) & (values >= 0))
    if bad.any():
        r, c = np.argwhere(bad)[0]
        s = None if seqs is None else int(seqs.sequence_of(np.array([r]))[0])
        where = f"row {r}" if s is None else f"sequence {s}, step {r - seqs.offsets[s]}"
        raise ValueError(f"{name}'s predict_proba gave {values[r, c]} at {where} "
                         f"(class {classes[c]}): probabilities must be finite and "
                         "non-negative.")
    proba = np.zeros((x.shape[0], n_targets))
    proba[:, classes] = values
    return proba


def label_posteriors(estimator, x, n_labels, n_parts):
    """P(label | window) at the rows ``x``, from a classifier of the targets
    ``label * n_parts + part`` (labels or targets it never saw: 0)."""
    proba = target_proba(estimator, x, n_labels * n_parts)
    return proba.reshape(x.shape[0], n_labels, n_parts).sum(axis=2)


def select_window(chain_proba, seqs, labels, weight, split, windows, rng,
                  n_states_per_label, scales, chained=True):
    """The window and the likelihood scale under which the chain labels more
    held-out steps correctly.

    ``chain_proba(window, rows)`` gives the label posteriors, at the packed
    steps ``rows``, of that window's classifier fitted on the split's fitting
    steps, and the label priors among those steps. The chain is counted from
    the fitting half's labels only (the held-out sequences weigh 0); the
    filter runs over whole held-out sequences (at most about
    ``SELECTION_STEPS`` steps), at every scale of ``scales``; accuracy over
    their labelled steps, weighted by ``weight``. Ties go to the longer
    window, then to the smaller scale. Not ``chained``
    (``transitions="none"``): every state drawn afresh from the label priors,
    as in the fitted model, whose filter still weighs the priors against the
    posteriors raised to the scale.
    """
    held = split[0]
    n_labels = int(labels.max()) + 1
    startprob, transmat = label_chain(labels, seqs.offsets, n_labels,
                                      n_states_per_label,
                                      weight=np.where(held, 0.0, weight))
    rows, offsets = held_out_steps(seqs, held, rng)
    truth = labels[rows]
    scored = truth >= 0
    if not scored.any():
        return max(windows), DEFAULT_SCALE if len(scales) > 1 else scales[0]
    step_weight = np.repeat(weight, seqs.lengths)[rows][scored]
    best, best_accuracy = None, -np.inf
    for window in sorted(windows, reverse=True):
        proba, prior = chain_proba(window, rows)
        if not chained:
            startprob = np.repeat(prior, n_states_per_label) / n_states_per_label
            transmat = np.tile(startprob, (startprob.shape[0], 1))
        for scale in sorted(scales):
            predicted = filtered_labels(proba, prior, startprob, transmat, offsets,
                                        scale)
            accuracy = np.average(predicted[scored] == truth[scored],
                                  weights=step_weight)
            if accuracy > best_accuracy:
                best, best_accuracy = (window, scale), accuracy
    return best


def candidate_windows(params):
    """The windows a hybrid of parameters ``params`` chooses from: its
    ``window``, or for ``"auto"`` every one of ``WINDOWS``; but
    ``features="multiscale"`` reads two windows at once, and takes the
    longest without a choice."""
    if params["window"] != "auto":
        return (params["window"],)
    return WINDOWS[-1:] if params["features"] == "multiscale" else WINDOWS


def choose(params, fit_estimator, threads, seqs, steps, labels, encoded,
           fit_targets, weight, step_weight, weighted, seed):
    """The representation, the window and the likelihood scale of a
    :class:`HybridHMMClassifier` of parameters ``params``: its ``features``,
    ``window`` and ``likelihood_scale``, or for ``"auto"`` chosen on a random
    half of the sequences held out (the representation at the longest window
    by the classifier's accuracy, then the window and the scale by the
    chain's; see :func:`candidate_windows`). ``fit_estimator(features,
    targets, weight, seed)`` fits a per-step classifier, whose
    ``predict_proba`` runs within ``threads()``; the other arguments are
    those of the fit."""
    features, windows = params["features"], candidate_windows(params)
    scale, window = params["likelihood_scale"], windows[-1]
    scales = SCALES if scale == "auto" else (scale,)
    # without a choice (one-step sequences have no past to choose on)
    fixed = ("summaries" if features == "auto" else features, window,
             DEFAULT_SCALE if scale == "auto" else scale)
    if ((features != "auto" and len(windows) * len(scales) == 1)
            or seqs.lengths.max() == 1):
        return fixed
    rng = np.random.RandomState(seed)
    split = held_out_split(seqs, steps, rng)
    fit_rows, fitted = split[1], {}
    if split[2].shape[0] == 0 or np.unique(encoded[fit_rows]).shape[0] < 2:
        return fixed

    def fitter(window, targets):
        """A fit on the fitting steps' rows; their weights (None: all 1)."""
        fit_weight = fit_weights(labels, seqs.offsets, steps, step_weight, weighted,
                                 window, params["onset_weight"])
        rows_weight = None if fit_weight is None else fit_weight[fit_rows]
        return (lambda x: fit_estimator(x, targets[fit_rows], rows_weight,
                                        seed)), rows_weight

    if features == "auto":
        predict = functools.partial(predicted_targets, threads=threads)
        features, fitted = select_features(fitter(window, encoded)[0], predict, seqs,
                                           steps, encoded, step_weight, split, window)
    if len(windows) * len(scales) == 1:
        return features, window, fixed[2]
    n_parts = params["n_states_per_label"] if params["phase_targets"] else 1
    # the classifier that chose the representation, if of the labels alone
    reused = {window: fitted[features]} if n_parts == 1 and fitted else {}
    n_classes = int(labels.max()) + 1

    def chain_proba(window, rows):
        x = READERS[features](seqs, window)
        fit, rows_weight = fitter(window, fit_targets)
        estimator = reused[window] if window in reused else fit(x[steps][fit_rows])
        prior = np.bincount(encoded[fit_rows], minlength=n_classes, weights=(
            step_weight[fit_rows] if rows_weight is None else rows_weight))
        with threads():
            proba = label_posteriors(estimator, x[rows], n_classes, n_parts)
        return proba, prior / prior.sum()

    window, scale = select_window(
        chain_proba, seqs, labels, weight, split, windows, rng,
        params["n_states_per_label"], scales,
        chained=params["transitions"] == "learned")
    return features, window, scale
