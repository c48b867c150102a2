"""Fitted models survive pickle / joblib and predict identically in another process.

Each model is fitted here, dumped to a file, and loaded by a fresh Python
interpreter (``python -c``) that knows nothing of this test: only what the pickle
names can be imported there. Its predictions must equal the original's.
"""

import pickle
import subprocess
import sys

import joblib
import numpy as np
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skseq import DiscretizedRNNClassifier, IOHMMClassifier
from skseq.automata import DFA
from skseq.datasets import make_tomita
from skseq.preprocessing import Stepwise
from skseq.utils import to_padded

# Loads each folder's model from both dumps and writes each prediction method's
# outputs (one interpreter for every model: its start-up is most of the cost).
LOAD_AND_PREDICT = """
import pickle, sys
import joblib, numpy as np
for folder in sys.argv[1:]:
    X = np.load(folder + "/X.npy")
    with open(folder + "/model.pkl", "rb") as f:
        models = {"pickle": pickle.load(f),
                  "joblib": joblib.load(folder + "/model.joblib")}
    for how, model in models.items():
        out = {"predict": model.predict(X)}
        for method in ("predict_proba", "predict_state_proba", "decode"):
            if hasattr(model, method):
                out[method] = getattr(model, method)(X)
        np.savez(folder + "/" + how + ".npz", **out)
"""


def _sequences(seed):
    """Ragged 2-feature sequences; the class is the sign of the first step."""
    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(rng.integers(2, 9), 2)) * [1.0, 10.0] + [0.0, 5.0]
         for _ in range(40)]
    return X, np.array([int(x[0, 0] > 0) for x in X])


def _iohmm():
    X, y = make_tomita(4, n_samples=100, random_state=0)
    return IOHMMClassifier(n_states=4, emission="state", n_init=3,
                           random_state=0).fit(X, y), X


def _rnn():
    X, y = make_tomita(4, n_samples=100, max_length=10, random_state=0)
    return DiscretizedRNNClassifier(random_state=0).fit(X, y), X


def _pipeline():
    X, y = _sequences(0)
    pipe = make_pipeline(Stepwise(StandardScaler()),
                         IOHMMClassifier(n_states=2, n_init=2, random_state=0))
    return pipe.fit(X, y), X


def _dfa():
    # Tomita #4's minimal machine: the number of trailing 0s, and a dead state.
    X, _ = make_tomita(4, n_samples=50, random_state=0)
    return DFA(4, "01", [[1, 0], [2, 0], [3, 0], [3, 3]], 0, [0, 1, 2]), X


MODELS = {"iohmm": _iohmm, "rnn": _rnn, "pipeline": _pipeline, "dfa": _dfa}


def test_predictions_identical_after_loading_in_another_process(tmp_path):
    fitted = {}
    for name, make in MODELS.items():
        model, X = make()
        X = to_padded(X)
        folder = tmp_path / name
        folder.mkdir()
        with open(folder / "model.pkl", "wb") as f:
            pickle.dump(model, f)
        joblib.dump(model, folder / "model.joblib")
        np.save(folder / "X.npy", X)
        fitted[name] = model, X

    subprocess.run([sys.executable, "-c", LOAD_AND_PREDICT,
                    *(str(tmp_path / name) for name in fitted)],
                   check=True, cwd=tmp_path, timeout=240)

    for name, (model, X) in fitted.items():
        methods = {"predict"} | {
            m for m in ("predict_proba", "predict_state_proba", "decode")
            if hasattr(model, m)
        }
        for how in ("pickle", "joblib"):
            loaded = np.load(tmp_path / name / f"{how}.npz")
            assert set(loaded.files) == methods, name
            assert_array_equal(loaded["predict"], model.predict(X), err_msg=name)
            for method in methods - {"predict"}:
                assert_allclose(loaded[method], getattr(model, method)(X),
                                rtol=1e-12, atol=0, equal_nan=True,
                                err_msg=f"{name} {method}")
