"""What a network sees of the input u_t: the input layers of the state and output
networks.

Every network of a family is an affine map of its layer's output h_t: the input
itself (:class:`Identity`), nothing (:class:`NoInput`: the network depends on the
state alone, e.g. a Moore machine's outputs), or a tanh hidden layer
(:class:`TanhLayer`: the multilayer subnetworks of Bengio & Frasconi 1996, §3.3.2). A
layer declares its parameter blocks, computes h from the inputs, and back-propagates a
gradient with respect to h into its own parameters; the family owns the affine
map on top.

The estimators' ``emission`` option names a layer (:data:`LAYERS`); adding a new
kind of network is one layer class here plus its tests.
"""

import numpy as np

from .params import column_sums, linear_map


class InputLayer:
    """Base class: the identity, without parameters.

    Attributes
    ----------
    n_out : int
        Width of h (the number of features the network's affine map sees).
    linear : bool
        True when h does not depend on the parameters, so that the network's
        output is linear in them (the GEM M-step then shares work between its
        evaluations).
    """

    linear = True
    # One sentence for users on the ``emission`` option that names the layer
    # (the estimators' docstrings list it; see skseq._families.registry).
    summary = ""

    def __init__(self, n_features, n_hidden=None):
        # n_hidden: the width of a hidden layer, for the layers that have one
        self.n_features = n_features

    @property
    def n_out(self):
        return self.n_features

    def blocks(self):
        """The layer's parameter blocks, ``[(name, shape, penalised)]``."""
        return []

    def forward(self, p, U):
        """h for inputs U (len(U), n_features), from the named parameters ``p``."""
        return U

    def backward(self, p, U, H, dH):
        """Gradients (name -> array) of the layer's blocks, given dL/dh = dH."""
        return {}


class Identity(InputLayer):
    """h_t = u_t: the network is linear in the input (Bengio & Frasconi 1996, eqs. 2 and
    9)."""

    summary = "each state's output network is linear in the input."


class NoInput(InputLayer):
    """No input: the network depends on the state alone (its intercept)."""

    summary = ("the output depends on the state alone, as in a Moore machine "
               "(the natural choice for symbol strings such as grammars).")

    @property
    def n_out(self):
        return 0


class TanhLayer(InputLayer):
    """h_t = tanh(u_t A + a), ``n_hidden`` units shared by the n networks of the
    family, so its features are learned once (Bengio & Frasconi 1996, §3.3.2: the
    subnetworks may be any feed-forward network; their gradient is back-propagated)."""

    linear = False
    summary = ("each state's output network is linear in a tanh hidden layer of "
               "``n_hidden`` units shared by the states, nonlinear in the input.")

    def __init__(self, n_features, n_hidden):
        super().__init__(n_features)
        self.n_hidden = n_hidden

    @property
    def n_out(self):
        return self.n_hidden

    def blocks(self):
        d, h = self.n_features, self.n_hidden
        return [("hidden_coef", (d, h), True), ("hidden_intercept", (h,), False)]

    def forward(self, p, U):
        return np.tanh(linear_map(U, p["hidden_coef"]) + p["hidden_intercept"])

    def backward(self, p, U, H, dH):
        g_pre = dH * (1.0 - H * H)
        return {"hidden_coef": U.T @ g_pre, "hidden_intercept": column_sums(g_pre)}


# emission= (and transition="mlp") option -> layer(n_features, n_hidden)
LAYERS = {"input": Identity, "state": NoInput, "mlp": TanhLayer}
