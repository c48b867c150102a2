"""scikit-learn's estimator checks, for every public estimator, nothing skipped."""

from sklearn.impute import SimpleImputer
from sklearn.preprocessing import SplineTransformer, StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from skseq import (
    HierarchicalIOHMM,
    HybridHMMClassifier,
    IOHMMClassifier,
    IOHMMRegressor,
)
from skseq.preprocessing import (
    DilatedConvolution,
    ForwardFill,
    RunningPooling,
    SequenceFeatures,
    SequenceUnion,
    Stepwise,
    WindowMean,
)
from skseq.representations import ShapeFeatures
from skseq.rnn import DiscretizedRNNClassifier


@parametrize_with_checks(
    [
        # The default estimators, as a user gets them (issue 15: every check in
        # well under a minute each; doc/results/speed.md times them).
        IOHMMClassifier(),
        IOHMMRegressor(),
        HierarchicalIOHMM(),
        DiscretizedRNNClassifier(),
        HybridHMMClassifier(),
        HybridHMMClassifier(n_states_per_label=3, phase_targets=True,
                            likelihood_scale=1.0, random_state=0),
        IOHMMClassifier(n_states=2, n_init=1, max_iter=50, random_state=0),
        IOHMMClassifier(n_states=3, transition="additive", emission="state",
                        solver="em", n_init=2, max_iter=20, random_state=0),
        IOHMMClassifier(n_states=2, n_init=1, max_iter=50, readout="mean",
                        readout_start=0.0, n_prefixes=3, random_state=0),
        IOHMMRegressor(n_states=2, transition="additive", n_init=1, max_iter=50,
                       random_state=0),
        # The shape representation as users choose it on scikit-learn's tables
        # of one-step rows (it then reads each row's whitened principal components).
        IOHMMClassifier(features="shape", n_states=3),
        IOHMMRegressor(3, features="shape"),
        # A representation object as features: cloned with the estimator, its
        # parameters nested (features__n_indicators), left unfitted by fit.
        IOHMMClassifier(features=ShapeFeatures(n_indicators=84, n_components=8),
                        n_states=2),
        # solver="em" is left out of the regressors here: its iterations amplify
        # rounding on tiny data (on a 15-row problem, weight 2 and a duplicated
        # row agree to 1e-16 after one iteration, 1e-12 after 10 and 1e-7 after
        # 30: a flat likelihood), so sklearn's sample-weight check cannot hold to
        # 1e-7. The classifier's EM configuration above and
        # tests/test_invariants.py (weights at fixed parameters) cover EM.
        IOHMMRegressor(n_states=2, covariance_type="full", emission="state",
                       n_init=1, max_iter=30, random_state=0),
        IOHMMRegressor(n_states=3, covariance_type="spherical", emission="state",
                       transition="gated", n_init=1, max_iter=30, random_state=0),
        Stepwise(StandardScaler()),
        Stepwise(SimpleImputer()),
        ForwardFill(),
        WindowMean(max_length=3, window=2),
        SequenceFeatures(diff=True, time=True),
        DilatedConvolution(random_state=0),
        DilatedConvolution(n_dilations=2, n_biases=1, output="value", causal=False,
                           padding="zero", channels="each", pooling=3, subsample=5,
                           random_state=0),
        DilatedConvolution(n_dilations=1, pooling="prefix", random_state=0),
        RunningPooling(),
        RunningPooling(window=2, statistic="max"),
        SequenceUnion([("shape", DilatedConvolution(n_dilations=1, random_state=0)),
                       ("amplitude", Stepwise(SplineTransformer(n_knots=3))),
                       ("change", SequenceFeatures(keep_input=False))]),
    ]
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
