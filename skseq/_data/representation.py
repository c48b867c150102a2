"""What the networks see of raw sequences: the estimators' input
representations, by name or as configured objects (the ``features`` option).

``features="raw"`` gives the state and output networks the input features as
they are (:class:`~.representation_base.RawFeatures`: Bengio & Frasconi's (1996)
networks, linear in one step's input); ``"shape"`` the local shape of the
series summarized over the prefix (:mod:`.shape`, after MiniRocket: Dempster,
Schmidt & Webb 2021); ``"window"`` the recent past of every step
(:mod:`.window`). ``features`` is one of those names (``REPRESENTATIONS``), or
``"auto"`` (:func:`resolve` chooses from the training data), or a
representation object, configured, which the estimator fits a clone of
(:func:`make_representation`). A fitted representation's ``inputs`` gives, for
validated sequences, the state networks' inputs at every step and the output
networks' inputs at given rows.
"""

from contextlib import contextmanager

import numpy as np
from sklearn.base import clone
from sklearn.utils._param_validation import HasMethods, InvalidParameterError

from .._fit.resources import NotEnoughMemoryError
from .representation_base import RawFeatures, Representation
from .shape import CentredShapeFeatures, ShapeFeatures
from .window import WindowFeatures

__all__ = [
    "FEATURES_OBJECT",
    "REPRESENTATIONS",
    "SUMMARIES",
    "CentredShapeFeatures",
    "RawFeatures",
    "Representation",
    "ShapeFeatures",
    "WindowFeatures",
    "check_causal",
    "is_auto",
    "make_representation",
    "refuse_options_of_name",
    "refuse_out_of_memory",
    "resolve",
    "resolve_from",
    "validate_features",
]

REPRESENTATIONS = {"raw": RawFeatures, "shape": ShapeFeatures,
                   "shape_centred": CentredShapeFeatures,
                   "window": WindowFeatures}
# Representations whose output networks read a whole-sequence summary.
SUMMARIES = tuple(name for name, cls in REPRESENTATIONS.items()
                  if issubclass(cls, ShapeFeatures))


class _RepresentationObjects(HasMethods):
    """The ``_parameter_constraints`` entry of a representation object (what
    an error message says ``features`` may also be)."""

    def __init__(self):
        super().__init__(["fit", "inputs"])

    def is_satisfied_by(self, val):
        # an instance of a class that implements them (not the base class)
        return isinstance(val, Representation) and super().is_satisfied_by(val)

    def __str__(self):
        names = ", ".join(cls.__name__ for cls in REPRESENTATIONS.values())
        return f"a representation object of skseq.representations ({names})"


# what ``features`` accepts besides the names
FEATURES_OBJECT = _RepresentationObjects()


def is_auto(features):
    """Whether ``features`` leaves the choice to the data."""
    return isinstance(features, str) and features == "auto"


def make_representation(features):
    """The unfitted representation ``features`` gives: a new one of that
    name, or a clone of the object (which is left as it is)."""
    if isinstance(features, str):
        return REPRESENTATIONS[features]()
    return clone(features)


def validate_features(owner, validate):
    """Check ``owner``'s parameters (``validate``: scikit-learn's check) and
    its ``features`` object's own; a representation class, or a transformer,
    given as ``features`` is refused with what to pass instead."""
    features, name = owner.features, type(owner).__name__
    if isinstance(features, type) and issubclass(features, Representation):
        raise InvalidParameterError(
            f"{name}(features={features.__name__}): features takes an "
            f"instance of the class, features={features.__name__}().")
    if (not isinstance(features, (str, type, Representation))
            and hasattr(features, "transform")):
        raise InvalidParameterError(
            f"{name}(features={features!r}): features takes a name or an object "
            "of skseq.representations, not a transformer. To feed the networks "
            "a transformer's output, put it before the estimator in a Pipeline, "
            f"with features='raw': make_pipeline({features!r}, "
            f"{name}(features='raw')).")
    validate()
    if not isinstance(features, str):
        features._validate_for(name)


def refuse_options_of_name(owner, features, params):
    """ValueError if ``params`` (of ``owner.set_params``) set options
    ``features__<option>`` of a ``features`` that is a name: a name has no
    options (scikit-learn would fail on ``str.set_params``)."""
    nested = sorted(key for key in params if key.startswith("features__"))
    if nested and isinstance(features, str):
        cls = REPRESENTATIONS.get(features)
        if cls is None or not cls._get_param_names():  # "auto", "raw"
            cls = ShapeFeatures
        example = f"features={cls.__name__}(...)"
        raise ValueError(
            f"{type(owner).__name__}.set_params({nested[0]}=...): "
            f"features={features!r} is a name, which has no options; set an "
            f"object of skseq.representations instead, e.g. {example}.")


@contextmanager
def refuse_out_of_memory(owner, features, n_steps):
    """A ValueError naming ``owner``'s ``features`` (and so its options)
    where fitting the representation on ``n_steps`` training steps runs out
    of memory: NumPy's MemoryError names neither (nor does the
    representation's own refusal, before allocating, name ``owner``)."""
    try:
        yield
    except (MemoryError, NotEnoughMemoryError) as err:
        raise ValueError(
            f"{type(owner).__name__}(features={features!r}): the representation "
            f"needs more memory than is available on {n_steps} training steps "
            f"({err}). Use fewer indicators (n_indicators, n_levels) or fewer "
            "or shorter sequences.") from None


def check_causal(features, step_level):
    """Refuse a representation that reads later steps with step-level
    targets: each step's prediction would see the steps after it."""
    cls = REPRESENTATIONS.get(features) if isinstance(features, str) else features
    if step_level and not getattr(cls, "causal", True):
        raise ValueError(
            f"features={features!r} reads later steps (its kernels are centred "
            "on their step), so with step-level targets each step's prediction "
            "would see the future. Use it with one target per sequence, or "
            "features='shape' or 'window' with step-level targets.")


def resolve(features, seqs, step_level=False):
    """The representation ``features="auto"`` chooses for training sequences:
    ``"raw"`` for one-step rows (a tabular model) and for symbols (every
    feature takes at most two values, as one-hot or +-1 codes); for
    real-valued series ``"window"`` (the recent past) when every step is
    labelled, else ``"shape"``. A name other than ``"auto"``, or a
    representation object, is the choice."""
    check_causal(features, step_level)
    if not is_auto(features):
        return features
    U = seqs.data
    binary = np.all((U == U.min(axis=0)) | (U == U.max(axis=0)))
    return resolve_from(features, bool(binary), int(seqs.lengths.max()), step_level)


def resolve_from(features, binary, longest, step_level=False):
    """:func:`resolve` from what it reads of the sequences: whether every
    feature takes at most two values, and the longest sequence's length."""
    check_causal(features, step_level)
    if not is_auto(features):
        return features
    if longest == 1 or binary:
        return "raw"
    return "window" if step_level else "shape"
