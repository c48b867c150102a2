"""The estimators' option lists and constraints come from the registries."""

import inspect
import textwrap

import pytest
from sklearn.utils._param_validation import InvalidParameterError, StrOptions

from skseq import HierarchicalIOHMM, IOHMMClassifier, IOHMMRegressor
from skseq._families.registry import (
    OPTIONS,
    Option,
    document_options,
    option_constraints,
)

ESTIMATORS = [IOHMMClassifier, IOHMMRegressor, HierarchicalIOHMM]


def _options_of(estimator):
    params = estimator().get_params(deep=False)
    return [name for name in OPTIONS if name in params]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: e.__name__)
def test_every_registered_value_is_documented_with_its_summary(estimator):
    doc = " ".join(estimator.__doc__.split())  # wrapping aside
    assert "{{" not in doc  # every marker filled
    options = _options_of(estimator)
    assert {"features", "emission", "init"} <= set(options)
    for name in options:
        option = OPTIONS[name]
        values = ", ".join(f'"{v}"' for v in option.values)
        assert f"{name} : {{{values}}}" in doc, name
        for value, cls in option.registry.items():
            assert f'- ``"{value}"``: {" ".join(cls.summary.split())}' in doc


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: e.__name__)
def test_each_constraint_accepts_exactly_the_registered_values(estimator):
    for name in _options_of(estimator):
        strings = [c for c in estimator._parameter_constraints[name]
                   if isinstance(c, StrOptions)]
        assert len(strings) == 1
        assert strings[0].options == set(OPTIONS[name].values)
        for value in OPTIONS[name].values:
            estimator(**{name: value})._validate_params()
        with pytest.raises(InvalidParameterError, match=name):
            estimator(**{name: "unregistered"})._validate_params()


def test_a_new_registration_reaches_docstring_and_constraint(monkeypatch):
    class Twin:
        summary = "a family registered by this test, with a summary long enough " \
                  "to be wrapped over two lines of the docstring."

    registry = {"first": Twin, "second": Twin}
    monkeypatch.setitem(OPTIONS, "kind", Option(registry, extra=("auto",)))

    @document_options("kind")
    class Estimator:
        """An estimator.

        Parameters
        ----------
        kind : {{kind}}, default="auto"
            The kind:

            {{kind_list}}
        """

    # as help() and Sphinx show it, the same whether or not the compiler
    # stripped the docstring's margin (Python 3.13 does): 84 columns, ruff's
    # 88 less a module-level class docstring's margin
    lines = inspect.cleandoc(Estimator.__doc__).splitlines()
    assert 'kind : {"auto", "first", "second"}, default="auto"' in lines
    bullet = lines.index('    - ``"second"``: a family registered by this test, with a'
                         ' summary long enough to')
    assert lines[bullet + 1] == "      be wrapped over two lines of the docstring."
    assert option_constraints("kind")["kind"][0].options == {"auto", "first", "second"}


def test_generated_lines_do_not_depend_on_the_docstring_margin(monkeypatch):
    # one docstring with its margin, as Python 3.10-3.12 keep it, and
    # without, as 3.13 compiles it: the same text once cleaned, 84 columns
    monkeypatch.setitem(OPTIONS, "kind", Option({"first": type(
        "F", (), {"summary": "word " * 40})}))
    body = "Parameters\n----------\nkind : {{kind}}\n    {{kind_list}}\n"
    kept = "An estimator.\n\n" + textwrap.indent(body, "    ") + "    "
    stripped = "An estimator.\n\n" + body
    docs = [inspect.cleandoc(document_options("kind")(
        type("E", (), {"__doc__": doc})).__doc__) for doc in (kept, stripped)]
    assert docs[0] == docs[1]
    lines = docs[0].splitlines()
    assert lines[5] == "    - ``\"first\"``: " + " ".join(["word"] * 13)
    assert max(len(line) for line in lines) <= 88 - 4 < len(lines[5] + " word")


def test_a_registered_class_without_summary_is_refused(monkeypatch):
    class Mute:
        summary = ""

    monkeypatch.setitem(OPTIONS, "kind", Option({"mute": Mute}))
    with pytest.raises(ValueError, match="Mute, registered as kind='mute', has no"):
        document_options("kind")(
            type("E", (), {"__doc__": "{{kind}}\n    {{kind_list}}"}))
    with pytest.raises(ValueError, match="docstring has no"):
        document_options("kind")(type("E", (), {"__doc__": "nothing"}))


@pytest.mark.parametrize("name", list(OPTIONS))
def test_summaries_are_sentences(name):
    for cls in OPTIONS[name].registry.values():
        assert cls.summary.endswith(".") and not cls.summary[0].isupper()
