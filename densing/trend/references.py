"""Which reference a density trend is measured against: family references chosen by a written rule.

The rule below was written (and committed) before any trend on a family reference was computed;
a change after seeing results is named here and in the README, with both versions kept.

**Candidates.** Every family of the target table with at least 3 models, crossed with every
benchmark of :data:`CANDIDATE_BENCHMARKS` (the Open LLM Leaderboard v1 columns that have a chance
level and an item count in the benchmark registry): one candidate per (family, benchmark). The
shipped multi-family composed fits (the Pile ladder, Cerebras-GPT) are listed too, judged by the
same reach rule (R4).

Left out a priori, before any fit: TruthfulQA (mc2) — built so that scale does not help (Lin et
al. 2022) and with no chance floor the law can use; XWinograd — multilingual, no item count; the
leaderboard-v2 columns — 72 models, another harness.

**Eligibility** of a (family, benchmark) candidate, fitted by :func:`densing.laws.family.fit_family`
(S(N) = d + c·σ(γ·(ln N − l)), d = chance, c + d = 1) — all of:

- (R1) dense: mixture-of-experts members (an ``active_params`` value) are dropped from the fit;
- (R2) at least :data:`MIN_SIZES` sizes with a known token count and a score above chance,
  spanning at least :data:`MIN_SIZE_SPAN` × in N;
- (R3) one training budget: the known token counts of those members within a factor
  :data:`MAX_TOKEN_RATIO` of each other (the spread is not modelled; the family's D0 is their
  geometric mean, stated with the fit); members with no token count are not fitted;
- (R4) reach: the largest fitted member scores at or above the :data:`REACH_QUANTILE` quantile of
  the benchmark's scores over the trend's targets (dated on or after the epoch, not of the family);
- (R5) held out: refit without the largest member, predict its score; relative error
  |Ŝ − S| / S at most :data:`MAX_HELD_OUT_ERROR`.

A **family reference** is a family with at least :data:`MIN_BENCHMARKS` eligible benchmarks; the
joint inversion (:mod:`densing.laws.joint`) uses all of them. The **headline reference** is the
eligible family with the lowest mean held-out error over its eligible benchmarks (ties: name);
the **headline inversion** is the joint one, the per-benchmark inversions shown beside it. The
reference family's own models (all of them, fitted or not) are never targets.
"""
from __future__ import annotations

#: Leaderboard-v1 benchmarks a family reference may be fitted on (tidy names of ``read_results``).
CANDIDATE_BENCHMARKS: tuple[str, ...] = ("mmlu", "arc_challenge", "hellaswag", "winogrande", "gsm8k", "humaneval")
#: Benchmarks left out before any fit, and why (module docstring).
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
