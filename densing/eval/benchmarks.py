"""Benchmarks densing knows by name, in the settings of Xiao et al. 2024 (§3.1), over lm-eval tasks.

A :class:`Benchmark` names the lm-eval task (or group) of the score, the shots, and for a generative task a companion
``loglikelihood`` task (in ``densing/eval/tasks``) scoring the reference solution after the same prompt: the
conditional loss −log P(answer | prompt) (§2.2). Any other lm-eval task name is a benchmark too; a generative task
``T`` gets its loss from a task named ``T_loss`` when one exists.
"""

from __future__ import annotations

from pathlib import Path

from densing.data.benchmarks import RUNS, Benchmark, record_of_run
from densing.eval.tasks.oe_eval_requests import REQUEST_SETS, task_name
from densing.registry import Registry

TASKS_DIRECTORY = Path(__file__).parent / "tasks"

#: Every benchmark run densing knows: the records' runs (:data:`densing.data.benchmarks.RUNS`), AI2's request sets.
KNOWN_BENCHMARKS: Registry[Benchmark] = RUNS
#: lm-eval's prompts and metrics on the local splits (``densing eval --local-data``), with the v1 and Swallow
#: leaderboards' shots. MMLU draws its exemplars from the local dev split; ARC, WinoGrande and GSM8K have no local
#: training split, so theirs come from the evaluated split itself (never the item being scored). HellaSwag and
#: TruthfulQA have no local split; MATH-500 is read from the shipped MATH test split (``densing/eval/tasks/data/math``).
LOCAL_BENCHMARKS: dict[str, Benchmark] = {
    b.name: b
    for b in (
        Benchmark("mmlu", "densing_local_mmlu", 5, note="5-shot, local test split, dev-split exemplars"),
        Benchmark(
            "bbh",
            "densing_local_bbh_cot_fewshot",
            3,
            None,
            note="3-shot CoT, 27 local task files, lm-eval's exemplars; no conditional loss",
        ),
        Benchmark(
            "humaneval",
            "densing_local_humaneval",
            0,
            "densing_local_humaneval_loss",
            note="0-shot, pass@1 (runs model code), local original file",
        ),
        Benchmark(
            "mbpp",
            "densing_local_mbpp",
            3,
            "densing_local_mbpp_loss",
            note="3-shot, pass@1 (runs model code), local original file, test = task_ids 11-510",
        ),
        Benchmark(
            "gsm8k",
            "densing_local_gsm8k_cot",
            8,
            "densing_local_gsm8k_loss",
            note="8-shot CoT, exact match, local test split",
        ),
        Benchmark("arc_easy", "densing_local_arc_easy", 0, note="local test split"),
        Benchmark("arc_challenge", "densing_local_arc_challenge", 0, note="local test split"),
        Benchmark("piqa", "densing_local_piqa", 0, note="local dev split (lm-eval's validation)"),
        Benchmark("winogrande", "densing_local_winogrande", 0, note="local dev split (lm-eval's validation)"),
        Benchmark("lambada_openai", "densing_local_lambada_openai", 0, note="local OpenAI LAMBADA test file"),
        Benchmark(
            "openllm_v1_arc_challenge",
            "densing_local_arc_challenge",
            25,
            metric="acc_norm",
            note="25-shot, acc_norm, local test split (exemplars from the same split)",
        ),
        Benchmark(
            "openllm_v1_mmlu",
            "densing_local_mmlu",
            5,
            metric="acc",
            note="5-shot, acc, local test split, dev-split exemplars",
        ),
        Benchmark(
            "openllm_v1_winogrande",
            "densing_local_winogrande",
            5,
            metric="acc",
            note="5-shot, acc, local dev split (exemplars from the same split)",
        ),
        Benchmark(
            "openllm_v1_gsm8k",
            "densing_local_gsm8k",
            5,
            "densing_local_gsm8k_5shot_loss",
            metric="exact_match,strict-match",
            note="5-shot, exact match (strict-match), local test split (exemplars from the same split)",
        ),
        Benchmark(
            "swallow_mmlu",
            "densing_local_mmlu",
            5,
            metric="acc",
            note="5-shot, acc, local test split, dev-split exemplars",
        ),
        Benchmark(
            "swallow_bbh",
            "densing_local_bbh_cot_fewshot",
            3,
            None,
            metric="exact_match,get-answer",
            note="3-shot CoT, exact match, 27 local task files, lm-eval's exemplars; no conditional loss",
        ),
        Benchmark(
            "swallow_math",
            "densing_local_minerva_math500",
            4,
            "densing_local_minerva_math500_loss",
            metric="exact_match",
            note="4-shot Minerva prompt, MATH-500 from the shipped MATH test split, exact match",
        ),
        Benchmark(
            "swallow_gsm8k",
            "densing_local_gsm8k",
            4,
            "densing_local_gsm8k_4shot_loss",
            metric="exact_match,strict-match",
            note="4-shot, exact match (strict-match), local test split (exemplars from the same split)",
        ),
        Benchmark(
            "swallow_humaneval",
            "densing_local_humaneval",
            0,
            "densing_local_humaneval_loss",
            metric="pass@1,create_test",
            note="0-shot, pass@1 of one greedy completion (runs model code), local original file",
        ),
    )
}
#: The OLMES ranked-classification 5-shot format of the OLMo ladder, on the local splits it uses (the records' runs
#: of style ``olmes``).
OLMES_BENCHMARKS: dict[str, Benchmark] = {name: b for name, b in KNOWN_BENCHMARKS.items() if b.style == "olmes"}


#: AI2's own request sets of the ladder (``olmo_<task>_<variant>``), scored as the ladder scores them
#: (:mod:`densing.eval.tasks.oe_eval_requests`); each registered here, a record of that run alone.
OLMO_REQUEST_BENCHMARKS: dict[str, Benchmark] = {
    f"olmo_{task}_{variant}": Benchmark(
        f"olmo_{task}_{variant}",
        task_name(task, variant),
        0,
        style="olmes",
        note=f"AI2's in-loop request set {task}/{variant}, requests verbatim",
    )
    for task, variant in REQUEST_SETS
}
for _name, _benchmark in OLMO_REQUEST_BENCHMARKS.items():
    KNOWN_BENCHMARKS.register(_name, _benchmark)

#: Named sets of benchmark runs (``densing eval --suite NAME``), each a public protocol (its runs' records say its
#: sources): the Open LLM Leaderboard v1 (the public table's MMLU … GSM8K columns) and v2 (its ``leaderboard_*``
#: columns), and the Swallow LLM Leaderboard's English tasks of pre-trained models.
SUITES: dict[str, tuple[str, ...]] = {
    "leaderboard-v1": (
        "openllm_v1_arc_challenge",
        "openllm_v1_hellaswag",
        "openllm_v1_mmlu",
        "openllm_v1_truthfulqa_mc2",
        "openllm_v1_winogrande",
        "openllm_v1_gsm8k",
    ),
    "leaderboard-v2": (
        "leaderboard_bbh",
        "leaderboard_gpqa",
        "leaderboard_ifeval",
        "leaderboard_math_hard",
        "leaderboard_mmlu_pro",
        "leaderboard_musr",
    ),
    "swallow-en": ("swallow_mmlu", "swallow_bbh", "swallow_math", "swallow_gsm8k", "swallow_humaneval"),
}
#: The target tables (under ``densing.paths.RESULTS``) of the Open LLM Leaderboard suites, and of the Swallow LLM
#: Leaderboard's pre-trained models (2025-06 file).
PUBLIC_TABLE = "public_models.csv"
SWALLOW_TABLE = "swallow/swallow_2025-06.csv"
#: Each suite → the table whose models ``densing measure`` places a user's against (else :data:`PUBLIC_TABLE`).
SUITE_TABLES: dict[str, str] = {
    "leaderboard-v1": PUBLIC_TABLE,
    "leaderboard-v2": PUBLIC_TABLE,
    "swallow-en": SWALLOW_TABLE,
}
#: Each suite benchmark → the benchmark of the same score (metric ``score``) in its suite's target table
#: (:data:`SUITE_TABLES`), which ``densing trend`` inverts and ``densing measure`` places a user's models against;
#: the run's ``Benchmark.metric`` is the table's.
PUBLIC_TABLE_BENCHMARKS: dict[str, str] = {run: record_of_run(run).name for runs in SUITES.values() for run in runs}
#: Benchmarks whose score task executes generated code (lm-eval's ``unsafe_code``).
UNSAFE_CODE_BENCHMARKS = frozenset({"humaneval", "mbpp", "swallow_humaneval"})


def register(benchmark: Benchmark) -> Benchmark:
    """Add ``benchmark`` to :data:`KNOWN_BENCHMARKS` as :meth:`densing.data.benchmarks.RunRegistry.register` does (a
    benchmark with a chance level, an item count or a table column: :func:`densing.data.benchmarks.register`)."""
    return KNOWN_BENCHMARKS.register(benchmark.name, benchmark)


def suite_benchmarks(name: str, *, local_data: bool = False) -> tuple[list[str], list[str]]:
    """The benchmarks of suite ``name``, and those left out (``local_data``: without a local split); else InputError."""
    from densing.errors import InputError

    if name not in SUITES:
        raise InputError(f"--suite: unknown suite {name!r} (known: {', '.join(SUITES)})")
    members = list(SUITES[name])
    if not local_data:
        return members, []
    return [b for b in members if b in LOCAL_BENCHMARKS], [b for b in members if b not in LOCAL_BENCHMARKS]


def suite_table(name: str):
    """The target table of suite ``name`` (:data:`SUITE_TABLES`) as a path under ``densing.paths.RESULTS``."""
    from densing.paths import RESULTS

    return RESULTS / SUITE_TABLES.get(name, PUBLIC_TABLE)


def parse_benchmark_list(text: str) -> list[str]:
    """``"mmlu, bbh,mmlu"`` → ``["mmlu", "bbh"]`` (order kept, duplicates dropped)."""
    return list(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))


def benchmark_registry(local_data: bool) -> dict[str, Benchmark]:
    """Known benchmarks, or with ``local_data`` their local-file versions (and the always local OLMES ones)."""
    if local_data:
        return {**LOCAL_BENCHMARKS, **OLMES_BENCHMARKS, **OLMO_REQUEST_BENCHMARKS}
    return KNOWN_BENCHMARKS


def benchmark_table(local_data: bool = False):
    """One row per benchmark densing knows (``densing eval --list``; ``local_data``: the offline registry's)."""
    import pandas as pd

    registry = benchmark_registry(local_data)
    return pd.DataFrame(
        [
            {
                "benchmark": name,
                "score_task": b.score_task,
                "loss_task": b.loss_task or "",
                "shots": "task default" if b.num_fewshot is None else b.num_fewshot,
                "metric": b.metric or "task default",
                "style": b.style,
                "note": b.note,
            }
            for name, b in sorted(registry.items())
        ]
    )
