"""Damaged inputs end well: a file cut mid-row, a JSON of 200,000 tasks with a key written twice, a named pipe given
as an input, … each ends in one line on stderr naming the file and exit code 2 (or in the right result), with nothing
half-written and no process left waiting."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from densing.data.readers import read_lm_eval_json, read_table
from densing.errors import InputError
from tests.conftest import REPO_ROOT

SECOND_TABLE = REPO_ROOT / "results" / "openllm_v2" / "openllm_v2_2025-03.csv"
TIDY = "model,benchmark,metric,value,params\nm1,arc_easy,acc,0.5,7B\nm2,arc_easy,acc,0.6,13B\n"


def _cli(*argv, cwd, timeout: float = 60) -> subprocess.CompletedProcess:
    """``python cli.py ARGV`` in its own process, ended by ``timeout`` (a hang fails the test, never the suite)."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run(
        [sys.executable, str(REPO_ROOT / "cli.py"), *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=env,
    )


# ---------------------------------------------------------------------------------------------
# a CSV cut mid-row


def test_a_table_cut_mid_row_is_refused_naming_its_file_and_line(tmp_path):
    path = tmp_path / "cut.csv"
    path.write_text(TIDY + "m3,arc_easy,acc\n")
    with pytest.raises(InputError, match=r"line 4: 3 field\(s\) where the header names 5") as info:
        read_table(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_the_second_table_cut_in_half_ends_in_one_line_not_a_measurement(tmp_path, run_cli):
    text = SECOND_TABLE.read_text(encoding="utf-8")
    cut = tmp_path / "cut.csv"
    cut.write_text(text[: len(text) // 2], encoding="utf-8")
    line = text[: len(text) // 2].count("\n") + 1
    code, out, err = run_cli("trend", "--results", cut)
    assert code == 2 and err.count("\n") == 1 and "Doubling time" not in out, (out, err)
    assert err.startswith(f"error: {cut}: line {line}: ") and "cut short" in err, err


def test_a_row_cut_short_in_a_scores_file_is_refused(tmp_path, run_cli):
    scores = tmp_path / "scores.csv"
    scores.write_text("model,params,release_date,MMLU,leaderboard_bbh\nmine,7B,2024-05-01,0.6\n")
    code, out, err = run_cli("measure", "--scores", scores)
    assert (
        code == 2
        and err
        == f"error: {scores}: line 2: 4 field(s) where the header names 5 (the row is cut "
        "short: a file cut mid-row?); complete the row or remove it\n"
    ), err


def test_a_table_with_every_row_whole_is_read_as_before(tmp_path):
    path = tmp_path / "whole.csv"
    path.write_text(TIDY + "\n")  # a blank line at the end is no row
    assert list(read_table(path)["model"]) == ["m1", "m2"]


# ---------------------------------------------------------------------------------------------
# a key written twice in a large lm-eval JSON


def test_a_key_written_twice_among_200000_tasks_is_found_in_linear_time(tmp_path):
    """200,000 tasks, the last name written twice: a check that compared each key with every earlier one would take
    hours here (2e10 comparisons); a set takes a moment."""
    tasks = ",".join(f'"task_{i}": {{"acc,none": 0.5}}' for i in range(200_000))
    path = tmp_path / "results.json"
    path.write_text('{"results": {' + tasks + ', "task_199999": {"acc,none": 0.25}}}')
    with pytest.raises(InputError, match=r"key 'task_199999' appears twice in one object") as info:
        read_lm_eval_json(path)
    assert str(path) in str(info.value)


# ---------------------------------------------------------------------------------------------
# a named pipe as an input


def _feed(pipe, text: str) -> threading.Thread:
    """A thread that writes ``text`` into the named pipe ``pipe`` once (opening it waits for a reader)."""

    def write() -> None:
        try:
            with open(pipe, "w", encoding="utf-8") as handle:
                handle.write(text)
        except BrokenPipeError:  # the reader went away unread: the command refused the pipe, or _release opened it
            pass

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def _release(pipe, thread: threading.Thread) -> None:
    """End the writer of ``pipe`` where nobody read it: a reader opened and closed at once lets its open return."""
    if thread.is_alive():
        fd = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
        os.close(fd)
    thread.join(timeout=10)


def test_an_lm_eval_json_through_a_named_pipe_is_read_once(tmp_path):
    pipe = tmp_path / "scores.json"
    os.mkfifo(pipe)
    thread = _feed(pipe, json.dumps({"results": {"mmlu": {"acc,none": 0.6}}}))
    try:
        done = _cli("measure", "--scores", pipe, "--model", "mine", cwd=tmp_path, timeout=60)
    finally:
        _release(pipe, thread)
    # the file was read through to its content: the refusal is about what it lacks, not a wait for a second writer
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"error: {pipe}: field 'params'"), done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scores.json"]


def test_a_named_pipe_as_data_is_refused_in_one_line_not_waited_on(tmp_path):
    pipe = tmp_path / "data.csv"
    os.mkfifo(pipe)
    thread = _feed(pipe, TIDY)
    try:
        done = _cli("convert", "--data", pipe, "--out", tmp_path / "out.csv", cwd=tmp_path, timeout=60)
    finally:
        _release(pipe, thread)
    assert (
        done.returncode == 2
        and done.stderr
        == f"error: {pipe}: is a named pipe; results are read from a regular "
        "file or a folder (save the stream to a file first)\n"
    ), done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv"]


# ---------------------------------------------------------------------------------------------
# an output onto its own input


@pytest.mark.parametrize("spelling", ["same", "dotted", "hard link"])
def test_convert_never_writes_over_its_own_data(spelling, tmp_path, run_cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "table.csv"
    data.write_text(TIDY)
    out = {"same": "table.csv", "dotted": "./sub/../table.csv", "hard link": "linked.csv"}[spelling]
    (tmp_path / "sub").mkdir()
    if spelling == "hard link":
        os.link(data, tmp_path / out)
    code, _, err = run_cli("convert", "--data", "table.csv", "--out", out)
    assert code == 2 and err == f"error: {Path(out)}: --out is also --data; give --out a file of its own\n", err
    assert data.read_text() == TIDY


def test_fit_and_report_never_write_over_their_input(tmp_path, run_cli):
    data = tmp_path / "table.csv"
    data.write_text(TIDY)
    code, _, err = run_cli("fit", "--data", data, "--benchmark", "arc_easy", "--out", data)
    assert code == 2 and err == f"error: {data}: --out is also --data; give --out a file of its own\n", err
    code, _, err = run_cli("report", "--results", data, "--out", data)
    assert code == 2 and err == f"error: {data}: --out is also --results; give --out a file of its own\n", err
    assert data.read_text() == TIDY


# ---------------------------------------------------------------------------------------------
# a damaged request cache or built-requests folder of `densing eval`


class _Request:
    def __init__(self, args):
        self.args = args


def _damage(path, kind: str) -> None:
    """Make ``path`` a request database damaged as ``kind``: garbage, a database cut mid-write, or a folder."""
    import sqlite3

    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "folder":
        path.mkdir()
        return
    if kind == "garbage":
        path.write_bytes(b"\x00garbage, no SQLite header\n" * 64)
        return
    with sqlite3.connect(path) as database:
        database.execute("create table unnamed (key text primary key, value blob)")
        database.executemany("insert into unnamed values (?, ?)", [(str(i), bytes(3000)) for i in range(300)])
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 2])


@pytest.mark.parametrize("kind", ["garbage", "half-written", "folder"])
def test_a_damaged_request_database_is_set_aside_and_built_again(kind, tmp_path, caplog):
    pytest.importorskip("lm_eval")
    import logging

    from lm_eval.api import model
    from lm_eval.api.model import LM

    from densing.eval.store import request_cache_in_transactions

    class Scored(LM):
        def loglikelihood(self, requests):
            return [(-float(len(request.args[1])), True) for request in requests]

        def loglikelihood_rolling(self, requests):
            raise NotImplementedError

        def generate_until(self, requests):
            raise NotImplementedError

    path = tmp_path / ".cache" / "m" / "requests_rank0.db"
    _damage(path, kind)
    with caplog.at_level(logging.WARNING, logger="densing.eval"), request_cache_in_transactions():
        answers = model.CachingLM(Scored(), str(path)).loglikelihood([_Request(("q", " a"))])
    assert answers == [(-2.0, True)] and path.is_file()
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".damaged")] == ["requests_rank0.db.damaged"]
    warning = [r.getMessage() for r in caplog.records if r.name == "densing.eval"]
    assert len(warning) == 1 and warning[0].startswith(f"{path}: the request database is "), warning
    assert "set aside as requests_rank0.db.damaged" in warning[0]


def test_a_built_requests_folder_that_is_a_file_is_set_aside_and_made(tmp_path, caplog):
    pytest.importorskip("lm_eval")
    import logging
    from types import SimpleNamespace

    from lm_eval.api.instance import Instance

    from densing.eval.store import serve_built_requests

    class Task:
        config = SimpleNamespace(task="t", num_fewshot=0)
        instances: list = []

        def build_all_requests(self, *, limit=None, rank=0, world_size=1, **options):
            self.instances = [Instance("loglikelihood", {}, ("Q", " a"), k, ("t", k, 1)) for k in range(limit)]

    folder = tmp_path / ".cache" / "built"
    folder.parent.mkdir()
    folder.write_text("not a folder")
    task = Task()
    serve_built_requests(task, folder, "key")
    with caplog.at_level(logging.WARNING, logger="densing.eval"):
        task.build_all_requests(limit=2, rank=0, world_size=1)
    assert len(task.instances) == 2 and len(list(folder.glob("t-*.pickle"))) == 1
    assert (tmp_path / ".cache" / "built.damaged").read_text() == "not a folder"
    assert f"{folder}: the built-requests folder is a file, not a folder; set aside as built.damaged" in caplog.text


# ---------------------------------------------------------------------------------------------
# a tool's --out DIR/: a folder, as the commands read it


#: Each file output of tools/build_tables.py (subcommand, its other arguments) and the name it takes in a folder.
TOOL_FILE_OUTPUTS = [
    (["public", "--obsscaling", "o", "--dates", "d", "--corrections", "c"], "public_models.csv"),
    (["openllm-v2-contents", "--raw", "r"], "openllm_v2_contents.csv"),
    (["openllm-v2-trend"], "trend.json"),
    (["openllm-v2-sensitivity"], "curation_sensitivity.csv"),
    (["olmes"], "trend.csv"),
    (["fixed-size"], "fixed_size.csv"),
]


@pytest.mark.parametrize("argv, name", TOOL_FILE_OUTPUTS)
def test_every_file_output_of_build_tables_reads_dir_slash_as_a_folder(argv, name):
    from tools.build_tables import parser

    assert parser().parse_args([*argv, "--out", "tables/"]).out == f"tables/{name}"
    assert parser().parse_args([*argv, "--out", "tables/mine.csv"]).out == "tables/mine.csv"


def test_build_tables_public_out_dir_slash_writes_into_the_folder(tmp_path):
    from tools.build_tables import main

    results = REPO_ROOT / "results"
    code = main(
        [
            "public",
            "--obsscaling",
            str(results / "obsscaling"),
            "--dates",
            str(results / "release_dates.csv"),
            "--corrections",
            str(results / "corrections.csv"),
            "--active-params",
            str(results / "active_params.csv"),
            "--out",
            f"{tmp_path / 'tables'}/",
        ]
    )
    assert code == 0 and (tmp_path / "tables").is_dir()
    assert (tmp_path / "tables" / "public_models.csv").read_bytes() == (results / "public_models.csv").read_bytes()


# ---------------------------------------------------------------------------------------------
# a refusal names the input that is wrong


def test_a_v2_table_without_mmlu_pro_is_named_not_the_reference_rule(tmp_path, run_cli):
    import pandas as pd

    table = pd.read_csv(SECOND_TABLE, dtype=str, keep_default_na=False)
    without = tmp_path / "v2.csv"
    table.drop(columns=["leaderboard_mmlu_pro"]).to_csv(without, index=False)
    code, out, err = run_cli("trend", "--table", "openllm_v2", "--results", without)
    assert (
        code == 2
        and err
        == f"error: {without}: no scores of MMLU-Pro (column leaderboard_mmlu_pro), which the "
        "v2-native set (MMLU-Pro, BBH, MATH-hard) needs\n"
    ), err


# ---------------------------------------------------------------------------------------------
# the GPU check's output: an empty OUT, an exit hook that cannot write


def test_the_gpu_check_refuses_an_empty_out_and_writes_nothing(tmp_path):
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "bench" / "gpu_check.py"), "", "--dry-run"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert (
        done.returncode == 2
        and done.stderr
        == "error: OUT: an empty path (an unset variable?) would mean the working folder; give a folder\n"
    ), done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("out", ["", "missing/phases.json"])
def test_the_cold_commands_exit_hook_never_raises_nor_leaves_a_file(out, tmp_path):
    sys.path.insert(0, str(REPO_ROOT / "bench"))
    try:
        from _cold import PHASES
    finally:
        sys.path.remove(str(REPO_ROOT / "bench"))
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", PHASES, out, "--version"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith(f"error: {out}: cannot write the phases (") and done.stderr.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------------------
# three `densing measure --template` to one new file at once


def test_a_template_that_another_process_writes_first_is_not_replaced(tmp_path, run_cli, monkeypatch):
    """Another process writes the name between the check that it is free and the write: that write is kept and this
    command says the file exists (deterministic: the other write is made as this one stages its file)."""
    import densing.io

    target = tmp_path / "scores.csv"
    stage = densing.io._stage

    def raced(where, data):
        target.write_text("the other process's\n")
        return stage(where, data)

    monkeypatch.setattr(densing.io, "_stage", raced)
    code, out, err = run_cli("measure", "--template", target)
    assert (
        code == 2
        and out == ""
        and err == f"error: {target}: --template: the file exists; give a new file name (densing never overwrites it)\n"
    ), err
    assert target.read_text() == "the other process's\n" and sorted(p.name for p in tmp_path.iterdir()) == [
        "scores.csv"
    ]


def test_three_templates_to_one_new_file_at_once_report_one_write(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    runs = [
        subprocess.Popen(
            [sys.executable, str(REPO_ROOT / "cli.py"), "measure", "--template", "scores.csv"],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    ended = [(run.wait(timeout=120), *run.communicate()) for run in runs]
    wrote = [out for code, out, err in ended if code == 0 and out.startswith("wrote scores.csv")]
    refused = [err for code, out, err in ended if code == 2 and "the file exists" in err]
    assert len(wrote) == 1 and len(refused) == 2, ended
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scores.csv"]


# ---------------------------------------------------------------------------------------------
# a family name holding a line feed, a model name holding a right-to-left override


@pytest.fixture(scope="module")
def hostile_names(tmp_path_factory):
    import pandas as pd

    table = pd.read_csv(REPO_ROOT / "results" / "public_models.csv", dtype=str, keep_default_na=False)
    table.loc[table["family"] == "Pythia", "family"] = "Pythia\nFAKE LINE"
    table.loc[table["model"] == "01-ai/Yi-1.5-34B", "model"] = "evil\u202emodel"
    path = tmp_path_factory.mktemp("hostile") / "table.csv"
    table.to_csv(path, index=False)
    return path


def test_a_family_name_holding_a_line_feed_stays_on_its_line(hostile_names, run_cli):
    code, out, err = run_cli("trend", "--by", "benchmark", "--detail", "--results", hostile_names, "--n-boot", "40")
    assert code == 0, err
    assert "Pythia\\nFAKE" in out, out
    assert not any(line.lstrip().startswith("FAKE LINE") for line in out.splitlines()), out


def test_a_right_to_left_override_in_a_model_name_is_escaped_in_csv_on_a_terminal(hostile_names, run_cli, monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    code, out, err = run_cli("density", "--targets", hostile_names, "--format", "csv")
    assert code == 0 and "\u202e" not in out and "evil\\u202emodel," in out, err
