"""The covariance matrix of IOHMMRegressor.standard_errors(return_cov=True):
its blocks follow the returned dict's keys. The docstring put the transition
intercepts before the coefficients, the reverse of the matrix's order, so that
a reader of the time-varying transitions' covariance took one block for the
other."""

import warnings

import numpy as np

from skseq import IOHMMRegressor


def _free_entries(name, se, n_states):
    """The entries of ``se`` that the covariance matrix holds: without the
    reference state's logits and the covariance matrix's upper triangle."""
    if name == "startprob_logit" or (name.startswith("transition_")
                                     and se.shape[-1] == n_states):
        return se[..., :-1].ravel()
    if name == "emission_covariance":
        return se[np.tril_indices(se.shape[-1])]
    return se.ravel()


def test_covariance_blocks_follow_the_keys_of_the_standard_errors():
    rng = np.random.default_rng(0)
    X, y = [], []
    for _ in range(3):
        z = rng.normal(size=(80, 1))
        regime = np.cumsum(rng.random(80) < 0.08) % 2
        X.append(z)
        y.append(np.c_[3.0 * regime, -2.0 * regime + 0.5 * z[:, 0]]
                 + rng.normal(size=(80, 2)) @ np.array([[1.0, 0.3], [0.0, 0.8]]))
    reg = IOHMMRegressor(2, transition="input", emission="input",
                         covariance_type="tied", startprob="uniform", alpha=0,
                         tol=1e-10, n_init=2, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reg.fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        se, cov = reg.standard_errors(X, y, return_cov=True)
    assert list(se)[:2] == ["transition_coef", "transition_intercept"]
    # the coefficients' (n_inputs, from, to) and intercepts' (from, to) logits
    # have 2 free entries each here: their variances tell the blocks apart
    expected = np.concatenate([_free_entries(name, values, 2)
                               for name, values in se.items()])
    np.testing.assert_allclose(np.sqrt(np.diag(cov)), expected, rtol=1e-12)
    assert not np.allclose(se["transition_coef"][..., 0].ravel(),
                           se["transition_intercept"][..., 0].ravel(), rtol=1e-2)
