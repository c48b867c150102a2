"""Warnings ignored in the calling thread only.

``warnings.catch_warnings()`` swaps the process-wide list of filters and puts
the saved one back on exit. Before Python 3.14 (and after it, unless
``sys.flags.context_aware_warnings`` is set) that is not thread-safe: while one
thread ignores a category, every other thread's warnings of that category are
lost too, and two such sections that overlap in time restore each other's
lists, which can leave a filter installed for good. A fit run in threads (a
threading joblib backend, a thread pool fitting several models) would hide
warnings meant for the user.

:func:`ignoring` instead puts into the list a filter whose message pattern
matches only in the execution contexts (threads) inside it: in any other
thread the filter does not apply. The filter stays in the list once added,
inert outside :func:`ignoring`, so that another thread restoring a list it
saved earlier does not take it away from a thread that is still inside.
Entering again moves the same filter to the front rather than adding one, so
the list holds at most one such filter per rule (skseq uses four, however
many fits run); the four add about a microsecond to every warning raised in
the process (an ignored one took 0.95 us without them, 2.0 us with them).

The pattern is duck-typed: ``re.Pattern`` cannot be subclassed, and the
warnings machinery (its C and Python implementations alike) only calls a
filter's ``match`` with the message.
"""

import contextvars
import re
import sys
import threading
import warnings
from contextlib import ExitStack, contextmanager

# Serializes skseq's own edits of the list of filters.
_LOCK = threading.Lock()
_MATCHERS = {}


def _never():
    """A pattern no message matches."""
    return re.compile("(?!)")


class _ContextPattern:
    """The message pattern of a warnings filter: matches as ``message`` (a
    regular expression matched at the start, case-insensitively, as
    :func:`warnings.filterwarnings` does) in a context inside
    :func:`ignoring` for it, and nothing anywhere else."""

    # What scikit-learn's Parallel reads to copy the filters into its workers:
    # a copy matches nothing, so it never ignores a warning of a thread or
    # process that did not ask for it.
    pattern = "(?!)"

    def __init__(self, message):
        self._regex = re.compile(message, re.I)
        self.depth = contextvars.ContextVar(f"skseq_ignoring_{message!r}",
                                            default=0)

    def match(self, text):
        """Called by the warnings machinery in the thread that warns."""
        return self.depth.get() > 0 and self._regex.match(text) is not None

    def __reduce__(self):  # pickled (e.g. for a worker process): inert
        return _never, ()


def _installed(category, message):
    """The pattern of the filter ignoring ``category`` with ``message``, its
    filter moved to the front of the list (where ``simplefilter`` puts a new
    one, so it takes precedence over the user's)."""
    with _LOCK:
        pattern = _MATCHERS.setdefault((category, message),
                                       _ContextPattern(message))
        entry = ("ignore", pattern, category, None, 0)
        filters = warnings.filters
        if not filters or filters[0][1] is not pattern:
            filters[:] = [entry, *(f for f in filters if f[1] is not pattern)]
        return pattern


@contextmanager
def _depth(pattern):
    token = pattern.depth.set(pattern.depth.get() + 1)
    try:
        yield
    finally:
        pattern.depth.reset(token)


@contextmanager
def ignoring(*rules):
    """Within it, this thread's warnings that match one of ``rules`` are
    ignored; other threads' are not.

    Parameters
    ----------
    *rules : (type, str)
        A warning category and a regular expression its message must match
        at the start (``""``: any message).
    """
    if getattr(sys.flags, "context_aware_warnings", False):
        # catch_warnings then keeps its filters in the context: thread-safe.
        with warnings.catch_warnings():
            for category, message in rules:
                warnings.filterwarnings("ignore", message, category)
            yield
        return
    with ExitStack() as stack:
        for category, message in rules:
            stack.enter_context(_depth(_installed(category, message)))
        yield
