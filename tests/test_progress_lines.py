"""verbose=2: iteration lines print as lockstep restarts advance."""

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from skseq import IOHMMClassifier
from skseq._fit.monitor import ConvergenceMonitor


def test_an_iteration_line_prints_when_the_iteration_ends(capsys):
    monitor = ConvergenceMonitor(verbose=2)
    monitor.restart_header(3, 4)
    capsys.readouterr()
    times, callback = monitor.lap_times(2)
    callback(1, 2.5)
    # printed at once (not when the batch ends), naming its restart: row 1
    # of the batch that starts at restart 3
    out = capsys.readouterr().out
    assert out.startswith("  Iteration 1 (restart 4/4)") and "objective 2.5" in out
    assert len(times[1]) == 1 and times[0] == []
    # the solver's end-of-batch report prints nothing twice
    monitor.iterations([2.5], times[1])
    assert capsys.readouterr().out == ""


def test_lockstep_restarts_print_each_iteration_once(capsys):
    rng = np.random.RandomState(0)
    X = [rng.standard_normal((6, 2)) for _ in range(8)]
    y = np.arange(8) % 2
    model = IOHMMClassifier(n_states=2, n_init=2, max_iter=5, features="raw",
                            verbose=2, random_state=0)
    with pytest.warns(ConvergenceWarning):
        model.fit(X, y)
    lines = capsys.readouterr().out.splitlines()
    for r in (1, 2):
        mine = [line for line in lines if f"(restart {r}/2)" in line]
        # iterations 1..5 of restart r, each once, in order
        assert [int(line.split()[1]) for line in mine] == [1, 2, 3, 4, 5]


def test_the_convergence_warning_says_how_fast_the_objective_still_falls():
    # a step-level fit stopped early: the warning gives the objective's
    # relative fall per iteration over its last 10, as the tolerance reads it
    rng = np.random.RandomState(0)
    y = [np.repeat(rng.randint(0, 2, size=3), 8) for _ in range(10)]
    X = [(2.0 * labels + rng.standard_normal(24))[:, None] for labels in y]
    model = IOHMMClassifier(max_iter=15, random_state=0)
    with pytest.warns(ConvergenceWarning) as record:
        model.fit(X, y)
    curve = np.asarray(model.loss_curve_)
    rate = (curve[-11] - curve[-1]) / 10 / max(abs(curve[-1]), 1.0)
    message = str(record[0].message)
    assert (f"still falling by {rate:.1e} of its value per iteration over the "
            "last 10 iterations, against tol=1e-05") in message


def test_the_em_convergence_warning_gives_the_absolute_fall_its_test_reads():
    # GEM stops when the objective falls by less than tol in one iteration (an
    # absolute test): the warning gives the absolute fall, not one relative to
    # the objective's value
    rng = np.random.RandomState(0)
    y = [np.repeat(rng.randint(0, 2, size=3), 8) for _ in range(10)]
    X = [(2.0 * labels + rng.standard_normal(24))[:, None] for labels in y]
    model = IOHMMClassifier(solver="em", max_iter=15, random_state=0)
    with pytest.warns(ConvergenceWarning) as record:
        model.fit(X, y)
    curve = np.asarray(model.loss_curve_)
    rate = (curve[-11] - curve[-1]) / 10
    message = str(record[0].message)
    assert (f"still falling by {rate:.1e} per iteration over the last 10 "
            "iterations, against tol=1e-05") in message
