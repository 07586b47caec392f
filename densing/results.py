"""The base of densing's result objects (statsmodels' ``Results`` is the model): ``to_dict``, ``to_frame``,
``summary``, ``conf_int`` and ``_repr_html_`` (docs/api.md, "Result types"); words, summaries and figures registered by
type (:func:`register`), asked for by name (:func:`presented`), which loads :data:`PRESENTATION` on first use.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import fields
from importlib import import_module
from numbers import Real
from typing import ClassVar

from densing.errors import InputError

# frame_records is public here too (`name as name` marks a re-export)
from densing.numbers import frame_records as frame_records, json_value
from densing.validation import Interval, validate_params

CONF_INT_COLUMNS = ("estimate", "ci_low", "ci_high")
#: The level of a result's stored intervals when it has no field saying so.
DEFAULT_LEVEL = 0.95
#: What ``conf_int``'s ``alpha`` may be.
ALPHA_CONSTRAINTS = {"alpha": [Interval(Real, 0, 1, closed="neither")]}
#: The module that registers every rendering (loaded on the first :func:`presented`).
PRESENTATION = "densing.present.renders"
_RENDERINGS: dict[tuple[type, str], Callable] = {}


def register(result_type: type, **renderings: Callable) -> None:
    """Each ``name=function(result, *args, **kwargs)`` as a rendering of ``result_type`` and its subclasses."""
    _RENDERINGS.update({(result_type, name): function for name, function in renderings.items()})


def presented(result, name: str, *args, **kwargs):
    """``result``'s ``name`` rendering (words, a summary, a figure), registered for its type or the nearest base."""
    if not _RENDERINGS:
        import_module(PRESENTATION)
    for kind in type(result).__mro__:
        if (kind, name) in _RENDERINGS:
            return _RENDERINGS[(kind, name)](result, *args, **kwargs)
    raise LookupError(f"{type(result).__name__} has no {name!r} rendering")


def presented_property(name: str, doc: str) -> property:
    """A read-only property: its result's ``name`` rendering (:func:`presented`), documented by ``doc``."""
    return property(lambda self: presented(self, name), doc=doc)


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
    _shown_as: ClassVar[dict[str, str]] = {}  # a field → the property shown in its place (a state → its words)

    def _fields(self) -> list[str]:
        return [self._shown_as.get(f.name, f.name) for f in fields(self) if f.name not in self._dict_exclude]

    def to_dict(self) -> dict:
        """The fields as a JSON-ready dict (non-finite numbers → None)."""
        return {name: json_value(getattr(self, name)) for name in self._fields()}

    def to_frame(self):
        """One row of the fields (NaN stays NaN)."""
        import pandas as pd

        return pd.DataFrame([{name: getattr(self, name) for name in self._fields()}])

    def summary(self):
        """The result as a :class:`~densing.present.summary.Summary` (``print`` it for the terminal's text; a notebook
        shows its HTML): by default the type's name, then the (name, value) pairs of :meth:`_summary_items`."""
        return presented(self, "summary")

    def _summary_items(self) -> list[tuple[str, object]]:
        """The (name, value) pairs :meth:`summary` shows by default: the fields of :meth:`to_dict`."""
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

    def _repr_html_(self) -> str:
        return self.summary().as_html()
