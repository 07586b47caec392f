"""Constants of the density trend: the epoch, time units, the paper's numbers, the thresholds of its states (the frontier rules are
:mod:`densing.trend.rules`' registry)."""

from __future__ import annotations

import math

#: t = 0 of the density trend: Llama-1's release, the paper's epoch (Xiao et al. 2024, §3).
DEFAULT_EPOCH = "2023-02-24"
CHATGPT_RELEASE = "2022-11-30"
#: The paper's numbers (Xiao et al. 2024, §3 and Fig. 1/3), shown beside ours.
PAPER = {
    "doubling_time_months": 3.3,
    "slope_per_day": 0.0073,
    "r_squared": 0.91,
    "slope_before_chatgpt_per_day": 0.0048,
    "slope_after_chatgpt_per_day": 0.0073,
}
#: The paper's journal version: its doubling time over 51 models released to 2025-04, shown beside the three tables'
#: pooled law (results/three_tables), which reaches 2025-11.
PAPER_JOURNAL = {"doubling_time_months": 3.5, "models": 51, "through": "2025-04"}
DAYS_PER_MONTH = 365.25 / 12
#: Draws of the headline (``densing trend``, ``densing report`` and the API share these defaults), and of each side row.
DEFAULT_N_BOOT, DEFAULT_N_BOOT_SIDE = 600, 200
MIN_POINTS = 3  # a line with a t-interval needs n - 2 ≥ 1 residual degrees of freedom
LN2 = math.log(2.0)
#: Models whose densities the measurement lists (the paper's anchors and the models its figures name).
NAMED_MODELS = (
    "huggyllama/llama-7b",
    "meta-llama/Llama-2-7b-hf",
    "meta-llama/Llama-2-13b-hf",
    "meta-llama/Llama-2-70b-hf",
    "mistralai/Mistral-7B-v0.1",
    "google/gemma-2-2b",
    "google/gemma-2-9b",
    "google/gemma-2-27b",
    "Qwen/Qwen2-7B",
    "meta-llama/Meta-Llama-3.1-8B",
    "meta-llama/Meta-Llama-3.1-70B",
    "meta-llama/Meta-Llama-3.1-405B-FP8",
)

#: The validity checks' thresholds (densing.trend.checks): a frontier score within this many standard errors of its
#: cap is saturated; the median κ conditioning allows; the families with two or more sizes the size slope needs.
SATURATION_STDERRS, MAX_MEDIAN_CONDITIONING, MIN_SIZE_FAMILIES = 2.0, 2.0, 2
#: The level of the heterogeneity test, the one gate: references "disagree" when Cochran's Q's p-value is below it.
HETEROGENEITY_ALPHA = 0.05
#: A determined interval end whose 95% Monte Carlo range spans more than this fraction of it is reported with that
#: range (densing.trend.pooling, step 5): a precision statement, not a state.
END_STABILITY = 0.25
#: The most draws a judged row doubles to while an end's sign is undecided (600 → 1,200 → 2,400 → 4,800; step 5).
DRAWS_CAP = 4800
#: The most draws a judged row doubles to while a determined end is not precise (step 5): 2,400 draws halve a range
#: of 600 (it narrows as 1/√K); 4,800 would narrow it by 1/√2 more for 1.21 times the report's CPU
#: (bench/precision_cap.py; docs/method.md, "Determined ends and the three states").
PRECISION_DRAWS_CAP = 2400
#: Draws grown for precision alone stop at this many times the draws asked as well (600 → 2,400, the CLI's default):
#: a run that asks for few draws (a test, a quick look) is not grown 60-fold for a precision it did not ask for.
PRECISION_GROWTH = 4
#: A score this many standard errors or less below its benchmark's cap is at the reference's ceiling (step 3).
CEILING_STDERRS = 2.0
#: A score this many standard errors or less above its benchmark's chance level is at the floor: the target's density
#: enters the row's lines as an upper bound (densing.trend.floors; docs/method.md, "Floors as bounds").
FLOOR_STDERRS = 2.0
#: The statuses of a check (densing.trend.checks); a finding that gates nothing is "reported".
PASSED, FAILED, UNTESTABLE, REPORTED = "passed", "failed", "untestable", "reported"
#: |within-family slope of ln ρ on ln N| the 95% interval must stay inside: ρ changing by at most
#: 2^0.25 ≈ 1.19× per doubling of N, i.e. ≤ 1.8× across a 10× family.
SIZE_SLOPE_MARGIN = 0.25
#: The largest ratio of two references' doubling times the sensitivity check allows.
MAX_SENSITIVITY_RATIO = 2.0
