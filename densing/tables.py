"""The target tables a density trend is measured on, each with its benchmarks, sets and words: one record each.

A :class:`TrendTable` says what :func:`densing.trend.measure.measure_trend` needs to know of a table beyond its
rows: the benchmarks rule v3 may fit a reference family on, the benchmark sets inverted jointly (the first is the
headline's), the benchmarks and sets of the budget sensitivity, and how the verdict names it. A new table is one :func:`register` call.

- ``public``: ``results/public_models.csv`` (ObsScaling, Open LLM Leaderboard v1 and v2 scores).
- ``swallow``, ``swallow_2026``: the Swallow LLM Leaderboard's two protocols, registered by their design's folder
  (:mod:`densing.designs.swallow`); every lookup here imports the designs first (:func:`densing.registry.designs`).

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
from densing.registry import Registry, check_type, designs


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
    #: the forecast check's cutoff (an ISO date): ``densing trend --table NAME --by benchmark`` then measures the table
    #: with its forecast check (:func:`densing.trend.protocol.measure_table`); None: no forecast check
    cutoff: str | None = None

    @property
    def headline_set(self) -> str:
        return next(iter(self.sets))


#: The registered target tables, by name (a :class:`densing.registry.Registry`).
TABLES: Registry[TrendTable] = Registry("--table", check=lambda registry, name, table: check_type(registry, name, table,
                                                                                                 TrendTable))


def register(table: TrendTable) -> TrendTable:
    """Add ``table`` to :data:`TABLES` (its name must be new: else a :class:`densing.errors.RegistryError`)."""
    return TABLES.register(table.name, table)


def tables() -> Registry[TrendTable]:
    """:data:`TABLES` with every design's tables registered (:func:`densing.registry.designs` imports them)."""
    designs()
    return TABLES


def get(name: str | TrendTable) -> TrendTable:
    """The registered table ``name`` (a :class:`TrendTable` is returned as it is); an unknown name is an InputError."""
    if isinstance(name, TrendTable):
        return name
    return tables().get(name)


def for_path(path: str | Path | None) -> TrendTable:
    """The registered table whose file is ``path`` (the public table's profile for any other file: a table of the
    public table's benchmarks, as ``--results`` has always taken)."""
    if path is not None:
        resolved = Path(path).resolve()
        for table in tables().values():
            if table.path.resolve() == resolved:
                return table
    return TABLES["public"]


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
