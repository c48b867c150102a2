"""The user guide's code runs as written: every ``code-block:: python`` of a
page, in order, in one namespace per page (the pages that fit in the suite's
time; the others are built by hand and by the gallery)."""

import pathlib
import re
import textwrap
import warnings

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

GUIDE = pathlib.Path(__file__).resolve().parents[1] / "doc"
PAGES = ["getting_started.rst", "user_guide/data_model.rst",
         "user_guide/discretized_rnn.rst", "user_guide/early_classification.rst",
         "user_guide/iohmm_classifier.rst", "user_guide/iohmm_regressor.rst",
         "user_guide/long_memory.rst", "user_guide/persistence.rst",
         "user_guide/reading_states.rst", "user_guide/regimes.rst",
         "user_guide/step_labelling.rst"]


def code_blocks(text):
    """The page's Python code blocks: (line number, code), in order."""
    lines, blocks, i = text.splitlines(), [], 0
    while i < len(lines):
        if re.match(r"^\.\. code-block:: python\s*$", lines[i]):
            start, body = i + 1, []
            i += 1
            while i < len(lines) and (not lines[i].strip()
                                      or lines[i].startswith(" ")):
                if not (lines[i].strip().startswith(":") and not body):
                    body.append(lines[i])
                i += 1
            blocks.append((start, textwrap.dedent("\n".join(body))))
        else:
            i += 1
    return blocks


def test_the_reader_finds_every_block():
    text = ".. code-block:: python\n\n   a = 1\n\n   b = a\ntext\n\n" \
           ".. code-block:: python\n   :caption: c\n\n   c = b\n"
    assert code_blocks(text) == [(1, "\na = 1\n\nb = a"), (8, "\nc = b")]


@pytest.mark.parametrize("page", PAGES)
def test_the_pages_code_runs(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # files a page writes (a saved model) go here
    path = GUIDE / page
    blocks = code_blocks(path.read_text(encoding="utf-8"))
    assert blocks, f"{page} has no code block"
    namespace = {"__name__": "guide"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a page's fits may warn, as shown
        for line, code in blocks:
            exec(compile(code, f"{path}:{line}", "exec"), namespace)
    plt.close("all")
