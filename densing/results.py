"""The base of densing's result objects (statsmodels' ``Results`` is the model): ``to_dict``, ``to_frame``,
``conf_int`` and ``_repr_html_`` (docs/api.md, "Result types").

A result holds values and state codes only: no words. What a reader sees of it (its summary, status, figures, the
JSON's words) comes from :mod:`densing.present`, which stands above every result and which no result module imports.
The one way back is :data:`_display`: a single object the presentation layer installs when it loads
(:func:`install_display`), through which ``_repr_html_`` (and the text repr of the types that define one) shows a
result; before it is installed a result shows its values. It is a hook, not a registry: it names no rendering, and
the result modules it serves never learn which module fills it.

Why a hook and no more: a notebook shows a result by calling its ``_repr_html_``, so the result must reach its words
somehow; every other surface calls :mod:`densing.present` itself. Reaching them by an import (even a deferred one) or
by a table of names would make the values depend on the words, load every rendering (the placement's with the trend's)
wherever a result is shown, and let a word hide behind an attribute. With the hook the dependency points one way,
from present/ down to the results, and a result type needs nothing in its module to be shown.
"""

from __future__ import annotations

import math
from dataclasses import fields
from numbers import Real
from typing import ClassVar, Protocol

from densing.errors import InputError

# frame_records is public here too (`name as name` marks a re-export)
from densing.numbers import frame_records as frame_records, json_value
from densing.validation import Interval, validate_params

CONF_INT_COLUMNS = ("estimate", "ci_low", "ci_high")
#: The level of a result's stored intervals when it has no field saying so.
DEFAULT_LEVEL = 0.95
#: What ``conf_int``'s ``alpha`` may be.
ALPHA_CONSTRAINTS = {"alpha": [Interval(Real, 0, 1, closed="neither")]}


class Display(Protocol):
    """How results show themselves to a reader: ``html`` for a notebook's cell, ``text`` for a terminal's repr."""

    def html(self, result: object) -> str: ...

    def text(self, result: object) -> str: ...


#: The display the presentation layer installs (:func:`install_display`); None until it loads.
_display: Display | None = None


def install_display(display: Display) -> None:
    """Make ``display`` the way every result shows itself (called by :mod:`densing.present` as it loads)."""
    global _display
    _display = display


def values_repr(result) -> str:
    """``Type(field=value, ...)`` of the fields a dataclass repr shows: a result's text before a display is installed."""
    shown = ", ".join(f"{f.name}={getattr(result, f.name)!r}" for f in fields(result) if f.repr)
    return f"{type(result).__name__}({shown})"


def displayed_text(result) -> str:
    """``result`` as the installed display writes it for a terminal, or its values (:func:`values_repr`) without one."""
    if _display is None:
        return values_repr(result)
    return _display.text(result)


def interval_frame(rows: dict[str, tuple[float, float, float]]):
    """The frame :meth:`Result.conf_int` returns: ``quantity`` → (estimate, ci_low, ci_high)."""
    import pandas as pd

    frame = pd.DataFrame(
        [list(v) for v in rows.values()], columns=list(CONF_INT_COLUMNS), index=list(rows), dtype=float
    )
    frame.index.name = "quantity"
    return frame


class Result:
    """Mixin for frozen dataclasses of results: ``to_dict``, ``to_frame``, ``_repr_html_``."""

    _dict_exclude: ClassVar[tuple[str, ...]] = ()  # bulky fields left out of the dict, the frame and the summary
    _ci_estimates: ClassVar[dict[str, str]] = {}  # interval X → the field of its estimate, where it is not X
    _level_field: ClassVar[str] = "level"  # the field holding its intervals' level (else DEFAULT_LEVEL)

    def _fields(self) -> list[str]:
        return [f.name for f in fields(self) if f.name not in self._dict_exclude]

    def to_dict(self) -> dict:
        """The fields as a JSON-ready dict of values (non-finite numbers → None, a state as its code); the record a
        reader sees, with its words, is :func:`densing.present.record`."""
        return {name: json_value(getattr(self, name)) for name in self._fields()}

    def to_frame(self):
        """One row of the fields (NaN stays NaN)."""
        import pandas as pd

        return pd.DataFrame([{name: getattr(self, name) for name in self._fields()}])

    def _summary_items(self) -> list[tuple[str, object]]:
        """The (name, value) pairs a summary shows by default (:func:`densing.present.summary`): the fields of
        :meth:`to_dict`."""
        return [(name, getattr(self, name)) for name in self._fields()]

    def interval_level(self) -> float:
        """The level of the intervals this result holds."""
        return float(getattr(self, self._level_field, DEFAULT_LEVEL))

    def _check_alpha(self, alpha: float) -> None:
        """An :class:`~densing.errors.InputError` unless ``alpha`` is 1 − its intervals' level."""
        level = self.interval_level()
        alpha = float(alpha)  # np.float32(0.05) is 0.05 to single precision, as its user means
        if not math.isclose(1.0 - alpha, level, abs_tol=1e-6):
            raise InputError(
                f"alpha: {type(self).__name__} holds {level:.4g} intervals (alpha = {1.0 - level:.4g}), "
                f"got {alpha:.6g}; refit at level {1.0 - alpha:.4g} for those"
            )

    @validate_params(ALPHA_CONSTRAINTS)
    def conf_int(self, alpha: float = 0.05):
        """The (1 − ``alpha``) intervals: a DataFrame indexed by ``quantity`` (each ``X_ci_low``/``X_ci_high`` pair
        is row ``X``, a nested result's ``field.X``) with columns ``estimate``, ``ci_low``, ``ci_high``. An alpha
        other than the one its intervals were computed at is an InputError naming that level."""
        names = [f.name for f in fields(self)]
        rows: dict[str, tuple[float, float, float]] = {}
        for name in names:
            value = getattr(self, name)
            if name.endswith("_ci_low") and name.removesuffix("_ci_low") + "_ci_high" in names:
                self._check_alpha(alpha)
                quantity = name.removesuffix("_ci_low")
                estimate = quantity if quantity in names else self._ci_estimates.get(quantity)
                rows[quantity] = (
                    math.nan if estimate is None else getattr(self, estimate),
                    value,
                    getattr(self, quantity + "_ci_high"),
                )
            elif isinstance(value, Result) and name not in self._dict_exclude:
                rows.update({f"{name}.{quantity}": tuple(row) for quantity, row in value.conf_int(alpha).iterrows()})
        return interval_frame(rows)

    def _repr_html_(self) -> str | None:
        """The result as the installed display shows it in a notebook (:data:`_display`); None without one (a notebook
        then shows the text repr)."""
        if _display is None:
            return None
        return _display.html(self)
