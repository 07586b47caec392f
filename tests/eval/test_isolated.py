"""densing.eval.isolated: each model of a sweep in a process of its own (the vllm backend's default), run here on
the hf backend with tiny models (no GPU)."""

from __future__ import annotations

import pandas as pd
import pytest

from densing.errors import EvalError, InputError

from .conftest import models_entries

pytest.importorskip("torch")
pytest.importorskip("lm_eval")
pytestmark = pytest.mark.eval

COLUMNS = ["model", "benchmark", "metric", "value", "loss", "items"]


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[COLUMNS].sort_values(COLUMNS[:3]).reset_index(drop=True)


def test_models_in_processes_of_their_own_give_the_same_rows_and_progress(
    tmp_path, tiny_models, tiny_tasks, reference_store, monkeypatch
):
    """The rows equal the in-process sweep's; progress arrives in the parent as it would in process; the model is
    never loaded in the parent; a rerun skips every pair without starting a child."""
    from densing.eval import runner
    from densing.eval.runner import run_sweep

    events: list[tuple] = []
    loaded: list[str] = []
    original = runner.load_model

    def watched(spec, **kwargs):  # replaced in this process only: a child loads with the original
        loaded.append(spec.name)
        return original(spec, **kwargs)

    monkeypatch.setattr(runner, "load_model", watched)
    store = tmp_path / "store"
    handed: list[tuple] = []
    rows = run_sweep(
        models_entries(tiny_models),
        ["tiny_mc", "tiny_gen"],
        store,
        include_paths=[tiny_tasks],
        device="cpu",
        isolate=True,
        on_progress=lambda *event: events.append(event),
        on_requests=lambda model, bench, requests: handed.append((model, bench, requests)),
    )
    pd.testing.assert_frame_equal(
        _sorted(rows),
        _sorted(
            run_sweep(
                models_entries(tiny_models),
                ["tiny_mc", "tiny_gen"],
                reference_store,
                include_paths=[tiny_tasks],
                device="cpu",
            )
        ),
    )
    assert loaded == []
    assert [(model, bench, requests.request_type, requests.count) for model, bench, requests in handed] == [
        (f"tiny-{i}", bench, kind, count)
        for i in (0, 1)
        for bench, kind, count in (
            ("tiny_mc", "loglikelihood", 15),
            ("tiny_gen", "generate_until", 4),
            ("tiny_gen", "loglikelihood", 4),
        )
    ]  # tiny_gen's generations, then its loss
    run_sweep(
        models_entries(tiny_models)[:1], ["tiny_mc"], tmp_path / "in-process", include_paths=[tiny_tasks], device="cpu"
    )
    assert loaded == ["tiny-0"]  # the watch sees a model loaded in this process
    assert events == [
        (f"tiny-{i}", bench, status)
        for i in (0, 1)
        for bench, statuses in (
            ("tiny_mc", ("running", "loading", "loaded", "done")),
            ("tiny_gen", ("running", "done")),
        )
        for status in statuses
    ]
    events.clear()
    run_sweep(
        models_entries(tiny_models),
        ["tiny_mc", "tiny_gen"],
        store,
        include_paths=[tiny_tasks],
        device="cpu",
        isolate=True,
        on_progress=lambda *event: events.append(event),
    )
    assert {status for _, _, status in events} == {"skipped"} and len(events) == 4


def test_a_childs_error_comes_back_as_its_one_line(tmp_path, tiny_tasks):
    """A model folder that exists but holds no model: the child fails to load it; the parent raises the error
    class and message the child raised (or names the model and exit status), and leaves no part."""
    from densing.eval.runner import run_sweep
    from densing.eval.store import part_path

    folder = tmp_path / "not-a-model"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    models = [{"name": "broken", "model": str(folder), "train_tokens": "2M", "release_date": "2024-01-01"}]
    with pytest.raises((EvalError, InputError)) as raised:
        run_sweep(models, ["tiny_mc"], tmp_path / "store", include_paths=[tiny_tasks], device="cpu", isolate=True)
    message = str(raised.value)
    assert "\n" not in message and ("broken" in message or "not-a-model" in message), message
    assert not part_path(tmp_path / "store", "broken", "tiny_mc").exists()


def test_isolation_is_refused_under_a_data_parallel_launcher(tmp_path, tiny_models, tiny_tasks, monkeypatch):
    from densing.eval.runner import run_sweep

    monkeypatch.setenv("WORLD_SIZE", "2")
    with pytest.raises(InputError, match="isolate: .*WORLD_SIZE"):
        run_sweep(
            models_entries(tiny_models),
            ["tiny_mc"],
            tmp_path / "store",
            include_paths=[tiny_tasks],
            device="cpu",
            backend="vllm",
        )
    assert not (tmp_path / "store").exists()


def test_the_command_line_option_and_model_args_reach_the_sweep(tmp_path, monkeypatch, capsys):
    """--isolate/--no-isolate reach run_sweep (None when not given: the backend decides); --model-args is added to
    every model's own model_args, the models file winning on a shared key."""
    import yaml
    from typer.testing import CliRunner

    from densing.cli import main
    from densing.cli.app import app
    from densing.eval import runner

    seen = {}

    def fake(specs, names, out, **options):
        seen.update(options, specs=specs)
        return pd.DataFrame()

    monkeypatch.setattr(runner, "run_sweep", fake)
    (tmp_path / "config.json").write_text("{}")  # a model folder as the early source check reads it
    (tmp_path / "tokenizer.json").write_text("{}")
    models = tmp_path / "models.yaml"
    models.write_text(
        yaml.safe_dump(
            {
                "models": [
                    {"name": "a", "model": str(tmp_path), "model_args": {"max_model_len": 2048}},
                    {"name": "b", "model": str(tmp_path)},
                ]
            }
        )
    )
    for flag, expected in [([], None), (["--isolate"], True), (["--no-isolate"], False)]:
        result = CliRunner().invoke(
            app,
            [
                "eval",
                "--models",
                str(models),
                "--benchmarks",
                "tiny_mc",
                "--out",
                str(tmp_path / "s"),
                "--model-args",
                "tensor_parallel_size=2,max_model_len=4096",
                *flag,
            ],
        )
        assert result.exit_code == 0, result.output
        assert seen["isolate"] is expected
    assert [dict(spec.model_args) for spec in seen["specs"]] == [
        {"max_model_len": 2048, "tensor_parallel_size": 2},
        {"max_model_len": 4096, "tensor_parallel_size": 2},
    ]
    with pytest.raises(SystemExit) as exit_info:
        main(["eval", "--models", str(models), "--benchmarks", "tiny_mc", "--model-args", "pretrained=x"])
    err = capsys.readouterr().err.strip().splitlines()
    assert exit_info.value.code == 2 and len(err) == 1 and err[0].startswith("error: --model-args: "), err
