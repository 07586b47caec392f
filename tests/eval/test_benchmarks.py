"""The shipped task configs load in lm-eval and the benchmark registry points at real tasks."""

from __future__ import annotations

import pytest

from densing.eval.benchmarks import KNOWN_BENCHMARKS, TASKS_DIRECTORY, parse_benchmark_list


def test_parse_benchmark_list():
    assert parse_benchmark_list(" mmlu,bbh, mmlu,,") == ["mmlu", "bbh"]


def test_paper_benchmarks_in_paper_settings():
    shots = {name: KNOWN_BENCHMARKS[name].num_fewshot for name in ("mmlu", "bbh", "math", "humaneval", "mbpp", "gsm8k")}
    assert shots == {"mmlu": 5, "bbh": 3, "math": 4, "humaneval": 0, "mbpp": 3, "gsm8k": 8}
    assert KNOWN_BENCHMARKS["bbh"].score_task == "bbh_cot_fewshot"
    assert KNOWN_BENCHMARKS["gsm8k"].score_task == "gsm8k_cot"
    for name in ("math", "humaneval", "mbpp", "gsm8k"):  # generative: a companion loss task
        assert KNOWN_BENCHMARKS[name].loss_task


@pytest.mark.eval
def test_shipped_companion_tasks_are_indexed_by_lm_eval():
    pytest.importorskip("lm_eval")
    import re
    from pathlib import Path

    import lm_eval
    from lm_eval.tasks import TaskManager

    manager = TaskManager(include_path=[str(TASKS_DIRECTORY)], include_defaults=False)
    indexed = set(manager.all_tasks)
    defined = set()  # task and group names lm-eval's own configs define
    for path in (Path(lm_eval.__file__).parent / "tasks").rglob("*.yaml"):
        defined.update(re.findall(r"^(?:task|group): *([\w.\-]+) *$", path.read_text(errors="ignore"), re.M))
    for bench in KNOWN_BENCHMARKS.values():
        if bench.loss_task:
            assert bench.loss_task in indexed
        if bench.style == "olmes":  # densing's own configs (OLMES format on local splits)
            assert bench.score_task in indexed, bench
        else:
            assert bench.score_task in defined, bench
    from densing.eval.benchmarks import LOCAL_BENCHMARKS

    for name, bench in LOCAL_BENCHMARKS.items():  # every local version is indexed and has a Hub twin
        assert bench.score_task in indexed and name in KNOWN_BENCHMARKS
    assert {f"densing_minerva_math_loss_{s}" for s in ("algebra", "geometry", "precalc")} <= indexed


@pytest.mark.eval
@pytest.mark.parametrize(
    ("name", "doc", "exemplars", "marker", "continuation"),
    [
        (
            "densing_mbpp_loss",
            {
                "task_id": 11,
                "text": "Remove a character.",
                "code": "def f(s):\n    return s",
                "test_list": ["assert f('a') == 'a'", "assert f('') == ''", "assert f('b') == 'b'"],
            },
            3,
            "[BEGIN]\n",
            "def f(s):\n    return s\n[DONE]",
        ),
        (
            "densing_minerva_math_loss_algebra",
            {"problem": "What is $1+1$?", "solution": "We have $1+1=\\boxed{2}$."},
            4,
            "Problem:\n",
            " We have $1+1=\\boxed{2}$.",
        ),
        (
            "densing_humaneval_loss",
            {"prompt": 'def f(x):\n    """Return x."""\n', "canonical_solution": "    return x\n"},
            0,
            "def f(",
            "    return x\n",
        ),
        (
            "densing_gsm8k_loss",
            {"question": "What is one plus one?", "answer": "One plus one is 1+1=<<1+1=2>>2.\nSo two.\n#### 2"},
            8,
            "Q: ",
            " One plus one is 1+1=2. So two. The answer is 2.",
        ),
    ],
)
def test_companion_task_builds_the_prompt_of_its_score_task(tmp_path, name, doc, exemplars, marker, continuation):
    """Each shipped companion, fed a local stand-in for its Hub dataset, scores the reference
    solution after the score task's prompt with the paper's number of exemplars."""
    pytest.importorskip("lm_eval")
    import json

    from lm_eval.tasks import TaskManager
    from lm_eval.tasks._yaml_loader import load_yaml

    data = tmp_path / "docs.jsonl"
    data.write_text(json.dumps(doc) + "\n")
    config = load_yaml(TASKS_DIRECTORY / f"{name}.yaml")
    config.update(
        {
            "dataset_path": "json",
            "dataset_name": None,
            "dataset_kwargs": {"data_files": {"test": str(data), "train": str(data)}},
        }
    )
    manager = TaskManager(include_path=[str(TASKS_DIRECTORY)], include_defaults=False)
    task = manager.load([config])["tasks"][name]
    task.build_all_requests(limit=1, rank=0, world_size=1)
    (instance,) = task.instances
    context, scored = instance.args
    assert instance.request_type == "loglikelihood"
    assert context.count(marker) == exemplars + 1
    assert scored == continuation
