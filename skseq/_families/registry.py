"""The estimators' options, documented by their registries.

Every registry is a plain dict ``name -> class`` and every registered class
carries ``summary``: one sentence for users, what the option does and when to
pick it. An estimator's docstring names an option's registry by two markers,
which :func:`document_options` replaces when the class is defined::

    transition : {{transition}}, default="input"
        Family of state networks:

        {{transition_list}}

``{{transition}}`` becomes the set of accepted values, ``{"input", "additive",
...}``, and ``{{transition_list}}`` one bullet per value with its summary, at
the marker's indentation. :func:`option_constraints` gives the matching
``_parameter_constraints`` entries, so that a new family is its class, its
registration and its tests: no estimator's docstring or option list changes.
"""

import textwrap
from typing import NamedTuple

from sklearn.utils._param_validation import StrOptions

from .._data.representation import FEATURES_OBJECT, REPRESENTATIONS
from .layers import LAYERS
from .outputs import OUTPUTS
from .starts import STARTING_POINTS
from .transitions import TRANSITIONS

# Width of a generated line in the docstring as inspect.cleandoc (help(),
# Sphinx) shows it: ruff's 88 columns less the 4-space margin of a class's
# docstring in the source.
_WIDTH = 88 - 4


def _margin(doc):
    """The indentation common to a docstring's lines after its first (as
    :func:`inspect.cleandoc` removes it)."""
    lines = [line for line in doc.splitlines()[1:] if line.strip()]
    return min((len(line) - len(line.lstrip()) for line in lines), default=0)


class Option(NamedTuple):
    """An estimator parameter whose values are a registry's names."""

    registry: dict
    # values that are not registered classes ("auto": the estimator chooses)
    extra: tuple = ()
    # what else the parameter accepts (``_parameter_constraints`` entries)
    others: tuple = ()
    # how the docstrings name what else it accepts, and one bullet saying it
    others_doc: tuple = ()

    @property
    def values(self):
        return (*self.extra, *self.registry)


# parameter name -> its registry
OPTIONS = {
    "features": Option(
        REPRESENTATIONS, extra=("auto",), others=(FEATURES_OBJECT,),
        others_doc=("representation object",
                    "a representation object of :mod:`skseq.representations` "
                    "(one of the above, configured: e.g. ``ShapeFeatures("
                    "n_indicators=9996)``), fitted as a clone; its parameters "
                    "are ``features__<name>`` in ``set_params`` and grid "
                    "searches.")),
    "transition": Option(TRANSITIONS),
    "emission": Option(LAYERS),
    "init": Option(STARTING_POINTS, extra=("auto",), others=(list, tuple)),
    # the output distributions of real targets (IOHMMRegressor's ``output``)
    "output": Option({name: cls for name, cls in OUTPUTS.items()
                      if cls.task == "regression"}),
}


def option_constraints(*names):
    """The ``_parameter_constraints`` entries of the named options."""
    return {name: [StrOptions(set(OPTIONS[name].values)), *OPTIONS[name].others]
            for name in names}


def value_set(name):
    """The accepted values of option ``name`` as a docstring's type shows them."""
    option = OPTIONS[name]
    names = "{" + ", ".join(f'"{value}"' for value in option.values) + "}"
    return " or ".join((names, *option.others_doc[:1]))


def value_list(name, indent, width):
    """One bullet per registered value of option ``name``: its summary, wrapped
    at ``indent`` to ``width`` columns; then one for what else it accepts."""
    bullets = []
    for value, cls in OPTIONS[name].registry.items():
        if not cls.summary:
            raise ValueError(f"{cls.__name__}, registered as {name}={value!r}, "
                             "has no summary for the estimators' docstrings.")
        bullets.append(_bullet(f'- ``"{value}"``: {cls.summary}', indent, width))
    for text in OPTIONS[name].others_doc[1:]:
        bullets.append(_bullet(f"- {text}", indent, width))
    return "\n".join(bullets).lstrip()


def _bullet(text, indent, width):
    """``text`` wrapped as a bullet at ``indent``."""
    return textwrap.fill(text, width=width, initial_indent=indent,
                         subsequent_indent=indent + "  ", break_on_hyphens=False,
                         break_long_words=False)


def document_options(*names):
    """Class decorator: fill the option markers of the class docstring."""

    def decorate(cls):
        doc = cls.__doc__
        # Python 3.13 strips a docstring's margin when it compiles it, earlier
        # versions keep it: wrapping past the margin gives the same text on
        # every version
        width = _WIDTH + _margin(doc)
        for name in names:
            marker = "{{" + name + "}}"
            if marker not in doc:
                raise ValueError(f"{cls.__name__}'s docstring has no {marker}.")
            doc = doc.replace(marker, value_set(name))
            list_marker = "{{" + name + "_list}}"
            while list_marker in doc:
                start = doc.index(list_marker)
                indent = doc[doc.rindex("\n", 0, start) + 1 : start]
                doc = doc.replace(list_marker, value_list(name, indent, width), 1)
        cls.__doc__ = doc
        return cls

    return decorate
