"""Every input a user can give either works or stops with one line on stderr and exit 2.

One test per kind of malformed or edge-case input (files, flags, values), run through the CLI
(``densing.cli.main``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import densing.present as present

REPO_ROOT = Path(__file__).resolve().parents[1]

FITS = REPO_ROOT / "reference_fits"
PYTHIA_FINAL = REPO_ROOT / "results" / "pythia_final.csv"
LM_EVAL_04 = {
    "results": {"arc_easy": {"alias": "arc_easy", "acc,none": 0.65, "acc_stderr,none": 0.01}},
    "config": {"model_args": "pretrained=org/model"},
    "n-shot": {"arc_easy": 0},
    "lm_eval_version": "0.4.2",
}


def one_line_exit_2(result, *words: str) -> None:
    code, _, err = result
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("error: "), err
    assert "Traceback" not in err
    for word in words:
        assert word in err, err


def _json(path: Path, data) -> Path:
    path.write_text(json.dumps(data))
    return path


def _scaled_params(tmp_path: Path, params: str) -> Path:
    import pandas as pd

    table = pd.read_csv(PYTHIA_FINAL)
    table["params"] = params if params != "billions" else table["params"] / 1e9
    path = tmp_path / "targets.csv"
    table.to_csv(path, index=False)
    return path


# -- nonsense accepted before: now one line, exit 2 ----------------------------------------------


def test_lm_eval_json_as_targets_says_it_has_no_params(tmp_path, run_cli):
    """Before: rows with empty params and density, exit 0."""
    one_line_exit_2(run_cli("density", "--targets", _json(tmp_path / "r.json", LM_EVAL_04)), "no parameter counts")


def test_convert_writes_no_table_from_lm_eval_json_without_params(tmp_path, run_cli):
    """Before: convert wrote a table its own reader then rejected."""
    out = tmp_path / "out.csv"
    one_line_exit_2(
        run_cli("convert", "--data", _json(tmp_path / "r.json", LM_EVAL_04), "--out", out), "no parameter counts"
    )
    assert not out.exists()


def test_fit_on_lm_eval_json_is_one_line(tmp_path, run_cli):
    """Before: KeyError: 'train_tokens' traceback."""
    one_line_exit_2(
        run_cli(
            "fit", "--data", _json(tmp_path / "r.json", LM_EVAL_04), "--benchmark", "arc_easy", "--law", "composed"
        ),
        "no parameter counts",
    )


def test_percent_score_in_lm_eval_json_is_refused_with_the_fraction(tmp_path, run_cli):
    """Before: acc 65 → above_ceiling, exit 0."""
    data = json.loads(json.dumps(LM_EVAL_04))
    data["results"]["arc_easy"]["acc,none"] = 65
    one_line_exit_2(run_cli("density", "--targets", _json(tmp_path / "r.json", data)), "a percentage?", "0.65")


def test_percent_score_in_tidy_table_names_the_fraction(tmp_path, run_cli):
    table = tmp_path / "t.csv"
    table.write_text("model,benchmark,metric,value,params\nm,arc_easy,acc,65,7e9\n")
    one_line_exit_2(run_cli("density", "--targets", table), "t.csv: line 2", "a percentage?", "0.65")


def test_params_in_billions_name_the_unit_mistake(tmp_path, run_cli):
    """Before: ρ ≈ 3e9, exit 0."""
    one_line_exit_2(run_cli("density", "--targets", _scaled_params(tmp_path, "billions")), "field 'params'", "billion")


def test_params_above_any_model_are_refused(tmp_path, run_cli):
    """Before: params 1e30 → ρ 2e-21, exit 0."""
    one_line_exit_2(run_cli("density", "--targets", _scaled_params(tmp_path, "1e30")), "field 'params'", "above 1e+13")


def test_fit_chance_above_the_highest_score_is_refused(run_cli):
    """Before: c = −1, d = 2, R² −14, exit 0."""
    one_line_exit_2(
        run_cli(
            "fit",
            "--data",
            PYTHIA_FINAL,
            "--benchmark",
            "arc_easy",
            "--law",
            "composed",
            "--chance",
            "2",
            "--n-boot",
            "0",
        ),
        "chance:",
    )


def test_fit_negative_n_boot_is_refused(run_cli):
    """Before: exit 0 with no draws."""
    one_line_exit_2(
        run_cli("fit", "--data", PYTHIA_FINAL, "--benchmark", "arc_easy", "--law", "composed", "--n-boot", "-5"),
        "n_boot:",
        "-5",
    )


def _edited_fit(tmp_path: Path, edit) -> Path:
    data = json.loads((FITS / "pythia_arc_easy_composed.json").read_text())
    edit(data)
    return _json(tmp_path / "edited.json", data)


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda d: d["params"].update(alpha=-0.3), ("params.alpha", "positive")),
        (lambda d: d.update(benchmark="hellaswag"), ("field 'benchmark'", "arc_easy")),
        (lambda d: d.update(kind="three-step"), ("field 'kind'", "three-step")),
        (lambda d: d.update(format="densing.reference_fit/2"), ("field 'format'", "version")),
        (lambda d: d["params"].update(gamma=1.0), ("params.gamma", "negative")),
        (lambda d: d["params"].pop("b"), ("field 'params'", "b")),
        (lambda d: d["bootstrap"][0].pop(), ("field 'bootstrap'", "draw 1")),
    ],
    ids=[
        "negative-alpha",
        "renamed-benchmark",
        "unknown-kind",
        "format-version",
        "gamma-sign",
        "missing-b",
        "ragged-draw",
    ],
)
def test_hand_edited_fit_is_refused_on_load(tmp_path, run_cli, edit, words):
    """Before: used as is."""
    one_line_exit_2(run_cli("density", "--fit", _edited_fit(tmp_path, edit), "--targets", PYTHIA_FINAL), *words)


def test_every_shipped_fit_passes_the_load_checks():
    from densing.laws.reference_fit import ReferenceFit

    kinds = {ReferenceFit.load(path).kind for path in sorted(FITS.glob("*.json"))}
    assert kinds == {"two-step", "composed", "family"}


def test_symlink_loop_as_fit_is_one_line(tmp_path, run_cli):
    """Before: OSError traceback."""
    (tmp_path / "a.json").symlink_to(tmp_path / "b.json")
    (tmp_path / "b.json").symlink_to(tmp_path / "a.json")
    one_line_exit_2(run_cli("density", "--fit", tmp_path / "a.json"), "a.json", "cannot read")


def test_out_folder_says_it_is_a_folder(tmp_path, run_cli):
    """Before: "unknown table format ''"."""
    one_line_exit_2(run_cli("convert", "--data", PYTHIA_FINAL, "--out", tmp_path), "is a directory")


# -- fits that should warn ------------------------------------------------------------------------


def test_density_leaves_a_poor_fit_out_of_the_geometric_mean(run_cli):
    """Before: pythia_arc_challenge_composed (R² −0.108) folded into the geometric mean with no note."""
    fits = [
        FITS / "pythia_arc_challenge_composed.json",
        FITS / "pythia_arc_easy_composed.json",
        FITS / "pythia_sciq_composed.json",
    ]
    args = [a for f in fits for a in ("--fit", f)] + ["--targets", PYTHIA_FINAL, "--format", "json"]
    code, out, err = run_cli("density", *args)
    assert code == 0
    assert err.count("\n") == 1 and "left out of the geometric mean: arc_challenge" in err and "R² -0.108" in err
    rows = json.loads(out)
    geo = {r["model"]: r["density"] for r in rows if r["benchmark"] == "geomean"}
    by = {(r["model"], r["benchmark"]): r["density"] for r in rows}
    model = "pythia-1.4b@step143000"
    assert geo[model] == pytest.approx((by[model, "arc_easy"] * by[model, "sciq"]) ** 0.5)
    assert {r["fit_verdict"] for r in rows if r["benchmark"] == "arc_challenge"} == {"poor fit: R² -0.108 < 0.5"}

    code, out, err = run_cli("density", *args, "--include-poor-fits")
    geo_all = {r["model"]: r["density"] for r in json.loads(out) if r["benchmark"] == "geomean"}
    assert code == 0 and "kept in the geometric mean" in err
    assert geo_all[model] == pytest.approx(
        (by[model, "arc_easy"] * by[model, "sciq"] * by[model, "arc_challenge"]) ** (1 / 3)
    )


def test_fit_on_random_scores_warns(tmp_path, run_cli):
    """Before: R² 0.0000 and "converged" with no word of warning."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(1)
    n = np.repeat([7e7, 1.6e8, 4e8, 1e9, 1.4e9, 2.8e9, 6.9e9], 3)
    table = pd.DataFrame(
        {
            "model": [f"m{i}" for i in range(21)],
            "benchmark": "toy",
            "metric": "acc",
            "value": rng.uniform(0.3, 0.6, 21),
            "params": n,
            "train_tokens": np.tile([1e10, 1e11, 3e11], 7),
        }
    )
    table.to_csv(tmp_path / "random.csv", index=False)
    code, _, err = run_cli(
        "fit", "--data", tmp_path / "random.csv", "--benchmark", "toy", "--law", "composed", "--n-boot", "0"
    )
    assert code == 0 and "poor fit: R²" in err and "do not invert" in err


def test_interval_notes_name_a_parameter_outside_its_interval():
    from dataclasses import replace

    from densing.laws.reference_fit import ReferenceFit
    from densing.present.laws import interval_notes

    fit = ReferenceFit.load(FITS / "pythia_arc_easy_composed.json")
    assert all(note.split(" = ")[0] != "a" for note in interval_notes(fit))
    moved = replace(
        fit, params={**fit.params, "a": 1e6 * max(r[fit.bootstrap_names.index("a")] for r in fit.bootstrap)}
    )
    notes = interval_notes(moved)
    assert any(note.startswith("a = ") and "outside its bootstrap interval" in note for note in notes)


# -- the command line itself ----------------------------------------------------------------------


def test_version_and_short_help(run_cli):
    from densing import __version__

    code, out, _ = run_cli("--version")
    assert code == 0 and out == f"densing {__version__}\n"
    code, out, _ = run_cli("-h")
    assert code == 0 and out.startswith("Usage: densing")
    code, out, _ = run_cli("density", "-h")
    assert code == 0 and out.startswith("Usage: densing density")


def test_did_you_mean_is_said_once(run_cli):
    code, _, err = run_cli("densty")
    assert code == 2 and err.count("Did you mean 'density'?") == 1


def test_raw_obsscaling_table_names_its_model_column(tmp_path, run_cli):
    """Before: "neither a tidy table … nor a wide one" when the problem is its 'Model' column."""
    table = tmp_path / "obs.csv"
    table.write_text("Model,Model Family,Model Size (B),MMLU,ARC-C\nmeta-llama/Llama-2-7b-hf,Llama-2,7.0,0.44,0.53\n")
    one_line_exit_2(run_cli("density", "--targets", table), "needs a column 'model'", "found 'Model'")
    table.write_text("model,Model Size (B),MMLU\nmeta-llama/Llama-2-7b-hf,7.0,0.44\n")
    one_line_exit_2(run_cli("density", "--targets", table), "needs a column 'params'", "found 'Model Size (B)'")


# -- slower: the real Pythia folder and OLMo ladder ------------------------------------------------

SHARED = REPO_ROOT.parent / "shared" / "data"
PYTHIA = SHARED / "pythia_evals" / "pythia-v1"


@pytest.mark.slow
@pytest.mark.skipif(not PYTHIA.is_dir(), reason="public Pythia evals not found")
def test_fit_on_the_pythia_folder_drops_the_warm_up_like_validate(run_cli):
    """Before: `fit` kept the warm-up checkpoints `validate` drops (loss R² 0.57)."""

    def points(*extra):
        code, out, err = run_cli(
            "fit", "--data", PYTHIA, "--benchmark", "lambada_openai", "--n-boot", "0", "--format", "json", *extra
        )
        assert code == 0, err
        rows = json.loads(out)
        return rows[0]["n_points"]

    assert points() < points("--min-train-tokens", "none")


@pytest.mark.slow
@pytest.mark.skipif(not (SHARED / "olmo_ladder").is_dir(), reason="OLMo ladder data not found")
def test_ladder_fit_writes_nothing_unless_asked(tmp_path, run_cli, monkeypatch):
    """Before: `ladder fit` rewrote the tracked reference_fits/ by default."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("ladder", "fit", "--data", SHARED / "olmo_ladder", "--n-boot", "0")
    assert code == 0 and "nothing written" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
@pytest.mark.skipif(not PYTHIA.is_dir(), reason="public Pythia evals not found")
def test_the_package_docstring_example_runs(monkeypatch):
    """Before: its `densing.fit_trend(table)` failed (every Pythia model has one release date)."""
    import densing

    monkeypatch.chdir(REPO_ROOT)
    code = densing.__doc__.split("::", 1)[1].split("\n\n", 2)[1]
    code = "\n".join(line[4:] for line in code.splitlines()).replace("../shared/data", str(SHARED))
    code = code.replace("n_boot=100", "n_boot=40")
    namespace: dict = {}
    exec(compile(code, "densing.__doc__", "exec"), namespace)
    assert "result" in namespace and present.verdict_of(namespace["result"])


@pytest.mark.parametrize(
    "option, words",
    [
        (("--limit", "-3"), "limit: expected a whole number in [1, 10,000,000]"),
        (("--batch-size", "0"), "batch_size: expected an integer ≥ 1"),
        (("--backend", "tpu"), "backend: expected one of "),
        (("--format", "xml"), "output_format: expected one of"),
    ],
)
def test_eval_sweep_options_are_checked_before_anything_loads(tmp_path, run_cli, option, words):
    one_line_exit_2(run_cli("eval", "--models", tmp_path / "absent.yaml", "--benchmarks", "arc_easy", *option), words)


def test_max_params_in_billions_names_the_unit_mistake(run_cli):
    """Before: "max_params 7: no reference model is smaller; nothing to fit"."""
    one_line_exit_2(
        run_cli(
            "validate", "--data", PYTHIA_FINAL, "--benchmark", "arc_easy", "--max-params", "7", "--law", "composed"
        ),
        "max_params",
        "7e+09 for 7 billion",
    )


def test_fit_json_carries_the_verdict_and_whether_each_interval_holds_its_estimate(tmp_path, run_cli):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(1)
    n = np.repeat([7e7, 1.6e8, 4e8, 1e9, 1.4e9, 2.8e9, 6.9e9], 3)
    pd.DataFrame(
        {
            "model": [f"m{i}" for i in range(21)],
            "benchmark": "toy",
            "metric": "acc",
            "value": rng.uniform(0.3, 0.6, 21),
            "params": n,
            "train_tokens": np.tile([1e10, 1e11, 3e11], 7),
        }
    ).to_csv(tmp_path / "random.csv", index=False)
    code, out, _ = run_cli(
        "fit",
        "--data",
        tmp_path / "random.csv",
        "--benchmark",
        "toy",
        "--law",
        "composed",
        "--n-boot",
        "40",
        "--format",
        "json",
    )
    rows = json.loads(out)
    assert code == 0 and {r["fit_verdict"] for r in rows} == {"poor fit: R² -0.022 < 0.5"}
    for r in rows:
        assert r["ci_contains_estimate"] == (r["ci_low"] <= r["estimate"] <= r["ci_high"])


def test_progress_lines_go_to_a_terminal_only(tmp_path, run_cli, monkeypatch):
    """A long step says what it does on an interactive stderr; a captured one keeps only real messages."""
    import sys

    table = tmp_path / "many.csv"
    base = PYTHIA_FINAL.read_text().splitlines()
    table.write_text(
        "\n".join([base[0]] + [line.replace("@step143000", f"@copy{i}") for i in range(265) for line in base[1:]])
        + "\n"
    )
    code, _, err = run_cli("density", "--targets", table, "--fit", FITS / "pythia_arc_easy_composed.json")
    assert code == 0 and "inverting" not in err
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    code, _, err = run_cli("density", "--targets", table, "--fit", FITS / "pythia_arc_easy_composed.json")
    assert code == 0 and "inverting 20405 rows through 1 fit(s)" in err


def test_a_fit_on_another_metric_names_the_targets_metrics(run_cli):
    one_line_exit_2(
        run_cli("density", "--fit", FITS / "pile_arc_challenge_composed.json", "--targets", PYTHIA_FINAL),
        "metric 'score'",
        "the targets score them as acc, acc_norm",
    )


def test_the_eval_table_title_names_the_loss_unit():
    import pandas as pd

    from densing.cli.eval import _loss_title

    assert "bits per byte" in _loss_title(pd.DataFrame({"loss_unit": ["bpb", "bpb"]}))
    assert "per item" not in _loss_title(pd.DataFrame({"loss_unit": ["bpb"]}))
    both = _loss_title(pd.DataFrame({"loss_unit": ["bpb", "nats"]}))
    assert "bpb: bits per byte" in both and "nats: mean −log P" in both


def test_density_takes_d0_from_each_targets_train_tokens(run_cli, tmp_path):
    import io

    import pandas as pd
    from conftest import REPO_ROOT

    code, out, err = run_cli(
        "density",
        "--fit",
        REPO_ROOT / "reference_fits" / "pythia_lambada_openai_two_step.json",
        "--targets",
        REPO_ROOT / "results" / "pythia_final.csv",
        "--d0",
        "train_tokens",
        "--format",
        "csv",
    )
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out))
    tokens = (
        pd.read_csv(REPO_ROOT / "results" / "pythia_final.csv")
        .drop_duplicates("model")
        .set_index("model")["train_tokens"]
    )
    assert (table["d0"].to_numpy() == tokens.loc[table["model"]].to_numpy()).all()
    bare = tmp_path / "t.csv"
    pd.read_csv(REPO_ROOT / "results" / "pythia_final.csv").drop(columns=["train_tokens"]).to_csv(bare, index=False)
    code, out, err = run_cli(
        "density", "--fit", "pythia_lambada_openai_two_step", "--targets", bare, "--d0", "train_tokens"
    )
    assert code == 2 and out == "" and "--d0 train_tokens" in err and "no train_tokens column" in err


@pytest.mark.parametrize("below", ["", "store", "store/deeper"])
def test_an_output_under_a_file_is_refused_in_one_line_before_any_work(tmp_path, below):
    """A file where the output's folder (or one of its parents) should be: the store of densing eval/measure/ingest/
    merge-cache and any written file are refused by the one check, not by the operating system later."""
    from densing.errors import InputError
    from densing.io import check_writable, check_writable_folder

    blocker = tmp_path / "afile"
    blocker.write_text("x")
    target = blocker / below if below else blocker
    with pytest.raises(InputError, match="not a folder|cannot make or write|cannot write here"):
        check_writable_folder(target)
    if below:
        with pytest.raises(InputError, match="cannot write here"):
            check_writable(target / "out.json")
    assert check_writable_folder(tmp_path / "new" / "store") == tmp_path / "new" / "store"
    assert not (tmp_path / "new").exists()


def test_ingest_refuses_a_store_under_a_file_before_reading(tmp_path):
    from densing.errors import InputError
    from densing.eval.ingest import ingest

    (tmp_path / "outputs").mkdir()
    (tmp_path / "afile").write_text("x")
    with pytest.raises(InputError, match="cannot make or write"):
        ingest(tmp_path / "outputs", tmp_path / "afile" / "store")


def test_a_run_folder_whose_run_file_is_not_text_is_one_line(tmp_path, run_cli):
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.yaml").write_bytes(b"config:\n  strategy: \xff\xfe\n")
    one_line_exit_2(run_cli("overlap", "validate", str(run)), "not UTF-8 text (byte 0xff at offset 20)")
