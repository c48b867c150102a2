"""The warnings skseq ignores during a fit are ignored in the fitting thread
only: another thread's warnings of the same kind still reach the user, during
the fit and after it, however the threads' sections overlap."""

import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from skseq._base_features import _held_out_score
from skseq._data.checks import InputHintWarning, quiet_repeats
from skseq._data.thread_warnings import ignoring
from skseq._families.penalty import softmax_readout

WAIT = 10  # seconds; each wait is released by the other thread at once


class _Held(BaseEstimator):
    """An estimator whose fit only calls ``hook`` (inside the section that
    ignores the ranking fits' ConvergenceWarning)."""

    def __init__(self, hook=None, features=None, n_init=1, random_state=None,
                 verbose=0, warm_start=False):
        self.hook, self.features, self.n_init = hook, features, n_init
        self.random_state, self.verbose, self.warm_start = (
            random_state, verbose, warm_start)

    def fit(self, X, y, sample_weight=None):
        self.hook()
        return self

    def score(self, X, y, sample_weight=None):
        return 1.0


def _readout(hook, monkeypatch):
    fit = LogisticRegression.fit

    def paused(self, *args, **kwargs):
        hook()
        return fit(self, *args, **kwargs)

    monkeypatch.setattr(LogisticRegression, "fit", paused)
    X = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    return lambda: softmax_readout(X, np.array([0, 1, 1, 0]), np.ones(4), 1.0, 2)


def _ranking(hook, monkeypatch):
    part = (np.zeros((2, 1, 1)), np.zeros(2), None)
    return lambda: _held_out_score(_Held(hook), "raw", 1, 0, part, part)


def _union(hook, monkeypatch):
    def section():
        with quiet_repeats():
            hook()
    return section


@pytest.mark.parametrize("site, category", [
    (_readout, ConvergenceWarning),  # alpha="auto"'s logistic regressions
    (_ranking, ConvergenceWarning),  # features="auto"'s ranking fits
    (_union, InputHintWarning),      # SequenceUnion's transformers
])
def test_a_section_ignores_only_its_own_threads_warnings(site, category,
                                                         monkeypatch):
    inside, release, done = threading.Event(), threading.Event(), threading.Event()
    main = threading.get_ident()

    def hook():
        # The worker's section waits for the main thread; the main thread's
        # section, entered later, outlasts the worker's.
        if threading.get_ident() == main:
            release.set()
            assert done.wait(WAIT)
        else:
            inside.set()
            assert release.wait(WAIT)

    section = site(hook, monkeypatch)

    def worker():
        try:
            section()
        finally:
            done.set()

    with warnings.catch_warnings(record=True) as seen, \
            ThreadPoolExecutor(1) as pool:
        warnings.simplefilter("always")
        job = pool.submit(worker)
        assert inside.wait(WAIT)
        warnings.warn("while the other thread is inside", category, stacklevel=1)
        section()
        job.result(WAIT)
        warnings.warn("after both sections", category, stacklevel=1)
    messages = [str(w.message) for w in seen if issubclass(w.category, category)]
    assert messages == ["while the other thread is inside", "after both sections"]


def test_the_ignored_warnings_of_the_section_itself_stay_ignored():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with quiet_repeats():
            warnings.warn("a hint", InputHintWarning, stacklevel=1)
            warnings.warn("X has feature names, but StandardScaler was fitted "
                          "without feature names", UserWarning, stacklevel=1)
            warnings.warn("another warning", UserWarning, stacklevel=1)
        warnings.warn("a hint after", InputHintWarning, stacklevel=1)
    assert [str(w.message) for w in seen] == ["another warning", "a hint after"]


def test_sections_entered_again_keep_one_filter_per_rule():
    # 1,000 sections of each kind, in this thread and in two others: the list
    # of filters holds one filter per rule (four), not one per section
    def sections(_):
        with quiet_repeats(), ignoring((ConvergenceWarning, "")):
            pass

    with warnings.catch_warnings():
        warnings.resetwarnings()
        for _ in range(1000):
            sections(None)
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(sections, range(1000)))
        rules = [(f[2], f[1]) for f in warnings.filters]
    assert len(rules) == 4 and len({id(pattern) for _, pattern in rules}) == 4
    assert {category for category, _ in rules} == {
        ConvergenceWarning, InputHintWarning, UserWarning}
