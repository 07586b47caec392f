"""Declared constraints on arguments, checked in one place (scikit-learn's ``validate_params`` shape): a public
function declares what each argument may be with :func:`validate_params`, e.g.
``@validate_params({"n_boot": [Interval(Integral, 0, None)], "chance": [Options({"auto", "none"}), None]})``, and a
value matching none is an :class:`~densing.errors.InputError` ``NAME: expected WHAT, got VALUE``.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import math
import os
import re
import sys
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from numbers import Integral, Real
from pathlib import Path
from types import MappingProxyType
from typing import Any

from densing.errors import InputError
from densing.impossible import date_domain, in_date_domain

#: The largest D0 (training tokens): 1e15. The largest published pre-training budgets are tens of trillions of
#: tokens (Qwen3: 3.6e13) and published estimates of all the text on the indexed web some 5e14: more is a unit slip.
MAX_D0_TOKENS = 1e15


@dataclass(frozen=True)
class Interval:
    """A finite number of ``kind`` (``numbers.Real`` or ``Integral``) between ``left`` and ``right`` (None: open);
    ``closed``: ``"both"``, ``"left"``, ``"right"`` or ``"neither"``; ``why``: the bounds' reason, said with them."""

    kind: type
    left: float | None
    right: float | None
    closed: str = "both"
    why: str = ""

    def matches(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, self.kind):
            return False
        number = float(value)
        above = self.left is None or number > self.left or (number == self.left and self.closed in ("both", "left"))
        below = self.right is None or number < self.right or (number == self.right and self.closed in ("both", "right"))
        return math.isfinite(number) and above and below

    def __str__(self) -> str:
        what = "an integer" if self.kind is Integral else "a number"
        left, right = (_bound(b, self.kind) for b in (self.left, self.right))
        shut_left, shut_right = self.closed in ("both", "left"), self.closed in ("both", "right")
        if self.left is not None and self.right is not None:
            text = f"{what} in {'[' if shut_left else '('}{left}, {right}{']' if shut_right else ')'}"
        elif self.left is not None:
            text = f"{what} {'≥' if shut_left else '>'} {left}"
        elif self.right is not None:
            text = f"{what} {'≤' if shut_right else '<'} {right}"
        else:
            text = f"any finite {'integer' if self.kind is Integral else 'number'}"
        return text + (f" ({self.why})" if self.why else "")


def _bound(bound: float | None, kind: type) -> str:
    """A bound as a refusal writes it: an integer's in full (2147483647), a number's in ``g`` form (1e+15)."""
    if bound is None:
        return ""
    if kind is Integral and float(bound).is_integer():
        return str(int(bound))
    return f"{bound:g}"


@dataclass(frozen=True)
class Options:
    """One of a fixed set of values (strings, usually)."""

    values: frozenset

    def __init__(self, values: Iterable) -> None:
        object.__setattr__(self, "values", frozenset(values))

    def matches(self, value: Any) -> bool:
        try:
            return value in self.values
        except TypeError:  # unhashable
            return False

    def __str__(self) -> str:
        return "one of " + ", ".join(repr(v) for v in sorted(self.values, key=str))


@dataclass(frozen=True)
class ExistingPath:
    """A path to something that exists: ``kind`` ``"file"``, ``"folder"`` or ``"any"``."""

    kind: str = "any"

    def matches(self, value: Any) -> bool:
        if not isinstance(value, (str, os.PathLike)) or (isinstance(value, str) and not value.strip()):
            return False
        try:
            path = Path(value)
            if self.kind == "folder":
                return path.is_dir()
            if self.kind == "file":
                return path.is_file()
            return path.exists()
        except (OSError, TypeError, ValueError):
            return False

    def __str__(self) -> str:
        return {"file": "an existing file", "folder": "an existing folder"}.get(self.kind, "an existing file or folder")


@dataclass(frozen=True)
class Date:
    """A date (a ``datetime.date``, a pandas Timestamp, or ISO ``2023-02-24``, ``2023-02``) in
    [:data:`densing.impossible.EARLIEST_DATE`, today]; no time zone (its day depends on the zone)."""

    def matches(self, value: Any) -> bool:
        day = None
        if isinstance(value, datetime) and value.tzinfo is not None:
            return False
        if isinstance(value, date):
            day = value.date() if isinstance(value, datetime) else value
        elif isinstance(value, str):
            for fmt in ("%Y-%m-%d", "%Y-%m"):
                with contextlib.suppress(ValueError):
                    day = datetime.strptime(value.strip(), fmt).date()
                    break
        return day is not None and in_date_domain(day)

    def __str__(self) -> str:
        return f"a date (YYYY-MM-DD, no time zone) in {date_domain()}"


def as_path(value: Any, name: str = "path"):
    """``value`` as a ``pathlib.Path``, or an InputError naming ``name``: not a string or ``os.PathLike``, or a blank
    string (``Path("")`` is the working folder: an unset variable, most likely)."""
    if isinstance(value, str) and not value.strip():
        raise InputError(
            f"{name}: an empty path (an unset variable?) would mean the working folder; give a file or folder"
        )
    if not isinstance(value, (str, os.PathLike)):
        raise InputError(f"{name}: expected a path (a string or a pathlib.Path), got {value!r}")
    return Path(value)


def first_repeated(items: Iterable[Hashable]) -> Hashable | None:
    """The first of ``items`` that an earlier one equals, None where each is one of a kind: one pass with a set, so
    that a file of 200,000 keys is checked in linear time (comparing each with every earlier one would be quadratic)."""
    seen: set = set()
    for item in items:
        if item in seen:
            return item
        seen.add(item)
    return None


def comma_items(text: str, name: str, read: Callable[[str], Any] = str) -> list:
    """The items of a comma-separated option (``--workers 1,2,4``), each read by ``read``: InputError naming ``name``
    where one is empty (``2,,4``: a slip, not a list of two) or one is given twice (it would be predicted twice)."""
    items = [item.strip() for item in text.split(",")]
    if not any(items):
        raise InputError(f"{name}: expected at least one item, got {text!r}")
    if not all(items):
        raise InputError(f"{name}: an empty item in {text!r}; separate the items by single commas")
    values = [read(item) for item in items]
    if twice := next((items[i] for i, v in enumerate(values) if v in values[:i]), None):
        raise InputError(f"{name}: {twice!r} is given twice in {text!r}; give each once")
    return values


def as_names(value: Any, name: str) -> tuple[str, ...]:
    """``value`` as a tuple of names: one string is one name, a list or tuple its names; InputError naming ``name``
    for anything else (an empty tuple, a blank string, a non-string)."""
    names = (value,) if isinstance(value, str) else value
    if not (isinstance(names, (list, tuple)) and names and all(isinstance(v, str) and v.strip() for v in names)):
        raise InputError(f"{name}: expected a non-empty list or tuple of non-empty strings, got {shown(names)}")
    return tuple(v.strip() for v in names)


#: The most draws a bootstrap takes: 100,000, where the Monte-Carlo error of a 95% interval's end is a few hundredths
#: of a percentile; beyond it the arrays of draws (draws × targets × references) outgrow a workstation's memory.
MAX_DRAWS = 100_000

#: What a fit's bootstrap may be asked for (``fit_reference``, ``fit_family``, ``densing fit``, ``densing ladder fit``):
#: how many draws (0: the point fit alone), on how many processes, from which seed.
BOOTSTRAP_CONSTRAINTS = MappingProxyType(
    {
        "n_boot": [Interval(Integral, 0, MAX_DRAWS)],
        "jobs": [Interval(Integral, 1, None)],
        "seed": [Interval(Integral, 0, None)],
    }
)

#: How many draws an interval is read from: 1 to :data:`MAX_DRAWS` (``densing trend --n-boot``).
DRAWS = Interval(Integral, 1, MAX_DRAWS)

#: The fewest draws a printed 95% interval is read from: 40 (1/0.025), so that each end has a draw beyond it (from
#: fewer an end is the most extreme draw, and can fall beyond its estimate): :func:`densing.cli.output.draws_option`.
MIN_INTERVAL_DRAWS = 40

#: How many draws an interval a person reads is made of, by the API as by the command line.
INTERVAL_DRAWS = Interval(
    Integral,
    MIN_INTERVAL_DRAWS,
    MAX_DRAWS,
    why="each end of a 95% interval needs a draw beyond it; 100,000 is the ceiling",
)

#: What a D0 may be: a positive number of tokens up to :data:`MAX_D0_TOKENS` (finite: a bound excludes NaN and ∞).
D0_TOKENS = Interval(Real, 0, MAX_D0_TOKENS, closed="right")


#: T3's contention γ: a GEMM beside a collective takes (1 + γ)× its time alone, so γ > −1; a measured γ may be below 0
#: (the GEMMs ran faster beside it, within noise: ``overlap whatif --contention-from`` measures −0.19 on one run).
CONTENTION = Interval(Real, -1, None, closed="neither")


def validate(constraints: Mapping[str, list], **arguments: Any) -> None:
    """Check every declared argument against its constraints (a list of allowed forms, ``None`` for "may be None"):
    an InputError ``NAME: expected A or B, got VALUE`` naming the first that matches none."""
    for name, value in arguments.items():
        allowed = constraints.get(name)
        if allowed is None or any(value is None if c is None else c.matches(value) for c in allowed):
            continue
        expected = " or ".join("None" if c is None else str(c) for c in allowed)
        raise InputError(f"{name}: expected {expected}, got {shown(value)}")


def shown(value: Any) -> str:
    """``value`` as a refusal shows it, on one line: a path as typed, a table by its shape and columns, anything else
    by its ``repr`` (on one line, cut past 200 characters)."""
    if isinstance(value, os.PathLike):
        return repr(os.fspath(value))
    pandas = sys.modules.get("pandas")
    if pandas is not None and isinstance(value, pandas.DataFrame):
        columns = [str(c) for c in value.columns]
        listed = ", ".join(columns[:8]) + (f", … ({len(columns)} in all)" if len(columns) > 8 else "")
        return f"a DataFrame of {len(value)} row{'s' if len(value) != 1 else ''} with columns [{listed}]"
    text = repr(value)
    if "\n" in text or len(text) > 200:  # a container of tables, a long list: one line, cut
        text = " ".join(text.split())
        text = text if len(text) <= 200 else f"{text[:200]}… ({type(value).__name__})"
    return text


def validate_params(constraints: Mapping[str, list]) -> Callable:
    """A decorator: :func:`validate` a function's arguments, defaults filled in, in the order declared, before its body
    runs; a call that does not bind reaches the function (Python's own TypeError). The constraints stay on the
    function as ``parameter_constraints``; one on an argument it does not take is a TypeError at import."""

    def attach(function: Callable) -> Callable:
        signature = inspect.signature(function)
        unknown = sorted(set(constraints) - set(signature.parameters))
        if unknown:
            raise TypeError(f"{function.__qualname__}: constraints on arguments it does not take: {', '.join(unknown)}")
        declared = list(constraints)

        @functools.wraps(function)
        def checked(*args, **kwargs):
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError:
                return function(*args, **kwargs)
            bound.apply_defaults()
            validate(constraints, **{name: bound.arguments[name] for name in declared})
            return function(*args, **kwargs)

        checked.parameter_constraints = MappingProxyType(dict(constraints))
        return checked

    return attach


def check_tokens(value: float, *, field: str = "train_tokens", where: str | None = None) -> float:
    """A number of training tokens in (0, :data:`MAX_D0_TOKENS`]; an InputError naming the unit slip otherwise."""
    if D0_TOKENS.matches(value):
        return value
    prefix = f"{where}: " if where else ""
    raise InputError(
        f"{prefix}field '{field}': {value:g} tokens is outside (0, {MAX_D0_TOKENS:g}], more text than "
        "exists (counts are plain numbers, 2e12 for 2T)"
    )


# -- The value kinds that look at a value's type or shape: a DataFrame, an instance, a whole number, a device, text ----


@dataclass(frozen=True)
class Frame:
    """A pandas DataFrame holding ``columns`` (each once) and at least ``min_rows`` rows."""

    columns: tuple = ()
    min_rows: int = 1

    def matches(self, value: Any) -> bool:
        pandas = sys.modules.get("pandas")
        if pandas is None or not isinstance(value, pandas.DataFrame) or len(value) < self.min_rows:
            return False
        return all(list(value.columns).count(c) == 1 for c in self.columns)

    def __str__(self) -> str:
        rows = f" and at least {self.min_rows} row{'s' if self.min_rows != 1 else ''}" if self.min_rows else ""
        return f"a DataFrame with column(s) {', '.join(self.columns)} (each once){rows}"


@dataclass(frozen=True)
class InstanceOf:
    """An object of class ``kind``, described to the user as ``words``."""

    kind: type
    words: str

    def matches(self, value: Any) -> bool:
        return isinstance(value, self.kind)

    def __str__(self) -> str:
        return self.words


@dataclass(frozen=True)
class WholeNumber:
    """A whole number (an integer, or a float with no fractional part) in [``left``, ``right``]."""

    left: float
    right: float

    def matches(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, Real):
            return False
        number = float(value)
        return math.isfinite(number) and number.is_integer() and self.left <= number <= self.right

    def __str__(self) -> str:
        return f"a whole number in [{int(self.left):,}, {int(self.right):,}]"


#: The device types a model is run on, as ``torch.device`` spells them: the CPU, NVIDIA and AMD GPUs (``cuda``),
#: Apple's GPU (``mps``), Intel's (``xpu``), Gaudi (``hpu``), Ascend (``npu``), TPUs (``xla``) and Meta's (``mtia``).
DEVICE_TYPES = ("cpu", "cuda", "mps", "xpu", "hpu", "npu", "xla", "mtia")
_DEVICE_RE = re.compile(rf"(?:{'|'.join(DEVICE_TYPES)})(?::(?:0|[1-9][0-9]{{0,3}}))?")


@dataclass(frozen=True)
class Device:
    """A torch device string: a type of :data:`DEVICE_TYPES`, optionally ``:N`` (``cuda:1``), read without torch."""

    def matches(self, value: Any) -> bool:
        return isinstance(value, str) and _DEVICE_RE.fullmatch(value) is not None

    def __str__(self) -> str:
        return f"a device ({', '.join(DEVICE_TYPES)}, or one with an index: cuda:N)"


@dataclass(frozen=True)
class Text:
    """A string with something in it (a blank one, an unset variable, is refused)."""

    def matches(self, value: Any) -> bool:
        return isinstance(value, str) and value.strip() != ""

    def __str__(self) -> str:
        return "a non-empty string"
