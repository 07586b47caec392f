"""The base of densing's result objects (statsmodels' ``Results`` is the model): JSON, a tidy row, HTML.

A result is a frozen dataclass that inherits :class:`Result`. It gets

- ``to_dict()``: its fields in order, a non-finite float as None (JSON ``null``), a nested result
  as its own ``to_dict()``; fields named in ``_dict_exclude`` (bulky arrays) left out;
- ``to_frame()``: one row of its fields (raw values: NaN stays NaN), the same fields left out;
- ``_repr_html_()``: a field/value table for notebooks (numbers by :func:`densing.numbers.format_number`);
- ``summary()``: the same fields as plain text, one ``field: value`` line each (numbers by the one rule).

A type whose JSON or table has another shape overrides the method; a type whose dict gains a
derived value extends ``to_dict`` with ``{**super().to_dict(), ...}``.
"""
from __future__ import annotations

import math
from dataclasses import fields
from typing import ClassVar


def _json_value(value):
    if isinstance(value, Result):
        return value.to_dict()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


class Result:
    """Mixin for frozen dataclasses of results: ``to_dict``, ``to_frame``, ``_repr_html_``."""

    _dict_exclude: ClassVar[tuple[str, ...]] = ()

    def _fields(self) -> list[str]:
        return [f.name for f in fields(self) if f.name not in self._dict_exclude]

    def to_dict(self) -> dict:
        """The fields as a JSON-ready dict (non-finite numbers → None)."""
        return {name: _json_value(getattr(self, name)) for name in self._fields()}

    def to_frame(self):
        """One row of the fields (NaN stays NaN)."""
        import pandas as pd

        return pd.DataFrame([{name: getattr(self, name) for name in self._fields()}])

    def summary(self) -> str:
        """The fields as text: a title line, then ``field: value`` (3 significant figures, counts in words)."""
        from densing.numbers import format_number

        def text(value) -> str:
            if isinstance(value, float):
                return format_number(value)
            if isinstance(value, Result):
                return type(value).__name__
            shown = str(value)
            return shown if len(shown) <= 100 else shown[:97] + "…"

        names = self._fields()
        width = max((len(n) for n in names), default=0)
        return "\n".join([type(self).__name__, *(f"  {n:<{width}}  {text(getattr(self, n))}" for n in names)])

    def _repr_html_(self) -> str:
        from densing import _html

        return _html.table(["field", "value"], [(name, getattr(self, name)) for name in self._fields()],
                           caption=type(self).__name__)
