"""A list that mixes Dask delayed objects with local data: refused with a
TypeError that names one item of each kind, by ``fit`` and the predictions
alike. It read as a list of local sequences: with a Delayed first, the error
said that ``fit`` does not read lists of delayed objects (it does, when they
are all delayed); with a local item first, it asked to encode the Delayed
"as numbers" like a categorical value."""

import pickle

import numpy as np
import pytest

from skseq import IOHMMClassifier

dask = pytest.importorskip("dask")


def _fitted():
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(3, 2)) for _ in range(4)]
    model = IOHMMClassifier(2, features="raw", n_init=1, max_iter=2,
                            random_state=0).fit(X, [0, 1, 0, 1])
    return X, model


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("delayed_first", [True, False])
def test_mixed_list_is_refused_by_name(delayed_first):
    X, model = _fitted()
    mixed = ([dask.delayed(X[:2]), X[2]] if delayed_first
             else [X[0], dask.delayed(X[1:])])
    at, local = (0, 1) if delayed_first else (1, 0)
    message = (f"X mixes Dask collections with local data: X\\[{at}\\] is of "
               f"type Delayed\\w* but X\\[{local}\\] of type ndarray")
    before = pickle.dumps(model)
    with pytest.raises(TypeError, match=message):
        model.fit(mixed, [0, 1, 0, 1])
    assert pickle.dumps(model) == before
    for method in (model.predict, model.predict_proba):
        with pytest.raises(TypeError, match=message):
            method(mixed)
    # local sequences alone are read as before
    assert model.predict(X).shape == (4,)
