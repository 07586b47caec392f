"""Bad input through the CLI: one line on stderr, exit code 2, no traceback, no partial output file."""

from __future__ import annotations

import pytest

CSV_HEADER = "model,benchmark,metric,value,params,release_date\n"


def _write(path, content: bytes | str):
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return path


BAD_TABLES = {
    "empty": (b"", "the file is empty"),
    "utf16": ("model,benchmark\n".encode("utf-16"), "not UTF-8 text"),
    "binary": (bytes([0xEB, 0x9C, 0x00, 0x41]) * 75, "not UTF-8 text"),
    "score_above_range": (CSV_HEADER + "m,arc_easy,acc,1.5,1e9,2024-01-01\n", "outside [0, 1]"),
    "future_date": (CSV_HEADER + "m,arc_easy,acc,0.5,1e9,2099-01-01\n", "in the future"),
    "conflicting_duplicate": (
        CSV_HEADER + "m,arc_easy,acc,0.5,1e9,2024-01-01\nm,arc_easy,acc,0.6,1e9,2024-01-01\n",
        "lines 2 and 3",
    ),  # the file's lines, the header line 1
}


@pytest.mark.parametrize("case", sorted(BAD_TABLES))
@pytest.mark.parametrize("command", ["density", "fit"])
def test_bad_tables_give_one_line_and_exit_2(tmp_path, run_cli, case, command):
    content, expected = BAD_TABLES[case]
    table = _write(tmp_path / "bad.csv", content)
    out = tmp_path / "out.json"
    if command == "density":
        code, _, err = run_cli("density", "--targets", table)
    else:
        code, _, err = run_cli("fit", "--data", table, "--benchmark", "arc_easy", "--out", out)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("error: ") and expected in err
    assert "Traceback" not in err
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["bad.csv"]


def test_identical_duplicates_collapse(tmp_path):
    from densing.data import read_results

    table = _write(
        tmp_path / "dup.csv", CSV_HEADER + "m,arc_easy,acc,0.5,1e9,2024-01-01\nm,arc_easy,acc,0.5,1e9,2024-01-01\n"
    )
    frame = read_results(table)
    assert len(frame) == 1 and frame["value"].iloc[0] == 0.5


def test_level_outside_zero_one(run_cli):
    code, _, err = run_cli("density", "--level", "2")
    assert code == 2 and "level" in err and err.count("\n") == 1


def test_report_into_a_directory_writes_nothing(tmp_path, run_cli):
    code, _, err = run_cli("report", "--out", tmp_path)
    assert code == 2 and "is a directory" in err
    assert list(tmp_path.iterdir()) == []


def test_report_into_an_unwritable_folder(tmp_path, run_cli):
    import os

    if os.geteuid() == 0:
        pytest.skip("root may write anywhere")
    folder = tmp_path / "ro"
    folder.mkdir(mode=0o555)
    code, _, err = run_cli("report", "--out", folder / "r.html")
    assert code == 2 and "cannot write here" in err


def test_report_into_proc_is_one_line(run_cli):
    """/proc takes no new files, even for root: the write fails with one line and exit 2."""
    import os

    if not os.path.isdir("/proc/self"):
        pytest.skip("no /proc on this system")
    code, _, err = run_cli("report", "--out", "/proc/densing-report.html", "--n-boot", "40")
    assert code == 2 and "cannot write here" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "args, expected",
    [
        (["trend", "--breakpoint", "2022-11-30"], "No such option '--breakpoint'"),
        (["trend", "--n-boot", "x"], "'x' is not a valid integer"),
        (["density", "--format", "xml"], "'xml' is not one of"),
        (["overlap", "analyze"], "Missing argument 'PATH'"),
        (["no-such-command"], "No such command"),
    ],
)
def test_usage_errors_are_one_line(run_cli, args, expected):
    code, out, err = run_cli(*args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and expected in err and "--help" in err


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--shard", "3/2"], "--shard: expected K/N"),
        (["--shard", "0/2"], "--shard: expected K/N"),
        (["--shard", "half"], "--shard: expected K/N"),
        (["--time-limit", "-1"], "--time-limit: expected a positive number of minutes"),
        (["--time-limit", "0"], "--time-limit: expected a positive number of minutes"),
    ],
)
def test_eval_shard_and_time_limit_errors_are_one_line(run_cli, args, expected):
    code, out, err = run_cli(
        "eval", "--models", "nowhere.yaml", "--benchmarks", "bbh", "--backend", "densing-hf", *args
    )
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and expected in err


@pytest.mark.parametrize("command", [("trend",), ("trend", "--by", "benchmark"), ("report",)])
def test_d0_without_a_fit_that_has_a_data_term_is_refused_not_ignored(tmp_path, run_cli, command):
    """--d0 never leaves the numbers unchanged in silence: rule v3's family references have no data term."""
    out = tmp_path / "report.html"
    args = (*command, "--d0", "5e12") + (("--out", out) if command == ("report",) else ())
    code, _, err = run_cli(*args)
    assert code == 2 and err.count("\n") == 1 and "--d0" in err and "no data term" in err
    assert not out.exists()


def test_d0_with_a_family_fit_is_refused_in_one_line(run_cli):
    code, _, err = run_cli("trend", "--fit", "reference_fits/family_llama-3.1_mmlu.json", "--d0", "1e12")
    assert code == 2 and err.count("\n") == 1 and "no data term" in err


@pytest.mark.parametrize(
    "args",
    [
        ("density", "--targets", ""),
        ("report", "--out="),
        ("trend", "--results", ""),
        ("fit", "--data", "", "--benchmark", "mmlu", "--out", "x.json"),
    ],
)
def test_an_empty_value_is_refused_not_read_as_the_working_folder(tmp_path, monkeypatch, run_cli, args):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(*args)
    assert code == 2 and err.count("\n") == 1 and "an empty value" in err
    assert list(tmp_path.iterdir()) == []  # nothing read or written in the working folder


def test_the_api_refuses_an_empty_path():
    import densing
    from densing.errors import InputError

    with pytest.raises(InputError, match="an empty path"):
        densing.read_results("")


def test_a_value_echoed_in_an_error_is_cut_to_one_readable_line(tmp_path, run_cli):
    """A YAML alias bomb as a models file: its expansion would be a line of megabytes; the refusal keeps the
    field it names and the value's two ends, and says how much it cut."""
    rows = ['a: &a ["' + "x" * 28 + '", "' + "y" * 25 + '"]']
    for name, under in zip("bcdef", "abcde"):
        rows.append(f"{name}: &{name} [" + ", ".join(f"*{under}" for _ in range(9)) + "]")
    rows.append("models: [" + ", ".join("*f" for _ in range(9)) + "]")
    models = _write(tmp_path / "bomb.yaml", "\n".join(rows) + "\n")
    code, out, err = run_cli("eval", "--models", models, "--benchmarks", "arc_challenge", "--out", tmp_path / "store")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and "models[0]" in err
    assert len(err) < 700 and "characters cut" in err
    assert not (tmp_path / "store").exists()


@pytest.mark.parametrize(
    "command",
    [
        ("trend",),
        ("report", "--out", "{tmp}/r.html"),
        ("measure", "--scores", "tests/placement/fixtures/lm_eval_results.json", "--release-date", "2024-06-07"),
    ],
)
def test_too_few_draws_for_a_95_percent_interval_are_refused(tmp_path, run_cli, command):
    """From 10 draws an interval's end is the most extreme draw, and once read "3.63 months, at least 4.03"."""
    args = [a.format(tmp=tmp_path) for a in command]
    code, out, err = run_cli(*args, "--n-boot", "10", "--seed", "6")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("error: --n-boot: 10 draws are too few for a 95% interval") and "at least 40" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "header,words",
    [
        ("model,params,release_date,MMLU,MMLU,BBH", "line 1 (the header): 'MMLU' names columns 4 and 5; keep one"),
        ("model,params,release_date,MMLU,,BBH", "line 1 (the header): column 5 has no name"),
    ],
    ids=["twice", "empty"],
)
def test_a_header_is_named_as_the_file_spells_it(header, words, tmp_path, run_cli):
    """Not by pandas' renaming (``MMLU.1``, ``Unnamed: 4``)."""
    path = _write(tmp_path / "s.csv", header + "\nm,1.5e9,2025-01-15,0.6,0.5,0.42\n")
    code, out, err = run_cli("measure", "--scores", path)
    assert code == 2 and err.startswith(f"error: {path}: {words}") and err.count("\n") == 1, err
    assert "Unnamed" not in err and "MMLU.1" not in err


def test_a_look_alike_name_is_flagged_as_non_ascii(tmp_path, run_cli):
    """'МMLU' (a Cyrillic М) is shown with its code point, so the refusal never reads as one of MMLU."""
    path = _write(tmp_path / "s.csv", "model,params,release_date,\u041cMLU,BBH\nm,1.5e9,2025-01-15,0.6,0.42\n")
    code, out, err = run_cli("measure", "--scores", path)
    assert code == 2 and "'\u041cMLU' (holds non-ASCII: U+041C) is no benchmark" in err and err.count("\n") == 1, err
