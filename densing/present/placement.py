"""One placed model in words: the answer the terminal's last line and the report's card lead with, so that both say
the same density, N̂ and place against the frontier's band."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from densing.display import BOUND_SIGNS, NO_READING, VALUE, density_reading
from densing.numbers import format_count, format_number

#: The places :func:`densing.placement.place.band_position` gives a model against the band of the line's slope interval.
BAND_PLACES = ("within", "above", "below")


def stated(r: Mapping, number: Callable = format_number) -> tuple[str, str, str]:
    """(reading, ρ, N̂) of a placed model as the one bound rule reads ρ (:func:`densing.display.density_reading`;
    N̂ = ρ·N): a value's ρ by ``number`` and N̂, both ``≤ x`` / ``≥ x`` for a bound, "" for no reading."""
    reading, value, _ = density_reading(
        r.get("density"),
        r.get("bound", ""),
        r.get("density_ci_low", math.nan),
        r.get("density_ci_high", math.nan),
        bool(r.get("near_chance", False)),
    )
    if reading == NO_READING:
        return reading, "", ""
    sign = BOUND_SIGNS.get(reading, "")
    return reading, sign + number(value), sign + format_count(r["params"] * value if sign else r["effective_params"])


def density_said(r: Mapping) -> str:
    """ρ and N̂ as the one bound rule reads them: a value with both 95% intervals, a bound on each, or undetermined."""
    reading, rho, size = stated(r)
    if reading == VALUE:
        return (
            f"ρ = {rho} (95% CI {format_number(r['density_ci_low'])}–{format_number(r['density_ci_high'])}), "
            f"N̂ = {size} (95% CI {format_count(r['effective_params_ci_low'])}–"
            f"{format_count(r['effective_params_ci_high'])})"
        )
    return f"ρ {rho}, N̂ {size}" if rho else "ρ undetermined"


def band_said(r: Mapping) -> str:
    """Where the model sits against the frontier's band at its date."""
    return (
        f"{r['band']} the frontier's band"
        if r.get("band") in BAND_PLACES
        else "undetermined against the frontier's band"
    )


def answer(
    r: Mapping, inverted: tuple[str, ...] = (), missing: tuple[str, ...] = (), shown: Mapping[str, str] | None = None
) -> str:
    """One placed model (a row of :meth:`densing.placement.measure.MeasureResult.to_frame`) in one line; with
    ``missing`` (``--allow-missing``) the benchmarks left out and ``inverted`` those placed from, named by ``shown``."""
    names = shown or {}
    left = (
        f" without {', '.join(names.get(b, b) for b in missing)} (no score; placed from "
        f"{', '.join(names.get(b, b) for b in inverted)})"
        if missing
        else ""
    )
    return f"{r['model']}{left}: {density_said(r)}, {band_said(r)}"
