"""The local-data and OLMES task configs: real splits from ../shared/data/benchmarks, no Hub."""

from __future__ import annotations

import pytest

from tests.conftest import SHARED_DATA

pytest.importorskip("lm_eval")
pytest.importorskip("datasets")
pytestmark = pytest.mark.eval
BENCHMARKS = SHARED_DATA / "benchmarks"
if not BENCHMARKS.is_dir():
    pytest.skip(f"{BENCHMARKS}: no local benchmark splits", allow_module_level=True)


@pytest.fixture(scope="module")
def manager():
    from densing.eval.harness import task_manager

    return task_manager(needed=["olmes_arc_easy", "arc_easy"], data_root=SHARED_DATA, local_data=True)


@pytest.mark.parametrize(
    ("task", "items"),
    [
        ("densing_local_arc_easy", 2376),
        ("densing_olmes_arc_challenge", 1172),
        ("densing_olmes_piqa", 1838),
        ("densing_olmes_winogrande", 1267),
        ("densing_local_lambada_openai", 5153),
        ("densing_local_humaneval", 164),
        ("densing_local_humaneval_loss", 164),
        ("densing_local_mbpp", 500),
        ("densing_local_mbpp_loss", 500),
        ("densing_local_gsm8k_cot", 1319),
        ("densing_local_gsm8k_loss", 1319),
    ],
)
def test_splits_have_the_published_sizes(manager, task, items):
    loaded = manager.load([task])["tasks"][task]
    assert len(list(loaded.test_docs())) == items


def test_mmlu_groups_follow_the_ladder_weights(manager):
    from densing.data.olmo import MMLU_GROUPS

    loaded = manager.load(["densing_olmes_mmlu"])
    sizes = {
        group: sum(
            len(list(loaded["tasks"][leaf.task_name].test_docs()))
            for leaf in loaded["groups"][f"densing_olmes_mmlu_{group}"].get_all_tasks()
        )
        for group in MMLU_GROUPS
    }
    total = sum(sizes.values())
    assert total == 14042
    for group, weight in MMLU_GROUPS.items():  # AI2's weights are the original categories' shares
        assert sizes[group] / total == pytest.approx(weight, abs=6e-4)


def test_olmes_prompts(manager):
    loaded = manager.load(["densing_olmes_arc_easy", "densing_olmes_piqa", "densing_olmes_winogrande"])["tasks"]
    arc = loaded["densing_olmes_arc_easy"]
    doc = next(iter(arc.test_docs()))
    context = arc.fewshot_context(doc, 5)
    assert context.startswith("Question: Lichens are symbiotic organisms")
    assert context.count("\n\n") == 5 and context.endswith(f"Question: {doc['question']}\nAnswer:")
    assert "\nAnswer: neutralizes digestive acid.\n\n" in context  # the 5th OLMES example, gold answer
    requests = arc.construct_requests(doc, context)
    assert [r.args[1] for r in requests] == [" " + c for c in doc["choices"]["text"]]
    piqa = loaded["densing_olmes_piqa"]
    doc = next(iter(piqa.test_docs()))
    assert piqa.fewshot_context(doc, 5).startswith(
        "Goal: how do you stab something?\nAnswer: stick a sharp object through it.\n\n"
    )
    wino = loaded["densing_olmes_winogrande"]
    doc = next(iter(wino.test_docs()))
    requests = wino.construct_requests(doc, wino.fewshot_context(doc, 5))
    assert (
        requests[0]
        .args[0]
        .startswith("John moved the couch from the garage to the backyard to create space. The garage is small.\n\n")
    )
    assert requests[0].args[0].endswith(doc["context_options"][0]) and requests[1].args[0].endswith(
        doc["context_options"][1]
    )
    assert requests[0].args[1] == requests[1].args[1] == " " + doc["continuation"].strip()


def test_local_data_has_no_hellaswag_and_says_so(manager):
    from densing.errors import EvalError
    from densing.eval.harness import resolve_benchmarks

    resolved = resolve_benchmarks(["arc_easy", "olmes_piqa"], manager, local_data=True)
    assert [b.score_task for b in resolved] == ["densing_local_arc_easy", "densing_olmes_piqa"]
    for name in ("hellaswag", "math"):
        with pytest.raises(EvalError, match=f"'{name}' has no local-data version"):
            resolve_benchmarks([name], manager, local_data=True)


def test_generative_benchmarks_resolve_to_their_local_versions(manager):
    from densing.eval.benchmarks import KNOWN_BENCHMARKS, UNSAFE_CODE_BENCHMARKS
    from densing.eval.harness import resolve_benchmarks

    resolved = {b.name: b for b in resolve_benchmarks(["bbh", "humaneval", "mbpp", "gsm8k"], manager, local_data=True)}
    assert {n: (b.score_task, b.num_fewshot, b.loss_task) for n, b in resolved.items()} == {
        "bbh": ("densing_local_bbh_cot_fewshot", 3, None),
        "humaneval": ("densing_local_humaneval", 0, "densing_local_humaneval_loss"),
        "mbpp": ("densing_local_mbpp", 3, "densing_local_mbpp_loss"),
        "gsm8k": ("densing_local_gsm8k_cot", 8, "densing_local_gsm8k_loss"),
    }
    for name, bench in resolved.items():  # same shots as the Hub versions
        assert bench.num_fewshot == KNOWN_BENCHMARKS[name].num_fewshot
    assert KNOWN_BENCHMARKS["gsm8k"].score_task == "gsm8k_cot"
    assert {"humaneval", "mbpp"} <= UNSAFE_CODE_BENCHMARKS
    loaded = manager.load(["densing_local_humaneval", "densing_local_mbpp"])["tasks"]
    assert all(task.UNSAFE_CODE for task in loaded.values())  # lm-eval refuses them without confirm_run_unsafe_code


@pytest.mark.parametrize("name", ["humaneval", "swallow_humaneval"])
def test_unsafe_local_benchmarks_need_the_flag(tmp_path, name):
    from densing.errors import EvalError
    from densing.eval.runner import run_sweep

    with pytest.raises(EvalError, match="--allow-unsafe-code"):
        run_sweep([{"model": "org/x"}], [name], tmp_path / "store", data_root=SHARED_DATA, local_data=True)


# ---------------------------------------------------------------------------------------------
# the generative tasks are lm-eval's own: same configs, same prompts, same exemplars


def _lm_eval_tasks_dir():
    from pathlib import Path

    import lm_eval

    return Path(lm_eval.__file__).parent / "tasks"


def _lm_eval_function(path, name):
    """A function of an lm-eval ``utils.py`` that cannot be imported offline (it loads HF
    ``evaluate``'s ``code_eval`` from the Hub at import): compiled alone from its source."""
    import ast

    tree = ast.parse(path.read_text())
    (node,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    namespace: dict = {}
    exec(compile(ast.Module(body=[node], type_ignores=[]), str(path), "exec"), namespace)
    return namespace[name]


def _config(path):
    """A task YAML (includes merged) without its name and data source; ``!function`` references
    reduced to the function's name."""
    from lm_eval.tasks._yaml_loader import load_yaml

    def functions_by_name(value):
        if isinstance(value, dict):
            return {k: functions_by_name(v) for k, v in value.items()}
        if isinstance(value, list):
            return [functions_by_name(v) for v in value]
        if isinstance(value, str) and value.startswith("/"):  # an unresolved !function
            return "function " + value.rsplit(".", 1)[-1]
        return value

    config = load_yaml(path, resolve_func=False)
    for key in ("task", "tag", "dataset_path", "dataset_name", "dataset_kwargs", "custom_dataset"):
        config.pop(key, None)
    return functions_by_name(config)


def _mbpp_exemplars():
    return _lm_eval_function(_lm_eval_tasks_dir() / "mbpp" / "utils.py", "list_fewshot_samples")()


def _hub_task(tmp_path, yaml_path, docs, **replace):
    """lm-eval's own task from its YAML, its Hub dataset replaced by ``docs`` (and code-metric
    functions that cannot be imported offline replaced by ``replace``)."""
    import json

    from lm_eval.tasks import TaskManager
    from lm_eval.tasks._yaml_loader import load_yaml

    data = tmp_path / f"{yaml_path.stem}.jsonl"
    data.write_text("".join(json.dumps(d) + "\n" for d in docs))
    config = load_yaml(yaml_path, resolve_func=not replace)
    config.update(replace)
    config.update({"dataset_path": "json", "dataset_name": None, "dataset_kwargs": {"data_files": {"test": str(data)}}})
    config = {k: v for k, v in config.items() if v is not None or k == "dataset_name"}
    loaded = TaskManager(include_path=[], include_defaults=False).load([config])["tasks"]
    return loaded[config["task"]]


def _first_request(task):
    task.build_all_requests(limit=1, rank=0, world_size=1)
    return task.instances[0]


def _same_first_request(ours, theirs):
    mine, hub = _first_request(ours), _first_request(theirs)
    assert mine.request_type == hub.request_type
    assert mine.args == hub.args  # the prompt (with exemplars) and the generation settings
    return mine


def test_humaneval_is_lm_evals(tmp_path, manager):
    from densing.eval.benchmarks import TASKS_DIRECTORY

    source = _lm_eval_tasks_dir() / "humaneval" / "humaneval.yaml"
    # prompt, generation settings, filter (prompt + completion) and metric (pass@1) as lm-eval's
    assert _config(TASKS_DIRECTORY / "local" / "densing_local_humaneval.yaml") == _config(source)
    loaded = manager.load(["densing_local_humaneval", "densing_local_humaneval_loss"])["tasks"]
    ours = loaded["densing_local_humaneval"]
    doc = next(iter(ours.test_docs()))
    assert doc["task_id"] == "HumanEval/0" and set(doc) == {
        "task_id",
        "prompt",
        "canonical_solution",
        "test",
        "entry_point",
    }
    hub = _hub_task(tmp_path, source, [doc], metric_list=[{"metric": "exact_match"}], filter_list=None)
    request = _same_first_request(ours, hub)
    assert request.args[0] == doc["prompt"]
    loss = _first_request(loaded["densing_local_humaneval_loss"])
    assert loss.args == (doc["prompt"], doc["canonical_solution"])


def test_local_pass_at_k_scores_as_code_eval(monkeypatch):
    from densing.eval.tasks import code_eval

    monkeypatch.delenv("HF_ALLOW_CODE_EVAL", raising=False)
    with pytest.raises(ValueError, match="HF_ALLOW_CODE_EVAL"):
        code_eval.pass_at_k(["assert add(2, 3)==5"], [["def add(a,b): return a*b"]], k=[1])
    monkeypatch.setenv("HF_ALLOW_CODE_EVAL", "1")
    # the example of HF evaluate's code_eval card: one wrong and one right candidate
    candidates = [["def add(a,b): return a*b", "def add(a, b): return a+b"]]
    assert code_eval.compute(references=["assert add(2,3)==5"], predictions=candidates, k=[1, 2]) == {
        "pass@1": 0.5,
        "pass@2": 1.0,
    }
    assert code_eval.pass_at_1("assert f() == 1", ["def f():\n    while True:\n        pass"]) == 0.0  # timed out
    assert code_eval.pass_at_1("assert f() == 1", ["def f():\n    print('x')\n    return 1"]) == 1.0
    from densing.eval.tasks.local_data import load_humaneval

    (doc,) = load_humaneval(densing_data_root=str(SHARED_DATA))["test"].select([0])
    (programs,) = code_eval.build_predictions([[doc["canonical_solution"]]], [doc])
    assert code_eval.pass_at_k([f"{doc['test']}\ncheck({doc['entry_point']})"], [programs], k=[1]) == {"pass@1": 1.0}


def test_mbpp_is_lm_evals(tmp_path, manager):
    from densing.eval.benchmarks import TASKS_DIRECTORY
    from densing.eval.tasks.local_data import load_mbpp
    from densing.eval.tasks.utils import mbpp_fewshot_samples

    source = _lm_eval_tasks_dir() / "mbpp" / "mbpp.yaml"
    exemplars = _mbpp_exemplars()
    assert mbpp_fewshot_samples() == exemplars
    local, theirs = _config(TASKS_DIRECTORY / "local" / "densing_local_mbpp.yaml"), _config(source)
    assert local["fewshot_config"].pop("samples") == "function mbpp_fewshot_samples"
    assert theirs["fewshot_config"].pop("samples") == "function list_fewshot_samples"
    assert local == theirs
    splits = load_mbpp(densing_data_root=str(SHARED_DATA))  # the HF "full" config's splits
    assert {name: split.num_rows for name, split in splits.items()} == {
        "train": 374,
        "test": 500,
        "validation": 90,
        "prompt": 10,
    }
    assert (min(splits["test"]["task_id"]), max(splits["test"]["task_id"])) == (11, 510)
    prompt_split = {row["task_id"]: row for row in splits["prompt"]}  # lm-eval's exemplars: task_ids 2-4
    for exemplar in exemplars:
        row = prompt_split[exemplar["task_id"]]
        assert (row["text"], row["code"], row["test_list"]) == (
            exemplar["text"],
            exemplar["code"],
            exemplar["test_list"],
        )
    loaded = manager.load(["densing_local_mbpp", "densing_local_mbpp_loss"])["tasks"]
    ours = loaded["densing_local_mbpp"]
    doc = next(iter(ours.test_docs()))
    assert doc["task_id"] == 11
    hub = _hub_task(
        tmp_path,
        source,
        [doc],
        metric_list=[{"metric": "exact_match"}],
        fewshot_config={"sampler": "first_n", "samples": exemplars},
    )
    request = _same_first_request(ours, hub)
    context = request.args[0]
    assert context.startswith(
        "You are an expert Python programmer, and here is your task: Write a function to find the similar elements"
    )
    assert context.count("[BEGIN]\n") == 4 and context.count("\n[DONE]\n\n") == 3
    loss = _first_request(loaded["densing_local_mbpp_loss"])
    assert loss.args == (context, doc["code"] + "\n[DONE]")


def test_gsm8k_is_lm_evals(tmp_path, manager):
    from densing.eval.benchmarks import TASKS_DIRECTORY
    from densing.eval.tasks.utils import gsm8k_cot_fewshot_samples, gsm8k_cot_target

    source = _lm_eval_tasks_dir() / "gsm8k" / "gsm8k-cot.yaml"
    theirs = _config(source)
    assert _config(TASKS_DIRECTORY / "local" / "densing_local_gsm8k_cot.yaml") == theirs
    assert gsm8k_cot_fewshot_samples() == theirs["fewshot_config"]["samples"]  # the loss tasks' exemplars
    loaded = manager.load(["densing_local_gsm8k_cot", "densing_local_gsm8k_loss"])["tasks"]
    ours = loaded["densing_local_gsm8k_cot"]
    doc = next(iter(ours.test_docs()))
    assert doc["question"].startswith("Janet’s ducks lay 16 eggs per day.")
    request = _same_first_request(ours, _hub_task(tmp_path, source, [doc]))
    context = request.args[0]
    assert context.startswith("Q: There are 15 trees in the grove.") and context.count("\nA: ") == 8
    assert context.endswith(f"\n\nQ: {doc['question']}\nA:")
    loss = _first_request(loaded["densing_local_gsm8k_loss"])
    assert loss.args == (context, " " + gsm8k_cot_target(doc))  # the space of gsm8k_cot's target_delimiter
    assert gsm8k_cot_target(doc) == (
        "Janet sells 16 - 3 - 4 = 9 duck eggs a day. She makes 9 * 2 = $18 every day at the farmer’s market. The answer is 18."
    )


def test_bbh_is_lm_evals(tmp_path, manager):
    from densing.eval.benchmarks import TASKS_DIRECTORY
    from densing.eval.tasks.local_data import BBH_TASKS
    from tools.task_configs import write_bbh_configs

    folder = TASKS_DIRECTORY / "local" / "bbh"
    write_bbh_configs(tmp_path)  # the shipped files are what the generator writes from lm-eval's
    for path in tmp_path.glob("*.yaml"):
        assert path.read_text().split("\n", 1)[1] == (folder / path.name).read_text().split("\n", 1)[1], path.name
    assert len(list(folder.glob("*.yaml"))) == len(BBH_TASKS) + 2 == 29
    source = _lm_eval_tasks_dir() / "bbh" / "cot_fewshot"
    loaded = manager.load(["densing_local_bbh_cot_fewshot"])
    group = loaded["groups"]["densing_local_bbh_cot_fewshot"]
    leaves = [leaf.task_name for leaf in group.get_all_tasks()]
    assert sorted(leaves) == sorted(f"densing_local_bbh_cot_fewshot_{name}" for name in BBH_TASKS)
    assert sum(len(list(loaded["tasks"][leaf].test_docs())) for leaf in leaves) == 6511
    import yaml

    group_config = yaml.safe_load((folder / "_densing_local_bbh_cot_fewshot.yaml").read_text())
    theirs = yaml.safe_load((source / "_bbh_cot_fewshot.yaml").read_text())
    assert group_config.pop("group") == "densing_local_bbh_cot_fewshot" and theirs.pop("group") == "bbh_cot_fewshot"
    assert group_config.pop("task") == [f"densing_local_{t}" for t in theirs.pop("task")]
    assert group_config == theirs  # exact_match, weighted by size, filter get-answer
    for name in BBH_TASKS:
        assert _config(folder / f"densing_local_bbh_cot_fewshot_{name}.yaml") == _config(source / f"{name}.yaml"), name
        ours = loaded["tasks"][f"densing_local_bbh_cot_fewshot_{name}"]
        doc = next(iter(ours.test_docs()))
        request = _same_first_request(ours, _hub_task(tmp_path, source / f"{name}.yaml", [doc]))
        assert request.args[0].count("A: Let's think step by step.\n") == 4, name  # 3 CoT exemplars + the question


def test_missing_data_root_is_one_line(tmp_path):
    from densing.errors import InputError
    from densing.eval.runner import run_sweep

    with pytest.raises(InputError, match="has no benchmarks/ folder"):
        run_sweep([{"model": "org/x"}], ["olmes_arc_easy"], tmp_path / "store", data_root=tmp_path)


# ---------------------------------------------------------------------------------------------
# MATH: the test split shipped with densing, MATH-500 as lm-eval's minerva_math500


def test_shipped_math_test_split():
    import collections

    from densing.eval.tasks.local_data import MATH_FOLDER, load_math500, math500_ids, math_test_rows

    rows = math_test_rows()
    assert [r["idx"] for r in rows] == list(range(5000))
    assert collections.Counter(r["type"] for r in rows) == {  # the original split's counts
        "Algebra": 1187,
        "Counting & Probability": 474,
        "Geometry": 479,
        "Intermediate Algebra": 903,
        "Number Theory": 540,
        "Prealgebra": 871,
        "Precalculus": 546,
    }
    ids = math500_ids()
    assert len(ids) == 500 == len({i for _, i in ids}) and ids[0] == ("test/precalculus/807.json", 4914)
    folders = {
        "algebra": "Algebra",
        "counting_and_probability": "Counting & Probability",
        "geometry": "Geometry",
        "intermediate_algebra": "Intermediate Algebra",
        "number_theory": "Number Theory",
        "prealgebra": "Prealgebra",
        "precalculus": "Precalculus",
    }
    assert all(folders[uid.split("/")[1]] == rows[i]["type"] for uid, i in ids)
    test = load_math500()["test"]
    assert len(test) == 500 and test[0]["problem"].startswith("Convert the point $(0,3)$ in rectangular coordinates")
    assert (MATH_FOLDER / "LICENSE").read_text().startswith("MIT License\n\nCopyright (c) 2021 Dan Hendrycks")


def test_math500_is_lm_evals(tmp_path, manager):
    from densing.eval.benchmarks import TASKS_DIRECTORY
    from densing.eval.tasks import math_eval
    from densing.eval.tasks.utils import minerva_math_fewshot_samples

    source = _lm_eval_tasks_dir() / "minerva_math" / "minerva_math500.yaml"
    theirs, ours_config = _config(source), _config(TASKS_DIRECTORY / "local" / "densing_local_minerva_math500.yaml")
    for key in ("output_type", "test_split", "doc_to_target", "generation_kwargs", "num_fewshot"):
        assert ours_config[key] == theirs[key], key
    assert ours_config["fewshot_config"]["sampler"] == theirs["fewshot_config"]["sampler"] == "first_n"
    lm_eval_utils = _lm_eval_tasks_dir() / "minerva_math" / "utils.py"
    assert minerva_math_fewshot_samples() == _lm_eval_function(lm_eval_utils, "list_fewshot_samples")()
    loaded = manager.load(["densing_local_minerva_math500", "densing_local_minerva_math500_loss"])["tasks"]
    ours = loaded["densing_local_minerva_math500"]
    doc = next(iter(ours.test_docs()))
    assert doc["answer"] == "\\left(3,\\frac{\\pi}{2}\\right)"
    hub = _hub_task(  # lm-eval's own task, its functions (which need lm-eval's `math` extra) replaced by densing's
        tmp_path,
        source,
        [{"problem": doc["problem"], "solution": doc["solution"]}],
        process_docs=math_eval.process_docs,
        doc_to_text=math_eval.doc_to_text,
        process_results=math_eval.process_results,
        metric_list=[{"metric": "exact_match"}],
        fewshot_config={"sampler": "first_n", "samples": minerva_math_fewshot_samples},
    )
    request = _same_first_request(ours, hub)
    context = request.args[0]
    assert context.startswith("Problem:\nFind the domain of the expression") and context.count("Solution:") == 5
    assert context.endswith(f"Problem:\n{doc['problem']}\n\nSolution:")
    loss = _first_request(loaded["densing_local_minerva_math500_loss"])
    assert loss.args == (context, " " + doc["solution"])
