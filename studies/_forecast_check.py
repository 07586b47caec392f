"""The cutoff forecast check of :mod:`studies.swallow_coverage`: the frontier line fitted on a row's models released
up to one cutoff, per reference, carried to the models released after it.

The rule (written before any forecast was computed), per reference of a row (inversion, its targets):

1. *Before*: the one engine (:func:`densing.trend.uncertainty.trend_uncertainty`, the censored 0.9-quantile
   frontier, fit × score × model draws) on the targets released on or before the cutoff; its 95% band is the line
   through the frontier points' centre with the slope at the ends of its interval
   (:meth:`densing.trend.uncertainty.TrendUncertainty.confidence_band`).
2. *The prediction*: if the law goes on, the later models' ln ρ lies above the carried 0.9-quantile line for a share
   0.10 of them. The check *holds* when the binomial 95% interval (Wilson) of the later count above the band's lower
   edge reaches 0.10 or more and that of the count above its upper edge reaches 0.10 or less; the later models *run
   ahead* of the forecast when more than 10% lie above the upper edge beyond that noise, and *fall behind* it when
   fewer than 10% lie above the lower edge beyond it (:func:`densing.trend.forecast.outcome_of`). A later model that is
   a bound counts on the side its bound fixes (:func:`densing.trend.forecast.place_later`). With fewer than
   :data:`densing.trend.forecast.MIN_LATER` later models the check says it cannot tell.
3. *After*: the same engine on the later models alone; its doubling time beside the before one.

The package's own forecast check is :func:`densing.trend.forecast.forecast_windows` (the same test at every cutoff).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from densing.constants import DEFAULT_EPOCH
from densing.errors import DensingError, InputError
from densing.laws.density import point_densities
from densing.present.summaries import Summary
from densing.results import ALPHA_CONSTRAINTS, Result, interval_frame
from densing.trend.forecast import MIN_LATER, Outcome, outcome_of, place_later
from densing.trend.targets import days_since, parse_epoch
from densing.trend.uncertainty import TrendUncertainty, trend_uncertainty
from densing.validation import validate_params


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
        return pd.DataFrame(
            [
                {
                    "reference": self.reference.split(":")[0],
                    "cutoff": self.cutoff,
                    "n_before": b.n_models if b else 0,
                    "months_before": b.doubling_time_months if b else math.nan,
                    "ci_low_before": b.doubling_time_months_ci_low if b else math.nan,
                    "ci_high_before": b.doubling_time_months_ci_high if b else math.nan,
                    "n_later": self.n_later,
                    "above_forecast_line": self.above_line,
                    "above_band_low": self.above_low,
                    "above_band_high": self.above_high,
                    "months_after": a.doubling_time_months if a else math.nan,
                    "ci_low_after": a.doubling_time_months_ci_low if a else math.nan,
                    "ci_high_after": a.doubling_time_months_ci_high if a else math.nan,
                    "verdict": self.verdict,
                    "note": self.note,
                }
            ]
        )


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

    @validate_params(ALPHA_CONSTRAINTS)
    def conf_int(self, alpha: float = 0.05) -> pd.DataFrame:
        rows = {
            f"{r.reference}.{quantity}": tuple(row)
            for r in self.references
            for quantity, row in r.conf_int(alpha).iterrows()
        }
        return interval_frame(rows)

    def summary(self) -> Summary:
        """The check in words, one clause per reference."""
        parts = []
        for r in self.references:
            if r.before is None:
                parts.append(f"{r.reference.split(':')[0]}: {r.note}")
                continue
            parts.append(
                f"{r.reference.split(':')[0]}: {r.above_line} of {r.n_later} later models lie above the carried "
                f"line (10% expected), {r.above_high} above its band — {r.verdict}"
            )
        return Summary(f"Forecast from models released up to {self.cutoff}: " + "; ".join(parts) + ".")


def _counts(frame: pd.DataFrame, inversion, fit: TrendUncertainty) -> tuple[int, int, int, int]:
    """(later models the check can place, above the carried line, above the band's lower edge, above its upper edge)."""
    y, kind = point_densities(frame, inversion)
    dates = pd.to_datetime(frame["release_date"]).dt.strftime("%Y-%m-%d").tolist()
    placed, above = place_later(y, kind, [fit.predict(dates), *fit.confidence_band(dates)])
    return placed, *above


VERDICTS = {
    Outcome.AHEAD: "the later models run ahead of the forecast",
    Outcome.BEHIND: "the later models fall behind the forecast",
    Outcome.HOLDS: "the forecast holds",
}


def _verdict(n: int, above_low: int, above_high: int) -> str:
    if n < MIN_LATER:
        return f"untestable: {n} later model{'s' if n != 1 else ''} (at least {MIN_LATER} needed)"
    return VERDICTS[outcome_of(n, above_low, above_high)]


def forecast_check(
    row: str,
    members: list[tuple[object, pd.DataFrame]],
    cutoff: str,
    *,
    n_boot: int = 200,
    seed: int = 0,
    epoch: str = DEFAULT_EPOCH,
) -> Forecast:
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
            before = trend_uncertainty(early, inversion, n_boot=n_boot, n_boot_share=0, seed=seed, epoch=epoch)
        except DensingError as exc:
            out.append(
                ReferenceForecast(
                    name,
                    cutoff,
                    None,
                    None,
                    n_later=len(late),
                    note=f"{len(early)} models up to the cutoff: no line ({exc})",
                )
            )
            continue
        try:
            after = trend_uncertainty(late, inversion, n_boot=n_boot, n_boot_share=0, seed=seed, epoch=epoch)
        except DensingError:
            after = None
        placed, line, low, high = _counts(late, inversion, before)
        out.append(ReferenceForecast(name, cutoff, before, after, placed, line, low, high, _verdict(placed, low, high)))
    return Forecast(row, cutoff, tuple(out))
