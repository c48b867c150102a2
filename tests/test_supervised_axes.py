"""The supervised axes of the shape representation (skseq._families.supervised):
the cross-fitted ridge values against refitting without each group, integer
weights as repetition, the appended columns as the running mean of the mapped
indicators, and causality."""

import threading
import warnings

import numpy as np
from _series import level_means
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning

import skseq._base
from skseq import IOHMMClassifier
from skseq._data import Targets, check_sequences
from skseq._data.prefixes import prefix_sequences
from skseq._data.weights import CopyWeights
from skseq._families.supervised import read_out, ridge_cross_fitted, supervise
from skseq._kernels import convolution
from skseq._kernels._parallel import one_blas_thread
from skseq.preprocessing import DilatedConvolution
from skseq.representations import CentredShapeFeatures


def _ridge(X, Y, weight, lam):
    """Weighted ridge with an unpenalised intercept, by its normal equations."""
    A = np.hstack([np.ones((X.shape[0], 1)), X])
    P = lam * np.eye(A.shape[1])
    P[0, 0] = 0.0
    beta = np.linalg.solve(A.T @ (weight[:, None] * A) + P, A.T @ (weight[:, None] * Y))
    return beta[1:], beta[0]


def _problem(seed=0, n=14, p=20):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    Y = np.where(rng.random((n, 2)) < 0.5, 1.0, -1.0)
    return X, Y, rng.uniform(0.5, 2.0, n)


def test_cross_fitted_values_equal_refitting_without_each_group():
    X, Y, weight = _problem()
    groups = np.array([0, 0, 1, 2, 2, 2, 3, 4, 5, 5, 6, 7, 8, 8])
    coef, intercept, cross, lam = ridge_cross_fitted(
        X, Y, weight, groups, np.ones(9))
    full_coef, full_intercept = _ridge(X, Y, weight, lam)
    assert_allclose(coef, full_coef, atol=1e-10)
    assert_allclose(intercept, full_intercept, atol=1e-10)
    for g in range(9):
        out = groups == g
        c, b = _ridge(X[~out], Y[~out], weight[~out], lam)
        assert_allclose(cross[out], X[out] @ c + b, atol=1e-9)


def test_one_copy_of_an_integer_weight_is_left_out_as_a_repeated_row():
    """A row of weight 2 standing for 2 copies gets the value the two copies
    of the repeated rows get, each left out alone."""
    X, Y, weight = _problem(1, n=10)
    weight = np.ones(10)
    weight[3] = 2.0
    _, _, cross, lam = ridge_cross_fitted(X, Y, weight, np.arange(10),
                                          weight.copy())
    idx = np.r_[np.arange(10), 3]
    _, _, rep, rep_lam = ridge_cross_fitted(X[idx], Y[idx], np.ones(11),
                                            np.arange(11), np.ones(11))
    assert lam == rep_lam
    assert_allclose(cross, rep[:10], atol=1e-10)
    assert_allclose(rep[10], rep[3], atol=1e-10)


def test_groups_in_any_order_and_copies_of_groups_equal_refits():
    """Group labels out of order, groups of one and of several rows, some
    standing for several copies: each row's value is the ridge's refitted
    (normal equations) with its group's weight lowered by one copy."""
    X, Y, weight = _problem(2, n=12)
    groups = np.array([3, 0, 3, 1, 2, 4, 0, 5, 6, 7, 8, 3]) * 10 + 5
    copies = np.array([2.0, 2.0, 1.0, 3.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    _, _, cross, lam = ridge_cross_fitted(X, Y, weight, groups, copies)
    for g in range(9):  # copies are given in the order of the labels
        out = groups == g * 10 + 5
        kept = np.where(out, weight * (1.0 - 1.0 / copies[g]), weight)
        c, b = _ridge(X, Y, kept, lam)
        assert_allclose(cross[out], X[out] @ c + b, atol=1e-9)


def _classes(seed=0, n=24):
    """Three classes of random walks with a sine of a class-dependent period
    added, 20-39 steps, two channels."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    X = [np.cumsum(rng.normal(size=(int(rng.integers(20, 40)), 2)), axis=0)
         for _ in y]
    return [x + c * np.sin(np.arange(len(x)) / (2 + c))[:, None]
            for x, c in zip(X, y, strict=True)], y


def _fit(clf, X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return clf.fit(X, y, **kw)


def test_supervised_columns_are_the_map_of_the_running_mean():
    """The appended columns at every step are the prefix means of the
    public transformer's indicators (and the levels') mapped by them, and a
    causal step's value does not change when later steps do."""
    X, y = _classes()
    clf = _fit(IOHMMClassifier(n_states=2, max_iter=5, random_state=0), X, y)
    rep = clf.representation_
    n_pcs = rep.projection_.shape[1] - 3  # three classes, three columns
    pooled = DilatedConvolution(**rep.convolution_.get_params(),
                                pooling="prefix").fit(X)
    means = np.hstack([np.concatenate(pooled.transform(X)),
                       level_means(rep.levels_, X)])
    seqs = check_sequences(X)
    every = np.arange(seqs.data.shape[0])
    at_rows = rep.inputs(seqs, every)[1]
    mapped = means @ rep.projection_ - rep.offset_
    assert_allclose(at_rows[:, n_pcs:], mapped[:, n_pcs:], rtol=0, atol=1e-9)
    prefix = check_sequences([x[:9] for x in X[:4]])
    short = rep.inputs(prefix, prefix.last_steps)[1]
    assert_allclose(short, at_rows[seqs.offsets[:4] + 8], rtol=0, atol=1e-9)


def test_integer_weights_fit_the_axes_of_repeated_sequences():
    X, y = _classes(2, n=15)
    kw = dict(n_states=2, max_iter=3, random_state=0)
    weight = np.ones(15)
    weight[[1, 4]] = 2
    clf = _fit(IOHMMClassifier(**kw), X, y, sample_weight=weight)
    idx = np.r_[np.arange(15), 1, 4]
    rep = _fit(IOHMMClassifier(**kw), [X[i] for i in idx], y[idx])
    assert_allclose(clf.representation_.projection_[:, -3:],
                    rep.representation_.projection_[:, -3:], atol=1e-8)


def test_the_prefixes_of_a_sequence_are_left_out_together():
    """With prefixes, a training row's value is the ridge's fitted without
    every prefix of its sequence: the values supervise() gives equal refits
    on the standardized indicators it reads."""
    with one_blas_thread():  # (as the estimators fit it: no thread contention)
        _check_prefix_groups()


def _check_prefix_groups():
    X, y = _classes(3, n=12)
    seqs = check_sequences(X)
    prefixes, parent, share = prefix_sequences(seqs, np.array([0.5, 1.0]))
    rep = CentredShapeFeatures(n_indicators=336, n_components=8).fit(
        prefixes, 0)
    n_pcs = rep.projection_.shape[1]
    targets = Targets(steps=prefixes.last_steps, values=y[parent], step_level=False)
    weight = share.copy()
    rows, values = supervise(rep, prefixes, targets, weight,
                             CopyWeights(None, parent, np.ones(12)))
    Z = rep._walk(prefixes, prefixes.last_steps, None)[1]
    Z = Z @ rep.projection_[:, n_pcs:] - rep.offset_[n_pcs:]  # the full fit
    assert_array_equal(rows, np.arange(prefixes.n_sequences))
    assert not np.allclose(values, Z, atol=1e-3)
    raw = rep._walk(prefixes, prefixes.last_steps, None)[1]
    w = weight / weight.sum()
    std = np.sqrt(np.maximum(w @ raw**2 - (w @ raw) ** 2, 0))
    keep = std > 1e-12
    Xs = raw[:, keep] / std[keep] / np.sqrt(keep.sum())
    Y = np.where(y[parent][:, None] == np.arange(3), 1.0, -1.0)
    lam = ridge_cross_fitted(Xs, Y, weight, parent, np.ones(12))[3]
    refit = np.empty_like(Y)
    for s in range(12):
        out = parent == s
        c, b = _ridge(Xs[~out], Y[~out], weight[~out], lam)
        refit[out] = Xs[out] @ c + b
    spread = np.sqrt(w @ refit**2 - (w @ refit) ** 2)
    assert_allclose(values, refit / spread, atol=1e-8)


def test_the_read_out_runs_beside_the_projection_on_threads(monkeypatch):
    """With n_jobs=2 the ridge runs on a worker thread while the projection
    is fitted and the inputs are walked (their state components, on the main
    thread, before the ridge is done), and the model is the one-thread model
    bit for bit."""
    X, y = _classes(3, n=18)
    where, walked = [], threading.Event()
    walk_chunk = convolution._walk_chunk

    def recorded(*args, **kwargs):
        where.append(threading.get_ident())
        if len(where) == 2:  # the two-thread fit: the inputs' walk has begun
            assert walked.wait(10)
        return read_out(*args, **kwargs)

    def walking(*args):
        if args[8][0].shape[1] and where and threading.get_ident() == where[0]:
            walked.set()  # a chunk of the inputs (every step's components)
        return walk_chunk(*args)

    monkeypatch.setattr(skseq._base, "read_out", recorded)
    monkeypatch.setattr(convolution, "_walk_chunk", walking)
    monkeypatch.setattr(convolution, "_ROWS_PER_CHUNK", 4)  # 5 chunks
    kw = dict(n_states=2, max_iter=3, random_state=0)
    one = _fit(IOHMMClassifier(**kw), X, y)
    walked.clear()
    two = _fit(IOHMMClassifier(**kw, n_jobs=2), X, y)
    assert where[0] == threading.get_ident() != where[1]
    assert_array_equal(two.representation_.projection_,
                       one.representation_.projection_)
    assert_array_equal(two.predict_proba(X), one.predict_proba(X))
