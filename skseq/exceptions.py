"""Warnings that skseq raises besides scikit-learn's own.

:class:`InputHintWarning` is raised where input looks given in a mistaken
form; filter it by class, as scikit-learn's ``ConvergenceWarning`` is
filtered, rather than by the text of its message.
"""

from ._data.checks import InputHintWarning

__all__ = ["InputHintWarning"]
