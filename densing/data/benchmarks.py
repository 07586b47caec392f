"""Every benchmark densing knows, one :class:`BenchmarkRecord` each, in one registry (:data:`BENCHMARKS`).

A record holds what densing asks of a benchmark, each fact with its source; a new benchmark is one :func:`register`
call (docs/extending.md, "A benchmark"). :data:`CHANCE_LEVELS`, :data:`ITEM_COUNTS`, :data:`CAPABILITY`,
:data:`WIDE_COLUMNS`, :data:`WIDE_SHOTS`, :data:`PROTOCOL_MAPPING` and :data:`RUNS` are views of the registry, read
at each access; which tables and suites include a benchmark is theirs to say (:mod:`densing.registry`).

The chance level of a leaderboard-v2 benchmark with subtasks is Σ nᵢ/kᵢ / Σ nᵢ over its subtasks (nᵢ items, kᵢ
options; ``leaderboard_v2_subtasks.csv`` beside this module, held exactly by ``tests/data/test_benchmark_facts.py``).
The chance levels of MMLU-Pro (1/k averaged over items of 3 to 10 options), the leaderboard's BBH and TruthfulQA mc2
(equal probability on every answer) are computed from their items by ``python tools/chance_levels.py`` and
recomputed by ``tests/data/test_chance_levels.py``.
A score S on n independent items has the binomial standard error √(S(1 − S)/n) (:func:`with_stderr`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from densing.errors import InputError, RegistryError
from densing.registry import Registry, check_range, check_type


@dataclass(frozen=True)
class Benchmark:
    """One protocol ``densing eval --benchmarks NAME`` runs: the lm-eval tasks of the score and of the loss."""

    name: str
    score_task: str
    num_fewshot: int | None = None
    loss_task: str | None = None
    note: str = ""
    style: str = "lm-eval"  # "olmes": rows scored as the OLMo ladder scores them (densing.eval.olmes)
    metric: str | None = None  # the headline metric where a protocol names one (as the store writes it)

    def tasks(self) -> list[str]:
        return [self.score_task] + ([self.loss_task] if self.loss_task and self.loss_task != self.score_task else [])


@dataclass(frozen=True)
class BenchmarkRecord:
    """One benchmark: its tidy name and what densing knows of it (a field left at its default: nothing)."""

    name: str
    chance: float | None = None
    chance_source: str = ""
    items: int | None = None
    split: str = ""
    items_source: str = ""
    capability: str | None = None
    columns: tuple[str, ...] = ()  # wide-table columns holding its scores
    shots: int | None = None  # the shots of those columns, where one protocol fixes them
    runs: tuple[Benchmark, ...] = ()  # how densing eval runs it, one protocol each
    same_data_as: tuple[str, str] | None = None  # (another table's benchmark of the same data, how they differ)
    display: str | None = None  # the name a reader knows it by ("MMLU"): a set's row names it so


def _check_record(registry: Registry, name: str, record) -> None:
    """A :class:`BenchmarkRecord` under its own name, its chance level in [0, 1), items > 0 and shots ≥ 0 whole
    numbers, its columns strings and its runs :class:`Benchmark` records."""
    check_type(registry, name, record, BenchmarkRecord)
    if record.name != name:
        raise RegistryError(f"benchmark {name!r}: a record is registered under its own name, {record.name!r}")
    check_range(registry, name, "chance", record.chance, 0, 1, closed="left")
    check_range(registry, name, "items", record.items, 0, None, closed="neither", integer=True)
    check_range(registry, name, "shots", record.shots, 0, None, integer=True)
    if not isinstance(record.columns, tuple) or not all(isinstance(c, str) and c.strip() for c in record.columns):
        raise RegistryError(
            f"benchmark {name!r}: field 'columns': expected a tuple of column names, got {record.columns!r}"
        )
    if not isinstance(record.runs, tuple) or not all(isinstance(r, Benchmark) for r in record.runs):
        raise RegistryError(
            f"benchmark {name!r}: field 'runs': expected a tuple of Benchmark records, got {record.runs!r}"
        )


#: The registered benchmarks, by tidy name (a :class:`densing.registry.Registry`).
BENCHMARKS: Registry[BenchmarkRecord] = Registry("benchmark", check=_check_record)


def register(record: BenchmarkRecord) -> BenchmarkRecord:
    """Add ``record`` to :data:`BENCHMARKS`; a name, column or run name already there is a ``RegistryError``."""
    columns, runs = WIDE_COLUMNS._columns(), set(RUNS.names())  # each view read once, not once per name it holds
    if (column := next((c for c in record.columns if c in columns), None)) is not None:
        raise RegistryError(f"benchmark {record.name!r}: column {column!r} is already {columns[column]!r}'s")
    if (run := next((r.name for r in record.runs if r.name in runs), None)) is not None:
        raise RegistryError(f"benchmark {record.name!r}: run {run!r} is already registered")
    return BENCHMARKS.register(record.name, record)


class MissingField(InputError, KeyError):
    """A benchmark without the field asked for: a ``KeyError`` to the mapping protocol, an InputError to a user."""

    def __str__(self) -> str:
        return str(self.args[0])


class FieldView(Mapping):
    """Benchmark name → one field of its record where not ``None``, read at each access; ``what``: the field's words."""

    def __init__(self, field: str, what: str) -> None:
        self.field = field
        self.what = what

    def __getitem__(self, name: str):
        record = BENCHMARKS.get(name, None) if isinstance(name, str) else None
        value = None if record is None else getattr(record, self.field)
        if value is None:
            raise MissingField(f"benchmark {name!r}: no {self.what} in the benchmark registry")
        return value

    def __iter__(self) -> Iterator[str]:
        return iter([name for name, record in BENCHMARKS.items() if getattr(record, self.field) is not None])

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"FieldView({self.field!r}, {dict(self)!r})"


class ColumnView(Mapping):
    """Wide-table column → the benchmark whose scores it holds, read at each access."""

    def _columns(self) -> dict[str, str]:
        return {column: name for name, record in BENCHMARKS.items() for column in record.columns}

    def __getitem__(self, column: str) -> str:
        return self._columns()[column]

    def __iter__(self) -> Iterator[str]:
        return iter(self._columns())

    def __len__(self) -> int:
        return len(self._columns())

    def __repr__(self) -> str:
        return f"ColumnView({self._columns()!r})"


class RunRegistry(Registry[Benchmark]):
    """Run name → :class:`Benchmark` over every record's runs, read at each access (``densing eval``'s registry).
    :meth:`register` adds the run to the record of the same name (a record of that run alone where there is none)."""

    def __init__(self) -> None:  # no items of its own: the records hold them
        self.what = "benchmark"

    @property
    def _items(self) -> dict[str, Benchmark]:
        return {run.name: run for record in BENCHMARKS.values() for run in record.runs}

    def register(self, name: str, item: Benchmark, *, first: bool = False) -> Benchmark:
        if name != item.name:
            raise InputError(f"benchmark: a run is registered under its own name, {item.name!r}, not {name!r}")
        if name in self._items:
            raise RegistryError(f"{self.what}: {name!r} is already registered")
        record = BENCHMARKS.get(name, None)
        if record is None:
            BENCHMARKS.register(name, BenchmarkRecord(name, runs=(item,)))
        else:
            BENCHMARKS[name] = replace(record, runs=(*record.runs, item))
        return item

    def unregister(self, name: str) -> None:
        for owner, record in BENCHMARKS.items():
            kept = tuple(run for run in record.runs if run.name != name)
            if len(kept) == len(record.runs):
                continue
            if not kept and record == BenchmarkRecord(owner, runs=record.runs):  # a record of that run alone
                BENCHMARKS.unregister(owner)
            else:
                BENCHMARKS[owner] = replace(record, runs=kept)
            return

    def __setitem__(self, name: str, item: Benchmark) -> None:
        self.unregister(name)
        self.register(name, item)

    def __delitem__(self, name: str) -> None:
        if name not in self._items:
            raise KeyError(name)
        self.unregister(name)


#: Chance level of each benchmark that has one: k-way multiple choice gives 1/k, open-vocabulary tasks 0.
CHANCE_LEVELS: Mapping[str, float] = FieldView("chance", "chance level")
#: Items of each benchmark's scored split, where densing has the count.
ITEM_COUNTS: Mapping[str, int] = FieldView("items", "item count")
#: The capability each benchmark measures (densing's grouping; ARC-C and GPQA are science questions): the
#: benchmarks of ``densing trend --by benchmark``'s rows, in registration order.
CAPABILITY: Mapping[str, str] = FieldView("capability", "capability group")
#: Shots of the wide tables' benchmarks where one protocol fixes them.
WIDE_SHOTS: Mapping[str, int] = FieldView("shots", "shot count")
#: How a benchmark relates to another table's benchmark of the same data, and why it keeps its own name.
PROTOCOL_MAPPING: Mapping[str, tuple[str, str]] = FieldView("same_data_as", "protocol mapping")
#: Wide-table column → benchmark name.
WIDE_COLUMNS: Mapping[str, str] = ColumnView()
#: Every record's runs by run name (``densing.eval.benchmarks.KNOWN_BENCHMARKS``).
RUNS: RunRegistry = RunRegistry()


def record_of_run(run: str) -> BenchmarkRecord:
    """The record whose runs include ``run``; an unknown run is an :class:`InputError`."""
    for record in BENCHMARKS.values():
        if any(r.name == run for r in record.runs):
            return record
    raise RUNS.unknown(run)


# ---------------------------------------------------------------------------------------------
# the records: the runs' protocols and sources are docs/evaluation.md's. The same data under another harness, prompt
# or format is another protocol with its own name (``same_data_as``). The benchmarks with a capability group come
# first, in the order of ``densing trend --by benchmark``'s rows.

_OBSSCALING = "ObsScaling / Open LLM Leaderboard v1"

# the public table: ObsScaling (Open LLM Leaderboard v1) and the leaderboard v2 columns
register(
    BenchmarkRecord(
        "mmlu",
        chance=0.25,
        chance_source="4-way multiple choice (Hendrycks et al. 2021)",
        items=14042,
        split="test",
        items_source="MMLU test split (Hendrycks et al. 2021)",
        capability="knowledge",
        columns=("MMLU",),
        display="MMLU",
        runs=(
            Benchmark("mmlu", "mmlu", 5, note="5-shot, loss of the gold choice"),
            Benchmark("openllm_v1_mmlu", "mmlu", 5, metric="acc", note="5-shot, acc, dev-split exemplars"),
        ),
    )
)
register(
    BenchmarkRecord(
        # lm-eval offers one letter per option of the item, and 17% of the items have 3 to 9 options: the chance level is
        # the mean of 1/k over the items, not the 1/10 of the paper's (and the leaderboard's normalisation's) ten options
        "mmlu_pro",
        chance=186749 / 1684480,
        chance_source=(
            "(1/n) Σ 1/k over the 12,032 test items: 9,982 with 10 options, 2,050 with 3 to 9 "
            "(results/benchmark_items/mmlu_pro_options.csv, from the test split as TIGER-AI-Lab/MMLU-Pro's "
            "evaluation read it; python tools/chance_levels.py). 0.10 under the paper's 10 options "
            "(Wang et al. 2024, arXiv 2406.01574)"
        ),
        items=12032,
        split="test",
        items_source="MMLU-Pro test split (Wang et al. 2024, arXiv 2406.01574; lm-eval leaderboard_mmlu_pro)",
        capability="knowledge",
        columns=("leaderboard_mmlu_pro",),
        display="MMLU-Pro",
        runs=(Benchmark("leaderboard_mmlu_pro", "leaderboard_mmlu_pro", 5, metric="acc", note="5-shot, acc"),),
    )
)
register(
    BenchmarkRecord(
        "arc_challenge",
        chance=0.25,
        chance_source="4-way multiple choice (Clark et al. 2018)",
        items=1172,
        split="test",
        items_source="ARC-Challenge test split (Clark et al. 2018)",
        capability="knowledge",
        columns=("ARC-C",),
        runs=(
            Benchmark("arc_challenge", "arc_challenge", 0),
            Benchmark("openllm_v1_arc_challenge", "arc_challenge", 25, metric="acc_norm", note="25-shot, acc_norm"),
        ),
    )
)
register(
    BenchmarkRecord(
        "gpqa",
        chance=0.25,
        chance_source="4 options (Rein et al. 2023, arXiv 2311.12022)",
        items=1192,
        split="train",
        items_source=(
            "GPQA main 448 + diamond 198 + extended 546 (Rein et al. 2023, arXiv 2311.12022); lm-eval "
            "leaderboard_gpqa averages the three over their items. Diamond is part of main and main of extended: "
            "546 distinct questions, so √(S(1−S)/1192) understates the error when a question's repeats score alike"
        ),
        capability="knowledge",
        columns=("leaderboard_gpqa",),
        runs=(Benchmark("leaderboard_gpqa", "leaderboard_gpqa", 0, metric="acc_norm", note="0-shot, acc_norm"),),
    )
)
register(
    BenchmarkRecord(
        # lm-eval's group score (acc_norm, `aggregation: mean, weight_by_size: true`) is the mean over all items, so the
        # chance level is the item-weighted mean of 1/k over subtasks (the leaderboard's 0-100 scores normalise each
        # subtask instead). The chance level is what a model with no knowledge of the item scores: a uniform guess among
        # the item's options, 1/k. Answering each subtask's most frequent target scores more (0.3345), but a model can
        # only do so by knowing the test split's label counts, which its 3 exemplars do not give; that rate is the
        # sensitivity figure of the source text. "bbh" is densing eval's chain-of-thought exact match, whose floor is 0.
        "leaderboard_bbh",
        chance=109422332 / 379275435,
        chance_source=(
            "multiple choice with 2 to 19 options per subtask: Σ n/k / Σ n, a uniform guess among each item's "
            "k options, over its 24 subtasks' 5,761 items (k: leaderboard_v2_subtasks.csv; n: the "
            "BIG-Bench-Hard task files; python tools/chance_levels.py). Sensitivity: each subtask answered "
            "with its most frequent target scores 1927/5761 = 0.3345"
        ),
        items=5761,
        split="test",
        items_source=(
            "Open LLM Leaderboard v2 BBH (lm-eval leaderboard_bbh, multiple choice): 24 BIG-Bench-Hard tasks "
            "(Suzgun et al. 2022), per task in leaderboard_v2_subtasks.csv"
        ),
        capability="reasoning & math",
        columns=("leaderboard_bbh",),
        display="BBH",
        runs=(
            Benchmark(
                "leaderboard_bbh", "leaderboard_bbh", 3, metric="acc_norm", note="3-shot multiple choice, acc_norm"
            ),
        ),
    )
)
register(
    BenchmarkRecord(
        "musr",
        chance=3893 / 11340,
        chance_source=(
            "2, 5 and 3 options on 250, 256 and 250 items: the item-weighted mean of 1/k (leaderboard_v2_subtasks.csv)"
        ),
        items=756,
        split="test",
        items_source=(
            "MuSR murder_mysteries 250 + object_placements 256 + team_allocation 250 (Sprague et al. 2024, "
            "arXiv 2310.16049; lm-eval leaderboard_musr)"
        ),
        capability="reasoning & math",
        columns=("leaderboard_musr",),
        runs=(Benchmark("leaderboard_musr", "leaderboard_musr", 0, metric="acc_norm", note="0-shot, acc_norm"),),
    )
)
register(
    BenchmarkRecord(
        "gsm8k",
        chance=0.0,
        chance_source="generated answer scored by exact match: floor 0",
        items=1319,
        split="test",
        items_source="GSM8K test split (Cobbe et al. 2021)",
        capability="reasoning & math",
        columns=("GSM8K",),
        display="GSM8K",
        runs=(
            Benchmark(
                "gsm8k",
                "gsm8k_cot",
                8,
                "densing_gsm8k_loss",
                note="8-shot CoT, exact match; loss of the reference chain in the exemplars' form",
            ),
            Benchmark(
                "openllm_v1_gsm8k",
                "gsm8k",
                5,
                "densing_gsm8k_5shot_loss",
                metric="exact_match,strict-match",
                note="5-shot, exact match (strict-match); loss of the reference solution in the exemplars' form",
            ),
        ),
    )
)
register(
    BenchmarkRecord(
        "math_hard",
        chance=0.0,
        chance_source="generative exact match (MATH level 5, Hendrycks et al. 2021): floor 0",
        items=1324,
        split="test",
        items_source="MATH test split, level 5 of its 7 subjects (Hendrycks et al. 2021; lm-eval leaderboard_math_hard)",
        capability="reasoning & math",
        columns=("leaderboard_math_hard",),
        display="MATH-hard",
        runs=(
            Benchmark(
                "leaderboard_math_hard",
                "leaderboard_math_hard",
                4,
                "densing_leaderboard_math_hard_loss",
                metric="exact_match",
                note="4-shot Minerva prompt, level-5 problems, exact match",
            ),
        ),
    )
)
register(
    BenchmarkRecord(
        "humaneval",
        chance=0.0,
        chance_source="generated code scored by pass@k: floor 0",
        items=164,
        split="test",
        items_source="HumanEval (Chen et al. 2021)",
        capability="code",
        columns=("HumanEval",),
        display="HumanEval",
        runs=(
            Benchmark("humaneval", "humaneval", 0, "densing_humaneval_loss", note="0-shot, pass@1 (runs model code)"),
        ),
    )
)
register(
    BenchmarkRecord(
        "hellaswag",
        chance=0.25,
        chance_source="4-way multiple choice (Zellers et al. 2019)",
        items=10042,
        split="validation",
        items_source="HellaSwag validation split (Zellers et al. 2019)",
        capability="commonsense",
        columns=("HellaSwag",),
        display="HellaSwag",
        runs=(
            Benchmark("hellaswag", "hellaswag", 0),
            Benchmark(
                "openllm_v1_hellaswag", "hellaswag", 10, metric="acc_norm", note="10-shot, acc_norm, validation split"
            ),
        ),
    )
)
register(
    BenchmarkRecord(
        "winogrande",
        chance=0.5,
        chance_source="2-way multiple choice (Sakaguchi et al. 2020)",
        items=1267,
        split="validation",
        items_source="WinoGrande (xl) validation split (Sakaguchi et al. 2020)",
        capability="commonsense",
        columns=("Winograd",),
        display="WinoGrande",
        runs=(
            Benchmark("winogrande", "winogrande", 0),
            Benchmark("openllm_v1_winogrande", "winogrande", 5, metric="acc", note="5-shot, acc, validation split"),
        ),
    )
)

# the Swallow LLM Leaderboard's English tasks of pre-trained models (results/swallow/): each column is the benchmark's
# own name, with the leaderboard's shots
register(
    BenchmarkRecord(
        "swallow_mmlu",
        chance=0.25,
        chance_source="4-way multiple choice scored by accuracy",
        items=14042,
        split="test",
        items_source=(
            "Swallow leaderboard MMLU 5-shot (lm-eval 0.4.2 mmlu): the test split of 57 subjects (Hendrycks et "
            "al. 2021); the leaderboard's task file says 53 subjects, which it does not explain"
        ),
        capability="knowledge",
        columns=("swallow_mmlu",),
        shots=5,
        display="MMLU",
        runs=(Benchmark("swallow_mmlu", "mmlu", 5, metric="acc", note="5-shot, acc, dev-split exemplars"),),
        same_data_as=(
            "mmlu",
            (
                "same test split and 5 shots as the public table's MMLU (Open LLM Leaderboard v1 via "
                "ObsScaling), but lm-eval 0.4.2 and Swallow's prompt, not the v1 leaderboard's harness "
                "version and prompt; olmes_mmlu_mc is OLMES's multiple-choice format"
            ),
        ),
    )
)
register(
    BenchmarkRecord(
        "swallow_bbh",
        chance=0.0,
        chance_source="3-shot chain of thought, a generated answer scored by exact match: floor 0",
        items=6511,
        split="test",
        items_source=(
            "Swallow leaderboard BBH 3-shot CoT (lm-eval 0.4.2 bbh_cot_fewshot): the 27 subtasks' test items "
            "(Suzgun et al. 2022, 23 tasks); the 3 exemplars per subtask are written in the task configs, not "
            "drawn from the test items, so all 6,511 are scored"
        ),
        capability="reasoning & math",
        columns=("swallow_bbh",),
        shots=3,
        display="BBH CoT",
        runs=(
            Benchmark(
                "swallow_bbh",
                "bbh_cot_fewshot",
                3,
                None,
                metric="exact_match,get-answer",
                note="3-shot CoT, exact match; BBH has no reference chains of thought, so no conditional loss",
            ),
        ),
        same_data_as=(
            "leaderboard_bbh",
            (
                "same BIG-Bench Hard data, but 3-shot chain of thought scored by exact match on "
                "27 subtasks; leaderboard_bbh is multiple choice (acc_norm) on 24 subtasks, with "
                "a chance level above 0"
            ),
        ),
    )
)
register(
    BenchmarkRecord(
        "swallow_math",
        chance=0.0,
        chance_source="4-shot Minerva prompt, a generated answer scored by exact match: floor 0",
        items=500,
        split="test",
        items_source=(
            "Swallow leaderboard MATH 4-shot: MATH-500 (Lightman et al. 2023), 500 problems of MATH's test split "
            "(Hendrycks et al. 2021), the evaluation's own math_500 task with the 4 Minerva exemplars "
            "(swallow-evaluation v202411, column-path-key.csv); lm-eval's minerva_math500"
        ),
        capability="reasoning & math",
        columns=("swallow_math",),
        shots=4,
        display="MATH",
        runs=(
            Benchmark(
                "swallow_math",
                "minerva_math500",
                4,
                "densing_minerva_math500_loss",
                metric="exact_match",
                note="4-shot Minerva prompt, MATH-500, exact match",
            ),
        ),
        same_data_as=(
            "math_hard",
            (
                "MATH-500, 500 problems of MATH's test split at every level (4-shot Minerva prompt); "
                "math_hard is the level-5 subset of the whole test split"
            ),
        ),
    )
)
register(
    BenchmarkRecord(
        "swallow_gsm8k",
        chance=0.0,
        chance_source="4-shot, a generated answer scored by exact match: floor 0",
        items=1319,
        split="test",
        items_source="Swallow leaderboard GSM8K 4-shot: the test split (Cobbe et al. 2021); exemplars from the train split",
        capability="reasoning & math",
        columns=("swallow_gsm8k",),
        shots=4,
        display="GSM8K",
        runs=(
            Benchmark(
                "swallow_gsm8k",
                "gsm8k",
                4,
                "densing_gsm8k_4shot_loss",
                metric="exact_match,strict-match",
                note="4-shot, exact match (strict-match); loss of the reference solution in the exemplars' form",
            ),
        ),
        same_data_as=(
            "gsm8k",
            (
                "same test split, but 4 shots and Swallow's prompt; the public table's GSM8K is the Open "
                "LLM Leaderboard v1's 5-shot"
            ),
        ),
    )
)
register(
    BenchmarkRecord(
        "swallow_humaneval",
        chance=0.0,
        chance_source="0-shot generated code scored by pass@1: floor 0",
        items=164,
        split="test",
        items_source=(
            "Swallow leaderboard HumanEval 0-shot (bigcode harness humaneval-unstripped), pass@1 over 10 "
            "samples per problem: 164 problems (Chen et al. 2021); the binomial error over problems ignores the "
            "smaller sampling error of the 10 samples"
        ),
        capability="code",
        columns=("swallow_humaneval",),
        shots=0,
        display="HumanEval",
        runs=(
            Benchmark(
                "swallow_humaneval",
                "humaneval",
                0,
                "densing_humaneval_loss",
                metric="pass@1,create_test",
                note="0-shot, pass@1 of one greedy completion (runs model code); the leaderboard samples 10",
            ),
        ),
        same_data_as=(
            "humaneval",
            (
                "same 164 problems, but the bigcode harness's humaneval-unstripped (the prompt's final "
                "newline kept), pass@1 over 10 samples; ObsScaling's HumanEval is its own run"
            ),
        ),
    )
)

# the public table's benchmarks without a capability row
register(
    BenchmarkRecord(
        # mc2 is the probability mass on the true answers (Lin et al. 2022): equal probability on every answer of an item
        # with t true and f false answers scores t/(t + f), averaged over the items
        "truthfulqa_mc2",
        chance=0.4484092570815877,
        chance_source=(
            "(1/n) Σ t/(t + f) over the 817 items and their 5,882 mc2 answers, the MC2 score of equal "
            "probability on every answer (results/benchmark_items/truthfulqa_mc2_answers.csv, from "
            "TruthfulQA's original data/v0/mc_task.json; python tools/chance_levels.py)"
        ),
        items=817,
        split="validation",
        items_source="TruthfulQA validation split (Lin et al. 2022)",
        columns=("TruthfulQA",),
        runs=(
            Benchmark(
                "openllm_v1_truthfulqa_mc2", "truthfulqa_mc2", 0, metric="acc", note="0-shot, mc2 (lm-eval's acc)"
            ),
        ),
    )
)
register(BenchmarkRecord("xwinograd", columns=("XWinograd",)))  # multilingual: no item count, no chance level
register(
    BenchmarkRecord(
        # IFEval has no chance level: its score is the share of verifiable formatting instructions followed in free
        # generation, which random guessing does not define.
        "ifeval",
        columns=("leaderboard_ifeval",),
        runs=(
            Benchmark(
                "leaderboard_ifeval",
                "leaderboard_ifeval",
                0,
                metric="prompt_level_strict_acc",
                note="0-shot, strict accuracy; no reference response, so no conditional loss",
            ),
        ),
    )
)

# the paper's other benchmarks in its settings (Xiao et al. 2024, §3.1) and the common zero-shot set
register(
    BenchmarkRecord(
        "bbh",
        chance=0.0,
        chance_source="chain of thought scored by exact match: floor 0",
        runs=(
            Benchmark(
                "bbh",
                "bbh_cot_fewshot",
                3,
                None,
                note="3-shot CoT; BBH has no reference chains of thought, so no conditional loss",
            ),
        ),
    )
)
register(
    BenchmarkRecord(
        "math",
        chance=0.0,
        chance_source="generated answer scored by exact match: floor 0",
        runs=(Benchmark("math", "minerva_math", 4, "densing_minerva_math_loss", note="4-shot Minerva prompt"),),
    )
)
register(
    BenchmarkRecord(
        "mbpp",
        chance=0.0,
        chance_source="generated code scored by pass@k: floor 0",
        runs=(Benchmark("mbpp", "mbpp", 3, "densing_mbpp_loss", note="3-shot, pass@1 (runs model code)"),),
    )
)
for _name, _k, _items, _split, _what, _cite, _run in (
    ("arc_easy", 4, 2376, "test", "ARC-Easy test split", "Clark et al. 2018", True),
    ("piqa", 2, 1838, "validation", "PIQA validation split", "Bisk et al. 2020", True),
    ("sciq", 4, 1000, "test", "SciQ test split", "Welbl et al. 2017", False),
):
    register(
        BenchmarkRecord(
            _name,
            chance=1 / _k,
            chance_source=f"{_k}-way multiple choice ({_cite})",
            items=_items,
            split=_split,
            items_source=f"{_what} ({_cite})",
            runs=(Benchmark(_name, _name, 0),) if _run else (),
        )
    )
register(
    BenchmarkRecord(
        "lambada_openai",
        chance=0.0,
        chance_source="open-vocabulary last word: floor 0",
        items=5153,
        split="test",
        items_source="LAMBADA OpenAI test file (Paperno et al. 2016; lm-eval lambada_openai)",
        runs=(Benchmark("lambada_openai", "lambada_openai", 0),),
    )
)
register(BenchmarkRecord("lambada", chance=0.0, chance_source="open-vocabulary last word: floor 0"))

# OLMES ranked-classification tasks of AI2's OLMo ladder (densing.data.olmo), 1/k for k choices; the five densing eval
# runs in the OLMES RC 5-shot format on the local splits it uses
_RC = "OLMES RC 5-shot"
for _task, _k, _items, _split, _source, _run in (
    (
        "mmlu",
        4,
        14042,
        "test",
        "MMLU test split, 57 subjects (Hendrycks et al. 2021; HF cais/mmlu 'all' test)",
        "test split, four groups weighted as the ladder weights them",
    ),
    ("hellaswag", 4, 10042, "validation", "HellaSwag validation split (Zellers et al. 2019; HF Rowan/hellaswag)", None),
    ("arc_easy", 4, 2376, "test", "ARC-Easy test split (Clark et al. 2018; HF allenai/ai2_arc)", "test split"),
    (
        "arc_challenge",
        4,
        1172,
        "test",
        "ARC-Challenge test split (Clark et al. 2018; HF allenai/ai2_arc)",
        "test split",
    ),
    ("piqa", 2, 1838, "validation", "PIQA validation split (Bisk et al. 2020)", "dev split"),
    ("socialiqa", 3, 1954, "validation", "Social IQa validation split (Sap et al. 2019)", None),
    ("csqa", 5, 1221, "validation", "CommonsenseQA validation split (Talmor et al. 2019)", None),
    ("openbookqa", 4, 500, "test", "OpenBookQA test split (Mihaylov et al. 2018)", None),
    ("boolq", 2, 3270, "validation", "BoolQ validation split (Clark et al. 2019)", None),
    ("winogrande", 2, 1267, "validation", "WinoGrande (xl) validation split (Sakaguchi et al. 2020)", "dev split"),
):
    register(
        BenchmarkRecord(
            f"olmes_{_task}",
            chance=1 / _k,
            chance_source=f"{_k} choices",
            items=_items,
            split=_split,
            items_source=_source,
            runs=(Benchmark(f"olmes_{_task}", f"densing_olmes_{_task}", 5, style="olmes", note=f"{_RC}, {_run}"),)
            if _run
            else (),
        )
    )

# AI2's offline OLMES multiple-choice scores (densing.designs.olmes.data): item counts only
_OLMES_MC = "OLMES samples 1,000 items only from splits of more than 1,500; Gu et al. 2024, arXiv 2406.08446"
for _name, _items, _split, _source in (
    (
        "olmes_arc_challenge_mc",
        1172,
        "test",
        f"AI2's offline OLMES MC ARC-Challenge: the test split, not sampled ({_OLMES_MC})",
    ),
    (
        "olmes_hellaswag_mc",
        1000,
        "validation",
        (
            "AI2's offline OLMES MC HellaSwag: 1,000 items sampled from the 10,042 of the validation split "
            "(OLMES samples 1,000 from splits of more than 1,500; Gu et al. 2024, arXiv 2406.08446)"
        ),
    ),
    (
        "olmes_winogrande_mc",
        1267,
        "validation",
        (
            "AI2's offline OLMES MC WinoGrande: the (xl) validation split, not sampled (the test split has no "
            "labels; Gu et al. 2024, arXiv 2406.08446)"
        ),
    ),
    (
        "olmes_mmlu_mc",
        14042,
        "test",
        (
            "AI2's offline OLMES MC MMLU: the test split, a macro average over its 57 subjects (none above 1,500 "
            "items, so none sampled; Gu et al. 2024); the binomial error with the pooled count approximates the "
            "macro average's"
        ),
    ),
):
    register(BenchmarkRecord(_name, items=_items, split=_split, items_source=_source))

# a tidy table that names a benchmark by ObsScaling's own column name: item counts only (the wide table's columns are
# read as the records above name them)
for _name, _split, _items, _what in (
    ("MMLU", "test", 14042, "MMLU: test split (Hendrycks et al. 2021)"),
    ("ARC-C", "test", 1172, "ARC-Challenge (25-shot): test split (Clark et al. 2018)"),
    ("HellaSwag", "validation", 10042, "HellaSwag (10-shot): validation split (Zellers et al. 2019)"),
    ("Winograd", "validation", 1267, "WinoGrande (5-shot): validation split (Sakaguchi et al. 2020)"),
    ("TruthfulQA", "validation", 817, "TruthfulQA mc2: validation split (Lin et al. 2022)"),
    ("GSM8K", "test", 1319, "GSM8K (5-shot): test split (Cobbe et al. 2021)"),
):
    register(BenchmarkRecord(_name, items=_items, split=_split, items_source=f"{_OBSSCALING} {_what}"))
register(
    BenchmarkRecord("HumanEval", items=164, split="test", items_source="ObsScaling HumanEval pass@1 (Chen et al. 2021)")
)


def item_counts() -> pd.DataFrame:
    """The registered item counts as a table: benchmark, split, items, source."""
    rows = [(name, BENCHMARKS[name].split, items, BENCHMARKS[name].items_source) for name, items in ITEM_COUNTS.items()]
    return pd.DataFrame(rows, columns=["benchmark", "split", "items", "source"])


def item_count(benchmark: str) -> int:
    """Number of items of ``benchmark``'s evaluated split; InputError if its record has none."""
    if benchmark not in ITEM_COUNTS:
        raise InputError(
            f"benchmark {benchmark!r}: no item count in the benchmark registry; give a 'stderr' column instead"
        )
    return int(ITEM_COUNTS[benchmark])


def binomial_stderr(score, benchmark: str) -> np.ndarray:
    """√(S(1 − S)/n) for scores S on ``benchmark`` (n from the item-count table)."""
    s = np.clip(np.asarray(score, float), 0.0, 1.0)
    return np.sqrt(s * (1.0 - s) / item_count(benchmark))


def with_stderr(targets: pd.DataFrame) -> pd.DataFrame:
    """Fill a missing score standard error with the binomial √(S(1 − S)/n), n the benchmark's item count."""
    given = targets["stderr"] if "stderr" in targets.columns else pd.Series(np.nan, index=targets.index)
    missing = (given.isna() & targets["benchmark"].isin(set(ITEM_COUNTS))).to_numpy()
    if "stderr" in targets.columns and not missing.any():
        return targets  # nothing to fill (a table this function already filled, say): no copy
    stderr = given.to_numpy(float).copy()
    values, names = targets["value"].to_numpy(float), targets["benchmark"].astype(str).to_numpy()
    for benchmark in np.unique(names[missing]):  # by position: a table's index need not be unique
        rows = missing & (names == benchmark)
        stderr[rows] = binomial_stderr(values[rows], str(benchmark))
    return targets.assign(stderr=stderr)
