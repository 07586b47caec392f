"""The value kinds of :mod:`densing.validation`'s constraints that look at a value's type or shape: a DataFrame with
given columns, an instance of a class, a whole number, a torch device string, a non-empty string, a list of names
(:func:`densing.validation.validate` checks them; each has ``matches(value)`` and reads as its domain in words)."""
from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass
from numbers import Real
from typing import Any


@dataclass(frozen=True)
class Frame:
    """A pandas DataFrame holding ``columns`` (each once) and at least ``min_rows`` rows."""

    columns: tuple = ()
    min_rows: int = 1

    def matches(self, value: Any) -> bool:
        pandas = sys.modules.get("pandas")
        if pandas is None or not isinstance(value, pandas.DataFrame) or len(value) < self.min_rows:
            return False
        names = list(value.columns)
        return all(names.count(c) == 1 for c in self.columns)

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
    """A torch device string: a type of :data:`DEVICE_TYPES`, optionally ``:N`` (the device index, as ``cuda:1``).

    Parsed here, not by ``torch.device``: the check runs before any model (and torch, an optional extra) loads.
    """

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


@dataclass(frozen=True)
class Names:
    """A non-empty list or tuple of non-empty strings (a lone string is not a list of names)."""

    def matches(self, value: Any) -> bool:
        return (isinstance(value, (list, tuple)) and len(value) > 0
                and all(isinstance(v, str) and v.strip() != "" for v in value))

    def __str__(self) -> str:
        return "a non-empty list or tuple of non-empty strings"
