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

    def tasks(self) -> list[str]:
        return [self.score_task] + ([self.loss_task] if self.loss_task and self.loss_task != self.score_task else [])


#: The paper's five benchmarks in its settings, and the common zero-shot multiple-choice set.
KNOWN_BENCHMARKS: dict[str, Benchmark] = {
    b.name: b
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
}
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
#: Benchmarks whose score task executes generated code (lm-eval's ``unsafe_code``).
UNSAFE_CODE_BENCHMARKS = frozenset({"humaneval", "mbpp"})


def parse_benchmark_list(text: str) -> list[str]:
    """``"mmlu, bbh,mmlu"`` → ``["mmlu", "bbh"]`` (order kept, duplicates dropped)."""
    names: list[str] = []
    for part in text.split(","):
        name = part.strip()
        if name and name not in names:
            names.append(name)
    return names
