"""Which references a density trend is measured against: the candidate table of (family, benchmark) pairs and
the written rule that marks each eligible or says why not.

:func:`candidate_table` fits every family of the target table with at least :data:`MIN_FAMILY_MODELS` models on
every benchmark of :data:`CANDIDATE_BENCHMARKS_V2` (a chance level and an item count in the benchmark registry;
:data:`EXCLUDED_BENCHMARKS_V2` are left out, each with its reason) by binomial likelihood
(:func:`densing.laws.family.fit_family` with the default shape :data:`densing.laws.family.DEFAULT_SHAPE`, the paper's
sigmoid of a power law S(N) = d + c·σ(γ·(u − l)), u = −(N/10⁹)^−0.34, d = chance, c + d = 1; ``shape=`` takes the
ln N logistic), and applies rule v3 (:data:`DEFAULT_RULE`, date-blind). A candidate is eligible iff

- (R1) dense: mixture-of-experts members (an ``active_params`` value) are dropped from the fit;
- (R2) at least :data:`MIN_SIZES` sizes with a known token count, any score;
- (R2s) slope: the 95% Wald interval of γ (information scaled by the dispersion φ̂) excludes zero;
- (R3) one budget: the members' token counts within a factor :data:`MAX_TOKEN_RATIO` (the family's D0 is their
  geometric mean);
- (R4r) reach: the best member gets at least :data:`REACH_SHARE` of the way from chance to the benchmark's
  top-decile score (the :data:`TOP_DECILE_QUANTILE` quantile over the table's models outside the family);
- (R4s) saturation: no top-decile target within :data:`SATURATION_STDERRS` standard errors of the law's ceiling
  c + d = 1 (under the power shape a score between its asymptote and the ceiling is a lower bound on N̂, carried by
  the censored frontier regression);
- (R5z) held out within noise: refitted without its largest member, z = (Ŝ − S)/√(se(Ŝ)² + φ̂·S(1 − S)/n) of that
  member within ±:data:`MAX_HELD_OUT_Z`.

φ̂ is the larger of the family's own Pearson dispersion and the benchmark's pooled one
(:func:`pooled_dispersion`: the median over families with at least :data:`MIN_POOLING_MEMBERS` members, floored
at 1). The held-out z is computed wherever R1–R2s hold, also where only R4r or R4s fail (a set's joint test reads
it). A family eligible on a benchmark is a reference of its row; the references of a benchmark set are those of
the common design (:func:`densing.trend.design.set_references`: a fit on every benchmark of the set, and the
joint held-out test). A reference inverts no model of its own family (:func:`family_members`).

``rule="v2"`` and ``rule="v1"`` compute rules v2 and v1 as labelled variants (least squares on logits, a
relative held-out error ≤ :data:`MAX_HELD_OUT_ERROR`, a size span ≥ :data:`MIN_SIZE_SPAN`; v2 with the saturation
and conditioning tests :data:`SATURATION_STDERRS`, :data:`MAX_TOP_CONDITIONING`, v1 with the dated reach
quantile :data:`REACH_QUANTILE` on :data:`CANDIDATE_BENCHMARKS`). docs/method.md states the three rules, which
thresholds were written before any trend was computed, and why v3 replaced v2.
"""
from __future__ import annotations

#: Leaderboard-v1 benchmarks a family reference may be fitted on (tidy names of ``read_results``).
CANDIDATE_BENCHMARKS: tuple[str, ...] = ("mmlu", "arc_challenge", "hellaswag", "winogrande", "gsm8k", "humaneval")
#: Benchmarks left out of rule v1 before any fit, each with its reason.
EXCLUDED_BENCHMARKS: dict[str, str] = {
    "truthfulqa_mc2": "built so that scale does not help (Lin et al. 2022); mc2 has no chance floor",
    "xwinograd": "multilingual; no item count in the registry",
}
MIN_FAMILY_MODELS = 3
MIN_SIZES = 3
MIN_SIZE_SPAN = 20.0
MAX_TOKEN_RATIO = 2.0
REACH_QUANTILE = 0.90
MAX_HELD_OUT_ERROR = 0.05
MIN_BENCHMARKS = 2
#: Rule v2's benchmarks: v1's and the leaderboard-v2 columns with a chance level and an item count.
CANDIDATE_BENCHMARKS_V2: tuple[str, ...] = CANDIDATE_BENCHMARKS + ("leaderboard_bbh", "math_hard", "mmlu_pro", "gpqa", "musr")
#: Left out of v2 before any fit (v1's, and IFEval: instruction following, no chance floor).
EXCLUDED_BENCHMARKS_V2: dict[str, str] = {
    **EXCLUDED_BENCHMARKS,
    "ifeval": "instruction following, scored by rule checks: no chance floor for the law",
}
#: R4s: a top-decile target within this many standard errors of the law's ceiling saturates it.
SATURATION_STDERRS = 2.0
#: R4c: the largest median κ allowed over the top-decile targets (the trend's conditioning threshold).
MAX_TOP_CONDITIONING = 2.0
#: The share of highest-scoring targets R4s and R4c look at.
TOP_SHARE = 0.10
#: A family is a reference of a benchmark set when eligible on at least this many of its benchmarks.
MIN_SET_BENCHMARKS = 2
RULE_VERSIONS = ("v1", "v2", "v3")
#: Rule v3 (module docstring), R4r's share of the way from chance to the top-decile score.
REACH_SHARE = 0.5
#: R4r's top-decile score: this quantile of the benchmark's scores over the table's models outside the family.
TOP_DECILE_QUANTILE = 0.90
#: R5z: the largest |z| of the held-out member (two-sided 95%).
MAX_HELD_OUT_Z = 1.959963984540054
#: The pooled dispersion takes the families with at least this many members on the benchmark (2 residual dof).
MIN_POOLING_MEMBERS = 4
#: The rule the trend, the report and the API use.
DEFAULT_RULE = "v3"
#: Bootstrap draws of each family fit of a reference (one seed for all: draw k resamples the same members).
FAMILY_BOOT = 1000


import glob
import math
from pathlib import Path

import numpy as np
import pandas as pd

from densing import paths
from densing.data.benchmarks import CHANCE_LEVELS
from densing.data.item_counts import item_counts
from densing.errors import DensingError
from densing.laws.family import DEFAULT_SHAPE, covariate, family_points, fit_family, metric_for
from densing.laws.family_held_out import held_out_error, held_out_test
from densing.laws.reference_fit import ReferenceFit
from densing.numbers import format_number


def family_members(targets: pd.DataFrame, family: str) -> set[str]:
    """Every model of ``family`` in the table (fitted or not): none of them is ever a target of its reference."""
    if "family" not in targets.columns:
        return set()
    return set(targets.loc[targets["family"].astype("string") == family, "model"].astype(str))


def _reach(targets: pd.DataFrame, benchmark: str, family: str, since: str | None, cache: dict) -> float:
    """The :data:`REACH_QUANTILE` quantile of ``benchmark``'s scores over the trend's targets (not of the family).

    ``cache`` keeps each benchmark's dated scores and families, read once for every family asked about.
    """
    if benchmark not in cache:
        rows = targets[targets["benchmark"] == benchmark]
        if since is not None and "release_date" in rows.columns:
            dates = pd.to_datetime(rows["release_date"])
            rows = rows[dates.notna() & (dates >= pd.Timestamp(since))]
        fam = rows["family"].fillna("").astype(str).to_numpy() if "family" in rows.columns else np.full(len(rows), "")
        cache[benchmark] = (rows["value"].to_numpy(float), fam)
    values, fam = cache[benchmark]
    values = values[(fam != family) & ~np.isnan(values)]
    return float(np.quantile(values, REACH_QUANTILE)) if values.size else math.nan


def _top_targets(targets: pd.DataFrame, benchmark: str, family: str, cache: dict) -> tuple[np.ndarray, np.ndarray]:
    """(scores, standard errors) of the top :data:`TOP_SHARE` of ``benchmark``'s scores over the table's models
    outside ``family``, any release date (rule v2's R4s and R4c)."""
    if benchmark not in cache:
        rows = targets[targets["benchmark"] == benchmark]
        fam = rows["family"].fillna("").astype(str).to_numpy() if "family" in rows.columns else np.full(len(rows), "")
        stderr = rows["stderr"].to_numpy(float) if "stderr" in rows.columns else np.full(len(rows), np.nan)
        cache[benchmark] = (rows["value"].to_numpy(float), stderr, fam)
    values, stderr, fam = cache[benchmark]
    keep = (fam != family) & ~np.isnan(values)
    values, stderr = values[keep], stderr[keep]
    if not values.size:
        return values, stderr
    count = max(1, math.ceil(TOP_SHARE * values.size))
    order = np.argsort(-values, kind="stable")[:count]
    return values[order], stderr[order]


def _date_blind_reach(row: dict, own: pd.DataFrame, targets: pd.DataFrame, family: str, benchmark: str, metric: str,
                      cache: dict) -> str:
    """Rule v2's R4s and R4c for one candidate: the reason it fails, or ""; fills ``top_saturated`` and ``top_kappa``."""
    from densing.laws.inversion import conditioning

    scores, stderr = _top_targets(targets, benchmark, family, cache)
    if not scores.size or np.isnan(stderr).all():
        return f"R4c: no target of {benchmark} has a standard error (no item count), so conditioning cannot be judged"
    try:
        fit = fit_family(own, family, benchmark, metric=metric, n_boot=0, method="ols", shape="logistic_ln_n")
    except DensingError as exc:
        return f"R4c: the family law cannot be fitted: {exc}"
    cap = float(fit.params["c"]) + float(fit.params["d"])
    saturated = int(np.sum(scores >= cap - SATURATION_STDERRS * np.nan_to_num(stderr)))
    kappa = conditioning(fit, scores, stderr)
    kappa = np.where(np.isnan(kappa), np.inf, kappa)
    row["top_saturated"], row["top_kappa"] = saturated, float(np.median(kappa))
    if saturated:
        return (f"R4s: {saturated} of the {scores.size} top-decile targets score within {SATURATION_STDERRS:g} standard errors "
                f"of the law's ceiling {cap:.3g}")
    if not row["top_kappa"] <= MAX_TOP_CONDITIONING:
        return (f"R4c: one standard error of a top-decile target's score moves N̂ {row['top_kappa']:.3g}-fold (median; "
                f"allowed {MAX_TOP_CONDITIONING:g})")
    return ""


def candidate_table(targets: pd.DataFrame, *, since: str | None, composed: dict[str, ReferenceFit] | None = None,
                    rule: str = "v1", benchmarks: tuple[str, ...] | None = None, shape: str = DEFAULT_SHAPE) -> pd.DataFrame:
    """One row per candidate (family × benchmark, and each shipped composed fit): the rule applied, in words.

    ``rule="v1"``: R1–R5 over :data:`CANDIDATE_BENCHMARKS`; ``rule="v2"``: R1–R3, R4s, R4c, R5 over
    :data:`CANDIDATE_BENCHMARKS_V2` (module docstring), with the columns ``top_saturated`` and
    ``top_kappa`` and no reach (``reach_score`` NaN: v2 reads no release date).

    Columns: ``reference``, ``family``, ``benchmark``, ``kind``, ``n_fitted``, ``sizes``,
    ``size_span``, ``token_ratio``, ``d0``, ``largest_member``, ``largest_score``,
    ``reach_score`` (the targets' 90th percentile), ``held_out_model``, ``held_out_measured``,
    ``held_out_predicted``, ``held_out_error``, ``eligible`` and ``why`` (the first rule it fails).

    ``benchmarks`` (rule v3 only): the candidate benchmarks of another target table
    (:data:`densing.trend.tables.TABLES`); default :data:`CANDIDATE_BENCHMARKS_V2`, the public table's.
    ``shape`` (rule v3 only): the family law's shape (:data:`densing.laws.family.SHAPES`; rules v1 and v2 keep the
    logistic in ln N they were written with).
    """
    if rule not in RULE_VERSIONS:
        raise ValueError(f"rule: expected one of {', '.join(RULE_VERSIONS)}, got {rule!r}")
    if rule == "v3":
        return _candidates_v3(targets, composed, benchmarks or CANDIDATE_BENCHMARKS_V2, shape)
    if benchmarks is not None:
        raise ValueError(f"benchmarks: rule {rule} has its own candidate benchmarks; only rule v3 takes another table's")
    benchmarks = CANDIDATE_BENCHMARKS if rule == "v1" else CANDIDATE_BENCHMARKS_V2
    rows = []
    counts = targets.drop_duplicates("model").groupby("family")["model"].count() if "family" in targets.columns else pd.Series(dtype=int)
    keep = [c for c in ("model", "family", "benchmark", "metric", "value", "params", "train_tokens", "active_params", "release_date",
                                "stderr") if c in targets.columns]
    targets = targets[keep].astype({c: object for c in ("model", "family", "benchmark", "metric") if c in keep})  # plain
    # object columns: ~150 small selections below cost a third of the time of Arrow-backed strings
    present = set(targets["benchmark"].astype(str))
    metrics = {b: metric_for(targets, b, None) for b in benchmarks if b in present}
    reach_cache: dict = {}
    top_cache: dict = {}
    counted = set(item_counts()["benchmark"])
    for family in sorted(str(f) for f in counts[counts >= MIN_FAMILY_MODELS].index):
        own = targets[targets["family"] == family]  # one family's rows: the per-benchmark steps read only these
        for benchmark in benchmarks:
            if benchmark not in present:
                continue
            row = {"reference": f"{family}:{benchmark}", "family": family, "benchmark": benchmark, "kind": "family",
                   "n_fitted": 0, "sizes": 0, "size_span": math.nan, "token_ratio": math.nan, "d0": math.nan,
                   "largest_member": "", "largest_score": math.nan,
                   "reach_score": _reach(targets, benchmark, family, since, reach_cache) if rule == "v1" else math.nan,
                   "top_saturated": math.nan, "top_kappa": math.nan,
                   "held_out_model": "", "held_out_measured": math.nan, "held_out_predicted": math.nan,
                   "held_out_error": math.nan, "eligible": False, "why": ""}
            rows.append(row)
            if benchmark not in CHANCE_LEVELS or benchmark not in counted:
                row["why"] = (f"R2: {benchmark} has no {'chance level' if benchmark not in CHANCE_LEVELS else 'item count'} "
                              "in the registry (densing/data), so neither a floor nor a standard error")
                continue
            points, dropped = family_points(own, family, benchmark, metric=metrics[benchmark])
            row["n_fitted"] = len(points)
            sizes = np.unique(points["params"].to_numpy(float))
            row["sizes"] = int(sizes.size)
            if sizes.size:
                row["size_span"] = float(sizes.max() / sizes.min())
                tokens = points["train_tokens"].to_numpy(float)
                row["token_ratio"] = float(tokens.max() / tokens.min())
                row["d0"] = float(np.exp(np.mean(np.log(tokens))))
                row["largest_member"] = str(points["model"].iloc[-1])
                row["largest_score"] = float(points["score"].iloc[-1])
            notes = [f"{k.replace('_', ' ')}: {', '.join(v)}" for k, v in dropped.items() if v and k != "no_score"]
            _v1_v2_rules(row, rule, own, targets, family, benchmark, metrics[benchmark], int(sizes.size), top_cache)
            if notes:
                row["why"] = "; ".join(([row["why"]] if row["why"] else []) + [f"R1/R3 not fitted — {n}" for n in notes])
    rows += [_v1_v2_composed_row(name, fit, targets, since, reach_cache) for name, fit in sorted((composed or {}).items())]
    out = pd.DataFrame(rows)
    out.insert(0, "rule", rule)
    return out


def _v1_v2_rules(row: dict, rule: str, own: pd.DataFrame, targets: pd.DataFrame, family: str, benchmark: str,
                 metric: str, sizes: int, top_cache: dict) -> None:
    """Rules v1's and v2's R2 to R5 on one family candidate, in order: ``row``'s ``why`` says the first it fails,
    or ``eligible`` is set; the held-out columns are filled where R5 is reached."""
    if sizes < MIN_SIZES:
        row["why"] = f"R2: {sizes} sizes with a token count and a score above chance (need {MIN_SIZES})"
    elif row["size_span"] < MIN_SIZE_SPAN:
        row["why"] = f"R2: sizes span {row['size_span']:.3g}× (need {MIN_SIZE_SPAN:g}×)"
    elif row["token_ratio"] > MAX_TOKEN_RATIO:
        row["why"] = f"R3: token counts differ {row['token_ratio']:.3g}× (allowed {MAX_TOKEN_RATIO:g}×)"
    elif rule == "v2" and (reason := _date_blind_reach(row, own, targets, family, benchmark, metric, top_cache)):
        row["why"] = reason
    elif rule == "v1" and not row["largest_score"] >= row["reach_score"]:
        row["why"] = (f"R4: largest member scores {row['largest_score']:.3f}, below the targets' "
                      f"{REACH_QUANTILE:.0%} quantile {row['reach_score']:.3f}")
    else:
        try:
            held = held_out_error(own, family, benchmark, metric=metric)
            row |= dict(held_out_model=held["held_out"], held_out_measured=held["measured"],
                        held_out_predicted=held["predicted"], held_out_error=held["relative_error"])
            if row["held_out_error"] > MAX_HELD_OUT_ERROR:
                row["why"] = f"R5: held-out error {row['held_out_error']:.1%} (allowed {MAX_HELD_OUT_ERROR:.0%})"
            else:
                row["eligible"] = True
        except DensingError as exc:
            row["why"] = f"R5: held-out refit impossible: {exc}"


def _v1_v2_composed_row(name: str, fit: ReferenceFit, targets: pd.DataFrame, since: str | None, reach_cache: dict) -> dict:
    """A shipped composed fit's row of rules v1 and v2: judged by the reach rule R4 alone, never eligible."""
    points = fit.points_frame()
    families = str(fit.provenance.get("families", ""))
    benchmark = fit.benchmarks[0] if len(fit.benchmarks) == 1 else fit.benchmark
    reach = _reach(targets, benchmark, "", since, reach_cache) if len(fit.benchmarks) == 1 else math.nan
    top = points.sort_values("params").iloc[-1]
    return {"reference": name.removesuffix(".json"), "family": families, "benchmark": fit.benchmark, "kind": fit.kind,
            "n_fitted": len(points), "sizes": int(points["params"].nunique()),
            "size_span": float(points["params"].max() / points["params"].min()),
            "token_ratio": float(points["train_tokens"].max() / points["train_tokens"].min()), "d0": fit.d0,
            "largest_member": str(top["model"]), "largest_score": float(top["score"]), "reach_score": reach,
            "held_out_model": "", "held_out_measured": math.nan, "held_out_predicted": math.nan,
            "held_out_error": math.nan, "top_saturated": math.nan, "top_kappa": math.nan, "eligible": False,
            "why": ("R4: largest member scores "
                    f"{float(top['score']):.3f}, below the targets' {REACH_QUANTILE:.0%} quantile {reach:.3f}"
                    if len(fit.benchmarks) == 1 else "a mean of benchmarks: the joint inversion replaces it")
                    + (" (also several recipes)" if "," in families else "")}


_V3_COLUMNS = ("reference", "family", "benchmark", "kind", "n_fitted", "sizes", "size_span", "token_ratio", "d0",
               "largest_member", "largest_score", "top_decile", "reach_share", "slope", "slope_ci_low", "slope_ci_high",
               "dispersion", "pooled_dispersion", "top_saturated", "held_out_model", "held_out_measured", "held_out_predicted",
               "held_out_error", "held_out_z", "eligible", "why")


def _v3_reasons(row: dict, points: pd.DataFrame, fitted, chance: float, top: float, top_scores: np.ndarray,
                top_stderr: np.ndarray) -> str:
    """The first of rule v3's R2, R3, R2s, R4r, R4s a candidate fails, in words ("" when it passes them). R4s's
    ceiling is c + d = 1 under either shape (module docstring)."""
    if row["sizes"] < MIN_SIZES:
        return f"R2: {row['sizes']} sizes with a token count (need {MIN_SIZES})"
    if row["token_ratio"] > MAX_TOKEN_RATIO:
        return f"R3: token counts differ {row['token_ratio']:.3g}× (allowed {MAX_TOKEN_RATIO:g}×)"
    if isinstance(fitted, str):
        return f"R2s: the likelihood fit fails: {fitted}"
    if not row["slope_ci_low"] > 0:
        return (f"R2s: the slope's 95% interval [{format_number(row['slope_ci_low'])}, {format_number(row['slope_ci_high'])}] "
                "does not lie above "
                "zero (the scores do not rise with size beyond their noise)")
    if not row["reach_share"] >= REACH_SHARE:
        return (f"R4r: its best member ({row['largest_score']:.3f}) reaches {row['reach_share']:.0%} of the way from chance "
                f"({chance:.3g}) to the top-decile score {top:.3f} (need {REACH_SHARE:.0%})")
    cap = 1.0
    saturated = int(np.sum(top_scores >= cap - SATURATION_STDERRS * np.nan_to_num(top_stderr)))
    row["top_saturated"] = saturated
    if saturated:
        return (f"R4s: {saturated} of the {top_scores.size} top-decile targets score within {SATURATION_STDERRS:g} standard "
                f"errors of the law's ceiling {cap:.3g}")
    return ""


def pooled_dispersion(own: dict[str, float]) -> float:
    """Rule v3's dispersion of one benchmark: the median of the families' own X²/(m − 2) (those with at least
    :data:`MIN_POOLING_MEMBERS` members), floored at 1; 1 when no family has that many."""
    values = [v for v in own.values() if math.isfinite(v)]
    return max(1.0, float(np.median(values))) if values else 1.0


def _own_fits(targets: pd.DataFrame, families: list[str], benchmarks: list[str], metrics: dict, counted: pd.Series,
              shape: str = DEFAULT_SHAPE) -> dict:
    """Each (family, benchmark)'s points, dropped members and likelihood fit of ``shape`` at dispersion floor 1 (its own
    dispersion; "" with fewer than 2 sizes, a reason where the registry lacks a chance level or an item count)."""
    from densing.laws.family_likelihood import likelihood_fit

    found: dict[tuple[str, str], tuple] = {}
    for family in families:
        own = targets[targets["family"] == family]
        for b in benchmarks:
            if b not in CHANCE_LEVELS or b not in counted.index:
                found[(family, b)] = (None, {}, "no chance level or item count in the registry")
                continue
            points, dropped = family_points(own, family, b, metric=metrics[b], keep_floor=True)
            fitted: object = ""
            if np.unique(points["params"]).size >= 2:
                fitted = likelihood_fit(covariate(points["params"].to_numpy(float), shape), points["score"].to_numpy(float),
                                        float(counted[b]), CHANCE_LEVELS[b], 1 - CHANCE_LEVELS[b])
            found[(family, b)] = (points, dropped, fitted)
    return found


def pooled_dispersions(targets: pd.DataFrame, benchmarks: tuple[str, ...] | None = None,
                       shape: str = DEFAULT_SHAPE) -> dict[str, float]:
    """Rule v3's pooled dispersion of each benchmark over the table's families (:func:`pooled_dispersion`), their laws
    of ``shape``: what ``densing fit --family`` and the trend's references fit with."""
    keep = [c for c in ("model", "family", "benchmark", "metric", "value", "params", "train_tokens", "active_params")
            if c in targets.columns]
    targets = targets[keep].astype({c: object for c in ("model", "family", "benchmark", "metric") if c in keep})
    counts = targets.drop_duplicates("model").groupby("family")["model"].count()
    present = set(targets["benchmark"].astype(str))
    chosen = [b for b in (benchmarks or CANDIDATE_BENCHMARKS_V2) if b in present]
    metrics = {b: metric_for(targets, b, None) for b in chosen}
    families = sorted(str(f) for f in counts[counts >= MIN_FAMILY_MODELS].index)
    return _pool(_own_fits(targets, families, chosen, metrics, item_counts().set_index("benchmark")["items"], shape), chosen)


def _pool(found: dict, benchmarks: list[str]) -> dict[str, float]:
    """The pooled dispersion of each benchmark from :func:`_own_fits`'s fits (families of ≥ MIN_POOLING_MEMBERS members)."""
    own: dict[str, dict[str, float]] = {b: {} for b in benchmarks}
    for (family, b), (_, _, fitted) in found.items():
        if not isinstance(fitted, str) and fitted.converged and fitted.n_members >= MIN_POOLING_MEMBERS:
            own[b][family] = fitted.own_dispersion
    return {b: pooled_dispersion(own[b]) for b in benchmarks}


def _candidates_v3(targets: pd.DataFrame, composed: dict[str, ReferenceFit] | None,
                   candidate_benchmarks: tuple[str, ...] = CANDIDATE_BENCHMARKS_V2, shape: str = DEFAULT_SHAPE) -> pd.DataFrame:
    """Rule v3's candidate table (module docstring): every family with ≥ 3 models × ``candidate_benchmarks``, its laws
    of ``shape`` (column ``shape``, read by :func:`fit_of`)."""
    from densing.laws.family_likelihood import likelihood_fit

    keep = [c for c in ("model", "family", "benchmark", "metric", "value", "params", "train_tokens", "active_params",
                        "stderr") if c in targets.columns]
    targets = targets[keep].astype({c: object for c in ("model", "family", "benchmark", "metric") if c in keep})
    counts = targets.drop_duplicates("model").groupby("family")["model"].count() if "family" in targets.columns else pd.Series(dtype=int)
    present = set(targets["benchmark"].astype(str))
    counted = item_counts().set_index("benchmark")["items"]
    benchmarks = [b for b in candidate_benchmarks if b in present]
    metrics = {b: metric_for(targets, b, None) for b in benchmarks}
    families = sorted(str(f) for f in counts[counts >= MIN_FAMILY_MODELS].index)
    top_cache: dict = {}
    found = _own_fits(targets, families, benchmarks, metrics, counted, shape)
    pooled = _pool(found, benchmarks)
    rows = []
    for family in families:
        own = targets[targets["family"] == family]
        for b in benchmarks:
            points, dropped, fitted = found[(family, b)]
            row = {c: math.nan for c in _V3_COLUMNS}
            row |= dict(reference=f"{family}:{b}", family=family, benchmark=b, kind="family", n_fitted=0, sizes=0,
                        largest_member="", held_out_model="", eligible=False, why="",
                        dispersion=pooled.get(b, math.nan), pooled_dispersion=pooled.get(b, math.nan))
            rows.append(row)
            if points is None:
                row["why"] = f"R2: {b} has {fitted} (densing/data), so neither a floor nor a standard error"
                continue
            chance = CHANCE_LEVELS[b]
            sizes = np.unique(points["params"].to_numpy(float))
            row["n_fitted"], row["sizes"] = len(points), int(sizes.size)
            if sizes.size:
                tokens = points["train_tokens"].to_numpy(float)
                row |= dict(size_span=float(sizes.max() / sizes.min()), token_ratio=float(tokens.max() / tokens.min()),
                            d0=float(np.exp(np.mean(np.log(tokens)))))
                best = int(np.argmax(points["score"].to_numpy(float)))
                row["largest_member"] = str(points["model"].iloc[-1])
                row["largest_score"] = float(points["score"].to_numpy(float)[best])
            top_scores, top_stderr = _top_targets(targets, b, family, top_cache)
            values = top_cache[b][0][(top_cache[b][2] != family) & ~np.isnan(top_cache[b][0])]
            top = float(np.quantile(values, TOP_DECILE_QUANTILE)) if values.size else math.nan
            row["top_decile"] = top
            row["reach_share"] = (row["largest_score"] - chance) / (top - chance) if top > chance else math.nan
            if isinstance(fitted, type("")) and sizes.size >= 2:
                fitted = "no fit"
            if not isinstance(fitted, str):
                if not fitted.converged:
                    fitted = "the likelihood does not converge (the scores do not determine the law)"
                else:
                    fitted = likelihood_fit(covariate(points["params"].to_numpy(float), shape), points["score"].to_numpy(float),
                                            float(counted[b]), chance, 1 - chance, dispersion_floor=pooled[b])
                    low, high = fitted.slope_interval()
                    row |= dict(slope=fitted.slope, slope_ci_low=low, slope_ci_high=high, dispersion=fitted.dispersion)
            reason = _v3_reasons(row, points, fitted, chance, top, top_scores, top_stderr)
            # the held-out test also where only the reach rules fail: a set row's joint test (densing.trend.design) reads it
            if not reason or reason.startswith(("R4r", "R4s")):
                reason = _v3_held_out(row, reason, own, family, b, metric=metrics[b], dispersion_floor=pooled[b],
                                      shape=shape)
            row["eligible"] = not reason
            notes = [f"{k.replace('_', ' ')}: {', '.join(v)}" for k, v in dropped.items() if v and k != "no_score"]
            row["why"] = "; ".join(([reason] if reason else []) + [f"R1/R3 not fitted — {n}" for n in notes])
    rows += [_v3_composed_row(name, fit) for name, fit in sorted((composed or {}).items())]
    out = pd.DataFrame(rows, columns=list(_V3_COLUMNS))
    out.insert(0, "rule", "v3")
    out.insert(1, "shape", shape)
    return out


def _v3_held_out(row: dict, reason: str, own: pd.DataFrame, family: str, benchmark: str, *, metric: str,
                 dispersion_floor: float, shape: str) -> str:
    """Rule v3's R5z on a candidate: the held-out test's columns filled in ``row``; the reason it fails (``reason``,
    an earlier rule's, kept first), or ""."""
    try:
        held = held_out_test(own, family, benchmark, metric=metric, dispersion_floor=dispersion_floor, shape=shape)
    except DensingError as exc:
        return reason or f"R5z: held-out refit impossible: {exc}"
    row |= dict(held_out_model=held["held_out"], held_out_measured=held["measured"],
                held_out_predicted=held["predicted"], held_out_error=held["relative_error"], held_out_z=held["z"])
    if not reason and not abs(held["z"]) <= MAX_HELD_OUT_Z:
        return (f"R5z: the held-out {held['held_out']} scores {held['measured']:.3f}, the refit predicts "
                f"{held['predicted']:.3f} ± {held['predicted_stderr']:.3f}: z = {held['z']:+.2f} "
                f"(allowed ±{MAX_HELD_OUT_Z:.2f})")
    return reason


def _v3_composed_row(name: str, fit: ReferenceFit) -> dict:
    """A shipped composed fit's row of rule v3's table: shown, never eligible (v3 takes families of one recipe)."""
    points = fit.points_frame()
    top = points.sort_values("params").iloc[-1]
    row = {c: math.nan for c in _V3_COLUMNS}
    row |= dict(reference=name.removesuffix(".json"), family=str(fit.provenance.get("families", "")),
                benchmark=fit.benchmark, kind=fit.kind, n_fitted=len(points), sizes=int(points["params"].nunique()),
                size_span=float(points["params"].max() / points["params"].min()),
                token_ratio=float(points["train_tokens"].max() / points["train_tokens"].min()), d0=fit.d0,
                largest_member=str(top["model"]), largest_score=float(top["score"]), held_out_model="", eligible=False,
                why="rule v3 takes families of one recipe; a composed fit of several recipes and budgets is shown, not used")
    return row


def eligible_families(candidates: pd.DataFrame) -> pd.DataFrame:
    """Families with ≥ :data:`MIN_BENCHMARKS` eligible benchmarks: ``family``, ``benchmarks``, ``mean_held_out_error``, ``headline``."""
    ok = candidates[candidates["eligible"].astype(bool) & (candidates["kind"] == "family")]
    rows = []
    for family, group in ok.groupby("family", sort=True):
        if len(group) >= MIN_BENCHMARKS:
            ordered = list(dict.fromkeys(b for b in candidates["benchmark"] if b in set(group["benchmark"])))
            error = group["held_out_z"].abs() if "held_out_z" in group.columns else group["held_out_error"]
            rows.append({"family": family, "benchmarks": tuple(ordered), "mean_held_out_error": float(error.mean())})
    table = pd.DataFrame(rows, columns=["family", "benchmarks", "mean_held_out_error"])
    table = table.sort_values(["mean_held_out_error", "family"]).reset_index(drop=True)
    table["headline"] = table.index == 0
    return table


def family_references(targets: pd.DataFrame, candidates: pd.DataFrame, *, seed: int = 0,
                      family_boot: int = FAMILY_BOOT) -> dict[str, tuple[ReferenceFit, ...]]:
    """The eligible families' fits (every eligible benchmark, bootstrapped, one seed so draw k resamples the same members)."""
    out = {}
    for row in eligible_families(candidates).itertuples(index=False):
        out[row.family] = tuple(fit_of(targets, candidates, row.family, b, family_boot, seed) for b in row.benchmarks)
    return out


def fit_of(targets: pd.DataFrame, candidates: pd.DataFrame, family: str, benchmark: str, family_boot: int, seed: int
            ) -> ReferenceFit:
    """One candidate's fit as its rule makes it: by likelihood with the benchmark's pooled dispersion (v3), by least
    squares on logits (v1, v2)."""
    rule = str(candidates["rule"].iloc[0]) if "rule" in candidates.columns and len(candidates) else "v1"
    if rule != "v3":
        return fit_family(targets, family, benchmark, n_boot=family_boot, seed=seed, method="ols", shape="logistic_ln_n")
    pooled = candidates.loc[candidates["benchmark"] == benchmark, "pooled_dispersion"].to_numpy(float)
    floor = float(pooled[0]) if pooled.size and math.isfinite(pooled[0]) else 1.0
    shape = str(candidates["shape"].iloc[0]) if "shape" in candidates.columns else DEFAULT_SHAPE
    return fit_family(targets, family, benchmark, n_boot=family_boot, seed=seed, method="binomial", dispersion_floor=floor,
                      shape=shape)




def eligible_fits(targets: pd.DataFrame, candidates: pd.DataFrame, *, seed: int = 0,
                  family_boot: int = FAMILY_BOOT) -> dict[tuple[str, str], ReferenceFit]:
    """Every eligible (family, benchmark) candidate's fit, bootstrapped with one seed (draw k of a family's fits
    resamples the same members), keyed by (family, benchmark)."""
    ok = candidates[candidates["eligible"].astype(bool) & (candidates["kind"] == "family")]
    return {(str(r.family), str(r.benchmark)): fit_of(targets, candidates, str(r.family), str(r.benchmark), family_boot, seed)
            for r in ok.itertuples(index=False)}


#: Shipped multi-family composed fits, listed among the candidates (judged by the reach rule R4).
COMPOSED_FITS = ("pile_*_composed.json", "cerebras_*_composed.json")


def composed_fits(folder: str | Path | None = None) -> dict[str, ReferenceFit]:
    """The shipped multi-family composed fits (candidates judged by the reach rule), by file name."""
    folder = Path(folder) if folder else paths.REFERENCE_FITS
    found = sorted({p for pattern in COMPOSED_FITS for p in glob.glob(str(folder / pattern))})
    return {Path(p).name: ReferenceFit.load(p) for p in found}
