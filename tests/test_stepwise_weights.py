"""Stepwise passes sequence weights to its transformer, each step weighing its
sequence's weight: through a Pipeline's ``step__sample_weight``, and under
metadata routing when the transformer requests them."""

import numpy as np
import pytest
import sklearn
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skseq import IOHMMClassifier
from skseq.preprocessing import SequenceFeatures, SequenceUnion, Stepwise

pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning")


def _data():
    rng = np.random.RandomState(0)
    X = [rng.randn(n, 2) + n for n in (2, 5, 3, 4)]
    return X, np.array([0, 1, 0, 1]), np.array([0.5, 2.0, 1.0, 3.0])


def _weighted_mean(X, sw):
    steps = np.concatenate(X)
    w = np.concatenate([np.full(x.shape[0], s) for x, s in zip(X, sw, strict=True)])
    return (steps * w[:, None]).sum(axis=0) / w.sum()


def _clf():
    return IOHMMClassifier(n_states=2, max_iter=2, features="raw", random_state=0)


def test_pipeline_step_weights_weigh_every_step():
    X, y, sw = _data()
    pipe = make_pipeline(Stepwise(StandardScaler()), _clf())
    pipe.fit(X, y, stepwise__sample_weight=sw, iohmmclassifier__sample_weight=sw)
    np.testing.assert_allclose(pipe[0].transformer_.mean_, _weighted_mean(X, sw))


def test_routed_weights_reach_the_requesting_transformer():
    X, y, sw = _data()
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = make_pipeline(
            Stepwise(StandardScaler().set_fit_request(sample_weight=True)),
            _clf().set_fit_request(sample_weight=True))
        pipe.fit(X, y, sample_weight=sw)
        unweighted = make_pipeline(
            Stepwise(StandardScaler().set_fit_request(sample_weight=False)),
            _clf().set_fit_request(sample_weight=True)).fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(pipe[0].transformer_.mean_, _weighted_mean(X, sw))
    np.testing.assert_allclose(unweighted[0].transformer_.mean_,
                               np.concatenate(X).mean(axis=0))


def test_weights_are_checked_and_other_parameters_refused():
    X, _, sw = _data()
    with pytest.raises(ValueError, match="sample_weight"):
        Stepwise(StandardScaler()).fit(X, sample_weight=sw[:3])
    with pytest.raises(TypeError, match="cannot pass.*'groups'"):
        Stepwise(StandardScaler()).fit(X, groups=sw)


def test_a_union_passes_the_weights_its_transformers_request():
    X, y, sw = _data()
    with sklearn.config_context(enable_metadata_routing=True):
        union = SequenceUnion([
            ("scaled", Stepwise(StandardScaler().set_fit_request(sample_weight=True))),
            ("plain", Stepwise(StandardScaler().set_fit_request(sample_weight=False))),
            ("diff", SequenceFeatures(keep_input=False)),
            ("raw", "passthrough")])
        pipe = make_pipeline(union, _clf().set_fit_request(sample_weight=True))
        pipe.fit(X, y, sample_weight=sw)
    fitted = dict(pipe[0].transformers_)
    np.testing.assert_allclose(fitted["scaled"].transformer_.mean_,
                               _weighted_mean(X, sw))
    np.testing.assert_allclose(fitted["plain"].transformer_.mean_,
                               np.concatenate(X).mean(axis=0))
    # without routing, as in FeatureUnion, every transformer gets them
    plain = SequenceUnion([("scaled", Stepwise(StandardScaler()))])
    plain.fit(X, sample_weight=sw)
    np.testing.assert_allclose(plain.transformers_[0][1].transformer_.mean_,
                               _weighted_mean(X, sw))
