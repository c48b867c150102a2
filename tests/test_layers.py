"""The input layers (skseq._families.layers): what they pass on, and their
back-propagated gradients against finite differences."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skseq._families.layers import LAYERS, Identity, NoInput, TanhLayer


def _params(layer, rng):
    return {name: rng.normal(size=shape) for name, shape, _ in layer.blocks()}


def test_identity_and_no_input_pass_the_input_on_without_parameters():
    U = np.arange(6.0).reshape(3, 2)
    for layer, n_out in ((Identity(2), 2), (NoInput(2), 0)):
        assert layer.blocks() == [] and layer.n_out == n_out and layer.linear
        assert_array_equal(layer.forward({}, U), U)
        assert layer.backward({}, U, U, np.ones((3, n_out))) == {}


def test_tanh_layer_forward_is_the_formula():
    rng = np.random.default_rng(0)
    layer = TanhLayer(3, 4)
    p, U = _params(layer, rng), rng.normal(size=(5, 3))
    assert_allclose(layer.forward(p, U),
                    np.tanh(U @ p["hidden_coef"] + p["hidden_intercept"]), rtol=1e-15)
    assert layer.n_out == 4 and not layer.linear


def test_tanh_layer_backward_matches_finite_differences():
    """d sum(dH * h(p)) / dp for every parameter, by central differences."""
    rng = np.random.default_rng(1)
    layer = TanhLayer(3, 4)
    p, U = _params(layer, rng), rng.normal(size=(6, 3))
    dH = rng.normal(size=(6, 4))
    grads = layer.backward(p, U, layer.forward(p, U), dH)
    eps = 1e-6
    for name, shape, _ in layer.blocks():
        numeric = np.empty(shape)
        for index in np.ndindex(shape):
            up = {k: v.copy() for k, v in p.items()}
            down = {k: v.copy() for k, v in p.items()}
            up[name][index] += eps
            down[name][index] -= eps
            numeric[index] = np.sum(dH * (layer.forward(up, U)
                                          - layer.forward(down, U))) / (2 * eps)
        assert_allclose(grads[name], numeric, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", list(LAYERS))
def test_registered_layers_take_n_features_and_n_hidden(name):
    layer = LAYERS[name](3, 5)
    assert layer.n_features == 3
    assert layer.n_out == {"input": 3, "state": 0, "mlp": 5}[name]
