"""Benchmarks densing knows by name, in the settings of Xiao et al. 2024 (§3.1), over lm-eval tasks.

A :class:`Benchmark` names the lm-eval task (or group) whose metrics are the score, the number of
few-shot examples, and — for generative tasks — a companion ``loglikelihood`` task that scores
the reference solution as the continuation of the same prompt, which gives the conditional loss
−log P(answer | prompt) (§2.2). For multiple-choice and loglikelihood tasks the loss comes from
the score task's own requests (the gold continuation), so no companion is needed.

The score tasks are lm-eval's own configs; the companion tasks are shipped as lm-eval YAML in
``densing/eval/tasks`` and loaded through ``TaskManager(include_path=...)``.

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
        Benchmark("arc_easy", "arc_easy", 0),
        Benchmark("arc_challenge", "arc_challenge", 0),
        Benchmark("hellaswag", "hellaswag", 0),
        Benchmark("piqa", "piqa", 0),
        Benchmark("winogrande", "winogrande", 0),
        Benchmark("lambada_openai", "lambada_openai", 0),
    )
}
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
