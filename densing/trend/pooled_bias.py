"""The pooled law's bias in planted worlds and the bias-corrected figure every surface leads with (``densing trend
--table all``, its JSON's ``headline``, the report's section "One law from three harnesses", the README).

``studies/pooled_correction.py`` plants the world built like the real data (``studies/three_tables.py``'s
``common`` world: the three rows' design, one family holding each table's late frontier) at the pooled figure it
corrects, in rounds (results/three_tables/DECLARATION.md, "The bias-corrected figure"), runs the pooled estimator
(:func:`densing.trend.pooled_tables.pooled_law`) on each replicate, and ``--summary --write`` stores :data:`RECORD`:
the *applied* world's relative bias b = median_r (Â_r − A)/A with its Monte Carlo standard error s_b (the sd of 2,000
bootstrap medians), the *sensitivity* world's (no family held on the late frontier, planted at the same point), the
rounds, the check on fresh replicates, and the pooled point it was written beside (the CLI's default draws and
seed).

**The correction** is the headline rows' (:func:`densing.trend.bias.corrected_months`; Efron & Tibshirani 1993,
*An Introduction to the Bootstrap*, §10.6, in ratio form)::

    Ã = Â/(1 + b),   L̃ = L/(1 + b)·exp(−z·s·sgn L),   H̃ = H/(1 + b)·exp(+z·s·sgn H),   s = s_b/(1 + b),

with the applied world's b where |b| > :data:`densing.trend.bias.THRESHOLD` (else the estimator's own figure
stands). The corrected figure keeps the estimator's state: a positive factor moves both ends and changes no end
from determined to open. The sensitivity world's correction is printed beside it. A record written beside another
point (beyond :data:`densing.trend.bias.SAME_POINT`: a changed table or estimator) is not applied
(:class:`StaleBias`), and the estimator's own figure is shown, said to be uncorrected.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import ClassVar

from densing.errors import InputError
from densing.paths import RESULTS
from densing.trend.bias import THRESHOLD, corrected_months, is_same_point, read_study_record

#: The record ``studies/pooled_correction.py --summary --write`` makes.
RECORD = RESULTS / "three_tables" / "bias.json"
#: :data:`RECORD` as the documents and the output name it.
RECORD_WORDS = "results/three_tables/bias.json"
#: The study that makes :data:`RECORD`.
STUDY = "studies/pooled_correction.py"
#: The roles of the record's worlds: the one whose bias is applied, and the one beside it.
APPLIED = "applied"
SENSITIVITY = "sensitivity"


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
    ``planted_months``; ``world`` its name in ``studies/three_tables.py``, ``words`` what it plants and ``role``
    :data:`APPLIED` or :data:`SENSITIVITY`."""

    world: str
    words: str
    role: str
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
    """The record of ``studies/pooled_correction.py --summary --write``: the applied world, the sensitivity world,
    the rounds and the check as written (``rounds``: each round's planted months, b and s_b; ``check``: each check
    run's coverage and bias, corrected and not), the commands that make it again, and the pooled doubling time
    ``point_months`` it was written beside."""

    applied: WorldBias
    sensitivity: WorldBias
    rounds: tuple[dict, ...]
    check: dict
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

    def to_dict(self) -> dict:
        """The world's bias and the figure it corrects to (JSON)."""
        return {
            **world_fields(self.world),
            "doubling_time_months": self.months,
            "ci_low": self.months_low,
            "ci_high": self.months_high,
        }


def world_fields(world: WorldBias) -> dict:
    """A world's bias and where it is planted (JSON)."""
    return {
        "world": world.world,
        "words": world.words,
        "planted_months": world.planted_months,
        "draws": world.draws,
        "replicates": world.replicates,
        "failed": world.failed,
        "bias": world.bias,
        "bias_se": world.bias_se,
    }


@dataclass(frozen=True)
class PooledCorrection:
    """The pooled figure corrected by the record's applied world (``applied``; None where its |b| is within the
    threshold: no correction), and by the sensitivity world beside it (``sensitivity``, whatever its size)."""

    record: PooledBias
    applied: WorldCorrection | None
    sensitivity: WorldCorrection

    threshold: ClassVar[float] = THRESHOLD  # the |bias| above which the applied world corrects the point

    @property
    def corrects(self) -> bool:
        """Whether the figure shown is corrected."""
        return self.applied is not None

    def to_dict(self) -> dict:
        """The JSON field ``bias_correction`` of ``densing trend --table all --format json``: whether it is applied,
        the corrected figure (months and the 95% interval's ends; null where not corrected), the applied and the
        sensitivity worlds with their figures, the rounds and the check."""
        applied = self.applied
        return {
            "shown": True,
            "stale": False,
            "record": RECORD_WORDS,
            "study": STUDY,
            "threshold": self.threshold,
            "corrected": self.corrects,
            "doubling_time_months": applied.months if applied else None,
            "ci_low": applied.months_low if applied else None,
            "ci_high": applied.months_high if applied else None,
            "applied": applied.to_dict() if applied else world_fields(self.record.applied),
            "sensitivity": self.sensitivity.to_dict(),
            "rounds": list(self.record.rounds),
            "check": self.record.check,
        }


def world_correction(world: WorldBias, slope: float, low: float, high: float) -> WorldCorrection:
    """The pooled point slope ``slope`` and its interval [``low``, ``high``] per day corrected by ``world``'s bias
    (:func:`densing.trend.bias.corrected_months`: Â/(1 + b), each end moved by the same factor and widened by z·s_b/(1 +
    b)), in months."""
    months, months_low, months_high = corrected_months(slope, low, high, bias=world.bias, bias_se=world.bias_se)
    return WorldCorrection(world, months, months_low, months_high)


def corrected(record: PooledBias, pooled: dict) -> PooledCorrection:
    """``pooled`` (the pooled law's ``"pooled"`` record: ``slope_per_day``, ``slope_ci_low``, ``slope_ci_high``)
    corrected by the record's applied world where its |bias| exceeds the threshold, and by its sensitivity world."""
    ends = (pooled["slope_per_day"], pooled["slope_ci_low"], pooled["slope_ci_high"])
    applied = world_correction(record.applied, *ends) if record.applied.corrects else None
    return PooledCorrection(record, applied, world_correction(record.sensitivity, *ends))


_INTEGERS = ("draws", "replicates", "failed")
_NUMBERS = ("planted_months", "bias", "bias_se")
_TEXTS = ("world", "words", "role")


def read_pooled_bias(path: str | Path | None = None) -> PooledBias:
    """The record at ``path`` (None: :data:`RECORD`); an InputError naming the file and its fault where damaged."""
    path = Path(RECORD if path is None else path)
    where = f"{path.name} (made by {STUDY} --summary --write)"
    data = read_study_record(path, where, "worlds")
    point = data.get("point_months")
    if isinstance(point, bool) or not isinstance(point, (int, float)) or not (math.isfinite(point) and point > 0):
        raise InputError(f"{where}: field 'point_months': expected a positive number, got {point!r}")
    worlds = [_world(item, f"{where}: world {i}") for i, item in enumerate(data["worlds"], start=1)]
    by_role = {}
    for world in worlds:
        if world.role not in (APPLIED, SENSITIVITY) or world.role in by_role:
            raise InputError(
                f"{where}: field 'role' of world {world.world!r}: expected one {APPLIED!r} and one "
                f"{SENSITIVITY!r} world, got {[w.role for w in worlds]}"
            )
        by_role[world.role] = world
    if len(by_role) != 2:
        raise InputError(f"{where}: expected one {APPLIED!r} and one {SENSITIVITY!r} world, got {sorted(by_role)}")
    rounds, check = data.get("rounds", []), data.get("check", {})
    if not isinstance(rounds, list) or not isinstance(check, dict):
        raise InputError(f"{where}: expected a list 'rounds' and an object 'check'")
    return PooledBias(
        by_role[APPLIED],
        by_role[SENSITIVITY],
        tuple(rounds),
        check,
        tuple(str(c) for c in data["commands"]),
        float(point),
        path,
    )


def _world(item, where: str) -> WorldBias:
    """One world of the record, each field checked (an InputError naming ``where`` and the field)."""
    if not isinstance(item, dict):
        raise InputError(f"{where}: expected an object, got {type(item).__name__}")
    missing = [f.name for f in fields(WorldBias) if f.name not in item]
    if missing:
        raise InputError(f"{where}: field {missing[0]!r} is missing")
    values = {}
    for name in _TEXTS:
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


#: Why the figure shown is the estimator's own (the ``headline``'s ``uncorrected_because`` code).
WITHIN_THRESHOLD = "within_threshold"
STALE = "stale"
MISSING = "missing_or_damaged"


def headline(pooled: dict, found: PooledCorrection | InputError) -> dict:
    """The figure every surface leads with (the JSON's ``headline``): the bias-corrected one where the record applies
    a correction, else the estimator's own with the code of why it is not corrected (:data:`WITHIN_THRESHOLD`,
    :data:`STALE`, :data:`MISSING`); its state is the estimator's (module docstring)."""
    if isinstance(found, PooledCorrection) and found.corrects:
        figure = found.applied
        months, low, high = figure.months, figure.months_low, figure.months_high
        because = ""
    else:
        months, low, high = pooled["doubling_time_months"], pooled["ci_low"], pooled["ci_high"]
        if isinstance(found, StaleBias):
            because = STALE
        elif isinstance(found, InputError):
            because = MISSING
        else:
            because = WITHIN_THRESHOLD
    return {
        "doubling_time_months": months,
        "ci_low": low,
        "ci_high": high,
        "state": pooled["state"],
        "bias_corrected": not because,
        "uncorrected_because": because,
    }


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
    "headline",
    "world_fields",
    "looked_up",
    "not_shown",
    "pooled_correction",
    "read_pooled_bias",
    "world_correction",
]
