"""The Swallow LLM Leaderboard (CC-BY 4.0, Swallow LLM team) as target tables in the paper's own protocol.

Two target tables of its pre-trained models (``results/swallow``), never pooled: ``swallow`` (lm-evaluation-harness
0.4.2, the paper's benchmarks and shots but MBPP) and ``swallow_2026`` (the leaderboard's later protocol); see
docs/method.md, "The paper's protocol". Their stored records (:mod:`.records`) stand in the report's section
(:mod:`densing.report.designs.swallow`).
"""

from __future__ import annotations

from densing.paths import RESULTS
from densing.registry import DESIGNS, Design, TrendTable, register_table

#: The forecast check's cutoff of each table (:mod:`densing.trend.forecast`): half a year before its last models.
CUTOFFS: dict[str, str] = {"swallow": "2024-06-30", "swallow_2026": "2025-06-30"}

_SWALLOW_SETS = {
    "paper": (
        "paper-like set (MMLU, BBH CoT, MATH, HumanEval)",
        ("swallow_mmlu", "swallow_bbh", "swallow_math", "swallow_humaneval"),
    ),
    "paper_gsm8k": (
        "paper-like set with GSM8K for MATH",
        ("swallow_mmlu", "swallow_bbh", "swallow_gsm8k", "swallow_humaneval"),
    ),
}
_SWALLOW_BENCHMARKS = ("swallow_mmlu", "swallow_bbh", "swallow_math", "swallow_gsm8k", "swallow_humaneval")
_SWALLOW_MAPPING = {
    "MMLU": "swallow_mmlu (5-shot, lm-eval 0.4.2)",
    "BBH": "swallow_bbh (3-shot chain of thought, exact match)",
    "MATH": "swallow_math (4-shot, MATH-500: 500 test problems of every level); swallow_gsm8k in the variant",
    "HumanEval": "swallow_humaneval (0-shot pass@1, bigcode's harness)",
    "MBPP": "missing: not on the leaderboard",
}

for _name, _file, _words in (
    (
        "swallow",
        "swallow_2025-06.csv",
        "the Swallow leaderboard (the paper's protocol, lm-eval 0.4.2, models to 2025-06)",
    ),
    ("swallow_2026", "swallow_2026-05.csv", "the Swallow leaderboard's later protocol (models 2024-06 to 2025-11)"),
):
    register_table(
        TrendTable(
            _name,
            RESULTS / "swallow" / _file,
            _words,
            candidates=_SWALLOW_BENCHMARKS,
            sets=_SWALLOW_SETS,
            budget_benchmarks=_SWALLOW_BENCHMARKS,
            budget_sets=("paper", "paper_gsm8k"),
            paper_mapping=_SWALLOW_MAPPING,
            cutoff=CUTOFFS[_name],
        )
    )


DESIGNS.register(
    "swallow",
    Design("swallow", "the Swallow leaderboard's tables in the paper's protocol (--table swallow, swallow_2026)"),
)
