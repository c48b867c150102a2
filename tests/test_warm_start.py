"""warm_start=True: what a warm fit continues, and what it refuses."""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

from skseq import HierarchicalIOHMM, IOHMMClassifier, IOHMMRegressor


def _data(seed=0, n=10, length=5):
    X = np.random.default_rng(seed).normal(size=(n, length, 2))
    per_sequence = (X[:, :, 0].sum(axis=1) > 0).astype(int)
    per_step = [(x[:, 0] > 0).astype(int) for x in X]
    return X, per_sequence, per_step


@pytest.mark.parametrize("make", [
    lambda: IOHMMClassifier(2, features="raw"),
    lambda: IOHMMClassifier(2),  # "auto": shape per sequence, window per step
    lambda: IOHMMRegressor(2),
    lambda: HierarchicalIOHMM((2, 2), timescales=(3, 1), features="raw"),
])
@pytest.mark.parametrize("first", [0, 1])
def test_warm_start_refuses_a_switch_of_targets_per_sequence_and_per_step(make, first):
    # The fitted representation was chosen for (and its supervised axes read
    # from) the other kind of targets, and predict's output would change form:
    # refused by name, the model left as it was, bit for bit.
    X, per_sequence, per_step = _data()
    ys = [per_sequence.astype(float), [s.astype(float) for s in per_step]]
    model = make().set_params(n_init=1, max_iter=2, random_state=0,
                              warm_start=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, ys[first])
        before = pickle.dumps(model)
        kinds = ["one per sequence", "per step"]
        with pytest.raises(ValueError, match=(
                f"warm_start=True continues the fitted model, but the kind of "
                f"targets changed: {kinds[first]} before, {kinds[1 - first]} now")):
            model.fit(X, ys[1 - first])
        assert pickle.dumps(model) == before
        model.fit(X, ys[first])  # the same kind: continued
        assert model.n_init_ == 1 and model.step_level_ == bool(first)


def test_warm_start_refuses_other_feature_names_and_keeps_the_fitted_ones():
    # The fitted weights read the columns by position: swapped or renamed
    # columns are refused (predict refuses them too), the model left as it
    # was; arrays are read by position, as scikit-learn's warm-started fits
    # read them: warned of, the fitted names kept.
    X, y, _ = _data()
    frames = [pd.DataFrame(x, columns=["a", "b"]) for x in X]
    model = IOHMMClassifier(2, features="raw", n_init=1, max_iter=2,
                            random_state=0, warm_start=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(frames, y)
        before = pickle.dumps(model)
        for columns, now in ((["b", "a"], r"\['b', 'a'\]"),
                             ({"a": "c"}, r"\['c', 'b'\]")):
            other = [(f[columns] if isinstance(columns, list)
                      else f.rename(columns=columns)) for f in frames]
            with pytest.raises(ValueError, match=(
                    r"the feature names changed: \['a', 'b'\] before, "
                    f"{now} now")):
                model.fit(other, y)
            assert pickle.dumps(model) == before
        with pytest.warns(UserWarning, match="X does not have valid feature "
                                             "names, but IOHMMClassifier was "
                                             "fitted with feature names"):
            model.fit(X, y)
    assert model.feature_names_in_.tolist() == ["a", "b"]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("bad", [{"n_states": -1}, {"n_states": "two"},
                                 {"emission": "bogus"}, {"transition": 7}])
def test_warm_fit_names_an_invalid_parameter_before_a_change_since_fit(bad):
    # an invalid value is reported as invalid (the message of a cold fit),
    # not as changed since fit; the fitted model is left as it was
    X, y, _ = _data()
    model = IOHMMClassifier(2, features="raw", n_init=1, max_iter=2,
                            random_state=0, warm_start=True).fit(X, y)
    before = pickle.dumps(model)
    name = next(iter(bad))
    with pytest.raises(ValueError) as cold:
        IOHMMClassifier(features="raw").set_params(**bad).fit(X, y)
    assert f"The {name!r} parameter of IOHMMClassifier must be" in str(cold.value)
    model.set_params(**bad)
    with pytest.raises(ValueError) as warm:
        model.fit(X, y)
    assert str(warm.value) == str(cold.value)
    model.set_params(**{name: IOHMMClassifier(2).get_params()[name]})
    assert pickle.dumps(model) == before
