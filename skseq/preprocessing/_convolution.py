"""Transformers of sequences.

:class:`Stepwise` applies an ordinary (2-D) scikit-learn transformer to every
step; :class:`WindowMean` shortens sequences by averaging windows of steps;
:class:`SequenceFeatures` appends per-step features computed along each
sequence (differences, relative time); :class:`DilatedConvolution` describes the
local shape around every step with MiniRocket's kernels; :class:`RunningPooling`
averages (or takes the maximum of) features over a trailing window or the whole
prefix; :class:`SequenceUnion` puts the features of several such transformers
side by side. All but WindowMean keep one output step per input step.

:func:`on_raw_steps` calls a method of a pipeline's last step (state
posteriors, Viterbi paths) and maps its per-step output back onto the raw steps.
"""

import numbers

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import (
    BaseEstimator,
    OneToOneFeatureMixin,
    TransformerMixin,
    clone,
)
from sklearn.pipeline import Pipeline
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.metaestimators import _BaseComposition
from sklearn.utils.validation import _check_feature_names_in, check_is_fitted

from . import _convolve
from ._data import (
    N_JOBS_CONSTRAINT,
    Sequences,
    check_fitted_params,
    check_sequences,
    record_fitted_params,
    restore_on_failure,
    validate_sequences,
)
from ._data.dilated import DilatedKernels, kernel_arguments

__all__ = [
    "DilatedConvolution",
    "RunningPooling",
    "SequenceFeatures",
    "SequenceUnion",
    "Stepwise",
    "WindowMean",
    "on_raw_steps",
]


class Stepwise(TransformerMixin, BaseEstimator):
    """Apply a 2-D transformer to every step, keeping the sequence structure.

    The transformer is fitted on all steps of all sequences pooled, and then
    transforms each step; the output has the form of the input (list in, list out;
    3-D padded in, 3-D padded out; 2-D in, 2-D out). The transformer must return
    finite values, one row per step: a NaN step could not be told from padding.

    Parameters
    ----------
    transformer : estimator
        Any scikit-learn transformer working on ``(n_samples, n_features)``, e.g.
        ``StandardScaler()`` or ``OneHotEncoder(sparse_output=False)``.

    Attributes
    ----------
    transformer_ : estimator
        The fitted clone of ``transformer``.
    n_features_in_ : int
        Number of features per step.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features, when X was a DataFrame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.preprocessing import StandardScaler
    >>> from skseq.preprocessing import Stepwise
    >>> X = [np.array([[0.0], [2.0]]), np.array([[4.0]])]
    >>> X_new = Stepwise(StandardScaler()).fit_transform(X)
    >>> [x.ravel().round(2).tolist() for x in X_new]
    [[-1.22, 0.0], [1.22]]
    """

    _parameter_constraints: dict = {"transformer": [HasMethods(["fit", "transform"])]}

    def __init__(self, transformer):
        self.transformer = transformer

    def fit(self, X, y=None):
        """Fit the transformer on all steps pooled.

        A failed fit leaves a fitted Stepwise exactly as it was.

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
            seqs = validate_sequences(self, X, reset=True)
            self.transformer_ = clone(self.transformer).fit(seqs.data)
        return self

    def transform(self, X):
        """Transform every step.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

        Returns
        -------
        X_new : same form as X
            With the transformer's number of output features per step.
        """
        check_is_fitted(self)
        seqs = validate_sequences(self, X, reset=False)
        out = self.transformer_.transform(seqs.data)
        if hasattr(out, "toarray"):
            out = out.toarray()
        out = np.asarray(out, dtype=np.float64)
        if out.ndim != 2 or out.shape[0] != seqs.data.shape[0]:
            raise ValueError(
                f"{type(self.transformer_).__name__} returned shape {out.shape} for "
                f"{seqs.data.shape[0]} steps; Stepwise needs one output row per step."
            )
        if not np.isfinite(out).all():
            # In a 3-D output an all-NaN step would silently read as padding.
            seq, step = seqs.locate(np.argwhere(~np.isfinite(out))[0, 0])
            raise ValueError(
                f"{type(self.transformer_).__name__} produced NaN or inf at "
                f"sequence {seq}, step {step}."
            )
        if seqs.form == "rows":
            return out
        return seqs.unpack(out)

    def get_feature_names_out(self, input_features=None):
        """Names of the output features, as the transformer gives them.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Input feature names; default ``feature_names_in_``, else
            ``x0, x1, ...``.

        Returns
        -------
        feature_names_out : ndarray of str objects
        """
        check_is_fitted(self)
        names = _check_feature_names_in(self, input_features)
        return self.transformer_.get_feature_names_out(names)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags


def _output(seqs, packed, offsets=None):
    """Packed per-step values back in the input's form (2-D rows stay 2-D)."""
    if offsets is not None:
        seqs = Sequences(data=packed, offsets=offsets, form=seqs.form)
    if seqs.form == "rows":  # one-step sequences stay one-step: a 2-D array
        return packed
    return seqs.unpack(packed)


class _SequenceTransformer(TransformerMixin, BaseEstimator):
    """Fit records the number (and names) of features; transform validates."""

    def fit(self, X, y=None):
        """Check the parameters and record the number of features.

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
            self._check_params()
            validate_sequences(self, X, reset=True)
        return self

    def _check_params(self):
        """Checks across parameters (beyond ``_parameter_constraints``)."""

    def _validated(self, X):
        check_is_fitted(self)
        return validate_sequences(self, X, reset=False)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags


class WindowMean(OneToOneFeatureMixin, _SequenceTransformer):
    """Shorten sequences by averaging non-overlapping windows of steps.

    Each sequence is cut, from its start, into windows of ``w`` consecutive
    steps, and every window is replaced by the mean of its steps; a last,
    shorter window keeps the mean of the steps left over. The window of a
    sequence of ``T`` steps is ``w = max(window, ceil(T / max_length))``: at
    least ``window`` steps, and enough of them that the output has at most
    ``max_length`` steps. With equal lengths every sequence gets the same
    window; with unequal lengths and ``max_length``, longer sequences get
    longer windows (set ``window`` alone to keep one time scale for all).

    Shorter sequences make IOHMMs faster to fit (the cost is linear in the
    number of steps) and often more accurate: a window mean is a smoothed
    input, and the state has fewer steps over which to carry the evidence.

    Parameters
    ----------
    max_length : int or None, default=None
        Longest output sequence; None: no limit.
    window : int or None, default=None
        Smallest number of steps per window; None: 1.

    Attributes
    ----------
    n_features_in_ : int
        Number of features per step.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features, when X was a DataFrame with string column names.

    See Also
    --------
    SequenceFeatures : Differences and relative time as extra features.

    Examples
    --------
    >>> import numpy as np
    >>> from skseq.preprocessing import WindowMean
    >>> X = [np.arange(5.0), np.arange(2.0)]
    >>> [x.ravel().tolist() for x in WindowMean(window=2).fit_transform(X)]
    [[0.5, 2.5, 4.0], [0.5]]
    >>> [x.ravel().tolist() for x in WindowMean(max_length=2).fit_transform(X)]
    [[1.0, 3.5], [0.0, 1.0]]
    """

    _parameter_constraints: dict = {
        "max_length": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "window": [Interval(numbers.Integral, 1, None, closed="left"), None],
    }

    def __init__(self, max_length=None, window=None):
        self.max_length = max_length
        self.window = window

    def transform(self, X):
        """Replace every window of steps by its mean.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

        Returns
        -------
        X_new : same form as X
            Sequences of ceil(T / w) steps, with the features of X.
        """
        seqs = self._validated(X)
        offsets, window_of = self._windows(seqs)
        sums = np.zeros((offsets[-1], seqs.n_features))
        np.add.at(sums, window_of, seqs.data)
        counts = np.bincount(window_of, minlength=offsets[-1])
        return _output(seqs, sums / counts[:, None], offsets)

    def _windows(self, seqs):
        """Offsets of the windows in the packed output, and the packed window
        index of every raw step."""
        lengths = seqs.lengths
        w = np.full(lengths.shape, 1 if self.window is None else self.window)
        if self.max_length is not None:
            w = np.maximum(w, -(-lengths // self.max_length))
        n_win = -(-lengths // w)
        offsets = np.zeros(n_win.shape[0] + 1, dtype=np.intp)
        np.cumsum(n_win, out=offsets[1:])
        seq = np.repeat(np.arange(seqs.n_sequences), lengths)
        t = np.arange(seqs.data.shape[0]) - seqs.offsets[seq]
        return offsets, offsets[seq] + t // w[seq]

    def to_raw_steps(self, values, X):
        """Map per-window values back onto the raw steps of X.

        After ``WindowMean``, a model's per-step outputs (state posteriors,
        Viterbi paths, transition matrices) are on the window axis. This
        repeats every window's value on each raw step of that window, so that
        raw step ``t`` of a sequence gets the value of the window that averaged
        it.

        Parameters
        ----------
        values : list of arrays, or array
            Per-window values of the sequences of ``transform(X)``: a list (one
            ``(n_windows_i, ...)`` array per sequence, any trailing shape), or
            an array ``(n_sequences, max_windows, ...)`` padded after each
            sequence's windows (the form of padded outputs such as
            ``predict_state_proba`` or ``decode`` for array input).
        X : array-like or list of sequences
            The raw sequences that were transformed.

        Returns
        -------
        raw_values : list of arrays, or array
            List in, list out: one ``(len_i, ...)`` array per sequence. Array
            in, array out: ``(n_sequences, max_len, ...)``, padded after each
            sequence's end with NaN for floating-point values, -1 for signed
            integers (as ``decode``), zero (or False, or "") for other types.

        Examples
        --------
        >>> import numpy as np
        >>> from skseq.preprocessing import WindowMean
        >>> X = [np.arange(5.0), np.arange(2.0)]
        >>> wm = WindowMean(window=2).fit(X)
        >>> [len(x) for x in wm.transform(X)]
        [3, 1]
        >>> path = [np.array([0, 1, 1]), np.array([2])]   # e.g. a Viterbi path
        >>> [p.tolist() for p in wm.to_raw_steps(path, X)]
        [[0, 0, 1, 1, 1], [2, 2]]
        """
        seqs = self._validated(X)
        offsets, window_of = self._windows(seqs)
        n_win = np.diff(offsets)
        n_seq = seqs.n_sequences
        if isinstance(values, (list, tuple)) or (
                isinstance(values, np.ndarray) and values.dtype == object
                and values.ndim == 1):
            if len(values) != n_seq:
                raise ValueError(
                    f"values has {len(values)} sequences but X has {n_seq}."
                )
            arrays = [np.asarray(v) for v in values]
            for s, a in enumerate(arrays):
                if a.ndim == 0 or a.shape[0] != n_win[s]:
                    got = "a scalar" if a.ndim == 0 else f"{a.shape[0]} steps"
                    raise ValueError(
                        f"values: sequence {s} has {got}, but WindowMean makes "
                        f"{n_win[s]} windows of its {seqs.lengths[s]} raw steps."
                    )
                if a.shape[1:] != arrays[0].shape[1:]:
                    raise ValueError(
                        f"values: sequence {s} has per-step shape {a.shape[1:]} "
                        f"but sequence 0 has {arrays[0].shape[1:]}."
                    )
            raw = np.concatenate(arrays)[window_of]
            return Sequences(data=raw, offsets=seqs.offsets, form="list").unpack(raw)
        values = np.asarray(values)
        if values.ndim < 2 or values.shape[0] != n_seq:
            raise ValueError(
                f"values of shape {values.shape}: expected a list of per-sequence "
                f"arrays, or an array (n_sequences={n_seq}, max_windows, ...)."
            )
        if values.shape[1] < n_win.max():
            s = int(np.argmax(n_win > values.shape[1]))
            raise ValueError(
                f"values has {values.shape[1]} steps per sequence, but WindowMean "
                f"makes {n_win[s]} windows of sequence {s}."
            )
        seq = np.repeat(np.arange(n_seq), seqs.lengths)
        raw = values[seq, window_of - offsets[seq]]
        kind = values.dtype.kind
        fill = (np.nan if kind in "fc" else -1 if kind == "i"
                else np.zeros((), dtype=values.dtype)[()])
        return Sequences(data=raw, offsets=seqs.offsets, form="padded").unpack(
            raw, fill=fill)


class SequenceFeatures(_SequenceTransformer):
    """Append per-step features computed along each sequence.

    Output columns: the input features (``keep_input=True``), then their first
    differences u_t - u_(t-1) (0 at the first step; ``diff=True``), then the
    relative time t / (T - 1) of the step in its sequence of T steps (0 for a
    one-step sequence; ``time=True``).

    The IOHMM's state networks are linear in the input at one step, so a
    change between steps or a position in the sequence is something they
    cannot compute; these features give it to them directly. The relative time
    uses the sequence's length, so it is known only once the sequence has
    ended: with ``time=True`` the model is no longer causal.

    Parameters
    ----------
    diff : bool, default=True
        Append the first differences of the features.
    time : bool, default=False
        Append the relative time of every step.
    keep_input : bool, default=True
        Keep the input features in the output.

    Attributes
    ----------
    n_features_in_ : int
        Number of features per step.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features, when X was a DataFrame with string column names.

    See Also
    --------
    WindowMean : Shorter sequences by window means.

    Examples
    --------
    >>> import numpy as np
    >>> from skseq.preprocessing import SequenceFeatures
    >>> X = [np.array([1.0, 4.0, 2.0])]
    >>> SequenceFeatures(diff=True, time=True).fit_transform(X)[0]
    array([[ 1. ,  0. ,  0. ],
           [ 4. ,  3. ,  0.5],
           [ 2. , -2. ,  1. ]])
    >>> SequenceFeatures(time=True).fit(X).get_feature_names_out()
    array(['x0', 'diff_x0', 'time'], dtype=object)
    """

    _parameter_constraints: dict = {
        "diff": ["boolean"],
        "time": ["boolean"],
        "keep_input": ["boolean"],
    }

    def __init__(self, diff=True, time=False, keep_input=True):
        self.diff = diff
        self.time = time
        self.keep_input = keep_input

    def _check_params(self):
        if not (self.diff or self.time or self.keep_input):
            raise ValueError(
                "SequenceFeatures with diff=False, time=False and keep_input=False "
                "would output no feature; set at least one of them to True."
            )

    def transform(self, X):
        """Append the differences and the relative time to every step.

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
        self._check_params()
        U = seqs.data
        cols = [U] if self.keep_input else []
        if self.diff:
            d = np.zeros_like(U)
            d[1:] = U[1:] - U[:-1]
            d[seqs.offsets[:-1]] = 0.0  # first step of every sequence
            cols.append(d)
        if self.time:
            lengths = seqs.lengths
            seq = np.repeat(np.arange(seqs.n_sequences), lengths)
            t = np.arange(U.shape[0]) - seqs.offsets[seq]
            cols.append((t / np.maximum(lengths[seq] - 1, 1))[:, None])
        return _output(seqs, np.hstack(cols))

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
            The kept inputs, then ``diff_<name>`` for each input, then ``time``.
        """
        check_is_fitted(self)
        names = list(_check_feature_names_in(self, input_features))
        out = names if self.keep_input else []
        if self.diff:
            out = out + [f"diff_{name}" for name in names]
        if self.time:
            out = out + ["time"]
        return np.asarray(out, dtype=object)


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
        Largest dilation; None: the largest ``d`` whose window of ``8 d + 1``
        steps fits in the median training sequence (at least 1).
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
    random_state : int, RandomState instance or None, default=None
        Draws the channel subsets and the subsample of training steps.
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
        "max_dilation": [Interval(numbers.Integral, 1, None, closed="left"), None],
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
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
    }

    def __init__(self, n_dilations=4, *, max_dilation=None, n_biases=2,
                 output="indicator", causal=True, padding="edge",
                 channels="combine", pooling=None, quantile_levels="golden",
                 quantile_range=(0.0, 1.0), subsample=10_000, random_state=None,
                 n_jobs=None):
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
            lo_hi = self.quantile_range
            if (len(lo_hi) != 2 or not all(isinstance(v, numbers.Real) for v in lo_hi)
                    or not 0.0 <= lo_hi[0] < lo_hi[1] <= 1.0):
                raise ValueError(
                    f"quantile_range must be (low, high) with 0 <= low < high <= 1, "
                    f"got {lo_hi!r}."
                )
            seqs = validate_sequences(self, X, reset=True)
            params = self.get_params(deep=False)
            del params["pooling"]
            kernels = DilatedKernels(**params).fit_packed(seqs)
            self.dilations_ = kernels.dilations_
            self.combinations_ = kernels.combinations_
            self.channels_ = kernels.channels_
            self.biases_ = kernels.biases_
            # Transforming after one of these changed (set_params without
            # refit) would silently mix two settings.
            record_fitted_params(self, ("n_dilations", "max_dilation", "n_biases",
                                        "output", "causal", "padding", "channels",
                                        "quantile_levels", "quantile_range",
                                        "subsample", "random_state"))
        return self

    def _kernel_arguments(self):
        return kernel_arguments(self)

    def _convolve(self, seqs, rows, biases):
        """The kernel on packed steps ``rows``, with the fitted combinations."""
        return _convolve.dilated_convolution(seqs.data, seqs.offsets, rows,
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
        out = self._convolve(seqs, np.arange(seqs.data.shape[0]), self.biases_)
        if self.pooling == "prefix":
            _convolve.running_pool(out, seqs.offsets, None, "mean", self.n_jobs,
                                   out=out)
        elif self.pooling is not None:
            out = _convolve.running_pool(out, seqs.offsets, self.pooling, "mean",
                                         self.n_jobs)
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
        return _output(seqs, _convolve.running_pool(
            seqs.data, seqs.offsets, self.window, self.statistic, self.n_jobs))


def _fit_transform_one(transformer, X, y):
    return transformer, transformer.fit_transform(X, y)


def _transform_one(transformer, X):
    """None stands for the input itself (``"passthrough"``)."""
    return None if transformer == "passthrough" else transformer.transform(X)


class SequenceUnion(TransformerMixin, _BaseComposition):
    """Concatenate, step by step, the features of several sequence transformers.

    scikit-learn's :class:`~sklearn.pipeline.FeatureUnion` for sequences: every
    transformer gets the same sequences, and their outputs, which must keep
    one step per input step, are put side by side at every step, in the form of
    the input (list in, list out; 3-D padded in, 3-D out; 2-D rows in, 2-D
    out). Unlike FeatureUnion, ``fit`` fits clones of the transformers (in
    ``transformers_``) and leaves ``transformer_list`` as it was. Nested
    parameters are set as in FeatureUnion (``"shape__n_dilations"``), so
    GridSearchCV reaches them.

    Parameters
    ----------
    transformer_list : list of (str, transformer) tuples
        The transformers, each keeping one output step per input step (e.g.
        :class:`DilatedConvolution`, :class:`Stepwise`,
        :class:`SequenceFeatures`, :class:`RunningPooling`, or pipelines of
        them); ``"passthrough"`` keeps the input features, ``"drop"`` leaves
        the entry out.
    n_jobs : int or None, default=None
        Transformers fitted and run in parallel (joblib).
    transformer_weights : dict or None, default=None
        Multiplier of each transformer's features, keyed by name.
    verbose_feature_names_out : bool, default=True
        Prefix the output feature names with ``<transformer name>__``.

    Attributes
    ----------
    transformers_ : list of (str, transformer) tuples
        The fitted clones (``"passthrough"`` as such), without dropped entries.
    n_features_in_ : int
        Number of features per input step.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features, when X was a DataFrame with string column names.

    See Also
    --------
    sklearn.pipeline.FeatureUnion : The same for tables.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.preprocessing import SplineTransformer
    >>> from skseq.preprocessing import (DilatedConvolution, SequenceFeatures,
    ...                                  SequenceUnion, Stepwise)
    >>> rng = np.random.default_rng(0)
    >>> X = [rng.normal(size=(40, 1)), rng.normal(size=(25, 1))]
    >>> union = SequenceUnion([
    ...     ("shape", DilatedConvolution(n_dilations=2, random_state=0)),
    ...     ("amplitude", Stepwise(SplineTransformer(n_knots=4))),
    ...     ("change", SequenceFeatures(keep_input=False)),
    ... ])
    >>> [x.shape for x in union.fit_transform(X)]   # 336 + 6 + 1 per step
    [(40, 343), (25, 343)]
    >>> union.get_feature_names_out()[-2:]
    array(['amplitude__x0_sp_5', 'change__diff_x0'], dtype=object)
    """

    _parameter_constraints: dict = {
        "transformer_list": [list],
        "n_jobs": N_JOBS_CONSTRAINT,
        "transformer_weights": [dict, None],
        "verbose_feature_names_out": ["boolean"],
    }

    def __init__(self, transformer_list, *, n_jobs=None, transformer_weights=None,
                 verbose_feature_names_out=True):
        self.transformer_list = transformer_list
        self.n_jobs = n_jobs
        self.transformer_weights = transformer_weights
        self.verbose_feature_names_out = verbose_feature_names_out

    def get_params(self, deep=True):
        """Parameters of the union and, with ``deep``, of its transformers.

        Parameters
        ----------
        deep : bool, default=True
            Also return the transformers and their parameters
            (``<name>__<parameter>``).

        Returns
        -------
        params : dict
        """
        return self._get_params("transformer_list", deep=deep)

    def set_params(self, **params):
        """Set parameters of the union or of its transformers.

        Parameters
        ----------
        **params : keyword arguments
            ``transformer_list``, a transformer by its name, or
            ``<name>__<parameter>``.

        Returns
        -------
        self : object
        """
        self._set_params("transformer_list", **params)
        return self

    def _active(self):
        """(name, transformer) of the entries not dropped, names checked."""
        names = [entry[0] for entry in self.transformer_list]
        self._validate_names(names)
        active = []
        for name, trans in self.transformer_list:
            if isinstance(trans, str):
                if trans == "drop":
                    continue
                if trans != "passthrough":
                    raise ValueError(
                        f"SequenceUnion: transformer {name!r} is the string "
                        f"{trans!r}; expected a transformer, 'passthrough' or "
                        "'drop'."
                    )
            elif not (hasattr(trans, "fit") and hasattr(trans, "transform")):
                raise TypeError(
                    f"SequenceUnion: transformer {name!r} ({type(trans).__name__}) "
                    "has no fit and transform methods."
                )
            active.append((name, trans))
        if not active:
            raise ValueError("SequenceUnion: every transformer is 'drop'.")
        return active

    def fit(self, X, y=None):
        """Fit clones of the transformers on X.

        A failed fit leaves a fitted union exactly as it was.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : array-like or None, default=None
            Passed to every transformer's ``fit``.

        Returns
        -------
        self : object
        """
        self.fit_transform(X, y)
        return self

    def fit_transform(self, X, y=None):
        """Fit clones of the transformers on X and concatenate their outputs.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.
        y : array-like or None, default=None
            Passed to every transformer's ``fit_transform``.

        Returns
        -------
        X_new : same form as X
            The transformers' features, side by side at every step.
        """
        with restore_on_failure(self):
            self._validate_params()
            active = self._active()
            seqs = validate_sequences(self, X, reset=True)
            fitted = Parallel(n_jobs=self.n_jobs)(
                delayed(_fit_transform_one)(clone(trans), X, y)
                for _, trans in active if trans != "passthrough"
            )
            fitted = iter(fitted)
            self.transformers_, outputs = [], []
            for name, trans in active:
                trans, out = (("passthrough", None) if trans == "passthrough"
                              else next(fitted))
                self.transformers_.append((name, trans))
                outputs.append(out)
            return self._hstack(seqs, outputs)

    def transform(self, X):
        """Transform X by every transformer and concatenate the outputs.

        Parameters
        ----------
        X : array-like or list of sequences
            Sequences: a 3-D NaN-padded array, a list of arrays, or 2-D one-step rows.

        Returns
        -------
        X_new : same form as X
            The transformers' features, side by side at every step.
        """
        check_is_fitted(self)
        seqs = validate_sequences(self, X, reset=False)
        outputs = Parallel(n_jobs=self.n_jobs)(
            delayed(_transform_one)(trans, X) for _, trans in self.transformers_
        )
        return self._hstack(seqs, outputs)

    def _hstack(self, seqs, outputs):
        """Every output packed, checked against the input's lengths, weighted
        and concatenated along the features; None stands for the input."""
        weights = self.transformer_weights or {}
        blocks = []
        for (name, _), out in zip(self.transformers_, outputs, strict=True):
            data = seqs.data
            if out is not None:
                try:
                    packed = check_sequences(out, name=f"output of {name!r}")
                except (TypeError, ValueError) as exc:
                    raise ValueError(
                        f"SequenceUnion: transformer {name!r} did not return "
                        f"sequences: {exc}"
                    ) from exc
                if not np.array_equal(packed.lengths, seqs.lengths):
                    s = int(np.argmax(packed.lengths != seqs.lengths)) if (
                        packed.n_sequences == seqs.n_sequences) else None
                    what = (f"{packed.n_sequences} sequences for {seqs.n_sequences}"
                            if s is None else f"{packed.lengths[s]} steps for the "
                            f"{seqs.lengths[s]} of sequence {s}")
                    raise ValueError(
                        f"SequenceUnion: transformer {name!r} returned {what}; "
                        "every transformer must keep one output step per input "
                        "step."
                    )
                data = packed.data
            blocks.append(data * weights[name] if name in weights else data)
        return _output(seqs, np.hstack(blocks))

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
            Every transformer's names, prefixed by ``<name>__`` when
            ``verbose_feature_names_out``.
        """
        check_is_fitted(self)
        names = _check_feature_names_in(self, input_features)
        out = []
        for name, trans in self.transformers_:
            inner = (names if trans == "passthrough"
                     else trans.get_feature_names_out(names))
            out.extend(f"{name}__{f}" if self.verbose_feature_names_out else f
                       for f in inner)
        return np.asarray(out, dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags


def _steps(estimator):
    """The estimators of a (possibly nested) Pipeline, in order, without
    ``"passthrough"`` / None steps; a single estimator for anything else."""
    if not isinstance(estimator, Pipeline):
        return [estimator]
    return [inner for _, step in estimator.steps
            if step is not None and not (isinstance(step, str)
                                         and step == "passthrough")
            for inner in _steps(step)]


# Methods whose output is per sequence unless the model labels every step.
_PER_SEQUENCE_METHODS = frozenset({"predict", "predict_proba", "predict_log_proba",
                                   "decision_function", "score"})


def on_raw_steps(estimator, method, X, *args, **kwargs):
    """Call a method of a pipeline's last step on X, with outputs on X's steps.

    ``pipe.predict_state_proba(X)`` does not exist on a scikit-learn Pipeline,
    which forwards only ``predict``-like methods. This transforms X by every
    step but the last (as ``pipe[:-1].transform(X)`` would), calls
    ``method`` of the last step on the result, and maps the per-step output
    back through every :class:`WindowMean` of the pipeline
    (:meth:`WindowMean.to_raw_steps`), so that step ``t`` of the output belongs
    to raw step ``t`` of X.

    Parameters
    ----------
    estimator : Pipeline or estimator
        A fitted pipeline (nested pipelines are followed); any other fitted
        estimator just has ``method`` called.
    method : str
        Name of a method of the last step returning one value per step, e.g.
        ``"predict_state_proba"``, ``"decode"``, ``"transition_proba"``; or,
        when the pipeline has no WindowMean, any method.
    X : array-like or list of sequences
        Raw sequences, as the pipeline takes them.
    *args, **kwargs
        Passed to ``method`` as they are (e.g. ``y`` for ``decode(X, y)``: with
        a WindowMean, step-level targets must then be on the window axis).

    Returns
    -------
    result : list of arrays, or array
        The method's output, one value per raw step of X, in the method's own
        form (list or padded array).

    Raises
    ------
    ValueError
        If a step other than WindowMean changes the sequences' lengths, or the
        method's output is not per step (e.g. ``predict_proba`` of a model
        fitted on sequence-level labels) while the pipeline has a WindowMean.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.pipeline import make_pipeline
    >>> from skseq import IOHMMClassifier
    >>> from skseq.preprocessing import WindowMean, on_raw_steps
    >>> rng = np.random.default_rng(0)
    >>> X = [rng.normal(size=(9, 1)) + (s % 2) for s in range(10)]
    >>> y = [s % 2 for s in range(10)]
    >>> pipe = make_pipeline(WindowMean(window=3), IOHMMClassifier(
    ...     n_states=2, n_init=1, random_state=0)).fit(X, y)
    >>> pipe[-1].predict_state_proba(pipe[:-1].transform(X))[0].shape  # windows
    (3, 2)
    >>> on_raw_steps(pipe, "predict_state_proba", X)[0].shape  # raw steps
    (9, 2)
    """
    *transformers, last = _steps(estimator)
    Xt, windows = X, []
    lengths = check_sequences(X).lengths
    for step in transformers:
        X_in, Xt = Xt, step.transform(Xt)
        name = type(step).__name__
        new = check_sequences(Xt, name=f"output of {name}").lengths
        if isinstance(step, WindowMean):
            windows.append((step, X_in))
        elif not np.array_equal(new, lengths):
            raise ValueError(
                f"{name} changes the lengths of the sequences (only WindowMean's "
                "can be mapped back onto the raw steps)."
            )
        lengths = new
    if windows and method in _PER_SEQUENCE_METHODS and not getattr(
            last, "step_level_", False):
        raise ValueError(
            f"{type(last).__name__}.{method} gives one value per sequence (it was "
            "not fitted on step-level labels), so there are no steps to map back "
            f"through WindowMean: call {method} on the pipeline itself instead. "
            "on_raw_steps is for per-step outputs such as predict_state_proba."
        )
    result = getattr(last, method)(Xt, *args, **kwargs)
    for step, X_in in reversed(windows):
        result = step.to_raw_steps(result, X_in)
    return result
