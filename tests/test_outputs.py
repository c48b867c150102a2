"""The output distributions (``skseq._families.outputs``): fitted sub-objects that
own the targets' encoding and scaling, and whose predictions take arrays."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import log_softmax, logsumexp, softmax

from skseq import HierarchicalIOHMM, IOHMMClassifier, IOHMMRegressor
from skseq._data import check_sequences
from skseq._families.emissions import GaussianEmission, SoftmaxEmission
from skseq._families.layers import Identity
from skseq._families.outputs import (
    OUTPUTS,
    CategoricalOutputs,
    GaussianOutputs,
    Mixture,
    constraints_of,
    outputs_of,
)
from skseq._fit.objective import FittedModel

FAST = {"n_init": 1, "max_iter": 5, "random_state": 0}


def _seqs(lengths, n_features=2, seed=0):
    rng = np.random.default_rng(seed)
    return check_sequences([rng.normal(size=(k, n_features)) for k in lengths])


def test_registry_entries_document_themselves():
    for name, cls in OUTPUTS.items():
        assert cls.task in ("classification", "regression"), name
        assert isinstance(cls.summary, str) and cls.summary.endswith("."), name
    assert outputs_of("classification") == {"categorical"}
    assert "gaussian" in outputs_of("regression")
    assert set(constraints_of("regression")) >= {"covariance_type", "min_covar"}
    # the regressor's output parameter offers every regression output
    constraint = IOHMMRegressor._parameter_constraints["output"][0]
    assert constraint.options == outputs_of("regression")


def test_categorical_encoding_is_learned_in_fit_and_refuses_unseen_labels():
    seqs = _seqs([3, 2, 4])
    outputs = CategoricalOutputs(owner="Est")
    targets = outputs.fit_encode(np.array(["b", "a", "b"]), seqs)
    assert_array_equal(outputs.classes_, ["a", "b"])
    assert_array_equal(targets.values, [1, 0, 1])
    assert_array_equal(targets.steps, seqs.last_steps)
    with pytest.raises(ValueError, match=r"labels not seen in fit: \['c'\]"):
        outputs.encode(np.array(["a", "c", "b"]), seqs)
    with pytest.raises(ValueError, match="Est needs samples of at least 2 classes"):
        CategoricalOutputs(owner="Est").fit(np.array([1, 1, 1]), seqs)


def test_gaussian_standardization_is_the_weighted_mean_and_spread():
    seqs = _seqs([3, 2, 4, 1])
    y = np.array([[1.0, 5.0, 2.0], [3.0, 5.0, -1.0], [2.0, 5.0, 0.5],
                  [7.0, 5.0, 4.0]])
    w = np.array([1.0, 2.0, 0.5, 1.5])
    outputs = GaussianOutputs(covariance_type="diag", min_covar=1e-6).fit(y, seqs, w)
    mean = (w[:, None] * y).sum(0) / w.sum()
    std = np.sqrt((w[:, None] * (y - mean) ** 2).sum(0) / w.sum())
    assert_allclose(outputs.mean_, mean, rtol=1e-14)
    # the constant middle output is left out of the scales and the likelihood
    assert_array_equal(outputs.constant_, [False, True, False])
    assert_allclose(outputs.scale_, std[[0, 2]], rtol=1e-14)
    assert outputs.n_outputs_ == 3 and not outputs.squeeze_
    assert outputs.encode(y, seqs).values.shape == (4, 2)
    spherical = GaussianOutputs(covariance_type="spherical", min_covar=1e-6)
    spherical.fit(y, seqs, w)
    assert_allclose(spherical.scale_, np.sqrt(np.mean(std[[0, 2]] ** 2)),
                    rtol=1e-14)
    with pytest.raises(ValueError, match="y has 2 outputs, but this estimator was "
                                         "fitted with 3"):
        outputs.encode(y[:, :2], seqs)


def _mixture(emission, theta_e, n_rows=5, n_states=3, seed=1):
    rng = np.random.default_rng(seed)
    seqs = _seqs([n_rows])
    zeta = rng.dirichlet(np.ones(n_states), size=n_rows)
    model = FittedModel(None, emission, None, theta_e, None,
                        np.full(n_states, 1 / n_states))
    return Mixture(seqs, np.arange(n_rows), zeta, seqs.data, model, True), zeta


def test_categorical_predictions_mix_the_state_outputs_by_hand():
    """P(y_t | u_1..t) = sum_i zeta_t,i softmax(V_i u_t + c_i) (Bengio & Frasconi
    1996, eq. 10), from the arrays alone."""
    rng = np.random.default_rng(0)
    emission = SoftmaxEmission(3, Identity(2), 4)
    theta = rng.normal(size=emission.n_params)
    mix, zeta = _mixture(emission, theta)
    outputs = CategoricalOutputs()
    outputs.classes_ = np.array([10, 20, 30, 40])
    p = emission.unpack(theta)
    expected = np.zeros((5, 4))
    for t, u in enumerate(mix.U_rows):
        for i in range(3):
            expected[t] += zeta[t, i] * softmax(u @ p["coef"][:, i] + p["intercept"][i])
    proba = outputs.predict_proba(mix)
    assert_allclose(proba[0], expected, rtol=1e-12)
    assert_array_equal(outputs.predict(mix)[0], outputs.classes_[expected.argmax(1)])



def test_log_proba_where_the_class_probabilities_underflow():
    """Inputs far beyond the training scale put the output networks' logits
    thousands apart, a class's probability below float64's range: its log
    P(y_t | u_1..t) is that of the mixture computed in log space, by hand (a
    homogeneous chain: zeta_t = startprob A^t, never small), at the last
    step (predict_log_proba) and averaged by the mean read-out (not -inf,
    nor clamped at log of float64's smallest normal number)."""
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(4, 2)) for _ in range(12)]
    y = np.array([int(x[-1, 0] > 0) for x in X])
    clf = IOHMMClassifier(2, features="raw", transition="homogeneous",
                          n_init=1, max_iter=30, alpha=0.0,
                          random_state=0).fit(X, y)
    Xt = [x * 1e4 for x in X[:4]]
    A = softmax(clf.transition_intercept_, axis=1)

    def by_hand(x):
        zeta, out = clf.startprob_, []
        for u in x:
            zeta = zeta @ A
            log_emit = log_softmax(np.einsum("f,fik->ik", u, clf.emission_coef_)
                                   + clf.emission_intercept_, axis=1)
            out.append(logsumexp(np.log(zeta)[:, None] + log_emit, axis=0))
        return np.array(out)

    ref = np.array([by_hand(x) for x in Xt])
    assert np.isfinite(ref).all() and ref.min() < -1000
    assert_allclose(clf.predict_log_proba(Xt), ref[:, -1], rtol=1e-9, atol=1e-12)
    clf.set_params(readout="mean", readout_start=0.0)
    mean = ref.mean(axis=1)
    assert_allclose(clf.predict_log_proba(Xt),
                    mean - logsumexp(mean, axis=1, keepdims=True),
                    rtol=1e-9, atol=1e-12)

def test_gaussian_mixture_mean_and_std_by_hand():
    """Mean sum_i zeta_i m_i; variance sum_i zeta_i (s_i^2 + m_i^2) - mean^2."""
    rng = np.random.default_rng(2)
    emission = GaussianEmission(3, Identity(2), 1, covariance_type="diag",
                                min_covar=1e-6, y_mean=np.array([0.5]),
                                y_scale=np.array([2.0]))
    theta = rng.normal(size=emission.n_params)
    mix, zeta = _mixture(emission, theta)
    outputs = GaussianOutputs(covariance_type="diag", min_covar=1e-6)
    outputs.mean_, outputs.scale_ = np.array([0.5]), np.array([2.0])
    outputs.constant_, outputs.squeeze_ = np.array([False]), True
    means, cov = emission.moments(theta, mix.U_rows)
    m, v = means[..., 0], cov[:, 0, 0]
    mean = (zeta * m).sum(1)
    std = np.sqrt((zeta * (v + m**2)).sum(1) - mean**2)
    got_mean, got_std = outputs.predict(mix, return_std=True)
    assert_allclose(got_mean[0], mean, rtol=1e-12)
    assert_allclose(got_std[0], std, rtol=1e-10)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("make, public", [
    (lambda: IOHMMClassifier(2, **FAST), "classes_"),
    (lambda: IOHMMRegressor(2, **FAST), "n_outputs_"),
    (lambda: HierarchicalIOHMM((2, 2), timescales=(4, 1), **FAST), "classes_"),
])
def test_estimators_keep_the_public_attributes_of_their_fitted_output(make, public):
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(int(k), 2)) for k in rng.integers(2, 6, size=12)]
    y = np.arange(12) % 2
    est = make().fit(X, y)
    assert_array_equal(getattr(est, public), getattr(est.outputs_, public))
    assert type(est.outputs_) is OUTPUTS[est._output]
