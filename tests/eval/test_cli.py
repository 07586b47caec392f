"""`densing eval` bad inputs: one line on stderr, exit code 2, the store untouched."""

from __future__ import annotations

import gc
import shutil

import pytest

from densing.cli import main

from .conftest import write_models_yaml


def _snapshot(store):
    return {p: p.read_bytes() for p in sorted(store.rglob("*")) if p.is_file()} if store.exists() else None


def _fails(argv, capsys) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: "), err
    return err[0]


@pytest.fixture()
def store_copy(tmp_path, reference_store):
    store = tmp_path / "store"
    shutil.copytree(reference_store, store)
    return store


@pytest.mark.eval
def test_unknown_benchmark(tmp_path, tiny_models, tiny_tasks, store_copy, capsys):
    before = _snapshot(store_copy)
    models = write_models_yaml(tmp_path / "m.yaml", tiny_models)
    line = _fails(
        [
            "eval",
            "--models",
            str(models),
            "--benchmarks",
            "tiny_mc,no_such_benchmark",
            "--include-path",
            str(tiny_tasks),
            "--out",
            str(store_copy),
        ],
        capsys,
    )
    assert "unknown benchmark 'no_such_benchmark'" in line
    assert _snapshot(store_copy) == before


@pytest.mark.eval
def test_missing_model_path(tmp_path, tiny_models, tiny_tasks, store_copy, capsys):
    before = _snapshot(store_copy)
    models = tmp_path / "m.yaml"
    models.write_text(f"- model: {tiny_models[0]}\n- name: gone\n  model: {tmp_path / 'no' / 'such' / 'model'}\n")
    line = _fails(
        [
            "eval",
            "--models",
            str(models),
            "--benchmarks",
            "tiny_mc",
            "--include-path",
            str(tiny_tasks),
            "--out",
            str(store_copy),
        ],
        capsys,
    )
    assert "'gone'" in line and "no such model directory" in line
    assert _snapshot(store_copy) == before
    assert gc.isenabled() and gc.get_freeze_count() == 0  # the start-up's collector settings undone on the way out


def test_malformed_models_file_leaves_no_store(tmp_path, capsys):
    models = tmp_path / "m.csv"
    models.write_text("name,revision\na,main\n")
    store = tmp_path / "store"
    line = _fails(["eval", "--models", str(models), "--benchmarks", "mmlu", "--out", str(store)], capsys)
    assert str(models) in line and "'model'" in line
    assert not store.exists()


def test_models_and_benchmarks_required(tmp_path, capsys):
    line = _fails(["eval", "--out", str(tmp_path / "s")], capsys)
    assert "--models and --benchmarks or --suite are required" in line


@pytest.mark.eval
def test_trust_remote_code_is_passed_as_given(monkeypatch):
    pytest.importorskip("torch")
    pytest.importorskip("lm_eval.models.huggingface")

    import densing.eval.loading as loading
    from densing.eval.loading import load_model
    from densing.eval.models import ModelSpec

    seen = []

    class Refuse:
        def __init__(self, **kwargs):
            seen.append(kwargs["trust_remote_code"])
            raise RuntimeError("not loading in this test")

    monkeypatch.setattr(
        loading, "registered_model", {"hf": Refuse}.__getitem__
    )  # the class lm-eval's registry names "hf"
    for flag in (False, True):
        with pytest.raises(Exception, match="not loading in this test"):
            load_model(
                ModelSpec(name="x", model="org/x", trust_remote_code=flag), backend="hf", device="cpu", batch_size=1
            )
    assert seen == [False, True]


@pytest.mark.eval
def test_a_close_miss_says_did_you_mean_in_one_short_line(tmp_path, tiny_models, tiny_tasks, store_copy, capsys):
    models = write_models_yaml(tmp_path / "m.yaml", tiny_models)
    line = _fails(
        [
            "eval",
            "--models",
            str(models),
            "--benchmarks",
            "mmlux",
            "--include-path",
            str(tiny_tasks),
            "--out",
            str(store_copy),
        ],
        capsys,
    )
    assert "unknown benchmark 'mmlux'; did you mean 'mmlu'?" in line and "densing eval --list" in line
    assert len(line) < 250 and "olmes_" not in line  # no list of every variant


def test_list_names_every_known_benchmark_with_its_tasks_and_shots(capsys):
    import io

    import pandas as pd

    from densing.eval.benchmarks import KNOWN_BENCHMARKS

    main(["eval", "--list", "--format", "csv"])
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert sorted(table["benchmark"]) == sorted(KNOWN_BENCHMARKS)
    row = table.set_index("benchmark").loc["gsm8k"]
    assert row["score_task"] == KNOWN_BENCHMARKS["gsm8k"].score_task and str(row["shots"]) == str(
        KNOWN_BENCHMARKS["gsm8k"].num_fewshot
    )


@pytest.mark.eval
def test_stdout_under_format_csv_is_exactly_the_csv(tmp_path, tiny_models, tiny_tasks, store_copy, capfd):
    import io

    import pandas as pd

    models = write_models_yaml(tmp_path / "m.yaml", tiny_models)
    main(
        [
            "eval",
            "--models",
            str(models),
            "--benchmarks",
            "tiny_mc",
            "--include-path",
            str(tiny_tasks),
            "--out",
            str(store_copy),
            "--format",
            "csv",
        ]
    )
    out, err = capfd.readouterr()
    assert out.splitlines()[0].startswith("model,benchmark,metric,value")
    table = pd.read_csv(io.StringIO(out))
    assert len(table) >= 1 and set(table["benchmark"]) == {"tiny_mc"}
    assert "sweep" not in out and "already in the store" in err
    assert gc.isenabled() and gc.get_freeze_count() == 0
