"""The public table: ObsScaling's open base models with their Open LLM Leaderboard v1 and v2 scores, the leading table.

``results/public_models.csv`` (``python tools/build_tables.py public``) leads: ``densing trend`` and the report's
headline measure it when no ``--table`` is named, and the rest of the report is built on its measurement; the Swallow
rows beside it are the ones *closest to the paper's protocol* wherever the two disagree.
"""

from __future__ import annotations

from densing.paths import RESULTS
from densing.registry import DESIGNS, Design, TrendTable, register_table

register_table(
    TrendTable(
        "public",
        RESULTS / "public_models.csv",
        "the public table",
        candidates=(
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
        ),
        sets={
            "paper": (
                "paper-like set (MMLU, BBH, MATH-hard, HumanEval)",
                ("mmlu", "leaderboard_bbh", "math_hard", "humaneval"),
            ),
            "paper_gsm8k": ("paper-like set with GSM8K for MATH", ("mmlu", "leaderboard_bbh", "gsm8k", "humaneval")),
            "knowledge_commonsense": (
                "knowledge & commonsense set (MMLU, HellaSwag, WinoGrande; the headline before the "
                "paper-like set was chosen)",
                ("mmlu", "hellaswag", "winogrande"),
            ),
            "v2_native": (
                "v2-native set (MMLU-Pro, BBH, MATH-hard; on this table a finding, seen after its headline)",
                ("mmlu_pro", "leaderboard_bbh", "math_hard"),
            ),
        },
        budget_benchmarks=("mmlu", "leaderboard_bbh", "math_hard", "humaneval", "gsm8k"),
        budget_sets=("paper", "paper_gsm8k"),
        paper_mapping={
            "MMLU": "mmlu (Open LLM Leaderboard v1, 5-shot)",
            "BBH": "leaderboard_bbh (leaderboard v2, multiple-choice BBH, 72 models)",
            "MATH": "math_hard (leaderboard v2: MATH level 5 only, 72 models); gsm8k in the variant",
            "HumanEval": "humaneval (pass@1, 127 models)",
            "MBPP": "missing: not in the table",
        },
        leads=True,
    )
)

DESIGNS.register(
    "public",
    Design(
        "public",
        "the public table: ObsScaling's open base models, Open LLM Leaderboard v1 and v2 scores (--table public, "
        "the headline's)",
    ),
)
