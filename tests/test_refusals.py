"""Refusals where the input is a combination or a label: options that cannot apply together (every declared pair of
:data:`densing.cli.app.EXCLUSIVE`), runs named by their own ``run.yaml``, registrations outside what a registry
holds, the API's bad arguments (DensingError subclasses only), a suite's note never before a refusal."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from densing.errors import InputError
from tests.test_domains import REPO_ROOT, _one_line_exit_2, write_run_folder

# ---------------------------------------------------------------------------------------------
# labels from the data: a run is named by its own run.yaml


def _run(folder: Path, strategy: str, loss: str = "2.5") -> Path:
    return write_run_folder(folder, strategy, loss)


def test_convergence_names_each_run_by_its_own_strategy(tmp_path, run_cli):
    from densing.overlap.validate import convergence

    ddp, co2 = _run(tmp_path / "a", "ddp"), _run(tmp_path / "b", "co2")
    swapped = convergence(co2, ddp, window=2)  # the co2 run given first
    assert list(swapped["strategy"]) == ["ddp", "co2"] and swapped["run"].tolist() == [str(ddp), str(co2)]
    assert swapped["local_steps"].tolist()[1] == 4
    code, out, err = run_cli("overlap", "convergence", co2, ddp, "--window", "2", "--format", "csv")
    assert code == 0 and out.splitlines()[1].startswith("ddp,") and out.splitlines()[2].startswith("co2,"), (out, err)


@pytest.mark.parametrize(
    "first,second,words",
    [
        ("ddp", "ddp", ("config.strategy", "'ddp', the same as")),
        ("co2", "co2", ("config.strategy", "'co2', the same as")),
        ("ddp", "sync", ("neither run is a co2 run",)),
    ],
    ids=["two ddp runs", "two co2 runs", "no co2 run"],
)
def test_convergence_refuses_runs_that_are_not_two_strategies(first, second, words, tmp_path, run_cli):
    a, b = _run(tmp_path / "a", first), _run(tmp_path / "b", second)
    _one_line_exit_2(run_cli("overlap", "convergence", a, b), str(b), *words)


def test_convergence_refuses_a_run_whose_losses_are_all_nan(tmp_path, run_cli):
    ddp, co2 = _run(tmp_path / "a", "ddp"), _run(tmp_path / "b", "co2", loss="nan")
    _one_line_exit_2(
        run_cli("overlap", "convergence", ddp, co2),
        str(co2 / "metrics.csv"),
        "field 'loss'",
        "NaN on every one of 10 rows",
    )


# ---------------------------------------------------------------------------------------------
# options that cannot apply together: every declared pair of densing.cli.app.EXCLUSIVE is refused

#: Each command's ordinary required inputs, and the words that give one option (``{folder}``: an empty folder).
COMMAND_LINE = {
    "fit": ["fit", "--data", str(REPO_ROOT / "results" / "pythia_final.csv"), "--benchmark", "arc_easy"],
    "trend": ["trend"],
    "overlap validate": ["overlap", "validate", "{folder}"],
    "measure": ["measure"],
    "overlap whatif": ["overlap", "whatif", "{folder}"],
}
OPTION_WORDS = {
    "family": ["--family", "pythia"],
    "law": ["--law", "two-step"],
    "irreducible": ["--irreducible"],
    "chance": ["--chance", "auto"],
    "ceiling": ["--ceiling", "1.0"],
    "max_params": ["--max-params", "1e9"],
    "families": ["--families", "pythia"],
    "design": ["--design", "olmes"],
    "without_continual": ["--without-continual"],
    "table_name": ["--table", "swallow"],
    "contention": ["--contention", "0.1"],
    "calibration": ["--calibration"],
    "runs": ["{folder}"],
    "scores": ["--scores", "{folder}/scores.csv"],
    "models": ["--models", "{folder}/models.yaml"],
    "local_data": ["--local-data"],
    "model_name": ["--model", "x"],
    "params": ["--params", "7B"],
    "release_date": ["--release-date", "2024-06-01"],
    "suite": ["--suite", "swallow-en"],
    "limit": ["--limit", "5"],
    "store": ["--store", "{folder}"],
    "backend": ["--backend", "vllm"],
    "device": ["--device", "cpu"],
    "batch_size": ["--batch-size", "4"],
    "data_root": ["--data-root", "{folder}"],
    "allow_unsafe_code": ["--allow-unsafe-code"],
    "prefix_cache": ["--prefix-cache"],
    "template": ["--template", "{folder}/template.csv"],
    "out": ["--out", "{folder}/report.html"],
    "csv": ["--csv", "{folder}/rows.csv"],
    "n_boot": ["--n-boot", "40"],
    "seed": ["--seed", "3"],
    "contention_from": ["--contention-from", "{folder}"],
    "allow_missing": ["--allow-missing"],
}


def _declared_pairs():
    from densing.cli.app import EXCLUSIVE

    return [(command, first, second) for command, pairs in EXCLUSIVE.items() for first, second, _ in pairs]


def test_the_declared_pairs_name_options_of_their_commands():
    import typer.main

    from densing.cli.app import EXCLUSIVE, app

    pairs = _declared_pairs()
    assert len(pairs) >= 10 and set(EXCLUSIVE) >= {"fit", "trend", "overlap validate"}
    root = typer.main.get_command(app)
    for command, first, second in pairs:
        node = root
        for word in command.split():
            node = node.commands[word]
        names = {p.name for p in node.params}
        assert first.param in names and second.param in names, (command, first, second)


@pytest.mark.parametrize(
    "command,first,second", _declared_pairs(), ids=[f"{c}: {a.param}+{b.param}" for c, a, b in _declared_pairs()]
)
def test_every_declared_exclusive_pair_is_refused_in_one_line(command, first, second, tmp_path, run_cli):
    folder = tmp_path / "run"
    folder.mkdir()
    words = [w.format(folder=folder) for w in COMMAND_LINE[command]]
    for given in (first, second):
        words += [w.format(folder=folder) for w in OPTION_WORDS[given.param]]
    code, out, err = run_cli(*words)

    def flag(given):
        return next(w for w in OPTION_WORDS[given.param] if w.startswith("--")) if given.param != "runs" else "runs"

    _one_line_exit_2((code, out, err), "cannot apply with", flag(first))
    assert flag(second) in err


def test_contention_without_a_tensor_parallel_run_is_refused(tmp_path, run_cli):
    from densing.overlap.validate import validate_root

    (tmp_path / "out" / "sync").mkdir(parents=True)
    (tmp_path / "out" / "sync" / "run.yaml").write_text("config:\n  strategy: sync\n")
    with pytest.raises(InputError, match="no tensor-parallel run"):
        validate_root(tmp_path / "out", contention=0.2)
    _one_line_exit_2(run_cli("overlap", "validate", tmp_path / "out", "--contention", "0.2"), "no tensor-parallel run")
    _one_line_exit_2(
        run_cli("overlap", "validate", tmp_path / "out" / "sync", "--contention", "0.2"), "--contention", "is one run"
    )


# ---------------------------------------------------------------------------------------------
# registries check what they hold at registration, and a refused registration changes nothing


def _bad_registrations():
    from dataclasses import replace

    from densing import registry
    from densing.cli import output
    from densing.data import benchmarks, formats
    from densing.eval.backends import BACKENDS
    from densing.overlap.strategies import registry as strategies
    from densing.trend import rules

    rule = rules.RULES["quantile"]
    strategy = strategies.get("ddp")
    data_format = formats.FORMATS["table"]
    record = benchmarks.BENCHMARKS.get("sciq")
    return {
        "rule: name 123": (rules.RULES, lambda: rules.RULES.register(123, rule), "a non-empty string"),
        "rule: name None": (rules.RULES, lambda: rules.RULES.register(None, rule), "a non-empty string"),
        "rule: blank name": (rules.RULES, lambda: rules.RULES.register(" ", rule), "a non-empty string"),
        "rule: solve=42": (rules.RULES, lambda: rules.register(replace(rule, name="r42", solve=42)), "field 'solve'"),
        "rule: solve of two arguments": (
            rules.RULES,
            lambda: rules.register(replace(rule, name="r2", solve=lambda t, y: 0)),
            "does not take 7",
        ),
        "rule: not a rule": (rules.RULES, lambda: rules.RULES.register("dict", {}), "expected a FrontierRule"),
        "table: not a table": (registry.TABLES, lambda: registry.TABLES.register("t", "results.csv"), "TrendTable"),
        "strategy: negative step time": (
            strategies._REGISTRY,
            lambda: strategies.register(replace(strategy, name="fast", step_time_s=lambda point: -1.0)),
            "field 'step_time_s'",
        ),
        "strategy: step time of no argument": (
            strategies._REGISTRY,
            lambda: strategies.register(replace(strategy, name="bare", step_time_s=lambda: 1.0)),
            "does not take 1",
        ),
        "strategy: NaN step time": (
            strategies._REGISTRY,
            lambda: strategies.register(replace(strategy, name="nan", step_time_s=lambda point: float("nan"))),
            "finite step time",
        ),
        "format: sniff None": (
            formats.FORMATS,
            lambda: formats.register_format(replace(data_format, name="nosniff", sniff=None)),
            "field 'sniff'",
        ),
        "format: read of no argument": (
            formats.FORMATS,
            lambda: formats.register_format(replace(data_format, name="noread", read=lambda: None)),
            "field 'read'",
        ),
        "format: negative min_train_tokens": (
            formats.FORMATS,
            lambda: formats.register_format(replace(data_format, name="neg", min_train_tokens=-5.0)),
            "field 'min_train_tokens'",
        ),
        "benchmark: chance 2.0": (
            benchmarks.BENCHMARKS,
            lambda: benchmarks.register(replace(record, name="b1", columns=(), runs=(), chance=2.0)),
            "field 'chance'",
        ),
        "benchmark: chance 1": (
            benchmarks.BENCHMARKS,
            lambda: benchmarks.register(replace(record, name="b2", columns=(), runs=(), chance=1.0)),
            "field 'chance'",
        ),
        "benchmark: -5 items": (
            benchmarks.BENCHMARKS,
            lambda: benchmarks.register(replace(record, name="b3", columns=(), runs=(), items=-5)),
            "field 'items'",
        ),
        "benchmark: 2.5 items": (
            benchmarks.BENCHMARKS,
            lambda: benchmarks.register(replace(record, name="b4", columns=(), runs=(), items=2.5)),
            "field 'items'",
        ),
        "benchmark: name not its own": (
            benchmarks.BENCHMARKS,
            lambda: benchmarks.BENCHMARKS.register("other", replace(record, name="b5", columns=(), runs=())),
            "its own name",
        ),
        "--format: not callable": (output.OUTPUTS, lambda: output.OUTPUTS.register("x", 42), "field 'writer'"),
        "backend: not a backend": (BACKENDS, lambda: BACKENDS.register("b", object()), "expected a Backend"),
    }


@pytest.mark.parametrize("case", list(_bad_registrations()))
def test_a_bad_registration_is_refused_and_leaves_the_registry_unchanged(case):
    from densing.errors import RegistryError

    registry, register, words = _bad_registrations()[case]
    before = list(registry.items())
    with pytest.raises(RegistryError, match=re.escape(words)) as raised:
        register()
    assert "\n" not in str(raised.value)
    assert list(registry.items()) == before
    with pytest.raises(InputError, match="expected one of"):  # the unknown-name message still lists the names
        registry.get("no such name")


# ---------------------------------------------------------------------------------------------
# the API raises DensingError subclasses only


def test_the_api_answers_bad_arguments_with_densing_errors_only():
    import densing
    from densing.paths import resolve_fit
    from tests.trend.test_doubling import planted_law, planted_scores

    table = densing.read_results(REPO_ROOT / "results" / "pythia_final.csv")
    with pytest.raises(densing.InputError, match="no 'loss' column"):  # a KeyError 'loss' before
        densing.fit_reference(table.drop(columns="loss"), "arc_easy", n_boot=2)
    for value in ("", " "):
        with pytest.raises(densing.InputError, match="empty path"):  # the working folder before
            resolve_fit(value)
    fit = densing.fit_trend(
        planted_scores(n=30, start_day=0, end_day=700), planted_law(), rule="all", n_boot=40, n_boot_share=0, since=None
    )
    for call in (fit.predict, fit.confidence_band):
        for value in ("garbage", None, 42, ["2024-01-01", "later"]):  # pandas' DateParseError, TypeError before
            with pytest.raises(densing.InputError, match="dates"):
                call(value)
    assert np.isfinite(fit.predict(["2024-01-01"])).all() and len(fit.confidence_band(["2024-01-01"])[0]) == 1


@pytest.mark.parametrize("suite", ["leaderboard-v1", "leaderboard-v2"])
def test_a_suites_note_never_comes_before_a_refusal(suite, tmp_path, run_cli):
    """--local-data leaves part of the suite out, which is a note; a missing models file is still one line."""
    _one_line_exit_2(
        run_cli(
            "eval", "--suite", suite, "--local-data", "--models", tmp_path / "absent.yaml", "--out", tmp_path / "store"
        ),
        "absent.yaml",
        "no such models file",
    )


# ---------------------------------------------------------------------------------------------
# model loading: inputs checked before it starts; its progress bars never come before a refusal


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from tests.eval.conftest import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


def test_a_model_folder_without_a_tokenizer_is_refused_before_loading(tiny_model, tmp_path, run_cli):
    """lm-eval loaded such a model and then failed on its first request with an AssertionError traceback."""
    import shutil

    bare = tmp_path / "bare"
    shutil.copytree(tiny_model, bare, ignore=shutil.ignore_patterns("tokenizer*", "vocab*", "merges*", "special*"))
    models = tmp_path / "models.yaml"
    models.write_text(f"models:\n  - model: {bare}\n    params: 1e5\n    train_tokens: 2e6\n")
    code, out, err = run_cli(
        "eval", "--models", models, "--benchmarks", "arc_easy", "--device", "cpu", "--out", tmp_path / "store"
    )
    _one_line_exit_2((code, out, err), str(bare), "no tokenizer", "model_args tokenizer=")
    assert not (tmp_path / "store").exists()


def test_a_load_that_fails_after_the_weights_are_read_is_one_line_without_progress_bars(tiny_model, capfd, monkeypatch):
    """An error seen only once loading has started (here: counting the loaded model's parameters) is one line, with
    no transformers bar ("Loading weights") before it; the same load outside quiet_loading() prints that bar."""
    from transformers import AutoModelForCausalLM

    from densing.errors import EvalError
    from densing.eval import loading
    from densing.eval.models import ModelSpec

    AutoModelForCausalLM.from_pretrained(tiny_model)
    shown = capfd.readouterr().err
    with loading.quiet_loading():
        AutoModelForCausalLM.from_pretrained(tiny_model)
    assert "Loading weights" in shown and capfd.readouterr().err == ""

    def fail(lm, spec):
        raise RuntimeError("the loaded model holds no parameters\nsecond line")

    monkeypatch.setattr(loading, "_count_loaded", fail)
    with pytest.raises(EvalError) as raised:
        loading.load_model(ModelSpec(name="tiny", model=str(tiny_model)), backend="hf", device="cpu", batch_size=1)
    assert str(raised.value) == f"model 'tiny': cannot load {tiny_model}: the loaded model holds no parameters"
    assert "Loading weights" not in capfd.readouterr().err


def test_a_device_this_machine_lacks_is_refused_before_loading(tiny_model, tmp_path, run_cli):
    """lm-eval ran such a sweep on the CPU without a word."""
    import torch

    device = f"cuda:{torch.cuda.device_count()}"  # one past the last GPU here (cuda:0 on a machine without one)
    models = tmp_path / "models.yaml"
    models.write_text(f"models:\n  - model: {tiny_model}\n    params: 1e5\n    train_tokens: 2e6\n")
    code, out, err = run_cli(
        "eval", "--models", models, "--benchmarks", "arc_easy", "--device", device, "--out", tmp_path / "store"
    )
    _one_line_exit_2((code, out, err), f"device: '{device}' is not on this machine")
    assert not (tmp_path / "store").exists()
