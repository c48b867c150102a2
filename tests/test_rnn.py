import itertools
import math
import pickle
import re
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

from skseq._data import check_sequences
from skseq._read_machine import with_start
from skseq._rnn_net import Lockstep, SecondOrderNet
from skseq.automata import DFA
from skseq.datasets import (
    make_tomita,
    make_vending_machine,
    one_hot,
    to_strings,
    tomita_accepts,
)
from skseq.rnn import DiscretizedRNNClassifier

BINARY = ["0", "1"]
# Hand-built minimal machines; state 0 is the start state.
MINIMAL_DFA = {
    # Tomita 4, no "000": 0, 1, 2 trailing zeros, then a rejecting sink.
    4: DFA(4, BINARY, [[1, 0], [2, 0], [3, 0], [3, 3]], 0, [0, 1, 2]),
    # Tomita 5, even 0s and even 1s: states (parity of 0s, parity of 1s) =
    # (e, e), (o, e), (e, o), (o, o); "0" flips the first, "1" the second.
    5: DFA(4, BINARY, [[1, 2], [0, 3], [3, 0], [2, 1]], 0, [0]),
}


def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


def lockstep_gradient(net, W, b, X, d_final):
    batch = Lockstep(check_sequences(X))
    H = net.forward(W, b, batch)
    return H[batch.final], net.gradient(W, batch, H, d_final)


def test_pseudo_gradient_matches_hand_worked_example():
    # Two units, two symbols, the string "01", E = 1/2 (h_2,0 - T)^2 with T = 1.
    W = np.array([[[0.5, -1.0], [1.5, 0.3]],
                  [[-2.0, 0.7], [1.0, -0.4]]])  # W[i, j, k]
    b = np.array([0.1, -0.2])
    high, low, T = 0.8, 0.2, 1.0
    S0 = [high, low]  # indicator unit on (paper 003, §2)

    # Forward, step 1 reads "0" (k = 0), step 2 reads "1" (k = 1).
    h1 = [sigmoid(W[i, 0, 0] * S0[0] + W[i, 1, 0] * S0[1] + b[i]) for i in (0, 1)]
    S1 = [high if h >= 0.5 else low for h in h1]
    h2 = [sigmoid(W[i, 0, 1] * S1[0] + W[i, 1, 1] * S1[1] + b[i]) for i in (0, 1)]
    assert S1 == [high, low]  # unit 0 on (a = 0.8), unit 1 off (a = -1.6)

    # Backward by hand. dE/da2_0 = (h2_0 - T) f'(a2_0); unit 1 is not an output.
    delta2 = [(h2[0] - T) * h2[0] * (1 - h2[0]), 0.0]
    # Pseudo-gradient (§4): dS1_j/da1_j := f'(a1_j) = h1_j (1 - h1_j).
    delta1 = [sum(delta2[i] * W[i, j, 1] for i in (0, 1)) * h1[j] * (1 - h1[j])
              for j in (0, 1)]
    expected_W = np.zeros_like(W)
    for i in (0, 1):
        for j in (0, 1):
            expected_W[i, j, 1] = delta2[i] * S1[j]
            expected_W[i, j, 0] = delta1[i] * S0[j]
    expected_b = np.array(delta1) + np.array(delta2)

    net = SecondOrderNet(2, True, high, low)
    d_final = np.array([[h2[0] - T, 0.0]])
    out, (gW, gb) = lockstep_gradient(net, W, b, one_hot(["01"]), d_final)
    assert_allclose(out[0], h2, rtol=1e-12)
    assert_allclose(gW, expected_W, rtol=1e-12, atol=1e-15)
    assert_allclose(gb, expected_b, rtol=1e-12)
    # The discretization's true derivative is zero: the step-1 weights only
    # get a gradient through the pseudo-gradient.
    assert np.abs(gW[:, :, 0]).max() > 1e-3


def rtrl_pseudo_gradient(W, b, strings, d_final, high, low):
    """The paper's forward form (§4, after Williams & Zipser), one string at a time.

    p[k, i, j, n] = d~h_k / dw_ij^n follows
    p_t = f'(a_t) (sum_l w_kl^{x_t} p_{t-1}[l] + delta_ki delta_n,x_t S_{t-1,j}),
    with the bias as the extra input column n = n_symbols (always 1).
    """
    n_hidden, _, n_symbols = W.shape
    gW = np.zeros_like(W)
    gb = np.zeros_like(b)
    for string, d in zip(strings, d_final, strict=True):
        S = np.full(n_hidden, low)
        S[0] = high
        p = np.zeros((n_hidden, n_hidden, n_hidden, n_symbols + 1))
        for symbol in string:
            x = int(symbol)
            h = 1.0 / (1.0 + np.exp(-(W[:, :, x] @ S + b)))
            direct = np.zeros_like(p)
            for k in range(n_hidden):
                direct[k, k, :, x] = S
                direct[k, k, 0, n_symbols] = 1.0  # bias of unit k
            p = (h * (1 - h))[:, None, None, None] * (
                np.einsum("kl,lijn->kijn", W[:, :, x], p) + direct
            )
            S = np.where(h >= 0.5, high, low)
        total = np.einsum("k,kijn->ijn", d, p)
        gW += total[:, :, :n_symbols]
        gb += total[:, 0, n_symbols]
    return gW, gb


def test_lockstep_backprop_matches_forward_rtrl_on_ragged_batch():
    rng = np.random.RandomState(0)
    strings = ["0110100", "1", "001", "1110011010", "01", "0000000"]
    W = rng.uniform(-2, 2, size=(3, 3, 2))
    b = rng.uniform(-1, 1, size=3)
    d_final = rng.normal(size=(len(strings), 3))
    net = SecondOrderNet(3, True, 0.8, 0.2)
    _, (gW, gb) = lockstep_gradient(net, W, b, one_hot(strings), d_final)
    ref_W, ref_b = rtrl_pseudo_gradient(W, b, strings, d_final, 0.8, 0.2)
    assert_allclose(gW, ref_W, rtol=1e-10, atol=1e-14)
    assert_allclose(gb, ref_b, rtol=1e-10, atol=1e-14)


def test_analog_gradient_matches_central_differences():
    rng = np.random.RandomState(1)
    X = [rng.normal(size=(n, 3)) for n in (4, 1, 6, 2, 6)]
    T = rng.uniform(size=(len(X), 2))
    weight = rng.uniform(0.5, 2.0, size=len(X))
    net = SecondOrderNet(4, False, 0.8, 0.2)
    batch = Lockstep(check_sequences(X))

    def loss(W, b):
        out = net.forward(W, b, batch)[batch.final, :2]
        return 0.5 * weight @ np.square(out - T).sum(axis=1)

    W = rng.normal(size=(4, 4, 3))
    b = rng.normal(size=4)
    H = net.forward(W, b, batch)
    d_final = np.zeros((len(X), 4))
    d_final[:, :2] = weight[:, None] * (H[batch.final, :2] - T)
    gW, gb = net.gradient(W, batch, H, d_final)

    eps = 1e-6
    num_W = np.zeros_like(W)
    for idx in np.ndindex(W.shape):
        E = np.zeros_like(W)
        E[idx] = eps
        num_W[idx] = (loss(W + E, b) - loss(W - E, b)) / (2 * eps)
    num_b = np.array([(loss(W, b + eps * e) - loss(W, b - eps * e)) / (2 * eps)
                      for e in np.eye(4)])
    assert_allclose(gW, num_W, rtol=1e-6, atol=1e-9)
    assert_allclose(gb, num_b, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("grammar", [4, 5])
def test_learns_tomita_and_is_exact_on_long_strings(grammar):
    X, y = make_tomita(grammar, 200, max_length=15, random_state=0)
    clf = DiscretizedRNNClassifier(random_state=0).fit(X, y)
    assert clf.converged_
    assert clf.score(X, y) == 1.0

    X_long, y_long, strings = make_tomita(
        grammar, 200, min_length=100, max_length=200, random_state=1,
        return_strings=True,
    )
    assert_array_equal(clf.predict(X_long), y_long)

    dfa = clf.extract_automaton()
    # The machine read off the net predicts exactly like the net.
    assert_array_equal(dfa.predict(X_long), clf.predict(X_long))
    minimal = dfa.minimize()
    assert minimal.n_states == 4
    assert minimal.is_equivalent(MINIMAL_DFA[grammar])
    assert all(
        minimal.accepts([int(c) for c in s]) == tomita_accepts(grammar, s)
        for s in strings[:20]
    )


def test_analog_net_trains_and_extract_automaton_refuses_it():
    X, y = make_tomita(4, 200, max_length=15, random_state=0)
    clf = DiscretizedRNNClassifier(discretize=False, random_state=0).fit(X, y)
    assert clf.converged_
    assert clf.score(X, y) == 1.0
    with pytest.raises(ValueError, match="discretize=True"):
        clf.extract_automaton()


def test_stops_at_zero_training_error():
    X, y = make_tomita(4, 100, max_length=10, random_state=2)
    clf = DiscretizedRNNClassifier(n_init=1, random_state=2).fit(X, y)
    assert clf.converged_
    assert len(clf.loss_curve_) == clf.n_iter_ + 1
    # One epoch less has not reached zero error (else training would have stopped).
    early = clone(clf).set_params(max_iter=clf.n_iter_ - 1)
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        early.fit(X, y)
    assert early.score(X, y) < 1.0


def test_tol_is_the_papers_analog_criterion():
    X, y = make_tomita(1, 100, max_length=8, random_state=0)
    clf = DiscretizedRNNClassifier(discretize=False, tol=0.2, random_state=0)
    clf.fit(X, y)
    assert clf.converged_
    h = clf.predict_proba(X)[:, 1]
    assert np.abs(h - y).max() < 0.2


def test_convergence_warning_and_best_epoch_kept():
    X, y = make_tomita(5, 100, max_length=10, random_state=0)
    clf = DiscretizedRNNClassifier(max_iter=3, n_init=2, random_state=0)
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        clf.fit(X, y)
    assert not clf.converged_
    assert clf.n_iter_ == 3
    assert len(clf.loss_curve_) == 4


def test_multiclass_string_labels():
    # Class = the last symbol of a string over three symbols.
    rng = np.random.RandomState(0)
    strings = ["".join(rng.choice(list("abc"), size=n))
               for n in rng.randint(1, 8, size=60)]
    X = one_hot(strings, alphabet="abc")
    labels = np.array(["first", "second", "third"])
    y = labels[["abc".index(s[-1]) for s in strings]]
    clf = DiscretizedRNNClassifier(random_state=0).fit(X, y)
    assert_array_equal(clf.classes_, labels)
    assert clf.score(X, y) == 1.0
    proba = clf.predict_proba(X)
    assert proba.shape == (60, 3)
    assert_allclose(proba.sum(axis=1), 1.0)
    assert_array_equal(clf.classes_[proba.argmax(axis=1)], clf.predict(X))
    with pytest.raises(ValueError, match="binary"):
        clf.extract_automaton()
    with pytest.raises(ValueError, match="n_hidden=2 is too small for 3 classes"):
        clone(clf).set_params(n_hidden=2).fit(X, y)


def test_batch_equals_one_sequence_at_a_time():
    # Sequences of different lengths step together under masks; that must not
    # change anything, in any input form.
    X, y = make_tomita(5, 40, max_length=12, random_state=3)
    clf = DiscretizedRNNClassifier(discretize=False, max_iter=30, n_init=1,
                                   random_state=0)
    with pytest.warns(ConvergenceWarning):
        clf.fit(X, y)
    batch = clf.predict_proba(X)
    alone = np.vstack([clf.predict_proba([x]) for x in X])
    assert_allclose(batch, alone, rtol=1e-12)
    padded = np.full((len(X), 12, 2), np.nan)
    for s, x in enumerate(X):
        padded[s, : len(x)] = x
    assert_allclose(clf.predict_proba(padded), batch, rtol=1e-12)


def test_extract_automaton_alphabet_and_state_cap():
    X, y = make_tomita(4, 200, max_length=15, random_state=0)
    clf = DiscretizedRNNClassifier(random_state=0).fit(X, y)
    dfa = clf.extract_automaton(alphabet=["zero", "one"])
    assert dfa.alphabet == ("zero", "one")
    assert dfa.start == 0 and dfa.accepting[0]  # the empty string is legal
    assert dfa.n_states <= 2**clf.n_hidden
    with pytest.raises(ValueError, match="max_states=2"):
        clf.extract_automaton(max_states=2)


@parametrize_with_checks([
    DiscretizedRNNClassifier(max_iter=50, n_init=1),
    DiscretizedRNNClassifier(discretize=False, max_iter=50, n_init=1),
])
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_sklearn_compatible(estimator, check, monkeypatch):
    # scikit-learn skips its array-API check unless this is set.
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    check(estimator)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_hidden": 0}, "n_hidden"),
        ({"learning_rate": 0.0}, "learning_rate"),
        ({"max_iter": 0}, "max_iter"),
        ({"n_init": 0}, "n_init"),
        ({"high": 1.5}, "high"),
        ({"tol": 0.0}, "tol"),
        ({"discretize": "yes"}, "discretize"),
        ({"low": 0.8, "high": 0.2}, "low must be smaller than high"),
    ],
)
def test_bad_parameters(params, match):
    X, y = make_tomita(4, 20, random_state=0)
    with pytest.raises(ValueError, match=match):
        DiscretizedRNNClassifier(**params).fit(X, y)


def test_input_errors():
    X, y = make_tomita(4, 30, max_length=6, random_state=0)
    clf = DiscretizedRNNClassifier(max_iter=5, n_init=1, random_state=0)
    with pytest.raises(NotFittedError):
        clf.predict(X)
    X_5, _ = make_tomita(4, 30, min_length=5, max_length=5, random_state=0)
    with pytest.raises(ValueError, match="step-level labels"):
        clf.fit(X_5, [np.arange(5) % 2 for _ in X_5])
    with pytest.raises(ValueError, match="at least 2 classes"):
        clf.fit(X, np.ones(len(X)))
    with pytest.raises(ValueError, match="positive sample_weight"):
        clf.fit(X, y, sample_weight=(y == 1).astype(float))
    with pytest.warns(ConvergenceWarning):
        clf.fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features, but "
                       "DiscretizedRNNClassifier is expecting 2 features"):
        clf.predict([np.ones((4, 3))])
    with pytest.raises(ValueError, match="sequence 1 contains NaN"):
        clf.predict([np.ones((2, 2)), np.array([[1.0, np.nan]])])


def test_failed_fit_leaves_model_unchanged():
    X, y = make_tomita(4, 30, max_length=6, random_state=0)
    clf = DiscretizedRNNClassifier(max_iter=5, n_init=1, random_state=0)
    with pytest.warns(ConvergenceWarning):
        clf.fit(X, y)
    before = clf.predict_proba(X)
    coef = clf.coef_.copy()
    with pytest.raises(ValueError):
        clf.fit([np.ones((3, 5))] * 4, [0, 1, 0])  # 4 sequences, 3 labels
    assert clf.n_features_in_ == 2
    assert_array_equal(clf.coef_, coef)
    assert_array_equal(clf.predict_proba(X), before)


def test_pickle_determinism_and_thread_safe_predict():
    X, y = make_tomita(5, 100, max_length=10, random_state=0)
    X_test, _ = make_tomita(5, 100, min_length=20, max_length=60, random_state=1)
    clf = DiscretizedRNNClassifier(random_state=3).fit(X, y)
    again = DiscretizedRNNClassifier(random_state=3).fit(X, y)
    assert_array_equal(clf.coef_, again.coef_)
    assert clf.loss_curve_ == again.loss_curve_

    restored = pickle.loads(pickle.dumps(clf))
    assert_array_equal(restored.predict_proba(X_test), clf.predict_proba(X_test))
    assert restored.extract_automaton().is_equivalent(clf.extract_automaton())

    expected = clf.predict_proba(X_test)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: clf.predict_proba(X_test), range(8)))
    for result in results:
        assert_array_equal(result, expected)


def test_verbose_prints_progress(capsys):
    X, y = make_tomita(4, 30, max_length=6, random_state=0)
    with pytest.warns(ConvergenceWarning):
        DiscretizedRNNClassifier(max_iter=2, n_init=2, verbose=2,
                                 random_state=0).fit(X, y)
    out = capsys.readouterr().out
    assert out.count("Restart 1/2:") == 1 and out.count("Restart 2/2:") == 1
    assert out.count("Epoch") == 6


def test_make_vending_machine():
    X, y, strings = make_vending_machine(300, min_length=1, max_length=6,
                                         random_state=0, return_strings=True)
    cents = {"n": 5, "d": 10, "q": 25}
    assert_array_equal(y, [sum(cents[c] for c in s) > 30 for s in strings])
    assert to_strings(X, alphabet="ndq") == strings
    assert {len(s) for s in strings} == set(range(1, 7))
    assert 0 < y.mean() < 1
    X2, y2 = make_vending_machine(300, min_length=1, max_length=6, random_state=0)
    assert_array_equal(np.concatenate(X), np.concatenate(X2))
    assert_array_equal(y, y2)
    with pytest.raises(ValueError, match="min_length"):
        make_vending_machine(10, min_length=5, max_length=2)


# "contains 'ab'" over {a, b}: nothing seen, an 'a' pending, 'ab' seen.
CONTAINS_AB = DFA(3, ["a", "b"], [[1, 0], [1, 2], [2, 2]], 0, [2])


def _all_strings(alphabet, max_length):
    """Every non-empty string up to ``max_length``, shortest first."""
    return ["".join(chars) for n in range(1, max_length + 1)
            for chars in itertools.product(alphabet, repeat=n)]


def test_start_state_acceptance_is_inferred_contains_ab():
    rng = np.random.RandomState(0)
    strings = ["".join(rng.choice(list("ab"), size=n))
               for n in rng.randint(1, 11, size=200)]
    X, y = one_hot(strings, alphabet="ab"), np.array(["ab" in s for s in strings])
    clf = DiscretizedRNNClassifier(n_hidden=4, random_state=0).fit(X, y)
    assert clf.converged_
    every = _all_strings("ab", 8)  # brute force: the net has learned the language
    assert_array_equal(clf.predict(one_hot(every, alphabet="ab")),
                       ["ab" in s for s in every])

    dfa = clf.extract_automaton(alphabet=["a", "b"])
    assert not dfa.accepts([])  # the empty string does not contain 'ab'
    assert dfa.minimize().n_states == 3
    assert dfa.is_equivalent(CONTAINS_AB)
    # The paper's convention (the null string is legal) needs a 4th state.
    legal = clf.extract_automaton(alphabet=["a", "b"], accept_empty=True)
    assert legal.accepts([]) and legal.minimize().n_states == 4
    assert not legal.is_equivalent(CONTAINS_AB)
    for machine in (dfa, legal):  # both agree with the net on non-empty strings
        assert_array_equal(machine.predict(one_hot(every, alphabet="ab")),
                           clf.predict(one_hot(every, alphabet="ab")))


def test_start_state_split_when_a_string_returns_to_it():
    # State 0 (the start, indicator on) is re-entered by "1": rejecting the
    # empty string must not change "1"'s acceptance, so the start is split.
    transitions, accepting = [[1, 0], [1, 1]], [True, False]
    dfa = with_start("01", transitions, accepting, False)
    assert dfa.n_states == 3 and not dfa.accepts([])
    same = DFA(2, "01", transitions, 0, np.array(accepting))
    for s in _all_strings("01", 6):
        symbols = [int(c) for c in s]
        assert dfa.accepts(symbols) == same.accepts(symbols)
    # Not re-entered: the start state is just relabelled.
    relabelled = with_start("01", [[1, 1], [1, 1]], accepting, False)
    assert relabelled.n_states == 2 and not relabelled.accepting.any()


def test_accept_empty_is_checked():
    X, y = make_tomita(4, 30, max_length=6, random_state=0)
    with pytest.warns(ConvergenceWarning):
        clf = DiscretizedRNNClassifier(max_iter=5, n_init=1, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="accept_empty must be None, True or False"):
        clf.extract_automaton(accept_empty="yes")
    for number in (1, 0, 1.0):  # equal to True/False, but not bools
        with pytest.raises(ValueError, match="accept_empty must be None, True"):
            clf.extract_automaton(accept_empty=number)


@pytest.mark.parametrize("param, value", [
    ("n_hidden", 4), ("high", 0.9), ("low", 0.1), ("discretize", False),
])
def test_net_parameters_changed_after_fit_are_refused(param, value):
    X, y = make_tomita(4, 60, max_length=8, random_state=0)
    clf = DiscretizedRNNClassifier(n_hidden=3, max_iter=5, n_init=1, random_state=0)
    with pytest.warns(ConvergenceWarning):
        clf.fit(X, y)
    before = clf.predict_proba(X)
    clf.set_params(**{param: value})
    message = (f"{param} changed since fit (set_params without refitting): refit "
               "DiscretizedRNNClassifier before using it.")
    for call in (clf.predict, clf.predict_proba, clf.predict_log_proba,
                 clf.extract_automaton):
        with pytest.raises(ValueError, match=re.escape(message)):
            call(X) if call is not clf.extract_automaton else call()
    with pytest.raises(ValueError, match=re.escape(message)):
        clf.score(X, y)
    clf.set_params(**{param: DiscretizedRNNClassifier(n_hidden=3).get_params()[
        param]})
    assert_array_equal(clf.predict_proba(X), before)  # back as fitted: fine
    # Parameters of training alone may change freely.
    clf.set_params(learning_rate=1.0, max_iter=3, n_init=2, tol=0.1)
    assert_array_equal(clf.predict_proba(X), before)


def test_one_class_is_named_as_the_user_gave_it():
    X = [np.eye(2)[[0, 1]], np.eye(2)[[1]]]
    with pytest.raises(ValueError, match=r"only one class: 0\.0\.$"):
        DiscretizedRNNClassifier().fit(X, np.zeros(2))
    with pytest.raises(ValueError, match=r"only class 1 has any"):
        DiscretizedRNNClassifier().fit(X, [0, 1], sample_weight=[0.0, 1.0])


def test_score_refuses_labels_of_another_type_as_scikit_learn_does():
    # string classes scored against numbers: every sequence counted wrong before
    X, y = make_tomita(1, 20, max_length=5, random_state=0)
    names = np.where(y == 1, "in", "out")
    clf = DiscretizedRNNClassifier(n_hidden=2, max_iter=3, n_init=1, random_state=0)
    with pytest.warns(ConvergenceWarning):
        clf.fit(X, names)
    with pytest.raises(ValueError, match="Mix of label input types"):
        clf.score(X, y)
    weight = np.arange(1.0, 21.0)
    expected = weight @ (clf.predict(X) == names) / weight.sum()
    assert clf.score(X, names, sample_weight=weight) == pytest.approx(expected)


def test_extract_automaton_refuses_a_net_of_inputs_that_are_not_symbols():
    # +1/-1 steps (parity): the unit vector [1] is one of the two inputs, and
    # the machine silently left the other out
    X = [np.array([[1.0], [-1.0]]), np.array([[-1.0]]), np.array([[1.0]])]
    clf = DiscretizedRNNClassifier(n_hidden=2, max_iter=2, n_init=1, random_state=0)
    with pytest.warns(ConvergenceWarning):
        clf.fit(X, [1, 0, 1])
    with pytest.raises(ValueError, match="training inputs were not one-hot"):
        clf.extract_automaton()
    symbols = [np.eye(2)[[0, 1]], np.eye(2)[[1]], np.eye(2)[[0]]]
    with pytest.warns(ConvergenceWarning):
        dfa = clf.fit(symbols, [1, 0, 1]).extract_automaton(accept_empty=True)
    assert [dfa.accepts([0, 1]), dfa.accepts([1]), dfa.accepts([0])] == [
        bool(p) for p in clf.predict(symbols)]
    # a sequence of weight 0, which the net does not learn from, does not
    # count: with one of real inputs beside the symbols the net is as before
    X = [*symbols, np.full((2, 2), 0.5)]
    with pytest.warns(ConvergenceWarning):
        clf.fit(X, [1, 0, 1, 0], sample_weight=[1.0, 1.0, 1.0, 0.0])
    again = clf.extract_automaton(accept_empty=True)
    assert again.is_equivalent(dfa)
    with pytest.warns(ConvergenceWarning):
        clf.fit(X, [1, 0, 1, 0], sample_weight=[1.0, 1.0, 1.0, 0.5])
    with pytest.raises(ValueError, match="training inputs were not one-hot"):
        clf.extract_automaton()
