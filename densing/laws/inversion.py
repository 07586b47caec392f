"""Inversion of a reference fit: score → effective parameter size at D0 → capacity density.

For a target model with N parameters scoring S on a benchmark, the effective parameter size is
the size a reference model trained on D0 tokens would need to score S (Xiao et al. 2024, eq. 4):

    L̂(S) = l − (1/γ)·ln(c/(S − d) − 1)
    N̂(S) = ((L̂ − b·D0^-β − E) / a)^(−1/α)
    ρ = N̂ / N

Scores at or below the sigmoid's floor d, at or above its ceiling c + d, or whose L̂ is at or below
the data-limited floor b·D0^-β + E have no finite N̂: they are *censored* (N̂ = 0 or +inf) and
carry a reason in the ``censored`` column — never a silent NaN.
"""
from __future__ import annotations

from numbers import Integral, Real
from typing import Iterable, Mapping

import numpy as np
import pandas as pd

from densing.errors import InputError
from densing.laws.fit import fit_verdict
from densing.laws.reference import ABOVE_CEILING, BELOW_FLOOR, BEYOND_DATA_LIMIT, ReferenceFit  # noqa: F401
from densing.validation import Interval, validate

COMPONENT_CENSORED = "component_censored"

#: What :func:`compute_density`'s arguments may be.
DENSITY_CONSTRAINTS = {
    "d0": [Interval(Real, 0, None, closed="neither"), None],
    "level": [Interval(Real, 0, 1, closed="neither")],
    "seed": [Interval(Integral, 0, None)],
}

_CI_QUANTILE_METHOD = "inverted_cdf"  # an observed draw, never an interpolation between ±inf


def invert(fit: ReferenceFit, scores, d0: float | None = None) -> pd.DataFrame:
    """Score → (L̂, N̂, censored) under ``fit`` at D0 tokens (eq. 4); one row per score."""
    scores = np.asarray(scores, float)
    if np.isnan(scores).any():
        raise InputError("scores: NaN score cannot be inverted")
    loss_hat, size, reasons = fit.invert(scores, d0)
    return pd.DataFrame({"score": scores, "loss_hat": loss_hat, "effective_params": size, "censored": reasons})


#: The words of :func:`extrapolation_notes` for N̂ outside the reference's N range.
BELOW_SMALLEST_N = "below the reference's smallest N"
ABOVE_LARGEST_N = "above the reference's largest N"


def extrapolation_notes(fit: ReferenceFit, effective_params, d0: float | None = None) -> list[str | None]:
    """Where an inversion leaves the reference's data, in words; ``None`` where it stays inside.

    N̂ is the size at which the reference's loss law, evaluated at D0 tokens, reaches the target's
    score (eq. 4). That is an interpolation only while (N̂, D0) lies within the points the law was
    fitted on: N̂ between their smallest and largest N, and D0 at most their largest D. Outside,
    the number rests on the law's functional form alone, which the reference's data did not test.
    Censored values (N̂ = 0 or ∞) have their own reason and get no note here.
    """
    sizes = np.asarray(effective_params, float)
    points = fit.loss_points_frame()
    if points.empty:
        return [None] * sizes.size
    from densing.data.units import format_count

    tokens = fit.d0 if d0 is None else d0
    n_low, n_high = float(points["params"].min()), float(points["params"].max())
    d_high = float(points["train_tokens"].max())
    common = []
    if tokens > d_high:
        common.append(f"D0 {format_count(tokens)} is {tokens / d_high:.3g}x the reference's largest D ({format_count(d_high)})")
    notes: list[str | None] = []
    for size in sizes:
        parts = list(common)
        if np.isfinite(size) and 0 < size < n_low:
            parts.append(f"N̂ {format_count(size)} {BELOW_SMALLEST_N} ({format_count(n_low)})")
        elif np.isfinite(size) and size > n_high:
            parts.append(f"N̂ {format_count(size)} {ABOVE_LARGEST_N} ({format_count(n_high)})")
        notes.append("; ".join(parts) or None)
    return notes


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


def conditioning(fit: ReferenceFit, scores, stderr, d0: float | None = None) -> np.ndarray:
    """How many-fold the density moves for one standard error σ of the score.

        κ(S) = max(ρ(S + σ) / ρ(S), ρ(S) / ρ(S − σ))   (≥ 1; +inf where S ± σ is censored)

    The inversion N̂ = ((L̂(S) − b·D0^-β − E)/a)^(−1/α) divides by the excess of L̂ over the
    data-limited floor, which nears zero for strong models, so a small error in S becomes a large
    factor in ρ. κ is that factor for one σ (the larger of the two one-sided ratios); NaN where σ
    is unknown or ρ(S) itself is censored.
    """
    s = np.asarray(scores, float)
    sigma = np.asarray(stderr, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        mid = fit.effective_params(s, d0)
        up = fit.effective_params(s + np.nan_to_num(sigma), d0)
        down = fit.effective_params(s - np.nan_to_num(sigma), d0)
        kappa = np.maximum(up / mid, mid / down)
    finite_mid = np.isfinite(mid) & (mid > 0)
    kappa = np.where(finite_mid, kappa, np.nan)
    return np.where(np.isnan(sigma), np.nan, kappa)


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
    """Effective parameter size and capacity density ρ = N̂/N of every target model (eq. 4).

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
        scores = rows["score"].to_numpy(float)
        inverted = invert(fit, scores, d0)
        rows["loss_hat"] = inverted["loss_hat"].to_numpy()
        rows["effective_params"] = inverted["effective_params"].to_numpy()
        rows["density"] = rows["effective_params"] / rows["params"]
        rows["censored"] = inverted["censored"].to_numpy()
        rows["extrapolation"] = extrapolation_notes(fit, rows["effective_params"], d0)
        rows["d0"] = fit.d0 if d0 is None else d0
        rows["reference_fit"] = f"{fit.kind}:{fit.benchmark}"
        rows["fit_verdict"] = fit_verdict(fit)
        if rows["fit_verdict"].iloc[0] is not None:
            poor.add(fit.benchmark)
        if fit.bootstrap and intervals:
            n_draws = len(fit.bootstrap)
            drawn_scores = np.broadcast_to(scores, (n_draws, scores.size))
            if "stderr" in rows.columns:
                noise = np.nan_to_num(rows["stderr"].to_numpy(float))
                rng = np.random.default_rng(seed)
                drawn_scores = drawn_scores + rng.standard_normal((n_draws, scores.size)) * noise
            draws = fit.effective_params_draws(drawn_scores, d0) / rows["params"].to_numpy(float)[None, :]
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
