"""The Open LLM Leaderboard v2's official pretrained base models as a second, independent target table.

``results/openllm_v2/`` (docs/method.md, "A second, independent table through 2025-03"): its first set, the v2-native
row (MMLU-Pro + BBH + MATH-hard), was declared in ``results/openllm_v2/DECLARATION.md`` before the table existed. Its
stored record (:mod:`.record`) stands beside the public table's headline in the report
(:mod:`densing.report.designs.openllm_v2`) and at the terminal (:mod:`densing.cli.designs.openllm_v2`).
"""

from __future__ import annotations

from densing.paths import RESULTS
from densing.registry import DESIGNS, Design, TrendTable, register_table

#: The forecast check's cutoff: half a year before the table's last models (the declaration's).
CUTOFF = "2024-09-30"
#: The v2-native set: the name and benchmarks every table that holds them measures it under.
V2_NATIVE = ("v2_native", "v2-native set (MMLU-Pro, BBH, MATH-hard)", ("mmlu_pro", "leaderboard_bbh", "math_hard"))
_BENCHMARKS = ("leaderboard_bbh", "math_hard", "mmlu_pro", "gpqa", "musr")

register_table(
    TrendTable(
        "openllm_v2",
        RESULTS / "openllm_v2" / "openllm_v2_2025-03.csv",
        "the Open LLM Leaderboard v2's official base models (one harness, models to 2025-03)",
        candidates=_BENCHMARKS,
        sets={V2_NATIVE[0]: V2_NATIVE[1:]},
        budget_benchmarks=V2_NATIVE[2],
        budget_sets=(V2_NATIVE[0],),
        paper_mapping={
            "MMLU": "missing: MMLU-Pro (5-shot, ten options) stands in the v2-native set",
            "BBH": "leaderboard_bbh (multiple choice, 3-shot)",
            "MATH": "math_hard (MATH level 5, 4-shot)",
            "HumanEval": "missing: not on the leaderboard",
            "MBPP": "missing: not on the leaderboard",
        },
        cutoff=CUTOFF,
    )
)

DESIGNS.register(
    "openllm_v2",
    Design("openllm_v2", "the Open LLM Leaderboard v2's official base models (--table openllm_v2)"),
)
