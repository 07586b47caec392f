"""One placed model in words: the answer the terminal's last line and the report's card lead with, so that both say
the same density, N̂ and place against the frontier's band."""
from __future__ import annotations

from collections.abc import Mapping

from densing.display import BOUND_SIGNS, density_reading
from densing.numbers import format_count, format_number

#: The places :func:`densing.placement.place.band_position` gives a model against the band of the line's slope interval.
BAND_PLACES = ("within", "above", "below")


def density_said(r: Mapping) -> str:
    """ρ and N̂ as the one bound rule reads them: a value with both 95% intervals, a bound on each, or undetermined."""
    reading, stated, _ = density_reading(r["density"], r["bound"], r["density_ci_low"], r["density_ci_high"],
                                         bool(r.get("near_chance", False)))
    if reading == "value":
        return (f"ρ = {format_number(stated)} (95% CI {format_number(r['density_ci_low'])}–"
                f"{format_number(r['density_ci_high'])}), N̂ = {format_count(r['effective_params'])} (95% CI "
                f"{format_count(r['effective_params_ci_low'])}–{format_count(r['effective_params_ci_high'])})")
    if reading in BOUND_SIGNS:
        sign = BOUND_SIGNS[reading]
        return f"ρ {sign}{format_number(stated)}, N̂ {sign}{format_count(r['params'] * stated)}"
    return "ρ undetermined"


def band_said(r: Mapping) -> str:
    """Where the model sits against the frontier's band at its date."""
    return f"{r['band']} the frontier's band" if r.get("band") in BAND_PLACES else "undetermined against the frontier's band"


def answer(r: Mapping, inverted: tuple[str, ...] = (), missing: tuple[str, ...] = (),
           shown: Mapping[str, str] | None = None) -> str:
    """One placed model (a row of :meth:`densing.placement.measure.MeasureResult.to_frame`) in one line; with
    ``missing`` (the headline's benchmarks it has no score on, placed with ``--allow-missing``) the benchmarks left out
    and those it was placed from, by the names ``shown``."""
    names = shown or {}
    left = (f" without {', '.join(names.get(b, b) for b in missing)} (no score; placed from "
            f"{', '.join(names.get(b, b) for b in inverted)})" if missing else "")
    return f"{r['model']}{left}: {density_said(r)}, {band_said(r)}"
