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

import glob
import math
from pathlib import Path

import numpy as np
import pandas as pd

from densing import paths
from densing.data.benchmarks import CHANCE_LEVELS
from densing.data.item_counts import item_counts
from densing.laws.candidates_v3 import candidates_v3, pooled_dispersion, pooled_dispersions  # noqa: F401 (public here)
from densing.laws.eligibility_rules import (  # noqa: F401 (the thresholds are public here)
    CANDIDATE_BENCHMARKS, CANDIDATE_BENCHMARKS_V2, DEFAULT_RULE, EXCLUDED_BENCHMARKS, EXCLUDED_BENCHMARKS_V2,
    FAMILY_BOOT, MAX_HELD_OUT_ERROR, MAX_HELD_OUT_Z, MAX_TOKEN_RATIO, MAX_TOP_CONDITIONING, MIN_BENCHMARKS,
    MIN_FAMILY_MODELS, MIN_POOLING_MEMBERS, MIN_SET_BENCHMARKS, MIN_SIZE_SPAN, MIN_SIZES, REACH_QUANTILE, REACH_SHARE,
    RULE_VERSIONS, SATURATION_STDERRS, TOP_DECILE_QUANTILE, TOP_SHARE, family_members, target_reach, v1_v2_rules)
from densing.laws.family import DEFAULT_SHAPE, family_points, fit_family, metric_for
from densing.laws.reference_fit import ReferenceFit
from densing.laws.table_cache import per_table
from densing.errors import InputError
from densing.validation import Frame, Options, validate_params


@validate_params({"targets": [Frame(("model", "benchmark", "value"))], "rule": [Options(RULE_VERSIONS)]})
def candidate_table(targets: pd.DataFrame, *, since: str | None, composed: dict[str, ReferenceFit] | None = None,
                    rule: str = DEFAULT_RULE, benchmarks: tuple[str, ...] | None = None, shape: str = DEFAULT_SHAPE) -> pd.DataFrame:
    """One row per candidate (family × benchmark, and each shipped composed fit): the rule applied, in words.

    ``rule``: :data:`DEFAULT_RULE` (v3, module docstring) unless another is named; ``rule="v1"``: R1–R5 over :data:`CANDIDATE_BENCHMARKS`; ``rule="v2"``: R1–R3, R4s, R4c, R5 over
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
    if rule == "v3":
        return candidates_v3(targets, composed, benchmarks or CANDIDATE_BENCHMARKS_V2, shape)
    if benchmarks is not None:
        raise InputError(f"benchmarks: rule {rule} has its own candidate benchmarks; only rule v3 takes another table's")
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
                   "reach_score": target_reach(targets, benchmark, family, since, reach_cache) if rule == "v1" else math.nan,
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
            v1_v2_rules(row, rule, own, targets, family, benchmark, metrics[benchmark], int(sizes.size), top_cache)
            if notes:
                row["why"] = "; ".join(([row["why"]] if row["why"] else []) + [f"R1/R3 not fitted — {n}" for n in notes])
    rows += [_v1_v2_composed_row(name, fit, targets, since, reach_cache) for name, fit in sorted((composed or {}).items())]
    out = pd.DataFrame(rows)
    out.insert(0, "rule", rule)
    return out


def _v1_v2_composed_row(name: str, fit: ReferenceFit, targets: pd.DataFrame, since: str | None, reach_cache: dict) -> dict:
    """A shipped composed fit's row of rules v1 and v2: judged by the reach rule R4 alone, never eligible."""
    points = fit.points_frame()
    families = str(fit.provenance.get("families", ""))
    benchmark = fit.benchmarks[0] if len(fit.benchmarks) == 1 else fit.benchmark
    reach = target_reach(targets, benchmark, "", since, reach_cache) if len(fit.benchmarks) == 1 else math.nan
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
    rule, shape, floors = _fit_settings(candidates)
    if rule != "v3":
        return fit_family(targets, family, benchmark, n_boot=family_boot, seed=seed, method="ols", shape="logistic_ln_n")
    return fit_family(targets, family, benchmark, n_boot=family_boot, seed=seed, method="binomial",
                      dispersion_floor=floors.get(benchmark, 1.0), shape=shape)


@per_table
def _fit_settings(candidates: pd.DataFrame) -> tuple[str, str, dict[str, float]]:
    """What :func:`fit_of` reads of a candidate table: its rule, its family law's shape and each benchmark's pooled
    dispersion (the first row's; 1 where NaN), read once per table inside :func:`same_tables`."""
    rule = str(candidates["rule"].iloc[0]) if "rule" in candidates.columns and len(candidates) else "v1"
    shape = str(candidates["shape"].iloc[0]) if "shape" in candidates.columns else DEFAULT_SHAPE
    floors: dict[str, float] = {}
    if rule == "v3":
        for benchmark, pooled in zip(candidates["benchmark"].tolist(), candidates["pooled_dispersion"].to_numpy(float)):
            if benchmark not in floors:
                floors[benchmark] = float(pooled) if math.isfinite(pooled) else 1.0
    return rule, shape, floors




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
