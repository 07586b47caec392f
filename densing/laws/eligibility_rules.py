"""The written rule of :mod:`densing.laws.eligibility`: its thresholds, and the reasons one candidate fails them.

The thresholds of rule v3 (each named in the module docstring of :mod:`densing.laws.eligibility`) and the steps that
judge one (family, benchmark) candidate: the top-decile targets (R4s, R4r), R2, R3, R2s, R4r, R4s
(:func:`v3_reasons`) and the held-out test R5z (:func:`v3_held_out`).
"""
from __future__ import annotations

MIN_FAMILY_MODELS = 3
MIN_SIZES = 3
MAX_TOKEN_RATIO = 2.0
MIN_BENCHMARKS = 2
#: The benchmarks a family reference may be fitted on (tidy names of ``read_results``): the leaderboard-v1 columns and
#: the leaderboard-v2 columns with a chance level and an item count (the name is rule v2's, which introduced them).
CANDIDATE_BENCHMARKS_V2: tuple[str, ...] = ("mmlu", "arc_challenge", "hellaswag", "winogrande", "gsm8k", "humaneval",
                                            "leaderboard_bbh", "math_hard", "mmlu_pro", "gpqa", "musr")
#: Left out before any fit, each with its reason.
EXCLUDED_BENCHMARKS_V2: dict[str, str] = {
    "truthfulqa_mc2": "built so that scale does not help (Lin et al. 2022); mc2 has no chance floor",
    "xwinograd": "multilingual; no item count in the registry",
    "ifeval": "instruction following, scored by rule checks: no chance floor for the law",
}
#: R4s: a top-decile target within this many standard errors of the law's ceiling saturates it.
SATURATION_STDERRS = 2.0
#: The share of highest-scoring targets R4s looks at.
TOP_SHARE = 0.10
#: A family is a reference of a benchmark set when eligible on at least this many of its benchmarks.
MIN_SET_BENCHMARKS = 2
#: The rules :func:`densing.laws.eligibility.candidate_table` applies (v1 and v2: ``tools/build_tables.py``).
RULE_VERSIONS = ("v3",)
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


import math

import numpy as np
import pandas as pd

from densing.errors import DensingError
from densing.numbers import format_number


def top_targets(targets: pd.DataFrame, benchmark: str, family: str, cache: dict) -> tuple[np.ndarray, np.ndarray]:
    """(scores, standard errors) of the top :data:`TOP_SHARE` of ``benchmark``'s scores over the table's models
    outside ``family``, any release date (R4s)."""
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


def v3_reasons(row: dict, fitted, chance: float, top: float, top_scores: np.ndarray, top_stderr: np.ndarray) -> str:
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


def v3_held_out(row: dict, reason: str, held: dict | DensingError) -> str:
    """Rule v3's R5z on a candidate from its held-out test ``held`` (the answer of
    :func:`densing.laws.family_held_out.held_out_test`, or the error it raised): the test's columns filled in ``row``;
    the reason it fails (``reason``, an earlier rule's, kept first), or ""."""
    if isinstance(held, DensingError):
        return reason or f"R5z: held-out refit impossible: {held}"
    row |= dict(held_out_model=held["held_out"], held_out_measured=held["measured"],
                held_out_predicted=held["predicted"], held_out_error=held["relative_error"], held_out_z=held["z"])
    if not reason and not abs(held["z"]) <= MAX_HELD_OUT_Z:
        return (f"R5z: the held-out {held['held_out']} scores {held['measured']:.3f}, the refit predicts "
                f"{held['predicted']:.3f} ± {held['predicted_stderr']:.3f}: z = {held['z']:+.2f} "
                f"(allowed ±{MAX_HELD_OUT_Z:.2f})")
    return reason
