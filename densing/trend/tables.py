"""The target tables a density trend is measured on, each with its benchmarks, sets and words: one record each.

A :class:`TrendTable` says what :func:`densing.trend.measure.measure_trend` needs to know of a table beyond its
rows: the benchmarks rule v3 may fit a reference family on, the benchmark sets inverted jointly (the first is the
headline's), the benchmarks and sets of the budget sensitivity, and how the verdict names it. A new table is one :func:`register` call.

- ``public``: ``results/public_models.csv`` (ObsScaling, Open LLM Leaderboard v1 and v2 scores).
- ``swallow``: ``results/swallow/swallow_2025-06.csv`` — the Swallow LLM Leaderboard's pre-trained models
  (lm-evaluation-harness 0.4.2; MMLU 5-shot, BBH 3-shot chain of thought, MATH 4-shot, GSM8K 4-shot, HumanEval
  0-shot; MATH is MATH-500): the paper's own benchmarks and shots but MBPP.
- ``swallow_2026``: ``results/swallow/swallow_2026-05.csv`` — the same leaderboard's later protocol (another
  framework, pre-trained models released 2024-06 … 2025-11); never pooled with ``swallow``.

**Which table leads** (written before any trend on the Swallow tables was computed): the report's and ``densing
trend``'s headline stays the public table's, because the rest of the report (the density figure, the named models,
the checks, the OLMES comparison) is built on that measurement; the Swallow tables are measured through the same
engine and rule and shown beside it, row by row, with their agreement said, in the report's section "The paper's
protocol, 2023–2025". Of the two, the Swallow row is the one *closest to the paper's protocol* (its benchmarks in its
shots, chain of thought on BBH, MATH-500 of every level), and the report says so wherever the two disagree.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from densing import paths
from densing.registry import Registry, check_type


@dataclass(frozen=True)
class TrendTable:
    """One target table's benchmarks and words (module docstring)."""

    name: str
    path: Path
    words: str                                   # how a verdict names the table: "the public table"
    candidates: tuple[str, ...]                  # benchmarks rule v3 may fit a family on
    sets: dict[str, tuple[str, tuple[str, ...]]]  # name → (label, benchmarks); the first is the headline's
    budget_benchmarks: tuple[str, ...] = ()
    budget_sets: tuple[str, ...] = ()
    paper_mapping: dict[str, str] = field(default_factory=dict)  # the paper's benchmark → what stands for it here

    @property
    def headline_set(self) -> str:
        return next(iter(self.sets))


#: The registered target tables, by name (a :class:`densing.registry.Registry`).
TABLES: Registry[TrendTable] = Registry("--table", check=lambda registry, name, table: check_type(registry, name, table,
                                                                                                 TrendTable))


def register(table: TrendTable) -> TrendTable:
    """Add ``table`` to :data:`TABLES` (its name must be new: else a :class:`densing.errors.RegistryError`)."""
    return TABLES.register(table.name, table)


def get(name: str | TrendTable) -> TrendTable:
    """The registered table ``name`` (a :class:`TrendTable` is returned as it is); an unknown name is an InputError."""
    if isinstance(name, TrendTable):
        return name
    return TABLES.get(name)


def for_path(path: str | Path | None) -> TrendTable:
    """The registered table whose file is ``path`` (the public table's profile for any other file: a table of the
    public table's benchmarks, as ``--results`` has always taken)."""
    if path is not None:
        resolved = Path(path).resolve()
        for table in TABLES.values():
            if table.path.resolve() == resolved:
                return table
    return TABLES["public"]


_SWALLOW_SETS = {
    "paper": ("paper-like set (MMLU, BBH CoT, MATH, HumanEval)",
              ("swallow_mmlu", "swallow_bbh", "swallow_math", "swallow_humaneval")),
    "paper_gsm8k": ("paper-like set with GSM8K for MATH", ("swallow_mmlu", "swallow_bbh", "swallow_gsm8k", "swallow_humaneval")),
}
_SWALLOW_BENCHMARKS = ("swallow_mmlu", "swallow_bbh", "swallow_math", "swallow_gsm8k", "swallow_humaneval")
_SWALLOW_MAPPING = {
    "MMLU": "swallow_mmlu (5-shot, lm-eval 0.4.2)",
    "BBH": "swallow_bbh (3-shot chain of thought, exact match)",
    "MATH": "swallow_math (4-shot, MATH-500: 500 test problems of every level); swallow_gsm8k in the variant",
    "HumanEval": "swallow_humaneval (0-shot pass@1, bigcode's harness)",
    "MBPP": "missing: not on the leaderboard",
}

register(TrendTable(
    "public", paths.RESULTS / "public_models.csv", "the public table",
    candidates=("mmlu", "arc_challenge", "hellaswag", "winogrande", "gsm8k", "humaneval",
                "leaderboard_bbh", "math_hard", "mmlu_pro", "gpqa", "musr"),
    sets={
        "paper": ("paper-like set (MMLU, BBH, MATH-hard, HumanEval)", ("mmlu", "leaderboard_bbh", "math_hard", "humaneval")),
        "paper_gsm8k": ("paper-like set with GSM8K for MATH", ("mmlu", "leaderboard_bbh", "gsm8k", "humaneval")),
        "knowledge_commonsense": ("knowledge & commonsense set (MMLU, HellaSwag, WinoGrande; rule v2's headline set)",
                                  ("mmlu", "hellaswag", "winogrande")),
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
))
register(TrendTable(
    "swallow", paths.RESULTS / "swallow" / "swallow_2025-06.csv",
    "the Swallow leaderboard (the paper's protocol, lm-eval 0.4.2, models to 2025-06)",
    candidates=_SWALLOW_BENCHMARKS, sets=_SWALLOW_SETS, budget_benchmarks=_SWALLOW_BENCHMARKS,
    budget_sets=("paper", "paper_gsm8k"), paper_mapping=_SWALLOW_MAPPING,
))
register(TrendTable(
    "swallow_2026", paths.RESULTS / "swallow" / "swallow_2026-05.csv",
    "the Swallow leaderboard's later protocol (models 2024-06 … 2025-11)",
    candidates=_SWALLOW_BENCHMARKS, sets=_SWALLOW_SETS, budget_benchmarks=_SWALLOW_BENCHMARKS,
    budget_sets=("paper", "paper_gsm8k"), paper_mapping=_SWALLOW_MAPPING,
))
