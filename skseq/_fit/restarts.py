"""The restart driver shared by every estimator: several starts, the best kept.

The likelihoods of models with hidden states have many local optima (Bengio & Frasconi
1996, §6: 10-45% of random starts reach a perfect fit on the Tomita grammars), so every
estimator fits from ``n_init`` starts and keeps the best. An estimator gives the
driver its starts as an iterable of results, produced lazily; the driver drops
the starts that diverged, reports each to the fit's convergence monitor
(``skseq._fit.monitor``) and returns the
best together with the record of all starts (the fitted ``n_init_`` and
``init_objectives_``).
"""

import numpy as np

from .monitor import ConvergenceMonitor


def _diverged(result):
    return bool(result.get("diverged")) or not np.all(np.isfinite(result["objective"]))


def run_restarts(attempts, n_init, *, verbose=0, stop=None, monitor=None):
    """Run the starts and keep the best.

    Parameters
    ----------
    attempts : iterable of dict
        One result per start. A result has ``objective`` (lower is better; a
        tuple is compared lexicographically), ``converged`` and ``n_iter``,
        ``diverged`` if the start overflowed (a non-finite objective counts as
        diverged too) and ``dropped`` if the solver stopped it early as hopeless
        (its objective is recorded; it cannot be the best). Results are
        consumed one by one, so a generator runs a start only when the driver
        asks for it.
    n_init : int
        Number of starts announced (for the progress lines "k/N").
    verbose : int, default=0
        >= 1: a line per start with its objective, the best so far and the
        elapsed time; >= 2 also a header before each start (when no
        ``monitor`` is given).
    stop : callable, default=None
        ``stop(result)`` true: run no further start (e.g. a perfect fit).
    monitor : ConvergenceMonitor, default=None
        The fit's monitor, which prints the progress lines (by default one of
        ``verbose``).

    Returns
    -------
    best : dict or None
        The best result among those that did not diverge and were not
        dropped; the best dropped one only if every other start diverged
        (None if all did).
    objectives : ndarray of shape (n_run,)
        The objective of every start run, in order (NaN where it diverged; a
        tuple objective contributes its first entry).
    """
    if monitor is None:
        monitor = ConvergenceMonitor(verbose=verbose)
    best = best_dropped = None
    objectives = []
    attempts = iter(attempts)
    for k in range(1, n_init + 1):
        monitor.restart_header(k, n_init)
        result = next(attempts, None)
        if result is None:
            break
        diverged = _diverged(result)
        objectives.append(np.nan if diverged
                          else float(np.ravel(result["objective"])[0]))
        # A dropped start is not a candidate: the progress line's best so far
        # is among the starts that count, whatever order they finish in.
        if not diverged and result.get("dropped"):
            best_dropped = _better(result, best_dropped)
        elif not diverged:
            best = _better(result, best)
        monitor.restart_done(k, n_init, result, diverged, best)
        if stop is not None and not diverged and stop(result):
            break
    return (best if best is not None else best_dropped), np.asarray(objectives)


def _better(result, best):
    """``result`` if its objective is below ``best``'s (or there is no best)."""
    return result if best is None or result["objective"] < best["objective"] else best
