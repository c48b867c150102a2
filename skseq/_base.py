"""The IOHMM estimators' base: the fitting driver (and, mixed in from
``skseq._base_inference``, inference).

:class:`BaseIOHMM` owns the whole fitting driver once, read as scikit-learn's
``BaseMixture.fit_predict``: build the problem (validation, targets, the input
representation, the families: :meth:`BaseIOHMM._build_problem`), draw the
starting points (``n_init`` restarts or a warm start), run the solver over them
(``skseq._fit.solvers`` and ``skseq._fit.restarts``, reporting to one
``skseq._fit.monitor.ConvergenceMonitor``), and store the best (every fitted
attribute written in :meth:`BaseIOHMM._store_best`). The objective itself is
``skseq._fit.objective.Problem``; the families own their math
(``skseq._transitions``, ``skseq._emissions``).

A concrete estimator declares its parameters and fills the hooks:

* ``_output``: the name of its output distribution in
  ``skseq._families.outputs.OUTPUTS`` (fitted as ``outputs_``: targets, the
  output family, predictions and scores);
* ``_n_chain_states()``, ``_transition_mask()``, ``_make_transition(n_features)``:
  its chain (:class:`FlatIOHMM` gives those of a chain of ``n_states`` states);
* ``_structure_params``: the parameters a fitted model cannot change without a
  refit; optionally ``_readout()`` (how a class is read off a sequence).
"""

import numbers
import time
from functools import partial

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import _safe_indexing, check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from ._base_dask import fit_sharded, is_dask_collection
from ._base_inference import IOHMMInference
from ._data import (
    N_JOBS_CONSTRAINT,
    NumberParams,
    check_fitted_params,
    check_sample_weight,
    record_fit_lengths,
    record_fitted_params,
    restore_on_failure,
    validate_sequences,
)
from ._data.representation import (
    FEATURES_OBJECT,
    REPRESENTATIONS,
    SUMMARIES,
    make_representation,
    refuse_options_of_name,
    refuse_out_of_memory,
    resolve,
    validate_features,
)
from ._data.warm import (
    keep_warm_names,
    refuse_warm_change,
    refuse_warm_targets,
    warm_targets,
)
from ._data.weights import WHOLE_SEQUENCES, weighted_only
from ._families.layers import LAYERS
from ._families.outputs import OUTPUTS
from ._families.penalty import MAX_ALPHA, RAW_ALPHA
from ._families.starts import STARTS
from ._families.supervised import copies_of, fit_with_axes, read_out
from ._families.transitions import TRANSITIONS
from ._families.warm_axes import CountedRead, mark_axes, warm_inputs
from ._fit.monitor import ConvergenceMonitor
from ._fit.objective import Problem, Setup, fixed_startprob, topology_mask
from ._fit.resources import check_allocation, check_memory, check_restarts
from ._fit.restarts import run_restarts
from ._fit.solvers import M_STEP_MAX_ITER, restart_groups, solve_em, solve_lbfgs
from ._kernels._parallel import one_blas_thread

# n_init="auto": restarts * steps per fit is about this, within [5, 50] restarts.
_AUTO_RESTART_STEPS = 100_000


def _looks_scaled(n_steps, mean, std):
    """Whether the features look standardized: every column's spread within
    [0.05, 20] and its mean within a few spreads of 0 (one-hot symbols pass)."""
    if n_steps < 2:
        return True
    mean = np.abs(mean)
    return bool(np.all((std >= 0.05) & (std <= 20)) and np.all(mean <= 5 * std + 1))


class BaseIOHMM(IOHMMInference, NumberParams, BaseEstimator):
    """Base class of the IOHMM estimators. Not for direct use."""

    _parameter_constraints: dict = {
        "features": [StrOptions({"auto", *REPRESENTATIONS}), FEATURES_OBJECT],
        "emission": [StrOptions(set(LAYERS))],
        "n_hidden": [Interval(numbers.Integral, 1, None, closed="left")],
        "startprob": [StrOptions({"learn", "uniform", "stationary"}), "array-like"],
        "solver": [StrOptions({"lbfgs", "em"})],
        "alpha": [Interval(numbers.Real, 0, None, closed="left"),
                  StrOptions({"auto"})],
        "det_penalty": [Interval(numbers.Real, 0, None, closed="left")],
        "n_init": [Interval(numbers.Integral, 1, None, closed="left"),
                   StrOptions({"auto"})],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "init": [StrOptions({"auto", *STARTS}), list, tuple],
        "init_scale": [Interval(numbers.Real, 0, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "n_jobs": N_JOBS_CONSTRAINT,
        "warm_start": ["boolean"],
    }

    # Parameters that define the fitted model's structure: predicting after one of
    # them changed (set_params without refit) would silently use the wrong model.
    _structure_params = ("features", "emission", "n_hidden")

    # GEM: L-BFGS iterations per M-step, warm-started from the current networks.
    _m_step_max_iter = M_STEP_MAX_ITER

    # init="auto": restart k starts from _auto_starts[k % len(_auto_starts)].
    _auto_starts = ("random", "permutation")

    def __init__(self, *, features, emission, n_hidden, startprob, solver, alpha,
                 det_penalty, n_init, max_iter, tol, init, init_scale, random_state,
                 verbose, n_jobs, warm_start):
        self.features = features
        self.emission = emission
        self.n_hidden = n_hidden
        self.startprob = startprob
        self.solver = solver
        self.alpha = alpha
        self.det_penalty = det_penalty
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.init_scale = init_scale
        self.random_state = random_state
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.warm_start = warm_start

    # -- hooks -------------------------------------------------------------
    _output = None  # its output distribution's name (skseq._families.outputs)

    def _n_chain_states(self):
        """Number of states of the Markov chain (a product state's count)."""
        raise NotImplementedError

    def _transition_mask(self):
        """Boolean mask of allowed transitions (None: all allowed)."""
        raise NotImplementedError

    def _make_transition(self, n_features):
        """The state-network family (``skseq._transitions``)."""
        raise NotImplementedError

    def _readout(self):
        """``(readout, readout_start)``: how a class is read off a sequence-level
        model; the output at the last step unless the estimator says otherwise."""
        return "last", 1.0

    def _transition_l1(self):
        """Weight of the L1 penalty on the state networks' input weights (0:
        they take alpha's L2 penalty, as the output networks')."""
        return 0.0

    def _make_outputs(self):
        """The (unfitted) output distribution named ``_output``, given the
        estimator parameters it reads."""
        cls = OUTPUTS[self._output]
        return cls(self.emission, self.n_hidden, type(self).__name__,
                   **{name: getattr(self, name) for name in cls.constraints})

    def _make_representation(self, features):
        """The (unfitted) input representation ``features`` gives: a new one
        of that name, or a clone of the object."""
        return make_representation(features)

    def set_params(self, **params):
        refuse_options_of_name(self, params.get("features", self.features),
                               params)
        return super().set_params(**params)

    def _validate_params(self):
        validate_features(self, super()._validate_params)

    def _target_weights(self, seqs, targets, weight):
        """The per-sequence weights of the fit and the per-target exponents of the
        output likelihoods (None: all 1); an estimator with class weights
        changes them."""
        return weight, None

    def _n_init(self, n_steps, features):
        """Restarts; "auto" spends them where they matter and are cheap.

        On raw inputs IOHMM likelihoods have many local optima (Bengio & Frasconi 1996,
        §6: 10-45% of random starts reach a perfect fit on the Tomita grammars), and
        on small data restarts both matter most and cost least: 50 restarts up
        to 2,000 steps, then about 100,000 / n_steps, and never fewer than 5. On
        the shape representation the output networks read rich, whitened
        features and the fit is close to convex: one start (more were measured
        to change nothing, ``doc/results/real_data.md``); the same on the
        standardized window summaries.
        """
        if self.n_init != "auto":
            return self.n_init
        if features in (*SUMMARIES, "window"):
            return 1
        return int(np.clip(_AUTO_RESTART_STEPS // max(n_steps, 1), 5, 50))

    def _alpha(self, features, U_rows, seqs, targets, weight, copies):
        """The penalty of this fit: ``alpha``, or with ``alpha="auto"`` the one
        a linear read-out of the output networks' inputs validates best on
        representations whose output networks read a whole-sequence summary
        (``skseq._families.penalty``); on raw inputs, where one step's input says
        nothing of what the states carry, and with step-level targets (whose
        steps are not independent draws to leave out one by one), the weak
        prior near-deterministic transitions need. A fit on the prefixes of
        its sequences (``IOHMMClassifier(n_prefixes=...)``) leaves the prefixes
        of one sequence out together. ``copies``: the weights that count copies
        (:class:`~skseq._data.weights.CopyWeights`)."""
        if self.alpha != "auto":
            return self.alpha
        if features == "raw" or targets.step_level:
            return RAW_ALPHA
        seq_of = seqs.sequence_of(targets.steps)
        given = ({} if copies.weight is None
                 else {"copy_weight": copies.weight[seq_of]})
        if copies.parent is not None:  # prefixes of one sequence leave together
            given["groups"] = (copies.parent[seq_of], copies_of(copies.parent_weight))
        return self.outputs_.choose_alpha(U_rows, targets, weight[seq_of], **given)[0]

    def _starts_shared(self, features, targets):
        """Whether the output networks start from one shared read-out: on a
        whole-sequence summary (the shape representation) with linear outputs
        and one target per sequence."""
        return (features in SUMMARIES and self.emission == "input"
                and not targets.step_level
                and hasattr(self.outputs_, "shared_readout"))

    def _validate_X(self, X, reset):
        # the fit records the lengths of the sequences it reads
        return validate_sequences(self, X, reset=reset, record_lengths=False)

    # -- fitting -------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit the model by maximum (penalised) conditional likelihood.

        Parameters
        ----------
        X : array-like of shape (n_sequences, max_len, n_features) or list
            Sequences: a 3-D array padded at the end with NaN rows, a list of
            ``(len_i, n_features)`` arrays, or a 2-D array of one-step sequences.
            A Dask collection of sequences (a Dask array chunked along the
            sequences, a bag, a list of delayed) is fitted across the workers
            of the current Dask client (user guide, "One fit across a Dask
            cluster").
        y : array-like of shape (n_sequences,) or list of arrays
            One target per sequence (supervising its last step), or a list of
            per-step target arrays (NaN/None = no target at that step).
        sample_weight : array-like of shape (n_sequences,), default=None
            Per-sequence weights. A sequence of weight 0 is left out (its
            labels still count among ``classes_``).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        # an invalid value is named as such before it is compared with the
        # fitted one (validation changes nothing)
        self._validate_params()
        if self._warm():
            # the fitted model is continued as it is: a structure changed
            # since would be silently ignored
            check_fitted_params(self, "warm_start=True continues the fitted "
                                "model; set warm_start=False to fit anew.")
        if is_dask_collection(X):
            # sequences held by a Dask cluster: one fit across its workers
            return fit_sharded(self, X, y, sample_weight)
        with restore_on_failure(self):
            n_features = getattr(self, "n_features_in_", None)
            names = self.__dict__.get("feature_names_in_")
            seqs = self._validate_X(X, reset=True)
            if self._warm():
                refuse_warm_change("number of features", n_features, seqs.n_features)
                keep_warm_names(self, names)
            with one_blas_thread():
                return self._fit(seqs, y, sample_weight)

    def _warm(self):
        """Whether this fit continues from the fitted parameters."""
        return self.warm_start and hasattr(self, "converged_")

    def _fit(self, seqs, y, sample_weight, copies=WHOLE_SEQUENCES):
        problem, setup = self._build_problem(seqs, y, sample_weight, copies)
        thetas0 = self._draw_starts(problem, setup)
        best, objectives = self._run_solver(problem, thetas0, setup.n_init)
        self._store_best(problem, setup, best, objectives)
        return self

    def _monitor(self):
        """The convergence monitor of a fit (``tol``, ``max_iter``,
        ``verbose``)."""
        return ConvergenceMonitor(self.tol, self.max_iter, self.verbose, self.solver)

    # -- build the problem ---------------------------------------------------
    def _encode_targets(self, seqs, y, sample_weight):
        """The checked sample weights and the encoded targets; a warm start
        refuses targets that change the model's shape (``skseq._data.warm``)."""
        weight = check_sample_weight(
            sample_weight, seqs.n_sequences,
            alpha=MAX_ALPHA if self.alpha == "auto" else self.alpha)
        before = warm_targets(self) if self._warm() else None
        outputs = self._make_outputs()
        targets = outputs.fit_encode(y, seqs, sample_weight=weight)
        # the fitted output and the public attributes it determines (classes_,
        # n_outputs_), which the rest of the fit reads
        self.outputs_ = outputs
        self.__dict__.update(outputs.fitted_attributes())
        if before is not None:
            refuse_warm_targets(before, warm_targets(self, targets.step_level))
        return weight, targets

    def _choose_features(self, seqs, y, targets, weight, weighted):
        """The representation this fit reads: ``features``, or the one
        ``"auto"`` resolves to (an estimator may choose it from the data)."""
        return resolve(self.features, seqs, targets.step_level)

    def _represent(self, seqs, targets, sample_weight, weight, rng, features,
                   copies):
        """The input representation ``features`` gives (a name or an object,
        fitted anew as its name or clone) and its name, or the fitted one for
        a warm start (``features`` None), and what the networks see through it
        (``weight`` the fit's; ``copies`` as for :meth:`_alpha`)."""
        start = time.perf_counter()
        read = CountedRead(partial(self._read_axes, seqs, targets, weight, copies))
        if features is None:  # the fitted one, its supervised axes read anew
            features = self.features_
            representation, inputs = warm_inputs(
                self.representation_, seqs, targets.steps, read, self.n_jobs)
        else:
            representation = self._make_representation(features)
            # the sample weights, which count copies (None if all 1); class
            # weights, which count none, weigh the supervised read-out only;
            # prefixes weigh their sequence's weight (not their share of it):
            # an integer weight repeats every prefix, as repeating the
            # sequence does (shares alone count each prefix once)
            weighed = None if sample_weight is None else copies.of(weight)
            with refuse_out_of_memory(self, features, seqs.data.shape[0]):
                if getattr(representation, "supervised", False):
                    # the supervised axes read the indicators only: beside the
                    # projection, weighted as the fit weighs the sequences
                    inputs = fit_with_axes(representation, seqs, rng, self.n_jobs,
                                           weighed, targets.steps, read)
                    mark_axes(representation, read.n_axes)
                else:
                    representation.fit(seqs, rng, self.n_jobs, sample_weight=weighed)
                    inputs = representation.inputs(seqs, targets.steps, self.n_jobs)
            features = representation.name
        if self.verbose:
            print(f"Representation {features!r}: {inputs[1].shape[1]} features "
                  f"at {seqs.data.shape[0]} steps in "
                  f"{time.perf_counter() - start:.2f}s", flush=True)
        return features, representation, inputs

    def _read_axes(self, seqs, targets, weight, copies, representation,
                   sampled=None):
        """``supervised.read_out`` of a representation whose indicators are
        fitted, or None if it gets none (``copies`` as for :meth:`_alpha`;
        ``sampled`` as for ``read_out``)."""
        if self._supervises(representation, targets):
            return read_out(representation, seqs, targets, weight, copies,
                            n_jobs=self.n_jobs, sampled=sampled)
        return None

    def _supervises(self, representation, targets):
        """Whether the representation gets supervised axes: classes, one per
        sequence, on a summary representation that asks for them."""
        return (getattr(representation, "supervised", False)
                and not getattr(representation, "tabular_", True)
                and not targets.step_level and hasattr(self, "classes_")
                and targets.values.ndim == 1)

    def _check_solver_options(self, fixed_start):
        """The options only the lbfgs solver supports."""
        if self.det_penalty and self.solver != "lbfgs":
            raise ValueError(
                f"det_penalty={self.det_penalty} needs solver='lbfgs' (got "
                f"solver={self.solver!r}); inside the EM M-step the reward was "
                "measured not to help (the posteriors are already diffuse)."
            )
        if isinstance(fixed_start, str) and self.solver != "lbfgs":
            raise ValueError(
                "startprob='stationary' needs solver='lbfgs' (got solver="
                f"{self.solver!r}): the start then depends on the transitions, "
                "which the EM M-step fits apart from it."
            )

    def _build_problem(self, seqs, y, sample_weight, copies=WHOLE_SEQUENCES):
        """The objective of this fit (``skseq._fit.objective.Problem``) and the
        decisions taken on the way (:class:`~skseq._fit.objective.Setup`);
        ``copies``: the prefixes' groups, if any (their ``weight`` unset)."""
        weight, targets = self._encode_targets(seqs, y, sample_weight)
        # class weights of sequence-level labels act as sample weights in all;
        # a sequence of weight 0 in the fit (or without targets) is read no
        # further (as without it)
        seqs, targets, weights, keep = weighted_only(
            seqs, targets, (weight, *self._target_weights(seqs, targets, weight)))
        weight, fit_weight, target_weight = weights
        if not keep.all():
            y = _safe_indexing(y, np.flatnonzero(keep))
            copies = copies.kept(keep)  # the sources left, numbered as without
        # the training lengths, once: those of the sequences read
        record_fit_lengths(self, seqs.lengths, copies.parent)
        n = self._n_chain_states()
        # before the n x n mask: it and at least one n x n transition matrix
        check_allocation(self, 9 * n * n,
                         f"{n} states (its {n}x{n} transition mask and matrices)",
                         "use fewer states.")
        mask = self._transition_mask()
        fixed_start = fixed_startprob(self.startprob, n)
        do_init = not self._warm()
        features = (self._choose_features(seqs, y, targets, weight,
                                          sample_weight is not None)
                    if do_init else None)
        rng = check_random_state(self.random_state)
        # a sequence stands for as many copies as its sample weight says, of
        # its class weight each: an integer weight equals repetition
        copies = copies.counting(weight, fit_weight)
        features, representation, inputs = self._represent(
            seqs, targets, sample_weight, fit_weight, rng, features, copies)
        weight = fit_weight
        transition = self._make_transition(representation.n_state_features)
        emission = self.outputs_.make_emission(n, representation.n_output_features)
        check_memory(self, seqs.data.shape[0], n,
                     transition.n_params + emission.n_params,
                     transition.fit_entries_per_step(self.solver, self.det_penalty))
        alpha = self._alpha(features, inputs[1], seqs, targets, weight, copies)
        self._check_solver_options(fixed_start)
        problem = Problem(seqs, targets, weight, transition, emission, mask,
                          fixed_start, alpha, self.n_jobs, self.det_penalty,
                          target_weight, inputs, self._transition_l1())
        n_init = self._n_init(seqs.data.shape[0], features) if do_init else 1
        return problem, Setup(features, representation, inputs, targets, weight,
                               alpha, rng, do_init, n_init)

    # -- draw the starting points --------------------------------------------
    def _draw_starts(self, problem, setup):
        """The starting points of the restarts, one per row: drawn, cycling
        through the kinds of ``init``, or the fitted parameters (warm start)."""
        cycle = self._start_cycle()
        if not setup.do_init:
            return problem.fitted_theta(self.startprob_, *self._attribute_values(
                problem.transition, problem.emission))[None]
        check_restarts(self, setup.n_init, problem.n_params)
        thetas0 = problem.initial_thetas(setup.rng, self.init_scale, cycle,
                                         setup.n_init)
        if self._starts_shared(setup.features, setup.targets):
            # Every state's output network starts at one read-out of the whole
            # sequence (plus a tenth of its random start, to break the tie):
            # the chain begins as good as its n_states=1 model, and the states
            # move apart only where the likelihood gains.
            seq_of = problem.seqs.sequence_of(problem.steps)
            problem.share_readout(thetas0, self.outputs_.shared_readout(
                setup.inputs[1], setup.targets, setup.weight[seq_of], setup.alpha))
        return thetas0

    def _start_cycle(self):
        """The kinds of starting point the restarts cycle through (``init``)."""
        if isinstance(self.init, str):
            return self._auto_starts if self.init == "auto" else (self.init,)
        bad = [kind for kind in self.init if kind not in STARTS]
        if not self.init or bad:
            raise ValueError(
                f"init must be 'auto', one of {STARTS} or a non-empty list of them; "
                f"got {self.init!r}" + (f" ({bad[0]!r} is none of them)." if bad
                                        else "."))
        return tuple(self.init)

    # -- run the solver ------------------------------------------------------
    def _run_solver(self, problem, thetas0, n_init):
        """The best restart and the objectives of all; ValueError if every
        restart diverged, ConvergenceWarning if the best did not converge."""
        monitor = self._monitor()

        def attempts():
            # lbfgs: the restarts of a group advance in lockstep, one batched
            # evaluation per step for all of them; em: one restart at a time.
            for group in restart_groups(problem, n_init, self.solver):
                for result in self._solve(problem, thetas0[group], monitor):
                    # A restart that overflowed (NaN/inf parameters) is dropped:
                    # a NaN would otherwise win and block every later restart.
                    result["diverged"] = not np.isfinite(result["theta"]).all()
                    yield result

        best, objectives = run_restarts(attempts(), n_init, monitor=monitor)
        if best is None:
            large = not self._warm() and self.init_scale > 1
            raise ValueError(
                f"{type(self).__name__}: every initialization diverged (the objective "
                "or the parameters overflowed); the inputs reach "
                f"{problem.input_magnitude():.3g} in magnitude. Scale the "
                "features, e.g. with skseq.preprocessing.Stepwise(StandardScaler())"
                + (f", or lower init_scale={self.init_scale:g}." if large else ".")
            )
        if not best["converged"]:
            advice = "try a larger max_iter or a larger tol"
            if not _looks_scaled(*problem.input_moments()):
                advice += (", or standardize the inputs (e.g. with skseq.preprocessing"
                           ".Stepwise(StandardScaler())): their scales differ widely")
            monitor.warn_not_converged(
                self, f"the best initialization did not converge (solver="
                f"{self.solver!r}, max_iter={self.max_iter})"
                f"{monitor.still_falling(best.get('curve'), problem.units_offset)}"
                f"; {advice}.")
        return best, objectives

    def _solve(self, problem, thetas0, monitor):
        """The results of the restarts starting from the rows of ``thetas0``,
        reported to the fit's ``monitor`` (which numbers their progress lines)."""
        if self.solver == "em":
            return [solve_em(problem, theta0, monitor, self._m_step_max_iter)
                    for theta0 in thetas0]
        return self._solve_lbfgs(problem, thetas0, monitor)

    def _solve_lbfgs(self, problem, thetas0, monitor):
        """L-BFGS from every row of ``thetas0``, in lockstep."""
        return solve_lbfgs(problem, thetas0, monitor)

    # -- store the best ------------------------------------------------------
    def _store_best(self, problem, setup, best, objectives):
        """Every fitted attribute, from the best restart."""
        transition, emission = problem.transition, problem.emission
        theta_s, theta_t, theta_e = problem.split(best["theta"])
        log_likelihood = float(problem.weight @ problem.loglik(best["theta"]))
        self.startprob_ = problem.startprob(theta_s, theta_t).copy()
        for name, arr in transition.coefficients(theta_t).items():
            setattr(self, f"transition_{name}_", arr)
        for name, arr in emission.coefficients(theta_e).items():
            setattr(self, f"emission_{name}_", arr)
        self.n_iter_ = best["n_iter"]
        self.converged_ = best["converged"]
        self.log_likelihood_ = log_likelihood
        self.objective_ = best["objective"]
        self.loss_curve_ = best["curve"]
        self.features_ = setup.features
        self.representation_ = setup.representation
        # to_automaton reads symbols as unit vectors: were the inputs one-hot?
        self._one_hot_inputs_ = problem.one_hot_inputs()
        self.alpha_ = setup.alpha
        self.n_init_ = len(objectives)
        self.init_objectives_ = objectives
        self.step_level_ = setup.targets.step_level
        record_fitted_params(self, self._structure_params)
        self._families_ = (transition, emission, problem.mask)
        self._n_free_params_ = (transition.n_free_params(problem.mask)
                                + emission.n_free_params() + problem.n_start
                                - (problem.n_start > 0))
        self._pack_fitted()


class FlatIOHMM(BaseIOHMM):
    """An IOHMM whose state is one variable of ``n_states`` values, moved by a
    state-network family (``transition``) over a transition graph
    (``topology``). Base of :class:`IOHMMClassifier` and :class:`IOHMMRegressor`.
    """

    _parameter_constraints: dict = {
        **BaseIOHMM._parameter_constraints,
        "n_states": [Interval(numbers.Integral, 1, None, closed="left")],
        "transition": [StrOptions(set(TRANSITIONS))],
        "topology": [StrOptions({"ergodic", "left-right"}), "array-like"],
    }

    _structure_params = (*BaseIOHMM._structure_params, "n_states", "transition",
                         "topology")

    def __init__(self, n_states, *, transition, topology, **params):
        self.n_states = n_states
        self.transition = transition
        self.topology = topology
        super().__init__(**params)

    def _n_chain_states(self):
        return self.n_states

    def _transition_mask(self):
        return topology_mask(self.topology, self.n_states)

    def _make_transition(self, n_features):
        return TRANSITIONS[self.transition](self.n_states, n_features, self.n_hidden)

