"""Estimators and transformers used by the benchmarks (not part of skseq).

Sequence read-outs and ensembles around ``IOHMMClassifier``:
``EveryStepClassifier`` (every step labelled with the sequence's class),
``PrefixAverageClassifier`` (prefix training, mean per-step log-probability),
``SeedEnsemble`` (soft vote of single starts). Inputs: ``SequenceFeatures``
(differences, time, running mean), ``Downsample`` (window means),
``SummaryFeatures`` (one row per sequence). Peers: ``HMMPerClass`` (hmmlearn),
``TorchRNNClassifier`` (Elman RNN / LSTM), ``nn1_accuracy`` (1-NN ED / DTW).
"""

import numpy as np
from scipy.special import logsumexp, softmax
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin, clone
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


class SequenceFeatures(TransformerMixin, BaseEstimator):
    """Append per-step features: first difference, relative time, running mean.

    Parameters
    ----------
    diff, time, running_mean : bool
        ``diff``: u_t - u_{t-1} (0 at t = 0); ``time``: t / (len - 1);
        ``running_mean``: the mean of u_1..u_t (what a state would have to
        integrate).
    """

    def __init__(self, diff=True, time=False, running_mean=False):
        self.diff = diff
        self.time = time
        self.running_mean = running_mean

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        out = []
        for x in to_list(X):
            cols = [x]
            if self.diff:
                cols.append(np.diff(x, axis=0, prepend=x[:1]))
            if self.time:
                cols.append(np.linspace(0.0, 1.0, len(x))[:, None])
            if self.running_mean:
                cols.append(np.cumsum(x, axis=0) / np.arange(1, len(x) + 1)[:, None])
            out.append(np.hstack(cols))
        return out


class Downsample(TransformerMixin, BaseEstimator):
    """Average non-overlapping windows so that no sequence exceeds ``max_length``."""

    def __init__(self, max_length=100):
        self.max_length = max_length

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        out = []
        for x in to_list(X):
            w = -(-len(x) // self.max_length)  # ceil
            n = len(x) // w
            head = x[: n * w].reshape(n, w, -1).mean(axis=1)
            out.append(head if n * w == len(x)
                       else np.vstack([head, x[n * w:].mean(axis=0)]))
        return out


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


class PrefixAverageClassifier(ClassifierMixin, BaseEstimator):
    """Classify by the mean over steps of log P(y | u_1..t), not only at the end.

    An IOHMM's state mixes rather than multiplies evidence (zeta_t = A(u_t)' zeta_{t-1}
    has no Bayes-rule renormalisation), so at the last step it mostly reflects the
    recent inputs. Averaging the per-step log-probabilities of the filtered
    predictions over the second half of the sequence multiplies the evidence of
    every step instead. ``n_prefixes`` > 1 also trains on that many prefixes of
    every sequence (lengths T/k, 2T/k, ..., T), so that the model is asked for the
    class at the intermediate steps it is averaged over.
    """

    def __init__(self, estimator, n_prefixes=1, start=0.5):
        self.estimator = estimator
        self.n_prefixes = n_prefixes
        self.start = start

    def fit(self, X, y):
        X, y = to_list(X), np.asarray(y)
        Xp, yp = [], []
        for x, label in zip(X, y, strict=True):
            for j in range(1, self.n_prefixes + 1):
                Xp.append(x[: max(1, round(len(x) * j / self.n_prefixes))])
                yp.append(label)
        self.estimator_ = clone(self.estimator).fit(Xp, np.asarray(yp))
        self.classes_ = self.estimator_.classes_
        return self

    def _step_log_proba(self, x, zeta):
        est = self.estimator_
        logits = np.broadcast_to(est.emission_intercept_, (len(x),)
                                 + est.emission_intercept_.shape)
        if est.emission == "input":
            logits = logits + np.einsum("td,dnk->tnk", x, est.emission_coef_)
        proba = np.einsum("tn,tnk->tk", zeta, softmax(logits, axis=2))
        return np.log(np.maximum(proba, 1e-300))

    def predict_log_proba(self, X):
        check_is_fitted(self)
        X = to_list(X)
        zetas = self.estimator_.predict_state_proba(X)
        score = np.array([
            self._step_log_proba(x, z)[int(self.start * (len(x) - 1)):].mean(axis=0)
            for x, z in zip(X, zetas, strict=True)
        ])
        return score - logsumexp(score, axis=1, keepdims=True)

    def predict_proba(self, X):
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_log_proba(X), axis=1)]


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
        of sequence presentations (paper 000, Tables 2 and 4).
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


class SeedEnsemble(ClassifierMixin, BaseEstimator):
    """Soft vote of ``n_members`` fits of ``estimator`` from different seeds.

    Member k has every ``random_state`` parameter (nested ones included) set to
    k. With a single-start IOHMM as the member, this replaces "keep the restart
    of best training likelihood" by "average the restarts".
    """

    def __init__(self, estimator, n_members=5):
        self.estimator = estimator
        self.n_members = n_members

    def fit(self, X, y):
        X = to_list(X)
        keys = [k for k in self.estimator.get_params() if k.endswith("random_state")]
        self.estimators_ = [
            clone(self.estimator).set_params(**dict.fromkeys(keys, k)).fit(X, y)
            for k in range(self.n_members)
        ]
        self.classes_ = self.estimators_[0].classes_
        return self

    def predict_proba(self, X):
        check_is_fitted(self)
        X = to_list(X)
        return np.mean([est.predict_proba(X) for est in self.estimators_], axis=0)

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
