"""Test-session settings, and the small estimators shared by the test files.

``ESTIMATORS`` maps a short name to a factory of a quickly fitted estimator of
every kind (``FAST``: one start, a few iterations, a fixed seed); keywords given
to a factory override its settings. Test files import them
(``from conftest import ESTIMATORS, FAST, fast``) and add their own variants
with :func:`fast`.
"""

import os

# scikit-learn's check_array_api_input runs only when SciPy's array-API support is
# on; set it before SciPy is imported so the check runs instead of being skipped.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

from skseq import (  # noqa: E402 (after the environment setting above)
    DiscretizedRNNClassifier,
    HierarchicalIOHMM,
    IOHMMClassifier,
    IOHMMRegressor,
)

FAST = {"n_init": 1, "max_iter": 5, "random_state": 0}


def fast(estimator, **params):
    """A factory of ``estimator(**params)`` with the ``FAST`` settings; the
    factory's keywords override both."""
    return lambda **kw: estimator(**{**params, **FAST, **kw})


ESTIMATORS = {
    "clf": fast(IOHMMClassifier, n_states=2),
    "reg": fast(IOHMMRegressor, n_states=2),
    # Raw steps, named: the invariants of the hierarchy's own networks (its
    # default features="auto" is tested in test_hierarchical_features.py).
    "hier-clf": fast(HierarchicalIOHMM, n_states=(2, 2), timescales=(4, 1),
                     features="raw"),
    "hier-reg": fast(HierarchicalIOHMM, n_states=(2, 2), timescales=(4, 1),
                     task="regression", features="raw"),
    "rnn": fast(DiscretizedRNNClassifier, n_hidden=3),
}
