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


def test_best_so_far_of_a_verbose_fit_skips_restarts_stopped_as_hopeless(capsys):
    """With lbfgs the restarts advance together and the solver stops those far
    above the leader; the progress lines come in restart order, so a stopped
    restart may be reported before the one that stopped it. Its own objective
    is never the best so far: that is the lowest among the restarts reported
    until then that ran to the end."""
    from skseq.datasets import make_tomita

    X, y = make_tomita(4, 20, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = IOHMMClassifier(2, n_init=3, max_iter=30, random_state=0,
                                verbose=1).fit(X, y)
    lines = [line for line in capsys.readouterr().out.splitlines()
             if line.startswith("Restart ")]
    assert len(lines) == 3
    stopped = ["stopped after" in line for line in lines]
    assert stopped == [True, False, True]  # the first reported was stopped
    counted = []
    for line, objective, was_stopped in zip(lines, model.init_objectives_, stopped,
                                            strict=True):
        if not was_stopped:
            counted.append(objective)
        best = line.split("; best ")[1].split(";")[0]
        if counted:
            assert float(best) == pytest.approx(min(counted), rel=1e-5)
        else:
            assert best == "none yet"
    assert model.init_objectives_[1] == min(model.init_objectives_)


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
