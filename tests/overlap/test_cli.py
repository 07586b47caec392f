"""The CLI: JSON rows, and one-line errors with exit code 2 for bad traces."""

import gzip
import json

import pytest

from overlap.overlap_tracegen import hand_trace, launch, step, write_trace
from tests.cli_run import run


def test_analyze_json(tmp_path, capsys):
    write_trace(tmp_path / "rank-0.json.gz", hand_trace(), gz=True)
    code, out, err = run(["overlap", "analyze", str(tmp_path), "--format", "json"], capsys)
    assert code == 0, err
    rows = json.loads(out)
    assert rows[0]["rank"] == 0 and rows[0]["exposed_comm_us"] == 7
    for key in ("comm_comp_overlap_pct", "idle_pct", "compute_pct", "non_compute_pct"):
        assert key in rows[0]


@pytest.mark.parametrize("command", [["analyze"], ["analyze", "--steps"], ["skew"], ["whatif"]])
def test_commands_run(tmp_path, capsys, command):
    write_trace(tmp_path / "rank-0.json", hand_trace())
    code, out, err = run(["overlap", command[0], str(tmp_path), *command[1:], "--format", "csv"], capsys)
    assert code == 0, err
    assert out.count("\n") >= 2


def test_compare(tmp_path, capsys):
    write_trace(tmp_path / "a" / "rank-0.json", hand_trace())
    write_trace(tmp_path / "b" / "rank-0.json", hand_trace())
    code, out, err = run(["overlap", "compare", str(tmp_path / "a"), str(tmp_path / "b"), "--format", "json"], capsys)
    assert code == 0, err
    rows = {r["metric"]: r for r in json.loads(out)}
    assert rows["step_time_speedup"]["candidate"] == 1.0 and rows["idle_pct"]["delta"] == 0


def _bad_traces(tmp_path):
    good = json.dumps({"traceEvents": hand_trace()}).encode()
    (tmp_path / "truncated.json.gz").write_bytes(gzip.compress(good)[:200])
    (tmp_path / "malformed.json").write_bytes(good[:-40])
    (tmp_path / "empty.json").write_text(json.dumps({"traceEvents": []}))
    (tmp_path / "notrace.json").write_text("[1, 2, 3]")
    write_trace(tmp_path / "cpu_only.json", [launch(1, 1), step(1, 0, 10), step(2, 10, 10)])
    return {
        "truncated.json.gz": "gzip",
        "malformed.json": "malformed JSON",
        "empty.json": "no traceEvents",
        "notrace.json": "unexpected trace structure",
        "cpu_only.json": "no GPU kernels",
        "missing.json": "no such trace file",
    }


def test_bad_traces_give_one_line_and_exit_2(tmp_path, capsys):
    for name, message in _bad_traces(tmp_path).items():
        code, out, err = run(["overlap", "analyze", str(tmp_path / name), "--format", "json"], capsys)
        assert code == 2, name
        assert err.count("\n") == 1 and message in err and name in err, err
        assert "Traceback" not in err and out == ""


def test_whatif_without_sizes_asks_for_model_size(tmp_path, capsys):
    events = [e for e in hand_trace() if "In msg nelems" not in e.get("args", {})]
    events.append(
        {
            "ph": "X",
            "cat": "kernel",
            "name": "ncclKernel_AllReduce(x)",
            "ts": 12,
            "dur": 10,
            "args": {"stream": 20, "correlation": 3},
        }
    )
    write_trace(tmp_path / "r.json", events)
    code, _, err = run(["overlap", "whatif", str(tmp_path), "--format", "json"], capsys)
    assert code == 2 and "--model-params" in err
    code, out, err = run(
        ["overlap", "whatif", str(tmp_path), "--model-params", "7B", "--workers", "1,8", "--format", "json"], capsys
    )
    assert code == 0, err
    assert len(json.loads(out)) == 2 * 2 * 4


@pytest.mark.parametrize("given", ["file", "folder"])
def test_analyze_json_path_imports_neither_pandas_nor_numpy_ma(tmp_path, given):
    """The machine-readable path stays light: numpy's ``unique`` would import ``numpy.ma``
    (10-30 ms), pandas is not needed for JSON rows, a small set needs no processes or Dask, and the command line
    is read without typer and click (densing.cli.overlap_fast) or the table layer."""
    import subprocess
    import sys

    (tmp_path / "set").mkdir()
    path = tmp_path / "set" / "rank0.json"
    write_trace(path, hand_trace())
    given_path = path if given == "file" else path.parent  # a folder of traces (no run.yaml): no run schema read
    code = (
        "import sys, io, contextlib\n"
        f"sys.argv = ['densing', 'overlap', 'analyze', {str(given_path)!r}, '--format', 'json']\n"
        "from densing.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n        main()\n    except SystemExit as e:\n        assert not e.code, e.code\n"
        "print(sorted(m for m in ('numpy.ma', 'pandas', 'multiprocessing', 'dask', 'distributed', 'typer', 'click',"
        " 'densing.cli.app', 'densing.cli.output', 'densing.overlap.whatif') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_negative_duration_is_one_line_naming_the_file_and_event(tmp_path, capsys):
    events = hand_trace()
    for e in events:
        if str(e.get("name", "")).startswith("ncclKernel_AllReduce"):
            e["dur"] = -10
    write_trace(tmp_path / "rank-0.json", events)
    code, out, err = run(["overlap", "analyze", str(tmp_path)], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "rank-0.json" in err and "negative duration -10" in err and "ncclKernel_AllReduce" in err


@pytest.mark.parametrize(
    "option, value, words",
    [
        ("--bandwidth-gbps", "-5", "bandwidth_gbps: expected a number > 0, got -5"),
        ("--workers", "0,2", "workers: expected an integer in [1, 2147483647], got 0"),
        ("--workers", "2.5", "workers: expected an integer in [1, 2147483647], got 2.5"),
        ("--local-steps", "0", "local_steps"),
    ],
)
def test_whatif_refuses_impossible_inputs_in_one_line(tmp_path, capsys, option, value, words):
    write_trace(tmp_path / "rank-0.json", hand_trace())
    code, out, err = run(["overlap", "whatif", str(tmp_path), option, value], capsys)
    assert code == 2 and words in err and err.count("\n") == 1


def test_wide_tables_repeat_the_row_names_in_every_block(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    write_trace(tmp_path / "rank-0.json", hand_trace())
    code, out, err = run(["overlap", "whatif", str(tmp_path), "--workers", "2", "--bandwidth-gbps", "800"], capsys)
    assert code == 0 and "continued" in out
    for block in out.split("continued")[1:]:
        assert "strategy" in block and "workers" in block and "gbps" in block
    code, out, err = run(["overlap", "analyze", str(tmp_path)], capsys)
    for block in out.split("continued")[1:]:
        assert "rank" in block.split("\n", 3)[-1][:200]


def test_whatif_warns_on_a_trace_without_real_compute(tmp_path, capsys):
    write_trace(tmp_path / "rank-0.json", hand_trace())  # 15 µs of computation per step
    code, out, err = run(["overlap", "whatif", str(tmp_path), "--workers", "2", "--format", "csv"], capsys)
    assert code == 0 and err.startswith("warning: compute_time_per_step_us") and err.count("\n") == 2
    assert err.splitlines()[1].startswith("note: predicted steps are compute and communication alone")
    import io

    import pandas as pd

    frame = pd.read_csv(io.StringIO(out))
    assert len(frame) == 2 * 4 and frame["scaling_efficiency"].isna().all()  # never 0.0 as if meaningful


def test_run_without_torch_names_the_train_extra_and_leaves_nothing(tmp_path, capsys, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "torch", None)  # torch not installed, as importlib sees it
    code, out, err = run(["overlap", "run", str(tmp_path / "runs"), "--strategies", "sync"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "pip install 'densing[train]'" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("fmt", ["table", "csv"])
def test_whatif_says_idle_time_is_excluded_and_shows_the_measured_idle(tmp_path, capsys, fmt):
    write_trace(tmp_path / "rank-0.json", hand_trace())  # a 35 µs step, 8 µs of it with no kernel running
    code, out, err = run(["overlap", "whatif", str(tmp_path), "--model-params", "1e6", "--format", fmt], capsys)
    assert code == 0, err
    said = " ".join((out if fmt == "table" else err).split())
    assert "idle time is excluded (measured: 8 µs per step, 22.9% of the measured 35 µs step)" in said, said
