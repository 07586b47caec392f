"""Which references a density trend is measured against: the candidate table of (family, benchmark) pairs and
the written rule that marks each eligible or says why not.

:func:`candidate_table` fits every family with at least :data:`MIN_FAMILY_MODELS` models on every benchmark of
:data:`CANDIDATE_BENCHMARKS` by binomial likelihood (:func:`densing.laws.family.fit_family`, the default shape; the fits
run as batches, :func:`likelihood_fits`) and applies the reference rule ``v3`` (date-blind; docs/method.md, "Rule v3
of the references"; its thresholds the constants below). A (family, benchmark) pair is eligible iff every code holds;
the first that fails is its ``code`` column, with the reason in words beside it:

- **R1** dense members only: a member whose active and total sizes differ (a mixture of experts) is left out of the
  fit, and the ``why`` column names it;
- **R2** at least :data:`MIN_SIZES` sizes with a token count (any score);
- **R2s** the law's slope γ has its 95% interval above zero (the likelihood fit succeeds and rises);
- **R3** the members' token counts within :data:`MAX_TOKEN_RATIO` × of each other;
- **R4r** reach: the best member gets at least :data:`REACH_SHARE` of the way from chance to the benchmark's top-decile
  score (the :data:`TOP_DECILE_QUANTILE` quantile over the table's models outside the family, any date), so that
  inverting a top-decile target extrapolates the curve over at most as much score as the family measured;
- **R4s** no top-decile target within :data:`SATURATION_STDERRS` standard errors of the law's ceiling;
- **R5z** held out within noise: refitted without its largest member, the law predicts that member within
  :data:`MAX_HELD_OUT_Z` combined standard errors, √(se(Ŝ)² + φ̂·S(1 − S)/n), φ̂ the larger of the family's own Pearson
  dispersion and the benchmark's pooled one (the median over families of at least :data:`MIN_POOLING_MEMBERS`
  members, :func:`pooled_dispersion`); a refit with no finite standard error fails it.

The held-out z is computed also where only R4r or R4s fail: a set's joint test reads it
(:func:`densing.trend.selection.set_references`).

The ``code`` column holds the rule's code (R1–R5z above; "" where every code holds) and is what the trend reads. The
``why`` column (:func:`_verdict`: "code: reason", then the members R1 and R3 left out, joined by "; ") is a column of
a file format, not a display: the shipped candidate table ``reference_fits/trend_reference_candidates.csv``
(:data:`densing.trend.measure.CANDIDATES_FILE`, written by ``tools/build_tables.py candidates``, whose earlier rules'
rows carry the same column) records each pair's reasons in it, so it is kept here as the file's field.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from densing import paths
from densing.data.benchmarks import CHANCE_LEVELS, ITEM_COUNTS, item_counts
from densing.errors import DensingError
from densing.laws.family import DEFAULT_SHAPE, covariate, fit_family, held_out_problem, held_out_result
from densing.laws.family_likelihood import likelihood_fits
from densing.laws.family_rows import family_arrays, metric_for
from densing.laws.reference_fit import ReferenceFit
from densing.numbers import counted_noun, format_number, signed
from densing.runtime.memo import per_table, same_tables
from densing.validation import Frame, validate_params

# The thresholds of the reference rule (module docstring).

MIN_FAMILY_MODELS = 3
MIN_SIZES = 3
MAX_TOKEN_RATIO = 2.0
#: The benchmarks a family reference may be fitted on (tidy names of ``read_results``): the leaderboard-v1 columns and
#: the leaderboard-v2 columns with a chance level and an item count. Left out: truthfulqa_mc2 (built so that scale does
#: not help, Lin et al. 2022; no chance floor), xwinograd (multilingual; no item count in the registry), ifeval (scored
#: by rule checks: no chance floor for the law).
CANDIDATE_BENCHMARKS: tuple[str, ...] = (
    "mmlu",
    "arc_challenge",
    "hellaswag",
    "winogrande",
    "gsm8k",
    "humaneval",
    "leaderboard_bbh",
    "math_hard",
    "mmlu_pro",
    "gpqa",
    "musr",
)
#: R4s: a top-decile target within this many standard errors of the law's ceiling saturates it.
SATURATION_STDERRS = 2.0
#: The share of highest-scoring targets R4s looks at.
TOP_SHARE = 0.10
#: R4r's share of the way from chance to the top-decile score.
REACH_SHARE = 0.5
#: R4r's top-decile score: this quantile of the benchmark's scores over the table's models outside the family.
TOP_DECILE_QUANTILE = 0.90
#: R5z: the largest |z| of the held-out member (two-sided 95%).
MAX_HELD_OUT_Z = 1.959963984540054
#: The pooled dispersion takes the families with at least this many members on the benchmark (2 residual dof).
MIN_POOLING_MEMBERS = 4
#: The label of the reference rule's rows in a candidate table's ``rule`` column (the shipped table's other rows, of the
#: earlier rules, are labelled ``v2`` and ``v1``: ``tools/build_tables.py candidates``).
RULE_LABEL = "v3"
#: Bootstrap draws of each family fit of a reference (one seed for all: draw k resamples the same members).
FAMILY_BOOT = 1000

_COLUMNS = (
    "reference",
    "family",
    "benchmark",
    "kind",
    "n_fitted",
    "sizes",
    "size_span",
    "token_ratio",
    "d0",
    "largest_member",
    "largest_score",
    "top_decile",
    "reach_share",
    "slope",
    "slope_ci_low",
    "slope_ci_high",
    "dispersion",
    "pooled_dispersion",
    "top_saturated",
    "held_out_model",
    "held_out_measured",
    "held_out_predicted",
    "held_out_error",
    "held_out_z",
    "eligible",
    "code",
    "why",
)


def pooled_dispersion(own: dict[str, float]) -> float:
    """The reference rule's dispersion of one benchmark: the median of the families' own X²/(m − 2) (those with at least
    :data:`MIN_POOLING_MEMBERS` members), floored at 1; 1 when no family has that many."""
    values = [v for v in own.values() if math.isfinite(v)]
    return max(1.0, float(np.median(values))) if values else 1.0


def _own_fits(
    targets: pd.DataFrame, families: list[str], benchmarks: list[str], metrics: dict, shape: str = DEFAULT_SHAPE
) -> dict:
    """Each (family, benchmark)'s members, dropped members (:func:`densing.laws.family_rows.family_arrays`) and
    likelihood fit of ``shape`` at dispersion floor 1 ("" with fewer than 2 sizes, a reason where the registry lacks a
    chance level or an item count), the fits run together."""
    found: dict[tuple[str, str], tuple] = {}
    problems, fitted_keys = [], []
    counted = item_counts().set_index("benchmark")["items"]
    with same_tables():
        for family in families:
            for b in benchmarks:
                if b not in CHANCE_LEVELS or b not in counted.index:
                    found[(family, b)] = (None, {}, "no chance level or item count in the registry")
                    continue
                members, dropped = family_arrays(targets, family, b, metric=metrics[b])
                found[(family, b)] = (members, dropped, "")
                if np.unique(members["params"]).size >= 2:
                    problems.append(
                        (
                            covariate(members["params"], shape),
                            members["score"],
                            float(counted[b]),
                            CHANCE_LEVELS[b],
                            1 - CHANCE_LEVELS[b],
                        )
                    )
                    fitted_keys.append((family, b))
    for key, fitted in zip(fitted_keys, likelihood_fits(problems, 1.0)):
        found[key] = (*found[key][:2], fitted)
    return found


def pooled_dispersions(
    targets: pd.DataFrame, benchmarks: tuple[str, ...] | None = None, shape: str = DEFAULT_SHAPE
) -> dict[str, float]:
    """The reference rule's pooled dispersion of each benchmark over the table's families (:func:`pooled_dispersion`),
    their laws of ``shape``: what ``densing fit --family`` and the trend's references fit with."""
    targets, families, chosen, metrics = _candidates(targets, benchmarks or CANDIDATE_BENCHMARKS)
    return _pool(_own_fits(targets, families, chosen, metrics, shape), chosen)


def _candidates(targets: pd.DataFrame, benchmarks) -> tuple[pd.DataFrame, list[str], list[str], dict[str, str]]:
    """The columns of ``targets`` the candidates read, the families with ≥ :data:`MIN_FAMILY_MODELS` models, the
    ``benchmarks`` the table has and each one's metric."""
    keep = [
        c
        for c in (
            "model",
            "family",
            "benchmark",
            "metric",
            "value",
            "params",
            "train_tokens",
            "active_params",
            "stderr",
        )
        if c in targets.columns
    ]
    targets = targets[keep].astype({c: object for c in ("model", "family", "benchmark", "metric") if c in keep})
    counts = (
        targets.drop_duplicates("model").groupby("family")["model"].count()
        if "family" in targets.columns
        else pd.Series(dtype=int)
    )
    present = set(targets["benchmark"].astype(str))
    chosen = [b for b in benchmarks if b in present]
    metrics = {b: metric_for(targets, b, None) for b in chosen}
    return targets, sorted(str(f) for f in counts[counts >= MIN_FAMILY_MODELS].index), chosen, metrics


def _pool(found: dict, benchmarks: list[str]) -> dict[str, float]:
    """The pooled dispersion of each benchmark from :func:`_own_fits`'s fits (:func:`pooled_dispersion`)."""
    own: dict[str, dict[str, float]] = {b: {} for b in benchmarks}
    for (family, b), (_, _, fitted) in found.items():
        if not isinstance(fitted, str) and fitted.converged and fitted.n_members >= MIN_POOLING_MEMBERS:
            own[b][family] = fitted.own_dispersion
    return {b: pooled_dispersion(own[b]) for b in benchmarks}


@validate_params({"targets": [Frame(("model", "benchmark", "value"))]})
def candidate_table(
    targets: pd.DataFrame,
    *,
    composed: dict[str, ReferenceFit] | None = None,
    benchmarks: tuple[str, ...] | None = None,
    shape: str = DEFAULT_SHAPE,
) -> pd.DataFrame:
    """One row per candidate (family × benchmark, and each shipped composed fit): the reference rule (module docstring)
    applied, in words; date-blind, so the same for every window. Columns: ``rule``, ``shape``, then :data:`_COLUMNS`:
    the candidate, its members, the rule's measurements, ``eligible``, ``code`` (the first rule it fails: R2, R3, R2s,
    R4r, R4s, R5z; "" when eligible) and ``why`` (that rule in words). ``benchmarks``: another target table's
    candidates (default :data:`CANDIDATE_BENCHMARKS`); ``shape``: the family law's (:data:`densing.laws.family.SHAPES`).
    """
    targets, families, benchmarks, metrics = _candidates(targets, benchmarks or CANDIDATE_BENCHMARKS)
    found = _own_fits(targets, families, benchmarks, metrics, shape)
    pooled = _pool(found, benchmarks)
    rows, held, top_cache = [], [], {}
    for family in families:
        for b in benchmarks:
            members, dropped, fitted = found[(family, b)]
            row = dict.fromkeys(_COLUMNS, math.nan) | dict(
                reference=f"{family}:{b}",
                family=family,
                benchmark=b,
                kind="family",
                n_fitted=0,
                sizes=0,
                largest_member="",
                held_out_model="",
                eligible=False,
                code="",
                why="",
                dispersion=pooled.get(b, math.nan),
                pooled_dispersion=pooled.get(b, math.nan),
            )
            rows.append(row)
            if members is None:
                _verdict(row, ("R2", f"{b} has {fitted} (densing/data), so neither a floor nor a standard error"), {})
                continue
            reason = _family_row(row, members, fitted, targets, family, b, pooled[b], top_cache)
            # the held-out test also where only the reach rules fail: a set row's joint test (densing.trend.pooling) reads it
            if not reason or reason[0] in ("R4r", "R4s"):
                held.append((row, reason, members, dropped))  # its verdict after the held-out refits, run together
            else:
                _verdict(row, reason, dropped)
    _held_out_rows(held, pooled, shape)
    rows += [_composed_row(name, fit) for name, fit in sorted((composed or {}).items())]
    out = pd.DataFrame(rows, columns=list(_COLUMNS))
    out.insert(0, "rule", RULE_LABEL)
    out.insert(1, "shape", shape)
    return out


def _family_row(
    row: dict, members: dict, fitted, targets: pd.DataFrame, family: str, b: str, pooled: float, top_cache: dict
) -> tuple[str, str] | None:
    """One family candidate's columns before the held-out test, its own fit ``fitted`` refloored at the benchmark's
    ``pooled`` dispersion; the first of R2, R3, R2s, R4r, R4s it fails (:func:`_first_failure`), or None."""
    chance = CHANCE_LEVELS[b]
    sizes = np.unique(members["params"])
    row["n_fitted"], row["sizes"] = members["params"].size, int(sizes.size)
    if sizes.size:
        tokens = members["train_tokens"]
        row |= dict(
            size_span=float(sizes.max() / sizes.min()),
            token_ratio=float(tokens.max() / tokens.min()),
            d0=float(np.exp(np.mean(np.log(tokens)))),
            largest_member=str(members["model"][-1]),
            largest_score=float(np.max(members["score"])),
        )
    top, top_scores, top_stderr = top_targets(targets, b, family, top_cache)
    row["top_decile"] = top
    row["reach_share"] = (row["largest_score"] - chance) / (top - chance) if top > chance else math.nan
    if isinstance(fitted, str) and sizes.size >= 2:
        fitted = "no fit"
    if not isinstance(fitted, str):
        if not fitted.converged:
            fitted = "the likelihood does not converge (the scores do not determine the law)"
        else:
            fitted = fitted.with_dispersion_floor(pooled)  # the same maximum: the floor moves only φ̂ and the covariance
            low, high = fitted.slope_interval()
            row |= dict(slope=fitted.slope, slope_ci_low=low, slope_ci_high=high, dispersion=fitted.dispersion)
    return _first_failure(row, fitted, chance, top, top_scores, top_stderr)


def _held_out_rows(held: list, pooled: dict, shape: str) -> None:
    """R5z on each (row, reason, members, dropped) of ``held``: the refits without the largest member at the
    benchmark's pooled dispersion (:func:`densing.laws.family.held_out_problem`) run together, then each verdict."""
    outcomes, problems, slots = [None] * len(held), [], []
    for i, (row, _, members, _) in enumerate(held):
        b = row["benchmark"]
        try:
            problems.append(
                (
                    *held_out_problem(members, row["family"], b, float(ITEM_COUNTS[b]), shape),
                    CHANCE_LEVELS[b],
                    1 - CHANCE_LEVELS[b],
                )
            )
            slots.append(i)
        except DensingError as exc:
            outcomes[i] = exc
    refits = likelihood_fits(problems, [pooled[held[i][0]["benchmark"]] for i in slots])
    for i, found, (_, _, items, _, _) in zip(slots, refits, problems):
        row, _, members, _ = held[i]
        try:
            outcomes[i] = held_out_result(found, members, row["family"], row["benchmark"], items, shape)
        except DensingError as exc:
            outcomes[i] = exc
    for (row, reason, _, dropped), outcome in zip(held, outcomes):
        _verdict(row, _held_out_reason(row, reason, outcome), dropped)


def _verdict(row: dict, reason: tuple[str, str] | None, dropped: dict) -> None:
    """``row``'s ``eligible``, ``code`` and ``why``: the (code, words) of the rule it fails (None when it passes), then
    the members R1 and R3 left out (``why``: the candidate file's column, module docstring)."""
    row["eligible"], row["code"] = not reason, reason[0] if reason else ""
    notes = [f"{k.replace('_', ' ')}: {', '.join(v)}" for k, v in dropped.items() if v and k != "no_score"]
    row["why"] = "; ".join(
        ([f"{reason[0]}: {reason[1]}"] if reason else []) + [f"R1/R3 not fitted — {n}" for n in notes]
    )


def _composed_row(name: str, fit: ReferenceFit) -> dict:
    """A shipped composed fit's row of the candidate table: shown, never eligible (the rule takes one recipe)."""
    points = fit.points_frame()
    top = points.sort_values("params").iloc[-1]
    return dict.fromkeys(_COLUMNS, math.nan) | dict(
        reference=name.removesuffix(".json"),
        family=str(fit.provenance.get("families", "")),
        benchmark=fit.benchmark,
        kind=fit.kind,
        n_fitted=len(points),
        sizes=int(points["params"].nunique()),
        size_span=float(points["params"].max() / points["params"].min()),
        token_ratio=float(points["train_tokens"].max() / points["train_tokens"].min()),
        d0=fit.d0,
        largest_member=str(top["model"]),
        largest_score=float(top["score"]),
        held_out_model="",
        eligible=False,
        code="",
        why="the reference rule takes families of one recipe; a composed fit of several recipes and budgets is shown, "
        "not used",
    )


def top_targets(
    targets: pd.DataFrame, benchmark: str, family: str, cache: dict
) -> tuple[float, np.ndarray, np.ndarray]:
    """R4r's top-decile score (the :data:`TOP_DECILE_QUANTILE` quantile of ``benchmark``'s scores over the table's
    models outside ``family``, any release date; NaN without any) and R4s's (scores, standard errors) of the top
    :data:`TOP_SHARE` of them."""
    if benchmark not in cache:
        rows = targets[targets["benchmark"] == benchmark]
        fam = rows["family"].fillna("").astype(str).to_numpy() if "family" in rows.columns else np.full(len(rows), "")
        stderr = rows["stderr"].to_numpy(float) if "stderr" in rows.columns else np.full(len(rows), np.nan)
        cache[benchmark] = (rows["value"].to_numpy(float), stderr, fam)
    values, stderr, fam = cache[benchmark]
    keep = (fam != family) & ~np.isnan(values)
    values, stderr = values[keep], stderr[keep]
    if not values.size:
        return math.nan, values, stderr
    order = np.argsort(-values, kind="stable")[: max(1, math.ceil(TOP_SHARE * values.size))]
    return float(np.quantile(values, TOP_DECILE_QUANTILE)), values[order], stderr[order]


def _first_failure(
    row: dict, fitted, chance: float, top: float, top_scores: np.ndarray, top_stderr: np.ndarray
) -> tuple[str, str] | None:
    """The first of R2, R3, R2s, R4r, R4s a candidate fails, as (code, words), or None (R4s: c + d = 1 either way)."""
    if row["sizes"] < MIN_SIZES:
        return "R2", f"{counted_noun(row['sizes'], 'size')} with a token count (need {MIN_SIZES})"
    if row["token_ratio"] > MAX_TOKEN_RATIO:
        return "R3", f"token counts differ {row['token_ratio']:.3g}× (allowed {MAX_TOKEN_RATIO:g}×)"
    if isinstance(fitted, str):
        return "R2s", f"the likelihood fit fails: {fitted}"
    if not row["slope_ci_low"] > 0:
        return (
            "R2s",
            f"the slope's 95% interval [{format_number(row['slope_ci_low'])}, "
            f"{format_number(row['slope_ci_high'])}] does not lie above zero (the scores do not rise with size "
            "beyond their noise)",
        )
    if not row["reach_share"] >= REACH_SHARE:
        return (
            "R4r",
            f"its best member ({row['largest_score']:.3f}) reaches {row['reach_share']:.0%} of the way from chance "
            f"({chance:.3g}) to the top-decile score {top:.3f} (need {REACH_SHARE:.0%})",
        )
    row["top_saturated"] = saturated = int(np.sum(top_scores >= 1.0 - SATURATION_STDERRS * np.nan_to_num(top_stderr)))
    if saturated:
        return (
            "R4s",
            f"{saturated} of the {top_scores.size} top-decile targets score within {SATURATION_STDERRS:g} standard "
            "errors of the law's ceiling 1",
        )
    return None


def _held_out_reason(row: dict, reason: tuple[str, str] | None, held: dict | DensingError) -> tuple[str, str] | None:
    """R5z from the held-out test ``held`` (:func:`densing.laws.family.held_out_result`'s answer, or its error): its
    columns in ``row``; the (code, words) of the rule it fails (``reason``, an earlier rule's, first), or None."""
    if isinstance(held, DensingError):
        return reason or ("R5z", f"held-out refit impossible: {held}")
    row |= dict(
        held_out_model=held["held_out"],
        held_out_measured=held["measured"],
        held_out_predicted=held["predicted"],
        held_out_error=held["relative_error"],
        held_out_z=held["z"],
    )
    if not reason and not math.isfinite(held["z"]):  # the refit's information is singular: no standard error
        return (
            "R5z",
            f"the held-out {held['held_out']} scores {format_number(held['measured'])}, the refit predicts "
            f"{format_number(held['predicted'])} with no finite standard error (its information matrix is singular)",
        )
    if not reason and not abs(held["z"]) <= MAX_HELD_OUT_Z:
        return (
            "R5z",
            f"the held-out {held['held_out']} scores {format_number(held['measured'])}, the refit predicts "
            f"{format_number(held['predicted'])} ± {format_number(held['predicted_stderr'])}: z = "
            f"{signed(held['z'])} (allowed ±{format_number(MAX_HELD_OUT_Z)})",
        )
    return reason


def fit_of(
    targets: pd.DataFrame, candidates: pd.DataFrame, family: str, benchmark: str, family_boot: int, seed: int
) -> ReferenceFit:
    """One candidate's fit as the reference rule makes it: by likelihood with the benchmark's pooled dispersion."""
    shape, floors = _fit_settings(candidates)
    return fit_family(
        targets,
        family,
        benchmark,
        n_boot=family_boot,
        seed=seed,
        dispersion_floor=floors.get(benchmark, 1.0),
        shape=shape,
    )


@per_table
def _fit_settings(candidates: pd.DataFrame) -> tuple[str, dict[str, float]]:
    """What :func:`fit_of` reads of a candidate table: its family law's shape and each benchmark's pooled dispersion
    (the first row's; 1 where NaN), read once per table inside :func:`same_tables`."""
    shape = str(candidates["shape"].iloc[0]) if "shape" in candidates.columns else DEFAULT_SHAPE
    first = candidates.drop_duplicates("benchmark")
    return shape, {
        b: float(v) if math.isfinite(v) else 1.0
        for b, v in zip(first["benchmark"].tolist(), first["pooled_dispersion"].to_numpy(float))
    }


def eligible_fits(
    targets: pd.DataFrame, candidates: pd.DataFrame, *, seed: int = 0, family_boot: int = FAMILY_BOOT
) -> dict[tuple[str, str], ReferenceFit]:
    """Every eligible (family, benchmark) candidate's fit, bootstrapped with one seed (draw k of a family's fits
    resamples the same members), keyed by (family, benchmark)."""
    ok = candidates[candidates["eligible"].astype(bool) & (candidates["kind"] == "family")]
    return {
        (str(r.family), str(r.benchmark)): fit_of(
            targets, candidates, str(r.family), str(r.benchmark), family_boot, seed
        )
        for r in ok.itertuples(index=False)
    }


#: Shipped multi-family composed fits, listed among the candidates (judged by the reach rule R4).
COMPOSED_FITS = ("pile_*_composed.json", "cerebras_*_composed.json")


def composed_fits(folder: str | Path | None = None) -> dict[str, ReferenceFit]:
    """The shipped multi-family composed fits (candidates judged by the reach rule), by file name."""
    folder = Path(folder) if folder else paths.REFERENCE_FITS
    found = sorted({p for pattern in COMPOSED_FITS for p in folder.glob(pattern)})
    return {p.name: ReferenceFit.load(p) for p in found}
