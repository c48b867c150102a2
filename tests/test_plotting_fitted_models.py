"""The plots take a fitted model where users hand one: plot_loss_curve reads a
pipeline's last step and a search's best estimator; plot_automaton, given an
estimator, says how to get its machine."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from skseq import IOHMMClassifier  # noqa: E402
from skseq.plotting import plot_automaton, plot_loss_curve  # noqa: E402
from skseq.preprocessing import Stepwise  # noqa: E402


class _Model:
    """A stand-in for a fitted model: fit does nothing, the curve is given."""

    def __init__(self, curve):
        self.loss_curve_ = curve

    def fit(self, X, y=None):
        return self


class _Search:
    def __init__(self, best):
        self.best_estimator_ = best

    def fit(self, X, y=None):
        return self


def _drawn(ax):
    return [line.get_ydata().tolist() for line in ax.lines]


def test_loss_curve_of_pipeline_is_its_last_step():
    pipe = make_pipeline(Stepwise(StandardScaler()), "passthrough")
    pipe.steps[-1] = ("model", _Model([3.0, 2.0, 1.5]))
    assert _drawn(plot_loss_curve(pipe)) == [[3.0, 2.0, 1.5]]


def test_loss_curve_of_search_over_a_pipeline():
    pipe = make_pipeline(Stepwise(StandardScaler()), _Model([1.0, 0.5]))
    search = _Search(pipe)
    ax = plot_loss_curve({"search": search, "model": _Model([2.0])})
    assert _drawn(ax) == [[1.0, 0.5], [2.0]]


def test_loss_curve_of_fitted_pipeline_end_to_end():
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(6, 1)) for _ in range(8)]
    y = np.arange(8) % 2
    pipe = make_pipeline(Stepwise(StandardScaler()),
                         IOHMMClassifier(n_states=2, features="raw", n_init=1,
                                         max_iter=5, random_state=0))
    search = GridSearchCV(pipe, {"iohmmclassifier__n_states": [2]}, cv=2).fit(X, y)
    expected = np.asarray(search.best_estimator_[-1].loss_curve_).tolist()
    assert _drawn(plot_loss_curve(search)) == [expected]


def test_unfitted_pipeline_still_says_fit_it_first():
    pipe = make_pipeline(Stepwise(StandardScaler()), IOHMMClassifier())
    with pytest.raises(ValueError, match="IOHMMClassifier has no loss_curve_: fit"):
        plot_loss_curve(pipe)


def test_automaton_of_an_estimator_says_how_to_get_its_machine():
    with pytest.raises(TypeError, match=r"got the estimator IOHMMClassifier: "
                                        r"pass .*to_automaton\(\)"):
        plot_automaton(IOHMMClassifier())
