"""Sphinx configuration of the skseq documentation.

Build with warnings as errors: ``sphinx-build -W -b html doc doc/_build/html``.
Add ``-D plot_gallery=0`` to skip running the gallery's examples while editing.
"""

import os
import re

import skseq

# The gallery runs its examples with the non-interactive backend.
os.environ.setdefault("MPLBACKEND", "Agg")

project = "skseq"
author = "the skseq developers"
copyright = "the skseq developers"
release = skseq.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    # MathJax bundled into _static/, so equations render without network access.
    "sphinx-mathjax-offline",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "sg_execution_times.rst"]

# -- API reference --------------------------------------------------------------
autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": True}
# The class template lists the methods; numpydoc must not add a second table.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

# Estimators inherit methods from scikit-learn (get_params, set_fit_request,
# ...), whose docstrings point into scikit-learn's own site with :ref: and
# :term:. Keep their text, drop the links that cannot resolve here.
_SKLEARN_LINK = re.compile(r":(?:ref|term):`([^`<]*?)\s*(?:<[^`>]*>)?`")


def _unlink_sklearn_docstrings(app, what, name, obj, options, lines):
    module = getattr(obj, "__module__", None) or ""
    if module.split(".")[0] == "sklearn":
        lines[:] = [_SKLEARN_LINK.sub(r"\1", line) for line in lines]


# skseq's docstrings write formulas as plain text, and a few plain-text
# spellings mean something else in RST: "|x - y|" is a substitution reference
# and a word ending in "_" inside a type, as in "(n_features_in_,)", a link.
# Quote them as literals. This runs before numpydoc parses the sections.
_BARS = re.compile(r"(?<![|`])\|([^|\s`][^|`]*?[^|\s`])\|(?![|`])")
_TYPED = re.compile(r"^(\s*[\w*, ]+ : )(.*)$")
_TRAILING_UNDERSCORE = re.compile(r"(?<![`\w])([A-Za-z]\w*_)(?![\w`])")


def _quote_plain_text(app, what, name, obj, options, lines):
    module = getattr(obj, "__module__", None) or ""
    if module.split(".")[0] != "skseq":
        return
    for i, line in enumerate(lines):
        line = _BARS.sub(r"``|\1|``", line)
        typed = _TYPED.match(line)
        if typed:
            line = typed[1] + _TRAILING_UNDERSCORE.sub(r"``\1``", typed[2])
        lines[i] = line


def setup(app):
    app.connect("autodoc-process-docstring", _quote_plain_text, priority=100)
    app.connect("autodoc-process-docstring", _unlink_sklearn_docstrings)


# -- Markdown (benchmark results in doc/results/) -------------------------------
# Benchmark scripts write these pages; a heading level they skip should not fail
# the build.
suppress_warnings = ["myst.header"]
myst_heading_anchors = 3

# -- Gallery -------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": "/plot_",
    # One subsection per task, in the order of the landing page; a folder not
    # listed here comes last.
    "subsection_order": [
        "../examples/classify_sequences",
        "../examples/label_steps",
        "../examples/regimes",
        "../examples/grammars",
        "../examples/long_memory",
        "*",
    ],
    "abort_on_example_error": True,
    "doc_module": ("skseq",),
    "reference_url": {"skseq": None},
    "backreferences_dir": "generated/backreferences",
    "within_subsection_order": "FileNameSortKey",
    "min_reported_time": 1,
    "show_memory": False,
    "remove_config_comments": True,
}

# -- HTML ------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"skseq {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc", "sourcelink"],
}
html_sidebars = {"index": [], "getting_started": [], "which_estimator": [],
                 "references": []}
html_static_path = []
html_show_sourcelink = True
