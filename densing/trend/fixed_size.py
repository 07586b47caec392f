"""A second estimator of the Densing Law beside the envelope: the fixed-size time regression, with no reference.

Under the law, a model of N parameters released at t scores as a model of N·ρ(t) would have at t = 0,
ρ(t) = e^{A·t}; with the logistic capability law in ln N (:mod:`densing.laws.family`) the logit of the score above
chance is linear in ln N + A·t:

    z = logit((S − d)/(1 − d)) = β₀ + β_N·ln N + β_t·t,    A = β_t / β_N,
    doubling time = ln 2 / A = ln 2 · β_N / β_t

d the chance level (:data:`densing.data.benchmarks.CHANCE_LEVELS`); under a law whose logit is not linear in ln N,
β_N is the average local slope, to first order. The test of the law of the Incompressible Knowledge Probes (arXiv
2604.24827, ``19PINE-AI/ikp``); docs/method.md, "A second estimator", gives its rows and results.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import pandas as pd
from scipy.special import stdtrit

from densing import registry
from densing.constants import DEFAULT_EPOCH, LN2
from densing.data.benchmarks import CHANCE_LEVELS
from densing.data.schema import require_columns
from densing.errors import InputError
from densing.laws.family import metric_for
from densing.results import Result
from densing.runtime.memo import per_table
from densing.states import NoRise, RateReachesZero, State, TooFewScores
from densing.trend.checks import cluster_ols
from densing.trend.targets import days_since, parse_epoch
from densing.validation import Interval, validate

DAYS_PER_YEAR = 365.25
MIN_FAMILIES = 5  # clustered standard errors and a family bootstrap need several clusters
MIN_SCORES = 10
#: What :func:`fixed_size_trend` takes (checked by :func:`densing.validation.validate`).
CONSTRAINTS = {
    "n_boot": [Interval(Integral, 1, None)],
    "seed": [Interval(Integral, 0, None)],
    "level": [Interval(Real, 0, 1, closed="neither")],
}


@dataclass(frozen=True)
class FixedSizeFit(Result):
    """One fixed-size time regression (module docstring). Slopes per unit of ln N and per year; months of 365.25/12
    days; ``doubling_time_months_ci_*`` is the family bootstrap's interval, ``delta_*`` the delta method's."""

    row: str
    benchmarks: tuple[str, ...]
    n_scores: int
    n_models: int
    n_families: int
    n_at_floor: int
    n_at_ceiling: int
    slope_log_params: float
    slope_log_params_ci_low: float
    slope_log_params_ci_high: float
    slope_per_year: float
    slope_per_year_ci_low: float
    slope_per_year_ci_high: float
    doubling_time_months: float
    doubling_time_months_ci_low: float
    doubling_time_months_ci_high: float
    delta_doubling_time_months_ci_low: float
    delta_doubling_time_months_ci_high: float
    n_boot: int
    state: State
    #: why it is not measured (:class:`~densing.states.TooFewScores`, :class:`~densing.states.NoRise`) or only bounded
    #: (:class:`~densing.states.RateReachesZero`: the interval's upper end is open); None where it is measured
    reason: object = None

    #: what the fit is, for a table that holds it beside the reference-based rows
    estimator: ClassVar[str] = (
        "fixed-size time regression (logit of the score above chance ~ ln N + t, clustered by family)"
    )
    _ci_estimates: ClassVar[dict[str, str]] = {"delta_doubling_time_months": "doubling_time_months"}
    _dict_exclude = ("reason",)


#: The float fields of :class:`FixedSizeFit` (NaN in a row too thin to fit).
_NUMBERS = tuple(f.name for f in FixedSizeFit.__dataclass_fields__.values() if f.type == "float")


@per_table
def score_rows(
    table: pd.DataFrame, benchmark: str, since: str | None = DEFAULT_EPOCH, epoch: str = DEFAULT_EPOCH
) -> tuple[pd.DataFrame, int, int]:
    """(rows, at floor, at ceiling): ``model``, ``family`` (the model where none), ``benchmark``, ``log_params``,
    ``years`` and ``logit`` = logit((S − d)/(1 − d)) of each dense model released since ``since`` with S in (d, 1)
    on ``benchmark``, and how many scores were at or below d or at 1; once per table inside ``same_tables``."""
    require_columns(table, ("model", "benchmark", "metric", "value", "params", "release_date"), "fixed-size regression")
    chance = CHANCE_LEVELS.get(benchmark)
    if chance is None:
        raise InputError(
            f"benchmark {benchmark!r}: no chance level in the registry; the fixed-size regression needs it"
        )
    metric = metric_for(table, benchmark, None)
    rows = table[(table["benchmark"] == benchmark) & (table["metric"] == metric)]
    dates = pd.to_datetime(rows["release_date"])
    params = rows["params"].to_numpy(float)
    dense = rows["active_params"].isna().to_numpy() if "active_params" in rows.columns else np.ones(len(rows), bool)
    keep = dates.notna().to_numpy() & np.isfinite(params) & (params > 0) & dense & rows["value"].notna().to_numpy()
    if since is not None:
        keep &= (dates >= pd.Timestamp(since)).to_numpy()
    rows, dates = rows[keep], dates[keep]
    family = (
        rows["family"].astype(object) if "family" in rows.columns else pd.Series(np.nan, index=rows.index, dtype=object)
    )
    frame = (
        pd.DataFrame(
            {
                "model": rows["model"].astype(str).to_numpy(),
                "family": np.where(
                    family.isna().to_numpy(), rows["model"].astype(str).to_numpy(), family.astype(str).to_numpy()
                ),
                "benchmark": benchmark,
                "log_params": np.log(rows["params"].to_numpy(float)),
                "years": days_since(dates.to_numpy("datetime64[ns]"), parse_epoch(epoch)) / DAYS_PER_YEAR,
                "score": rows["value"].to_numpy(float),
            }
        )
        .groupby(["model", "family", "benchmark"], as_index=False)
        .mean()
    )
    share = (frame["score"].to_numpy() - chance) / (1.0 - chance)
    inside = (share > 0) & (share < 1)
    frame = frame[inside].assign(logit=np.log(share[inside] / (1.0 - share[inside])))
    return frame.reset_index(drop=True), int((share <= 0).sum()), int((share >= 1).sum())


#: A draw whose normal equations are worse conditioned than this is solved by least squares on its rows.
_CONDITION = 1e10


def _rates(x: np.ndarray, y: np.ndarray, groups: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """Family cluster bootstrap of the rate A = β_t/β_N (−inf where a draw's β_N ≤ 0): draw k counts family g c_kg times
    and solves (Σ_g c_kg·X_gᵀX_g)·β = Σ_g c_kg·X_gᵀy_g, all draws at once (size and date centred); an ill-conditioned
    draw (a benchmark's intercept with no family drawn) by least squares on its rows."""
    rng = np.random.default_rng(seed)
    count = int(groups.max() + 1)
    members = [np.flatnonzero(groups == g) for g in range(count)]
    picks = [rng.integers(0, count, count) for _ in range(n_boot)]  # one call per draw: the draws' stream
    centred = x.astype(float).copy()
    centred[:, :2] -= centred[:, :2].mean(axis=0)
    gram = np.stack([centred[m].T @ centred[m] for m in members])
    moment = np.stack([centred[m].T @ y[m] for m in members])
    counts = np.stack([np.bincount(p, minlength=count) for p in picks]).astype(float)
    xtx, xty = np.einsum("bg,gij->bij", counts, gram), counts @ moment
    with np.errstate(divide="ignore", invalid="ignore"):
        solvable = np.linalg.cond(xtx) < _CONDITION
    beta = np.empty((n_boot, x.shape[1]))
    if solvable.any():
        beta[solvable] = np.linalg.solve(xtx[solvable], xty[solvable][..., None])[..., 0]
    for i in np.flatnonzero(~solvable):
        pick = np.concatenate([members[g] for g in picks[i]])
        beta[i] = np.linalg.lstsq(x[pick], y[pick], rcond=None)[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(beta[:, 0] > 0, beta[:, 1] / beta[:, 0], -math.inf)


def _months(rate_per_year: float) -> float:
    return 12.0 * LN2 / rate_per_year if rate_per_year > 0 else math.inf


def fit_fixed_size(
    frame: pd.DataFrame,
    *,
    row: str | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    n_at_floor: int = 0,
    n_at_ceiling: int = 0,
) -> FixedSizeFit:
    """The fixed-size time regression on ``frame`` (:func:`score_rows`' columns, benchmarks stacked): z = β₀[benchmark]
    + β_N·ln N + β_t·t, D = ln 2·β_N/β_t. Intervals: the delta method's, D ± t_{G−1}·se(D), se(D)² = gᵀΣg,
    g = ln 2·(1/β_t, −β_N/β_t²), Σ the clustered covariance of (β_N, β_t), G the families; and the row's, the family
    cluster bootstrap's interval of A = β_t/β_N (:func:`_rates`) through ln 2 / A. ``measured`` where it lies above 0,
    ``bounded`` where it reaches 0, else ``not measured`` (fewer than :data:`MIN_FAMILIES` or :data:`MIN_SCORES`)."""
    benchmarks = tuple(dict.fromkeys(frame["benchmark"].astype(str)))
    name = row if row is not None else "+".join(benchmarks)
    groups = pd.factorize(frame["family"].astype(str))[0]
    n_families = int(groups.max() + 1) if len(groups) else 0
    nan = math.nan
    base = {
        "row": name,
        "benchmarks": benchmarks,
        "n_scores": len(frame),
        "n_models": int(frame["model"].nunique()),
        "n_families": n_families,
        "n_at_floor": n_at_floor,
        "n_at_ceiling": n_at_ceiling,
        "n_boot": n_boot,
    }
    if n_families < MIN_FAMILIES or len(frame) < MIN_SCORES:
        return FixedSizeFit(
            **base,
            **dict.fromkeys(_NUMBERS, nan),
            state=State.NOT_MEASURED,
            reason=TooFewScores(len(frame), n_families, MIN_SCORES, MIN_FAMILIES),
        )
    intercepts = pd.get_dummies(frame["benchmark"], dtype=float).to_numpy()  # one per benchmark
    x = np.column_stack([frame["log_params"].to_numpy(float), frame["years"].to_numpy(float), intercepts])
    y = frame["logit"].to_numpy(float)
    fit = cluster_ols(y, x, groups)  # statsmodels' OLS(...).fit(cov_type="cluster", use_t=True), tested against it
    (b_n, b_t), cov = fit.params[:2], fit.cov[:2, :2]
    (n_low, n_high), (t_low, t_high) = fit.conf_int(1 - level)[:2]
    months = 12.0 * LN2 * b_n / b_t if b_t > 0 and b_n > 0 else math.inf
    gradient = 12.0 * LN2 * np.array([1.0 / b_t, -b_n / b_t**2])
    delta_se = float(np.sqrt(gradient @ cov @ gradient))
    z = float(stdtrit(n_families - 1, 0.5 + level / 2))  # Student's t with G − 1 degrees of freedom (use_t=True)
    rates = _rates(x, y, groups, n_boot, seed)
    tail = (1.0 - level) / 2.0
    rate_low, rate_high = (float(v) for v in np.quantile(rates, [tail, 1.0 - tail], method="inverted_cdf"))
    delta = (months - z * delta_se, months + z * delta_se) if math.isfinite(months) else (nan, nan)
    numbers = dict(
        zip(
            _NUMBERS,
            (
                float(b_n),
                float(n_low),
                float(n_high),
                float(b_t),
                float(t_low),
                float(t_high),
                months,
                _months(rate_high),
                _months(rate_low),
                *delta,
            ),
        )
    )  # in the fields' order
    if b_n <= 0:
        reason = NoRise("size", float(b_n))
    elif b_t <= 0:
        reason = NoRise("date", float(b_t))
    elif rate_low <= 0:
        reason = RateReachesZero(level)
    else:
        reason = None
    # the one state rule (densing.states.State.from_ends): a rising fit has its interval's lower end determined, and
    # its upper end too unless the interval reaches a zero rate (∞ months); a fit that does not rise has neither
    rises = reason is None or isinstance(reason, RateReachesZero)
    state = State.from_ends(low_determined=rises, high_determined=reason is None)
    return FixedSizeFit(**base, **numbers, state=state, reason=reason)


def fixed_size_trend(
    table: pd.DataFrame,
    benchmarks: str | tuple[str, ...],
    *,
    row: str | None = None,
    since: str | None = DEFAULT_EPOCH,
    epoch: str = DEFAULT_EPOCH,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    complete: bool = True,
) -> FixedSizeFit:
    """The fixed-size time regression of one benchmark, or of a set pooled with one intercept each and common slopes, on
    its complete cases (``complete``) or on every model with any of its scores (``False``: another estimand)."""
    validate(CONSTRAINTS, n_boot=n_boot, seed=seed, level=level)
    benchmarks = (benchmarks,) if isinstance(benchmarks, str) else tuple(benchmarks)
    if not benchmarks:
        raise InputError("fixed-size regression: no benchmark named")
    found = [score_rows(table, b, since, epoch) for b in benchmarks]
    frame = pd.concat([f[0] for f in found], ignore_index=True)
    if complete and len(benchmarks) > 1:  # the row's targets: the models with a score on every benchmark of the set
        every = set.intersection(*(set(f[0]["model"].astype(str)) for f in found))
        frame = frame[frame["model"].astype(str).isin(every)].reset_index(drop=True)
    return fit_fixed_size(
        frame,
        row=row,
        n_boot=n_boot,
        seed=seed,
        level=level,
        n_at_floor=sum(f[1] for f in found),
        n_at_ceiling=sum(f[2] for f in found),
    )


def fixed_size_rows(
    table: pd.DataFrame,
    profile=None,
    *,
    since: str | None = DEFAULT_EPOCH,
    epoch: str = DEFAULT_EPOCH,
    n_boot: int = 1000,
    seed: int = 0,
) -> tuple[FixedSizeFit, ...]:
    """The cross-check fits of a target table: one per benchmark of its profile's sets, then one per set (as a table
    with each status in words: :func:`densing.present.records.fixed_size_frame`)."""
    profile = registry.table(profile)
    singles = tuple(dict.fromkeys(b for _, members in profile.sets.values() for b in members))
    fits = [fixed_size_trend(table, b, since=since, epoch=epoch, n_boot=n_boot, seed=seed) for b in singles]
    fits += [
        fixed_size_trend(table, members, row=name, since=since, epoch=epoch, n_boot=n_boot, seed=seed)
        for name, (_, members) in profile.sets.items()
    ]
    return tuple(fits)
