"""What a warm start refuses: data that would change the fitted model's shape.

A warm start (``warm_start=True``) continues the fitted parameters, whose
shapes fix the number of features, the classes and the modelled outputs; and
the fitted representation, chosen for (and, with supervised axes, read out
from) targets of one kind, one per sequence or per step. A fit on data that
changes any of them is refused by name, the model left as it was. Feature
names are checked as scikit-learn checks those of a warm-started fit.
"""

import warnings

from .checks import _user_stacklevel

__all__ = ["keep_warm_names", "refuse_warm_change", "refuse_warm_targets",
           "warm_targets"]


def refuse_warm_change(what, before, now):
    """ValueError naming ``what`` if it changed from ``before`` to ``now``."""
    if before != now:
        raise ValueError(
            f"warm_start=True continues the fitted model, but the {what} changed: "
            f"{before} before, {now} now. Set warm_start=False to fit anew."
        )


def warm_targets(estimator, step_level=None):
    """What a warm start keeps of the targets: ``{what: value}`` for the
    fitted model's classes (classifiers), modelled outputs (real outputs,
    each ``"modelled"`` or ``"constant"`` in y) and kind of targets
    (``step_level``, by default the fitted ``step_level_``); None where it
    has none."""
    classes = getattr(estimator, "classes_", None)
    constant = getattr(getattr(estimator, "outputs_", None), "constant_", None)
    if step_level is None:
        step_level = getattr(estimator, "step_level_", None)
    return {
        "classes": None if classes is None else classes.tolist(),
        "outputs (each modelled, or constant in y)": None if constant is None else
        ["constant" if c else "modelled" for c in constant],
        "kind of targets": None if step_level is None else
        ("per step" if step_level else "one per sequence"),
    }


def refuse_warm_targets(before, now):
    """:func:`refuse_warm_change` for each of :func:`warm_targets`' entries
    known before and now."""
    for what, value in before.items():
        if value is not None and now[what] is not None:
            refuse_warm_change(what, value, now[what])


def keep_warm_names(estimator, fitted):
    """Put back the ``fitted`` feature names (None: none) after a warm fit's
    validation recorded those of its data: the columns are read by position,
    so other names (renamed or reordered columns) are refused; names on one
    side only are warned of, as scikit-learn warns of them at predict."""
    names = estimator.__dict__.pop("feature_names_in_", None)
    if fitted is not None:
        estimator.feature_names_in_ = fitted
    kind = type(estimator).__name__
    if fitted is not None and names is not None:
        refuse_warm_change("feature names", list(map(str, fitted)),
                           list(map(str, names)))
    elif fitted is not None:
        warnings.warn(f"X does not have valid feature names, but {kind} was "
                      "fitted with feature names", UserWarning,
                      stacklevel=_user_stacklevel())
    elif names is not None:
        warnings.warn(f"X has feature names, but {kind} was fitted without "
                      "feature names", UserWarning,
                      stacklevel=_user_stacklevel())
