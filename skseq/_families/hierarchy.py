"""The factored transition of a hierarchical IOHMM (El Hihi & Bengio 1995).

The hidden state is the Cartesian product of L levels, x_t = (x^1_t, ..., x^L_t),
slowest first (El Hihi & Bengio 1995, §5). Level s moves given its own previous value
and the *current* value of the slower level above it (eq. 5):

    P(x_t | x_{t-1}, u_t) = prod_s F^s_t[x^s_{t-1}, x^{s-1}_t, x^s_t],

and keeps its value with a fixed probability w_s = 1 - 1/timescale_s (eq. 6),
otherwise moving by its own input-conditioned softmax network:

    F^s_t[j, k, i] = w_s [i == j] + (1 - w_s) softmax_i(W^s_{j,k} u_t + b^s_{j,k}).

The top level has no parent (k takes one value). The product state is still an
ordinary chain over N = prod_s n_s states, so the forward-backward kernels run on
the N x N matrices, built here from the level factors by broadcasting. The EM
auxiliary function splits over levels: sum_t,J,I xi_t[J, I] log A_t[J, I] =
sum_s sum xi^s log F^s, with xi^s the pairwise posteriors marginalised onto
level s's (previous own, current parent, current own) values, so its gradient
needs only those small marginals.
"""

import numpy as np

from .passes import BatchedPasses
from .starts import HOLD_LOGIT
from .transitions import TransitionFamily

# A learned time scale starts at least this far from its floor, where the
# sigmoid has no gradient (a level with time scale 1 is a plain IOHMM level).
_MIN_INIT_LOGIT = np.log(0.01)


class HierarchicalTransitions(TransitionFamily):
    """Product-state transitions factored over levels (El Hihi & Bengio 1995, eqs. 5-6).

    Parameters live in one flat vector: for each level s, ``coef{s}`` of shape
    (n_features, n_s, m_s, n_s) and ``intercept{s}`` of shape (n_s, m_s, n_s),
    indexed ``[.., previous own, current parent, next own]`` with m_s the size
    of the parent level (1 for the top level); with ``learn_timescales`` also
    ``persistence_logit`` (L,), w_s = w_min + (1 - w_min) sigmoid(persistence_logit_s)
    with w_min = 1 - 1/floor_s: a learned time scale never falls below its
    entry of ``floors`` (default 1 for every level: no floor).

    The fitted attributes are lists per level (``coef``, ``intercept``) and the
    time scales 1 / (1 - w_s) (``timescales``): see :meth:`coefficients`.

    The matrices are not a plain softmax of logits, so the family gives
    ``probs`` and ``expected_log`` and takes the rest of the contract of
    :class:`~skseq._families.transitions.TransitionFamily` from them: the log-likelihood
    gradient from the pairwise posteriors (Fisher's identity), the determinant
    reward through ``expected_log``.
    """

    # Random weights at the full init_scale: with the linear families' small
    # start (0.3) the mean test error of the learned cells of El Hihi &
    # Bengio's (1995) Figure 2 rose from 3.1% to 10.7% (two levels at T = 100:
    # 9.2% to 50.2%; benchmarks/bench_hierarchical.py, one run each).
    start_scale = 1.0

    def __init__(self, level_states, n_features, timescales, learn_timescales,
                 floors=None):
        self.level_states = tuple(int(n) for n in level_states)
        self.timescales = np.asarray(timescales, dtype=np.float64)
        self.learn_timescales = learn_timescales
        self.floors = (np.ones(len(self.level_states)) if floors is None
                       else np.asarray(floors, dtype=np.float64))
        super().__init__(int(np.prod(self.level_states)), n_features)

    @property
    def n_levels(self):
        return len(self.level_states)

    def _parents(self):
        return (1,) + self.level_states[:-1]

    def _blocks(self):
        d = self.n_features
        blocks = []
        for s, (n, m) in enumerate(zip(self.level_states, self._parents(),
                                       strict=True)):
            blocks += [(f"coef{s}", (d, n, m, n), True),
                       (f"intercept{s}", (n, m, n), False)]
        if self.learn_timescales:
            blocks.append(("persistence_logit", (self.n_levels,), False))
        return blocks

    def n_free_params(self, mask=None):
        """Each level's softmax rows (one per previous own value and parent value)
        have n_s - 1 free logits, each with an intercept and a weight per
        feature; plus the learned persistences."""
        free = sum((self.n_features + 1) * n * m * (n - 1)
                   for n, m in zip(self.level_states, self._parents(), strict=True))
        return free + (self.n_levels if self.learn_timescales else 0)

    # -- parameters -----------------------------------------------------------
    @property
    def names(self):
        return ["coef", "intercept", "timescales"]

    def coefficients(self, theta):
        """Per-level lists of weights and intercepts, and the time scales."""
        p = self.unpack(theta)
        if self.learn_timescales:
            timescales = np.exp(-self._log_persistence(p)[1])  # 1 / (1 - w_s)
        else:
            timescales = self.timescales.copy()
        return {
            "coef": [p[f"coef{s}"].copy() for s in range(self.n_levels)],
            "intercept": [p[f"intercept{s}"].copy() for s in range(self.n_levels)],
            "timescales": timescales,
        }

    def pack(self, values):
        """Flat vector from the per-level lists of :meth:`coefficients`."""
        flat = {}
        for name in ("coef", "intercept"):
            arrays = list(values[name])
            if len(arrays) != self.n_levels:
                raise ValueError(f"{name} has {len(arrays)} levels, expected "
                                 f"{self.n_levels}.")
            flat.update({f"{name}{s}": a for s, a in enumerate(arrays)})
        if self.learn_timescales:
            flat["persistence_logit"] = _timescale_logit(
                np.asarray(values["timescales"], dtype=np.float64) / self.floors)
        return super().pack(flat)

    def init(self, rng, scale, start="random"):
        """Random networks; learned persistences start at the given time scales.

        ``start`` as in :meth:`TransitionFamily.init
        <skseq._families.transitions.TransitionFamily.init>`, level by level:
        ``"permutation"`` gives each network (every parent value, the intercept
        and each feature's weights) ``3 * scale`` on a random permutation of the
        level's values; ``"hold"`` gives every value of a level but the first
        :data:`~skseq._families.starts.HOLD_LOGIT` on its stay logit, under every
        parent value (the estimator then starts every level in its first
        value), and learned time scales start at their floors (1 for the
        fastest level) instead of ``timescales``.
        """
        theta = rng.normal(scale=scale, size=self.n_params)
        p = self.unpack(theta)
        if self.learn_timescales:
            # A hold start keeps memory in the networks' stay logits; a slow
            # persistence would also keep the reading value and delay the
            # reading (measured: from time scales (10, 1) the (3, 2) hierarchy
            # found the 2-sequence reader in 1-2 hold starts of 10, from (1, 1)
            # in 5-7; doc/results/long_memory.md), so learned time scales
            # start as fast as they may there: at their floors.
            start_scales = (self.floors if start == "hold" else self.timescales)
            p["persistence_logit"][:] = np.maximum(
                _timescale_logit(start_scales / self.floors), _MIN_INIT_LOGIT)
        for s, n in enumerate(self.level_states):
            if start == "permutation":
                for block in (p[f"coef{s}"], p[f"intercept{s}"]):
                    # (..., previous, parent, next) -> one (n, n) slice per
                    # feature and parent value
                    slices = np.moveaxis(block, -2, 0)
                    for index in np.ndindex(slices.shape[:-2]):
                        slices[index][np.arange(n), rng.permutation(n)] += 3.0 * scale
            elif start == "hold":
                held = np.arange(1, n)
                p[f"intercept{s}"][held, :, held] += HOLD_LOGIT
        return theta

    def _log_persistence(self, p):
        """log w_s and log(1 - w_s), computed without cancellation."""
        if self.learn_timescales:
            v = p["persistence_logit"]
            # w = w_min + (1 - w_min) sigmoid(v), 1 - w = (1 - sigmoid(v)) / floor
            log_floor = np.log(self.floors)
            with np.errstate(divide="ignore"):  # floor 1: w_min = 0
                log_w_min = np.log1p(-1.0 / self.floors)
            return (np.logaddexp(log_w_min, -log_floor - np.logaddexp(0.0, -v)),
                    -log_floor - np.logaddexp(0.0, v))
        with np.errstate(divide="ignore"):  # time scale 1: w_s = 0
            return np.log1p(-1.0 / self.timescales), -np.log(self.timescales)

    # -- level factors, for R parameter sets at once ---------------------------
    # The restarts of a fit advance in lockstep: every method below works on the
    # rows of ``thetas`` (R, n_params) together, in whole-array operations, and
    # sums each row's terms by itself (the same bits whatever the other rows).
    def _log_persistences(self, p, R):
        """log w_s and log(1 - w_s) of every row, (R, n_levels) each."""
        return [np.broadcast_to(a, (R, self.n_levels))
                for a in self._log_persistence(p)]

    def _levels(self, thetas, U):
        """Per level: the log-softmax of its network, log S (R, T, n, m, n), and
        log F^s on the diagonal i == j, (R, T, n, m).

        Off the diagonal log F^s = log(1 - w_s) + log S.
        """
        R = thetas.shape[0]
        p = self.unpack_batch(thetas)
        log_w, log_move = self._log_persistences(p, R)
        out = []
        for s, (n, m) in enumerate(zip(self.level_states, self._parents(),
                                       strict=True)):
            with np.errstate(over="ignore", invalid="ignore"):  # see _log_softmax_
                # one product per row: (T, d) @ (R, d, n m n)
                z = U @ p[f"coef{s}"].reshape(R, self.n_features, -1)
                z += p[f"intercept{s}"].reshape(R, 1, -1)
            log_net = _log_softmax_(z.reshape(R, -1, n, m, n))
            # eq. 6: staying is the persistence or the network's own choice
            log_stay = np.logaddexp(_lift(log_w[:, s], 3),
                                    _lift(log_move[:, s], 3) + _diagonal(log_net))
            out.append((log_net, log_stay))
        return out

    def _broadcast_shape(self, s, n_steps):
        """Shape placing level s's factor (T, j_s, i_{s-1}, i_s) on the product
        axes (T, j_1..j_L, i_1..i_L); the axes keep their order, so a reshape
        does it."""
        L = self.n_levels
        shape = [n_steps] + [1] * (2 * L)
        shape[1 + s] = self.level_states[s]
        if s:
            shape[L + s] = self.level_states[s - 1]
        shape[L + s + 1] = self.level_states[s]
        return shape

    def probs(self, theta, U, mask=None):
        """Product-state transition matrices (len(U), N, N), eq. 5 by broadcasting.

        Product states are numbered in C order of (x^1, ..., x^L): the first
        level is the most significant digit. ``mask`` is not used (every
        product transition is allowed).
        """
        return self.probs_batch(theta[None], U)[0]

    def probs_batch(self, thetas, U):
        """:meth:`probs` of the rows of ``thetas``, (R, len(U), N, N)."""
        return self._probs(thetas, self._levels(thetas, U))

    def gradient_pass(self, theta, U, mask, chain):
        """As :meth:`TransitionFamily.gradient_pass`, computing the level factors
        once for the matrices and the gradient."""
        posts, grads = self.gradient_batch(theta[None], U, [chain])
        return posts[0], grads[0]

    def gradient_passes(self, U, mask, offsets, weight=None, n_jobs=None):
        """As :meth:`TransitionFamily.gradient_passes`: the matrices and
        gradients of R parameter sets in whole-array operations, one
        forward-backward per set (:class:`~skseq._families.passes.BatchedPasses`)."""
        return BatchedPasses(self, U, offsets, weight, n_jobs)

    def batch_bytes_per_set(self, n_steps):
        """Bytes one parameter set's :meth:`gradient_batch` holds at once: its
        matrices and, per level, about eight arrays of the level's factor."""
        entries = self.n_states**2 + 8 * sum(
            n * m * n for n, m in zip(self.level_states, self._parents(), strict=True))
        return 8 * n_steps * entries

    def gradient_batch(self, thetas, U, chains):
        """Forward-backward on ``chains[r]`` with the matrices of row r of
        ``thetas``, and the log-likelihood gradients (R, n_params): the
        posteriors of every row and their gradients."""
        levels = self._levels(thetas, U)
        trans = self._probs(thetas, levels)
        # each row's pairwise posteriors overwrite its matrices
        posts = [chain.posteriors(A, self.gradient_statistic)
                 for chain, A in zip(chains, trans, strict=True)]
        return posts, self._expected_log(thetas, U, self._weights(trans), levels)[1]

    def _probs(self, thetas, levels):
        R, T = levels[0][0].shape[:2]
        dims = self.level_states
        log_move = self._log_persistences(self.unpack_batch(thetas), R)[1]
        factors = []
        for s, (log_net, log_stay) in enumerate(levels):
            F = np.exp(log_net + _lift(log_move[:, s], 4))
            _diagonal(F)[...] = np.exp(log_stay)
            factors.append(F.reshape([R] + self._broadcast_shape(s, T)))
        if len(factors) == 1:
            return factors[0].reshape(R, T, self.n_states, self.n_states)
        out = np.empty((R, T, self.n_states, self.n_states))
        view = out.reshape((R, T) + dims + dims)
        np.multiply(factors[0], factors[1], out=view)
        for factor in factors[2:]:
            view *= factor
        return out

    def marginals(self, xi):
        """Pairwise posteriors per level: xi^s (..., n_s, m_s, n_s) from (..., N, N).

        The previous-state axes are summed first: they are outer axes, each
        holding N contiguous next states, which numpy reduces fast; the small
        (T, n_s, N) result then gives the next-state axes.
        """
        lead, dims, N = xi.shape[:-2], self.level_states, self.n_states
        xi = xi.reshape(-1, N, N)
        T = xi.shape[0]
        if len(dims) == 1:
            return [xi.reshape(*lead, N, 1, N)]
        out = []
        for s, (n, m) in enumerate(zip(dims, self._parents(), strict=True)):
            after = N // int(np.prod(dims[: s + 1]))
            prev = np.einsum("tajbI->tjI", xi.reshape(T, -1, n, after, N))
            # next axes: (levels above the parent, parent, own, levels below)
            out.append(np.einsum("tjqkir->tjki", prev.reshape(T, n, -1, m, n, after))
                       .reshape(*lead, n, m, n))
        return out

    def expected_log(self, theta, U, xi, mask=None):
        """sum_t,J,I xi_t[J, I] log A_t[J, I] and its gradient, level by level.

        With S the network's softmax and R = xi^s (1 - w_s) S / F^s the
        posterior that a move was the network's (R = xi^s off the diagonal),
        d/dz = R - S rowsum(R); and d/dw_s = sum xi^s ([i == j] - S_i) / F^s.
        """
        return self.m_step_objective(U, xi, mask)(theta)

    def m_step_objective(self, U, xi, mask=None):
        """theta -> :meth:`expected_log` for one M-step's fixed U and xi: the
        level marginals of xi and their sums are taken once, not at every
        evaluation."""
        weights = self._weights(xi[None])

        def objective(theta):
            values, grads = self._expected_log(theta[None], U, weights,
                                               self._levels(theta[None], U))
            return values[0], grads[0]
        return objective

    def _weights(self, xi):
        """What :meth:`_expected_log` reads of the weights xi (R, T, N, N):
        per level the marginals xi^s (R, T, n, m, n), their diagonal, their
        sums over the next value, each row's total and its total off the
        diagonal."""
        out = []
        for xi_s in self.marginals(xi):
            rows = np.einsum("rtjki->rtjk", xi_s)
            stays = _diagonal(xi_s)
            total = _row_sums(rows)
            # each row's weight off the diagonal (the level's moves), the
            # diagonal summed as a strided view, row by row
            off = total - np.array([row.sum() for row in stays])
            out.append((xi_s, np.ascontiguousarray(stays), rows, total, off))
        return out

    def _expected_log(self, thetas, U, weights, levels):
        """:meth:`expected_log` of the rows of ``thetas`` with the weights
        of row r (:meth:`_weights`): values (R,) and gradients (R, n_params)."""
        R = thetas.shape[0]
        p = self.unpack_batch(thetas)
        log_move = self._log_persistences(p, R)[1]
        values = np.zeros(R)
        grads = {}
        for s, ((xi_s, xi_d, rows, total, off), (log_net, log_stay)) in enumerate(
                zip(weights, levels, strict=True)):
            log_net_d = _diagonal(log_net)
            move = _lift(log_move[:, s], 3)
            values += (_row_dots(xi_s, log_net) + log_move[:, s] * total
                       + _row_dots(xi_d, log_stay - move - log_net_d))
            # on the diagonal, the share of xi that the network moved
            by_net = np.exp(move + log_net_d - log_stay)
            net = np.exp(log_net)
            G = net * -(rows - xi_d * (1.0 - by_net))[..., None]
            G += xi_s
            _diagonal(G)[...] -= xi_d * (1.0 - by_net)
            G2 = G.reshape(R, G.shape[1], -1)
            grads[f"coef{s}"] = U.T @ G2
            grads[f"intercept{s}"] = G2.sum(axis=1)
            if self.learn_timescales:
                grads.setdefault("persistence_logit", np.zeros((R, self.n_levels)))
                grads["persistence_logit"][:, s] = self._persistence_gradient(
                    p["persistence_logit"][:, s], move, log_stay, log_net_d,
                    xi_d, off)
        return values, np.concatenate(
            [grads[name].reshape(R, -1) for name, _, _ in self._blocks()], axis=1)

    @staticmethod
    def _persistence_gradient(v, move, log_stay, log_net_d, xi_d, off):
        """d/dv_s of every row, from the level's diagonal factors and xi^s
        (``off``: each row's sum of xi^s off the diagonal)."""
        # d/dv = (1 - w_min) sig (1 - sig) d/dw = sig (1 - w) d/dw, sig =
        # sigmoid(v): off the diagonal F = (1 - w) S gives -sig per unit of xi;
        # on it, sig (1 - w) (1 - S) / F.
        log_sig = -np.logaddexp(0.0, -v)
        stay = np.exp(_lift(log_sig, 3) + move - log_stay)
        return (_row_dots(xi_d, stay * -np.expm1(log_net_d))
                - np.exp(log_sig) * off)


def _row_sums(a):
    """The sum of every row a[r] (NumPy's pairwise sum, as ``a[r].sum()``)."""
    return a.reshape(a.shape[0], -1).sum(axis=1)


def _row_dots(a, b):
    """a[r] . b[r] for every row r: one BLAS dot per row (as ``np.vdot``), so a
    row's value does not depend on the other rows."""
    R = a.shape[0]
    return (np.ascontiguousarray(a).reshape(R, 1, -1)
            @ np.ascontiguousarray(b).reshape(R, -1, 1)).reshape(R)


def _lift(a, n_axes):
    """``a`` (R,) with ``n_axes`` trailing axes of length 1, to broadcast per row."""
    return a.reshape(a.shape + (1,) * n_axes)


def _diagonal(a):
    """Writable view of a[..., j, k, j], shape (..., n, m): the level's stays."""
    *lead, n, m, _ = a.shape
    s = a.strides
    return np.lib.stride_tricks.as_strided(a, (*lead, n, m),
                                           (*s[:-3], s[-3] + s[-1], s[-2]))


def _log_softmax_(z):
    """In place: log-softmax over a short last axis (a few states).

    Column by column: numpy's reductions over a tiny contiguous axis are several
    times slower than these few whole-array operations.
    """
    # Logits beyond +-1e300 (inputs near the float64 limit, where U @ coef may
    # even overflow to inf, or to NaN as inf - inf) are one-hot anyway: clipped
    # to a finite range, their differences below cannot overflow.
    if not (np.abs(z) <= 1e300).all():  # one pass where nothing is out of range
        np.nan_to_num(z, copy=False, nan=0.0, posinf=1e300, neginf=-1e300)
        np.clip(z, -1e300, 1e300, out=z)
    columns = [z[..., k] for k in range(z.shape[-1])]
    top = columns[0].copy()
    for column in columns[1:]:
        np.maximum(top, column, out=top)
    # a broadcast over the short last axis is slow: subtract column by column
    for column in columns:
        column -= top
    total = np.exp(columns[0])
    for column in columns[1:]:
        total += np.exp(column)
    np.log(total, out=total)
    for column in columns:
        column -= total
    return z


def _timescale_logit(ratio):
    """The logit v giving a time scale of ``ratio`` times its floor:
    1 - sigmoid(v) = 1/ratio, v = log(ratio - 1), finite."""
    excess = np.asarray(ratio, dtype=np.float64) - 1.0
    return np.log(np.maximum(excess, np.finfo(np.float64).tiny))
