"""Your models against the pooled law of the three tables (``densing measure --table all``): each model's scores are
read in the protocol of the table they come from (``--protocol``, or told from the benchmarks the file holds,
:func:`protocol_of`), its ln ρ is computed there as that table's targets' are — under the table's headline, by its lead
reference (:func:`densing.placement.own_scores.place`) — and put on the common scale by that table's point offset and
scale (results/three_tables/DECLARATION.md, "One scale"):

    ln ρ_common = a_T + s_T · ln ρ_T   (Deming regression on the models exact in T and in the public table),

a bound staying a bound of the same direction (s_T > 0). The pooled line ln ρmax = A·t + B and its slope's 95% band at
the model's release date say where it sits (:class:`densing.trend.pooled_trend.PooledTrend`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from densing.display import LOWER_BOUND, UPPER_BOUND, VALUE, density_readings
from densing.errors import InputError
from densing.placement.place import ABOVE, BELOW, UNDETERMINED, WITHIN
from densing.trend.pooled_tables import TABLES

#: The columns of :func:`place_pooled`'s frame.
PLACED_COLUMNS = (
    "model",
    "release_date",
    "protocol",
    "reading",
    "density_own",
    "density_own_ci_low",
    "density_own_ci_high",
    "density",
    "density_ci_low",
    "density_ci_high",
    "a",
    "s",
    "line_density",
    "band_low",
    "band_high",
    "band",
)


def headline_benchmarks(table: str) -> tuple[str, ...]:
    """The benchmarks of registered ``table``'s headline set (the row it enters the pooled law with)."""
    from densing import registry

    profile = registry.table(table)
    return tuple(profile.sets[profile.headline_set][1])


def protocol_of(scores: pd.DataFrame, given: str | None, source: str) -> str:
    """The table whose protocol ``scores`` (tidy rows with a ``benchmark`` column) are read in: ``given`` (one of
    :data:`densing.trend.pooled_tables.TABLES`), else the one table whose headline benchmarks the file holds every
    one of; an InputError naming ``source`` where none or several do (the protocol cannot be told)."""
    if given is not None:
        if given not in TABLES:
            raise InputError(f"--protocol: expected one of {', '.join(TABLES)}, got {given!r}")
        if not set(headline_benchmarks(given)) & set(scores["benchmark"]):
            raise InputError(
                f"{source}: --protocol {given}: the file holds none of the {given} table's headline "
                f"benchmarks ({', '.join(headline_benchmarks(given))}); name the table whose harness "
                f"scored them"
            )
        return given
    held = set(scores["benchmark"])
    fitting = [table for table in TABLES if set(headline_benchmarks(table)) <= held]
    if len(fitting) == 1:
        return fitting[0]
    found = f"the headline benchmarks of {' and '.join(fitting)}" if fitting else "no table's headline benchmarks"
    raise InputError(
        f"{source}: the scores' protocol cannot be told: the file holds {found}; give --protocol "
        f"{'|'.join(TABLES)} (the table whose harness scored them)"
    )


def band_place(reading: str, value: float, low: float, high: float) -> str:
    """Where a model sits against the pooled band [``low``, ``high``] (ln ρ on the common scale): a value above,
    within or below it; a lower bound above it, an upper bound below it; any other bound undetermined (codes of
    :mod:`densing.placement.place`, which :func:`densing.present.pooled.band_words` says)."""
    if reading == VALUE:
        if value > high:
            return ABOVE
        return BELOW if value < low else WITHIN
    if reading == LOWER_BOUND and value > high:
        return ABOVE
    if reading == UPPER_BOUND and value < low:
        return BELOW
    return UNDETERMINED


def _log(value) -> float:
    """ln of a density (NaN for none, −∞ for 0)."""
    number = float(value)
    if math.isnan(number):
        return math.nan
    return -math.inf if number <= 0 else math.log(number)


def place_pooled(pooled, *, protocol: str, placed) -> pd.DataFrame:
    """Each model of ``placed`` (its :class:`~densing.placement.measure.MeasureResult` in ``protocol``'s table) on the
    pooled law ``pooled`` (module docstring): its reading and ρ in its table (a value, or the bound's end), the same
    on the common scale (its interval's ends mapped by the point a_T, s_T: their own uncertainty is not carried), the
    pooled line's ρmax at its date with the band, and where it sits (:func:`band_place`): values, which
    :func:`densing.present.pooled.placed_frame` shows."""
    frame = placed.to_frame()
    a, s = pooled.scale_of(protocol)
    readings = density_readings(frame)
    line = pooled.predict(frame["release_date"].tolist())
    low, high = pooled.confidence_band(frame["release_date"].tolist())
    rows = []
    for i, (record, (reading, value, _)) in enumerate(zip(frame.to_dict("records"), readings)):
        shown = value if reading != "none" else math.nan
        common = a + s * _log(shown)
        ends = [a + s * _log(record.get(f"density_ci_{end}", math.nan)) for end in ("low", "high")]
        rows.append(
            {
                "model": record["model"],
                "release_date": record["release_date"],
                "protocol": protocol,
                "reading": reading,
                "density_own": shown,
                "density_own_ci_low": record.get("density_ci_low", math.nan),
                "density_own_ci_high": record.get("density_ci_high", math.nan),
                "density": math.exp(common) if math.isfinite(common) else math.nan,
                "density_ci_low": float(np.exp(ends[0])),
                "density_ci_high": float(np.exp(ends[1])),
                "a": a,
                "s": s,
                "line_density": float(np.exp(line[i])),
                "band_low": float(np.exp(low[i])),
                "band_high": float(np.exp(high[i])),
                "band": band_place(reading, common, float(low[i]), float(high[i])),
            }
        )
    return pd.DataFrame(rows, columns=list(PLACED_COLUMNS))


__all__ = ["PLACED_COLUMNS", "band_place", "headline_benchmarks", "place_pooled", "protocol_of"]
