"""Outputs as the user wrote them (each declared by :func:`densing.cli.output_files.output_option`): ``DIR/`` is a
folder (made) holding the command's file under its default name; ``-`` is standard output where the file can be a
stream and refused where it cannot (nothing named ``-`` is ever written); a read-only output is refused, not
replaced."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT

PUBLIC = REPO_ROOT / "results" / "public_models.csv"


def test_a_trailing_slash_is_a_folder_holding_the_default_name(tmp_path, run_cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("measure", "--template", "new/")
    assert code == 0 and (tmp_path / "new" / "scores.csv").is_file(), err
    code, out, err = run_cli("convert", "--data", PUBLIC, "--out=tables/")
    assert code == 0 and (tmp_path / "tables" / "results.csv").is_file(), err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new", "tables"]


def test_dash_streams_a_csv_and_writes_no_file(tmp_path, run_cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("convert", "--data", PUBLIC, "--out", "-")
    assert code == 0 and out.startswith("model,benchmark,metric,value") and "wrote" not in out, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "argv,option",
    [
        (["report", "--out", "-"], "--out"),
        (["measure", "--scores", "s.csv", "--csv", "-"], "--csv"),
        (["measure", "--scores", "s.csv", "--out=-"], "--out"),
        (["fit", "--data", str(PUBLIC), "--benchmark", "mmlu", "--out", "-"], "--out"),
    ],
)
def test_dash_is_refused_where_the_file_cannot_be_a_stream(argv, option, tmp_path, run_cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(*argv)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"error: {option} -: ") and "cannot be standard output" in err, err
    assert list(tmp_path.iterdir()) == []


def test_the_options_read_their_outputs_themselves_without_the_entry(tmp_path, monkeypatch):
    """The typer app run without densing's entry (:func:`densing.cli.main`, which rewrites nothing): each output option
    reads ``DIR/`` and ``-`` as it parses (:class:`densing.cli.output_files.OutputFile`), one declaration beside its
    help, so no list of outputs beside the options can drift from them."""
    from typer.testing import CliRunner

    from densing.cli.app import app
    from densing.errors import InputError

    monkeypatch.chdir(tmp_path)
    made = CliRunner().invoke(app, ["measure", "--template", "new/"])
    assert made.exit_code == 0 and (tmp_path / "new" / "scores.csv").is_file(), made.output
    refused = CliRunner().invoke(app, ["report", "--out", "-"])
    assert isinstance(refused.exception, InputError), refused.output
    assert str(refused.exception).startswith("--out -: the HTML report is a file beside what densing report prints")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new"]


def test_a_read_only_output_is_refused_and_left_as_it_was(tmp_path, run_cli):
    target = tmp_path / "kept.csv"
    target.write_text("mine\n")
    target.chmod(0o444)
    code, out, err = run_cli("convert", "--data", PUBLIC, "--out", target)
    assert (
        code == 2
        and err
        == f"error: {target}: the file is read-only; densing does not replace it (make it "
        "writable, or give another name)\n"
    ), err
    assert target.read_text() == "mine\n" and sorted(os.listdir(tmp_path)) == ["kept.csv"]


def test_a_refused_gpu_check_writes_nothing(tmp_path):
    out = tmp_path / "check"
    done = subprocess.run(
        [
            sys.executable,
            str(REPO_ROOT / "bench" / "gpu_check.py"),
            str(out),
            "--dry-run",
            "--data-root",
            str(tmp_path / "nowhere"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 2 and done.stderr.startswith("error: --data-root "), done.stderr
    assert sorted(os.listdir(tmp_path)) == []
