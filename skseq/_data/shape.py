"""The shape representations (``features="shape"``, ``"shape_centred"``).

A linear network of one step's raw input (Bengio & Frasconi 1996) cannot see
local shape (a rise, a burst, a notch), nor summarize what the sequence did so
far; :class:`ShapeFeatures` gives it both:

1. the local shape around every step: MiniRocket's dilated kernels (Dempster,
   Schmidt & Webb 2021; :class:`~skseq.preprocessing.DilatedConvolution`),
   causal, thresholded at quantiles of the training convolutions; and its
   level: every channel thresholded at quantiles of its training values;
2. summarized over the sequence so far: the running mean of every indicator
   over the prefix (at the last step, MiniRocket's "proportion of positive
   values" of a causal convolution);
3. standardized and projected on the leading principal components of the
   training steps (sampled steps, and their sequences' last steps weighing as
   much in all), whitened, so that the features are few, decorrelated and of
   unit scale.

A classifier of whole sequences appends supervised columns to the projection
(``skseq._families.supervised``). Steps 2 and 3 are linear, so no step's
indicators need be kept: one compiled pass
(``skseq._kernels.convolution.prefix_indicators``) counts them and adds up the
projections of those that are on. The state networks see the leading
``n_state_components`` components at every step; the output networks see all
``n_components``, computed only at the steps where they are evaluated (the
supervised steps in ``fit``, the read-out steps in ``predict``). A step costs a
few operations per (kernel, dilation) pair, as MiniRocket's transform does
(``benchmarks/bench_representations.py``). A fitted representation's
:meth:`inputs` gives, for validated sequences, the state networks' inputs at
every step and the output networks' inputs at given rows.
"""

import numbers
from functools import partial
from typing import NamedTuple

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, InvalidParameterError, StrOptions
from sklearn.utils.extmath import randomized_svd, svd_flip

from .._kernels import convolution, standardize
from .._kernels._parallel import n_threads, one_blas_thread, run
from .dilated import (
    TABLE_COPIES,
    DilatedKernels,
    check_quantile_range,
    dilation_grid,
    kernel_arguments,
)
from .representation_base import Representation, as_weighted


class Sampled(NamedTuple):
    """The projection's sample walk, as :meth:`ShapeFeatures.fit` hands it to
    ``beside``: the prefix means of the indicators (``means``, one row per
    packed step of ``steps``) of the training sequences ``seqs``."""

    seqs: object
    means: np.ndarray
    steps: np.ndarray


class ShapeFeatures(Representation):
    """Local shape, summarized over the prefix, projected (``features="shape"``).

    The default representation of real-valued series with one target per
    sequence: every step's local shape and level, as MiniRocket's dilated
    kernels and thresholds see it (Dempster, Schmidt & Webb 2021), averaged
    over the sequence so far (at the last step, MiniRocket's proportion of
    positive values), then standardized and projected on whitened principal
    components (the module's overview, ``skseq._data.shape``, gives the
    steps). Pass an instance as ``features`` to change its options; the
    estimator fits a clone, and ``features__<option>`` reaches them in
    ``set_params`` and in a grid search.

    Parameters
    ----------
    n_indicators : int, default=2688
        Indicators per step: with 84 kernels and up to ``n_dilations``
        dilations, ``n_indicators // (84 * n_dilations)`` thresholds each (2 on
        long series, more on short ones, where fewer dilations fit; at least
        one), as MiniRocket spreads its 9,996 features.
    n_dilations : int, default=16
        Dilations, exponentially spaced up to the longest training sequence.
    quantile_range : tuple, default=(0.1, 0.9)
        Thresholds at quantiles drawn at random within this range of the
        training convolutions: the tails give indicators nearly constant over
        the pooled steps (on ArrowHead, mean test accuracy over 6 seeds 0.85
        against 0.81 for MiniRocket's low-discrepancy levels in the same range,
        and about 0.75 over the full range).
    n_levels : int, default=16
        Amplitude indicators per channel, u_t > q at the quantiles
        (l + 0.5) / n_levels of the channel's training values: the kernels'
        weights sum to zero, so they see shape but not level (their prefix
        means are the distribution of the levels seen so far).
    n_components : int, default=128
        Whitened principal components the output networks see, at most (and
        at most ``max(32, n_sequences)``: with few training sequences, many
        components overfit the output networks).
    n_state_components : int, default=8
        Leading components the state networks see.
    sample_steps : int, default=2000
        Training steps, drawn from all training sequences, whose prefix means
        fit the standardization and the projection, together with the last
        steps of the sequences holding them (only those sequences are walked)
        (a randomized SVD with two power iterations: scikit-learn's seven on
        4,000 steps took about half of the default fit on ItalyPowerDemand and
        changed no test accuracy beyond the spread over seeds on the panel's
        small sets; ``benchmarks/bench_real_data.py --ablation``).
    last_step_weight : float, default=1.0
        The last steps' weight in the projection's sample, in all, relative
        to the sampled steps' (0: the sampled steps only). The output
        networks of a whole-sequence classifier read the last step: weighted
        so, the principal axes span how whole sequences differ as well as how
        their prefixes do (on ArrowHead's training set, 3-fold
        cross-validation accuracy over 3 seeds 0.769 with 0, 0.796 with 0.3,
        0.815 with 1 and 0.806 with 3; test accuracy 0.865 -> 0.886 with 1;
        ``benchmarks/bench_shape_validation.py``).
    projection_dtype : {"float32", "float64"}, default="float32"
        The precision of the randomized SVD that finds the principal axes
        (the standardization before it and the projection after it are
        computed in float64): single precision halves its time. Its power
        iterations are then LU-normalized: unnormalized, they scale the
        trailing components by (s_k / s_1)**5, below single precision's
        rounding (on PLAID the smallest cosine of a principal angle between
        the kept axes and the exact SVD's fell from 0.35 in double precision
        to 0.02, and validation accuracy from 0.883 to 0.869); normalized,
        the angles equal double precision's to four digits on PLAID and
        ArrowHead, and the panel's validation and test accuracies over 3
        seeds are the same (PLAID: one validation sequence more)
        (``benchmarks/bench_shape_validation.py --option projection_dtype``).
    threshold_sample : {"steps", "series"}, default="steps"
        The kernels' thresholds are quantiles of their convolution over up to
        10,000 steps of all the training sequences, or over the steps of one
        training sequence drawn for each (kernel, dilation) pair (MiniRocket's
        rule; 5-15 times cheaper on the small panel sets). In 3-fold
        cross-validation on the panel's training splits, 3 seeds, "series"
        scored 0.923 against 0.922, but lower on the sets kept aside (ACSF1
        0.933 against 0.957) and on ArrowHead's test split (0.848 against
        0.861)
        (``benchmarks/bench_shape_validation.py --thresholds``,
        ``benchmarks/bench_real_data.py``).
    supervised : bool, default=True
        Whether a classifier of whole sequences appends to the projection the
        decisions of a ridge classifier on all the standardized prefix means
        (``skseq._families.supervised``): the components keep the indicators'
        variance, the ridge their class information (3-fold cross-validation
        on the panel's training splits, 3 seeds: PLAID 0.883 -> 0.894,
        ArrowHead 0.815 -> 0.824, BasicMotions and ItalyPowerDemand equal;
        ``benchmarks/bench_shape_validation.py``). Regressors and step-level
        targets get none.

    Attributes
    ----------
    convolution_ : DilatedKernels
        The fitted kernels, dilations and thresholds (those a
        :class:`~skseq.preprocessing.DilatedConvolution` with the same
        parameters fits).
    levels_ : ndarray of shape (n_channels, n_levels)
        The amplitude thresholds.
    projection_ : ndarray of shape (n_indicators, n_output_features)
        Maps a step's prefix-mean indicators to its features (standardization
        and whitening folded in), after subtracting ``offset_``; the state
        networks read its leading ``n_state_features`` columns.
    offset_ : ndarray of shape (n_output_features,)
        Subtracted from a step's projected indicators.
    tabular_ : bool
        Whether every training sequence had one step (a table): there is then
        no shape to learn, and every network sees the step's own whitened
        principal components (``projection_`` of shape ``(n_channels,
        n_output_features)`` maps the step itself; ``convolution_`` and
        ``levels_`` are not fitted).

    The decisions of the supervised axes (``supervised=True``) are appended
    to ``projection_`` and ``offset_``.

    See Also
    --------
    CentredShapeFeatures : The same with kernels centred on their step.
    WindowFeatures : The recent past of every step, for labelling every step.
    skseq.preprocessing.DilatedConvolution : MiniRocket's kernels as a
        transformer of sequences.

    References
    ----------
    Dempster, A., Schmidt, D. F. & Webb, G. I. (2021). MiniRocket: a very fast
    (almost) deterministic transform for time series classification. KDD '21,
    248-257.

    Examples
    --------
    >>> import numpy as np
    >>> from skseq import IOHMMClassifier
    >>> from skseq.representations import ShapeFeatures
    >>> features = ShapeFeatures(n_indicators=168, n_components=8,
    ...                          threshold_sample="series")
    >>> clf = IOHMMClassifier(n_states=2, features=features, random_state=0)
    >>> clf.get_params()["features__n_components"]
    8
    >>> X = np.random.RandomState(0).normal(size=(12, 20, 1)).cumsum(axis=1)
    >>> y = (X[:, -1, 0] > X[:, 0, 0]).astype(int)
    >>> clf = clf.fit(X, y)
    >>> clf.features_, clf.representation_ is features
    ('shape', False)
    >>> clf.set_params(features__n_components=16).features
    ShapeFeatures(n_components=16, n_indicators=168, threshold_sample='series')
    """

    name = "shape"
    tabular_ = False  # (models fitted before the attribute existed)
    causal = True  # a step's features depend on the steps up to it only
    summary = ("the local shape around every step (MiniRocket's dilated kernels, "
               "causal, thresholded), averaged over the sequence so far, "
               "standardized and projected on 128 whitened principal components; "
               "the state networks see the leading 8 of them, the output networks "
               "all 128, so raw sequences of any scale need no preprocessing.")

    _parameter_constraints: dict = {
        "n_indicators": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_dilations": [Interval(numbers.Integral, 1, None, closed="left")],
        "quantile_range": [tuple],
        "n_levels": [Interval(numbers.Integral, 0, None, closed="left")],
        "n_components": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_state_components": [Interval(numbers.Integral, 1, None, closed="left")],
        "sample_steps": [Interval(numbers.Integral, 2, None, closed="left")],
        "last_step_weight": [Interval(numbers.Real, 0, None, closed="left")],
        "projection_dtype": [StrOptions({"float32", "float64"})],
        "threshold_sample": [StrOptions({"steps", "series"})],
        "supervised": ["boolean"],
    }

    def __init__(self, n_indicators=2688, *, n_dilations=16,
                 quantile_range=(0.1, 0.9), n_levels=16, n_components=128,
                 n_state_components=8, sample_steps=2000, last_step_weight=1.0,
                 projection_dtype="float32", threshold_sample="steps",
                 supervised=True):
        self.n_indicators = n_indicators
        self.n_dilations = n_dilations
        self.quantile_range = quantile_range
        self.n_levels = n_levels
        self.n_components = n_components
        self.n_state_components = n_state_components
        self.sample_steps = sample_steps
        self.last_step_weight = last_step_weight
        self.projection_dtype = projection_dtype
        self.threshold_sample = threshold_sample
        self.supervised = supervised

    def _validate_params(self):
        super()._validate_params()
        try:
            check_quantile_range(self.quantile_range)
        except ValueError as err:
            raise InvalidParameterError(
                f"The 'quantile_range' parameter of {type(self).__name__}: {err}"
            ) from None

    def fit(self, seqs, rng, n_jobs=None, sample_weight=None, beside=None, then=None):
        """Fit on packed training sequences (the estimator's ``fit`` calls it
        on a clone of its ``features``): ``beside(self, sampled)`` (not
        reading the projection) runs once the indicators are fitted,
        ``then(self)`` once the projection is; with ``n_jobs``, ``beside`` on a
        thread beside the projection's fit and ``then``, and ``sampled`` None.
        On one thread ``sampled`` is the projection's sample walk
        (:class:`Sampled`), which :meth:`indicator_means` can read from."""
        rng = check_random_state(rng)
        seqs = as_weighted(seqs, sample_weight)
        self.tabular_ = bool(seqs.lengths.max() == 1)
        if self.tabular_:
            return self._fit_table(seqs)
        rows = self._fit_indicators(seqs, rng, n_jobs)
        then = then or id
        if beside is None or n_threads(n_jobs, 2, 2, 1) == 1:
            sample = self._sample(seqs, rows, n_jobs)
            if beside is not None:
                # its prefix means read from the sample where it holds them
                # (the same values: a step's do not depend on the walk)
                beside(self, Sampled(seqs, sample[0], sample[2]))
            then(self._fit_projection(seqs, sample, rng))
            return self
        # ``beside`` on a worker, with the threads (the longer part at scale)
        run([lambda: then(self._fit_projection(
                seqs, self._sample(seqs, rows, None), rng)),
             partial(beside, self, None)])
        return self

    def _fit_projection(self, seqs, sample, rng):
        """The standardization and the whitened principal components of
        :meth:`_sample`'s prefix means (overwritten)."""
        pooled, weight, _ = sample
        # In an order of their own (by a fixed random projection), so that the
        # fit does not depend on the order of the sequences, not even through
        # the rounding of the SVD (whose basis, where eigenvalues repeat, it
        # would otherwise inherit).
        order = np.argsort(row_keys(pooled), kind="stable")
        walked, pooled, weight = pooled, pooled[order], weight[order]
        mean = weight @ pooled / weight.sum()
        # The squared deviations, then the standardized sample, in the walked
        # means' memory (read no more): fresh memory of the sample's size
        # costs more than their arithmetic.
        std = np.sqrt(weight @ standardize.squared_deviations(
            pooled, mean, out=walked) / weight.sum())
        # Indicators constant on the sample say nothing: left out (a constant
        # series leaves none, and the networks then see a single zero feature).
        varying = np.flatnonzero(std > 1e-12)
        n_comp = min(self.n_components, max(32, seqs.n_sequences), varying.size,
                     pooled.shape[0] - 1)
        self.projection_ = np.zeros((pooled.shape[1], max(n_comp, 1)))
        self.offset_ = np.zeros(max(n_comp, 1))
        if n_comp < 1:
            return self
        n_indicators = pooled.shape[1]
        axes, var = _principal_axes(
            _standardized(pooled, varying, mean, std, weight,
                          self.projection_dtype, walked), n_comp,
            rng.randint(2**31), weight.sum())
        # Whitening divides by each component's spread: keep the components
        # the sample really spans (variance >= 1e-4 of the first), not the
        # rounding noise of a small or collinear sample, which it would blow up.
        keep = max(1, int(np.sum(var >= 1e-4 * var[0])))
        components = axes[:keep] / np.sqrt(var[:keep])[:, None]
        # y = ((p - mean) / std) @ V.T / scale = p @ W - offset
        self.projection_ = np.zeros((n_indicators, keep))
        self.projection_[varying] = (components / std[varying]).T
        self.offset_ = (mean[varying] / std[varying]) @ components.T
        return self

    def _sample(self, seqs, rows, n_jobs):
        """The prefix means that fit the standardization and the projection,
        their weights and their packed steps: at the sampled steps ``rows``
        (weight 1 each), and at the last steps of the sequences that hold
        them, weighing ``last_step_weight`` times as much in all."""
        held, held_rows = seqs.holding(rows)
        ends = held.last_steps if self.last_step_weight > 0 else held.last_steps[:0]
        steps = np.concatenate([rows, seqs.last_steps[
            np.unique(seqs.sequence_of(rows))][: ends.size]])
        pooled = self._walk(held, np.concatenate([held_rows, ends]), None, n_jobs)[1]
        one, last = 1.0, float(self.last_step_weight)
        if last > 2.0**64:
            # Only the weights' ratio matters: scaled by a power of 4 (exactly,
            # and so are their square roots, which scale the rows), a huge
            # weight overflows nothing (the sampled steps' may underflow to 0).
            one = 4.0 ** -np.ceil(np.log2(last) / 2)
            last *= one
        share = last * held_rows.size / max(ends.size, 1)
        return pooled, np.concatenate([np.full(held_rows.size, one),
                                       np.full(ends.size, share)]), steps

    def _fit_indicators(self, seqs, rng, n_jobs):
        """Fit the kernels' thresholds and the amplitude levels; return the
        training steps drawn for the projection's sample."""
        # Dilations up to the longest training sequence (long patterns of the
        # longest series matter; a shorter one reads its edge value), and as
        # many thresholds as the indicator budget allows.
        max_dilation = max(1, (int(seqs.lengths.max()) - 1) // 8)
        n_dilations = dilation_grid(self.n_dilations, max_dilation).size
        n_kernels = convolution.KERNEL_POSITIONS.shape[0]  # 84
        n_biases = max(1, self.n_indicators // (n_kernels * n_dilations))
        # (Threads serve this fit only: inputs() takes its own.) With
        # threshold_sample="steps", the thresholds are quantiles of up to
        # 10,000 steps: of 2,000 (the projection's sample) they cost a third as
        # much, but ArrowHead's mean test accuracy over 3 seeds fell from 0.855
        # to 0.808. Refused before allocating if the quantile table, the
        # projection's sample of prefix means (and last steps) and the
        # projection cannot fit in memory.
        n_steps = seqs.data.shape[0]
        n_sample = min(n_steps, self.sample_steps + seqs.n_sequences)
        self.convolution_ = DilatedKernels(
            self.n_dilations, max_dilation=max_dilation, n_biases=n_biases,
            quantile_levels="random", quantile_range=self.quantile_range,
            causal=self.causal, padding="edge" if self.causal else "zero",
            threshold_sample=self.threshold_sample, random_state=rng.randint(2**31),
            n_jobs=n_jobs).fit_packed(
                seqs, self, f"n_indicators={self.n_indicators}",
                TABLE_COPIES + n_sample + min(self.n_components, n_sample),
            ).set_params(n_jobs=None)
        # prefix means at steps drawn from all training sequences
        rows = np.arange(n_steps)
        if n_steps > self.sample_steps:
            rows = np.sort(rng.choice(n_steps, self.sample_steps, replace=False))
        self.levels_ = np.quantile(
            seqs.data[rows], (np.arange(self.n_levels) + 0.5) / self.n_levels,
            axis=0).T  # (n_channels, n_levels)
        return rows

    def _fit_table(self, seqs):
        """The whitened principal components of one-step rows. On a table the indicators
        are only amplitude levels (16 quantile bins per column, whitened into as many
        components as the rows allow), with which each state's output network
        interpolates its share of the rows: on scikit-learn's 200-row regression check,
        three states reached a training R^2 of 0.003 (their variances collapsed onto
        subsets of the rows), and with 3 noisy blob classes, class 0 weighted 10^7 times
        the others, 0.72 of the test points went to class 0 (a linear read-out of the
        inputs: 1.0)."""
        Z = seqs.data
        Z = Z[np.argsort(row_keys(Z), kind="stable")]  # order-blind, as in fit
        mean = Z.mean(axis=0)
        _, S, Vt = np.linalg.svd(Z - mean, full_matrices=False)
        # The components the rows span (variance >= 1e-4 of the first, as in
        # fit); of constant columns, one zero feature.
        # (relative to the first, whose square underflows on rows near 1e-160)
        top = S[0] if S[0] > 0 else 1.0
        keep = min(int(np.sum((S / top) ** 2 > 1e-4)), Z.shape[0] - 1)
        self.projection_ = np.zeros((Z.shape[1], max(keep, 1)))
        self.projection_[:, :keep] = Vt[:keep].T / (S[:keep] / np.sqrt(Z.shape[0]))
        self.offset_ = mean @ self.projection_
        return self

    @property
    def n_output_features(self):
        return self.projection_.shape[1]

    @property
    def n_state_features(self):
        if self.tabular_:
            return self.n_output_features
        return min(self.n_state_components, self.n_output_features)

    def inputs(self, seqs, rows, n_jobs=None, coming=None):
        """The state networks' inputs (leading components, every step) and the
        output networks' (all components, at ``rows``; ``coming(block)``: the
        projection and offset at ``rows``, or None while they are computed)."""
        if self.tabular_:
            Z = seqs.data @ self.projection_ - self.offset_
            return Z, Z[rows]
        with one_blas_thread():
            return self._walk(seqs, rows, self.n_state_features, n_jobs, coming)

    def indicator_means(self, seqs, rows, n_jobs=None, sampled=None):
        """The prefix means of the fitted indicators (before any projection)
        at the packed steps ``rows``, walking only the sequences that hold
        them; those that ``sampled`` (the :class:`Sampled` walk of the same
        ``seqs`` that :meth:`fit` hands to ``beside``) holds are read from
        it."""
        if sampled is None or sampled.seqs is not seqs:
            return self._walk(*seqs.holding(rows), None, n_jobs)[1]
        means, steps = sampled.means, sampled.steps
        place = np.full(seqs.data.shape[0], -1)
        place[steps] = np.arange(steps.size)
        at = place[rows]
        out = np.empty((rows.size, means.shape[1]))
        out[at >= 0] = means[at[at >= 0]]
        if np.any(at < 0):
            out[at < 0] = self._walk(*seqs.holding(rows[at < 0]), None, n_jobs)[1]
        return out

    def _walk(self, seqs, rows, k, n_jobs=None, coming=None):
        """Prefix means of the projected indicators at every step (leading
        ``k`` components) and at ``rows`` (all components; the raw prefix-mean
        indicators if ``k`` is None, before a projection exists), in one pass
        of a kernel that writes no step's indicators
        (``skseq._kernels.convolution.prefix_indicators``). A sequence's values are the
        same, bit for bit, whatever the other sequences in the call."""
        conv = self.convolution_
        arguments = {**kernel_arguments(conv), "biases": conv.biases_,
                     "levels": self.levels_, "n_jobs": n_jobs}
        if k is None:
            return None, convolution.prefix_indicators(
                seqs.data, seqs.offsets, rows, **arguments)[1]
        return convolution.prefix_indicators(
            seqs.data, seqs.offsets, rows,
            step_projection=self.projection_[:, :k], step_offset=self.offset_[:k],
            row_projection=coming or self.projection_, row_offset=self.offset_,
            **arguments)


class CentredShapeFeatures(ShapeFeatures):
    """Shape features with kernels centred on their step
    (``features="shape_centred"``).

    :class:`ShapeFeatures` with MiniRocket's own kernels (Dempster, Schmidt &
    Webb 2021), centred on their step and reading zeros beyond the sequence's
    ends: not causal, a step's features read up to four dilations ahead. For
    sequence-level targets only (an estimator refuses it with step-level
    targets): a sequence's class then depends on its own steps, but a
    prefix's state distributions are not the first ones of the whole
    sequence. Trained on prefixes, it classified prefixes more accurately
    than the causal kernels on the panel's training splits
    (``benchmarks/bench_early_classification.py``).

    Parameters
    ----------
    **params
        The parameters of :class:`ShapeFeatures`, with the same defaults
        (``n_indicators=2688, n_dilations=16, quantile_range=(0.1, 0.9),
        n_levels=16, n_components=128, n_state_components=8,
        sample_steps=2000, last_step_weight=1.0, projection_dtype="float32",
        threshold_sample="steps", supervised=True``).

    Attributes
    ----------
    convolution_, levels_, projection_, offset_, tabular_
        As :class:`ShapeFeatures`'.

    See Also
    --------
    ShapeFeatures : The causal kernels, for step-level targets as well (and
        the reference of MiniRocket, Dempster, Schmidt & Webb 2021).

    Examples
    --------
    >>> from skseq import IOHMMClassifier
    >>> from skseq.representations import CentredShapeFeatures
    >>> clf = IOHMMClassifier(n_prefixes=4,
    ...                       features=CentredShapeFeatures(n_components=32))
    >>> clf.get_params()["features__n_components"]
    32
    """

    name = "shape_centred"
    causal = False
    summary = ('as ``"shape"``, but every kernel is centred on its step and '
               "reads zeros beyond the sequence's ends (MiniRocket's kernels): "
               "not causal within a sequence, for one target per sequence only; "
               "the more accurate to classify prefixes (User Guide, \"Early "
               'classification").')



# Rows whose keys one product computes at once (a block of 256 x 2,688 is
# 5.5 MB: no fresh memory of the sample's size).
_KEY_ROWS = 256


def row_keys(rows):
    """A fixed random projection of every row, computed from that row's values
    alone: equal rows get equal keys wherever they sit. (A matrix product may
    round a row by its position: equal prefix means of different weights, a
    sampled step and the same step as its sequence's last, then sorted in an
    order that depended on the order of the sequences.)"""
    direction = np.random.RandomState(0).standard_normal(rows.shape[1])
    keys = np.empty(rows.shape[0])
    for first in range(0, rows.shape[0], _KEY_ROWS):
        block = rows[first : first + _KEY_ROWS]
        np.sum(block * direction, axis=1, out=keys[first : first + _KEY_ROWS])
    return keys


def _standardized(pooled, varying, mean, std, weight, dtype, memory):
    """``(pooled[:, varying] - mean[varying]) / std[varying]``, every row
    scaled by the square root of its ``weight`` (so that its products are
    the weighted sums), in Fortran order (the order that column selection
    gives, in which the randomized SVD has always read it), computed in
    float64 and stored as ``dtype``, in one compiled pass
    (``skseq._kernels.standardize``), in the bytes of the C-contiguous float64
    array ``memory`` (read no more; at least as large): on this machine an
    array of the sample's size (2,000 x 2,600 indicators, beyond what the
    allocator reuses) is fresh memory from the system each time, costing
    more than the pass that writes it."""
    shape = (varying.size, pooled.shape[0])
    Z = memory.reshape(-1).view(dtype)[: shape[0] * shape[1]].reshape(shape).T
    return standardize.standardized(pooled, varying, mean, std, np.sqrt(weight), Z)


def _principal_axes(Z, n_components, seed, total):
    """The leading principal axes and variances of rows ``Z`` already
    centred (with their weights folded in, summing to ``total``), by
    scikit-learn's randomized SVD with two power iterations (LU-normalized
    in single precision), in ``Z``'s precision, as its
    ``PCA(n_components, svd_solver="randomized", iterated_power=2,
    random_state=seed)`` calls it on centred data, without PCA's copy and
    explained-variance passes.

    Returns
    -------
    axes : ndarray of shape (n_components, n_features)
        Unit rows, signs fixed as scikit-learn fixes them.
    variances : ndarray of shape (n_components,)
        The weighted variances along them (sums of squares over ``total``).
    """
    # (scikit-learn's "auto" normalizer is "none" for two iterations.)
    normalizer = "auto" if Z.dtype == np.float64 else "LU"
    U, S, Vt = randomized_svd(Z, n_components, n_oversamples=10, n_iter=2,
                              power_iteration_normalizer=normalizer,
                              flip_sign=False, random_state=seed)
    _, Vt = svd_flip(U, Vt, u_based_decision=False)
    S = S.astype(np.float64)
    return Vt.astype(np.float64), S**2 / total
