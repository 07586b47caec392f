"""The base of densing's result objects (statsmodels' ``Results`` is the model): JSON, a tidy row, HTML.

A result is a frozen dataclass that inherits :class:`Result`. It gets

- ``to_dict()``: its fields in order, a non-finite float as None (JSON ``null``), a nested result
  as its own ``to_dict()``; fields named in ``_dict_exclude`` (bulky arrays) left out;
- ``to_frame()``: one row of its fields (raw values: NaN stays NaN), the same fields left out;
- ``summary()``: a :class:`~densing.present.summary.Summary` of its fields (``print`` gives text, one
  ``field  value`` line each; ``_repr_html_()`` its HTML table for notebooks; numbers by one rule);
- ``conf_int(alpha=0.05)``: the (1 − alpha) intervals of its headline numbers as a DataFrame, one row per quantity
  (below).

``conf_int()`` has one shape for every result: a DataFrame indexed by ``quantity`` with the columns
``estimate``, ``ci_low`` and ``ci_high``. Each pair of fields ``X_ci_low``/``X_ci_high`` is row ``X``; its
estimate is field ``X``, else the field ``_ci_estimates`` names for it (``{"slope": "slope_per_day"}``), else
NaN. A nested result's rows follow, named ``field.X`` (not those of a field left out by ``_dict_exclude``). A
result with no intervals gives the frame with no rows.

A result holds its intervals at one level (bootstrap percentiles or an analytic interval computed when it was
fitted): the field ``_level_field`` names (``level``; ``ci`` for the trend fits), else :data:`DEFAULT_LEVEL`.
``conf_int(alpha)`` gives them for alpha = 1 − that level and refuses any other alpha with an
:class:`~densing.errors.InputError` that names the level it holds (refit at the level wanted); a type that keeps
its draws (:class:`densing.laws.reference_fit.ReferenceFit`) computes any level from them instead.

``_summary_items()`` gives the (name, value) pairs that ``summary()`` shows (default: the
fields of ``to_dict``); a type with bulky fields shows shorter ones there.

A type whose JSON or table has another shape overrides the method; a type whose dict gains a
derived value extends ``to_dict`` with ``{**super().to_dict(), ...}``.
"""
from __future__ import annotations

import math
from dataclasses import fields
from numbers import Real
from typing import TYPE_CHECKING, ClassVar

from densing.errors import InputError
from densing.numbers import json_value
from densing.validation import Interval, validate_params

if TYPE_CHECKING:
    from densing.present.summary import Summary

CONF_INT_COLUMNS = ("estimate", "ci_low", "ci_high")
#: The level of a result's stored intervals when it has no field saying so.
DEFAULT_LEVEL = 0.95
#: What ``conf_int``'s ``alpha`` may be.
ALPHA_CONSTRAINTS = {"alpha": [Interval(Real, 0, 1, closed="neither")]}


def frame_records(frame) -> list[dict]:
    """A DataFrame's rows as JSON-ready dicts: numpy scalars as Python numbers, a non-finite number as None."""
    return [{str(k): json_value(v) for k, v in row.items()} for row in frame.to_dict("records")]


def interval_frame(rows: dict[str, tuple[float, float, float]]):
    """The frame :meth:`Result.conf_int` returns: ``quantity`` → (estimate, ci_low, ci_high)."""
    import pandas as pd

    frame = pd.DataFrame([list(v) for v in rows.values()], columns=list(CONF_INT_COLUMNS), index=list(rows), dtype=float)
    frame.index.name = "quantity"
    return frame


class Result:
    """Mixin for frozen dataclasses of results: ``to_dict``, ``to_frame``, ``_repr_html_``."""

    _dict_exclude: ClassVar[tuple[str, ...]] = ()
    _ci_estimates: ClassVar[dict[str, str]] = {}   # interval X → the field of its estimate, where it is not X
    _level_field: ClassVar[str] = "level"          # the field holding the level of its intervals, where it has one
    _shown_as: ClassVar[dict[str, str]] = {}      # a field → the property shown in its place (a state → its words)

    def _fields(self) -> list[str]:
        return [self._shown_as.get(f.name, f.name) for f in fields(self) if f.name not in self._dict_exclude]

    def to_dict(self) -> dict:
        """The fields as a JSON-ready dict (non-finite numbers → None)."""
        return {name: json_value(getattr(self, name)) for name in self._fields()}

    def to_frame(self):
        """One row of the fields (NaN stays NaN)."""
        import pandas as pd

        return pd.DataFrame([{name: getattr(self, name) for name in self._fields()}])

    def summary(self) -> Summary:
        """The result as a :class:`~densing.present.summary.Summary` (``print`` it for the terminal's text; a notebook
        shows its HTML): the type's name, then the (name, value) pairs of :meth:`_summary_items`."""
        from densing.present.summary import Summary

        return Summary(type(self).__name__, items=tuple(self._summary_items()))

    def _summary_items(self) -> list[tuple[str, object]]:
        """The (name, value) pairs of :meth:`summary` and the notebook table: the fields of :meth:`to_dict`."""
        return [(name, getattr(self, name)) for name in self._fields()]

    def interval_level(self) -> float:
        """The level of the intervals this result holds (module docstring)."""
        return float(getattr(self, self._level_field, DEFAULT_LEVEL))

    def _check_alpha(self, alpha: float) -> None:
        """An :class:`~densing.errors.InputError` unless ``alpha`` is 1 − the level of the intervals this result
        holds."""
        level = self.interval_level()
        alpha = float(alpha)  # np.float32(0.05) is 0.05 to single precision, as its user means
        if not math.isclose(1.0 - alpha, level, abs_tol=1e-6):
            raise InputError(f"alpha: {type(self).__name__} holds {level:.4g} intervals (alpha = {1.0 - level:.4g}), "
                             f"got {alpha:.6g}; refit at level {1.0 - alpha:.4g} for those")

    @validate_params(ALPHA_CONSTRAINTS)
    def conf_int(self, alpha: float = 0.05):
        """The (1 − ``alpha``) intervals of the headline numbers: a DataFrame indexed by ``quantity`` with columns
        ``estimate``, ``ci_low``, ``ci_high`` (module docstring: each ``X_ci_low``/``X_ci_high`` pair is row ``X``, a
        nested result's rows are ``field.X``); no rows when the result has no intervals. An alpha other than the
        one its intervals were computed at is an InputError naming that level."""
        names = [f.name for f in fields(self)]
        rows: dict[str, tuple[float, float, float]] = {}
        for name in names:
            value = getattr(self, name)
            if name.endswith("_ci_low") and name.removesuffix("_ci_low") + "_ci_high" in names:
                self._check_alpha(alpha)
                quantity = name.removesuffix("_ci_low")
                estimate = quantity if quantity in names else self._ci_estimates.get(quantity)
                rows[quantity] = (math.nan if estimate is None else getattr(self, estimate), value,
                                  getattr(self, quantity + "_ci_high"))
            elif isinstance(value, Result) and name not in self._dict_exclude:
                for quantity, row in value.conf_int(alpha).iterrows():
                    rows[f"{name}.{quantity}"] = tuple(row)
        return interval_frame(rows)

    def _repr_html_(self) -> str:
        return self.summary().as_html()
