"""The convergence monitor of a fit: tolerance, history, progress lines and the
warning of a fit that did not converge, in one object.

Every solver and the restart driver report to it: the GEM solver asks it whether
the objective has stopped falling (:meth:`ConvergenceMonitor.em_converged`),
the L-BFGS solver takes its tolerance and iteration budget (its convergence test
is scipy's, ``skseq._fit.lbfgs``) and hands it the lap times of its restarts,
the restart driver (``skseq._fit.restarts``) prints a line per restart through
it, and the estimator warns through it. The lines follow scikit-learn's
``GaussianMixture``: ``verbose >= 1`` a line per restart, ``verbose >= 2`` a line
per iteration.
"""

import os
import sys
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning


def warn_not_converged(estimator, message, stacklevel=4):
    """The ConvergenceWarning of a fit whose best start did not converge (the
    default ``stacklevel`` points at the caller of the estimator's ``fit``)."""
    warnings.warn(f"{type(estimator).__name__}: {message}", ConvergenceWarning,
                  stacklevel=stacklevel)


def _caller_level():
    """The ``stacklevel`` of the first frame outside the package: the user's
    call of ``fit`` however deep the fit's own calls go."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def _fmt(objective):
    if np.ndim(objective):
        return "(" + ", ".join(f"{v:.6g}" for v in objective) + ")"
    return f"{objective:.6g}"


class ConvergenceMonitor:
    """Tolerance, iteration budget and verbosity of one fit.

    Parameters
    ----------
    tol : float, default=0.0
        The GEM solver stops when the objective falls by less than ``tol`` in
        one iteration; L-BFGS uses it as scipy's ``ftol`` and ``gtol``.
    max_iter : int, default=None
        Iterations of one restart.
    verbose : int, default=0
        >= 1: a line per restart; >= 2: a header before each restart and a
        line per iteration.
    solver : {"lbfgs", "em"}, default="lbfgs"
        The solver whose convergence the monitor reports.
    """

    def __init__(self, tol=0.0, max_iter=None, verbose=0, solver="lbfgs"):
        self.tol = tol
        self.max_iter = max_iter
        self.verbose = verbose
        self.solver = solver
        self._start = time.perf_counter()
        self._first = 1       # the restart a solver's first row is (its header's)
        self._n_init = 1
        self._streamed = False  # lap_times printed the iteration lines already

    # -- iterations ------------------------------------------------------------
    def em_converged(self, curve):
        """Whether the last GEM iteration improved the objective by less than
        ``tol`` (its history ``curve``, objectives in order)."""
        return len(curve) > 1 and abs(curve[-2] - curve[-1]) < self.tol

    def iteration(self, k, lapse, value):
        """The progress line of iteration ``k`` (``verbose >= 2``)."""
        if self.verbose >= 2:
            print(f"  Iteration {k}\t time lapse {lapse:.3f}s\t objective "
                  f"{value:.8g}")

    def iterations(self, curve, times):
        """The progress lines of a restart's whole history (none if
        :meth:`lap_times` printed them as they came)."""
        if self._streamed:
            return
        for k, (value, lapse) in enumerate(zip(curve, times, strict=True)):
            self.iteration(k + 1, lapse, value)

    def lap_times(self, n_restarts):
        """``(times, callback)``: ``callback(r, value)`` appends to ``times[r]``
        the seconds since this call (the clock of restarts run in lockstep)
        and, with ``verbose >= 2``, prints the iteration's line at once, naming
        its restart (row r of restarts starting at the last header's)."""
        start = time.perf_counter()
        times = [[] for _ in range(n_restarts)]
        self._streamed = self.verbose >= 2
        first, n_init = self._first, self._n_init

        def callback(r, value):
            times[r].append(time.perf_counter() - start)
            if self.verbose >= 2:
                print(f"  Iteration {len(times[r])} (restart {first + r}/"
                      f"{max(n_init, first + r)})\t time lapse "
                      f"{times[r][-1]:.3f}s\t objective {value:.8g}", flush=True)

        return times, callback

    # -- restarts --------------------------------------------------------------
    def restart_header(self, k, n_init):
        """A header for restart ``k``'s iteration lines (``verbose >= 2``);
        restarts run in lockstep from here on are numbered from ``k``."""
        self._first, self._n_init = k, n_init
        if self.verbose >= 2:
            print(f"Restart {k}/{n_init}", flush=True)

    def restart_done(self, k, n_init, result, diverged, best):
        """The line of a finished restart (``verbose >= 1``): its objective and
        state, the best so far and the time since the monitor started."""
        if not self.verbose:
            return
        if diverged:
            status = "diverged (dropped)"
        elif result.get("dropped"):
            status = (f"objective {_fmt(result['objective'])}, stopped after "
                      f"{result['n_iter']} iterations: too far above the best "
                      "restart to reach it within max_iter at its recent "
                      "pace, so it cannot be kept")
        else:
            state = "converged" if result["converged"] else "did not converge"
            status = (f"objective {_fmt(result['objective'])}, {state} after "
                      f"{result['n_iter']} iterations")
        best_text = "none yet" if best is None else _fmt(best["objective"])
        print(f"Restart {k}/{n_init}: {status}; best {best_text}; "
              f"{time.perf_counter() - self._start:.2f} s elapsed", flush=True)

    # -- the outcome -----------------------------------------------------------
    def still_falling(self, curve, offset=0.0, window=10):
        """Why a restart that used up ``max_iter`` had not converged: how fast
        its objective (its history ``curve``) was still falling per iteration
        over the last ``window`` iterations ("" for a shorter history), as the
        solver's test of convergence reads it: relative to its value for
        L-BFGS (taken without ``offset``, the constant that only the units of
        y set, so that y in other units gives the same rate), absolute for
        GEM."""
        if curve is None or len(curve) <= window:
            return ""
        rate = (curve[-1 - window] - curve[-1]) / window
        if self.solver == "em":
            return (f"; its objective was still falling by {rate:.1e} per "
                    f"iteration over the last {window} iterations, against "
                    f"tol={self.tol:g}")
        rate /= max(abs(curve[-1] - offset), 1.0)
        return (f"; its objective was still falling by {rate:.1e} of its value "
                f"per iteration over the last {window} iterations, against "
                f"tol={self.tol:g}")

    def warn_not_converged(self, estimator, message):
        """The ConvergenceWarning of ``estimator``'s fit, pointing at the caller
        of its ``fit``."""
        # counted from warn_not_converged's frame, one below this one
        warn_not_converged(estimator, message, stacklevel=_caller_level() + 1)
