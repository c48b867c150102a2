"""scikit-learn's estimator checks, for every public estimator, nothing skipped."""

from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from skseq import IOHMMClassifier, IOHMMRegressor
from skseq.preprocessing import SequenceFeatures, Stepwise, WindowMean


@parametrize_with_checks(
    [
        IOHMMClassifier(n_states=2, n_init=1, max_iter=50, random_state=0),
        IOHMMClassifier(n_states=3, transition="additive", emission="state",
                        solver="em", n_init=2, max_iter=20, random_state=0),
        IOHMMClassifier(n_states=2, n_init=1, max_iter=50, readout="mean",
                        readout_start=0.0, n_prefixes=3, random_state=0),
        IOHMMRegressor(n_states=2, transition="additive", n_init=1, max_iter=50,
                       random_state=0),
        IOHMMRegressor(n_states=2, covariance_type="full", solver="em",
                       emission="state", n_init=1, max_iter=30, random_state=0),
        IOHMMRegressor(n_states=3, covariance_type="spherical", emission="state",
                       transition="gated", n_init=1, max_iter=30, random_state=0),
        Stepwise(StandardScaler()),
        WindowMean(max_length=3, window=2),
        SequenceFeatures(diff=True, time=True),
    ]
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
