"""Local shape and its running summaries: :class:`DilatedConvolution`
(MiniRocket's kernels, kept per step) and :class:`RunningPooling` (means or
maxima over a trailing window or the whole prefix).
"""

import numbers

import numpy as np
from sklearn.base import (
    OneToOneFeatureMixin,
)
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _check_feature_names_in, check_is_fitted

from .._data import (
    N_JOBS_CONSTRAINT,
    check_fitted_params,
    record_fitted_params,
    restore_on_failure,
    validate_sequences,
)
from .._data.dilated import (
    MAX_DILATION,
    DilatedKernels,
    check_indicator_memory,
    check_quantile_range,
    kernel_arguments,
)
from .._kernels import convolution, pooling
from ._base import _output, _SequenceTransformer


class DilatedConvolution(_SequenceTransformer):
    """Local shape around every step: MiniRocket's dilated kernels, kept per step.

    The kernels are those of MiniRocket (Dempster, Schmidt & Webb, KDD 2021):
    length 9, weight 2 at three of the nine taps and -1 at the other six (84
    kernels, one per choice of three taps; the weights sum to 0, so a kernel
    sees shape, not level), spread by exponentially spaced dilations. Tap
    ``p = 0..8`` of a kernel with dilation ``d`` reads step ``t - (8 - p) d``
    (``causal=True``: the window ends at ``t``, so the output at ``t`` depends
    on steps up to ``t`` only) or step ``t + (p - 4) d`` (``causal=False``: a
    window centred on ``t``). A tap before the start (or after the end) of the
    sequence reads the sequence's first (last) value with ``padding="edge"``,
    which extends the series flat, so no shape is invented at its ends; or 0
    with ``padding="zero"`` (MiniRocket's, meant for standardised series).

    Each combination of kernel, dilation and channels gives, per step, either
    its convolution value (``output="value"``), or ``n_biases`` indicators
    ``conv > bias`` (``output="indicator"``). The biases are quantiles of the
    combination's convolution values on the training steps (at most
    ``subsample`` of them, drawn at random), at the low-discrepancy levels
    frac(j * golden ratio) of MiniRocket, so that the combinations threshold
    at different levels. The mean of an indicator over a whole sequence is
    MiniRocket's "proportion of positive values" (PPV): follow this with
    ``RunningPooling()`` and the last step holds it, every earlier step the
    PPV of the prefix so far.

    Channels: ``channels="combine"`` (MiniRocket's rule for several channels)
    sums every kernel over a random subset of channels, drawn for each
    (kernel, dilation) pair: ``floor(2 ** u)`` channels with ``u`` uniform on
    ``[0, log2(min(n_channels, 9) + 1))``, chosen without replacement.
    ``channels="each"`` runs every kernel on every channel on its own
    (``n_channels`` times the features). Both are deterministic for a fixed
    ``random_state``.

    Number of output features: ``84 * len(dilations_)`` combinations (times
    ``n_features_in_`` with ``channels="each"``), times ``n_biases`` for
    indicators. The defaults give 84 x 4 x 2 = 672 per step (fewer distinct
    dilations, so fewer features, when the median training sequence has
    fewer than 65 steps: 336 for 24 steps). The cost of a
    transform is a few nanoseconds per output value on one core (see
    ``benchmarks/bench_representations.py``), and its memory is that of the
    output, ``n_steps x n_features_out x 8`` bytes.

    A one-step sequence (a row of a 2-D input) with edge padding is a flat
    window: every convolution is exactly 0 and every indicator is
    ``0 > bias``. With zero padding and ``causal=True`` the convolution is
    the value times the weight of tap 8.

    Parameters
    ----------
    n_dilations : int, default=4
        Number of dilations, spaced exponentially from 1 to ``max_dilation``
        (``floor(2 ** linspace(0, log2(max_dilation), n_dilations))``, fewer
        where two of them round to the same integer).
    max_dilation : int or None, default=None
        Largest dilation (at most 256204778801521550, about 2.6e17, the
        kernels' index range); None: the largest ``d`` whose window of
        ``8 d + 1`` steps fits in the median training sequence (at least 1).
    n_biases : int, default=2
        Indicators per combination (``output="indicator"``).
    output : {"indicator", "value"}, default="indicator"
        ``"indicator"``: 1.0 where the convolution exceeds a bias, else 0.0;
        ``"value"``: the convolution itself (no biases are fitted).
    causal : bool, default=True
        Windows ending at each step (True) or centred on it (False).
    padding : {"edge", "zero"}, default="edge"
        What a tap outside the sequence reads: the nearest end value, or 0.
    channels : {"combine", "each"}, default="combine"
        How kernels meet several input channels (see above).
    pooling : int, "prefix" or None, default=None
        If set, every output is averaged over the trailing ``pooling`` steps
        (fewer at the start), or over the whole prefix (``"prefix"``: the
        running PPV), like ``RunningPooling(window=pooling)`` or
        ``RunningPooling()`` after this transformer, but without a second copy
        of the output (``"prefix"`` is pooled in place) or its validation.
    quantile_levels : {"golden", "random"}, default="golden"
        The quantile levels of the biases: MiniRocket's low-discrepancy
        sequence frac(j * golden ratio), j = 1, 2, ... over all combinations and
        biases, or levels drawn uniformly at random for each (with
        ``random_state``).
    quantile_range : tuple of float, default=(0.0, 1.0)
        The levels are mapped into this range: ``(0.0, 1.0)`` is MiniRocket's;
        a narrower range such as ``(0.1, 0.9)`` leaves out thresholds in the
        tails, whose indicators are nearly constant over many steps (on pooled
        training steps, unlike MiniRocket's one training series per kernel, the
        tails are long).
    subsample : int, default=10_000
        Training steps (drawn at random) whose convolution values give the
        bias quantiles; all steps when there are fewer.
    threshold_sample : {"steps", "series"}, default="steps"
        The steps the bias quantiles are taken over: (a ``subsample`` of)
        the steps of all training sequences, or those of one training
        sequence drawn at random for each (kernel, dilation, channels)
        combination (MiniRocket's rule; at most ``subsample`` of its steps),
        drawn the same whatever the order of the sequences.
    random_state : int, RandomState instance or None, default=None
        Draws the channel subsets, the subsample of training steps and the
        sequences of ``threshold_sample="series"``.
    n_jobs : int or None, default=None
        Threads of the transform (None: 1, -1: all cores).

    Attributes
    ----------
    dilations_ : ndarray of shape (n_dilations_,)
        The distinct dilations, increasing.
    combinations_ : ndarray of shape (n_combinations, 2)
        ``(kernel, dilation)`` of each combination, in output order (by
        dilation, then kernel, then channel). Kernel ``k`` has weight 2 at
        the taps ``list(itertools.combinations(range(9), 3))[k]``.
    channels_ : list of ndarray
        The channels each combination sums its kernel over.
    biases_ : ndarray of shape (n_combinations, n_biases)
        The thresholds of the indicators (0 columns for ``output="value"``).
        Output column ``m * n_biases + b`` is ``conv_m > biases_[m, b]``.
    n_features_in_ : int
        Number of channels per step.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features, when X was a DataFrame with string column names.

    See Also
    --------
    RunningPooling : Running means of the indicators (MiniRocket's PPV).
    SequenceUnion : Side by side with other per-step features.

    Examples
    --------
    >>> import numpy as np
    >>> from skseq.preprocessing import DilatedConvolution
    >>> rng = np.random.default_rng(0)
    >>> X = [rng.normal(size=(50, 1)), rng.normal(size=(30, 1))]
    >>> conv = DilatedConvolution(n_dilations=2, random_state=0).fit(X)
    >>> conv.dilations_
    array([1, 4])
    >>> [x.shape for x in conv.transform(X)]  # 84 kernels x 2 dilations x 2
    [(50, 336), (30, 336)]
    >>> conv.get_feature_names_out()[:3]
    array(['k0_d1_q0', 'k0_d1_q1', 'k1_d1_q0'], dtype=object)
    """

    _parameter_constraints: dict = {
        "n_dilations": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_dilation": [Interval(numbers.Integral, 1, MAX_DILATION, closed="both"),
                         None],
        "n_biases": [Interval(numbers.Integral, 1, None, closed="left")],
        "output": [StrOptions({"indicator", "value"})],
        "causal": ["boolean"],
        "padding": [StrOptions({"edge", "zero"})],
        "channels": [StrOptions({"combine", "each"})],
        "pooling": [Interval(numbers.Integral, 1, None, closed="left"),
                    StrOptions({"prefix"}), None],
        "quantile_levels": [StrOptions({"golden", "random"})],
        "quantile_range": [tuple],
        "subsample": [Interval(numbers.Integral, 1, None, closed="left")],
        "threshold_sample": [StrOptions({"steps", "series"})],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
    }

    def __init__(self, n_dilations=4, *, max_dilation=None, n_biases=2,
                 output="indicator", causal=True, padding="edge",
                 channels="combine", pooling=None, quantile_levels="golden",
                 quantile_range=(0.0, 1.0), subsample=10_000,
                 threshold_sample="steps", random_state=None, n_jobs=None):
        self.n_dilations = n_dilations
        self.max_dilation = max_dilation
        self.n_biases = n_biases
        self.output = output
        self.causal = causal
        self.padding = padding
        self.channels = channels
        self.pooling = pooling
        self.quantile_levels = quantile_levels
        self.quantile_range = quantile_range
        self.subsample = subsample
        self.threshold_sample = threshold_sample
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y=None):
        """Choose the dilations and channels, and fit the biases on X.

        A failed fit leaves a fitted transformer exactly as it was.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : ignored
            Not used, present for API consistency.

        Returns
        -------
        self : object
        """
        with restore_on_failure(self):
            self._validate_params()
            check_quantile_range(self.quantile_range)
            seqs = validate_sequences(self, X, reset=True)
            params = self.get_params(deep=False)
            del params["pooling"]
            kernels = DilatedKernels(**params).fit_packed(seqs, owner=self)
            self.dilations_ = kernels.dilations_
            self.combinations_ = kernels.combinations_
            self.channels_ = kernels.channels_
            self.biases_ = kernels.biases_
            # Transforming after one of these changed (set_params without
            # refit) would silently mix two settings.
            record_fitted_params(self, ("n_dilations", "max_dilation", "n_biases",
                                        "output", "causal", "padding", "channels",
                                        "quantile_levels", "quantile_range",
                                        "subsample", "threshold_sample",
                                        "random_state"))
        return self

    def _kernel_arguments(self):
        return kernel_arguments(self)

    def _convolve(self, seqs, rows, biases):
        """The kernel on packed steps ``rows``, with the fitted combinations."""
        return convolution.dilated_convolution(seqs.data, seqs.offsets, rows,
                                             biases=biases, **kernel_arguments(self))

    def transform(self, X):
        """Convolve every step's window (and threshold it at the biases).

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

        Returns
        -------
        X_new : same form as X
            With the features listed by :meth:`get_feature_names_out`.
        """
        seqs = self._validated(X)
        check_fitted_params(self)
        # the convolution's output and its container (and a window's pool)
        check_indicator_memory(
            self, f"n_biases={self.n_biases}", self.biases_.size,
            seqs.data.shape[0] * (2 + (self.pooling not in (None, "prefix"))),
            rows=True)
        out = self._convolve(seqs, np.arange(seqs.data.shape[0]), self.biases_)
        if self.pooling == "prefix":
            pooling.running_pool(out, seqs.offsets, None, "mean", self.n_jobs,
                                 out=out, finite=True)
        elif self.pooling is not None:
            out = pooling.running_pool(out, seqs.offsets, self.pooling, "mean",
                                       self.n_jobs, finite=True)
        return _output(seqs, out)

    def get_feature_names_out(self, input_features=None):
        """Names of the output features.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Input feature names; default ``feature_names_in_``, else
            ``x0, x1, ...``.

        Returns
        -------
        feature_names_out : ndarray of str objects
            ``k<kernel>_d<dilation>`` (then ``_<channel name>`` with
            ``channels="each"``, and ``_q<bias index>`` for indicators).
        """
        check_is_fitted(self)
        names = _check_feature_names_in(self, input_features)
        out = []
        for (k, d), ch in zip(self.combinations_, self.channels_, strict=True):
            stem = f"k{k}_d{d}"
            if self.channels == "each":
                stem = f"{stem}_{names[ch[0]]}"
            if self.output == "value":
                out.append(stem)
            else:
                out.extend(f"{stem}_q{b}" for b in range(self.biases_.shape[1]))
        return np.asarray(out, dtype=object)


class RunningPooling(OneToOneFeatureMixin, _SequenceTransformer):
    """Running mean (or maximum) of every feature over a trailing window.

    The output at step ``t`` of a sequence is the mean (``statistic="mean"``)
    or the maximum (``"max"``) of each feature over the steps
    ``max(0, t - window + 1) .. t`` of that sequence: the last ``window``
    steps, or all steps so far at the start of the sequence; with
    ``window=None``, over the whole prefix ``0 .. t``. It is causal and keeps
    one output step per input step, so a model's states stay on the raw steps.

    After :class:`DilatedConvolution`'s indicators, the running mean over the
    prefix holds at each step the proportion of positive values (MiniRocket's
    PPV) of the sequence so far, and at the last step the PPV of the whole
    sequence; a trailing window gives local densities instead. The running
    maximum of indicators says whether the pattern occurred (in the window);
    of ``output="value"`` convolutions it is ROCKET's max pooling.

    Numerics: the prefix mean uses a compensated (Kahan) sum, exact to a few
    units in the last place of the mean absolute value at any length; a
    trailing sum adds the new step, subtracts the one leaving the window, and
    is summed afresh every ``window`` steps so that rounding never builds up.

    Parameters
    ----------
    window : int or None, default=None
        Steps per trailing window; None: the whole prefix.
    statistic : {"mean", "max"}, default="mean"
        The running statistic.
    n_jobs : int or None, default=None
        Threads over sequences (None: 1, -1: all cores).

    Attributes
    ----------
    n_features_in_ : int
        Number of features per step.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features, when X was a DataFrame with string column names.

    See Also
    --------
    DilatedConvolution : Per-step indicators of local shape.
    WindowMean : Means over non-overlapping windows (shortens sequences).

    Examples
    --------
    >>> import numpy as np
    >>> from skseq.preprocessing import RunningPooling
    >>> X = [np.array([1.0, 0.0, 1.0, 1.0])]
    >>> RunningPooling().fit_transform(X)[0].ravel()
    array([1.        , 0.5       , 0.66666667, 0.75      ])
    >>> RunningPooling(window=2).fit_transform(X)[0].ravel()
    array([1. , 0.5, 0.5, 1. ])
    >>> RunningPooling(window=2, statistic="max").fit_transform(X)[0].ravel()
    array([1., 1., 1., 1.])
    """

    _parameter_constraints: dict = {
        "window": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "statistic": [StrOptions({"mean", "max"})],
        "n_jobs": N_JOBS_CONSTRAINT,
    }

    def __init__(self, window=None, *, statistic="mean", n_jobs=None):
        self.window = window
        self.statistic = statistic
        self.n_jobs = n_jobs

    def transform(self, X):
        """Replace every step's features by their running statistic.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

        Returns
        -------
        X_new : same form as X
            With the features of X.
        """
        seqs = self._validated(X)
        return _output(seqs, pooling.running_pool(
            seqs.data, seqs.offsets, self.window, self.statistic, self.n_jobs,
            finite=True))
