"""One exception hierarchy for all of perfweave.

Every error a user can cause with bad input is a :class:`PerfweaveError`, so a notebook
or the CLI can catch one class. Errors that come from reading a file carry the file, the
position and what was expected, and say all three in their message.

Which Python class an error also is:

- a value the call does not take (an unknown choice, a number out of range, arguments
  that exclude each other) is an :class:`ArgumentError`, a ``ValueError``; the cores
  never raise a bare ``ValueError`` (``tests/test_layers.py`` keeps it so): each error
  is the perfweave class that says what is wrong, and every one of them that a value
  can cause is also a ``ValueError``, so ``except ValueError`` keeps working;
- an argument of a type the call does not take is an :class:`ArgumentTypeError` (or,
  for an option, an :class:`OptionError`), a ``TypeError`` as Python's convention has it;
- a plain ``TypeError`` is kept only where Python's protocols ask for exactly that: an
  object without a truth value, length or iteration (``bool()`` of a column view, as
  pandas raises), a class that is not called directly (``Graph()``), and the ``default``
  hook of ``json.dumps``, which must raise ``TypeError`` for what it cannot encode.
"""

from __future__ import annotations

from os import PathLike


class PerfweaveError(Exception):
    """Base class of every error perfweave raises on purpose."""


class ParseError(PerfweaveError, ValueError):
    """A file (or string) does not follow its format.

    ``path`` names the file (or ``"<string>"``), ``line`` the 1-based line (or ``None``
    where the format has no lines, e.g. a byte offset is given in ``position``),
    ``expected`` what the parser wanted and ``found`` what it saw (text, or any object,
    shown as a short repr however deeply it nests).
    """

    def __init__(
        self,
        path: str | PathLike[str] | None,
        expected: str,
        *,
        line: int | None = None,
        position: str | int | None = None,
        found: object = None,
    ) -> None:
        if found is not None and not isinstance(found, str):
            found = _preview(found)
        self.path = str(path) if path is not None else "<string>"
        self.line = line
        self.position = position
        self.expected = expected
        self.found = found
        where = self.path
        if line is not None:
            where += f", line {line}"
        if position is not None:
            where += f", {position}" if isinstance(position, str) else f", offset {position}"
        msg = f"{where}: expected {expected}"
        if found is not None:
            shown = found if len(found) <= 80 else found[:77] + "..."
            msg += f", found {shown!r}"
        super().__init__(msg)


def _preview(value: object) -> str:
    """A short repr of any parsed value: bounded in length and depth (never recursing
    through a 10,000-level structure, as ``str()`` of one does)."""
    import reprlib

    short = reprlib.Repr()
    short.maxlevel, short.maxstring, short.maxother = 3, 60, 60
    short.maxlist = short.maxtuple = short.maxdict = 6
    try:
        return short.repr(value)
    except Exception:  # a broken __repr__ of some object: name its type
        return f"<{type(value).__name__}>"


class FormatError(PerfweaveError, ValueError):
    """A file is not of a format perfweave can read (or not the format asked for)."""


class ShapeError(PerfweaveError, ValueError):
    """Objects that must agree in shape do not: metric sets, index levels, matrix sizes."""


class QueryError(PerfweaveError, ValueError):
    """A filter query string is not valid (perfweave never evaluates user strings)."""


class GraphError(PerfweaveError, ValueError):
    """A graph is malformed: missing or cyclic parents, unknown nodes, no nodes at all."""


class DuplicateProfileError(PerfweaveError, ValueError):
    """Two profiles of an ensemble have the same identity."""


class MetadataError(PerfweaveError, KeyError):
    """Metadata needed for an operation is missing or cannot be matched."""

    def __str__(self) -> str:  # KeyError quotes its message; show it plainly
        return str(self.args[0]) if self.args else ""


class SpecError(PerfweaveError, ValueError):
    """A profile specification (opreport's tag:value list) is not valid."""


class AxisConflict(PerfweaveError):
    """Profile classes differ along more than one axis (opreport's error)."""


class MergeError(PerfweaveError, ValueError):
    """Subexperiments cannot be merged as asked (HRM / MUCH)."""


class ArgumentError(PerfweaveError, ValueError):
    """An argument has a value the call does not take: the message names the argument,
    the value and what the call takes (``order must be 'pre' or 'post', not 'in'``)."""


class ArgumentTypeError(PerfweaveError, TypeError):
    """An argument is of a type the call does not take (an item of ``concat`` that is not
    an Ensemble): the message names the argument, its type and the type expected."""


class DependencyError(PerfweaveError, ImportError):
    """An optional package needed for this call is not installed."""


class OptionError(PerfweaveError, TypeError):
    """A call got an option it does not take (named, with the options it does take)."""


class PerfweaveWarning(UserWarning):
    """Base class of every warning perfweave issues on purpose."""


class SkippedInputWarning(PerfweaveWarning):
    """A lenient reader skipped part of its input (a file, record or value) and kept the rest.

    The message names what was skipped (file, line or record) and why; ``strict`` modes
    raise the corresponding error instead.
    """


class IncompleteInputWarning(PerfweaveWarning):
    """Input was read whole but holds less than it declares (e.g. fewer calls than its
    header lists: a file cut short after a complete block); the message says what is missing.
    """


class UnterminatedTraceWarning(IncompleteInputWarning):
    """A trace file ends inside its event array (no closing ``]``): the run that wrote it
    died or is still running. Its complete events are read; the message names the file and
    how many events it holds."""


class UnmatchedCallsWarning(IncompleteInputWarning):
    """Calls that one kind of profiler file lists lack another: calls with counts or
    timings but no backtrace (woven under a ``(no backtrace)`` node), calls of a call site
    without counts or without times on some ranks (those columns are NaN there, never 0).
    The message counts the calls and names the call sites."""


class MissingMetricWarning(PerfweaveWarning):
    """Metrics asked for (or a reader's default metric) are not in the input, or the input
    has none: the result lacks their columns. The message names them and the metrics the
    input has; when none of those asked for exists the call raises OptionError instead."""


class NoRegionWarning(PerfweaveWarning):
    """A sampling profile has samples outside any annotated region: they are kept under a
    "(no region)" root node (Hatchet drops them); the message counts them."""


class ParallelReadWarning(PerfweaveWarning):
    """Files asked to be read on several processes were read in this one (the message says
    why, e.g. a script without a ``__main__`` guard that also runs threads); the result is
    the same, only slower."""


def require(module: str, extra: str, purpose: str):
    """Import an optional ``module`` or raise :class:`DependencyError` naming the extra."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise DependencyError(
            f"{purpose} needs the package {module!r}: pip install 'perfweave[{extra}]'"
        ) from exc


__all__ = [
    "ArgumentError",
    "ArgumentTypeError",
    "AxisConflict",
    "DependencyError",
    "DuplicateProfileError",
    "FormatError",
    "GraphError",
    "IncompleteInputWarning",
    "MergeError",
    "MetadataError",
    "MissingMetricWarning",
    "NoRegionWarning",
    "OptionError",
    "ParallelReadWarning",
    "ParseError",
    "PerfweaveError",
    "PerfweaveWarning",
    "QueryError",
    "ShapeError",
    "SkippedInputWarning",
    "SpecError",
    "UnmatchedCallsWarning",
    "UnterminatedTraceWarning",
    "require",
]
