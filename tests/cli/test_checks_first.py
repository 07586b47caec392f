"""A path that cannot be read or written is said first, in one line with exit code 2, before any work or note."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest


def test_eval_names_a_missing_models_file_before_the_suites_note(run_cli, tmp_path):
    code, out, err = run_cli(
        "eval", "--models", "nowhere.yaml", "--suite", "leaderboard-v1", "--local-data", "--out", tmp_path / "store"
    )
    assert code == 2 and out == ""
    assert err.splitlines() == ["error: nowhere.yaml: no such models file"]


def test_eval_names_a_missing_models_file_before_importing_lm_eval(tmp_path):
    import subprocess

    code = (
        "import sys\nfrom densing.cli import main\n"
        f"try:\n    main(['eval', '--models', 'nowhere.yaml', '--suite', 'leaderboard-v1', '--local-data', "
        f"'--out', {str(tmp_path / 'store')!r}])\nexcept SystemExit as exc:\n    print(exc.code)\n"
        "print('lm_eval' in sys.modules, 'torch' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.split() == ["2", "False", "False"], done.stdout + done.stderr


@pytest.mark.parametrize("where", ["file", "proc"])
def test_report_refuses_an_unwritable_out_before_any_work(run_cli, monkeypatch, tmp_path, where):
    """--out under a file, or under /proc (where even root cannot make a file): exit 2 and one line, and the report
    is never built (its builder would fail the test if it were called)."""
    if where == "proc" and not Path("/proc/self").is_dir():
        pytest.skip("no /proc here")
    import densing.report.render as build

    def no_work(**_):
        raise AssertionError("the report was built before --out was checked")

    monkeypatch.setattr(build, "build_report", no_work)
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    out = blocker / "report.html" if where == "file" else Path("/proc/densing-test/report.html")
    code, stdout, err = run_cli("report", "--out", out)
    assert code == 2 and stdout == ""
    assert err.count("\n") == 1 and err.startswith(f"error: {out}: ") and "cannot write here" in err
