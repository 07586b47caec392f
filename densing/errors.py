"""One error hierarchy for densing: library code raises a :class:`DensingError` whose message names the file, row or
field and what was expected; the CLI turns it into one line on stderr and exit code 2.
"""

from __future__ import annotations


class DensingError(Exception):
    """Base class of every error densing raises on purpose."""


class InputError(DensingError, ValueError):
    """Bad user input: a file, row or field that does not hold what was expected."""


class FitError(DensingError, RuntimeError):
    """A law could not be fitted (too few points, no convergence, degenerate data)."""


class TraceError(InputError):
    """A profiler trace that cannot be analysed (truncated, malformed, no events, no GPU kernels)."""


class EvalError(DensingError, RuntimeError):
    """An evaluation run that cannot start or finish (unknown benchmark, missing model)."""


class WorkerError(DensingError, RuntimeError):
    """A worker process died (killed, out of memory) before it handed back its result."""


class RegistryError(InputError):
    """A registration refused by one of densing's registries (:class:`densing.registry.Registry`): a name taken twice,
    a name that is not a non-empty string, or an item that is not what the registry holds."""


def first_line(exc: BaseException) -> str:
    """The first line of ``exc``'s message (its type's name where it has none): a third party's error in one line."""
    text = str(exc)
    return text.splitlines()[0] if text else type(exc).__name__


def quoted(name: object) -> str:
    """``name`` quoted for an error line, and flagged where it holds non-ASCII characters, by code point, so that a
    look-alike (``МMLU``, its М Cyrillic) never reads as the name it imitates: ``'МMLU' (holds non-ASCII: U+041C)``."""
    text = str(name)
    odd = list(dict.fromkeys(f"U+{ord(c):04X}" for c in text if ord(c) > 127))
    return repr(text) + (f" (holds non-ASCII: {', '.join(odd[:3])}{', …' if len(odd) > 3 else ''})" if odd else "")
