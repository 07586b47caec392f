"""The shipped task configs load in lm-eval and the benchmark registry points at real tasks."""
from __future__ import annotations

import pytest

from densing.eval.benchmarks import KNOWN_BENCHMARKS, TASKS_DIRECTORY, parse_benchmark_list


def test_parse_benchmark_list():
    assert parse_benchmark_list(" mmlu,bbh, mmlu,,") == ["mmlu", "bbh"]


def test_paper_benchmarks_in_paper_settings():
    shots = {name: KNOWN_BENCHMARKS[name].num_fewshot for name in ("mmlu", "bbh", "math", "humaneval", "mbpp")}
    assert shots == {"mmlu": 5, "bbh": 3, "math": 4, "humaneval": 0, "mbpp": 3}
    assert KNOWN_BENCHMARKS["bbh"].score_task == "bbh_cot_fewshot"
    for name in ("math", "humaneval", "mbpp"):  # generative: a companion loss task
        assert KNOWN_BENCHMARKS[name].loss_task


@pytest.mark.eval
def test_shipped_companion_tasks_are_indexed_by_lm_eval():
    pytest.importorskip("lm_eval")
    from lm_eval.tasks import TaskManager

    import re
    from pathlib import Path

    import lm_eval

    manager = TaskManager(include_path=[str(TASKS_DIRECTORY)], include_defaults=False)
    indexed = set(manager.all_tasks)
    defined = set()  # task and group names lm-eval's own configs define
    for path in (Path(lm_eval.__file__).parent / "tasks").rglob("*.yaml"):
        defined.update(re.findall(r"^(?:task|group): *([\w.\-]+) *$", path.read_text(errors="ignore"), re.M))
    for bench in KNOWN_BENCHMARKS.values():
        if bench.loss_task:
            assert bench.loss_task in indexed
        assert bench.score_task in defined, bench
    assert {f"densing_minerva_math_loss_{s}" for s in ("algebra", "geometry", "precalc")} <= indexed
