"""The public table: ObsScaling's open base models with their Open LLM Leaderboard v1 and v2 scores, the leading table.

``results/public_models.csv`` (built by ``python tools/build_tables.py public``: :mod:`tools.public_table`) is one
registered target table (:data:`densing.registry.TABLES`), ``public``, that *leads*: ``densing trend`` and the
report's headline measure it when no ``--table`` is named, and a ``--results`` file that no table registers is read
with its profile (its candidate benchmarks and sets).

**Which table leads** (written before any trend on the Swallow tables was computed): the report's and ``densing
trend``'s headline stays the public table's, because the rest of the report (the density figure, the named models,
the checks, the OLMES comparison) is built on that measurement; the Swallow tables are measured through the same
engine and rule and shown beside it, row by row, with their agreement said, in the report's section "The paper's
protocol, 2023–2025". Of the two, the Swallow row is the one *closest to the paper's protocol* (its benchmarks in its
shots, chain of thought on BBH, MATH-500 of every level), and the report says so wherever the two disagree.
"""
from __future__ import annotations

from densing.paths import RESULTS
from densing.registry import DESIGNS, Design, TrendTable, register_table

register_table(TrendTable(
    "public", RESULTS / "public_models.csv", "the public table",
    candidates=("mmlu", "arc_challenge", "hellaswag", "winogrande", "gsm8k", "humaneval",
                "leaderboard_bbh", "math_hard", "mmlu_pro", "gpqa", "musr"),
    sets={
        "paper": ("paper-like set (MMLU, BBH, MATH-hard, HumanEval)", ("mmlu", "leaderboard_bbh", "math_hard", "humaneval")),
        "paper_gsm8k": ("paper-like set with GSM8K for MATH", ("mmlu", "leaderboard_bbh", "gsm8k", "humaneval")),
        "knowledge_commonsense": ("knowledge & commonsense set (MMLU, HellaSwag, WinoGrande; the headline before the "
                                  "paper-like set was chosen)", ("mmlu", "hellaswag", "winogrande")),
        "v2_native": ("v2-native set (MMLU-Pro, BBH, MATH-hard; on this table a finding, seen after its headline)",
                      ("mmlu_pro", "leaderboard_bbh", "math_hard")),
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
    leads=True))

DESIGNS.register("public", Design(
    "public", "the public table: ObsScaling's open base models, Open LLM Leaderboard v1 and v2 scores (--table public, "
    "the headline's)", None, rank=0))
