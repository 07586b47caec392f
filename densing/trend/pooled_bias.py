"""The pooled law's bias in planted worlds and its bias-corrected figure beside the point (``densing trend --table
all``, the report's section "One law from three harnesses").

``studies/three_tables.py`` plants worlds at the level of the three rows' points (results/three_tables/README.md,
"Calibration") and runs the pooled estimator (:func:`densing.trend.pooled_tables.pooled_law`) on each;
``--summary --write`` stores :data:`RECORD`: for each one-slope world at its draws (one slope in every table, and the
same with no family held at the late frontier), over its R replicates with points Â_r planted at A, the relative bias
b = median_r (Â_r − A)/A and its Monte Carlo standard error s_b (the sd of 2,000 bootstrap medians), and the pooled
point and interval it was written beside (the CLI's default draws and seed).

**The correction** is the headline rows' (:func:`densing.trend.bias.corrected_months`; Efron & Tibshirani 1993,
*An Introduction to the Bootstrap*, §10.6, in ratio form)::

    Ã = Â/(1 + b),   L̃ = L/(1 + b)·exp(−z·s·sgn L),   H̃ = H/(1 + b)·exp(+z·s·sgn H),   s = s_b/(1 + b),

applied with each world's b where |b| > :data:`densing.trend.bias.THRESHOLD`. Which world is nearer the data is a
choice the data do not settle, so the corrected figure is the range over those worlds: the point's, the low end's
and the high end's, each as (smallest, largest) in months. A record written beside another point (beyond
:data:`densing.trend.bias.SAME_POINT`: a changed table or estimator) is not shown (:class:`StaleBias`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import ClassVar

from densing.errors import InputError
from densing.paths import RESULTS
from densing.trend.bias import THRESHOLD, corrected_months, is_same_point, read_study_record

#: The record ``studies/three_tables.py --summary --write`` makes, beside the first pooled result.
RECORD = RESULTS / "three_tables" / "bias.json"
#: :data:`RECORD` as the documents and the output name it.
RECORD_WORDS = "results/three_tables/bias.json"
#: The study that makes :data:`RECORD`.
STUDY = "studies/three_tables.py"


class StaleBias(InputError):
    """The record's bias was measured beside another pooled point than the one shown: the study is to be run again.
    ``measured_at`` is the record's point and ``shown`` the one shown (months; NaN where none)."""

    def __init__(self, message: str, measured_at: float, shown: float):
        super().__init__(message)
        self.measured_at = measured_at
        self.shown = shown


@dataclass(frozen=True)
class WorldBias:
    """One planted world's bias of the pooled slope: ``bias`` b (the median of (Â_r − A)/A) and ``bias_se`` s_b over
    ``replicates`` replicates at ``draws`` draws each (``failed`` refused by the estimator), planted at
    ``planted_months``; ``world`` its name in ``studies/three_tables.py`` and ``words`` what it plants."""

    world: str
    words: str
    draws: int
    planted_months: float
    replicates: int
    failed: int
    bias: float
    bias_se: float

    @property
    def corrects(self) -> bool:
        """Whether the pooled point is corrected by this world: |b| > :data:`densing.trend.bias.THRESHOLD`."""
        return abs(self.bias) > THRESHOLD


@dataclass(frozen=True)
class PooledBias:
    """The record of ``studies/three_tables.py --write``: each world's bias, the commands that make it again, and the
    pooled doubling time ``point_months`` it was written beside."""

    worlds: tuple[WorldBias, ...]
    commands: tuple[str, ...]
    point_months: float
    path: Path


@dataclass(frozen=True)
class WorldCorrection:
    """The pooled point and its interval corrected by one world's bias, in months."""

    world: WorldBias
    months: float
    months_low: float
    months_high: float


@dataclass(frozen=True)
class PooledCorrection:
    """The pooled figure corrected by each world of ``record`` whose |bias| exceeds the threshold (``corrections``;
    none: no correction), and the range they give."""

    record: PooledBias
    corrections: tuple[WorldCorrection, ...]

    threshold: ClassVar[float] = THRESHOLD  # the |bias| above which a world corrects the point

    def corrected_range(self) -> tuple[tuple[float, float], tuple[float, float], tuple[float, float]] | None:
        """((point, point), (low end, low end), (high end, high end)) in months, each pair the smallest and largest of
        the worlds' corrections; None where no world corrects the point."""
        if not self.corrections:
            return None
        ends = (
            [c.months for c in self.corrections],
            [c.months_low for c in self.corrections],
            [c.months_high for c in self.corrections],
        )
        return tuple((min(values), max(values)) for values in ends)

    def to_dict(self) -> dict:
        """The JSON field of ``densing trend --table all --format json``: whether it is corrected, the range
        (months, 95% interval's low and high ends, each [smallest, largest]; null where no world corrects), and each
        world's bias with its correction."""
        both = self.corrected_range()
        worlds = []
        for world in self.record.worlds:
            found = next((c for c in self.corrections if c.world == world), None)
            worlds.append(
                {
                    "world": world.world,
                    "draws": world.draws,
                    "replicates": world.replicates,
                    "bias": world.bias,
                    "bias_se": world.bias_se,
                    "corrected": found is not None,
                    "doubling_time_months": found.months if found else None,
                    "ci_low": found.months_low if found else None,
                    "ci_high": found.months_high if found else None,
                }
            )
        return {
            "shown": True,
            "stale": False,
            "record": RECORD_WORDS,
            "study": STUDY,
            "threshold": self.threshold,
            "corrected": both is not None,
            "doubling_time_months": list(both[0]) if both else None,
            "ci_low": list(both[1]) if both else None,
            "ci_high": list(both[2]) if both else None,
            "worlds": worlds,
        }


def world_correction(world: WorldBias, slope: float, low: float, high: float) -> WorldCorrection:
    """The pooled point slope ``slope`` and its interval [``low``, ``high``] per day corrected by ``world``'s bias
    (:func:`densing.trend.bias.corrected_months`: Â/(1 + b), each end moved by the same factor and widened by z·s_b/(1 +
    b)), in months."""
    months, months_low, months_high = corrected_months(slope, low, high, bias=world.bias, bias_se=world.bias_se)
    return WorldCorrection(world, months, months_low, months_high)


def corrected(record: PooledBias, pooled: dict) -> PooledCorrection:
    """``pooled`` (the pooled law's ``"pooled"`` record: ``slope_per_day``, ``slope_ci_low``, ``slope_ci_high``)
    corrected by each world of ``record`` whose |bias| exceeds the threshold."""
    return PooledCorrection(
        record,
        tuple(
            world_correction(world, pooled["slope_per_day"], pooled["slope_ci_low"], pooled["slope_ci_high"])
            for world in record.worlds
            if world.corrects
        ),
    )


_INTEGERS = ("draws", "replicates", "failed")
_NUMBERS = ("planted_months", "bias", "bias_se")


def read_pooled_bias(path: str | Path | None = None) -> PooledBias:
    """The record at ``path`` (None: :data:`RECORD`); an InputError naming the file and its fault where damaged."""
    path = Path(RECORD if path is None else path)
    where = f"{path.name} (made by {STUDY} --summary --write)"
    data = read_study_record(path, where, "worlds")
    point = data.get("point_months")
    if isinstance(point, bool) or not isinstance(point, (int, float)) or not (math.isfinite(point) and point > 0):
        raise InputError(f"{where}: field 'point_months': expected a positive number, got {point!r}")
    worlds = tuple(_world(item, f"{where}: world {i}") for i, item in enumerate(data["worlds"], start=1))
    return PooledBias(worlds, tuple(str(c) for c in data["commands"]), float(point), path)


def _world(item, where: str) -> WorldBias:
    """One world of the record, each field checked (an InputError naming ``where`` and the field)."""
    if not isinstance(item, dict):
        raise InputError(f"{where}: expected an object, got {type(item).__name__}")
    missing = [f.name for f in fields(WorldBias) if f.name not in item]
    if missing:
        raise InputError(f"{where}: field {missing[0]!r} is missing")
    values = {}
    for name in ("world", "words"):
        if not isinstance(item[name], str) or not item[name]:
            raise InputError(f"{where}: field {name!r}: expected a non-empty string, got {item[name]!r}")
        values[name] = item[name]
    for name in _INTEGERS + _NUMBERS:
        value = item[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise InputError(f"{where}: field {name!r}: expected a finite number, got {value!r}")
        values[name] = int(value) if name in _INTEGERS else float(value)
    world = WorldBias(**values)
    if world.replicates < 1 or world.bias <= -1.0 or world.bias_se < 0.0:
        raise InputError(
            f"{where}: expected at least one replicate, a bias above -1 and a standard error at or above "
            f"0, got {world.replicates} replicates, bias {world.bias!r}, standard error {world.bias_se!r}"
        )
    return world


def pooled_correction(pooled: dict, path: str | Path | None = None) -> PooledCorrection:
    """The pooled figure ``pooled`` (the pooled law's ``"pooled"`` record) corrected by the record at ``path`` (None:
    :data:`RECORD`): an InputError in one line where the record is missing or damaged (:func:`read_pooled_bias`), a
    :class:`StaleBias` where it was written beside another point."""
    record = read_pooled_bias(path)
    months = math.nan if pooled["doubling_time_months"] is None else float(pooled["doubling_time_months"])
    if not is_same_point(months, record.point_months):
        raise StaleBias(
            f"{record.path.name}: the pooled law's bias was measured beside its point "
            f"{record.point_months:.3g} months under the CLI's default draws and seed, and this point is "
            f"{months:.3g} months (a changed table or estimator: run {STUDY} again)",
            record.point_months,
            months,
        )
    return corrected(record, pooled)


def looked_up(pooled: dict, path: str | Path | None = None) -> PooledCorrection | InputError:
    """:func:`pooled_correction`, its InputError (a :class:`StaleBias` among them) returned rather than raised."""
    try:
        return pooled_correction(pooled, path)
    except InputError as exc:
        return exc


def not_shown(error: InputError) -> dict:
    """The JSON field of ``densing trend --table all --format json`` where the correction is not shown: why, and
    whether the record is stale (measured beside another point) rather than missing or damaged."""
    return {"shown": False, "stale": isinstance(error, StaleBias), "why": str(error)}


def correction_field(found: PooledCorrection | InputError) -> dict:
    """The JSON field of :func:`looked_up`'s answer (:meth:`PooledCorrection.to_dict`, or :func:`not_shown`)."""
    return not_shown(found) if isinstance(found, InputError) else found.to_dict()


__all__ = [
    "PooledBias",
    "PooledCorrection",
    "RECORD",
    "RECORD_WORDS",
    "STUDY",
    "StaleBias",
    "WorldBias",
    "WorldCorrection",
    "correction_field",
    "corrected",
    "looked_up",
    "not_shown",
    "pooled_correction",
    "read_pooled_bias",
    "world_correction",
]
