"""Corollaries of the Densing Law's §4: compression and density, inference cost halving time."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd

from densing.constants import DAYS_PER_MONTH, DEFAULT_EPOCH, MIN_POINTS
from densing.data.schema import is_missing
from densing.errors import FitError, InputError
from densing.numbers import counted_noun, json_number
from densing.results import Result
from densing.states import LeftOut
from densing.trend import rules
from densing.trend.rules import doubling_days, doubling_interval
from densing.trend.targets import days_since, density_points, parse_epoch, prepare
from densing.trend.uncertainty import observed_trend
from densing.validation import INTERVAL_DRAWS, Interval, validate_params


def compression_density(pairs: pd.DataFrame, densities: pd.DataFrame) -> pd.DataFrame:
    """Density of each compressed model against its parent (Xiao et al. 2024, §4.2): ``pairs`` has ``compressed_model,
    parent_model, method``, ``densities`` ``model`` and ``density`` (censored or non-positive: unknown). One row per
    pair with both densities, ``density_ratio`` = ρ_compressed / ρ_parent, ``density_increased`` and, for each model
    with no density, why (``compressed_left_out``, ``parent_left_out``: None where it has one, else a
    :class:`densing.states.LeftOut` code and its detail, :attr:`~densing.states.LeftOut.ABSENT` for a model not among
    the densities); the pairs with their ``note`` in words, :func:`densing.present.words.compression_frame`."""
    if not isinstance(pairs, pd.DataFrame):
        raise InputError(f"pairs: expected a pandas DataFrame, got {type(pairs).__name__}")
    needed = ["compressed_model", "parent_model", "method"]
    missing = [c for c in needed if c not in pairs.columns]
    if missing:
        raise InputError(
            f"pairs: missing required column(s) {', '.join(missing)} "
            f"(have: {', '.join(map(str, pairs.columns)) or 'none'})"
        )
    if not isinstance(densities, pd.DataFrame):
        raise InputError(f"densities: expected a pandas DataFrame, got {type(densities).__name__}")
    frame = densities.copy()
    if "release_date" not in frame.columns:
        frame["release_date"] = pd.Timestamp(DEFAULT_EPOCH)  # dates play no part here
    points, excluded = density_points(frame)
    known = dict(zip(points.labels, points.values))
    why = dict(zip(excluded["model"].astype(str), zip(excluded["reason"], excluded["detail"].astype(object))))
    rows = []
    for i, rec in enumerate(pairs.to_dict("records"), start=1):
        for column in needed[:2]:
            if is_missing(rec[column]):
                raise InputError(f"pairs: row {i}: field '{column}': expected a model name, got nothing")
        child, parent = str(rec["compressed_model"]), str(rec["parent_model"])
        left = [None if name in known else why.get(name, (LeftOut.ABSENT, None)) for name in (child, parent)]
        rho_child, rho_parent = known.get(child, math.nan), known.get(parent, math.nan)
        known_both = left == [None, None]
        ratio = rho_child / rho_parent if known_both else math.nan
        rows.append(
            [
                child,
                parent,
                rec["method"],
                rho_child,
                rho_parent,
                ratio,
                bool(ratio > 1.0) if known_both else pd.NA,
                *left,
            ]
        )
    out = pd.DataFrame(
        rows,
        columns=[
            "compressed_model",
            "parent_model",
            "method",
            "compressed_density",
            "parent_density",
            "density_ratio",
            "density_increased",
            "compressed_left_out",
            "parent_left_out",
        ],
    )
    out["density_increased"] = out["density_increased"].astype("boolean")
    return out


@dataclass(frozen=True, eq=False)
class CostHalvingFit(Result):
    """ln price(t) = A·t + B, A < 0; halving time = ln 2 / (−A) (Xiao et al. 2024, §4.1): the doubling of 1/price by
    the one engine (:func:`densing.trend.uncertainty.observed_trend`), draws resampling the rows; ``r_squared``: the
    envelope's OLS R² through its points (NaN for the other rules)."""

    _dict_exclude = ("excluded",)
    _level_field = "ci"  # conf_int(alpha) gives the intervals of level ``ci``

    frontier: str
    slope_per_day: float  # of ln price, negative when prices fall
    intercept: float  # ln price at the epoch
    r_squared: float
    halving_time_days: float
    halving_time_days_ci_low: float
    halving_time_days_ci_high: float
    fraction_nonnegative_slope: float
    n_points: int
    frontier_points: tuple[str, ...]
    epoch: pd.Timestamp
    ci: float
    n_boot: int
    n_boot_failed: int
    excluded: pd.DataFrame = field(repr=False)

    @property
    def halving_time_months(self) -> float:
        return self.halving_time_days / DAYS_PER_MONTH

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields, the epoch as a date, the halving time in months beside its days, ``n_excluded``."""
        months = {
            f"halving_time_months{end}": json_number(getattr(self, f"halving_time_days{end}") / DAYS_PER_MONTH)
            for end in ("", "_ci_low", "_ci_high")
        }
        return {
            **Result.to_dict(self),
            "epoch": self.epoch.date().isoformat(),
            **months,
            "n_excluded": len(self.excluded),
        }

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([self.to_dict()])


@validate_params(
    {
        "quantile": [Interval(Real, 0, 1, closed="neither")],
        "n_boot": [INTERVAL_DRAWS],
        "ci": [Interval(Real, 0, 1, closed="neither")],
        "seed": [Interval(Integral, 0, None)],
    }
)
def cost_halving_time(
    prices: pd.DataFrame,
    *,
    frontier: str = "envelope",
    quantile: float = 0.9,
    epoch: object = DEFAULT_EPOCH,
    n_boot: int = 1000,
    seed: int = 0,
    ci: float = 0.95,
) -> CostHalvingFit:
    """Halving time of inference price: ln p(t) = A·t + B, halving = ln 2 / (−A) (§4.1; the paper reports GPT-3.5-level
    prices halving about every 2.6 months). ``prices`` has ``date`` and ``price_per_million_tokens`` (> 0), optionally
    ``model`` (a model may appear at several dates). ``quantile``: of −ln price. The draws resample rows."""
    rules.get(frontier)
    label_column = "model" if isinstance(prices, pd.DataFrame) and "model" in prices.columns else None
    points, excluded = prepare(
        prices,
        value_column="price_per_million_tokens",
        date_column="date",
        label_column=label_column,
        source="prices",
        unique_labels=False,
        sign=-1.0,
    )
    start = parse_epoch(epoch)
    t = days_since(points.dates, start)
    if t.size < MIN_POINTS or np.ptp(t) == 0:
        raise FitError(
            f"prices: {counted_noun(t.size, 'usable row')} over {counted_noun(np.unique(t).size, 'date')}; "
            f"a line needs {MIN_POINTS} rows "
            "on two dates at least"
        )
    # no families: each row is its own (a model priced at several dates is several rows), so the draws resample rows
    found = observed_trend(
        t, points.y, points.kind, points.labels, rule=frontier, quantile=quantile, n_boot=n_boot, level=ci, seed=seed
    )
    draws = found.draws[np.isfinite(found.draws)]
    low, high = doubling_interval(found.slope_ci_low, found.slope_ci_high)
    return CostHalvingFit(
        frontier=frontier,
        slope_per_day=-found.slope_per_day,
        intercept=-found.intercept,
        r_squared=found.r_squared,
        halving_time_days=doubling_days(found.slope_per_day),
        halving_time_days_ci_low=low,
        halving_time_days_ci_high=high,
        fraction_nonnegative_slope=float(np.mean(draws <= 0)) if draws.size else math.nan,
        n_points=len(found.frontier_models),
        frontier_points=found.frontier_models,
        epoch=start,
        ci=float(ci),
        n_boot=int(n_boot),
        n_boot_failed=found.failed_draws,
        excluded=excluded,
    )
