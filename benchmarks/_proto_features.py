"""A stand-in per-step representation for the real-data benchmark (not skseq).

``RocketPrefixPCA`` is the representation that issue 14's measurements chose,
written here in NumPy so that the benchmark can measure it before the package's
own transformers (``skseq.preprocessing``, compiled) land; ``RECIPES`` in
``bench_real_data.py`` switches to those when they do. Per step t of each
sequence:

1. causal MiniRocket-style indicators (Dempster et al. 2021): 84 length-9
   kernels (weights -1 and 2, three 2s) at exponentially spaced dilations up to
   (L - 1) / 8, L the longest training sequence; C_t = sum_j w_j u_(t-(8-j)d),
   the sequence edge-padded with its first value; indicator [C_t > b] for biases
   b at random quantiles (0.1-0.9) of the training outputs. Several channels: each
   (kernel, dilation) sums a random subset of them;
2. their mean over the whole prefix u_1..t (at the last step: MiniRocket's
   proportion of positive values), or over a trailing window;
3. standardised and projected on whitened principal components fitted on a
   sample of training steps. Steps 2 and 3 are linear, so the projection is
   applied to the indicators first and the running mean after, in chunks: the
   (n_steps, n_indicators) array is never held whole.

States stay on the raw steps: the output has one row per input step.

``NarrowIOHMMClassifier`` is the other stand-in: an IOHMMClassifier whose state
networks read only the first ``TRANSITION_INPUTS`` input columns (the leading
principal components) while the output networks read them all, so that the
per-step cost of the transitions does not grow with the representation.
"""

from itertools import combinations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.decomposition import PCA
from sklearn.utils.validation import check_is_fitted

from skseq import IOHMMClassifier
from skseq._layers import InputLayer
from skseq._transitions import InputTransitions
from skseq.utils import to_list

TRANSITION_INPUTS = 8

# 84 kernels: the positions of the three weights 2 among nine (the rest -1).
_KERNELS = np.array(list(combinations(range(9), 3)))
_WEIGHTS = np.full((9, len(_KERNELS)), -1.0)
_WEIGHTS[_KERNELS.T, np.arange(len(_KERNELS))] = 2.0
# Steps per chunk of the transform (bounds the temporary indicator arrays).
_CHUNK_STEPS = 1 << 14


class RocketPrefixPCA(TransformerMixin, BaseEstimator):
    """Causal dilated-kernel indicators, running mean, whitened PCA, per step.

    Parameters
    ----------
    n_dilations : int, default=16
        Dilations, spaced evenly in log2 between 1 and (L - 1) / 8 (duplicates
        merged).
    n_indicators : int, default=2688
        Indicators per step in all: each (kernel, dilation) gets
        ``max(1, n_indicators // (84 * n_unique_dilations))`` thresholds, so that
        short sequences (few dilations) get more of them.
    n_components : int, default=128
        Whitened principal components kept (at most the sample size - 1).
    levels : int, default=0
        Amplitude indicators per channel: [u_t,c > q] at ``levels`` evenly
        spaced quantiles q of the channel's training values (their running mean
        is the empirical distribution of the levels seen so far). The kernels'
        weights sum to zero, so without these the representation sees shape,
        not level.
    window : int or None, default=None
        None: mean over the whole prefix; an int: over the last ``window`` steps.
    n_fit_steps : int, default=4096
        Training steps sampled to fit the biases, the scaling and the PCA.
    random_state : int, default=0
    """

    def __init__(self, n_dilations=16, n_indicators=2688, n_components=128,
                 levels=0, window=None, n_fit_steps=4096, random_state=0):
        self.n_dilations = n_dilations
        self.levels = levels
        self.n_indicators = n_indicators
        self.n_components = n_components
        self.window = window
        self.n_fit_steps = n_fit_steps
        self.random_state = random_state

    # -- convolution and indicators --------------------------------------
    def _conv(self, data, starts, pos, rows, k):
        """Outputs (len(rows), 84) of dilation k's kernels at packed ``rows``."""
        d = self.dilations_[k]
        lags = (8 - np.arange(9)) * d
        src = starts[rows, None] + np.maximum(pos[rows, None] - lags[None, :], 0)
        S = data[src]  # (n, 9, channels)
        n_ch = data.shape[1]
        # (n, 9 * channels) @ (9 * channels, 84): each kernel's channel subset
        return S.reshape(len(rows), 9 * n_ch) @ self.mixing_[k]

    def _level_indicators(self, data, rows):
        """(len(rows), n_channels * levels) amplitude indicators."""
        return (data[rows][:, :, None] > self.level_biases_[None]).reshape(
            len(rows), -1)

    def _all_indicators(self, data, starts, pos, rows):
        blocks = [self._indicators(data, starts, pos, rows, k)
                  for k in range(len(self.dilations_))]
        if self.levels:
            blocks.append(self._level_indicators(data, rows))
        return np.hstack(blocks).astype(np.float32)

    def _indicators(self, data, starts, pos, rows, k):
        C = self._conv(data, starts, pos, rows, k)
        return (C[:, :, None] > self.biases_[k][None]).reshape(len(rows), -1)

    @staticmethod
    def _packed(X):
        lengths = np.array([len(x) for x in X])
        offsets = np.concatenate([[0], np.cumsum(lengths)])
        seq = np.repeat(np.arange(len(X)), lengths)
        starts = offsets[:-1][seq]
        pos = np.arange(offsets[-1]) - starts
        return np.concatenate(X).astype(np.float64), offsets, starts, pos

    def _running_mean(self, Z, offsets):
        """Per-sequence mean over the prefix (or trailing window) of Z's rows."""
        out = np.empty(Z.shape, dtype=np.float64)
        for a, b in zip(offsets[:-1], offsets[1:], strict=True):
            c = np.cumsum(Z[a:b], axis=0, dtype=np.float64)
            t = np.arange(1, b - a + 1)
            if self.window is None:
                out[a:b] = c / t[:, None]
            else:
                lo = np.maximum(t - self.window, 0)
                c = np.vstack([np.zeros((1, Z.shape[1])), c])
                out[a:b] = (c[t] - c[lo]) / (t - lo)[:, None]
        return out

    def _chunks(self, offsets):
        """Runs of whole sequences of about _CHUNK_STEPS steps."""
        first = 0
        for s in range(1, len(offsets)):
            if offsets[s] - offsets[first] >= _CHUNK_STEPS or s == len(offsets) - 1:
                yield first, s
                first = s

    # -- fit / transform --------------------------------------------------
    def fit(self, X, y=None):
        self.fit_transform(X)
        return self

    def fit_transform(self, X, y=None):
        X = to_list(X)
        rng = np.random.default_rng(self.random_state)
        data, offsets, starts, pos = self._packed(X)
        n_steps, n_ch = data.shape
        self.n_features_in_ = n_ch
        longest = int(np.diff(offsets).max())
        top = np.log2(max((longest - 1) / 8, 1))
        self.dilations_ = np.unique(
            np.floor(2 ** np.linspace(0, top, self.n_dilations)).astype(int))
        self.n_biases_ = max(1, self.n_indicators
                             // (len(_KERNELS) * len(self.dilations_)))
        sample = np.sort(rng.choice(n_steps, min(n_steps, self.n_fit_steps),
                                    replace=False))
        self.mixing_, self.biases_ = [], []
        for k in range(len(self.dilations_)):
            if n_ch == 1:
                chans = np.ones((1, len(_KERNELS)))
            else:  # a random non-empty subset of channels per kernel
                size = rng.integers(1, n_ch + 1, size=len(_KERNELS))
                chans = np.zeros((n_ch, len(_KERNELS)))
                for j, m in enumerate(size):
                    chans[rng.choice(n_ch, m, replace=False), j] = 1.0
            # row j * n_ch + c of the mixing matrix: weight j on channel c
            self.mixing_.append((_WEIGHTS[:, None, :] * chans[None]).reshape(
                9 * n_ch, len(_KERNELS)))
            C = self._conv(data, starts, pos, sample, k)
            q = rng.uniform(0.1, 0.9, size=(len(_KERNELS), self.n_biases_))
            self.biases_.append(np.stack(
                [np.quantile(C[:, j], q[j]) for j in range(len(_KERNELS))]))
        levels = (np.arange(self.levels) + 0.5) / max(self.levels, 1)
        self.level_biases_ = np.quantile(data[sample], levels, axis=0).T
        # Running means of the indicators at the sampled steps, to fit the
        # scaling and the PCA (one pass over the training chunks).
        n_ind = (len(self.dilations_) * len(_KERNELS) * self.n_biases_
                 + n_ch * self.levels)
        P = np.empty((len(sample), n_ind), dtype=np.float32)
        cached = []
        keep = n_steps * n_ind * 4 <= 1 << 28  # cache the indicators below 256 MB
        for s0, s1 in self._chunks(offsets):
            rows = np.arange(offsets[s0], offsets[s1])
            I = self._all_indicators(data, starts, pos, rows)
            if keep:
                cached.append(I)
            hit = (sample >= rows[0]) & (sample <= rows[-1])
            if hit.any():
                R = self._running_mean(I, offsets[s0:s1 + 1] - offsets[s0])
                P[hit] = R[sample[hit] - rows[0]]
        P = P.astype(np.float64)
        mu, sd = P.mean(axis=0), P.std(axis=0) + 1e-6
        k = min(self.n_components, len(sample) - 1, n_ind)
        pca = PCA(k, whiten=True, random_state=self.random_state).fit((P - mu) / sd)
        scale = np.sqrt(pca.explained_variance_)
        W = pca.components_.T / sd[:, None] / scale[None, :]
        self.projection_ = W.astype(np.float32)
        self.offset_ = -(mu @ W) - pca.mean_ @ (pca.components_.T / scale[None, :])
        self.n_components_ = k
        if keep:
            return self._project(np.vstack(cached) @ self.projection_, offsets)
        return self._transform(X, data, offsets, starts, pos)

    def _project(self, Z, offsets):
        """Running mean of projected indicators, plus the offset; per sequence."""
        R = self._running_mean(Z, offsets) + self.offset_
        return [R[a:b] for a, b in zip(offsets[:-1], offsets[1:], strict=True)]

    def _transform(self, X, data, offsets, starts, pos):
        out = []
        n_per = len(_KERNELS) * self.n_biases_
        for s0, s1 in self._chunks(offsets):
            rows = np.arange(offsets[s0], offsets[s1])
            Z = np.zeros((len(rows), self.n_components_), dtype=np.float32)
            for k in range(len(self.dilations_)):
                I = self._indicators(data, starts, pos, rows, k).astype(np.float32)
                Z += I @ self.projection_[k * n_per:(k + 1) * n_per]
            if self.levels:
                end = len(self.dilations_) * n_per
                Z += (self._level_indicators(data, rows).astype(np.float32)
                      @ self.projection_[end:])
            out += self._project(Z, offsets[s0:s1 + 1] - offsets[s0])
        return out

    def transform(self, X):
        check_is_fitted(self)
        X = to_list(X)
        return self._transform(X, *self._packed(X))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        return tags



class _Leading(InputLayer):
    """h_t = the first TRANSITION_INPUTS columns of u_t (no parameters)."""

    @property
    def n_out(self):
        return min(TRANSITION_INPUTS, self.n_features)

    def forward(self, p, U):
        return np.ascontiguousarray(U[:, : self.n_out])


class NarrowIOHMMClassifier(IOHMMClassifier):
    """IOHMMClassifier (transition="input") whose state networks see only the
    first ``TRANSITION_INPUTS`` input columns; the output networks see all."""

    def _make_transition(self, n_features):
        return InputTransitions(self.n_states, n_features, _Leading(n_features))
