"""The headline rows' bias in planted worlds built like each row, and the bias-corrected figure beside the point.

``studies/headline_bias.py`` plants worlds from each headline row (docs/method.md, "The headline rows' bias") and
runs the row estimator (:func:`densing.trend.capability.trend_row`) on each; ``--write`` stores :data:`RECORD`.

**The bias.** Worlds are planted at A = Â, the real row's point slope (a parametric bootstrap: Efron & Tibshirani
1993, *An Introduction to the Bootstrap*, §10.2). Over R replicates with points â_r, the relative bias
b = mean_r (â_r − A)/A and its Monte Carlo standard error s_b = sd_r((â_r − A)/A) / √R (the median beside them).
**The correction** (:func:`corrected_slopes`, §10.6) applies where |b| > :data:`THRESHOLD` (written before the study
was run); the study checks its interval's coverage, each replicate corrected by the bias of the others.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import ClassVar

import numpy as np
from scipy.special import (
    ndtri,
)  # the normal quantile (scipy.stats.norm.ppf's, to the bit), without importing scipy.stats

from densing.errors import InputError
from densing.paths import RESULTS
from densing.trend.rules import doubling_months

#: The record ``studies/headline_bias.py --write`` makes.
RECORD = RESULTS / "headline_bias.json"
#: A row whose |relative bias| exceeds this shows the corrected figure beside its point.
THRESHOLD = 0.05
#: How far a row's current point may be from the point its bias was measured at (relative) and still be shown.
SAME_POINT = 1e-3


def corrected_slopes(
    slope: float, low: float, high: float, bias: float, bias_se: float, level: float = 0.95
) -> tuple[float, float, float]:
    """(Ã, L̃, H̃) per day: ``slope`` = Â and its interval [``low``, ``high``] corrected for the relative bias
    ``bias`` = b of Monte Carlo error ``bias_se`` = s_b (Efron & Tibshirani 1993, §10.6, in ratio form)::

        Ã = Â/(1 + b),   L̃ = L/(1 + b)·exp(−z·s·sgn L),   H̃ = H/(1 + b)·exp(+z·s·sgn H),   s = s_b/(1 + b)

    (s by the delta method on ln(1 + b)), z the normal quantile of ``level``: each end moves outward, and an end at or
    below zero (a doubling time not determined) stays there."""
    if not (math.isfinite(bias) and bias > -1.0 and math.isfinite(bias_se) and bias_se >= 0.0):
        raise InputError(
            f"bias correction: expected a finite bias above -1 and a finite standard error at or above 0, "
            f"got bias {bias!r} and standard error {bias_se!r}"
        )
    if not 0.0 < level < 1.0:
        raise InputError(f"bias correction: expected a level between 0 and 1, got {level!r}")
    factor = 1.0 + bias
    spread = ndtri(0.5 + level / 2.0) * bias_se / factor
    return (
        slope / factor,
        low / factor * math.exp(-spread * np.sign(low)),
        high / factor * math.exp(spread * np.sign(high)),
    )


@dataclass(frozen=True)
class BiasRow:
    """One headline row's bias in worlds planted from it: ``bias`` b and ``bias_se`` s_b relative to the planted slope,
    their median, the interval's coverage, and where |b| > :data:`THRESHOLD` the corrected figures (else NaN)."""

    table: str
    row: str
    label: str
    frontier: str
    references: tuple[str, ...]
    planted_months: float
    point_months: float
    replicates: int
    failed: int
    bias: float
    bias_se: float
    median_bias: float
    median_bias_se: float
    coverage: float
    coverage_se: float
    corrected: bool
    corrected_months: float
    corrected_months_low: float
    corrected_months_high: float
    corrected_coverage: float
    corrected_coverage_se: float
    #: the sensitivity world: the frontier family's place drawn like every other family's (``--gap drawn``): its bias,
    #: the bias's Monte Carlo error and its replicates (NaN, NaN, 0 where it was not run)
    bias_drawn: float = math.nan
    bias_drawn_se: float = math.nan
    replicates_drawn: int = 0
    #: the real row corrected by the sensitivity world's bias (:func:`corrected_slopes`, whatever its size)
    corrected_months_drawn: float = math.nan
    corrected_months_drawn_low: float = math.nan
    corrected_months_drawn_high: float = math.nan

    threshold: ClassVar[float] = THRESHOLD  # the |bias| above which a row is corrected

    def corrected_range(self) -> tuple[tuple[float, float], ...] | None:
        """The corrected figure as the range the two worlds give (the frontier family's place fixed at the top, and
        drawn): ((point, point), (low end, low end), (high end, high end)) in months, each pair in increasing order;
        None where the row is not corrected or the sensitivity world was not run."""
        if not self.corrected or self.replicates_drawn < 3 or not math.isfinite(self.corrected_months_drawn):
            return None
        pairs = (
            (self.corrected_months, self.corrected_months_drawn),
            (self.corrected_months_low, self.corrected_months_drawn_low),
            (self.corrected_months_high, self.corrected_months_drawn_high),
        )
        return tuple((min(pair), max(pair)) for pair in pairs)

    def same_point(self, months: float) -> bool:
        """Whether ``months`` is the point this row's bias was measured at (within :data:`SAME_POINT`)."""
        return is_same_point(months, self.point_months)


def is_same_point(months: float, measured_at: float) -> bool:
    """Whether the point ``months`` is the point ``measured_at`` a bias was measured at: both finite and
    |months/measured_at − 1| ≤ :data:`SAME_POINT`."""
    return math.isfinite(months) and math.isfinite(measured_at) and abs(months / measured_at - 1.0) <= SAME_POINT


@dataclass(frozen=True)
class BiasRecord:
    """The record of ``studies/headline_bias.py``: its rows and the commands that make it again."""

    rows: tuple[BiasRow, ...]
    commands: tuple[str, ...]
    path: Path

    def row(self, table: str, row: str) -> BiasRow | None:
        """The row of ``table``'s set ``row``, or None."""
        return next((r for r in self.rows if r.table == table and r.row == row), None)


def corrected_months(
    slope: float, low: float, high: float, *, bias: float, bias_se: float, level: float = 0.95
) -> tuple[float, float, float]:
    """(point, low end, high end) in months of the slope ``slope`` and its interval [``low``, ``high``] per day
    corrected for ``bias`` (:func:`corrected_slopes`), whatever its size."""
    fixed, fixed_low, fixed_high = corrected_slopes(slope, low, high, bias, bias_se, level)
    return doubling_months(fixed), doubling_months(fixed_high), doubling_months(fixed_low)


def row_from(
    slope: float, low: float, high: float, *, bias: float, bias_se: float, level: float = 0.95
) -> dict[str, float | bool]:
    """The corrected fields of a :class:`BiasRow` for point slope ``slope`` and interval [``low``, ``high``] per day
    (:func:`corrected_slopes` where |``bias``| > :data:`THRESHOLD`, else not corrected: NaN)."""
    if abs(bias) <= THRESHOLD:
        return {
            "corrected": False,
            "corrected_months": math.nan,
            "corrected_months_low": math.nan,
            "corrected_months_high": math.nan,
        }
    months, low_end, high_end = corrected_months(slope, low, high, bias=bias, bias_se=bias_se, level=level)
    return {
        "corrected": True,
        "corrected_months": months,
        "corrected_months_low": low_end,
        "corrected_months_high": high_end,
    }


_NUMBERS = {f.name for f in fields(BiasRow)} - {"table", "row", "label", "frontier", "references", "corrected"}
#: The fields a record may lack (the sensitivity world's): their defaults stand.
_OPTIONAL = {
    "bias_drawn",
    "bias_drawn_se",
    "replicates_drawn",
    "corrected_months_drawn",
    "corrected_months_drawn_low",
    "corrected_months_drawn_high",
}


def read_study_record(path: Path, where: str, items: str) -> dict:
    """A study's JSON record at ``path``: an object with a list ``items`` (its rows or worlds) and a list
    ``commands``; an InputError starting with ``where`` (the file and the command that makes it) where it is missing,
    unreadable or of another shape. Shared by :func:`read_bias` and :func:`densing.trend.pooled_bias.read_pooled_bias`."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{where}: not found") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{where}: not readable as JSON ({type(exc).__name__})") from None
    if (
        not isinstance(data, dict)
        or not isinstance(data.get(items), list)
        or not isinstance(data.get("commands"), list)
    ):
        raise InputError(f"{where}: expected an object with a list '{items}' and a list 'commands'")
    return data


def read_bias(path: str | Path | None = None) -> BiasRecord:
    """The record at ``path`` (None: :data:`RECORD`); an InputError naming the file and its fault where damaged."""
    path = Path(RECORD if path is None else path)
    where = f"{path.name} (made by studies/headline_bias.py --write)"
    data = read_study_record(path, where, "rows")
    rows = tuple(_row(item, f"{where}: row {i}") for i, item in enumerate(data["rows"], start=1))
    return BiasRecord(rows, tuple(str(c) for c in data["commands"]), path)


def _row(item, where: str) -> BiasRow:
    if not isinstance(item, dict):
        raise InputError(f"{where}: expected an object, got {type(item).__name__}")
    missing = [f.name for f in fields(BiasRow) if f.name not in item and f.name not in _OPTIONAL]
    if missing:
        raise InputError(f"{where}: field {missing[0]!r} is missing")
    values = {}
    for name in _NUMBERS:
        if name in _OPTIONAL and name not in item:  # a record written without the sensitivity world
            continue
        value = math.nan if item[name] is None else item[name]  # NaN is stored as null
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InputError(f"{where}: field {name!r}: expected a number, got {value!r}")
        values[name] = float(value) if name not in ("replicates", "failed", "replicates_drawn") else int(value)
    for name in ("table", "row", "label", "frontier"):
        if not isinstance(item[name], str) or not item[name]:
            raise InputError(f"{where}: field {name!r}: expected a non-empty string, got {item[name]!r}")
        values[name] = item[name]
    if not isinstance(item["corrected"], bool):
        raise InputError(f"{where}: field 'corrected': expected true or false, got {item['corrected']!r}")
    if not isinstance(item["references"], list) or not all(isinstance(r, str) for r in item["references"]):
        raise InputError(f"{where}: field 'references': expected a list of names, got {item['references']!r}")
    row = BiasRow(**values, corrected=item["corrected"], references=tuple(item["references"]))
    if row.replicates < 1 or not (math.isfinite(row.bias) and math.isfinite(row.bias_se) and row.point_months > 0):
        raise InputError(
            f"{where}: expected at least one replicate, a finite bias and a positive point, got "
            f"{row.replicates} replicates, bias {row.bias!r}, point {row.point_months!r} months"
        )
    if row.corrected and not math.isfinite(row.corrected_months):
        raise InputError(
            f"{where}: field 'corrected_months': a corrected row needs a finite value, got {row.corrected_months!r}"
        )
    return row


def headline_row(table: str, row: str, point_months: float, path: str | Path | None = None) -> BiasRow | None:
    """The record's row for ``table``'s headline set ``row`` measured at ``point_months`` (the point shown now); None
    where it has none; an InputError in one line where the record is missing or damaged (:func:`read_bias`) or was
    measured at another point (the estimator or the table changed: the study is to be run again)."""
    record = read_bias(path)
    found = record.row(table, row)
    if found is not None and not found.same_point(point_months):
        raise InputError(
            f"{record.path.name}: the {table} row's bias was measured at its point under the CLI's "
            f"default draws and seed ({found.point_months:.3g} months), and this point is another (other "
            f"draws, another seed, or a changed estimator: then run studies/headline_bias.py again)"
        )
    return found


def looked_up(table: str, row: str, point_months: float, path: str | Path | None = None) -> BiasRow | InputError | None:
    """:func:`headline_row`, its InputError returned rather than raised."""
    try:
        return headline_row(table, row, point_months, path)
    except InputError as exc:
        return exc


def measurement_row(result, table: str, path: str | Path | None = None) -> BiasRow | InputError | None:
    """:func:`looked_up` for a measurement of ``table`` at its headline point; None where the headline is no set row."""
    if not result.set_rows or result.set_rows[0].label != result.headline_set:
        return None
    return looked_up(table, result.set_rows[0].name, result.rules[result.headline_rule].doubling_time_months, path)
