"""L-BFGS for a batch of independent problems advancing in lockstep.

The restarts of a fit minimise the same objective from different starting points.
Run one after the other, each pays the objective's fixed cost per evaluation
(Python, allocation, starting threads); here all restarts that need an evaluation
get it from ONE call of a batched objective ``fun(X) -> (values, grads)``, where
row k of ``X`` is one restart's trial point. Each restart keeps its own memory,
line search and convergence test, so its trajectory is the one it would follow
alone: a batch gives bitwise the results of separate runs (every vector operation
here is per row), provided the objective's rows do not depend on each other.

The method is Nocedal & Wright's L-BFGS (Numerical Optimization, 2nd ed.,
Algorithm 7.4 for the two-loop recursion, 7.5 for the method) with the strong
Wolfe line search of Algorithms 3.5-3.6 (cubic interpolation, eq. 3.59).
Its constants follow scipy's L-BFGS-B, whose ``ftol``/``gtol`` options the
estimators use, so that ``tol`` means the same: a restart converges when

* ``max_i |g_i| <= gtol`` (scipy's projected gradient, without bounds), or
* ``(f_k - f_{k+1}) / max(|f_k|, |f_{k+1}|, 1) <= ftol``;

the sufficient-decrease and curvature constants are scipy's (1e-3, 0.9), the
first step is 1 / ||d|| and later ones 1, and a pair (s, y) enters the memory
only if s.y > eps y.y. A trial point whose value is not finite (the estimators'
objective returns +inf where anything overflows) counts as too long a step: the
line search backtracks to a tenth of the way from its last good step.

Dropping hopeless restarts (off unless ``drop_after`` is given): after
``drop_after`` iterations, a restart is dropped when it is worse than the best
objective seen by any restart by more than both ``drop_margin * max(1, |best|)``
and what its own mean decrease per iteration over the last ``drop_after``
iterations would gain in all its remaining iterations. Progress slows down as a
restart converges, so that linear extrapolation is optimistic: a restart is
dropped only when even at its recent pace it cannot catch up within
``max_iter``. Dropped restarts keep their last point and are reported with their
objectives.
"""

from dataclasses import dataclass, field

import numpy as np

# Status of each restart.
CONVERGED, MAX_ITER, LINE_SEARCH_FAILED, DROPPED = 0, 1, 2, 3
MESSAGES = {
    CONVERGED: "converged (ftol or gtol)",
    MAX_ITER: "reached max_iter",
    LINE_SEARCH_FAILED: "the line search found no acceptable step",
    DROPPED: "dropped: could not catch up with the best restart",
}

# Wolfe constants and step bounds, as scipy's L-BFGS-B (dcsrch).
_C1 = 1e-3
_C2 = 0.9
_STEP_MAX = 1e10
# Of the bracket [lo, hi], a cubic step keeps this fraction away from its ends;
# after a non-finite value the next trial is this fraction of the way from lo.
_SAFEGUARD = 0.1
_EPS = np.finfo(np.float64).eps


@dataclass
class BatchResult:
    """Outcome of :func:`minimize_batch` for R restarts.

    Attributes
    ----------
    x : ndarray of shape (R, p)
    fun : ndarray of shape (R,)
    grad : ndarray of shape (R, p)
    nit : ndarray of shape (R,)
        Iterations (completed line searches) of each restart.
    nfev : ndarray of shape (R,)
        Evaluations of each restart's objective.
    status : ndarray of shape (R,)
        ``CONVERGED``, ``MAX_ITER``, ``LINE_SEARCH_FAILED`` or ``DROPPED``.
    curves : list of list of float
        Each restart's objective after every iteration.
    n_calls : int
        Calls of the batched objective.
    """

    x: np.ndarray
    fun: np.ndarray
    grad: np.ndarray
    nit: np.ndarray
    nfev: np.ndarray
    status: np.ndarray
    curves: list = field(default_factory=list)
    n_calls: int = 0

    @property
    def dropped(self):
        """Indices of the dropped restarts."""
        return np.flatnonzero(self.status == DROPPED)

    @property
    def messages(self):
        return [MESSAGES[int(s)] for s in self.status]


def _rowdot(a, b):
    """Row-wise dot products: each row reduced on its own, the same bits whatever
    the other rows."""
    return np.add.reduce(a * b, axis=-1)


def _two_loop(g, S, Y, rho, valid):
    """d = -H g for every row: the two-loop recursion over each row's memory
    (newest pair last; ``valid`` marks the stored pairs)."""
    q = g.copy()
    m = S.shape[1]
    alpha = np.zeros((g.shape[0], m))
    # pairs fill the memory from its end: slots before `first` are empty
    used = np.flatnonzero(valid.any(axis=0))
    first = used[0] if used.size else m
    for i in range(m - 1, first - 1, -1):
        alpha[:, i] = np.where(valid[:, i], rho[:, i] * _rowdot(S[:, i], q), 0.0)
        q -= alpha[:, i, None] * Y[:, i]
    # Initial Hessian gamma I from the newest pair (identity if none).
    yy = _rowdot(Y[:, -1], Y[:, -1])
    has = valid[:, -1]
    gamma = np.where(has, _rowdot(S[:, -1], Y[:, -1]) / np.where(has, yy, 1.0), 1.0)
    r = gamma[:, None] * q
    for i in range(first, m):
        beta = np.where(valid[:, i], rho[:, i] * _rowdot(Y[:, i], r), 0.0)
        r += (alpha[:, i] - beta)[:, None] * S[:, i]
    return -r


def _cubic_min(a, fa, da, b, fb, db):
    """Minimiser of the cubic through (a, fa, da) and (b, fb, db) (Nocedal &
    Wright eq. 3.59), or None where it does not exist."""
    d1 = da + db - 3.0 * (fa - fb) / (a - b)
    disc = d1 * d1 - da * db
    if not disc >= 0.0:
        return None
    d2 = np.sign(b - a) * np.sqrt(disc)
    denom = db - da + 2.0 * d2
    if denom == 0.0:
        return None
    x = b - (b - a) * (db + d2 - d1) / denom
    return x if np.isfinite(x) else None


class _LineSearch:
    """Strong Wolfe line search of one restart as a state machine: ``trial`` is
    the next step to evaluate; ``update`` takes its value and slope and says
    whether the search has ended (``accepted`` then holds the step, or None)."""

    def __init__(self, f0, slope0, step, max_evals):
        self.f0, self.slope0 = f0, slope0
        self.trial = step
        self.prev = (0.0, f0, slope0)      # last step of the bracketing phase
        self.lo = self.hi = None           # zoom bracket: (step, f, slope)
        self.evals = 0
        self.max_evals = max_evals
        self.accepted = None
        self.best = (0.0, f0)              # lowest sufficient-decrease point seen

    def _zoom_trial(self):
        (a, fa, da), (b, fb, db) = self.lo, self.hi
        width = abs(b - a)
        x = None
        if np.isfinite(fb) and np.isfinite(db):
            x = _cubic_min(a, fa, da, b, fb, db)
        lo_end, hi_end = min(a, b), max(a, b)
        if x is None or not (lo_end + _SAFEGUARD * width <= x
                             <= hi_end - _SAFEGUARD * width):
            x = a + (_SAFEGUARD if not np.isfinite(fb) else 0.5) * (b - a)
        return x

    def update(self, f, slope):
        step = self.trial
        self.evals += 1
        armijo = np.isfinite(f) and f <= self.f0 + _C1 * step * self.slope0
        if armijo and f < self.best[1]:
            self.best = (step, f)
        if self.lo is None:  # bracketing (Algorithm 3.5)
            p_step, p_f, _ = self.prev
            if not armijo or (self.evals > 1 and f >= p_f):
                self.lo, self.hi = self.prev, (step, f, slope)
            elif abs(slope) <= -_C2 * self.slope0:
                self.accepted = step
                return True
            elif slope >= 0.0:
                self.lo, self.hi = (step, f, slope), self.prev
            else:
                self.prev = (step, f, slope)
                self.trial = min(4.0 * step, _STEP_MAX)
                return self._out_of_evals()
        else:  # zoom (Algorithm 3.6)
            lo_step, lo_f, _ = self.lo
            if not armijo or f >= lo_f:
                self.hi = (step, f, slope)
            else:
                if abs(slope) <= -_C2 * self.slope0:
                    self.accepted = step
                    return True
                if slope * (self.hi[0] - lo_step) >= 0.0:
                    self.hi = self.lo
                self.lo = (step, f, slope)
        if abs(self.hi[0] - self.lo[0]) <= _EPS * max(1.0, abs(self.lo[0])):
            return self._give_up()
        self.trial = self._zoom_trial()
        return self._out_of_evals()

    def _out_of_evals(self):
        if self.evals < self.max_evals:
            return False
        return self._give_up()

    def _give_up(self):
        """No Wolfe step within the budget: keep the best decrease, if any."""
        self.accepted = self.best[0] if self.best[0] > 0.0 else None
        return True


def minimize_batch(fun, x0, *, max_iter=15000, ftol=2.2204460492503131e-09,
                   gtol=1e-5, memory=10, max_ls=20, drop_after=None,
                   drop_margin=1e-3, callback=None):
    """Minimise R problems with L-BFGS in lockstep (see the module docstring).

    Parameters
    ----------
    fun : callable
        ``fun(X)`` with ``X`` of shape (k, p) returns ``(values (k,), grads (k,
        p))``; row i of the result must depend on row i of ``X`` only. A value
        of +inf (or NaN) marks a point where the objective overflowed.
    x0 : ndarray of shape (R, p)
    max_iter : int, default=15000
    ftol, gtol : float
        Convergence tests, as scipy's L-BFGS-B options of the same names.
    memory : int, default=10
        Pairs (s, y) kept per restart (scipy's ``maxcor``).
    max_ls : int, default=20
        Evaluations per line search (scipy's ``maxls``).
    drop_after : int or None, default=None
        Apply the drop rule from this iteration on (None: never drop).
    drop_margin : float, default=1e-3
        Relative margin of the drop rule.
    callback : callable, default=None
        ``callback(r, f)`` after every iteration of restart r.

    Returns
    -------
    BatchResult
    """
    # Far from the optimum (huge gradients) products may overflow: the line
    # search then backtracks from the non-finite values, silently.
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return _minimize_batch(fun, x0, max_iter, ftol, gtol, memory, max_ls,
                               drop_after, drop_margin, callback)


class _Batch:
    """The state of R restarts: points, values, gradients, L-BFGS memories,
    iteration and evaluation counts, statuses and objective curves."""

    def __init__(self, fun, x0, memory):
        self.fun = fun
        self.x = np.array(x0, dtype=np.float64, ndmin=2, copy=True)
        R, self.p = self.x.shape
        self.S = np.zeros((R, memory, self.p))
        self.Y = np.zeros((R, memory, self.p))
        self.rho = np.zeros((R, memory))
        self.valid = np.zeros((R, memory), dtype=bool)
        self.nit = np.zeros(R, dtype=np.intp)
        self.nfev = np.zeros(R, dtype=np.intp)
        self.status = np.full(R, -1)
        self.curves = [[] for _ in range(R)]
        self.n_calls = 0
        self.f, g = self.evaluate(np.arange(R), self.x)
        self.g = g.copy()
        self.f_start = self.f.copy()

    def evaluate(self, rows, points):
        """Values (+inf where the gradient is not finite) and gradients."""
        self.n_calls += 1
        values, grads = self.fun(points)
        values = np.array(values, dtype=np.float64).reshape(len(rows))
        grads = np.asarray(grads, dtype=np.float64).reshape(len(rows), self.p)
        values[~np.isfinite(grads).all(axis=1)] = np.inf
        self.nfev[rows] += 1
        return values, grads

    def direction(self, active):
        """The search directions of the active rows, their slopes and first
        trial steps (steepest descent where the memory's is not downhill)."""
        g = self.g[active]
        d = _two_loop(g, self.S[active], self.Y[active], self.rho[active],
                      self.valid[active])
        slope = _rowdot(g, d)
        # not a descent direction: restart the memory, steepest descent
        uphill = ~(slope < 0.0)
        if uphill.any():
            self.valid[active[uphill]] = False
            d[uphill] = -g[uphill]
            slope[uphill] = -_rowdot(g[uphill], g[uphill])
        norm = np.sqrt(_rowdot(d, d))
        step = np.where(self.nit[active] == 0, np.minimum(1.0 / norm, _STEP_MAX),
                        1.0)
        return d, slope, step

    def line_searches(self, active, d, slope, step, max_ls):
        """The accepted step of every active row (NaN where none) with its
        value and gradient."""
        # The first trial of every line search in one call; the restarts whose
        # first step meets the strong Wolfe conditions (the common case) are
        # done, the others continue their own searches (Algorithms 3.5-3.6).
        f_new, g_new = self.evaluate(active, self.x[active] + step[:, None] * d)
        slope_new = _rowdot(g_new, d)
        done = ((f_new <= self.f[active] + _C1 * step * slope)
                & (np.abs(slope_new) <= -_C2 * slope))
        accepted = np.where(done, step, np.nan)
        searches, seen = {}, {}
        for k in np.flatnonzero(~done):
            ls = _LineSearch(self.f[active[k]], slope[k], step[k], max_ls)
            seen[k] = {step[k]: (f_new[k], g_new[k].copy())}
            if ls.update(f_new[k], slope_new[k]):
                _finish(k, ls, seen, accepted, f_new, g_new)
            else:
                searches[k] = ls
        while searches:
            pending = list(searches)
            rows = active[pending]
            trials = np.array([searches[k].trial for k in pending])
            fv, gv = self.evaluate(rows, self.x[rows] + trials[:, None] * d[pending])
            for q, k in enumerate(pending):
                ls = searches[k]
                seen[k][ls.trial] = (fv[q], gv[q])
                if ls.update(fv[q], _rowdot(gv[q], d[k])):
                    _finish(k, ls, seen, accepted, f_new, g_new)
                    del searches[k]
        return accepted, f_new, g_new

    def advance(self, rows, sk, g_new_rows, f_new_rows, callback):
        """Move ``rows`` by their steps ``sk``: memory pairs, points, values,
        gradients, counts and curves; returns their previous values."""
        yk = g_new_rows - self.g[rows]
        sy, yy = _rowdot(sk, yk), _rowdot(yk, yk)
        upd = sy > _EPS * yy
        if upd.any():
            u = rows[upd]
            S, Y, rho, valid = self.S, self.Y, self.rho, self.valid
            S[u, :-1], Y[u, :-1] = S[u, 1:], Y[u, 1:]
            rho[u, :-1], valid[u, :-1] = rho[u, 1:], valid[u, 1:]
            S[u, -1], Y[u, -1] = sk[upd], yk[upd]
            rho[u, -1], valid[u, -1] = 1.0 / sy[upd], True
        f_old = self.f[rows]
        self.x[rows] += sk
        self.f[rows], self.g[rows] = f_new_rows, g_new_rows
        self.nit[rows] += 1
        for r, value in zip(rows.tolist(), self.f[rows].tolist(), strict=True):
            self.curves[r].append(value)
            if callback is not None:
                callback(r, value)
        return f_old

    def result(self):
        return BatchResult(x=self.x, fun=self.f, grad=self.g, nit=self.nit,
                           nfev=self.nfev, status=self.status, curves=self.curves,
                           n_calls=self.n_calls)


def _minimize_batch(fun, x0, max_iter, ftol, gtol, memory, max_ls, drop_after,
                    drop_margin, callback):
    b = _Batch(fun, x0, memory)
    status = b.status
    status[~np.isfinite(b.f)] = LINE_SEARCH_FAILED
    status[(status < 0) & (np.abs(b.g).max(axis=1, initial=0.0) <= gtol)] = CONVERGED
    while True:
        active = np.flatnonzero(status < 0)
        if active.size == 0:
            break
        d, slope, step = b.direction(active)
        accepted, f_new, g_new = b.line_searches(active, d, slope, step, max_ls)
        failed = np.isnan(accepted)
        status[active[failed]] = LINE_SEARCH_FAILED
        ok = ~failed
        rows = active[ok]
        if rows.size == 0:
            continue
        f_old = b.advance(rows, accepted[ok, None] * d[ok], g_new[ok], f_new[ok],
                          callback)
        f = b.f[rows]
        grad_small = np.abs(b.g[rows]).max(axis=1, initial=0.0) <= gtol
        small_step = (f_old - f) <= ftol * np.maximum(
            np.maximum(np.abs(f_old), np.abs(f)), 1.0)
        status[rows] = np.where(grad_small | small_step, CONVERGED,
                                np.where(b.nit[rows] >= max_iter, MAX_ITER, -1))
        if drop_after is not None:
            _drop_hopeless(b.f, b.f_start, b.curves, status, b.nit, max_iter,
                           drop_after, drop_margin)
    return b.result()


def _finish(k, ls, seen, accepted, f_new, g_new):
    """Record the step a finished line search of active row k accepted (if any)
    with its value and gradient."""
    if ls.accepted is not None:
        accepted[k] = ls.accepted
        f_new[k], g_new[k] = seen[k][ls.accepted]


def _drop_hopeless(f, f_start, curves, status, nit, max_iter, window, margin):
    """The drop rule of the module docstring, applied in place to ``status``."""
    finite = np.isfinite(f)
    if not finite.any():
        return
    best = f[finite].min()
    for r in np.flatnonzero(status < 0):
        if nit[r] < window:
            continue
        # objective `window` iterations ago (the start if that is where it was)
        recent = curves[r][-window - 1] if nit[r] > window else f_start[r]
        rate = max(recent - f[r], 0.0) / window
        gap = f[r] - best
        if gap > margin * max(1.0, abs(best)) and gap > (max_iter - nit[r]) * rate:
            status[r] = DROPPED
