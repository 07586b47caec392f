"""A forecast check of the Densing Law: the frontier line fitted on the models released up to a stated date, carried
to the models released after it.

**The rule** (written before any forecast was computed). For each reference of a row (inversion, its targets):

1. *Before*: the row's engine (:func:`densing.trend.uncertainty.carry_over_references`, the censored 0.9-quantile
   frontier, fit × score × model draws) on the targets released on or before the cutoff; its 95% band is the line
   through the frontier points' centre with the slope at the ends of its interval
   (:meth:`densing.trend.uncertainty.TrendUncertainty.confidence_band`: the slope's uncertainty, which is what a
   forecast over a year is dominated by).
2. *The prediction*: if the law goes on, the later models' ln ρ lies above the carried 0.9-quantile line for a share
   0.10 of them. Under the band the share lies between the share above its upper edge and the share above its lower
   edge. The check *holds* when the binomial 95% interval (Wilson) of the later count above the lower edge reaches
   0.10 or more and that of the count above the upper edge reaches 0.10 or less; the later models *run ahead* of the
   forecast when more than 10% lie above the upper edge beyond that noise, and *fall behind* it when fewer than 10%
   lie above the lower edge beyond it. A later model that is a bound counts on the side its bound fixes, and is left
   out where its bound does not decide. With fewer than :data:`MIN_LATER` later models the check says it cannot tell.
3. *After*: the same engine on the later models alone; its doubling time beside the before one.

**The cutoffs** (:data:`CUTOFFS`): mid-2024 (2024-06-30) on the Swallow leaderboard's 2025-06 protocol — half a year
of models before it, a year after; on its 2026-05 protocol, whose models start in 2024-06, the last date the first
file could see (2025-06-30). The references are the row's own (rule v3 is date-blind; a reference is a yardstick, and
its release date does not enter the targets' densities).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from densing.errors import DensingError, InputError
from densing.laws.density import point_densities
from densing.laws.bounds import EXACT, LOWER, UPPER
from densing.trend.constants import DEFAULT_EPOCH
from densing.trend.scope import days_since, parse_epoch
from densing.results import ALPHA_CONSTRAINTS, Result, interval_frame
from densing.trend.uncertainty import TrendUncertainty, carry_over_references
from densing.validation import validate

#: The cutoff of each target table's forecast check (module docstring).
CUTOFFS: dict[str, str] = {"swallow": "2024-06-30", "swallow_2026": "2025-06-30"}
#: The share of models above a 0.9-quantile line.
ABOVE_SHARE = 0.10


def wilson_interval(count: int, total: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval of a binomial proportion count/total (Wilson 1927):
    (p̂ + z²/2n ± z·√(p̂(1 − p̂)/n + z²/4n²)) / (1 + z²/n); (nan, nan) for total 0."""
    from scipy.special import ndtri  # the standard normal quantile (what scipy.stats.norm.ppf computes), without importing scipy.stats (≈0.25 s)

    if total <= 0:
        return math.nan, math.nan
    z = float(ndtri(0.5 + level / 2))
    p = count / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class ReferenceForecast(Result):
    """One reference's forecast check: the lines before and after the cutoff, the later models above the carried line
    and its band, the verdict; ``before`` None (no line up to the cutoff) with the reason in ``note``.

    ``to_dict()``: its fields, ``before``/``after`` as their own dicts; ``to_frame()``: one flat row (the months and
    intervals before and after, the counts, the verdict); ``conf_int(alpha)``: ``before.X`` and ``after.X`` rows of
    the two trends (:class:`densing.trend.uncertainty.TrendUncertainty`)."""

    reference: str
    cutoff: str
    before: TrendUncertainty | None
    after: TrendUncertainty | None
    n_later: int = 0
    above_line: int = 0
    above_low: int = 0
    above_high: int = 0
    verdict: str = ""
    note: str = ""

    def to_frame(self) -> pd.DataFrame:
        """One flat row: the months and intervals before and after the cutoff, the counts, the verdict."""
        b, a = self.before, self.after
        return pd.DataFrame([{"reference": self.reference.split(":")[0], "cutoff": self.cutoff,
                "n_before": b.n_models if b else 0,
                "months_before": b.doubling_time_months if b else math.nan,
                "ci_low_before": b.doubling_time_months_ci_low if b else math.nan,
                "ci_high_before": b.doubling_time_months_ci_high if b else math.nan,
                "n_later": self.n_later, "above_forecast_line": self.above_line,
                "above_band_low": self.above_low, "above_band_high": self.above_high,
                "months_after": a.doubling_time_months if a else math.nan,
                "ci_low_after": a.doubling_time_months_ci_low if a else math.nan,
                "ci_high_after": a.doubling_time_months_ci_high if a else math.nan,
                "verdict": self.verdict, "note": self.note}])


@dataclass(frozen=True)
class Forecast(Result):
    """A row's forecast check over its references (module docstring).

    ``to_dict()``: the row, the cutoff and each reference's dict; ``to_frame()``: one row per reference
    (:meth:`ReferenceForecast.to_frame`); ``summary()``: the check in words; ``conf_int(alpha)``: each reference's
    rows, named ``<reference>.before.X`` / ``<reference>.after.X``; no rows without a reference."""

    row: str
    cutoff: str
    references: tuple[ReferenceForecast, ...] = field(default=())

    def to_frame(self) -> pd.DataFrame:
        """One row per reference (:meth:`ReferenceForecast.to_frame`)."""
        if not self.references:
            return pd.DataFrame()
        return pd.concat([r.to_frame() for r in self.references], ignore_index=True)

    def conf_int(self, alpha: float = 0.05) -> pd.DataFrame:
        validate(ALPHA_CONSTRAINTS, alpha=alpha)
        rows = {f"{r.reference}.{quantity}": tuple(row) for r in self.references
                for quantity, row in r.conf_int(alpha).iterrows()}
        return interval_frame(rows)

    def summary(self) -> str:
        """The check in words, one clause per reference."""
        parts = []
        for r in self.references:
            if r.before is None:
                parts.append(f"{r.reference.split(':')[0]}: {r.note}")
                continue
            parts.append(f"{r.reference.split(':')[0]}: {r.above_line} of {r.n_later} later models lie above the carried "
                         f"line (10% expected), {r.above_high} above its band — {r.verdict}")
        return f"Forecast from models released up to {self.cutoff}: " + "; ".join(parts) + "."


def _counts(frame: pd.DataFrame, inversion, fit: TrendUncertainty) -> tuple[int, int, int, int]:
    """(later models the check can place, above the carried line, above the band's lower edge, above its upper edge)."""
    y, kind = point_densities(frame, inversion)
    dates = pd.to_datetime(frame["release_date"]).dt.strftime("%Y-%m-%d").tolist()
    line = fit.predict(dates)
    low, high = fit.confidence_band(dates)
    usable = np.isfinite(y) & np.isfinite(kind)
    counts = []
    for edge in (line, low, high):
        # exact: compare; lower bound above the edge: above; upper bound below the edge: below; else undecided
        above = usable & (y > edge) & ((kind == EXACT) | (kind == LOWER))
        below = usable & (y <= edge) & ((kind == EXACT) | (kind == UPPER))
        counts.append((int(above.sum()), int((above | below).sum())))
    placed = min(c[1] for c in counts)
    return placed, counts[0][0], counts[1][0], counts[2][0]


#: Fewer later models than this leave the check untestable, said so (a share of 10% needs tens of models to be
#: told from 0% or 30%; docs/method.md, "The forecast check", says when it was set).
MIN_LATER = 10


def _verdict(n: int, above_low: int, above_high: int) -> str:
    if n < MIN_LATER:
        return f"untestable: {n} later model{'s' if n != 1 else ''} (at least {MIN_LATER} needed)"
    low_ci = wilson_interval(above_low, n)
    high_ci = wilson_interval(above_high, n)
    if high_ci[0] > ABOVE_SHARE:
        return "the later models run ahead of the forecast"
    if low_ci[1] < ABOVE_SHARE:
        return "the later models fall behind the forecast"
    return "the forecast holds"


def forecast_check(row: str, members: list[tuple[object, pd.DataFrame]], cutoff: str, *, n_boot: int = 200,
                   seed: int = 0, epoch: str = DEFAULT_EPOCH) -> Forecast:
    """The forecast check of one row (module docstring): per reference, the line fitted up to ``cutoff`` carried to
    the later models, and the doubling time before and after."""
    cut = days_since(np.asarray([np.datetime64(pd.Timestamp(cutoff).date(), "ns")]), parse_epoch(epoch))[0]
    if not members:
        raise InputError(f"forecast {row!r}: no reference to forecast with")
    out = []
    for inversion, frame in members:
        name = inversion.name
        early, late = frame[frame["t"] <= cut], frame[frame["t"] > cut]
        try:
            before = carry_over_references([(inversion, early)], n_boot=n_boot, n_boot_share=0, seed=seed, epoch=epoch)
        except DensingError as exc:
            out.append(ReferenceForecast(name, cutoff, None, None, n_later=len(late),
                                         note=f"{len(early)} models up to the cutoff: no line ({exc})"))
            continue
        try:
            after = carry_over_references([(inversion, late)], n_boot=n_boot, n_boot_share=0, seed=seed, epoch=epoch)
        except DensingError:
            after = None
        placed, line, low, high = _counts(late, inversion, before)
        out.append(ReferenceForecast(name, cutoff, before, after, placed, line, low, high, _verdict(placed, low, high)))
    return Forecast(row, cutoff, tuple(out))
