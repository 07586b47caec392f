"""``overlap analyze … --format json`` without typer (densing.cli.overlap_fast): which command lines it takes, and
that it answers exactly as the typer command does (rows, errors, exit codes)."""

import pytest

from densing.cli.app import main as typer_main
from densing.cli.overlap_fast import parse
from overlap.overlap_tracegen import hand_trace, rules_trace, write_trace
from tests.cli_run import run


@pytest.mark.parametrize(
    "argv,expected",
    [
        (["overlap", "analyze", "T", "--format", "json"], {"path": "T"}),
        (
            ["overlap", "analyze", "--format=json", "T", "--kernel-rules", "traceinsight"],
            {"path": "T", "rules": "traceinsight"},
        ),
        (
            ["overlap", "analyze", "T", "--format", "json", "--no-stream", "--scheduler", "serial", "--workers", "2"],
            {"path": "T", "stream": False, "scheduler": "serial", "workers": 2},
        ),
        (["overlap", "analyze", "T", "--stream", "--format", "json"], {"path": "T", "stream": True}),
    ],
)
def test_the_plain_json_command_lines_are_read(argv, expected):
    assert parse(argv) == expected


@pytest.mark.parametrize(
    "argv",
    [
        ["overlap", "analyze", "T"],  # a table: typer and pandas
        ["overlap", "analyze", "T", "--format", "csv"],
        ["overlap", "analyze", "T", "--format", "json", "--steps"],
        ["overlap", "analyze", "T", "--format", "json", "--peer-wait"],
        ["overlap", "analyze", "T", "--format", "json", "--help"],
        ["overlap", "analyze", "--format", "json"],  # no path: typer's usage error
        ["overlap", "analyze", "T", "U", "--format", "json"],
        ["overlap", "analyze", "T", "--format", "json", "--format", "json"],
        ["overlap", "analyze", "T", "--format", "json", "--stream", "--no-stream"],
        ["overlap", "analyze", "T", "--format", "json", "--kernel-rules", "other"],
        ["overlap", "analyze", "T", "--format", "json", "--workers", "0"],
        ["overlap", "analyze", "T", "--format", "json", "--workers", "two"],
        ["overlap", "analyze", "T", "--format", "json", "--scheduler"],
        ["overlap", "analyze", "", "--format", "json"],
        ["overlap", "skew", "T", "--format", "json"],
        ["analyze", "T", "--format", "json"],
    ],
)
def test_anything_else_goes_to_typer(argv):
    assert parse(argv) is None


def _both(argv, capsys):
    fast = run(argv, capsys)
    with pytest.raises(SystemExit) as exc:
        typer_main(argv)
        raise SystemExit(0)
    out = capsys.readouterr()
    return fast, (exc.value.code, out.out, out.err)


@pytest.mark.parametrize(
    "extra", [[], ["--kernel-rules", "traceinsight"], ["--stream"], ["--no-stream", "--scheduler", "serial"]]
)
def test_the_answer_is_the_typer_commands(tmp_path, capsys, extra):
    rules_trace(tmp_path / "rules" / "rank0.json")
    write_trace(tmp_path / "hand" / "rank-0.json.gz", hand_trace(), gz=True)
    for folder in ("rules", "hand"):
        fast, typed = _both(["overlap", "analyze", str(tmp_path / folder), "--format", "json", *extra], capsys)
        assert fast == typed and fast[0] == 0 and fast[1].startswith("[")


@pytest.mark.parametrize("case", ["missing", "malformed", "empty"])
def test_errors_are_the_typer_commands(tmp_path, capsys, case):
    path = tmp_path / f"{case}.json"
    if case == "malformed":
        path.write_text('{"traceEvents": [{"ph": "X"')
    elif case == "empty":
        path.write_text('{"traceEvents": []}')
    fast, typed = _both(["overlap", "analyze", str(path), "--format", "json"], capsys)
    assert fast == typed and fast[0] == 2 and fast[1] == "" and fast[2].count("\n") == 1 and str(path) in fast[2]
