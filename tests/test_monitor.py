"""The convergence monitor (``skseq._fit.monitor``): tolerance, progress lines,
the restart driver's report and the warning of a fit that did not converge."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from skseq import IOHMMClassifier, IOHMMRegressor
from skseq._fit.monitor import ConvergenceMonitor


def test_verbose_line_of_a_stopped_restart_says_why(capsys):
    """A restart the solver stopped early is explained in its progress line."""
    from skseq._fit.restarts import run_restarts

    results = [{"objective": 1.0, "converged": True, "n_iter": 30},
               {"objective": 5.0, "converged": False, "n_iter": 16,
                "dropped": True}]
    best, objectives = run_restarts(results, 2, verbose=1)
    assert best is results[0]
    line = capsys.readouterr().out.splitlines()[1]
    assert "stopped after 16 iterations" in line
    assert "best restart" in line and "max_iter" in line


def test_em_tolerance_is_the_last_fall_of_the_objective():
    monitor = ConvergenceMonitor(tol=0.1, max_iter=10)
    assert not monitor.em_converged([5.0])
    assert not monitor.em_converged([5.0, 4.8])
    assert monitor.em_converged([5.0, 4.8, 4.75])


def test_iteration_lines_need_verbose_two(capsys):
    ConvergenceMonitor(verbose=1).iterations([3.0, 2.0], [0.1, 0.2])
    assert capsys.readouterr().out == ""
    ConvergenceMonitor(verbose=2).iterations([3.0, 2.0], [0.1, 0.2])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[1].startswith("  Iteration 2")
    assert "objective 2" in lines[1]


@pytest.mark.parametrize("make", [
    lambda: IOHMMClassifier(2, n_init=1, max_iter=2, random_state=0),
    lambda: IOHMMRegressor(2, n_init=1, max_iter=2, random_state=0),
    # One EM iteration cannot be judged converged (that needs two changes),
    # however easy the data.
    lambda: IOHMMClassifier(2, n_init=1, max_iter=1, solver="em", random_state=0),
])
def test_not_converged_warning_points_at_the_callers_line(make):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 4, 2))
    y = (X[:, 0, 0] > 0).astype(int)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make().fit(X, y)
    found = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert len(found) == 1 and "did not converge" in str(found[0].message)
    assert found[0].filename == __file__
