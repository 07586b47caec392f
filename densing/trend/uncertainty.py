"""The doubling time with every source of uncertainty carried: fit, score noise, sampling of models, choice of reference.

:class:`TrendUncertainty` is what every doubling time of the package is: one run of the one engine,
:func:`densing.trend.pooling.pooled_trend` (ln ρ = A·t + B, Xiao et al. 2024 eq. 5), made a result by
:func:`from_row_trend`: the percentile interval of A through ln 2 / A, each source's **share** of the slope variance.
Coverage of the planted slope (``studies/trend_full_coverage.py``, 100 replicates, nominal 0.95): quantile 0.98, all
(Tobit) 0.98, envelope 0.67 (its points are chosen on the response: its interval is optimistic).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import pandas as pd

from densing.constants import DEFAULT_EPOCH, DRAWS_CAP, HETEROGENEITY_ALPHA
from densing.errors import InputError
from densing.laws.bounds import EXACT, LOWER, UPPER
from densing.laws.inversion import as_inversion
from densing.numbers import frame_records
from densing.results import Result, displayed_text
from densing.states import EndOpen, ReferenceName, ReferencesDisagree, State
from densing.trend.pooling import (
    RowTrend,
    determined_ends,
    influence_items,
    months_interval,
    most_influential_model,
    pooled_trend,
)
from densing.trend.rules import doubling_months, envelope_index, slope_band
from densing.trend.selection import reference_targets
from densing.trend.targets import dates_as_days, parse_epoch
from densing.validation import DRAWS, Interval, validate_params


def heterogeneous(result) -> bool:
    """Whether a trend's references disagree (the heterogeneity test rejects one common slope)."""
    return result.heterogeneity_df > 0 and result.heterogeneity_p < HETEROGENEITY_ALPHA


def state_of(result) -> State:
    """A trend's state (step 6) by the one state rule (:meth:`~densing.states.State.from_ends`): not measured where the
    references disagree, else by how many ends are determined."""
    return State.from_ends(result.low_determined, result.high_determined, references_disagree=heterogeneous(result))


def reasons_of(result) -> tuple:
    """Why a trend is not measured, as records: the references' disagreement, then each open end, the lower first."""
    disagree = (
        [
            ReferencesDisagree(
                float(result.heterogeneity_q),
                int(result.heterogeneity_df),
                float(result.heterogeneity_p),
                tuple((name.family, float(m)) for name, m in result.reference_months.items()),
                int(result.heterogeneity_draws),
            )
        ]
        if heterogeneous(result)
        else []
    )
    return (
        *disagree,
        *(
            EndOpen(
                end,
                bool(getattr(result, f"{end}_undecided", False)),
                int(result.n_boot),
                float(getattr(result, f"months_{end}_mc_low")),
            )
            for end in ("low", "high")
            if not getattr(result, f"{end}_determined")
        ),
    )


@dataclass(frozen=True)
class TrendUncertainty(Result):
    """Point line ln ρ = A·t + B (t in days since ``epoch``), the slope's full-uncertainty interval, each source's
    share; ``frontier_models``: the lead reference's points the line goes through, ``r_squared`` the envelope's R²."""

    rule: str
    inversion: str
    slope_per_day: float
    intercept: float
    slope_ci_low: float
    slope_ci_high: float
    doubling_time_months: float
    doubling_time_months_ci_low: float
    doubling_time_months_ci_high: float
    n_models: int
    n_exact: int
    n_lower_bounds: int
    n_upper_bounds: int
    n_dropped: int
    n_boot: int
    level: float
    share_fit: float
    share_score: float
    share_models: float
    slope_sd_fit: float
    slope_sd_score: float
    slope_sd_models: float
    slope_sd_all: float
    failed_draws: int
    models: tuple[str, ...] = field(repr=False, default=())
    draws: np.ndarray = field(repr=False, compare=False, default_factory=lambda: np.empty(0))
    share_reference: float = 0.0
    slope_sd_reference: float = 0.0
    n_references: int = 1
    reference_names: tuple[ReferenceName, ...] = field(repr=False, default=())
    reference_weights: tuple[float, ...] = field(repr=False, default=())
    reference_slopes: tuple[float, ...] = field(repr=False, default=())
    epoch: str = field(repr=False, default=DEFAULT_EPOCH)
    frontier_models: tuple[str, ...] = field(repr=False, default=())
    centre_days: float = field(repr=False, default=math.nan)
    r_squared: float = field(repr=False, default=math.nan)
    #: the heterogeneity test (densing.trend.random_effects.pool_slopes): Q, its df (0 with one reference or lab), the
    #: K paired draws its covariance is estimated from, its p-value (Hotelling's T²), τ² (per day²) and I²
    heterogeneity_q: float = math.nan
    heterogeneity_df: int = 0
    heterogeneity_p: float = math.nan
    heterogeneity_draws: int = 0
    tau_squared: float = 0.0
    i_squared: float = math.nan
    #: each reference's own doubling-time interval (months), in the order of ``reference_names``
    reference_months_low: tuple[float, ...] = field(repr=False, default=())
    reference_months_high: tuple[float, ...] = field(repr=False, default=())
    #: whether this trend's state is judged (a row's line, a one-reference trend; not a sensitivity variant)
    judged: bool = False
    #: each end of the doubling time's interval: its 95% Monte Carlo range (months), whether it is determined, undecided
    #: at ``n_boot`` draws, and precise (densing.trend.random_effects.determined_ends)
    months_low_mc_low: float = math.nan
    months_low_mc_high: float = math.nan
    months_high_mc_low: float = math.nan
    months_high_mc_high: float = math.nan
    low_determined: bool = False
    high_determined: bool = False
    low_undecided: bool = False
    high_undecided: bool = False
    low_precise: bool = False
    high_precise: bool = False
    #: the point doubling time with no target entered as a ceiling bound, and the targets each reference bounds
    months_without_ceilings: float = math.nan
    ceiling_bounds: tuple[int, ...] = field(repr=False, default=())
    n_ceiling_bounds: int = 0
    #: the same for the targets at a benchmark's chance level, upper bounds (densing.trend.floors)
    months_without_floors: float = math.nan
    floor_bounds: tuple[int, ...] = field(repr=False, default=())
    n_floor_bounds: int = 0
    #: leave one family out (each family's removal, the estimate without it, its move); one model out (the largest)
    influence: tuple = ()
    most_influential_model: str = ""
    months_without_model: float = math.nan
    #: the draws with no rising line and the families they lack and hold most (densing.trend.pooling.open_draws)
    open_families: tuple = ()
    #: the labs (densing.data.labs): each reference's, each lab's pooling weight (in the references' order), leave one
    #: lab out (``influence``'s items, ``family`` the lab), and the targets' labs ((lab, (family, …)), …)
    reference_labs: tuple[str, ...] = field(repr=False, default=())
    lab_weights: tuple[float, ...] = field(repr=False, default=())
    lab_influence: tuple = field(repr=False, default=())
    target_labs: tuple = field(repr=False, default=())
    #: the identified region (docs/method.md, "The identified region"): the point doubling time without it, the
    #: targets it bounds (per reference and in all), and every target's reading under every reference
    #: ((model, family, kind, reason code, benchmark, ln ρ), :func:`densing.trend.pooling.point_readings`)
    months_without_region: float = math.nan
    region_bounds: tuple[int, ...] = field(repr=False, default=())
    n_region_bounds: int = 0
    readings: tuple = field(repr=False, default=())

    # the bulky per-model names and per-draw slopes, and the line's drawing aids, stay out of JSON
    _dict_exclude = (
        "models",
        "draws",
        "reference_names",
        "reference_weights",
        "reference_slopes",
        "epoch",
        "frontier_models",
        "centre_days",
        "r_squared",
        "reference_months_low",
        "reference_months_high",
        "ceiling_bounds",
        "floor_bounds",
        "open_families",
        "reference_labs",
        "lab_weights",
        "lab_influence",
        "target_labs",
        "region_bounds",
        "readings",
    )
    _ci_estimates: ClassVar[dict[str, str]] = {"slope": "slope_per_day"}

    @property
    def state(self) -> State | None:
        """This trend's :class:`~densing.states.State` (:func:`state_of`); None where no state is judged."""
        return state_of(self) if self.judged else None

    @property
    def reasons(self) -> tuple:
        """Why this trend is bounded or not measured (:func:`reasons_of`); () where it is measured or not judged."""
        return reasons_of(self) if self.judged and self.state is not State.MEASURED else ()

    def largest_influence(self):
        """The first item of :meth:`influence_frame` (the largest move), or None without one."""
        return _by_move(self.influence)[0] if self.influence else None

    def influence_frame(self) -> pd.DataFrame:
        """The leave-one-family-out table as a DataFrame, the largest move first."""
        return _moves_frame(self.influence)

    def lab_influence_frame(self) -> pd.DataFrame:
        """Leave one lab out as :meth:`influence_frame`, ``lab`` in place of ``family``."""
        return _moves_frame(self.lab_influence).rename(columns={"family": "lab"})

    @property
    def labs(self) -> tuple[str, ...]:
        """The references' labs, each once, in the order of :attr:`lab_weights`."""
        return tuple(dict.fromkeys(self.reference_labs))

    def labs_record(self) -> dict:
        """The labs as values (``--format json``): references', labs' weights, targets' labs, leave one lab out."""
        return {
            "references": [
                {"reference": str(name), "family": name.family, "lab": lab, "weight": float(w)}
                for name, lab, w in zip(self.reference_names, self.reference_labs, self.reference_weights)
            ],
            "lab_weights": {lab: float(w) for lab, w in zip(self.labs, self.lab_weights)},
            "targets": {lab: list(families) for lab, families in self.target_labs},
            "leave_one_lab_out": frame_records(self.lab_influence_frame()),
        }

    @property
    def reference_months(self) -> dict[ReferenceName, float]:
        """Each candidate reference's own point doubling time (months), by name."""
        return {name: doubling_months(slope) for name, slope in zip(self.reference_names, self.reference_slopes)}

    def __repr__(self) -> str:
        """The trend in one line, as the installed display writes it (:func:`densing.results.displayed_text`)."""
        return displayed_text(self)

    def _days(self, dates) -> np.ndarray:
        return dates_as_days(dates, parse_epoch(self.epoch))  # InputError for what is not a date

    def predict(self, dates) -> np.ndarray:
        """ln ρ̂ = A·t + B on ``dates`` (t in days since ``epoch``)."""
        return self.slope_per_day * self._days(dates) + self.intercept

    def confidence_band(self, dates) -> tuple[np.ndarray, np.ndarray]:
        """The band of the slope's interval around the line on ``dates`` (:func:`densing.trend.rules.slope_band`)."""
        centre = self.centre_days if math.isfinite(self.centre_days) else 0.0
        return slope_band(
            self._days(dates), centre, self.slope_per_day, self.intercept, self.slope_ci_low, self.slope_ci_high
        )


def _by_move(items) -> list:
    """Leave-one-out items, the largest move first (a removal leaving no rising line moves most; ties in order)."""
    return sorted(items, key=lambda item: -(abs(item.move_months) if not math.isnan(item.move_months) else math.inf))


def _moves_frame(items) -> pd.DataFrame:
    """Leave-one-out items as a DataFrame, the largest move first."""
    columns = ["family", "n_models", "doubling_time_months", "move_months"]
    frame = pd.DataFrame([[getattr(item, c) for c in columns] for item in _by_move(items)], columns=columns)
    return frame.astype({"n_models": int, "doubling_time_months": float, "move_months": float})


@validate_params(
    {
        "level": [Interval(Real, 0, 1, closed="neither")],
        "n_boot": [DRAWS],
        "n_boot_share": [Interval(Integral, 0, None)],
    }
)
def trend_uncertainty(
    models: pd.DataFrame,
    reference,
    *,
    d0: float | None = None,
    rule: str = "quantile",
    quantile: float = 0.9,
    n_boot: int = 1000,
    n_boot_share: int = 300,
    level: float = 0.95,
    seed: int = 0,
    epoch: str = DEFAULT_EPOCH,
) -> TrendUncertainty:
    """The trend over given targets under one reference (:func:`densing.trend.selection.reference_targets`): ``models``
    one row per target with ``model``, ``params``, ``t`` (days since ``epoch``), optionally ``family``, and
    ``score:<b>``, ``stderr:<b>`` (or ``score``, ``stderr``); ``reference`` an inversion or a :class:`ReferenceFit`
    (at ``d0``). ``n_boot_share = 0`` skips the shares (NaN). The targets' checks are the caller's."""
    inversion = as_inversion(reference, d0)
    benchmarks = inversion.benchmarks
    if not all(f"score:{b}" in models.columns for b in benchmarks):  # one benchmark's plain score and stderr columns
        if len(benchmarks) != 1 or "score" not in models.columns:
            raise InputError(f"models: no scores for {', '.join(benchmarks)}")
        stderr = models["stderr"] if "stderr" in models.columns else np.nan
        models = models.assign(**{f"score:{benchmarks[0]}": models["score"], f"stderr:{benchmarks[0]}": stderr})
    chosen = reference_targets(inversion, models)
    return from_row_trend(
        pooled_trend(
            chosen,
            rule=rule,
            quantile=quantile,
            n_boot=n_boot,
            n_boot_share=n_boot_share,
            level=level,
            seed=seed,
            draws_cap=DRAWS_CAP,
        ),
        epoch=epoch,
        judged=True,
    )


class Observed:
    """Values already on the trend's scale (ln ρ and kind, or −ln price) standing as an inversion: no law, fit draws or
    score noise, so their draws are the families only; its "benchmarks" are ``score:y`` and ``score:kind``."""

    name = "observed values"
    reference = ReferenceName(name)
    benchmarks = ("y", "kind")
    n_draws = 1

    def point(self, scores: np.ndarray, stderr: np.ndarray, params: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return scores[..., 0], scores[..., 1]

    def draws(self, picks, scores: np.ndarray, stderr: np.ndarray, params: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return scores[..., 0], scores[..., 1]

    def cap(self) -> float:
        return math.inf


def observed_trend(
    t,
    y,
    kind,
    labels,
    *,
    families=None,
    labs=None,
    rule: str = "quantile",
    quantile: float = 0.9,
    n_boot: int = 1000,
    level: float = 0.95,
    seed: int = 0,
    epoch: str = DEFAULT_EPOCH,
) -> TrendUncertainty:
    """The one engine on :class:`Observed` values (t days since ``epoch``, y, kind), draws resampling ``labs`` (default
    each family's lab), then ``families`` within them (default each point its own)."""
    t, y, kind = (np.asarray(a, float) for a in (t, y, kind))
    frame = pd.DataFrame(
        {
            "model": np.asarray(labels).astype(str),
            "params": np.nan,
            "t": t,
            "score:y": y,
            "stderr:y": 0.0,
            "score:kind": kind,
            "stderr:kind": 0.0,
            **{c: np.asarray(v, dtype=object) for c, v in (("family", families), ("lab", labs)) if v is not None},
        }
    )
    chosen = reference_targets(Observed(), frame)
    return from_row_trend(
        pooled_trend(chosen, rule=rule, quantile=quantile, n_boot=n_boot, n_boot_share=0, level=level, seed=seed),
        epoch=epoch,
    )


def from_row_trend(result: RowTrend, *, epoch: str = DEFAULT_EPOCH, judged: bool = False) -> TrendUncertainty:
    """A :class:`TrendUncertainty` of a row's pooled trend over its common targets
    (:func:`densing.trend.pooling.pooled_trend`), its state ``judged`` (a row's line) or not (a sensitivity variant)."""
    common = result.common
    labels = common.frame["model"].astype(str).to_numpy()
    t, y, kind = common.frame["t"].to_numpy(float), result.y0[0], result.kind0[0]
    usable = np.flatnonzero(np.isfinite(y) & np.isfinite(kind))  # the lead reference's points the line goes through
    r_squared = math.nan
    if result.rule == "envelope":  # its record-setters alone, and the OLS R² through them
        usable = usable[envelope_index(t[usable], y[usable], labels[usable])]
        total = float(np.sum((y[usable] - y[usable].mean()) ** 2))
        fitted = result.slope_per_day * t[usable] + result.intercept
        r_squared = 1 - float(np.sum((y[usable] - fitted) ** 2)) / total if total > 0 else math.nan
    dt_low, dt_high = months_interval(result.slope_ci_low, result.slope_ci_high)
    ends = determined_ends(result.ends_mc, result.slope_ci_low, result.slope_ci_high)
    # an end the draws leave undecided is no determined number (step 5): every surface reads it as open
    dt_low = math.inf if ends["low_undecided"] else dt_low
    dt_high = math.inf if ends["high_undecided"] else dt_high
    own = [months_interval(lo, hi) for lo, hi in result.reference_ci]
    ok, pooled = result.draws[np.isfinite(result.draws)], result.pooled
    return TrendUncertainty(
        **{
            name: getattr(result, name)
            for name in (  # the fields of the row's trend as they are
                "rule",
                "slope_per_day",
                "intercept",
                "slope_ci_low",
                "slope_ci_high",
                "n_boot",
                "level",
                "failed_draws",
                "draws",
                "reference_slopes",
                "ceiling_bounds",
                "floor_bounds",
                "open_families",
                "reference_labs",
                "lab_weights",
                "target_labs",
                "region_bounds",
                "readings",
            )
        },
        inversion=" | ".join(map(str, common.names)),
        doubling_time_months=doubling_months(result.slope_per_day),
        doubling_time_months_ci_low=dt_low,
        doubling_time_months_ci_high=dt_high,
        n_models=len(labels),
        n_exact=int((kind == EXACT).sum()),
        n_lower_bounds=int((kind == LOWER).sum()),
        n_upper_bounds=int((kind == UPPER).sum()),
        n_dropped=int((~np.isfinite(kind)).sum()),
        **{f"share_{s}": v for s, v in result.shares.items()},
        **{f"slope_sd_{s}": v for s, v in result.sds.items()},
        slope_sd_all=float(np.std(ok)),
        models=tuple(labels),
        n_references=len(common.names),
        reference_names=common.names,
        reference_weights=result.weights,
        epoch=epoch,
        frontier_models=tuple(labels[usable]),
        centre_days=float(np.mean(t[usable])) if usable.size else math.nan,
        r_squared=r_squared,
        heterogeneity_q=pooled.q,
        heterogeneity_df=pooled.df,
        heterogeneity_p=pooled.p_value,
        heterogeneity_draws=pooled.draws,
        tau_squared=pooled.tau_squared,
        i_squared=pooled.i_squared,
        judged=judged,
        reference_months_low=tuple(lo for lo, _ in own),
        reference_months_high=tuple(hi for _, hi in own),
        **ends,
        months_without_ceilings=doubling_months(result.slope_without_ceilings),
        months_without_floors=doubling_months(result.slope_without_floors),
        influence=influence_items(result),
        n_ceiling_bounds=int(sum(result.ceiling_bounds)),
        n_floor_bounds=int(sum(result.floor_bounds)),
        **most_influential_model(result),
        lab_influence=influence_items(result, by="lab"),
        months_without_region=doubling_months(result.slope_without_region),
        n_region_bounds=int(sum(result.region_bounds)),
    )


__all__ = ["Observed", "TrendUncertainty", "from_row_trend", "observed_trend", "trend_uncertainty"]
