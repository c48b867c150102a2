"""Standard errors of a fitted regressor from the observed information.

The observed information is minus the Hessian of the log-likelihood at the
fitted parameters; its inverse estimates the covariance of the maximum
likelihood estimates (e.g. Hamilton 1994, Time Series Analysis, §22.3, for
Markov-switching models). The Hessian is obtained by central differences of the
exact gradient (the forward-backward's, ``Problem.values_and_grads``), all
2 p evaluations in one batched pass.

It is taken in an identified parametrisation psi, chosen so that the numbers
compare with statsmodels' ``MarkovRegression`` and Stata's ``mswitch``:

* the start distribution and every row of the transition matrices: logits
  relative to the last state (the last state's logit fixed at 0, as
  statsmodels' time-varying transition probabilities);
* the output networks' coefficients and intercepts in the units of y and the
  inputs (the fitted attributes themselves);
* the noise (co)variances in the units of y squared (not their logarithms, not
  standard deviations): every variance and, for full or tied covariances,
  every covariance below the diagonal.

For homogeneous transitions the transition probabilities' standard errors
follow by the delta method.

A learned start distribution at the boundary (a probability at 0) has logits at
infinity, where the likelihood is flat: it is held at its estimate, its logits'
standard errors are NaN. The likelihood of one sequence is linear in the start
distribution, so its maximum is a vertex, always at the boundary.
"""

import warnings

import numpy as np
from scipy.special import softmax

# Central-difference step of the gradient, relative to a parameter's distance
# from its centre in its natural unit (at least 1 unit, _Parametrisation._units):
# the gradient is exact to rounding, so the truncation error (step^2) and the
# rounding error (eps / step) balance near 1e-5.
_STEP = 1e-5
# The observed information must be positive definite: in the natural units,
# its smallest eigenvalue above this fraction of its largest.
_RCOND = 1e-10
# A learned start probability below this is at the boundary (its logit beyond
# 13.8 in magnitude, its information below 1e-6 per sequence).
_BOUNDARY = 1e-6
_IDENTIFIED_TRANSITIONS = ("input", "homogeneous", "additive")
_IDENTIFIED_EMISSIONS = ("input", "state")


def _lower(shape_k):
    """Indices of the lower triangle (with the diagonal) of a k x k matrix."""
    return np.tril_indices(shape_k)


class _Parametrisation:
    """The map psi -> theta of a fitted regressor (see the module docstring)."""

    def __init__(self, problem, model):
        self.problem = problem
        self.transition, self.emission = model.transition, model.emission
        n = self.transition.n_states
        self.n = n
        self.cov_type = self.emission.covariance_type
        values_t = self.transition.unpack(model.theta_t)
        values_e = self.emission.coefficients(model.theta_e)
        parts, self.blocks = [], []
        if problem.n_start:
            logit = np.log(np.maximum(model.startprob, 1e-300))
            parts.append(logit[:-1] - logit[-1])
            self.blocks.append(("startprob_logit", (n,), n - 1))
        for name in self.transition.names:
            v = values_t[name]
            rel = v[..., :-1] - v[..., -1:] if v.shape[-1] == n else v
            parts.append(rel.ravel())
            self.blocks.append((f"transition_{name}", v.shape, rel.size))
        for name in self.emission.names:
            v = values_e[name]
            if name == "covariance" and self._factored():
                full = v if self.cov_type == "full" else v[None]
                il = _lower(full.shape[-1])
                flat = full[:, il[0], il[1]]
                parts.append(flat.ravel())
                self.blocks.append((f"emission_{name}", v.shape, flat.size))
            else:
                parts.append(v.ravel())
                self.blocks.append((f"emission_{name}", v.shape, v.size))
        self.psi = np.concatenate(parts)
        self.center, self.unit = self._units(problem)

    def _units(self, problem):
        """The centre and natural unit of every coordinate of psi: the mean
        and standard deviation of y for the intercepts, their squares'
        products for the (co)variances, those of y over those of the inputs
        for the coefficients (of 1 over the inputs' for the logits' weights).
        The finite differences and the test of identification are taken in
        these units, so that they do not depend on those of y and X."""
        y_scale, y_mean = self.emission.y_scale, self.emission.y_mean
        x_spread = {"transition": _spread(problem.U),
                    "emission": _spread(problem.U_targets)}
        centers, units = [], []
        for name, shape, _ in self.blocks:
            family, _, block = name.partition("_")
            unit, center = np.ones(shape), np.zeros(shape)
            if block == "coef":
                unit = unit / x_spread[family].reshape(-1, *[1] * (len(shape) - 1))
            if family == "emission" and block in ("coef", "intercept"):
                unit = unit * y_scale
                center = center + (y_mean if block == "intercept" else 0.0)
            if block == "covariance":
                unit = unit * (y_scale[0] ** 2 if self.cov_type == "spherical"
                               else y_scale ** 2 if self.cov_type == "diag"
                               else np.outer(y_scale, y_scale))
            units.append(self._flat(name, unit))
            centers.append(self._flat(name, center))
        return np.concatenate(centers), np.concatenate(units)

    def _flat(self, name, v):
        """The coordinates of psi of an array ``v`` in the shape of the fitted
        attribute ``name`` (without the reference logits, the upper triangles)."""
        if name == "startprob_logit" or (name.startswith("transition_")
                                         and v.shape[-1] == self.n):
            v = v[..., :-1]
        elif name == "emission_covariance" and self._factored():
            full = v if self.cov_type == "full" else v[None]
            il = _lower(full.shape[-1])
            v = full[:, il[0], il[1]]
        return v.ravel()

    def _factored(self):
        return self.cov_type in ("full", "tied")

    def _split(self, psi):
        out, start = {}, 0
        for name, shape, size in self.blocks:
            out[name] = (psi[start:start + size], shape)
            start += size
        return out

    def theta(self, psi):
        """The packed parameters theta of the objective at psi."""
        parts = self._split(psi)
        n = self.n
        thetas = []
        if self.problem.n_start:
            thetas.append(np.r_[parts["startprob_logit"][0], 0.0])
        values_t = {}
        for name in self.transition.names:
            flat, shape = parts[f"transition_{name}"]
            if shape[-1] == n:
                v = np.zeros(shape)
                v[..., :-1] = flat.reshape(*shape[:-1], n - 1)
            else:
                v = flat.reshape(shape)
            values_t[name] = v
        thetas.append(self.transition.pack(values_t))
        values_e = {}
        for name in self.emission.names:
            flat, shape = parts[f"emission_{name}"]
            if name == "covariance" and self._factored():
                full = shape if self.cov_type == "full" else (1, *shape)
                k = full[-1]
                il = _lower(k)
                m = np.zeros(full)
                m[:, il[0], il[1]] = flat.reshape(full[0], -1)
                m = m + np.swapaxes(np.tril(m, -1), 1, 2)
                values_e[name] = m if self.cov_type == "full" else m[0]
            else:
                values_e[name] = flat.reshape(shape)
        thetas.append(self.emission.pack(values_e))
        return np.concatenate(thetas)

    def steps(self):
        """Central-difference steps, relative to each coordinate's distance
        from its centre in its unit (at least one unit); exactly representable
        at psi, so that the differences divide by the steps taken."""
        h = _STEP * np.maximum(np.abs(self.psi - self.center) / self.unit,
                               1.0) * self.unit
        return (self.psi + h) - self.psi

    def jacobian(self, psi):
        """d theta / d psi at psi, by central differences (no data involved)."""
        h = self.steps()
        cols = [(self.theta(psi + e) - self.theta(psi - e)) / (2 * e[k])
                for k, e in enumerate(np.diag(h))]
        return np.column_stack(cols)

    def unflatten(self, se):
        """Standard errors per fitted attribute, NaN at the reference entries."""
        out = {}
        n = self.n
        for name, (flat, shape) in self._split(se).items():
            v = np.full(shape, np.nan)
            if name == "startprob_logit":
                v[:-1] = flat
            elif name.startswith("transition_") and shape[-1] == n:
                v[..., :-1] = flat.reshape(*shape[:-1], n - 1)
            elif name == "emission_covariance" and self._factored():
                m = v if self.cov_type == "full" else v[None]
                il = _lower(m.shape[-1])
                m[:, il[0], il[1]] = flat.reshape(m.shape[0], -1)
                m[:, il[1], il[0]] = m[:, il[0], il[1]]
            else:
                v = flat.reshape(shape)
            out[name] = v
        return out


def _spread(U):
    """The standard deviation of every column of U (1 where it is 0)."""
    spread = U.std(axis=0) if U.shape[0] else np.ones(U.shape[1])
    return np.where(spread > 0, spread, 1.0)


def observed_information(problem, model):
    """The parametrisation, minus the Hessian of the (weighted) log-likelihood
    in psi measured in its natural units (psi / ``par.unit``), and the
    log-likelihood gradient in psi there. In those units the Hessian's
    entries neither underflow nor overflow where y's units are extreme (a
    variance's unit, y's squared, is 1e240 for y ~ 1e120)."""
    par = _Parametrisation(problem, model)
    psi = par.psi
    h = par.steps()
    p = psi.size
    shifted = np.concatenate([psi + np.diag(h), psi - np.diag(h), psi[None]])
    thetas = np.array([par.theta(s) for s in shifted])
    values, grads = problem.values_and_grads(thetas)
    if not np.isfinite(values).all():
        raise ValueError(
            "standard errors: the log-likelihood is not finite next to the "
            "fitted parameters (a variance at its floor, or a probability at 0)."
        )
    # d loglik / d psi = J^T (-W dJ/dtheta) at every shifted point
    W = problem.total_weight
    g_psi = np.array([-W * par.jacobian(s).T @ g for s, g in
                      zip(shifted, grads, strict=True)])
    g_unit = g_psi * par.unit
    hess = (g_unit[:p] - g_unit[p:2 * p]) / (2 * h / par.unit)[:, None]
    info = -0.5 * (hess + hess.T)
    return par, info, g_psi[-1]


def standard_errors(est, problem, model):
    """Standard errors of the fitted parameters (see the module docstring): a
    dict of arrays in the shapes of the fitted attributes, and the covariance
    matrix of psi."""
    family = est.transition
    if (family not in _IDENTIFIED_TRANSITIONS
            or est.emission not in _IDENTIFIED_EMISSIONS):
        raise ValueError(
            f"standard errors need transition in {_IDENTIFIED_TRANSITIONS} and "
            f"emission in {_IDENTIFIED_EMISSIONS} (got transition={family!r}, "
            f"emission={est.emission!r}): the hidden units of an mlp (and the "
            "gates of 'gated') can be permuted or rescaled without changing the "
            "model, so their parameters are not identified."
        )
    if model.mask is not None and not np.all(model.mask):
        raise ValueError(
            "standard errors need topology='ergodic': the logits of forbidden "
            "transitions have no effect on the likelihood."
        )
    # in the natural units (see _Parametrisation._units)
    par, info, grad = observed_information(problem, model)
    free = _free(par, model)
    unit = par.unit[free]
    info = info[np.ix_(free, free)]
    if not np.isfinite(info).all():
        raise ValueError("standard errors: the model is not identified at these "
                         "parameters (the observed information is not finite "
                         "there: a variance at its floor, or a probability at 0).")
    eig, vectors = np.linalg.eigh(info)
    if eig[0] <= _RCOND * max(eig[-1], 0.0):
        raise ValueError(
            "standard errors: the model is not identified at these parameters "
            f"(the observed information's smallest eigenvalue is {eig[0]:.3g}, "
            f"its largest {eig[-1]:.3g}; {_weakest(par, free, vectors[:, 0])}): "
            "two regimes alike, a regime never visited or never left (a "
            "transition probability at 0), an input that never varies, or a fit "
            "that is not at a maximum of the likelihood (alpha > 0, or not "
            "converged)."
        )
    cov = np.full((free.size, free.size), np.nan)
    inv = np.linalg.inv(info)
    inv = 0.5 * (inv + inv.T)
    with np.errstate(over="ignore", under="ignore"):
        # a variance's variance in extreme units of y may leave float64
        cov[np.ix_(free, free)] = inv * np.outer(unit, unit)
    se_free = np.full(par.psi.size, np.nan)
    se_free[free] = np.sqrt(np.diag(inv)) * unit
    se = par.unflatten(se_free)
    if family == "homogeneous":
        se["transition_proba"] = _proba_standard_errors(par, model, cov)
    return se, cov, grad


def _weakest(par, free, direction):
    """The parameter (fitted attribute and entry) the direction of least
    information, over the ``free`` coordinates of psi, moves most."""
    flat = np.zeros(par.psi.size)
    flat[np.flatnonzero(free)[np.argmax(np.abs(direction))]] = 1.0
    for name, values in par.unflatten(flat).items():
        where = np.argwhere(values == 1.0)
        if where.size:
            entry = ", ".join(str(i) for i in where[0])
            return f"the direction of least information moves {name}[{entry}] most"
    return "no parameter found"  # pragma: no cover - one coordinate is set


def _free(par, model):
    """Mask of the coordinates of psi that get standard errors: all but the
    logits of a learned start distribution at the boundary (see the module
    docstring), which warns."""
    free = np.ones(par.psi.size, dtype=bool)
    if not par.problem.n_start or par.n == 1:  # no logits
        return free
    n_sequences = par.problem.seqs.n_sequences
    smallest = float(model.startprob.min())
    if n_sequences == 1 or smallest < _BOUNDARY:
        free[:par.n - 1] = False
        why = ("the likelihood of one sequence is linear in the start "
               "distribution, maximal at a vertex" if n_sequences == 1 else
               f"its smallest probability is {smallest:.3g}")
        warnings.warn(
            "standard errors: the learned start distribution is at the "
            f"boundary ({why}), where its logits have no standard error: "
            "'startprob_logit' is NaN, and the other standard errors hold the "
            "start distribution at its estimate. Fit with "
            "startprob='stationary' (homogeneous transitions) or 'uniform' to "
            "leave it out of the model's parameters.",
            UserWarning, stacklevel=4)
    return free


def _proba_standard_errors(par, model, cov):
    """Delta method: standard errors of the transition probabilities of a
    homogeneous chain from those of the relative logits (the block of psi
    they depend on: the covariances of the others, a variance's in extreme
    units of y, may be inf)."""
    n = par.n
    start = sum(size for name, _, size in par.blocks if name == "startprob_logit")
    P = softmax(model.transition.unpack(model.theta_t)["intercept"], axis=1)
    G = np.zeros((n * n, n * (n - 1)))
    for j in range(n):
        for i in range(n):
            for q in range(n - 1):
                G[j * n + i, j * (n - 1) + q] = P[j, i] * ((i == q) - P[j, q])
    logits = slice(start, start + n * (n - 1))
    return np.sqrt(np.diag(G @ cov[logits, logits] @ G.T)).reshape(n, n)
