"""Requests built once and fast: lm-eval's templates compiled once build the same requests on every local benchmark
(densing.eval.harness.compile_templates_once), and built requests kept in the store are reused, a damaged file
rebuilt (densing.eval.store.serve_built_requests)."""

from __future__ import annotations

import logging

import pandas as pd
import pytest

from tests.conftest import SHARED_DATA

pytest.importorskip("lm_eval")
pytest.importorskip("datasets")
pytestmark = pytest.mark.eval

from densing.eval.benchmarks import benchmark_registry

HAS_SPLITS = (SHARED_DATA / "benchmarks").is_dir() and (SHARED_DATA / "olmo_ladder" / "oe_eval_tasks").is_dir()
#: every benchmark that runs on local files (--local-data, OLMES, AI2's request sets), by its tasks and shots: those
#: sharing both build the same requests
LOCAL = {(tuple(bench.tasks()), bench.num_fewshot): name for name, bench in sorted(benchmark_registry(True).items())}


def _requests(manager, bench, limit: int) -> list[tuple]:
    """Each leaf task's requests as ``simple_evaluate`` builds them: (task, doc, request type, arguments)."""
    loaded = manager.load(bench.tasks())["tasks"]
    built = []
    for name, task in sorted(loaded.items()):
        if bench.num_fewshot is not None:
            task.set_config(key="num_fewshot", value=bench.num_fewshot)
        task.set_fewshot_seed(seed=1234)
        task.build_all_requests(limit=limit, rank=0, world_size=1)
        built += [(name, i.doc_id, i.request_type, repr(i.args)) for i in task.instances]
    return built


@pytest.mark.skipif(not HAS_SPLITS, reason=f"{SHARED_DATA}: no local benchmark splits")
@pytest.mark.parametrize("name", sorted(LOCAL.values()))
def test_templates_compiled_once_build_the_same_requests(name, monkeypatch):
    from lm_eval import utils

    from densing.eval.harness import compile_templates_once, task_manager

    bench = benchmark_registry(True)[name]
    plain = getattr(utils.apply_template, "__wrapped__", utils.apply_template)  # lm-eval's own
    monkeypatch.setattr(utils, "apply_template", plain)
    manager = task_manager(needed=[name], data_root=SHARED_DATA, local_data=True)
    before = _requests(manager, bench, limit=3)
    compile_templates_once()
    assert utils.apply_template is not plain and utils.apply_template.__wrapped__ is plain
    compile_templates_once()  # installed once
    assert utils.apply_template.__wrapped__ is plain
    after = _requests(task_manager(needed=[name], data_root=SHARED_DATA, local_data=True), bench, limit=3)
    assert before and after == before


class _Task:
    """A task whose build counts its calls and makes requests from the limit."""

    def __init__(self, name="t", shots=2):
        from types import SimpleNamespace

        self.config = SimpleNamespace(task=name, num_fewshot=shots)
        self.builds, self._instances = 0, []
        self.build_all_requests = self._build

    @property
    def instances(self):
        return self._instances

    def _build(self, *, limit=None, rank=0, world_size=1, **options):
        from lm_eval.api.instance import Instance

        self.builds += 1
        self._instances = [
            Instance("loglikelihood", {"question": k}, (f"Q{k}", " a"), k, ("t", k, 1)) for k in range(limit)
        ]


def test_built_requests_are_kept_and_reused_and_a_damaged_file_is_rebuilt(tmp_path, caplog):
    from densing.eval.store import serve_built_requests

    def run(task, limit=3, key="k", **options):
        serve_built_requests(task, tmp_path, key)
        task.build_all_requests(limit=limit, rank=0, world_size=1, cache_requests=False, **options)
        return [(i.doc_id, i.args, i.doc) for i in task.instances]

    first = _Task()
    built = run(first)
    assert first.builds == 1 and len(list(tmp_path.glob("t-*.pickle"))) == 1
    again = _Task()
    assert run(again) == built and again.builds == 0  # read back, not built
    for changed in (_Task(shots=3), _Task(name="u")):  # other shots, another task: built
        run(changed)
        assert changed.builds == 1
    other_limit, other_key = _Task(), _Task()
    assert len(run(other_limit, limit=4)) == 4 and other_limit.builds == 1
    run(other_key, key="k2")
    assert other_key.builds == 1
    chat = _Task()  # a chat template is never kept nor read
    run(chat, apply_chat_template=True)
    run(chat, apply_chat_template=True)
    assert chat.builds == 2
    for damage in (b"not a pickle", __import__("pickle").dumps([1, 2])):
        for p in tmp_path.glob("t-*.pickle"):
            p.write_bytes(damage)
        damaged = _Task()
        with caplog.at_level(logging.WARNING, logger="densing.eval"):
            assert run(damaged) == built
        assert damaged.builds == 1 and "built requests unreadable" in caplog.text
        caplog.clear()
        restored = _Task()
        assert run(restored) == built and restored.builds == 0  # the rebuilt file replaced the damaged one
    assert not list(tmp_path.glob(".*.tmp"))


def test_a_sweep_keeps_its_built_requests_and_a_second_model_reuses_them(
    tmp_path, tiny_tasks, capsys, fake_source, monkeypatch
):
    from lm_eval.api.task import ConfigurableTask

    from densing.eval.store import part_path
    from tests.cli_run import run
    from tests.eval.fake_backend import NAME

    models = tmp_path / "models.yaml"
    models.write_text(
        "models:\n  - name: one\n    model: org/one\n    params: 1e8\n"
        "  - name: two\n    model: org/two\n    params: 2e8\n"
    )
    store = tmp_path / "store"
    builds, build = [], ConfigurableTask.build_all_requests
    monkeypatch.setattr(
        ConfigurableTask,
        "build_all_requests",
        lambda self, **options: builds.append(self.config.task) or build(self, **options),
    )
    code, _, err = run(
        [
            "eval",
            "--models",
            str(models),
            "--benchmarks",
            "tiny_mc",
            "--include-path",
            str(tiny_tasks),
            "--backend",
            NAME,
            "--out",
            str(store),
            "--format",
            "csv",
        ],
        capsys,
    )
    assert code == 0, err
    kept = list((store / ".cache" / "built").glob("tiny_mc-*.pickle"))
    assert len(kept) == 1 and builds == ["tiny_mc"]  # one build for both models
    one, two = (pd.read_parquet(part_path(store, m, "tiny_mc")).set_index("metric") for m in ("one", "two"))
    assert (
        one.loc["acc", "value"] == two.loc["acc", "value"] and one.loc["acc", "items"] == two.loc["acc", "items"] == 5
    )
