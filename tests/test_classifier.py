"""IOHMMClassifier against independent references.

Hand-worked examples, finite differences, brute-force path enumeration, the EM
monotonicity guarantee, and the acceptance checks of the foundation issue.
"""

import itertools
import pickle
import re
import tracemalloc
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.ensemble import VotingClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skseq import IOHMMClassifier
from skseq._data import Targets, check_sequences
from skseq._families.emissions import SoftmaxEmission
from skseq._families.layers import LAYERS
from skseq._families.transitions import TRANSITIONS, TransitionFamily
from skseq._fit.objective import Problem as _Problem
from skseq._fit.objective import topology_mask
from skseq.automata import DFA
from skseq.datasets import make_tomita, make_tomita_exhaustive
from skseq.preprocessing import Stepwise
from skseq.representations import ShapeFeatures
from skseq.utils import to_padded


def _hand_model():
    """A 2-state Moore machine with known numbers (see test_hand_worked_example)."""
    X = [np.array([[1.0], [0.0]])]
    clf = IOHMMClassifier(n_states=2, transition="homogeneous", emission="state",
                          n_init=1, max_iter=1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X + X, [0, 1])
    clf.startprob_ = np.array([0.6, 0.4])
    clf.transition_intercept_ = np.log([[0.7, 0.3], [0.2, 0.8]])
    clf.emission_intercept_ = np.log([[0.1, 0.9], [0.8, 0.2]])  # P(y | state)
    return clf, X


def test_hand_worked_example():
    clf, X = _hand_model()
    # zeta_1 = pi A = [0.6*0.7 + 0.4*0.2, 0.6*0.3 + 0.4*0.8] = [0.5, 0.5]
    # zeta_2 = zeta_1 A = [0.5*0.7 + 0.5*0.2, 0.5*0.3 + 0.5*0.8] = [0.45, 0.55]
    assert_allclose(clf.predict_state_proba(X)[0], [[0.5, 0.5], [0.45, 0.55]])
    # P(y = 1 | u) = 0.45 * 0.9 + 0.55 * 0.2 = 0.515
    assert_allclose(clf.predict_proba(X), [[0.485, 0.515]])
    assert_allclose(clf.score_samples(X, [1]), [np.log(0.515)])
    assert_allclose(clf.score_samples(X, [0]), [np.log(0.485)])
    assert_array_equal(clf.predict(X), [1])
    # Viterbi for y = 1: best path over (x0, x1, x2) of pi A A P(y=1|x2):
    # (1, 1, 1): 0.4 * 0.8 * 0.8 * 0.2 = 0.0512; (0, 0, 0): 0.6*0.7*0.7*0.9 = 0.2646
    assert_array_equal(clf.decode(X, [1])[0], [0, 0])
    # and for y = 0: (0,0,1): 0.6*0.7*0.3*0.8 = 0.1008; (1,1,1): 0.4*0.8*0.8*0.8
    # = 0.2048; (0,1,1): 0.6*0.3*0.8*0.8 = 0.1152 -> (1, 1)
    assert_array_equal(clf.decode(X, [0])[0], [1, 1])


def _problem(transition, emission, fixed_start, mask, seed=0, alpha=0.3):
    rng = np.random.default_rng(seed)
    lengths = [1, 3, 5, 2]
    X = [rng.normal(size=(k, 2)) for k in lengths]
    seqs = check_sequences(X)
    y = np.array([0, 1, 2, 1])
    targets = Targets(steps=seqs.last_steps, values=y, step_level=False)
    n = 3
    trans = TRANSITIONS[transition](n, 2, 4)
    emit = SoftmaxEmission(n, LAYERS[emission](2, 4), 3)
    weight = rng.uniform(0.5, 2.0, size=len(lengths))
    problem = _Problem(seqs, targets, weight, trans, emit, mask, fixed_start,
                       alpha, None)
    theta = rng.normal(size=problem.n_start + trans.n_params + emit.n_params)
    return problem, theta


def _central_differences(f, theta, eps=1e-6):
    grad = np.zeros_like(theta)
    for k in range(theta.size):
        e = np.zeros_like(theta)
        e[k] = eps
        grad[k] = (f(theta + e) - f(theta - e)) / (2 * eps)
    return grad


@pytest.mark.parametrize("transition", list(TRANSITIONS))
@pytest.mark.parametrize("emission", list(LAYERS))
@pytest.mark.parametrize("learn_start", [True, False])
def test_lbfgs_gradient_matches_finite_differences(transition, emission, learn_start):
    mask = topology_mask("left-right", 3) if transition == "input" else np.ones(
        (3, 3), bool)
    fixed = None if learn_start else np.array([0.5, 0.3, 0.2])
    problem, theta = _problem(transition, emission, fixed, mask)
    _, grad = problem.value_and_grad(theta)
    num = _central_differences(lambda t: problem.value_and_grad(t)[0], theta)
    assert_allclose(grad, num, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("transition", ["input", "additive", "gated"])
def test_em_auxiliary_gradient_matches_finite_differences(transition):
    rng = np.random.default_rng(1)
    family = TRANSITIONS[transition](3, 2, 4)
    U = rng.normal(size=(7, 2))
    xi = rng.dirichlet(np.ones(9), size=7).reshape(7, 3, 3)
    theta = rng.normal(size=family.n_params)
    mask = np.ones((3, 3), bool)
    _, grad = family.expected_log(theta, U, xi, mask)

    def q(t):
        z = family.logits(t, U)
        log_a = z - np.log(np.exp(z).sum(axis=2, keepdims=True))
        return np.sum(xi * log_a)

    assert_allclose(grad, _central_differences(q, theta), rtol=1e-6, atol=1e-8)
    assert_allclose(family.expected_log(theta, U, xi, mask)[0], q(theta))


@pytest.mark.parametrize("transition", list(TRANSITIONS))
@pytest.mark.parametrize("alpha", [0.0, 0.5])
def test_em_never_decreases_the_objective(transition, alpha):
    X, y = make_tomita(4, 60, random_state=1)
    clf = IOHMMClassifier(n_states=3, transition=transition, solver="em",
                          alpha=alpha, warm_start=True, max_iter=1, n_init=1,
                          random_state=0)
    objectives, logliks = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for _ in range(15):
            clf.fit(X, y)
            objectives.append(clf.objective_)
            logliks.append(clf.log_likelihood_)
    assert np.all(np.diff(objectives) <= 1e-10)
    if alpha == 0:
        assert np.all(np.diff(logliks) >= -1e-8)
    assert objectives[-1] < objectives[0]


def test_filtering_is_causal():
    """zeta_t depends on u_1..t only: a prefix gives the same distributions."""
    X, y = make_tomita(4, 40, random_state=0)
    clf = IOHMMClassifier(n_states=3, n_init=1, max_iter=30, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    rng = np.random.default_rng(0)
    long = np.eye(2)[rng.integers(2, size=25)]
    full = clf.predict_state_proba([long])[0]
    for k in (1, 7, 25):
        assert_allclose(clf.predict_state_proba([long[:k]])[0], full[:k], rtol=1e-12)
    assert_allclose(full.sum(axis=1), 1.0)


def _transition_matrices(clf, U):
    """The fitted "input" transitions recomputed by hand: softmax(u W_j + b_j)."""
    z = np.einsum("tk,kji->tji", U, clf.transition_coef_) + clf.transition_intercept_
    e = np.exp(z - z.max(axis=2, keepdims=True))
    return e / e.sum(axis=2, keepdims=True)


def test_decode_and_score_match_enumeration():
    X, y = make_tomita(5, 30, random_state=3)
    clf = IOHMMClassifier(n_states=3, n_init=1, max_iter=20, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    U = np.array([[1, 0], [0, 1], [0, 1], [1, 0]], dtype=float)
    A = _transition_matrices(clf, U)
    V, c = clf.emission_coef_, clf.emission_intercept_
    z = U[-1] @ V.reshape(2, -1)
    out = (z.reshape(3, 2) + c)
    p_out = np.exp(out) / np.exp(out).sum(axis=1, keepdims=True)  # (state, class)
    label = 1
    joint = {}  # P(x_1..x_4, y | u), the state before the first step summed out
    for path in itertools.product(range(3), repeat=5):
        p = clf.startprob_[path[0]]
        for t in range(4):
            p *= A[t, path[t], path[t + 1]]
        p *= p_out[path[-1], label]
        joint[path[1:]] = joint.get(path[1:], 0.0) + p
    total, best_path = sum(joint.values()), max(joint, key=joint.get)
    assert_allclose(clf.score_samples([U], [clf.classes_[label]]), [np.log(total)])
    assert_array_equal(clf.decode([U], [clf.classes_[label]])[0], best_path)


def test_decode_sums_out_the_state_before_the_first_step():
    # On a one-step sequence the most likely path is the most probable state
    # of P(x_1 | u_1), the filter's; keeping the best state before the first
    # step instead (max, not sum) disagreed on 32 of these 140 steps.
    X, y = _signal_data()
    y_steps = [np.full(len(x), label) for x, label in zip(X, y, strict=True)]
    clf = _fit_quiet(IOHMMClassifier(n_states=3, n_init=1, max_iter=10,
                                     random_state=0), X, y_steps)
    rows = np.concatenate(X)[:, None, :]  # one-step sequences
    best = np.concatenate(clf.predict_state_proba(rows)).argmax(axis=1)
    assert_array_equal(np.concatenate(clf.decode(rows)), best)


@pytest.mark.parametrize("grammar", [1, 4, 6])
def test_tomita_grid_search_generalises(grammar):
    """The acceptance check: GridSearchCV over n_states, default estimator.

    Grammar 5 (even numbers of 0s and of 1s) is not part of this check: its
    4-state machine is found by about 3% of near-permutation starts and by none of
    60 random ones (measured on this training set), so whether 50 restarts find it
    is a matter of luck that rounding-level changes flip;
    ``benchmarks/tomita_gridsearch.py`` reports its success rate over seeds.
    """
    X, y = make_tomita(grammar, 200, random_state=0)
    search = GridSearchCV(IOHMMClassifier(emission="state", random_state=0),
                          {"n_states": [2, 3, 4, 5]}, cv=3, n_jobs=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        search.fit(X, y)
    X_all, y_all = make_tomita_exhaustive(grammar, 12)
    X_long, y_long = make_tomita(grammar, 200, min_length=50, max_length=100,
                                 random_state=1000)
    assert search.score(X_all, y_all) >= 0.99
    assert search.score(X_long, y_long) >= 0.95


def test_step_level_labels_with_strings():
    """y_t = parity of the 1s read so far, labelled at every step ("even"/"odd")."""
    rng = np.random.default_rng(0)
    X, y = [], []
    for _ in range(60):
        bits = rng.integers(2, size=rng.integers(1, 10))
        X.append(np.eye(2)[bits])
        y.append(np.where(np.cumsum(bits) % 2 == 0, "even", "odd").astype(object))
    y[0][0] = None  # a step without label
    clf = IOHMMClassifier(n_states=2, emission="state", random_state=0).fit(X, y)
    assert clf.step_level_
    pred = clf.predict(X)
    assert [p.shape for p in pred] == [x.shape[:1] for x in X]
    assert set(np.concatenate(pred)) <= {"even", "odd"}
    assert clf.score(X, y) == 1.0
    proba = clf.predict_proba(X)
    assert_allclose(np.concatenate(proba).sum(axis=1), 1.0)


def test_pickle_and_determinism():
    X, y = make_tomita(4, 80, random_state=2)
    kw = dict(n_states=3, n_init=2, max_iter=40, random_state=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = IOHMMClassifier(**kw).fit(X, y)
        b = IOHMMClassifier(**kw, n_jobs=2).fit(X, y)
    assert_array_equal(a.transition_coef_, b.transition_coef_)
    restored = pickle.loads(pickle.dumps(a))
    assert_array_equal(restored.predict_proba(X), a.predict_proba(X))
    assert_array_equal(restored.decode(X)[0], a.decode(X)[0])


def test_pipeline_cross_val_score():
    """Class = whether a noisy continuous signal drifts up or down."""
    rng = np.random.default_rng(0)
    X, y = [], []
    for s in range(60):
        drift = 1 if s % 2 else -1
        n = rng.integers(5, 15)
        X.append(np.cumsum(drift * 0.5 + rng.normal(size=(n, 2)), axis=0) * 50 + 100)
        y.append(drift)
    pipe = make_pipeline(Stepwise(StandardScaler()),
                         IOHMMClassifier(n_states=2, features="raw", random_state=0))
    scores = cross_val_score(pipe, X, np.array(y), cv=3)
    assert scores.mean() > 0.8


@pytest.mark.parametrize("solver", ["lbfgs", "em"])
def test_long_sequence_fits_and_predicts_within_memory_bar(solver):
    """A single 10^6-step sequence: a few iterations, finite results, and peak
    memory of fit (every array it allocates, as NumPy reports them to tracemalloc)
    within 3 * T * n^2 * 8 bytes plus the data."""
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(1_000_000, 1))]
    X_fit = X + [rng.normal(size=(5, 1))]
    n = 2
    clf = IOHMMClassifier(n_states=n, features="raw", n_init=1, max_iter=3,
                          solver=solver,
                          random_state=0)
    tracemalloc.start()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X_fit, [0, 1])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    n_steps = 1_000_005
    assert peak <= 3 * n_steps * n * n * 8 + sum(x.nbytes for x in X_fit)
    assert np.isfinite(clf.log_likelihood_)
    proba = clf.predict_proba(X)
    assert np.isfinite(proba).all()
    assert np.isfinite(clf.predict_state_proba(X)[0]).all()


def test_convergence_warning_and_verbose(capsys):
    X, y = make_tomita(4, 40, random_state=0)
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        IOHMMClassifier(n_states=3, n_init=1, max_iter=2, verbose=2,
                        random_state=0).fit(X, y)
    out = capsys.readouterr().out
    assert "Restart 1/1" in out and "Iteration 1" in out


def test_to_automaton_recovers_the_minimal_machine_of_tomita_4():
    X, y = make_tomita(4, 200, random_state=0)
    clf = IOHMMClassifier(n_states=4, emission="state", random_state=0).fit(X, y)
    # "no 000": states count the trailing zeros (0, 1, 2), plus a dead state.
    minimal = DFA(4, ["0", "1"], [[1, 0], [2, 0], [3, 0], [3, 3]], start=0,
                  accepting=[0, 1, 2])
    dfa = clf.to_automaton().minimize()
    assert dfa.n_states == 4
    assert dfa.is_equivalent(minimal)


def test_to_automaton_infers_whether_the_empty_string_is_accepted():
    # Tomita 1 (the language 1*): the model's start state is left on the first
    # symbol and never re-entered, so its emission was never trained.
    X, y = make_tomita_exhaustive(1, max_length=4)
    clf = IOHMMClassifier(n_states=3, emission="state", transition="additive",
                          n_init=1, random_state=0).fit(X, y)

    def ones(string):  # a recogniser of 1*, written by hand
        return all(symbol == 1 for symbol in string)

    short = [s for n in range(5) for s in itertools.product((0, 1), repeat=n)]
    # Myhill-Nerode: prefixes told apart by some suffix (both of length <= 4).
    n_classes = len({tuple(ones(p + s) for s in short) for p in short})
    dfa = clf.to_automaton()
    assert dfa.accepts([])
    strings = [s for n in range(1, 10) for s in itertools.product((0, 1), repeat=n)]
    assert [dfa.accepts(s) for s in strings] == [ones(s) for s in strings]
    # ... as the model does on every non-empty string up to length 9.
    assert_array_equal(clf.predict([np.eye(2)[list(s)] for s in strings]),
                       [ones(s) for s in strings])
    assert dfa.minimize().n_states == n_classes == 2
    # Told otherwise, it rejects the empty string and needs a third state.
    rejecting = clf.to_automaton(accept_empty=False)
    assert not rejecting.accepts([]) and rejecting.minimize().n_states == 3
    assert [rejecting.accepts(s) for s in strings] == [ones(s) for s in strings]


def test_to_dot_of_a_fitted_machine_over_1_and_the_string_1():
    # the alphabet [1, "1"] drew two edges (or a "1,1" label) that read the
    # same: every state's edges must name each symbol once, distinguishably
    X, y = make_tomita_exhaustive(1, max_length=4)
    clf = IOHMMClassifier(n_states=3, emission="state", transition="additive",
                          n_init=1, random_state=0).fit(X, y)
    dot = clf.to_automaton(alphabet=[1, "1"]).to_dot()
    out = {}
    for source, label in re.findall(r'^    (\d+) -> \d+ \[label="(.*)"\];$', dot,
                                    flags=re.MULTILINE):
        out.setdefault(source, []).extend(label.split(","))
    assert out and all(sorted(symbols) == ["'1'", "1"] for symbols in out.values())


def test_to_automaton_refuses_what_is_not_a_machine():
    X, y = make_tomita(4, 40, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        mealy = IOHMMClassifier(n_states=2, n_init=1, max_iter=5,
                                random_state=0).fit(X, y)
        soft = IOHMMClassifier(n_states=3, emission="state", n_init=1, max_iter=1,
                               random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="emission='state'"):
        mealy.to_automaton()
    with pytest.raises(ValueError, match="not near-deterministic"):
        soft.to_automaton(min_proba=0.999)


def test_to_automaton_refuses_a_mean_readout_whose_machine_would_disagree():
    # readout="mean" classifies by the mean over the steps; the machine of the
    # last step's class disagreed with predict on 64 of the 510 strings up to
    # length 8 here.
    X, y = make_tomita(4, 60, max_length=8, random_state=0)
    clf = IOHMMClassifier(n_states=4, emission="state", readout="mean", n_init=2,
                          random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="needs readout='last', got readout='mean'"):
        clf.to_automaton(min_proba=0.0)
    clf.set_params(readout="last")  # as the message says: then it classifies alike
    dfa = clf.to_automaton()
    strings = [s for n in range(1, 9) for s in itertools.product((0, 1), repeat=n)]
    assert_array_equal([dfa.accepts(s) for s in strings],
                       clf.predict([np.eye(2)[list(s)] for s in strings]))


@pytest.mark.parametrize("transition", ["input", "gated"])
def test_gradient_from_pairwise_posteriors_equals_softmax_gradient(
        transition, monkeypatch):
    """Fisher's identity path (for non-softmax families) = the direct path."""
    problem, theta = _problem(transition, "input", None, np.ones((3, 3), bool))
    value, grad = problem.value_and_grad(theta)
    family = type(problem.transition)
    monkeypatch.setattr(family, "gradient_statistic",
                        TransitionFamily.gradient_statistic)
    monkeypatch.setattr(family, "loglik_gradient", TransitionFamily.loglik_gradient)
    value2, grad2 = problem.value_and_grad(theta)
    assert_allclose(value2, value, rtol=1e-13)
    assert_allclose(grad2, grad, rtol=1e-8, atol=1e-12)


def test_structure_changed_after_fit_is_refused():
    X, y = make_tomita(4, 30, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = IOHMMClassifier(n_states=2, n_init=1, max_iter=5, random_state=0)
        clf.fit(X, y)
    before = clf.predict_proba(X)
    clf.set_params(topology="left-right")
    with pytest.raises(ValueError, match="topology changed since fit"):
        clf.predict_proba(X)
    clf.set_params(topology="ergodic", tol=1e-3)  # not structural: fine
    assert_array_equal(clf.predict_proba(X), before)


def test_score_validates_weights_and_target_level():
    X, y = make_tomita(4, 30, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = IOHMMClassifier(n_states=2, n_init=1, max_iter=5, random_state=0)
        clf.fit(X, y)
    with pytest.raises(ValueError, match="sample_weight"):
        clf.score(X, y, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="fitted on targets one per sequence"):
        clf.score(X, [np.zeros(len(x)) for x in X])
    with pytest.raises(ValueError, match="ragged"):
        IOHMMClassifier(n_states=2, topology=[[True, False], [True]]).fit(X, y)


# -- read-outs and prefix training ---------------------------------------------
def _signal_data(seed=0, n=24):
    """Two classes of noisy 2-D signals (mean shifted), lengths 2-9."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = [rng.normal(loc=0.7 * (2 * c - 1), size=(rng.integers(2, 10), 2)) for c in y]
    return X, y


def _fit_quiet(clf, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return clf.fit(*args, **kwargs)


def test_mean_readout_on_the_hand_worked_example():
    clf, X = _hand_model()
    # P(y = 1 | u_1) = 0.5 * 0.9 + 0.5 * 0.2 = 0.55, P(y = 1 | u_1, u_2) = 0.515
    score = np.array([np.log(0.45) + np.log(0.485), np.log(0.55) + np.log(0.515)]) / 2
    expected = np.exp(score) / np.exp(score).sum()
    clf.set_params(readout="mean", readout_start=0.0)
    assert_allclose(clf.predict_proba(X), [expected], rtol=1e-12)
    assert_allclose(clf.predict_log_proba(X), [np.log(expected)], rtol=1e-12)
    clf.set_params(readout_start=0.99)  # floor(0.99 * 1) = 0: still both steps
    assert_allclose(clf.predict_proba(X), [expected], rtol=1e-12)
    clf.set_params(readout_start=1.0)  # the last step alone
    assert_allclose(clf.predict_proba(X), [[0.485, 0.515]], rtol=1e-12)


@pytest.mark.parametrize("readout_start", [0.0, 0.5, 0.8])
def test_mean_readout_equals_mean_of_prefix_predictions(readout_start):
    """The reference: P(y | u_1..t) is the last-step prediction of the prefix
    u_1..t (filtering is causal), averaged in log by hand."""
    X, y = _signal_data()
    clf = _fit_quiet(IOHMMClassifier(n_states=3, features="raw", n_init=1,
                                     max_iter=30,
                                     random_state=0), X, y)
    expected = []
    for x in X:
        T = len(x)
        first = int(np.floor(readout_start * (T - 1)))
        steps = clf.predict_proba([x[:t] for t in range(first + 1, T + 1)])
        score = np.log(steps).mean(axis=0)
        expected.append(np.exp(score - np.log(np.exp(score).sum())))
    expected = np.array(expected)
    clf.set_params(readout="mean", readout_start=readout_start)  # no refit needed
    for form in (X, to_padded(X)):
        proba = clf.predict_proba(form)
        assert_allclose(proba, expected, rtol=1e-10)
        assert_allclose(clf.predict_log_proba(form), np.log(expected), rtol=1e-10)
        pred = clf.predict(form)
        assert_array_equal(pred, clf.classes_[np.argmax(expected, axis=1)])
        assert clf.score(form, y) == np.mean(pred == y)
    w = np.arange(len(X)) % 3
    assert_allclose(clf.score(X, y, sample_weight=w),
                    np.average(clf.predict(X) == y, weights=w))


def _explicit_prefixes(X, y, w, k):
    """Every prefix of length ceil(j T / k), j = 1..k, with weight w / k."""
    Xp, yp, wp = [], [], []
    for x, label, weight in zip(X, y, w, strict=True):
        for j in range(1, k + 1):
            Xp.append(x[: int(np.ceil(j * len(x) / k))])
            yp.append(label)
            wp.append(weight / k)
    return Xp, np.array(yp), np.array(wp)


def test_prefix_training_equals_fitting_explicit_prefixes():
    X, y = _signal_data(1)
    X = [x for x in X if len(x) >= 3]  # three distinct prefixes each
    y = np.arange(len(X)) % 2
    w = np.random.default_rng(0).uniform(0.5, 2.0, size=len(X))
    kw = dict(n_states=3, features="raw", n_init=2, max_iter=40, random_state=3)
    ours = _fit_quiet(IOHMMClassifier(n_prefixes=3, **kw), X, y, sample_weight=w)
    ref = _fit_quiet(IOHMMClassifier(**kw), *_explicit_prefixes(X, y, w, 3)[:2],
                     sample_weight=_explicit_prefixes(X, y, w, 3)[2])
    # The same problem from the same start, but not bit for bit: w / 3 and
    # w * (1 / 3) may differ in the last bit, and the 40 iterations (not
    # converged) carry one-ulp changes of the weights into relative changes of
    # up to 1e-7 in the emission coefficients and 3e-9 in the transition ones
    # (measured with random one-ulp changes of the explicit weights, with NumPy
    # 1.24 and 2.4; how far a change carries depends on the rounding of NumPy's
    # sums: this one 5.5e-8 with NumPy 1.24, 2.3e-9 with 2.4).
    assert_allclose(ours.transition_coef_, ref.transition_coef_, rtol=1e-8)
    assert_allclose(ours.emission_coef_, ref.emission_coef_, rtol=1e-6)
    assert_allclose(ours.log_likelihood_, ref.log_likelihood_, rtol=1e-10)


def test_prefix_training_merges_equal_prefixes_of_short_sequences():
    """Length 1 and 2 sequences with 4 prefixes: equal prefixes merged, their
    weights added; the same optimum as the duplicated explicit prefixes."""
    X, y = _signal_data(2)
    X = [x[:2] if s % 3 else x[:1] for s, x in enumerate(X)]
    w = np.ones(len(X))
    kw = dict(n_states=2, features="raw", n_init=1, max_iter=200, tol=1e-10,
              random_state=0)
    ours = _fit_quiet(IOHMMClassifier(n_prefixes=4, **kw), X, y)
    Xp, yp, wp = _explicit_prefixes(X, y, w, 4)
    # The objective is that of the duplicated prefixes: exactly, at the solution,
    assert_allclose(ours.log_likelihood_, wp @ ours.score_samples(Xp, yp),
                    rtol=1e-12)
    # and fitting them from the same start reaches the same optimum (to the
    # precision of the optimiser: the sums are taken in another order).
    ref = _fit_quiet(IOHMMClassifier(**kw), Xp, yp, sample_weight=wp)
    assert_allclose(ours.objective_, ref.objective_, rtol=1e-4)
    assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-3)


def test_readout_options_need_sequence_level_labels():
    X, y = _signal_data()
    y_steps = [np.full(len(x), label) for x, label in zip(X, y, strict=True)]
    clf = _fit_quiet(IOHMMClassifier(n_states=2, n_init=1, max_iter=10,
                                     random_state=0), X, y_steps)
    before = clf.transition_coef_.copy()
    for params in ({"readout": "mean"}, {"n_prefixes": 2}):
        with pytest.raises(ValueError, match="sequence-level labels"):
            clf.set_params(**params).fit(X, y_steps)
        assert_array_equal(clf.transition_coef_, before)  # the failed fit left it
        clf.set_params(readout="last", n_prefixes=1)
    clf.set_params(readout="mean")
    with pytest.raises(ValueError, match="fitted on step-level labels"):
        clf.predict(X)
    for params, match in (({"readout": "first"}, "readout"),
                          ({"readout_start": 1.5}, "readout_start"),
                          ({"n_prefixes": 0}, "n_prefixes")):
        with pytest.raises(ValueError, match=match):
            IOHMMClassifier(**params).fit(X, y)


def test_readout_switched_after_fit_is_checked_at_predict():
    """readout and readout_start may be set after fit (they only change the
    prediction): a bad value is refused by name at predict, not read as "last"
    or failing inside numpy."""
    X, y = _signal_data()
    clf = _fit_quiet(IOHMMClassifier(n_states=2, n_init=1, max_iter=10,
                                     random_state=0), X, y)
    for params, match in (({"readout": "bogus"}, "'readout' parameter"),
                          ({"readout": "mean", "readout_start": 2.0},
                           "'readout_start' parameter"),
                          ({"readout": "mean", "readout_start": None},
                           "'readout_start' parameter"),
                          ({"readout": "mean", "readout_start": True},
                           "'readout_start' parameter .* not a bool")):
        clf.set_params(**params)
        for method in (clf.predict, clf.predict_proba):
            with pytest.raises(ValueError, match=match):
                method(X)
        clf.set_params(readout="last", readout_start=0.5)


def test_soft_voting_classifier_over_restarts():
    """The documented recipe: sklearn's VotingClassifier takes sequences as they
    are, and its soft vote is the mean of the members' probabilities."""
    X, y = _signal_data(3)
    y = np.where(y == 1, "up", "down")
    members = [(f"seed{k}", IOHMMClassifier(n_states=2, n_init=1, max_iter=30,
                                            readout="mean", random_state=k))
               for k in range(3)]
    vote = _fit_quiet(VotingClassifier(members, voting="soft"), X, y)
    alone = [_fit_quiet(clone(m), X, y) for _, m in members]
    for form in (X, to_padded(X)):
        mean = np.mean([m.predict_proba(form) for m in alone], axis=0)
        assert_allclose(vote.predict_proba(form), mean, rtol=1e-12)
        assert_array_equal(vote.predict(form), alone[0].classes_[mean.argmax(1)])


def test_to_automaton_refuses_models_that_do_not_read_symbols():
    X, y = make_tomita(4, 30, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        shape = IOHMMClassifier(2, emission="state", features="shape", n_init=1,
                                max_iter=2, random_state=0).fit(X, y)
        real = [x * 0.5 + 0.25 for x in X]  # raw, but not one-hot symbols
        raw_real = IOHMMClassifier(2, emission="state", features="raw", n_init=1,
                                   max_iter=2, random_state=0).fit(real, y)
    with pytest.raises(ValueError, match="features_='shape'"):
        shape.to_automaton(min_proba=0.0)
    with pytest.raises(ValueError, match="not one-hot symbols"):
        raw_real.to_automaton(min_proba=0.0)


@pytest.mark.parametrize("class_weight, match", [
    ({0: -1, 1: 1}, "class 0 is -1"),
    ({0: np.nan, 1: 1}, "class 0 is nan"),
    ({0: 1, 1: np.inf}, "class 1 is inf"),
    ({0: 1, 1: 1e308}, "class 1 is 1e\\+308"),
    ({0: 0, 1: 0}, "weight 0"),
    ({0: 1, 2: 1}, "names [2], which are not classes, and not the classes [1]"),
])
def test_bad_class_weights_are_named(class_weight, match):
    X, y = make_tomita(4, 12, random_state=0)
    clf = IOHMMClassifier(2, n_init=1, max_iter=1, class_weight=class_weight)
    with pytest.raises(ValueError, match=re.escape(match) if "[" in match else match):
        clf.fit(X, y)


def test_class_weights_are_judged_apart_from_the_scale_of_sample_weight():
    """Large sample weights fit (the objective is normalised by their sum);
    class weights of 1 and 2 with them fit as the same weights given as
    sample_weight, not refused as overflowing."""
    X, y = make_tomita(4, 12, random_state=0)
    y = np.asarray(y)
    big = np.full(len(X), 1e200)
    params = dict(n_states=2, features="raw", n_init=1, max_iter=3, random_state=0)
    by_class = _fit_quiet(IOHMMClassifier(class_weight={0: 1.0, 1: 2.0}, **params),
                          X, y, sample_weight=big)
    by_sample = _fit_quiet(IOHMMClassifier(**params), X, y,
                           sample_weight=big * np.where(y == 1, 2.0, 1.0))
    assert_allclose(by_class.predict_proba(X), by_sample.predict_proba(X),
                    rtol=0, atol=1e-12)


@pytest.mark.parametrize("value", ["a", "2", None, [1, 2], 1 + 2j])
def test_class_weights_that_are_not_numbers_are_named(value):
    X, y = make_tomita(4, 12, random_state=0)
    clf = IOHMMClassifier(2, n_init=1, max_iter=1, class_weight={1: value})
    with pytest.raises(TypeError, match=re.escape(
            f"class_weight for class 1 is {value!r}; class weights must be real")):
        clf.fit(X, y)


@pytest.mark.parametrize("n_prefixes", [1, 3])
def test_class_weight_fits_as_the_same_sample_weight(n_prefixes):
    """With one label per sequence a class weight multiplies the sequence's
    weight in the likelihood exactly as the same sample_weight does (and in
    the prefixes' shares); only the parts that count sequences (the shape
    representation, alpha="auto"'s leave-one-out) tell a sample weight,
    which counts copies, from a class weight, which counts none."""
    rng = np.random.default_rng(3)
    X = [np.cumsum(rng.normal(size=(rng.integers(8, 16), 2)), axis=0)
         * (1 + k % 3) for k in range(30)]
    y = np.array(["a", "b", "c"] * 10)
    params = dict(n_states=2, n_init=1, max_iter=20, n_prefixes=n_prefixes,
                  features="raw", alpha=0.1, random_state=0)
    by_class = _fit_quiet(IOHMMClassifier(
        class_weight={"a": 2.0, "b": 1.0, "c": 1.0}, **params), X, y)
    by_sample = _fit_quiet(IOHMMClassifier(**params), X, y,
                           sample_weight=np.where(y == "a", 2.0, 1.0))
    assert_allclose(by_class.predict_proba(X), by_sample.predict_proba(X),
                    rtol=0, atol=1e-12)


def _repeated(X, y, counts):
    return ([x for x, k in zip(X, counts, strict=True) for _ in range(k)],
            np.repeat(y, counts))


@pytest.mark.parametrize("class_weight", ["balanced", {0: 3.0, 1: 1.0, 2: 0.5}])
@pytest.mark.parametrize("n_prefixes", [1, 3])
def test_integer_sample_weight_equals_repetition_with_class_weight(
        class_weight, n_prefixes):
    # A class weight multiplied the weight of a sequence also where a weight
    # counts copies (the shape representation's sequences, the leave-one-out
    # of alpha="auto" and of the supervised axes): a sample weight of 2 with
    # a class weight of 0.5 counted as one copy, where repeating the sequence
    # gives two of weight 0.5. predict_proba differed by up to 0.94.
    rng = np.random.RandomState(0)
    X = [rng.normal(size=(rng.randint(3, 7), 2)) for _ in range(12)]
    y = np.array([0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 2, 2])
    counts = np.array([1, 2, 3, 1, 3, 2, 1, 2, 1, 3, 2, 1])
    params = dict(n_states=2, n_init=1, max_iter=300, tol=1e-10,
                  class_weight=class_weight, n_prefixes=n_prefixes, random_state=0)
    weighted = _fit_quiet(IOHMMClassifier(**params), X, y, sample_weight=counts)
    repeated = _fit_quiet(IOHMMClassifier(**params), *_repeated(X, y, counts))
    assert weighted.features_ == repeated.features_ == "shape"
    assert_allclose(weighted.alpha_, repeated.alpha_, rtol=1e-9)
    X_new = [rng.normal(size=(5, 2)) for _ in range(5)]
    assert_allclose(weighted.predict_proba(X_new), repeated.predict_proba(X_new),
                    rtol=0, atol=1e-6)


def test_unseen_labels_are_named_once_with_where_and_the_classes():
    X, y = _signal_data()
    clf = _fit_quiet(IOHMMClassifier(n_states=2, n_init=1, max_iter=5,
                                     random_state=0), X, y)
    y_new = np.r_[y[:3], [7] * (len(y) - 3)]
    msg = "not seen in fit: [7] (the first at sequence 3); the classes are [0, 1]."
    for method in (clf.score_samples, clf.decode):
        with pytest.raises(ValueError, match=re.escape(msg)):
            method(X, y_new)


def test_class_weight_keys_are_the_labels_as_given():
    """String labels that read as integers are weighed by their own keys
    (scikit-learn's compute_class_weight refuses them), and a key that names no
    class is ignored when every class is named (a fold may lack a class)."""
    X, y = _signal_data()
    labels = np.where(y == 1, "1", "2")
    params = dict(n_states=2, features="raw", n_init=1, max_iter=5,
                  random_state=0)
    ref = _fit_quiet(IOHMMClassifier(**params), X, labels,
                     sample_weight=np.where(labels == "1", 3.0, 1.0))
    for class_weight in ({"1": 3.0, "2": 1.0}, {"1": 3.0}, {1: 3.0, 2: 1.0},
                         {"1": 3.0, "2": 1.0, "7": 5.0}):
        clf = _fit_quiet(IOHMMClassifier(class_weight=class_weight, **params),
                         X, labels)
        assert_array_equal(clf.predict_proba(X), ref.predict_proba(X))


def test_balanced_class_weight_refuses_a_class_with_zero_total_weight():
    X, y = make_tomita(4, 12, random_state=0)
    y = np.asarray(y)
    weight = (y == y[0]).astype(float)  # every sequence of the other class: 0
    clf = IOHMMClassifier(2, n_init=1, max_iter=1, class_weight="balanced")
    with pytest.raises(ValueError, match="'balanced' cannot weigh class"):
        clf.fit(X, y, sample_weight=weight)


@pytest.mark.parametrize("n_prefixes", [1, 2])
def test_a_class_of_weight_zero_is_read_out_as_if_absent(n_prefixes):
    """A class whose sequences all weigh 0 (class_weight 0) tells the shape
    representation's ridge read-out and alpha="auto" nothing: both equal those
    of the fit without its sequences (the read-out's columns were all dropped,
    one of them being constant)."""
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 30)
    X = [rng.normal(size=(n, 2)) + 0.5 * c
         for n, c in zip(rng.integers(8, 15, 30), y, strict=True)]
    kept = y != 2
    params = dict(n_init=1, max_iter=1, random_state=0, n_prefixes=n_prefixes,
                  features=ShapeFeatures(n_indicators=200))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        zero = IOHMMClassifier(2, class_weight={2: 0}, **params).fit(X, y)
        gone = IOHMMClassifier(2, **params).fit(
            [x for x, k in zip(X, kept, strict=True) if k], y[kept])
    assert zero.features_ == gone.features_ == "shape"
    assert zero.alpha_ == gone.alpha_
    seqs = check_sequences(X)
    U_zero, U_gone = (m.representation_.inputs(seqs, seqs.last_steps)[1]
                      for m in (zero, gone))
    assert U_zero.shape == U_gone.shape
    assert_allclose(U_zero, U_gone, rtol=1e-9, atol=1e-9)
