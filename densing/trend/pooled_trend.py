"""The pooled law of the three tables as a result (:class:`PooledTrend`, ``densing.pooled_trend()``): the record
``densing trend --table all --format json`` prints (:func:`densing.trend.pooled_tables.pooled_law`) with its points on
the common scale, for the notebook, the report's section "One law from three harnesses" and ``densing measure --table
all``.

Each table T's point ln ρ (on its lead reference's scale, exact or a bound) is put on the public table's scale by
y_public = a_T + s_T · y_T with the point a_T and s_T (Deming regression on the models exact in both,
:mod:`densing.trend.table_scale`; results/three_tables/DECLARATION.md, "One scale"), and the pooled line is the
censored 0.9 regression quantile ln ρmax = A·t + B through them (Xiao et al. 2024, eq. 5).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral
from typing import ClassVar

import numpy as np
import pandas as pd

from densing.constants import DEFAULT_EPOCH
from densing.errors import InputError
from densing.laws.bounds import EXACT
from densing.results import ALPHA_CONSTRAINTS, Result, interval_frame
from densing.runtime.memo import same_tables
from densing.states import State
from densing.trend import rules
from densing.trend.pooled_bias import PooledCorrection, correction_field, headline, looked_up
from densing.trend.pooled_tables import LEVEL, TABLES, pooled_frame, pooled_law, pooled_points
from densing.trend.table_rows import TableRow, table_row
from densing.trend.table_scale import mapped, scale_plan
from densing.trend.targets import dates_as_days, parse_epoch
from densing.validation import INTERVAL_DRAWS, Interval, validate_params

#: The columns of :attr:`PooledTrend.points`.
POINT_COLUMNS = ("table", "model", "lab", "release_date", "t", "log_density_own", "log_density", "bound", "noise")
#: The columns of :meth:`PooledTrend.to_frame`: one row per table.
TABLE_COLUMNS = (
    "table",
    "row",
    "n_points",
    "doubling_time_months",
    "ci_low",
    "ci_high",
    "a",
    "a_ci_low",
    "a_ci_high",
    "s",
    "s_ci_low",
    "s_ci_high",
    "through",
    "n_shared",
)


@dataclass(frozen=True)
class PooledTrend(Result):
    """One Densing Law from three harnesses: the pooled doubling time ln 2 / A in months with its 95% interval and
    state, the pooled line ln ρmax = A·t + B on the public table's scale (t in days since ``epoch``), ``record`` the
    whole measurement as ``densing trend --table all --format json`` prints it (each table's own slope, the
    common-slope test, leave one table out, leave one lab out, the late frontier, each a_T and s_T, the sensitivity
    with no common scale, the forecast check), ``points`` every table's points (:data:`POINT_COLUMNS`: ``log_density``
    on the common scale, ``log_density_own`` on the table's lead reference's, ``bound`` 0 exact, +1 a lower bound, −1
    an upper)."""

    doubling_time_months: float
    doubling_time_months_ci_low: float
    doubling_time_months_ci_high: float
    state: State
    slope_per_day: float
    slope_per_day_ci_low: float
    slope_per_day_ci_high: float
    intercept: float
    centre_days: float
    tables_disagree: bool
    n_points: int
    n_models: int
    n_labs: int
    n_boot: int
    epoch: str
    record: dict = field(repr=False)
    points: pd.DataFrame = field(repr=False)
    level: float = LEVEL

    _dict_exclude: ClassVar[tuple[str, ...]] = ("record", "points")

    @property
    def correction(self) -> PooledCorrection | InputError:
        """The pooled figure's bias correction (:func:`densing.trend.pooled_bias.looked_up`: the correction, or the
        InputError of a stale, missing or damaged record)."""
        return looked_up(self.record["pooled"])

    @property
    def headline(self) -> dict:
        """The figure every surface leads with (:func:`densing.trend.pooled_bias.headline`): the bias-corrected
        doubling time and its 95% interval where the record applies a correction, else the estimator's own, with its
        state and the code of why it is not corrected."""
        return headline(self.record["pooled"], self.correction)

    def document(self) -> dict:
        """The record ``densing trend --table all --format json`` prints, as values (a copy): its ``rows`` first,
        the ``headline`` (:attr:`headline`), the measurement (the forecast check as its value, which
        :func:`densing.present.records.record` puts in words), and the ``bias_correction``
        (:func:`densing.trend.pooled_bias.correction_field`)."""
        record = dict(self.record)
        correction = self.correction
        return {
            "rows": record.pop("tables"),
            "headline": headline(self.record["pooled"], correction),
            **record,
            "bias_correction": correction_field(correction),
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per table (:data:`TABLE_COLUMNS`): its own doubling time on the common scale with its interval, its
        points, its offset a and scale s with their intervals, the table it is mapped through, the models shared."""
        scales = {scale["table"]: scale for scale in self.record["scales"]}
        rows = []
        for table in self.record["tables"]:
            scale = scales[table["table"]]
            rows.append(
                {
                    "table": table["table"],
                    "row": table["row"],
                    "n_points": table["n_points"],
                    "doubling_time_months": table["doubling_time_months"],
                    "ci_low": table["ci_low"],
                    "ci_high": table["ci_high"],
                    "a": scale["a"],
                    "a_ci_low": scale["a_ci"][0],
                    "a_ci_high": scale["a_ci"][1],
                    "s": scale["s"],
                    "s_ci_low": scale["s_ci"][0],
                    "s_ci_high": scale["s_ci"][1],
                    "through": scale["through"],
                    "n_shared": scale["n_shared"],
                }
            )
        return pd.DataFrame(rows, columns=list(TABLE_COLUMNS))

    @validate_params(ALPHA_CONSTRAINTS)
    def conf_int(self, alpha: float = 0.05) -> pd.DataFrame:
        """The (1 − ``alpha``) intervals: the pooled ``doubling_time_months`` and ``slope_per_day``, each table's own
        ``<table>.doubling_time_months`` on the common scale, and each mapped table's ``<table>.a`` and ``<table>.s``
        (an InputError for an alpha other than its intervals' 0.05)."""
        self._check_alpha(alpha)
        rows = {
            "doubling_time_months": (
                self.doubling_time_months,
                self.doubling_time_months_ci_low,
                self.doubling_time_months_ci_high,
            ),
            "slope_per_day": (self.slope_per_day, self.slope_per_day_ci_low, self.slope_per_day_ci_high),
        }
        for table in self.to_frame().to_dict("records"):
            name = table["table"]
            rows[f"{name}.doubling_time_months"] = (table["doubling_time_months"], table["ci_low"], table["ci_high"])
            if name != TABLES[0]:
                rows[f"{name}.a"] = (table["a"], table["a_ci_low"], table["a_ci_high"])
                rows[f"{name}.s"] = (table["s"], table["s_ci_low"], table["s_ci_high"])
        return interval_frame({name: tuple(_number(v) for v in values) for name, values in rows.items()})

    def days(self, dates) -> np.ndarray:
        """Days since :attr:`epoch` of ``dates`` (a date or a sequence of them)."""
        return dates_as_days(dates, parse_epoch(self.epoch))

    def predict(self, dates) -> np.ndarray:
        """The pooled line's ln ρmax = A·t + B on the common scale at ``dates``."""
        return self.slope_per_day * self.days(dates) + self.intercept

    def confidence_band(self, dates) -> tuple[np.ndarray, np.ndarray]:
        """The band of the slope's interval around the pooled line at ``dates``: the pointwise min and max of the lines
        through (t̄, A·t̄ + B) with each end's slope, t̄ the points' mean date (:func:`densing.trend.rules.
        slope_band`)."""
        return rules.slope_band(
            self.days(dates),
            self.centre_days,
            self.slope_per_day,
            self.intercept,
            self.slope_per_day_ci_low,
            self.slope_per_day_ci_high,
        )

    def scale_of(self, table: str) -> tuple[float, float]:
        """The point (a_T, s_T) that puts ``table``'s ln ρ on the common scale (an InputError for a table it does not
        pool)."""
        for scale in self.record["scales"]:
            if scale["table"] == table:
                return float(scale["a"]), float(scale["s"])
        raise InputError(f"table {table!r}: not one of the pooled tables ({', '.join(self.names)})")

    @property
    def names(self) -> tuple[str, ...]:
        """The pooled tables, the common scale's first."""
        return tuple(table["table"] for table in self.record["tables"])


def _number(value) -> float:
    """A record's number as a float (an infinite end, ``None`` in JSON, as +∞)."""
    return math.inf if value is None else float(value)


def common_scale_points(rows: list[TableRow]) -> pd.DataFrame:
    """Every row's points (:data:`POINT_COLUMNS`), each on the common scale by its table's point a_T and s_T
    (y_common = a_T + s_T · y_T; a bound keeps its direction as s_T > 0)."""
    names = tuple(row.table for row in rows)
    frame = pooled_frame(rows)
    points = pooled_points(rows)
    plan = scale_plan(points.tables, points.models, points.kind == EXACT, names, names[0])
    scaled, _ = mapped(plan, points.tables, points.y[None], np.ones((1, len(points))))
    return pd.DataFrame(
        {
            "table": points.tables,
            "model": points.models,
            "lab": points.labs,
            "release_date": frame["release_date"].to_numpy(),
            "t": points.t,
            "log_density_own": points.y,
            "log_density": scaled[0],
            "bound": points.kind,
            "noise": points.noise,
        }
    )


def pooled_result(rows: list[TableRow], record: dict, epoch: str = DEFAULT_EPOCH) -> PooledTrend:
    """The :class:`PooledTrend` of ``rows`` and their measurement ``record`` (:func:`densing.trend.pooled_tables.
    pooled_law`)."""
    pooled = record["pooled"]
    points = common_scale_points(rows)
    return PooledTrend(
        _number(pooled["doubling_time_months"]),
        _number(pooled["ci_low"]),
        _number(pooled["ci_high"]),
        State(pooled["state"]),
        pooled["slope_per_day"],
        pooled["slope_ci_low"],
        pooled["slope_ci_high"],
        pooled["intercept"],
        float(points["t"].mean()),
        bool(record["common_slope"]["rejected"]),
        pooled["n_points"],
        pooled["n_models"],
        pooled["n_labs"],
        pooled["n_boot"],
        epoch,
        record,
        points,
    )


@same_tables()  # each table's score matrices, selections and family rows computed once within the call
@validate_params({"n_boot": [INTERVAL_DRAWS], "seed": [Interval(Integral, 0, None)]})
def pooled_trend(*, n_boot: int = 600, seed: int = 0) -> PooledTrend:
    """The three tables' pooled law → :class:`PooledTrend` (results/three_tables/DECLARATION.md; ``densing trend
    --table all``'s measurement): each table's headline row (:func:`densing.trend.table_rows.table_row`, its
    points' noise from ``n_boot`` of its draws) and their pooled law (``n_boot`` draws, doubled as the state rule asks;
    ``seed`` their seed)."""
    rows = [table_row(name, n_boot=n_boot, seed=seed, epoch=DEFAULT_EPOCH) for name in TABLES]
    return pooled_result(rows, pooled_law(rows, n_boot=n_boot, seed=seed, epoch=DEFAULT_EPOCH))


__all__ = ["POINT_COLUMNS", "PooledTrend", "TABLE_COLUMNS", "common_scale_points", "pooled_result", "pooled_trend"]
