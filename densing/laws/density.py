"""Per-model densities under an inversion (:mod:`densing.laws.inversion`), for the CLI, the trend and the report: values
and codes; the words beside them (a fit's verdict, the extrapolation notes) come from :mod:`densing.present.laws`.

:func:`solve_densities` is the one engine; :func:`density_table` (the trend's and the report's per-model table) and
:func:`compute_density` (``densing density``) show it. A score without a standard error gets the binomial
√(S(1 − S)/n) (:func:`densing.data.benchmarks.with_stderr`).
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
import pandas as pd

from densing.data.benchmarks import with_stderr
from densing.data.schema import table_argument
from densing.errors import InputError
from densing.laws.bounds import EXACT, LOWER, UPPER, near_chance, readings
from densing.laws.fit_schema import poor_fit, score_r_squared
from densing.laws.inversion import (
    ComponentExtrapolates,
    Joint,
    PerBenchmark,
    arrays,
    extrapolation_notes,
    mean_score,
    score_matrix,
)
from densing.laws.reference_fit import ReferenceFit, as_fits
from densing.laws.region import ABOVE_TOP_MEMBER, BELOW_SMALLEST_MEMBER, Reason, member_log_sizes, within_members
from densing.validation import D0_TOKENS, Interval, Options, validate_params

COMPONENT_CENSORED = "component_censored"

#: What :func:`compute_density`'s arguments may be.
DENSITY_CONSTRAINTS = {
    "d0": [D0_TOKENS, None],
    "level": [Interval(Real, 0, 1, closed="neither")],
    "seed": [Interval(Integral, 0, None)],
    **dict.fromkeys(("aggregate", "intervals", "include_poor_fits"), [Options({True, False})]),
}

_CI_QUANTILE_METHOD = "inverted_cdf"  # an observed draw, never an interpolation between ±inf
#: How many of the reference's bootstrap draws an interval picks (with replacement), at most.
N_DRAWS = 600


#: The codes of a density table's ``bound`` field by the density's kind: a file format's vocabulary, the one a table
#: file's ``bound`` column is read back with (:data:`densing.trend.targets.BOUND_KINDS`), not a reader's sentence.
BOUND_CODES = {EXACT: "", LOWER: "lower bound", UPPER: "upper bound"}
#: The ``bound`` code of a density the law cannot express even as a bound (kind NaN; the density is NaN).
DROPPED = "dropped"


def bound_codes(kind: np.ndarray) -> np.ndarray:
    """A density's ``bound`` column from its kind (:data:`BOUND_CODES`): "" (a value), "lower bound" (ρ ≥ it), "upper
    bound" (ρ ≤ it) or "dropped" (:data:`DROPPED`)."""
    kind = np.asarray(kind, float)
    return np.where(
        kind == EXACT,
        BOUND_CODES[EXACT],
        np.where(kind > 0, BOUND_CODES[LOWER], np.where(kind < 0, BOUND_CODES[UPPER], DROPPED)),
    )


@dataclass
class Densities:
    """What :func:`solve_densities` gives for the rows of ``models``, in their order: ``log_density`` (ln ρ, or the
    bound's), ``kind`` (0 exact, +1 lower bound, −1 upper bound, NaN dropped), ``low``/``high`` (ρ's interval, NaN
    without draws), ``draws`` (ln ρ per draw × model, a bound as −∞ / +∞; or None) and ``columns`` (the joint
    inversion's Birge ratio and per-benchmark densities)."""

    log_density: np.ndarray
    kind: np.ndarray
    low: np.ndarray
    high: np.ndarray
    draws: np.ndarray | None = None
    columns: dict = field(default_factory=dict)


def point_densities(models: pd.DataFrame, inversion) -> tuple[np.ndarray, np.ndarray]:
    """ln ρ (or its bound) and its kind for every model under the inversion's point parameters."""
    scores, stderr = arrays(models, inversion.benchmarks)
    return inversion.point(scores, stderr, models["params"].to_numpy(float))


def solve_densities(
    models: pd.DataFrame,
    inversion,
    *,
    seed: int = 0,
    level: float = 0.95,
    n_draws: int = N_DRAWS,
    intervals: bool = True,
    own_draws: bool = False,
) -> Densities:
    """ρ of every row of ``models`` (:func:`densing.laws.inversion.score_matrix`'s table) under the inversion, with its
    interval: the one computation behind every per-model density table.

    Point: ln ρ = ln(N̂(S)/N) (eq. 4), a censored score's density as its bound
    (:func:`densing.laws.bounds.log_density_bounds`), an N̂ outside the reference's members a bound at their edge
    (:func:`densing.laws.region.within_members`; ``columns["below_members"]`` and ``["above_members"]`` mark them). Interval: ``min(n_draws, B)`` draws, each a seeded pick of the
    reference's bootstrap draws and the scores plus normal noise of sd σ, their standard error (joint inversion: √(σ² +
    S'(x̂)²·s²), or with ``skill="none"`` σ scaled by a Birge ratio above 1; :mod:`densing.laws.joint`); the ends the (1
    ∓ level)/2 ``inverted_cdf`` quantiles of the draws' ln ρ, a bound counted as −∞ / +∞ (an end among them is open: 0
    or ∞). ``intervals=False`` or a reference without draws: NaN ends. The draws come from one generator of ``seed``,
    the rows' together (a draw is one pick for every row: the trend's joint draws), or with ``own_draws`` from a
    generator per row (:func:`model_seed`: ``seed`` and the row's own numbers), so that a row's interval is the same
    whatever rows stand beside it (a placed model's).
    """
    scores, stderr = arrays(models, inversion.benchmarks)
    params = models["params"].to_numpy(float)
    region = member_log_sizes(inversion)  # the identified region (docs/method.md): below the smallest member a bound
    y, kind, reason = within_members(*inversion.point(scores, stderr, params), np.log(params), region)
    columns = {"below_members": reason == Reason.BELOW_SMALLEST, "above_members": reason == Reason.ABOVE_TOP}
    extra, noise_sd = {}, np.nan_to_num(stderr)
    if isinstance(inversion, Joint):
        solved = inversion.solve_point(scores, stderr)
        if inversion.skill == "none":
            scale = np.where(np.nan_to_num(solved.birge_ratio) > 1, np.nan_to_num(solved.birge_ratio), 1.0)
            noise_sd = noise_sd * scale[:, None]
        else:
            noise_sd = np.sqrt(np.square(noise_sd) + np.square(solved.slope) * solved.skill2)
        columns["birge_ratio"] = solved.birge_ratio
        extra["weights"] = solved.weights  # the observed scores' weights, as the trend's draws use
        for b, fit in enumerate(inversion.fits):  # each benchmark alone, as the joint solve inverted it
            columns[f"density:{fit.benchmark}"] = solved.per_benchmark_size[:, b] / params
    count = min(n_draws, inversion.n_draws)
    if not intervals or count == 0 or not len(params):
        nan = np.full(len(params), np.nan)
        return Densities(y, kind, nan, nan.copy(), None, columns)
    if own_draws:
        drawn_y, drawn_kind = _own_draws(inversion, scores, stderr, params, noise_sd, extra, seed=seed, count=count)
    else:
        rng = np.random.default_rng(seed)
        picks = rng.integers(inversion.n_draws, size=count)
        noise = rng.standard_normal((count, *scores.shape)) * noise_sd[None]
        drawn_y, drawn_kind = inversion.draws(picks, scores[None] + noise, stderr, params, **extra)
    drawn_y, drawn_kind, _ = within_members(drawn_y, drawn_kind, np.log(params)[None], region)
    open_y = np.where(drawn_kind == EXACT, drawn_y, np.where(drawn_kind > 0, np.inf, -np.inf))
    low, high = np.quantile(open_y, [(1 - level) / 2, (1 + level) / 2], axis=0, method=_CI_QUANTILE_METHOD)
    below = columns["below_members"]  # an upper bound at the smallest member: its interval is [0, the bound]
    low, high = np.where(below, -np.inf, low), np.where(below, np.maximum(high, y), high)
    return Densities(y, kind, np.exp(low), np.exp(high), open_y, columns)


def model_seed(seed: int, benchmarks, scores: np.ndarray, stderr: np.ndarray, params: float) -> np.random.SeedSequence:
    """The seed of one model's own draws: ``SeedSequence([seed, *w])``, w the eight 32-bit words of the SHA-256 of the
    model's numbers as the inversion reads them — the benchmarks' names, then its scores, their standard errors and its
    size as little-endian float64 (a missing number as one NaN, −0 as 0). The name is not part of it: two rows of the
    same numbers draw the same, whatever they are called, and a model draws the same alone or beside others."""
    numbers = np.concatenate([np.ravel(scores), np.ravel(stderr), [params]]).astype("<f8") + 0.0  # −0 → 0
    numbers[np.isnan(numbers)] = np.nan
    digest = hashlib.sha256("\x1f".join(benchmarks).encode() + b"\x00" + numbers.tobytes()).digest()
    return np.random.SeedSequence([int(seed), *np.frombuffer(digest, "<u4").tolist()])


def _own_draws(
    inversion,
    scores: np.ndarray,
    stderr: np.ndarray,
    params: np.ndarray,
    noise_sd: np.ndarray,
    extra: dict,
    *,
    seed: int,
    count: int,
) -> tuple[np.ndarray, np.ndarray]:
    """ln ρ and kind per draw × row (:func:`solve_densities`'s draws), each row from its own generator
    (:func:`model_seed`): ``count`` picks of the reference's draws, then the score noise of sd ``noise_sd``."""
    drawn_y, drawn_kind = np.empty((count, len(params))), np.empty((count, len(params)))
    for row in range(len(params)):
        rng = np.random.default_rng(model_seed(seed, inversion.benchmarks, scores[row], stderr[row], params[row]))
        picks = rng.integers(inversion.n_draws, size=count)
        noise = rng.standard_normal((count, 1, scores.shape[1])) * noise_sd[None, row : row + 1]
        own = {name: value[row : row + 1] for name, value in extra.items()}  # the row's weights
        drawn_y[:, row : row + 1], drawn_kind[:, row : row + 1] = inversion.draws(
            picks, scores[None, row : row + 1] + noise, stderr[row : row + 1], params[row : row + 1], **own
        )
    return drawn_y, drawn_kind


def density_table(
    models: pd.DataFrame,
    inversion,
    *,
    seed: int = 0,
    level: float = 0.95,
    n_draws: int = N_DRAWS,
    own_draws: bool = False,
) -> pd.DataFrame:
    """The trend's and the report's per-model table: :func:`solve_densities` of every target, densest first. Columns:
    model, params, release_date (family), for the joint inversion ``birge_ratio`` and each benchmark's ``density:<b>``,
    bound and interval (:func:`per_benchmark_intervals`), then ``density`` (ρ or its bound), ``bound``
    (:func:`bound_codes`), ``density_ci_low``/``_high``, ``near_chance``, ``reading`` (:func:`readings`),
    ``effective_params`` (ρ·N), ``reference`` (the inversion's name) and ``d0``. ``own_draws``: each row's intervals
    from its own draws (:func:`solve_densities`)."""
    solved = solve_densities(models, inversion, seed=seed, level=level, n_draws=n_draws, own_draws=own_draws)
    density = np.exp(solved.log_density)
    out = models[["model", "params", "release_date"] + [c for c in ("family",) if c in models.columns]].assign(
        **solved.columns,
        **per_benchmark_intervals(models, inversion, seed=seed, level=level, n_draws=n_draws, own_draws=own_draws),
        density=density,
        bound=bound_codes(solved.kind),
        density_ci_low=solved.low,
        density_ci_high=solved.high,
        near_chance=near_chance(*arrays(models, inversion.benchmarks), inversion.benchmarks),
    )
    out["reading"] = readings(out)
    out = out.assign(
        effective_params=density * models["params"].to_numpy(float), reference=inversion.name, d0=inversion.d0
    )
    return out.sort_values("density", ascending=False).reset_index(drop=True)


def per_benchmark_intervals(
    models: pd.DataFrame,
    inversion,
    *,
    seed: int = 0,
    level: float = 0.95,
    n_draws: int = N_DRAWS,
    own_draws: bool = False,
) -> dict[str, np.ndarray]:
    """For a joint inversion, each benchmark's ``bound:<b>``, ``density_ci_low:<b>`` and ``density_ci_high:<b>``
    through ``PerBenchmark`` of its fit, over the models with a score on it (NaN, "" for the others); else {}."""
    if not isinstance(inversion, Joint):
        return {}
    out: dict[str, np.ndarray] = {}
    for fit in inversion.fits:
        b = fit.benchmark
        scored = (
            models[f"score:{b}"].notna().to_numpy() if f"score:{b}" in models.columns else np.zeros(len(models), bool)
        )
        low, high = np.full(len(models), np.nan), np.full(len(models), np.nan)
        codes = np.full(len(models), BOUND_CODES[EXACT], dtype=object)
        if scored.any():
            solved = solve_densities(
                models[scored], PerBenchmark(fit), seed=seed, level=level, n_draws=n_draws, own_draws=own_draws
            )
            low[scored], high[scored], codes[scored] = solved.low, solved.high, bound_codes(solved.kind)
        out[f"bound:{b}"], out[f"density_ci_low:{b}"], out[f"density_ci_high:{b}"] = codes, low, high
    return out


def _fit_rows(targets: pd.DataFrame, fit: ReferenceFit) -> pd.DataFrame:
    """One row per model with every score of ``fit``'s benchmark(s) and metric (:func:`score_matrix`), the mean score
    ``score`` and its standard error ``stderr`` = √(Σσ²)/B (NaN where no σ is known); a NaN score is an input error."""
    names = tuple(fit.benchmarks)
    picked = targets[targets["benchmark"].isin(names) & (targets["metric"] == fit.metric)]
    if picked["value"].isna().any():
        raise InputError("scores: NaN score cannot be inverted")
    rows = score_matrix(picked, names, require="all")
    if rows.empty:
        return rows
    scores, stderr = arrays(rows, names)
    rows["score"], mean_stderr = mean_score(scores, stderr)
    rows["stderr"] = np.where(np.isnan(stderr).all(axis=1), np.nan, mean_stderr)
    return rows


@validate_params(DENSITY_CONSTRAINTS)
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

    ``targets``: a tidy results table, checked as a table file is; each fit of ``fits`` (a :class:`ReferenceFit`, a fit
    file or a shipped fit's short name, as ``--fit``, or a list or mapping of them) inverts the rows of its benchmark(s)
    and metric (a mean fit the mean score) with the numbers of :func:`density_table` through ``PerBenchmark(fit, d0)``.
    A censored density is its bound (``bound``: :func:`bound_codes`; ``censored`` the reason; ``loss_hat`` L̂);
    ``reading`` by the one rule (:func:`readings`). With ``aggregate`` and several fits, a row per model (benchmark
    ``geomean``) holds ρ_geo = exp(mean_i ln ρ_i) with the percentile interval of the per-draw geometric means (a draw
    mixing −∞ and +∞ left out): a bound where a component is (``component_censored``), dropped where components bound it
    in opposite directions. ``intervals=False``: NaN intervals. A poor fit
    (:func:`densing.laws.fit_schema.poor_fit`: R² below 0.5) keeps its rows but is left out of the geometric mean
    unless ``include_poor_fits``.

    The frame holds values: ``extrapolation`` each row's :class:`densing.laws.inversion.ExtrapolationNote` tuple (None
    inside the reference's data), ``fit_r_squared`` the score stage's R² and ``poor_fit`` its flag (missing on a
    geometric mean's rows). The words a reader sees (the ``fit_verdict`` column, the notes as text) are made by
    :func:`densing.present.laws.density_frame`; ``densing.compute_density``, the notebook's, is
    :func:`densing.present.laws.compute_density`, this table with those words in place.
    """
    fits = as_fits(fits, "fits")
    targets = table_argument(targets, "targets")
    filled = with_stderr(targets)
    frames = []
    poor: set[str] = set()
    draws_by_fit: dict[str, pd.DataFrame] = {}
    for fit in fits:
        rows = _fit_rows(filled, fit)
        if rows.empty:
            continue
        out, draws = _fit_table(rows, fit, d0, seed=seed, level=level, intervals=intervals)
        if out["poor_fit"].iloc[0]:
            poor.add(fit.benchmark)
        if draws is not None:
            draws_by_fit[fit.benchmark] = pd.DataFrame(draws.T, index=out["model"].to_numpy())
        frames.append(out)
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
        result["near_chance"] = (
            result["near_chance"].astype(object).where(result["near_chance"].notna(), False).astype(bool)
        )
        result["reading"] = readings(result)  # the geometric means' too
    # a finite density has no censoring reason: missing (JSON null, CSV empty), not ""
    result["censored"] = result["censored"].astype(object).where(is_censored(result["censored"]), None)
    result["extrapolation"] = result["extrapolation"].astype(object).where(result["extrapolation"].notna(), None)
    return result


def _fit_table(
    rows: pd.DataFrame, fit: ReferenceFit, d0: float | None, *, seed: int, level: float, intervals: bool
) -> tuple[pd.DataFrame, np.ndarray | None]:
    """One fit's rows of :func:`compute_density` and the density draws behind their intervals (None without)."""
    inversion = PerBenchmark(fit, d0)
    params = rows["params"].to_numpy(float)
    solved = solve_densities(rows, inversion, seed=seed, level=level, intervals=intervals)
    loss_hat, size, reasons = fit.invert(rows["score"].to_numpy(float), inversion.d0)
    reasons = np.where(
        solved.columns["below_members"],
        BELOW_SMALLEST_MEMBER,
        np.where(solved.columns["above_members"], ABOVE_TOP_MEMBER, reasons),
    )
    density = np.exp(solved.log_density)
    out = rows[["model"]].assign(
        benchmark=fit.benchmark,
        params=params,
        score=rows["score"].to_numpy(float),
        loss_hat=loss_hat,
        effective_params=density * params,
        density=density,
        bound=bound_codes(solved.kind),
        censored=reasons,
        density_ci_low=solved.low,
        density_ci_high=solved.high,
        # a mean fit's score is a mean: its chance level is not one benchmark's
        near_chance=near_chance(*arrays(rows, fit.benchmarks), fit.benchmarks)
        if len(fit.benchmarks) == 1
        else np.zeros(len(rows), bool),
    )
    out["reading"] = readings(out)
    out = out.assign(
        effective_params_ci_low=solved.low * params,
        effective_params_ci_high=solved.high * params,
        extrapolation=extrapolation_notes(fit, size, inversion.d0),
        **{
            c: rows[c].to_numpy()
            for c in ("stderr", "train_tokens", "release_date", "family", "active_params")
            if c in rows.columns
        },
        d0=inversion.d0,
        reference_fit=f"{fit.kind}:{fit.benchmark}",
        fit_r_squared=score_r_squared(fit),
        poor_fit=poor_fit(fit),
    )
    return out, solved.draws


def density_at_own_tokens(
    targets: pd.DataFrame,
    fits,
    *,
    level: float = 0.95,
    aggregate: bool = True,
    seed: int = 0,
    include_poor_fits: bool = False,
    source: str = "targets",
) -> pd.DataFrame:
    """:func:`compute_density` with D0 = each target's own ``train_tokens`` D (eq. 4 at D0 = D: ρ ≈ 1 for a model of
    the reference's recipe), one per token count; ``source`` names the table in the error of a missing count."""
    if "train_tokens" not in targets.columns or targets["train_tokens"].isna().all():
        raise InputError(f"--d0 train_tokens: {source} has no train_tokens column with values")
    if missing := sorted(targets.loc[targets["train_tokens"].isna(), "model"].astype(str).unique()):
        raise InputError(
            f"--d0 train_tokens: {source}: no train_tokens for {', '.join(missing[:5])}"
            + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        )
    parts = [
        compute_density(
            rows,
            fits,
            d0=float(tokens),
            level=level,
            aggregate=aggregate,
            seed=seed,
            include_poor_fits=include_poor_fits,
        )
        for tokens, rows in targets.groupby("train_tokens")
    ]
    return pd.concat(parts, ignore_index=True)


def is_censored(reasons: pd.Series) -> pd.Series:
    """True where a ``censored`` column holds a reason (missing and ``""`` mean not censored)."""
    return reasons.fillna("").astype(str).ne("")


def _geomean_rows(result: pd.DataFrame, draws_by_fit: dict, n_fits: int, level: float) -> pd.DataFrame:
    """ρ_geo = exp(mean_i ln ρ_i) over a model's benchmarks, whole columns at a time: exact if every component is; a
    lower (upper) bound if every component is exact or a lower (upper) bound; dropped (NaN) otherwise."""
    counts = result.groupby("model", sort=False)["benchmark"].nunique()
    models = counts.index[counts == n_fits]
    if not len(models):
        return pd.DataFrame()
    sub = result[result["model"].isin(models)].copy()
    sub["_censored"] = is_censored(sub["censored"]).to_numpy()
    sub["_kind"] = sub["bound"].map({code: kind for kind, code in BOUND_CODES.items()}).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        sub["_log"] = np.log(sub["density"].astype(float))
    sub["_extrapolates"] = sub["extrapolation"].notna()
    by_model = sub.groupby("model", sort=False)
    first = sub.drop_duplicates("model", keep="first").set_index("model").loc[models]
    censored = by_model["_censored"].any().loc[models].to_numpy()
    kinds = sub.pivot(index="model", columns="benchmark", values="_kind").loc[models].to_numpy(float)
    lower, upper = np.isin(kinds, (EXACT, LOWER)).all(axis=1), np.isin(kinds, (EXACT, UPPER)).all(axis=1)
    kind = np.where((kinds == EXACT).all(axis=1), EXACT, np.where(lower, LOWER, np.where(upper, UPPER, np.nan)))
    value = np.where(np.isnan(kind), np.nan, np.exp(by_model["_log"].mean().loc[models].to_numpy()))
    low = high = np.full(len(models), np.nan)
    if len(draws_by_fit) == n_fits:
        per_fit = [draws.reindex(models).to_numpy(float) for draws in draws_by_fit.values()]
        n_draws = min(d.shape[1] for d in per_fit)  # fits may keep different numbers of draws
        with np.errstate(invalid="ignore"):
            geo = np.mean([d[:, :n_draws] for d in per_fit], axis=0)  # ln ρ_geo per draw; −∞ + ∞ is NaN
        # a draw bounded in opposite directions by two fits is NaN: left out of its model's interval
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a model whose every draw is NaN: no interval
            low, high = np.exp(
                np.nanquantile(geo, [(1 - level) / 2, (1 + level) / 2], axis=1, method=_CI_QUANTILE_METHOD)
            )
    params = first["params"].to_numpy(float)
    out = {
        "model": list(models),
        "benchmark": "geomean",
        "params": params,
        "score": np.nan,
        "loss_hat": np.nan,
        "effective_params": value * params,
        "density": value,
        "bound": bound_codes(kind),
        "censored": np.where(censored, COMPONENT_CENSORED, ""),
        "density_ci_low": low,
        "density_ci_high": high,
        "effective_params_ci_low": low * params,
        "effective_params_ci_high": high * params,
        "extrapolation": [
            (ComponentExtrapolates(np.nan, np.nan),) if x else None
            for x in by_model["_extrapolates"].any().loc[models].to_numpy()
        ],
    }
    out |= {c: first[c].to_numpy() for c in ("train_tokens", "release_date", "family", "d0") if c in result.columns}
    out["reference_fit"] = "geomean"
    return pd.DataFrame(out)
