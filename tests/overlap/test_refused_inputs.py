"""Inputs that cannot be true are refused before any work, in one line naming the file(s) and field, exit 2:
trace metadata no job can have (``distributedInfo``), and overlap options outside their domain."""

import json

import pytest

from overlap.overlap_tracegen import hand_trace
from overlap.test_cpu_trace import hand_cpu_trace
from tests.cli_run import run


def write(path, events, info):
    doc = {
        "schemaVersion": 1,
        "distributedInfo": info,
        "traceEvents": events + [{"ph": "X", "cat": "Trace", "name": "PyTorch Profiler", "ts": 0, "dur": 1000}],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))


def refused(tmp_path, capsys, argv, *words):
    """The command exits 2 with one line on stderr holding ``words``, prints nothing and leaves no file behind."""
    before = sorted(tmp_path.rglob("*"))
    code, out, err = run(argv, capsys)
    assert code == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1, err
    for word in words:
        assert word in err, err
    assert "no such" not in err, err  # the check ran before the files were looked for
    assert sorted(tmp_path.rglob("*")) == before


KINDS = {"gpu": (hand_trace, "nccl"), "cpu": (hand_cpu_trace, "gloo")}
COMMANDS = [
    ["analyze"],
    ["analyze", "--steps"],
    ["analyze", "--format", "json"],
    ["skew"],
    ["whatif", "--model-params", "1B"],
]


# --- one file's distributedInfo: a value no job has -----------------------------------------------

IMPOSSIBLE_FIELDS = [
    ({"rank": -1, "world_size": 2}, "distributedInfo.rank"),
    ({"rank": 0, "world_size": 0}, "distributedInfo.world_size"),
    ({"rank": 0, "world_size": -4}, "distributedInfo.world_size"),
    ({"rank": 2, "world_size": 2}, "distributedInfo.rank"),
    ({"rank": 7, "world_size": 4}, "distributedInfo.rank"),
    ({"rank": "three", "world_size": 4}, "distributedInfo.rank"),
    ({"rank": "1", "world_size": 4}, "distributedInfo.rank"),
    ({"rank": 0, "world_size": "eight"}, "distributedInfo.world_size"),
    ({"rank": 1.5, "world_size": 4}, "distributedInfo.rank"),
    ({"rank": 0, "world_size": 2.5}, "distributedInfo.world_size"),
    ({"rank": True, "world_size": 2}, "distributedInfo.rank"),
    ({"rank": 0, "world_size": 2**40}, "distributedInfo.world_size"),
    ({"rank": 0, "world_size": 2, "backend": 3}, "distributedInfo.backend"),
]


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("fields, field", IMPOSSIBLE_FIELDS, ids=[repr(f) for f, _ in IMPOSSIBLE_FIELDS])
def test_impossible_distributed_info_is_one_line_naming_the_file_and_field(tmp_path, capsys, kind, fields, field):
    events, backend = KINDS[kind]
    write(tmp_path / "set" / "rank-0.json", events(), {"backend": backend} | fields)
    refused(tmp_path, capsys, ["overlap", "analyze", str(tmp_path / "set")], "rank-0.json", field)


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_overlap_command_refuses_a_rank_beyond_the_world_size(tmp_path, capsys, command):
    write(tmp_path / "set" / "rank-0.json", hand_trace(), {"backend": "nccl", "rank": 0, "world_size": 2})
    write(
        tmp_path / "set" / "rank-1.json",
        hand_trace(shift=3, corr_base=100),
        {"backend": "nccl", "rank": 2, "world_size": 2},
    )
    refused(
        tmp_path,
        capsys,
        ["overlap", command[0], str(tmp_path / "set"), *command[1:]],
        "rank-1.json",
        "distributedInfo.rank",
    )


# --- one folder, two jobs: the files disagree on what the job was ---------------------------------

TWO_JOBS = [
    (
        {"backend": "nccl", "rank": 0, "world_size": 2},
        {"backend": "nccl", "rank": 1, "world_size": 4},
        "distributedInfo.world_size",
    ),
    (
        {"backend": "nccl", "rank": 0, "world_size": 8},
        {"backend": "nccl", "rank": 1, "world_size": 2},
        "distributedInfo.world_size",
    ),
    (
        {"backend": "nccl", "rank": 0, "world_size": 2},
        {"backend": "gloo", "rank": 1, "world_size": 2},
        "distributedInfo.backend",
    ),
    (
        {"backend": "gloo", "rank": 0, "world_size": 2},
        {"backend": "nccl", "rank": 1, "world_size": 2},
        "distributedInfo.backend",
    ),
]


@pytest.mark.parametrize("first, second, field", TWO_JOBS, ids=[f"{a}-{b}" for a, b, _ in TWO_JOBS])
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_two_jobs_in_one_folder_are_one_line_naming_both_files(tmp_path, capsys, first, second, field, command):
    events = hand_cpu_trace if first["backend"] == "gloo" else hand_trace
    write(tmp_path / "set" / "rank-0.json", events(), first)
    write(tmp_path / "set" / "rank-1.json", events(shift=3), second)
    refused(
        tmp_path,
        capsys,
        ["overlap", command[0], str(tmp_path / "set"), *command[1:]],
        "rank-0.json",
        "rank-1.json",
        field,
    )


def test_one_job_whose_files_state_only_part_of_distributed_info_still_reads(tmp_path, capsys):
    write(tmp_path / "rank-0.json", hand_trace(), {"backend": "nccl", "rank": 0, "world_size": 2})
    write(tmp_path / "rank-1.json", hand_trace(shift=3, corr_base=100), {"rank": 1})
    code, out, err = run(["overlap", "analyze", str(tmp_path), "--format", "json"], capsys)
    assert code == 0, err
    assert [row["rank"] for row in json.loads(out)] == [0, 1]


def test_the_library_refuses_what_the_command_line_refuses(tmp_path):
    from densing.errors import TraceError
    from densing.overlap import analyze, read_traces

    write(tmp_path / "rank-0.json", hand_trace(), {"backend": "nccl", "rank": 0, "world_size": 0})
    for reader in (analyze, read_traces):
        with pytest.raises(TraceError, match="rank-0.json: distributedInfo.world_size"):
            reader(tmp_path)


# --- overlap options outside their domain ---------------------------------------------------------

OUT_OF_DOMAIN = [
    (["whatif", "--bytes-per-param", "-4"], "bytes_per_param"),
    (["whatif", "--bytes-per-param", "0"], "bytes_per_param"),
    (["whatif", "--bytes-per-param", "1e6"], "bytes_per_param"),
    (["whatif", "--bytes-per-param", "nan"], "bytes_per_param"),
    (["whatif", "--model-params", "-7B"], "model_params"),
    (["whatif", "--model-params", "7"], "model_params"),
    (["whatif", "--local-steps", "0"], "local_steps"),
    (["whatif", "--contention", "-1"], "contention"),  # γ > −1: a GEMM beside a collective takes (1 + γ)× its time
    (["whatif", "--contention", "-1.5"], "contention"),
    (["whatif", "--contention", "inf"], "contention"),
    (["whatif", "--latency-us", "-5"], "latency_us"),
    (["whatif", "--latency-us", "nan"], "latency_us"),
    (["whatif", "--bucket-mb", "0"], "bucket_mb"),
    (["whatif", "--bucket-mb", "-25"], "bucket_mb"),
    (["whatif", "--workers", "0,2"], "workers"),
    (["whatif", "--workers", "2.5"], "workers"),
    (["whatif", "--workers", "inf"], "workers"),
    (["whatif", "--bandwidth-gbps", "-5"], "bandwidth_gbps"),
    (["whatif", "--bandwidth-gbps", "0"], "bandwidth_gbps"),
    (["whatif", "--workers", "2,,4"], "--workers: an empty item"),  # a slip, not the list 2,4
    (["whatif", "--workers", "2,4,"], "--workers: an empty item"),
    (["whatif", "--workers", "1,1.0"], "--workers: '1.0' is given twice"),  # each worker count once: one row each
    (["whatif", "--bandwidth-gbps", "80,80"], "--bandwidth-gbps: '80' is given twice"),
    (["whatif", "--strategies", "co2,co2"], "'co2' is given twice"),
    (["whatif", "--strategies", "co2,,t3"], "an empty item"),
    (["skew", "--threshold-pct", "-5"], "threshold_pct"),
    (["skew", "--threshold-pct", "nan"], "threshold_pct"),
    (["skew", "--threshold-pct", "inf"], "threshold_pct"),
    (["skew", "--workers", "0"], "workers"),
    (["analyze", "--workers", "0"], "workers"),
    (["analyze", "--workers", "-2"], "workers"),
]


@pytest.mark.parametrize("argv, field", OUT_OF_DOMAIN, ids=[" ".join(a) for a, _ in OUT_OF_DOMAIN])
def test_an_overlap_option_outside_its_domain_is_refused_before_the_trace_is_read(tmp_path, capsys, argv, field):
    # the trace set does not exist: an option checked only after reading would say so instead
    refused(tmp_path, capsys, ["overlap", argv[0], str(tmp_path / "absent"), *argv[1:]], field)


@pytest.mark.parametrize("name, value", [("bytes_per_param", -4.0), ("model_params", -1.0)])
def test_calibrate_refuses_an_impossible_size_before_reading(tmp_path, name, value):
    from densing.errors import InputError
    from densing.overlap.whatif import calibrate

    with pytest.raises(InputError, match=name):
        calibrate(tmp_path / "absent", **{name: value})


def test_step_skew_refuses_a_negative_threshold():
    import pandas as pd

    from densing.errors import InputError
    from densing.overlap.metrics import step_skew

    with pytest.raises(InputError, match="straggler_threshold_pct"):
        step_skew(pd.DataFrame({"rank": [0, 1], "step": [1, 1], "step_time_us": [10.0, 10.0]}), -5)
