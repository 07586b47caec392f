"""Per-model densities under an inversion (:mod:`densing.laws.inversion`): the tables of the notebook, the CLI and the trend.

- :func:`compute_density` (``densing density``): one row per model × reference fit with N̂, ρ, the
  censoring reason and a percentile interval over the fit's bootstrap draws × score noise, and a
  geometric-mean row per model over several fits; each number from :meth:`PerBenchmark.invert`.
- :func:`density_table` (the trend's per-model table): ρ of every target under any inversion
  (per benchmark or joint), a censored density as its bound, with its interval and, for the joint
  inversion, the per-benchmark densities and the Birge ratio beside it.
"""
from __future__ import annotations

from numbers import Integral, Real
from typing import Iterable, Mapping

import numpy as np
import pandas as pd

from densing.errors import InputError
from densing.laws.bounds import EXACT
from densing.laws.fit import fit_verdict
from densing.laws.inversion import BELOW_SMALLEST_N, ABOVE_LARGEST_N, Joint, PerBenchmark, arrays, extrapolation_notes
from densing.laws.reference_fit import ReferenceFit
from densing.validation import D0_TOKENS, Interval, validate

COMPONENT_CENSORED = "component_censored"

#: What :func:`compute_density`'s arguments may be.
DENSITY_CONSTRAINTS = {
    "d0": [D0_TOKENS, None],
    "level": [Interval(Real, 0, 1, closed="neither")],
    "seed": [Interval(Integral, 0, None)],
}

_CI_QUANTILE_METHOD = "inverted_cdf"  # an observed draw, never an interpolation between ±inf


def extrapolation_summary(result: pd.DataFrame) -> str | None:
    """One sentence for :func:`compute_density`'s ``extrapolation`` column: how many rows leave the
    reference's data, each D0 reason once and the N̂ reasons counted; ``None`` if no row does."""
    outside = result["extrapolation"].dropna().astype(str)
    if not len(outside):
        return None
    parts = [p for note in outside for p in note.split("; ")]
    reasons = sorted({p for p in parts if p.startswith("D0 ")})
    for side in (BELOW_SMALLEST_N, ABOVE_LARGEST_N):
        count = sum(side in p for p in parts)
        if count:
            reasons.append(f"N̂ {side} in {count} rows")
    return (f"{len(outside)} of {len(result)} rows extrapolate beyond the reference's data: " + "; ".join(reasons)
            + " (column 'extrapolation' of --format csv/json has each row's)")


def _quantiles(draws: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    low, high = np.quantile(draws, [(1 - level) / 2, (1 + level) / 2], axis=0, method=_CI_QUANTILE_METHOD)
    return low, high


def score_rows(targets: pd.DataFrame, fit: ReferenceFit) -> pd.DataFrame:
    """The targets' score per model for ``fit``'s benchmark(s) and metric (averaged for mean fits)."""
    names = list(fit.benchmarks)
    rows = targets[targets["benchmark"].isin(names) & (targets["metric"] == fit.metric)]
    if rows.empty:
        return rows
    keep = {"params": ("params", "first"), "score": ("value", "mean"), "n": ("benchmark", "nunique")}
    for column in ("train_tokens", "release_date", "family", "active_params"):
        if column in rows.columns:
            keep[column] = (column, "first")
    by_model = rows.groupby("model", sort=False)
    grouped = by_model.agg(**keep)
    if "stderr" in rows.columns:  # the mean's standard error: sqrt(Σ σ²) / k, NaN where no σ is known
        variance = np.square(rows["stderr"].astype(float)).groupby(rows["model"], sort=False).sum(min_count=1)
        grouped.insert(list(grouped.columns).index("n") + 1, "stderr", np.sqrt(variance) / by_model.size())
    grouped = grouped[grouped["n"] == len(names)].drop(columns="n").reset_index()
    grouped.insert(1, "benchmark", fit.benchmark)
    return grouped


def compute_density(
    targets: pd.DataFrame,
    fits: ReferenceFit | Iterable[ReferenceFit] | Mapping[str, ReferenceFit],
    *,
    d0: float | None = None,
    level: float = 0.95,
    aggregate: bool = True,
    seed: int = 0,
    intervals: bool = True,
    include_poor_fits: bool = False,
) -> pd.DataFrame:
    """A table of the effective parameter size and capacity density ρ = N̂/N of every target model (eq. 4).

    ``targets`` is a tidy results table; each fit picks the rows of its benchmark(s) and metric.
    Confidence intervals come from the fits' bootstrap draws (percentile, ``level``); where the
    targets carry a score standard error (column ``stderr``), each draw also perturbs the score by
    a normal error of that size (seeded), so the interval covers the benchmark's sampling noise. With
    ``aggregate`` and several fits, one more row per model (benchmark ``geomean``) holds the
    geometric mean of its per-benchmark densities, censored if any component is.
    ``intervals=False`` skips the confidence intervals (NaN) when only point values are needed.
    A fit with a verdict (:func:`densing.laws.fit.fit_verdict`: R² below 0.5) keeps its rows, with
    the verdict in the ``fit_verdict`` column, but is left out of the geometric mean unless
    ``include_poor_fits``.
    """
    if isinstance(fits, ReferenceFit):
        fits = [fits]
    elif isinstance(fits, Mapping):
        fits = list(fits.values())
    fits = list(fits)
    if not fits:
        raise InputError("fits: no reference fit given")
    validate(DENSITY_CONSTRAINTS, d0=d0, level=level, seed=seed)
    frames = []
    poor: set[str] = set()
    draws_by_fit: dict[str, np.ndarray] = {}
    for fit in fits:
        rows = score_rows(targets, fit)
        if rows.empty:
            continue
        inversion = PerBenchmark(fit, d0)
        scores = rows["score"].to_numpy(float)
        if np.isnan(scores).any():
            raise InputError("scores: NaN score cannot be inverted")
        params = rows["params"].to_numpy(float)
        loss_hat, size, reasons = inversion.invert(scores[:, None])
        rows["loss_hat"] = loss_hat
        rows["effective_params"] = size
        rows["density"] = size / params
        rows["censored"] = reasons
        rows["extrapolation"] = extrapolation_notes(fit, size, inversion.d0)
        rows["d0"] = inversion.d0
        rows["reference_fit"] = f"{fit.kind}:{fit.benchmark}"
        rows["fit_verdict"] = fit_verdict(fit)
        if rows["fit_verdict"].iloc[0] is not None:
            poor.add(fit.benchmark)
        if inversion.n_draws and intervals:
            # every bootstrap draw of the fit, in order, each with its own score noise (seeded)
            n_draws = inversion.n_draws
            drawn_scores = np.broadcast_to(scores, (n_draws, scores.size))
            if "stderr" in rows.columns:
                noise = np.nan_to_num(rows["stderr"].to_numpy(float))
                rng = np.random.default_rng(seed)
                drawn_scores = drawn_scores + rng.standard_normal((n_draws, scores.size)) * noise
            draws = inversion.invert(drawn_scores[..., None], np.arange(n_draws))[1] / params[None, :]
            low, high = _quantiles(draws, level)
            draws_by_fit[fit.benchmark] = pd.DataFrame(draws, columns=rows["model"]).T
        else:
            low = high = np.full(len(rows), np.nan)
        rows["density_ci_low"] = low
        rows["density_ci_high"] = high
        rows["effective_params_ci_low"] = low * rows["params"]
        rows["effective_params_ci_high"] = high * rows["params"]
        frames.append(rows)
    if not frames:
        names = ", ".join(f.benchmark for f in fits)
        wanted = {b for f in fits for b in f.benchmarks}
        other = sorted(set(targets.loc[targets["benchmark"].isin(wanted), "metric"].astype(str)))
        found = f"; the targets score them as {', '.join(other)}" if other else ""
        raise InputError(f"targets: no rows for the fitted benchmark(s) {names} (metric {fits[0].metric!r}){found}")
    result = pd.concat(frames, ignore_index=True)
    kept = [f for f in frames if include_poor_fits or f["benchmark"].iloc[0] not in poor]
    if aggregate and len(kept) > 1:
        pooled = pd.concat(kept, ignore_index=True)
        draws = {b: d for b, d in draws_by_fit.items() if b in set(pooled["benchmark"])}
        result = pd.concat([result, _geomean_rows(pooled, draws, len(kept), level)], ignore_index=True)
    ordered = [
        "model", "benchmark", "params", "score", "loss_hat", "effective_params", "density", "censored",
        "density_ci_low", "density_ci_high", "effective_params_ci_low", "effective_params_ci_high", "extrapolation",
    ]
    rest = [c for c in result.columns if c not in ordered]
    result = result[ordered + rest]
    # a finite density has no censoring reason: missing (JSON null, CSV empty), not ""
    result["censored"] = result["censored"].astype(object).where(is_censored(result["censored"]), None)
    result["extrapolation"] = result["extrapolation"].astype(object).where(result["extrapolation"].notna(), None)
    return result


def is_censored(reasons: pd.Series) -> pd.Series:
    """True where a ``censored`` column holds a reason (missing and ``""`` mean not censored)."""
    return reasons.fillna("").astype(str).ne("")


def _geomean_rows(result: pd.DataFrame, draws_by_fit: dict, n_fits: int, level: float) -> pd.DataFrame:
    """ρ_geo = exp(mean_i ln ρ_i) over a model's benchmarks; censored if any ρ_i is.

    Whole columns at a time (a per-model loop took most of the time on large tables)."""
    counts = result.groupby("model", sort=False)["benchmark"].nunique()
    models = counts.index[counts == n_fits]
    if not len(models):
        return pd.DataFrame()
    sub = result[result["model"].isin(models)].copy()
    sub["_censored"] = is_censored(sub["censored"]).to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        sub["_log"] = np.log(sub["density"].astype(float))
    sub["_extrapolates"] = sub["extrapolation"].notna()
    by_model = sub.groupby("model", sort=False)
    first = sub.drop_duplicates("model", keep="first").set_index("model").loc[models]
    censored = by_model["_censored"].any().loc[models].to_numpy()
    value = np.where(censored, np.nan, np.exp(by_model["_log"].mean().loc[models].to_numpy()))
    low = high = np.full(len(models), np.nan)
    if len(draws_by_fit) == n_fits:
        per_fit = [draws.reindex(models).to_numpy(float) for draws in draws_by_fit.values()]
        n_draws = min(d.shape[1] for d in per_fit)  # fits may keep different numbers of draws
        with np.errstate(divide="ignore", invalid="ignore"):
            geo = np.exp(np.mean([np.log(d[:, :n_draws]) for d in per_fit], axis=0))
        geo[censored] = np.nan
        # a draw censored at 0 in one fit and at ∞ in another is NaN: left out of its model's interval
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a model whose every draw is NaN: no interval
            low, high = np.nanquantile(geo, [(1 - level) / 2, (1 + level) / 2], axis=1, method=_CI_QUANTILE_METHOD)
    params = first["params"].to_numpy(float)
    out = {
        "model": list(models),
        "benchmark": "geomean",
        "params": params,
        "score": np.nan,
        "loss_hat": np.nan,
        "effective_params": value * params,
        "density": value,
        "censored": np.where(censored, COMPONENT_CENSORED, ""),
        "extrapolation": np.where(by_model["_extrapolates"].any().loc[models].to_numpy(), "a component extrapolates", None),
        "density_ci_low": low,
        "density_ci_high": high,
        "effective_params_ci_low": low * params,
        "effective_params_ci_high": high * params,
    }
    for column in ("train_tokens", "release_date", "family", "d0"):
        if column in result.columns:
            out[column] = first[column].to_numpy()
    out["reference_fit"] = "geomean"
    return pd.DataFrame(out)


# ---------------------------------------------------------------------------------------------
# the trend's per-model table: any inversion, censored densities as bounds


def point_densities(models: pd.DataFrame, inversion) -> tuple[np.ndarray, np.ndarray]:
    """ln ρ (or its bound) and its kind for every model under the inversion's point parameters."""
    scores, stderr = arrays(models, inversion.benchmarks)
    return inversion.point(scores, stderr, models["params"].to_numpy(float))


def density_table(models: pd.DataFrame, inversion, *, seed: int = 0, level: float = 0.95, n_draws: int = 600) -> pd.DataFrame:
    """ρ of every target under the inversion with its interval (fit draws × score noise), and per benchmark beside it.

    For the joint inversion the score noise also carries the between-benchmark skill variance
    (sd √(σ² + S'(x̂)²·s²), :mod:`densing.laws.joint`; with ``skill="none"``, the first version: σ
    scaled by the model's Birge ratio where it exceeds 1), and the per-benchmark densities and the
    Birge ratio are columns.
    """
    scores, stderr = arrays(models, inversion.benchmarks)
    params = models["params"].to_numpy(float)
    y, kind = inversion.point(scores, stderr, params)
    rng = np.random.default_rng(seed)
    count = min(n_draws, inversion.n_draws)
    picks = rng.integers(inversion.n_draws, size=count)
    noise_sd = np.nan_to_num(stderr)
    extra = {}
    out = models[["model", "params", "release_date"] + [c for c in ("family",) if c in models.columns]].copy()
    if isinstance(inversion, Joint):
        solved = inversion.solve_point(scores, stderr)
        if inversion.skill == "none":
            scale = np.where(np.nan_to_num(solved.birge_ratio) > 1, np.nan_to_num(solved.birge_ratio), 1.0)
            noise_sd = noise_sd * scale[:, None]
        else:
            noise_sd = np.sqrt(np.square(noise_sd) + np.square(solved.slope) * solved.skill2)
        out["birge_ratio"] = solved.birge_ratio
        extra["weights"] = solved.weights  # the observed scores' weights, as the trend's draws use
        for b, fit in enumerate(inversion.fits):  # each benchmark alone, as the joint solve inverted it
            out[f"density:{fit.benchmark}"] = solved.per_benchmark_size[:, b] / params
    noise = rng.standard_normal((count, *scores.shape)) * noise_sd[None]
    drawn_y, drawn_kind = inversion.draws(picks, scores[None] + noise, stderr, params, **extra)
    # a draw that lands on a bound says only "below" / "above" its value: it counts as −∞ / +∞, so an
    # interval end that falls among such draws is open (0 or ∞), never a NaN
    open_y = np.where(drawn_kind == EXACT, drawn_y, np.where(drawn_kind > 0, np.inf, -np.inf))
    low, high = np.quantile(open_y, [(1 - level) / 2, (1 + level) / 2], axis=0, method="inverted_cdf")
    out["density"] = np.exp(y)
    out["bound"] = np.where(kind == EXACT, "", np.where(kind > 0, "lower bound", np.where(kind < 0, "upper bound", "dropped")))
    out["density_ci_low"], out["density_ci_high"] = np.exp(low), np.exp(high)
    out["effective_params"] = np.exp(y) * params
    out["reference"] = inversion.name
    out["d0"] = inversion.d0
    return out.sort_values("density", ascending=False).reset_index(drop=True)
