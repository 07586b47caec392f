"""``densing eval --suite``: each suite's benchmarks against the protocol it reproduces, checked on the
task configs lm-eval actually indexes (offline: the configs are read, the Hub datasets are not loaded)."""

from __future__ import annotations

import pytest

from densing.errors import InputError
from densing.eval.benchmarks import (
    KNOWN_BENCHMARKS,
    LOCAL_BENCHMARKS,
    PUBLIC_TABLE_BENCHMARKS,
    SUITES,
    suite_benchmarks,
)
from tests.conftest import SHARED_DATA

# benchmark: (lm-eval task or group, shots, headline metric as the store writes it, evaluated split)
# leaderboard-v1: the Open LLM Leaderboard v1 "About" page, archived at
# https://huggingface.co/docs/leaderboards/en/open_llm_leaderboard/archive (ARC 25-shot, HellaSwag
# 10-shot, MMLU 5-shot, TruthfulQA 0-shot mc2, WinoGrande 5-shot, GSM8K 5-shot), the protocol of the
# public table's columns (ObsScaling, Ruan et al. 2024, arXiv:2405.10938). lm-eval's truthfulqa_mc2
# names its mc2 score "acc".
# leaderboard-v2: lm-eval 0.4.13's tasks/leaderboard/leaderboard.yaml and its README (BBH 3-shot,
# GPQA 0-shot, IFEval 0-shot, MATH level 5 4-shot, MMLU-Pro 5-shot, MuSR 0-shot).
PROTOCOL = {
    "leaderboard-v1": {
        "openllm_v1_arc_challenge": ("arc_challenge", 25, "acc_norm", "test"),
        "openllm_v1_hellaswag": ("hellaswag", 10, "acc_norm", "validation"),
        "openllm_v1_mmlu": ("mmlu", 5, "acc", "test"),
        "openllm_v1_truthfulqa_mc2": ("truthfulqa_mc2", 0, "acc", "validation"),
        "openllm_v1_winogrande": ("winogrande", 5, "acc", "validation"),
        "openllm_v1_gsm8k": ("gsm8k", 5, "exact_match,strict-match", "test"),
    },
    "leaderboard-v2": {
        "leaderboard_bbh": ("leaderboard_bbh", 3, "acc_norm", "test"),
        "leaderboard_gpqa": ("leaderboard_gpqa", 0, "acc_norm", "train"),
        "leaderboard_ifeval": ("leaderboard_ifeval", 0, "prompt_level_strict_acc", "train"),
        "leaderboard_math_hard": ("leaderboard_math_hard", 4, "exact_match", "test"),
        "leaderboard_mmlu_pro": ("leaderboard_mmlu_pro", 5, "acc", "test"),
        "leaderboard_musr": ("leaderboard_musr", 0, "acc_norm", None),  # one split per MuSR task
    },
    # swallow-en: the Swallow LLM Leaderboard's evaluation scripts (swallow-llm/swallow-evaluation v202411.p1,
    # scripts/evaluate_english_*.sh and scripts/column-path-key.csv): mmlu 5-shot "acc"; bbh_cot_fewshot 3-shot
    # "exact_match,get-answer"; MATH-500 4-shot "exact_match"; gsm8k 4-shot "exact_match,strict-match"; HumanEval
    # 0-shot pass@1 (bigcode harness; here lm-eval's humaneval)
    "swallow-en": {
        "swallow_mmlu": ("mmlu", 5, "acc", "test"),
        "swallow_bbh": ("bbh_cot_fewshot", 3, "exact_match,get-answer", "test"),
        "swallow_math": ("minerva_math500", 4, "exact_match", "test"),
        "swallow_gsm8k": ("gsm8k", 4, "exact_match,strict-match", "test"),
        "swallow_humaneval": ("humaneval", 0, "pass@1,create_test", "test"),
    },
}


def test_suites_are_the_protocols():
    assert set(SUITES) == set(PROTOCOL)
    for suite, table in PROTOCOL.items():
        assert list(SUITES[suite]) == list(table)
        for name, (task, shots, metric, _) in table.items():
            bench = KNOWN_BENCHMARKS[name]
            assert (bench.score_task, bench.num_fewshot, bench.metric) == (task, shots, metric), name


def test_suite_names():
    assert suite_benchmarks("leaderboard-v2") == (list(PROTOCOL["leaderboard-v2"]), [])
    assert suite_benchmarks("swallow-en", local_data=True) == (list(PROTOCOL["swallow-en"]), [])  # MATH ships
    for name in PROTOCOL["swallow-en"]:
        assert (LOCAL_BENCHMARKS[name].num_fewshot, LOCAL_BENCHMARKS[name].metric) == PROTOCOL["swallow-en"][name][1:3]
    kept, left_out = suite_benchmarks("leaderboard-v1", local_data=True)
    assert left_out == ["openllm_v1_hellaswag", "openllm_v1_truthfulqa_mc2"]  # no local split
    for name in kept:  # the local versions keep the protocol's shots and metric
        assert (LOCAL_BENCHMARKS[name].num_fewshot, LOCAL_BENCHMARKS[name].metric) == PROTOCOL["leaderboard-v1"][name][
            1:3
        ]
    with pytest.raises(InputError, match="unknown suite 'nowhere'"):
        suite_benchmarks("nowhere")


# suite benchmark → the public table's benchmark name (results/public_models.csv, metric "score")
PUBLIC_NAMES = {
    "openllm_v1_arc_challenge": "arc_challenge",
    "openllm_v1_hellaswag": "hellaswag",
    "openllm_v1_mmlu": "mmlu",
    "openllm_v1_truthfulqa_mc2": "truthfulqa_mc2",
    "openllm_v1_winogrande": "winogrande",
    "openllm_v1_gsm8k": "gsm8k",
    "leaderboard_bbh": "leaderboard_bbh",
    "leaderboard_gpqa": "gpqa",
    "leaderboard_ifeval": "ifeval",
    "leaderboard_math_hard": "math_hard",
    "leaderboard_mmlu_pro": "mmlu_pro",
    "leaderboard_musr": "musr",
    # the Swallow table names its benchmarks as the suite does
    "swallow_mmlu": "swallow_mmlu",
    "swallow_bbh": "swallow_bbh",
    "swallow_math": "swallow_math",
    "swallow_gsm8k": "swallow_gsm8k",
    "swallow_humaneval": "swallow_humaneval",
}


def test_every_suite_benchmark_maps_onto_a_benchmark_of_its_table():
    from densing.data import read_results
    from densing.eval.benchmarks import SUITE_TABLES, suite_table
    from densing.paths import RESULTS

    assert PUBLIC_TABLE_BENCHMARKS == PUBLIC_NAMES
    assert set(PUBLIC_TABLE_BENCHMARKS) == {b for members in SUITES.values() for b in members}
    assert set(SUITE_TABLES) == set(SUITES)
    assert suite_table("leaderboard-v1") == suite_table("leaderboard-v2") == RESULTS / "public_models.csv"
    assert suite_table("swallow-en") == RESULTS / "swallow" / "swallow_2025-06.csv"
    for suite, members in SUITES.items():
        if not suite_table(suite).is_file():  # a table still to be shipped (the Swallow one)
            assert suite == "swallow-en"
            continue
        table = read_results(suite_table(suite))
        assert {PUBLIC_TABLE_BENCHMARKS[b] for b in members} <= set(table["benchmark"]), suite
        assert set(table["metric"]) == {"score"}


# ---------------------------------------------------------------------------------------------
# against lm-eval's own configs


def _leaf_configs(manager, name, inherited=None):
    """``{task: config}`` of the leaf tasks under ``name``, as lm-eval's task factory merges them
    (includes, then group-level keys), with ``!function`` references left unresolved (no import of
    optional packages, no dataset)."""
    from lm_eval.tasks._index import Kind
    from lm_eval.tasks._yaml_loader import load_yaml

    entry = manager.task_index[name]
    if entry.kind == Kind.TAG:
        return {k: v for t in sorted(entry.tags) for k, v in _leaf_configs(manager, t, inherited).items()}
    config = load_yaml(entry.yaml_path, resolve_func=False) if entry.yaml_path else dict(entry.cfg)
    if entry.kind == Kind.GROUP:
        keys = {
            k: v
            for k, v in config.items()
            if k not in ("group", "task", "aggregate_metric_list", "metadata", "group_alias")
        }
        leaves = {}
        for member in config["task"]:
            leaves.update(
                _leaf_configs(
                    manager, member if isinstance(member, str) else member["task"], {**keys, **(inherited or {})}
                )
            )
        return leaves
    return {name: {**config, **(inherited or {})}}


def _render(template, doc):
    """A prompt template (Jinja, or an unresolved ``!function`` reference ``/path/module.function``,
    compiled alone from its source so that the module's optional imports are not needed) on ``doc``."""
    if template.startswith("/"):
        import ast
        from pathlib import Path

        module, _, function = template.rpartition(".")
        tree = ast.parse(Path(module + ".py").read_text(encoding="utf-8"))
        node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function)
        namespace = {"dict": dict}
        exec(compile(ast.Module(body=[node], type_ignores=[]), module, "exec"), namespace)
        return namespace[function](doc)
    import jinja2

    return jinja2.Template(template).render(**doc)


def _group_metrics(manager, name):
    from lm_eval.tasks._yaml_loader import load_yaml

    entry = manager.task_index[name]
    config = load_yaml(entry.yaml_path, resolve_func=False)
    return {m["metric"] for m in config.get("aggregate_metric_list") or []}


@pytest.fixture(scope="module")
def lm_eval_manager():
    pytest.importorskip("lm_eval")
    from densing.eval.harness import task_manager

    return task_manager()  # lm-eval's built-in tasks and densing's shipped ones


@pytest.mark.eval
@pytest.mark.parametrize(("suite", "name"), [(suite, name) for suite, table in PROTOCOL.items() for name in table])
def test_lm_eval_task_configs_follow_the_protocol(lm_eval_manager, suite, name):
    from lm_eval.tasks._index import Kind

    task, shots, metric, split = PROTOCOL[suite][name]
    bench = KNOWN_BENCHMARKS[name]
    leaves = _leaf_configs(lm_eval_manager, task)
    assert leaves, task
    base, _, filter_name = metric.partition(",")
    for leaf, config in leaves.items():
        # a metric given as a function (HumanEval's pass_at_k with k [1]) reports pass@k
        names = {
            m["metric"] if not str(m["metric"]).endswith(".pass_at_k") else f"pass@{m['k'][0]}"
            for m in config["metric_list"]
        }
        assert base in names, leaf
        if filter_name:
            assert filter_name in {f["name"] for f in config["filter_list"]}, leaf
        evaluated = config.get("test_split") or config.get("validation_split")
        if split is not None:
            assert evaluated == split, leaf
        # the leaderboard-v2 tasks carry their protocol's shots; the v1 ones are set by the benchmark
        if suite == "leaderboard-v2":
            assert (config.get("num_fewshot") or 0) == shots, leaf
        elif suite == "leaderboard-v1":
            assert config.get("num_fewshot") in (None, 0, shots), leaf
        elif shots:  # swallow-en sets its shots at run time (GSM8K: 4, lm-eval's default 5): exemplars must exist
            assert (
                config.get("fewshot_config", {}).get("samples")
                or config.get("fewshot_split")
                or config.get("training_split")
            ), leaf
        if shots and suite == "leaderboard-v1":  # exemplars come from a split other than the evaluated one
            fewshot = config.get("fewshot_split") or config.get("training_split") or config.get("validation_split")
            assert fewshot not in (None, evaluated), leaf
    if lm_eval_manager.task_index[task].kind == Kind.GROUP:
        assert base in _group_metrics(lm_eval_manager, task), task
    if bench.loss_task:  # the conditional loss: a companion with the same prompt and shots on the same items
        companions = _leaf_configs(lm_eval_manager, bench.loss_task)
        assert len(companions) == len(leaves)
        for (leaf, config), (_, loss) in zip(sorted(leaves.items()), sorted(companions.items())):
            assert loss["output_type"] == "loglikelihood" and loss["num_fewshot"] == shots
            for key in ("dataset_path", "dataset_name", "test_split"):
                assert loss.get(key) == config.get(key), (leaf, key)
            doc = {"question": "Q?", "problem": "P?", "answer": "A", "solution": "S"}
            assert _render(loss["doc_to_text"], doc) == _render(config["doc_to_text"], doc), leaf
    else:  # multiple choice: the loss is the gold choice's, from the score task's own requests
        no_reference = {"leaderboard_ifeval", "swallow_bbh"}  # generative, with no reference text to score
        assert all(c["output_type"] == "multiple_choice" for c in leaves.values()) or name in no_reference


def test_leaderboard_math_exemplars_are_lm_evals():
    pytest.importorskip("lm_eval")
    from densing.eval.tasks.utils import leaderboard_math_fewshot_samples

    samples = leaderboard_math_fewshot_samples()
    assert len(samples) == 4 and all(s["level"] == "Level 5" and "\\boxed{" in s["solution"] for s in samples)


# ---------------------------------------------------------------------------------------------
# the local versions, built on the local splits


@pytest.mark.eval
@pytest.mark.parametrize("name", ["openllm_v1_gsm8k", "swallow_gsm8k"])
def test_local_gsm8k_and_its_loss_share_the_prompt(name):
    pytest.importorskip("lm_eval")
    if not (SHARED_DATA / "benchmarks" / "gsm8k").is_dir():
        pytest.skip("no local GSM8K split")
    from densing.eval.harness import task_manager

    manager = task_manager(needed=[name], data_root=SHARED_DATA, local_data=True)
    bench = LOCAL_BENCHMARKS[name]
    loaded = manager.load(bench.tasks())["tasks"]
    score, loss = loaded[bench.score_task], loaded[bench.loss_task]
    assert loss.config.num_fewshot == bench.num_fewshot
    for task in (score, loss):
        task.set_config(key="num_fewshot", value=bench.num_fewshot)  # as lm_eval.simple_evaluate sets the shots
        task.set_fewshot_seed(seed=1234)  # as lm_eval.simple_evaluate seeds every task
        task.build_all_requests(limit=3, rank=0, world_size=1)
    for generated, scored, doc in zip(score.instances, loss.instances, score.test_docs()):
        context = generated.args[0]
        assert context.count("\nAnswer: ") == bench.num_fewshot
        assert context.endswith(f"Question: {doc['question']}\nAnswer:")
        assert f"Question: {doc['question']}\nAnswer: " not in context[: -len("\nAnswer:")]  # not its own exemplar
        assert scored.args == (context, " " + doc["answer"])


def test_unknown_suite_is_one_line_before_anything(tmp_path, capsys):
    from densing.cli import main

    models = tmp_path / "missing.yaml"  # never read: the suite is checked first
    with pytest.raises(SystemExit) as exit_info:
        main(["eval", "--models", str(models), "--suite", "nowhere", "--out", str(tmp_path / "store")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown suite 'nowhere'" in err[0] and "leaderboard-v1" in err[0], err
    assert not (tmp_path / "store").exists()


# ---------------------------------------------------------------------------------------------
# swallow-en against the Swallow LLM Leaderboard's own task definitions

SWALLOW_TASKS = SHARED_DATA / "swallow" / "task_2025-06.yml"
#: The leaderboard's task (its ``en_basic`` name) → the suite's benchmark.
SWALLOW_NAMES = {
    "MMLU": "swallow_mmlu",
    "BBH": "swallow_bbh",
    "MATH": "swallow_math",
    "GSM8K": "swallow_gsm8k",
    "HumanEval": "swallow_humaneval",
}
#: The leaderboard's metric in words → the metric lm-eval reports (the part of the store's metric before the comma).
SWALLOW_METRICS = {"Accuracy": "acc", "Accuracy (exact match)": "exact_match", "pass@1": "pass@1"}


def swallow_mismatches(tasks: list[dict], registry) -> list[str]:
    """Where ``registry``'s swallow benchmarks differ from the leaderboard's ``en_basic`` tasks (shots, chain of
    thought, metric), in words; every benchmark of the suite must be among the tasks."""
    import re

    wrong, seen = [], set()
    for task in tasks:
        name = SWALLOW_NAMES.get(task["name"])
        if name is None:
            continue
        seen.add(name)
        setting, metric = task["setting"]["en"], task["metric"]["en"]
        shots = int(re.match(r"(\d+)-shot", setting).group(1))
        bench = registry[name]
        if bench.num_fewshot != shots:
            wrong.append(f"{name}: {bench.num_fewshot} shots, the leaderboard {shots} ({setting})")
        if ("CoT" in setting) != ("cot" in bench.score_task):
            wrong.append(f"{name}: chain of thought differs ({setting}; task {bench.score_task})")
        if SWALLOW_METRICS.get(metric) != (bench.metric or "").partition(",")[0]:
            wrong.append(f"{name}: metric {bench.metric}, the leaderboard {metric}")
    wrong += [f"{name}: not among the leaderboard's tasks" for name in sorted(set(SUITES["swallow-en"]) - seen)]
    return wrong


@pytest.fixture(scope="module")
def swallow_tasks():
    if not SWALLOW_TASKS.is_file():
        pytest.skip("no Swallow LLM Leaderboard task file")
    import yaml

    return yaml.safe_load(SWALLOW_TASKS.read_text(encoding="utf-8"))["en_basic"]["tasks"]


def test_swallow_suite_follows_the_leaderboards_task_file(swallow_tasks):
    assert swallow_mismatches(swallow_tasks, KNOWN_BENCHMARKS) == []
    assert swallow_mismatches(swallow_tasks, LOCAL_BENCHMARKS) == []


def test_swallow_check_catches_a_changed_setting(swallow_tasks):
    import copy

    changed = copy.deepcopy(swallow_tasks)
    for task in changed:
        if task["name"] == "GSM8K":
            task["setting"]["en"] = "5-shot"  # lm-eval's default, not the leaderboard's
        if task["name"] == "BBH":
            task["setting"]["en"] = "3-shot"  # no chain of thought
        if task["name"] == "HumanEval":
            task["metric"]["en"] = "Accuracy"
    wrong = swallow_mismatches(changed, KNOWN_BENCHMARKS)
    assert sorted(w.split(":")[0] for w in wrong) == ["swallow_bbh", "swallow_gsm8k", "swallow_humaneval"], wrong
    assert swallow_mismatches([t for t in swallow_tasks if t["name"] != "MATH"], KNOWN_BENCHMARKS) == [
        "swallow_math: not among the leaderboard's tasks"
    ]
