"""Common input mistakes (issue 16): each is caught, warned about, or documented.

* A model fitted on multi-step sequences that receives a 2-D table reads it as
  one-step sequences: it warns, and says how to pass one sequence.
* A list of equal-length Python lists is a table (as scikit-learn reads
  ``X.tolist()``), while a list of 1-D arrays is a list of univariate sequences.
* A 2-D y as wide as every sequence is long is refused by the classifier and the
  regressor alike (step-level or multi-output?).
* Sample weights tiny against ``alpha`` are refused, naming the real cause.
"""

import re
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from skseq import (
    DiscretizedRNNClassifier,
    HierarchicalIOHMM,
    IOHMMClassifier,
    IOHMMRegressor,
)
from skseq._data import check_sample_weight, check_sequences, check_targets
from skseq.preprocessing import SequenceFeatures, Stepwise, WindowMean

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

FAST = {"n_init": 1, "max_iter": 5, "random_state": 0}
ESTIMATORS = {
    "classifier": lambda: IOHMMClassifier(n_states=2, **FAST),
    "regressor": lambda: IOHMMRegressor(n_states=2, **FAST),
    "hierarchical": lambda: HierarchicalIOHMM(n_states=(2, 2), **FAST),
    "rnn": lambda: DiscretizedRNNClassifier(n_hidden=3, **FAST),
}
TRANSFORMERS = {
    "Stepwise": lambda: Stepwise(StandardScaler()),
    "WindowMean": lambda: WindowMean(window=2),
    "SequenceFeatures": lambda: SequenceFeatures(),
}


def _sequences(n=8, length=6, n_features=2, seed=0):
    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(length, n_features)) for _ in range(n)]
    y_class = np.arange(n) % 2
    y_reg = np.array([x[:, 0].sum() for x in X])
    return X, y_class, y_reg


def _fit(name, X, y_class, y_reg):
    est = ESTIMATORS[name]()
    return est.fit(X, y_reg if name == "regressor" else y_class)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_a_2d_table_after_a_multistep_fit_warns_and_says_how_to_pass_one_sequence(
        name):
    X, y_class, y_reg = _sequences()
    est = _fit(name, X, y_class, y_reg)
    one = X[0]  # one (6, 2) sequence, forgotten in a list
    message = (f"X is a 2-D table (6 rows of 2 features): each row is read as a "
               f"sequence of ONE step, but this {type(est).__name__} was fitted on "
               "sequences of up to 6 steps. For one sequence of 6 steps pass [X]")
    with pytest.warns(UserWarning, match=re.escape(message)) as record:
        pred = est.predict(one)
    assert record[0].filename == __file__  # points at the caller's line
    # What it does is what it says: six one-step sequences ...
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_array_equal(pred, est.predict(one[:, None, :]))
        # ... and the advice gives one prediction for the sequence.
        assert np.shape(est.predict([one]))[0] == 1


@pytest.mark.parametrize("name", TRANSFORMERS)
def test_transformers_warn_the_same_way(name):
    X, _, _ = _sequences()
    tr = TRANSFORMERS[name]().fit(X)
    with pytest.warns(UserWarning, match=re.escape(
            f"this {type(tr).__name__} was fitted on sequences of up to 6 steps. "
            "For one sequence of 6 steps pass [X]")):
        tr.transform(X[0])


@pytest.mark.parametrize("name", ESTIMATORS)
def test_no_warning_for_models_fitted_on_one_step_rows(name):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(10, 3))
    y_class, y_reg = np.arange(10) % 2, X[:, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = _fit(name, X, y_class, y_reg)
        est.predict(X[:4])
        est.score(X, y_reg if name == "regressor" else y_class)


def test_no_warning_for_sequences_in_a_list_or_padded():
    X, y_class, _ = _sequences()
    est = ESTIMATORS["classifier"]().fit(X, y_class)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        est.predict(X[:2])
        est.predict(np.stack(X[:2]))
        est.predict_state_proba([X[0]])


def test_a_univariate_table_gets_the_fix_in_the_feature_count_error():
    # A model fitted on univariate sequences of 6 steps, then the archive's
    # (n_series, length) table: 6 "features" instead of 1.
    X, y_class, _ = _sequences(n_features=1)
    est = ESTIMATORS["classifier"]().fit(X, y_class)
    table = np.stack(X)[:, :, 0]
    with pytest.raises(ValueError, match=re.escape(
            "X has 6 features, but IOHMMClassifier is expecting 1 features as "
            "input. X is a 2-D table (8 rows of 6 features)")) as info:
        est.predict(table)
    assert "For 8 univariate series of 6 steps pass X[:, :, None]" in str(info.value)
    assert_array_equal(est.predict(table[:, :, None]), est.predict(X))


def test_a_list_of_python_lists_is_a_table_but_a_list_of_arrays_is_sequences():
    rows = [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    table = check_sequences(rows)
    assert table.form == "rows" and table.n_features == 3
    assert_array_equal(table.lengths, [1, 1])
    univariate = check_sequences([np.array(r) for r in rows])
    assert univariate.form == "list" and univariate.n_features == 1
    assert_array_equal(univariate.lengths, [3, 3])
    # Fitted on univariate sequences, the lists are a table of 3 features: the
    # error says so and gives the fix.
    X, y_class, _ = _sequences(n=4, length=3, n_features=1)
    est = ESTIMATORS["classifier"]().fit(X, y_class)
    with pytest.raises(ValueError, match="For 2 univariate series of 3 steps"):
        est.predict(rows)
    assert est.predict([np.array(r) for r in rows]).shape == (2,)


# -- one rule for a 2-D y ---------------------------------------------------------
@pytest.mark.parametrize("task, make", [
    ("classification", ESTIMATORS["classifier"]),
    ("regression", ESTIMATORS["regressor"]),
    ("regression", lambda: HierarchicalIOHMM(n_states=(2, 2), task="regression",
                                             **FAST)),
])
def test_a_2d_y_as_wide_as_the_sequences_are_long_is_refused(task, make):
    X, _, _ = _sequences(n=8, length=6)
    y = np.random.default_rng(0).integers(0, 2, size=(8, 6))
    start = ("y has shape (8, 6) and every sequence of X has 6 steps: a 2-D y of "
             "that width is ambiguous (one target per step, or 6 targets per "
             "sequence?), so skseq refuses to guess. For step-level targets pass "
             "list(y)")
    with pytest.raises(ValueError, match=re.escape(start)) as info:
        make().fit(X, y)
    assert ("y[:, :, None]" in str(info.value)) == (task == "regression")
    with pytest.raises(ValueError, match=re.escape(start)):
        check_targets(y, check_sequences(X), task=task)
    make().fit(X, list(y))  # the advice works
    if task == "regression":
        make().fit(X, y[:, :, None].astype(float))


def test_the_advice_for_sequence_level_outputs_gives_the_same_fit():
    # Width 3 != length 4 is not ambiguous: compare the documented workaround
    # (last step supervised explicitly) with genuine multi-output targets.
    rng = np.random.default_rng(2)
    X = [rng.normal(size=(4, 2)) for _ in range(10)]
    Y = rng.normal(size=(10, 3))
    Y_steps = np.full((10, 4, 3), np.nan)
    Y_steps[:, -1] = Y
    sequence_level = ESTIMATORS["regressor"]().fit(X, Y)
    last_step = ESTIMATORS["regressor"]().fit(X, Y_steps)
    assert not sequence_level.step_level_ and last_step.step_level_
    assert_allclose(last_step.predict(np.stack(X))[:, -1],
                    sequence_level.predict(X), rtol=1e-10, atol=1e-12)


def test_2d_y_stays_sequence_level_when_not_ambiguous():
    X, _, _ = _sequences(n=8, length=6)
    Y = np.random.default_rng(0).normal(size=(8, 2))
    assert ESTIMATORS["regressor"]().fit(X, Y).predict(X).shape == (8, 2)
    ragged = [x[: 6 - (i % 2)] for i, x in enumerate(X)]  # lengths 6 and 5
    assert ESTIMATORS["regressor"]().fit(ragged, np.ones((8, 6)) * np.arange(
        8)[:, None]).predict(ragged).shape == (8, 6)
    # One-step rows with a 2-D y: scikit-learn's multi-output meaning.
    rows = np.random.default_rng(1).normal(size=(8, 3))
    assert ESTIMATORS["regressor"]().fit(rows, Y).predict(rows).shape == (8, 2)
    with pytest.raises(ValueError, match=r"y should be 1-D \(one label per"):
        ESTIMATORS["classifier"]().fit(X, np.zeros((8, 2)))


# -- sample weights against alpha --------------------------------------------------
def test_tiny_weights_against_alpha_name_the_real_cause():
    with pytest.raises(ValueError, match=re.escape(
            "sample_weight sums to 2e-199 while alpha=0.01: the L2 penalty is "
            "weighed against the log-likelihood summed over the sequences with "
            "these weights, so it outweighs the data by a factor 5e+196")):
        check_sample_weight(np.full(20, 1e-200), 20, alpha=0.01)
    # alpha=0: only the weights' ratios matter, any scale is fine.
    assert_array_equal(check_sample_weight(np.full(20, 1e-200), 20, alpha=0.0),
                       np.full(20, 1e-200))
    # At 1e-90 the penalty still loses to the limit by 8 orders of magnitude.
    check_sample_weight(np.full(20, 1e-90), 20, alpha=0.01)
    # A huge alpha with unit weights is the same problem.
    with pytest.raises(ValueError, match=re.escape(
            "sums to 20 (1 per sequence, the default) while alpha=1e+102")):
        check_sample_weight(None, 20, alpha=1e102)


@pytest.mark.parametrize("Estimator", [IOHMMClassifier, IOHMMRegressor,
                                       HierarchicalIOHMM])
def test_tiny_weights_are_refused_by_every_iohmm_with_the_real_cause(Estimator):
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(4, 2)) for _ in range(12)]
    y = (np.arange(12) % 2 if Estimator is not IOHMMRegressor
         else rng.normal(size=12))
    est = Estimator(n_init=1, max_iter=5)
    with pytest.raises(ValueError, match="outweighs the data by a factor"):
        est.fit(X, y, sample_weight=np.full(12, 1e-200))
    assert not hasattr(est, "n_features_in_")  # nothing recorded by a failed fit


def _walks(shape, seed=0):
    return np.cumsum(np.random.default_rng(seed).normal(size=shape), axis=-1)


@pytest.mark.parametrize("make, says", [
    (lambda X: X, "from_channels_first(X) (or X[:, :, None])"),  # smooth columns
    (lambda X: X[:6], "6 univariate series of 40 steps"),  # more columns than rows
    (lambda X: X.tolist(), "[np.asarray(s) for s in X]"),
])
def test_a_table_of_series_warns_at_fit_and_says_how_to_pass_it(make, says):
    X = make(_walks((30, 40)))
    with pytest.warns(UserWarning, match=re.escape(says)):
        IOHMMClassifier(2, n_init=1, max_iter=3).fit(X, np.arange(len(X)) % 2)


def test_channels_first_array_warns_at_fit():
    X = _walks((10, 3, 40))
    with pytest.warns(UserWarning, match=re.escape("X.transpose(0, 2, 1)")):
        IOHMMClassifier(2, n_init=1, max_iter=3).fit(X, np.arange(10) % 2)


def test_unambiguous_layouts_fit_silently():
    """One-step rows said explicitly, tables of unrelated columns, narrow
    lists of lists and sequences with more steps than features."""
    rng = np.random.default_rng(0)
    y = np.arange(30) % 2
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        for X in (_walks((30, 40))[:, None, :], rng.normal(size=(30, 12)),
                  rng.normal(size=(30, 5)).tolist(), _walks((30, 40, 3), 1)):
            IOHMMClassifier(2, n_init=1, max_iter=3).fit(X, y)
