"""Estimators and transformers used by the benchmarks (not part of skseq).

``EveryStepClassifier`` (every step labelled with the sequence's class: an
idea the real-data ablation measured and rejected), ``SummaryFeatures`` (one
row per sequence). Peers: ``HMMPerClass`` (hmmlearn), ``TorchRNNClassifier``
(Elman RNN / LSTM), ``nn1_accuracy`` (1-NN ED / DTW). What paid in the
ablation moved into skseq: ``IOHMMClassifier(readout="mean", n_prefixes=...)``,
``skseq.preprocessing.WindowMean`` and ``SequenceFeatures``; the soft vote of
single starts is scikit-learn's ``VotingClassifier(voting="soft")``.
"""

import numpy as np
from scipy.special import logsumexp, softmax
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    TransformerMixin,
    clone,
)
from sklearn.utils.validation import check_is_fitted

from skseq.utils import to_list


class EveryStepClassifier(ClassifierMixin, BaseEstimator):
    """Label every step with its sequence's class; average log-probabilities.

    Fits ``estimator`` on step-level targets (the sequence label repeated at
    every step), then scores a sequence by mean_t log P(y | u_1..t): each step
    adds the evidence it has seen, so the state need not carry it to the end.
    """

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, X, y):
        X = to_list(X)
        y = np.asarray(y)
        steps = [np.repeat(label, len(x)) for x, label in zip(X, y, strict=True)]
        self.estimator_ = clone(self.estimator).fit(X, steps)
        self.classes_ = self.estimator_.classes_
        return self

    def predict_log_proba(self, X):
        check_is_fitted(self)
        proba = self.estimator_.predict_proba(to_list(X))
        with np.errstate(divide="ignore"):
            score = np.array([np.log(np.maximum(p, 1e-300)).mean(axis=0)
                              for p in proba])
        return score - logsumexp(score, axis=1, keepdims=True)

    def predict_proba(self, X):
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_log_proba(X), axis=1)]


class SummaryFeatures(TransformerMixin, BaseEstimator):
    """One row per sequence: mean, std, first, last, min, max, length."""

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return np.array([
            np.concatenate([x.mean(0), x.std(0), x[0], x[-1], x.min(0), x.max(0),
                            [len(x)]])
            for x in to_list(X)
        ])


class HMMPerClass(ClassifierMixin, BaseEstimator):
    """One hmmlearn GaussianHMM per class; predict the class of highest
    likelihood plus log prior."""

    def __init__(self, n_components=3, covariance_type="diag", n_iter=50,
                 random_state=0):
        self.n_components = n_components
        self.covariance_type = covariance_type
        self.n_iter = n_iter
        self.random_state = random_state

    def fit(self, X, y):
        from hmmlearn.hmm import GaussianHMM

        X, y = to_list(X), np.asarray(y)
        self.classes_ = np.unique(y)
        self.models_, self.log_prior_ = [], []
        for c in self.classes_:
            Xc = [x for x, label in zip(X, y, strict=True) if label == c]
            model = GaussianHMM(self.n_components, covariance_type=self.covariance_type,
                                n_iter=self.n_iter, random_state=self.random_state)
            model.fit(np.concatenate(Xc), [len(x) for x in Xc])
            self.models_.append(model)
            self.log_prior_.append(np.log(len(Xc) / len(X)))
        return self

    def predict_proba(self, X):
        check_is_fitted(self)
        X = to_list(X)
        scores = np.array([[m.score(x) for m in self.models_] for x in X])
        return softmax(scores + np.array(self.log_prior_), axis=1)

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


class TorchRNNClassifier(ClassifierMixin, BaseEstimator):
    """Elman RNN or LSTM trained by back-propagation through time (PyTorch, CPU).

    The last hidden state of each (packed, unpadded) sequence feeds a linear
    softmax layer; Adam on the cross-entropy, mini-batches of ``batch_size``
    sequences (None: the whole set), at most ``max_epochs`` passes, stopping
    early once every training sequence is classified correctly. PyTorch is
    imported here only: it is a benchmark dependency, not a package one.

    Attributes
    ----------
    n_epochs_ : int
        Passes over the training set; ``n_epochs_ * n_sequences`` is the number
        of sequence presentations (Bengio & Frasconi 1996, Tables 2 and 4).
    """

    def __init__(self, cell="lstm", hidden_size=16, max_epochs=200,
                 learning_rate=1e-2, batch_size=None, random_state=0):
        self.cell = cell
        self.hidden_size = hidden_size
        self.max_epochs = max_epochs
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.random_state = random_state

    def _pack(self, X):
        import torch
        from torch.nn.utils.rnn import pack_sequence

        return pack_sequence([torch.as_tensor(x, dtype=torch.float32) for x in X],
                             enforce_sorted=False)

    def _logits(self, X):
        _, h = self.rnn_(self._pack(X))
        if isinstance(h, tuple):  # LSTM: (h_n, c_n)
            h = h[0]
        return self.out_(h[-1])

    def fit(self, X, y):
        import torch

        torch.manual_seed(self.random_state)
        X = to_list(X)
        self.classes_, codes = np.unique(y, return_inverse=True)
        target = torch.as_tensor(codes)
        layer = {"lstm": torch.nn.LSTM, "rnn": torch.nn.RNN}[self.cell]
        self.rnn_ = layer(X[0].shape[1], self.hidden_size)
        self.out_ = torch.nn.Linear(self.hidden_size, len(self.classes_))
        params = list(self.rnn_.parameters()) + list(self.out_.parameters())
        optimizer = torch.optim.Adam(params, lr=self.learning_rate)
        rng = np.random.default_rng(self.random_state)
        size = self.batch_size or len(X)
        self.n_epochs_ = 0
        for _ in range(self.max_epochs):
            order = rng.permutation(len(X))
            for b in range(0, len(X), size):
                idx = order[b : b + size]
                optimizer.zero_grad()
                loss = torch.nn.functional.cross_entropy(
                    self._logits([X[i] for i in idx]), target[idx])
                loss.backward()
                torch.nn.utils.clip_grad_norm_(params, 5.0)
                optimizer.step()
            self.n_epochs_ += 1
            if np.mean(self.predict(X) == np.asarray(y)) == 1.0:
                break
        return self

    def predict_proba(self, X):
        import torch

        check_is_fitted(self)
        with torch.no_grad():
            return torch.softmax(self._logits(to_list(X)), dim=1).numpy()

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


def nn1_accuracy(X_train, y_train, X_test, y_test, dtw=False):
    """1-nearest-neighbour accuracy, Euclidean or full-window DTW (equal lengths).

    DTW uses the squared Euclidean distance between steps (dependent DTW for
    several dimensions); the recursion runs over the grid while every
    (test, train) pair is processed at once.
    """
    A = np.stack([np.asarray(x) for x in X_test])   # (m, T, d)
    B = np.stack([np.asarray(x) for x in X_train])  # (k, T, d)
    if not dtw:
        d = ((A[:, None] - B[None]) ** 2).sum(axis=(2, 3))
    else:
        T = A.shape[1]
        cost = lambda i, j: ((A[:, None, i] - B[None, :, j]) ** 2).sum(-1)  # noqa: E731
        prev = np.full((A.shape[0], B.shape[0], T), np.inf)
        for i in range(T):
            cur = np.empty_like(prev)
            for j in range(T):
                if i == 0 and j == 0:
                    best = 0.0
                else:
                    best = prev[:, :, j]
                    if j:
                        best = np.minimum(np.minimum(best, prev[:, :, j - 1]),
                                          cur[:, :, j - 1])
                cur[:, :, j] = cost(i, j) + best
            prev = cur
        d = prev[:, :, -1]
    return float(np.mean(np.asarray(y_train)[np.argmin(d, axis=1)] == y_test))


def _sktime_panel(X):
    """sktime's input: (n, channels, length) if equal lengths, else a nested
    DataFrame (one pd.Series per cell) for the variable-length transformer."""
    import pandas as pd

    if len({len(x) for x in X}) == 1:
        return np.stack([np.asarray(x).T for x in X])
    return pd.DataFrame({f"dim_{k}": [pd.Series(x[:, k]) for x in X]
                         for k in range(X[0].shape[1])})


class MiniRocketClassifier(ClassifierMixin, BaseEstimator):
    """MiniRocket (Dempster et al. 2021) with its ridge classifier, from sktime.

    As in the paper: the 9,996 proportion-of-positive-value features, then
    ``RidgeClassifierCV(alphas=logspace(-3, 3, 10))``. The transformer is
    sktime's MiniRocket (univariate), MiniRocketMultivariate (several channels)
    or MiniRocketMultivariateVariable (unequal lengths; dilations from the
    longest training series; series shorter than its kernels, 9 steps, are
    padded with 0 as sktime offers). Call :func:`warm_up_minirocket` once first so
    that numba's compilation is not timed.
    """

    def __init__(self, random_state=0):
        self.random_state = random_state

    @staticmethod
    def _transformer(X, random_state):
        from sktime.transformations.panel.rocket import (
            MiniRocket,
            MiniRocketMultivariate,
            MiniRocketMultivariateVariable,
        )

        if len({len(x) for x in X}) > 1:
            return MiniRocketMultivariateVariable(random_state=random_state,
                                                  pad_value_short_series=0.0)
        if X[0].shape[1] > 1:
            return MiniRocketMultivariate(random_state=random_state)
        return MiniRocket(random_state=random_state)

    def fit(self, X, y):
        from sklearn.linear_model import RidgeClassifierCV

        X = to_list(X)
        self.transformer_ = self._transformer(X, self.random_state)
        features = np.asarray(self.transformer_.fit_transform(_sktime_panel(X)))
        self.ridge_ = RidgeClassifierCV(alphas=np.logspace(-3, 3, 10)).fit(features, y)
        self.classes_ = self.ridge_.classes_
        return self

    def predict(self, X):
        check_is_fitted(self)
        features = np.asarray(self.transformer_.transform(_sktime_panel(to_list(X))))
        return self.ridge_.predict(features)


def warm_up_minirocket():
    """Compile sktime's numba kernels on tiny inputs (all three transformers)."""
    rng = np.random.default_rng(0)
    y = np.array([0, 1, 0, 1])
    for X in ([rng.normal(size=(20, 1)) for _ in range(4)],
              [rng.normal(size=(20, 2)) for _ in range(4)],
              [rng.normal(size=(n, 1)) for n in (18, 20, 22, 24)]):
        MiniRocketClassifier().fit(X, y).predict(X)


class MiniRocketRegressor(RegressorMixin, BaseEstimator):
    """MiniRocket's 9,996 features (sktime's transformers, as
    :class:`MiniRocketClassifier` chooses them) into ``RidgeCV(alphas=
    logspace(-3, 3, 10))``, the regression counterpart of its ridge
    classifier (Dempster et al. 2021 use it so for regression too)."""

    def __init__(self, random_state=0):
        self.random_state = random_state

    def fit(self, X, y):
        from sklearn.linear_model import RidgeCV

        X = to_list(X)
        self.transformer_ = MiniRocketClassifier._transformer(X, self.random_state)
        features = np.asarray(self.transformer_.fit_transform(_sktime_panel(X)))
        self.ridge_ = RidgeCV(alphas=np.logspace(-3, 3, 10)).fit(features, y)
        return self

    def predict(self, X):
        check_is_fitted(self)
        features = np.asarray(self.transformer_.transform(_sktime_panel(to_list(X))))
        return self.ridge_.predict(features)
