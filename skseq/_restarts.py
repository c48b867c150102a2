"""The restart driver shared by every estimator: several starts, the best kept.

The likelihoods of models with hidden states have many local optima (Bengio & Frasconi
1996, §6: 10-45% of random starts reach a perfect fit on the Tomita grammars), so every
estimator fits from ``n_init`` starts and keeps the best. An estimator gives the
driver its starts as an iterable of results, produced lazily; the driver drops
the starts that diverged, prints progress at ``verbose >= 1`` and returns the
best together with the record of all starts (the fitted ``n_init_`` and
``init_objectives_``).
"""

import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning


def _diverged(result):
    return bool(result.get("diverged")) or not np.all(np.isfinite(result["objective"]))


def _fmt(objective):
    if np.ndim(objective):
        return "(" + ", ".join(f"{v:.6g}" for v in objective) + ")"
    return f"{objective:.6g}"


def run_restarts(attempts, n_init, *, verbose=0, stop=None):
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
        elapsed time; >= 2 also a header before each start.
    stop : callable, default=None
        ``stop(result)`` true: run no further start (e.g. a perfect fit).

    Returns
    -------
    best : dict or None
        The best result among those that did not diverge (None if all did).
    objectives : ndarray of shape (n_run,)
        The objective of every start run, in order (NaN where it diverged; a
        tuple objective contributes its first entry).
    """
    best = None
    objectives = []
    start = time.perf_counter()
    attempts = iter(attempts)
    for k in range(1, n_init + 1):
        if verbose >= 2:  # a header for the start's iteration lines
            print(f"Restart {k}/{n_init}", flush=True)
        result = next(attempts, None)
        if result is None:
            break
        diverged = _diverged(result)
        objectives.append(np.nan if diverged
                          else float(np.ravel(result["objective"])[0]))
        if not diverged and (best is None or result["objective"] < best["objective"]):
            best = result
        if verbose:
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
                  f"{time.perf_counter() - start:.2f} s elapsed", flush=True)
        if stop is not None and not diverged and stop(result):
            break
    return best, np.asarray(objectives)


def warn_not_converged(estimator, message):
    """The ConvergenceWarning of a fit whose best start did not converge."""
    warnings.warn(f"{type(estimator).__name__}: {message}", ConvergenceWarning,
                  stacklevel=4)
