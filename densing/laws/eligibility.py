"""Which references a density trend is measured against: the candidate table of (family, benchmark) pairs and
the written rule that marks each eligible or says why not.

:func:`candidate_table` fits every family of the target table with at least :data:`MIN_FAMILY_MODELS` models on
every benchmark of :data:`CANDIDATE_BENCHMARKS_V2` (:data:`EXCLUDED_BENCHMARKS_V2` left out, each with its reason) by
binomial likelihood (:func:`densing.laws.family.fit_family`, default shape), and applies rule v3 (:data:`DEFAULT_RULE`,
date-blind). A candidate is eligible iff

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
it). A family eligible on a benchmark is a reference of its row; a benchmark set's references follow the set
rule (:func:`densing.trend.pooling.set_references`). Rules v1 and v2, the shipped candidate table's labelled
variants, are computed by ``tools/build_tables.py candidates``; docs/method.md states the three rules and why v3 is
the rule.
"""
from __future__ import annotations

import glob
import math
from pathlib import Path

import pandas as pd

from densing import paths
from densing.laws.candidates_v3 import (  # noqa: F401 (the thresholds are public here)
    CANDIDATE_BENCHMARKS_V2,
    DEFAULT_RULE,
    EXCLUDED_BENCHMARKS_V2,
    FAMILY_BOOT,
    MAX_HELD_OUT_Z,
    MAX_TOKEN_RATIO,
    MIN_FAMILY_MODELS,
    MIN_POOLING_MEMBERS,
    MIN_SIZES,
    REACH_SHARE,
    SATURATION_STDERRS,
    TOP_DECILE_QUANTILE,
    candidate_table,
    pooled_dispersion,
    pooled_dispersions,
)
from densing.laws.family import DEFAULT_SHAPE, fit_family
from densing.laws.reference_fit import ReferenceFit
from densing.runtime import per_table


def fit_of(targets: pd.DataFrame, candidates: pd.DataFrame, family: str, benchmark: str, family_boot: int, seed: int
            ) -> ReferenceFit:
    """One candidate's fit as rule v3 makes it: by likelihood with the benchmark's pooled dispersion."""
    shape, floors = _fit_settings(candidates)
    return fit_family(targets, family, benchmark, n_boot=family_boot, seed=seed, method="binomial",
                      dispersion_floor=floors.get(benchmark, 1.0), shape=shape)


@per_table
def _fit_settings(candidates: pd.DataFrame) -> tuple[str, dict[str, float]]:
    """What :func:`fit_of` reads of a candidate table: its family law's shape and each benchmark's pooled dispersion
    (the first row's; 1 where NaN), read once per table inside :func:`same_tables`."""
    shape = str(candidates["shape"].iloc[0]) if "shape" in candidates.columns else DEFAULT_SHAPE
    floors: dict[str, float] = {}
    for benchmark, pooled in zip(candidates["benchmark"].tolist(), candidates["pooled_dispersion"].to_numpy(float)):
        if benchmark not in floors:
            floors[benchmark] = float(pooled) if math.isfinite(pooled) else 1.0
    return shape, floors




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
