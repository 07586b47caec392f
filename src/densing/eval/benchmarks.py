"""Benchmarks densing knows by name, in the settings of Xiao et al. 2024 (§3.1), over lm-eval tasks.

A :class:`Benchmark` names the lm-eval task (or group) whose metrics are the score, the number of
few-shot examples, and — for generative tasks — a companion ``loglikelihood`` task that scores
the reference solution as the continuation of the same prompt, which gives the conditional loss
−log P(answer | prompt) (§2.2). For multiple-choice and loglikelihood tasks the loss comes from
the score task's own requests (the gold continuation), so no companion is needed.

The score tasks are lm-eval's own configs; the companion tasks are shipped as lm-eval YAML in
``densing/eval/tasks`` and loaded through ``TaskManager(include_path=...)``.

Two more sets run on local files (the original splits in ``<data root>/benchmarks``, see
:mod:`densing.eval.tasks.local_data`), so nothing is fetched from the Hub:

- :data:`LOCAL_BENCHMARKS`: the same benchmark names with lm-eval's own prompts and metrics, chosen
  with ``densing eval --local-data``;
- :data:`OLMES_BENCHMARKS` (``olmes_arc_easy`` …): the OLMES ranked-classification 5-shot format of
  AI2's OLMo ladder, scored as the ladder scores them (``len_norm`` accuracy, bits per byte of the
  correct answer; :mod:`densing.eval.olmes`), so a model can be inverted through the ladder's fits;
- :data:`OLMO_REQUEST_BENCHMARKS` (``olmo_hellaswag_rc_5shot`` …): AI2's own in-loop request sets
  of the ladder, verbatim, scored the same way (:mod:`densing.eval.tasks.oe_eval_requests`).

Any other lm-eval task name (built in, or found in a user ``--include-path``) can be used as a
benchmark too: its kind is read from the task's ``output_type``, and a generative task ``T`` gets
its loss from a task named ``T_loss`` when one exists.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from densing.data.readers import LEADERBOARD_V2_TABLE_NAMES
from densing.registry import Registry

TASKS_DIRECTORY = Path(__file__).parent / "tasks"


@dataclass(frozen=True)
class Benchmark:
    """One benchmark of a sweep: what lm-eval runs for the score and for the conditional loss."""

    name: str
    score_task: str
    num_fewshot: int | None = None
    loss_task: str | None = None
    note: str = ""
    style: str = "lm-eval"  # "olmes": rows scored as the OLMo ladder scores them (densing.eval.olmes)
    metric: str | None = None  # the headline metric where a protocol names one (as the store writes it)

    def tasks(self) -> list[str]:
        return [self.score_task] + ([self.loss_task] if self.loss_task and self.loss_task != self.score_task else [])


#: The paper's five benchmarks in its settings, and the common zero-shot multiple-choice set (a
#: :class:`densing.registry.Registry`; the OLMES, OLMo-request, leaderboard and Swallow benchmarks below join it).
KNOWN_BENCHMARKS: Registry[Benchmark] = Registry("benchmark", (
    (b.name, b)
    for b in (
        Benchmark("mmlu", "mmlu", 5, note="5-shot, loss of the gold choice"),
        Benchmark(
            "bbh",
            "bbh_cot_fewshot",
            3,
            None,
            note="3-shot CoT; BBH has no reference chains of thought, so no conditional loss",
        ),
        Benchmark("math", "minerva_math", 4, "densing_minerva_math_loss", note="4-shot Minerva prompt"),
        Benchmark("humaneval", "humaneval", 0, "densing_humaneval_loss", note="0-shot, pass@1 (runs model code)"),
        Benchmark("mbpp", "mbpp", 3, "densing_mbpp_loss", note="3-shot, pass@1 (runs model code)"),
        Benchmark(
            "gsm8k", "gsm8k_cot", 8, "densing_gsm8k_loss",
            note="8-shot CoT, exact match; loss of the reference chain in the exemplars' form",
        ),
        Benchmark("arc_easy", "arc_easy", 0),
        Benchmark("arc_challenge", "arc_challenge", 0),
        Benchmark("hellaswag", "hellaswag", 0),
        Benchmark("piqa", "piqa", 0),
        Benchmark("winogrande", "winogrande", 0),
        Benchmark("lambada_openai", "lambada_openai", 0),
    )
))
#: lm-eval's prompts and metrics on the local splits (``densing eval --local-data``).
LOCAL_BENCHMARKS: dict[str, Benchmark] = {
    b.name: b
    for b in (
        Benchmark("mmlu", "densing_local_mmlu", 5, note="5-shot, local test split, dev-split exemplars"),
        Benchmark(
            "bbh", "densing_local_bbh_cot_fewshot", 3, None,
            note="3-shot CoT, 27 local task files, lm-eval's exemplars; no conditional loss",
        ),
        Benchmark(
            "humaneval", "densing_local_humaneval", 0, "densing_local_humaneval_loss",
            note="0-shot, pass@1 (runs model code), local original file",
        ),
        Benchmark(
            "mbpp", "densing_local_mbpp", 3, "densing_local_mbpp_loss",
            note="3-shot, pass@1 (runs model code), local original file, test = task_ids 11-510",
        ),
        Benchmark(
            "gsm8k", "densing_local_gsm8k_cot", 8, "densing_local_gsm8k_loss",
            note="8-shot CoT, exact match, local test split",
        ),
        Benchmark("arc_easy", "densing_local_arc_easy", 0, note="local test split"),
        Benchmark("arc_challenge", "densing_local_arc_challenge", 0, note="local test split"),
        Benchmark("piqa", "densing_local_piqa", 0, note="local dev split (lm-eval's validation)"),
        Benchmark("winogrande", "densing_local_winogrande", 0, note="local dev split (lm-eval's validation)"),
        Benchmark("lambada_openai", "densing_local_lambada_openai", 0, note="local OpenAI LAMBADA test file"),
    )
}
#: The OLMES ranked-classification 5-shot format of the OLMo ladder, on the local splits it uses.
OLMES_BENCHMARKS: dict[str, Benchmark] = {
    b.name: b
    for b in (
        Benchmark("olmes_arc_easy", "densing_olmes_arc_easy", 5, style="olmes", note="OLMES RC 5-shot, test split"),
        Benchmark("olmes_arc_challenge", "densing_olmes_arc_challenge", 5, style="olmes", note="OLMES RC 5-shot, test split"),
        Benchmark("olmes_piqa", "densing_olmes_piqa", 5, style="olmes", note="OLMES RC 5-shot, dev split"),
        Benchmark("olmes_winogrande", "densing_olmes_winogrande", 5, style="olmes", note="OLMES RC 5-shot, dev split"),
        Benchmark(
            "olmes_mmlu", "densing_olmes_mmlu", 5, style="olmes",
            note="OLMES RC 5-shot, test split, four groups weighted as the ladder weights them",
        ),
    )
}



def _olmo_request_benchmarks() -> dict[str, Benchmark]:
    from densing.eval.tasks.oe_eval_requests import REQUEST_SETS, task_name

    return {
        f"olmo_{task}_{variant}": Benchmark(
            f"olmo_{task}_{variant}", task_name(task, variant), 0, style="olmes",
            note=f"AI2's in-loop request set {task}/{variant}, requests verbatim",
        )
        for task, variant in REQUEST_SETS
    }


#: AI2's own request sets of the ladder (``olmo_<task>_<variant>``, e.g. ``olmo_hellaswag_rc_5shot``,
#: ``olmo_arc_easy_test_rc_5shot``), read from ``<data root>/olmo_ladder/oe_eval_tasks`` and scored
#: as the ladder scores them (:mod:`densing.eval.tasks.oe_eval_requests`).
OLMO_REQUEST_BENCHMARKS: dict[str, Benchmark] = _olmo_request_benchmarks()
KNOWN_BENCHMARKS.update(OLMES_BENCHMARKS)
KNOWN_BENCHMARKS.update(OLMO_REQUEST_BENCHMARKS)


#: The Open LLM Leaderboard v1 protocol, the one of the public table's MMLU … GSM8K columns
#: (``results/public_models.csv``, from ObsScaling: Ruan et al. 2024, arXiv:2405.10938, which takes
#: them from the leaderboard). Source: the leaderboard's "About" page, archived as
#: https://huggingface.co/docs/leaderboards/en/open_llm_leaderboard/archive — ARC-Challenge 25-shot
#: acc_norm, HellaSwag 10-shot acc_norm, MMLU 5-shot acc, TruthfulQA 0-shot mc2, WinoGrande 5-shot
#: acc, GSM8K 5-shot exact match (strict match of the number after "####"). lm-eval ships no v1
#: group, so each benchmark is lm-eval's own task with the leaderboard's number of shots; lm-eval's
#: ``truthfulqa_mc2`` reports mc2 under the name ``acc``.
LEADERBOARD_V1_BENCHMARKS: dict[str, Benchmark] = {
    b.name: b
    for b in (
        Benchmark("openllm_v1_arc_challenge", "arc_challenge", 25, metric="acc_norm", note="25-shot, acc_norm"),
        Benchmark("openllm_v1_hellaswag", "hellaswag", 10, metric="acc_norm", note="10-shot, acc_norm, validation split"),
        Benchmark("openllm_v1_mmlu", "mmlu", 5, metric="acc", note="5-shot, acc, dev-split exemplars"),
        Benchmark("openllm_v1_truthfulqa_mc2", "truthfulqa_mc2", 0, metric="acc", note="0-shot, mc2 (lm-eval's acc)"),
        Benchmark("openllm_v1_winogrande", "winogrande", 5, metric="acc", note="5-shot, acc, validation split"),
        Benchmark(
            "openllm_v1_gsm8k", "gsm8k", 5, "densing_gsm8k_5shot_loss", metric="exact_match,strict-match",
            note="5-shot, exact match (strict-match); loss of the reference solution in the exemplars' form",
        ),
    )
}
#: The Open LLM Leaderboard v2 protocol, the one of the public table's ``leaderboard_*`` columns: lm-eval's
#: ``leaderboard`` group (lm_eval/tasks/leaderboard/leaderboard.yaml and its README), each member with
#: the shots and metric of its own config (BBH 3-shot, GPQA 0-shot, IFEval 0-shot, MATH level 5
#: 4-shot, MMLU-Pro 5-shot, MuSR 0-shot). Base models run without a chat template, as the
#: leaderboard ran them.
LEADERBOARD_V2_BENCHMARKS: dict[str, Benchmark] = {
    b.name: b
    for b in (
        Benchmark("leaderboard_bbh", "leaderboard_bbh", 3, metric="acc_norm", note="3-shot multiple choice, acc_norm"),
        Benchmark("leaderboard_gpqa", "leaderboard_gpqa", 0, metric="acc_norm", note="0-shot, acc_norm"),
        Benchmark(
            "leaderboard_ifeval", "leaderboard_ifeval", 0, metric="prompt_level_strict_acc",
            note="0-shot, strict accuracy; no reference response, so no conditional loss",
        ),
        Benchmark(
            "leaderboard_math_hard", "leaderboard_math_hard", 4, "densing_leaderboard_math_hard_loss",
            metric="exact_match", note="4-shot Minerva prompt, level-5 problems, exact match",
        ),
        Benchmark("leaderboard_mmlu_pro", "leaderboard_mmlu_pro", 5, metric="acc", note="5-shot, acc"),
        Benchmark("leaderboard_musr", "leaderboard_musr", 0, metric="acc_norm", note="0-shot, acc_norm"),
    )
}
#: The v1 benchmarks on the local splits (``--local-data``): lm-eval's prompts and metrics with the
#: leaderboard's shots. MMLU draws its exemplars from the local dev split, as the protocol does; ARC,
#: WinoGrande and GSM8K have no local training split, so their exemplars come from the evaluated split
#: itself (never the item being scored) — the same prompt format, other exemplars. HellaSwag and
#: TruthfulQA have no local split.
LOCAL_LEADERBOARD_V1_BENCHMARKS: dict[str, Benchmark] = {
    b.name: b
    for b in (
        Benchmark(
            "openllm_v1_arc_challenge", "densing_local_arc_challenge", 25, metric="acc_norm",
            note="25-shot, acc_norm, local test split (exemplars from the same split)",
        ),
        Benchmark("openllm_v1_mmlu", "densing_local_mmlu", 5, metric="acc", note="5-shot, acc, local test split, dev-split exemplars"),
        Benchmark(
            "openllm_v1_winogrande", "densing_local_winogrande", 5, metric="acc",
            note="5-shot, acc, local dev split (exemplars from the same split)",
        ),
        Benchmark(
            "openllm_v1_gsm8k", "densing_local_gsm8k", 5, "densing_local_gsm8k_5shot_loss", metric="exact_match,strict-match",
            note="5-shot, exact match (strict-match), local test split (exemplars from the same split)",
        ),
    )
}
#: The Swallow LLM Leaderboard's English tasks of the Densing Law paper's kind, in the protocol of its
#: pre-trained models (``task_2025-06.yml``, ``en_basic``; the evaluation scripts of swallow-llm/swallow-evaluation
#: v202411, run with lm-evaluation-harness 0.4.2 and the bigcode harness): MMLU 5-shot accuracy, BBH 3-shot chain
#: of thought exact match (``bbh_cot_fewshot``, answer filter ``get-answer``), MATH 4-shot Minerva prompt exact
#: match on MATH-500 (Lightman et al. 2023's 500 test problems; the leaderboard's ``math_500`` task), GSM8K
#: 4-shot exact match (lm-eval's ``gsm8k``, strict match of the number after "####"), HumanEval 0-shot pass@1.
#: Each is lm-eval's own task with the leaderboard's shots. What differs from the leaderboard's runs
#: (docs/evaluation.md): HumanEval is lm-eval's greedy ``humaneval`` (one greedy completion), not the bigcode
#: harness's ``humaneval-unstripped`` with 10 samples at temperature 0.2; MATH is lm-eval's ``minerva_math500``,
#: whose answer is read from "Final Answer: The final answer is …" only (the leaderboard's task also reads the
#: last ``\boxed{}``) and generation stops at "Problem:" only.
SWALLOW_BENCHMARKS: dict[str, Benchmark] = {
    b.name: b
    for b in (
        Benchmark("swallow_mmlu", "mmlu", 5, metric="acc", note="5-shot, acc, dev-split exemplars"),
        Benchmark(
            "swallow_bbh", "bbh_cot_fewshot", 3, None, metric="exact_match,get-answer",
            note="3-shot CoT, exact match; BBH has no reference chains of thought, so no conditional loss",
        ),
        Benchmark(
            "swallow_math", "minerva_math500", 4, "densing_minerva_math500_loss", metric="exact_match",
            note="4-shot Minerva prompt, MATH-500, exact match",
        ),
        Benchmark(
            "swallow_gsm8k", "gsm8k", 4, "densing_gsm8k_4shot_loss", metric="exact_match,strict-match",
            note="4-shot, exact match (strict-match); loss of the reference solution in the exemplars' form",
        ),
        Benchmark(
            "swallow_humaneval", "humaneval", 0, "densing_humaneval_loss", metric="pass@1,create_test",
            note="0-shot, pass@1 of one greedy completion (runs model code); the leaderboard samples 10",
        ),
    )
}
#: The Swallow benchmarks on the local splits (``--local-data``): the same prompts, shots and metrics. MATH-500
#: is read from the MATH test split shipped with densing (``densing/eval/tasks/data/math``); GSM8K has no local
#: training split, so its exemplars come from the test split itself (never the item being scored).
LOCAL_SWALLOW_BENCHMARKS: dict[str, Benchmark] = {
    b.name: b
    for b in (
        Benchmark("swallow_mmlu", "densing_local_mmlu", 5, metric="acc", note="5-shot, acc, local test split, dev-split exemplars"),
        Benchmark(
            "swallow_bbh", "densing_local_bbh_cot_fewshot", 3, None, metric="exact_match,get-answer",
            note="3-shot CoT, exact match, 27 local task files, lm-eval's exemplars; no conditional loss",
        ),
        Benchmark(
            "swallow_math", "densing_local_minerva_math500", 4, "densing_local_minerva_math500_loss", metric="exact_match",
            note="4-shot Minerva prompt, MATH-500 from the shipped MATH test split, exact match",
        ),
        Benchmark(
            "swallow_gsm8k", "densing_local_gsm8k", 4, "densing_local_gsm8k_4shot_loss", metric="exact_match,strict-match",
            note="4-shot, exact match (strict-match), local test split (exemplars from the same split)",
        ),
        Benchmark(
            "swallow_humaneval", "densing_local_humaneval", 0, "densing_local_humaneval_loss", metric="pass@1,create_test",
            note="0-shot, pass@1 of one greedy completion (runs model code), local original file",
        ),
    )
}
#: Named sets of benchmarks (``densing eval --suite NAME``), each reproducing a public protocol.
SUITES: dict[str, tuple[str, ...]] = {
    "leaderboard-v1": tuple(LEADERBOARD_V1_BENCHMARKS),
    "leaderboard-v2": tuple(LEADERBOARD_V2_BENCHMARKS),
    "swallow-en": tuple(SWALLOW_BENCHMARKS),
}
#: The public target table of the Open LLM Leaderboard suites (under ``densing.paths.RESULTS``).
PUBLIC_TABLE = "public_models.csv"
#: The Swallow LLM Leaderboard's table of pre-trained models (2025-06 file), under ``densing.paths.RESULTS``.
SWALLOW_TABLE = "swallow/swallow_2025-06.csv"
#: Each suite → the table (under ``densing.paths.RESULTS``) whose models ``densing measure`` places a user's against;
#: a suite not named here uses :data:`PUBLIC_TABLE`.
SUITE_TABLES: dict[str, str] = {
    "leaderboard-v1": PUBLIC_TABLE,
    "leaderboard-v2": PUBLIC_TABLE,
    "swallow-en": SWALLOW_TABLE,
}
#: Each suite benchmark → the benchmark name of the same score in its suite's target table
#: (:data:`SUITE_TABLES`; ``results/public_models.csv`` for the leaderboard suites, metric ``score``), which
#: ``densing trend`` inverts and ``densing measure`` places a user's models against. The suite's metric (``Benchmark.metric``) is the
#: table's: acc_norm for ARC and HellaSwag, mc2 for TruthfulQA, strict match for GSM8K (v1); each v2
#: member's own (:data:`LEADERBOARD_V2_BENCHMARKS`).
PUBLIC_TABLE_BENCHMARKS: dict[str, str] = {
    "openllm_v1_arc_challenge": "arc_challenge",
    "openllm_v1_hellaswag": "hellaswag",
    "openllm_v1_mmlu": "mmlu",
    "openllm_v1_truthfulqa_mc2": "truthfulqa_mc2",
    "openllm_v1_winogrande": "winogrande",
    "openllm_v1_gsm8k": "gsm8k",
    **LEADERBOARD_V2_TABLE_NAMES,
    # the Swallow table (SWALLOW_TABLE) names its benchmarks as the suite does
    **{name: name for name in SWALLOW_BENCHMARKS},
}
KNOWN_BENCHMARKS.update(LEADERBOARD_V1_BENCHMARKS)
KNOWN_BENCHMARKS.update(LEADERBOARD_V2_BENCHMARKS)
KNOWN_BENCHMARKS.update(SWALLOW_BENCHMARKS)
LOCAL_BENCHMARKS.update(LOCAL_LEADERBOARD_V1_BENCHMARKS)
LOCAL_BENCHMARKS.update(LOCAL_SWALLOW_BENCHMARKS)
#: Benchmarks whose score task executes generated code (lm-eval's ``unsafe_code``).
UNSAFE_CODE_BENCHMARKS = frozenset({"humaneval", "mbpp", "swallow_humaneval"})


def register(benchmark: Benchmark) -> Benchmark:
    """Add ``benchmark`` to :data:`KNOWN_BENCHMARKS` (its name must be new: else a
    :class:`densing.errors.RegistryError`); ``densing eval --benchmarks`` then runs it by name."""
    return KNOWN_BENCHMARKS.register(benchmark.name, benchmark)


def get(name: str) -> Benchmark:
    """The known benchmark ``name``; an unknown name is an :class:`densing.errors.InputError` listing the known ones."""
    return KNOWN_BENCHMARKS.get(name)


def suite_benchmarks(name: str, *, local_data: bool = False) -> tuple[list[str], list[str]]:
    """The benchmark names of suite ``name``, and those left out: with ``local_data``, the members
    that have no local split. An unknown suite is an :class:`InputError` naming the known ones."""
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
    names: list[str] = []
    for part in text.split(","):
        name = part.strip()
        if name and name not in names:
            names.append(name)
    return names


def benchmark_registry(local_data: bool) -> dict[str, Benchmark]:
    """Known benchmarks: lm-eval's Hub-backed tasks, or with ``local_data`` their local-file
    versions (plus the OLMES ones, which are always local)."""
    if local_data:
        return {**LOCAL_BENCHMARKS, **OLMES_BENCHMARKS, **OLMO_REQUEST_BENCHMARKS}
    return KNOWN_BENCHMARKS


def benchmark_table(local_data: bool = False):
    """One row per benchmark densing knows (``densing eval --list``): name, the lm-eval task of its score and of its
    conditional loss, shots, metric, the scoring style and the note. ``local_data``: the offline registry's names."""
    import pandas as pd

    registry = benchmark_registry(local_data)
    return pd.DataFrame([{"benchmark": name, "score_task": b.score_task, "loss_task": b.loss_task or "",
                          "shots": "task default" if b.num_fewshot is None else b.num_fewshot,
                          "metric": b.metric or "task default", "style": b.style, "note": b.note}
                         for name, b in sorted(registry.items())])


def close_names(name: str, known, count: int = 3) -> list[str]:
    """Up to ``count`` known names close to ``name`` (difflib's ratio ≥ 0.6), for "did you mean"."""
    import difflib

    return difflib.get_close_matches(name, sorted(known), n=count, cutoff=0.6)
