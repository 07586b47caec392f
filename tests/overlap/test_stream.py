"""One trace file analysed in bounded memory (densing.overlap.stream) gives the numbers of the same file analysed
whole: on the shared HTA traces, and on a trace synthesised by repeating the steps of one of them
(tools/overlap_repeat_trace.py), plain and gzip, with small batches and windows so that kernels cross windows."""

import math

import pytest

from densing.cli import main
from densing.overlap import analyze
from densing.overlap.metrics import RANK_COLUMNS
from densing.overlap.stream import stream_rank_row
from tests.conftest import SHARED_DATA
from tests.overlap.overlap_tracegen import hand_trace, rules_trace, write_trace
from tools.overlap_repeat_trace import write_repeated

HTA_TRACES = SHARED_DATA / "traces" / "hta"


def same(row: dict, whole: dict) -> None:
    for column in RANK_COLUMNS:
        a, b = row[column], whole[column]
        assert a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b)), (column, a, b)


@pytest.fixture(scope="module")
def repeated(tmp_path_factory):
    source = HTA_TRACES / "ddp_2rank" / "rank-0.json.gz"
    if not source.is_file():
        pytest.skip(f"HTA test traces not found at {HTA_TRACES}")
    folder = tmp_path_factory.mktemp("repeated")
    paths = {}
    for name in ("big.json", "big.json.gz"):
        copies, _ = write_repeated(source, folder / name, 20 << 20)
        assert copies >= 2
        paths[name] = folder / name
    return paths


@pytest.mark.parametrize("name", ["big.json", "big.json.gz"])
@pytest.mark.parametrize("rules", ["hta", "traceinsight"])
def test_streamed_equals_whole_on_repeated_trace(repeated, name, rules):
    whole = analyze(repeated[name], rules=rules, stream=False).iloc[0].to_dict()
    for window_us in (10_000, 1_000_000):
        same(stream_rank_row(repeated[name], rules, batch_bytes=1 << 20, window_us=window_us), whole)


@pytest.mark.parametrize("trace_set", ["ddp_2rank", "diff_control", "diff_test", "sampled_128rank"])
def test_streamed_equals_whole_on_hta_traces(trace_set):
    if not HTA_TRACES.is_dir():
        pytest.skip(f"HTA test traces not found at {HTA_TRACES}")
    for path in sorted((HTA_TRACES / trace_set).iterdir()):
        same(stream_rank_row(path, batch_bytes=1 << 20, window_us=1000), analyze(path, stream=False).iloc[0].to_dict())


def test_hand_trace_and_rules_trace(tmp_path):
    """Kernels that cross window edges (windows of 3 µs), the last step filtered, both kernel rules."""
    hand = write_trace(tmp_path / "hand" / "rank0.json", hand_trace(shift=1000))
    row = stream_rank_row(hand, window_us=3)
    assert (row["kernel_span_us"], row["idle_us"], row["compute_us"], row["comm_us"], row["overlap_us"]) == (
        35,
        8,
        15,
        10,
        3,
    )
    ti = rules_trace(tmp_path / "rules" / "rank0.json")
    for rules in ("hta", "traceinsight"):
        same(stream_rank_row(ti, rules, window_us=7), analyze(ti, rules=rules, stream=False).iloc[0].to_dict())


def test_cli_stream_flag(repeated, capsys):
    import json

    main(["overlap", "analyze", str(repeated["big.json.gz"]), "--format", "json", "--stream"])
    streamed = json.loads(capsys.readouterr().out)
    main(["overlap", "analyze", str(repeated["big.json.gz"]), "--format", "json", "--no-stream"])
    assert streamed == json.loads(capsys.readouterr().out)
    with pytest.raises(SystemExit) as exc:
        main(["overlap", "analyze", str(repeated["big.json.gz"]), "--stream", "--steps"])
    assert exc.value.code == 2


def test_scratch_removed_and_errors_name_the_file(tmp_path):
    bad = write_trace(
        tmp_path / "bad.json",
        [{"ph": "X", "cat": "kernel", "name": "k", "ts": 5, "dur": -3, "args": {"stream": 7, "correlation": 1}}],
    )
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    from densing.errors import TraceError

    with pytest.raises(TraceError, match="bad.json"):
        stream_rank_row(bad, scratch_dir=str(scratch))
    assert not any(scratch.iterdir())


def test_a_missing_scratch_folder_is_made_and_one_that_cannot_be_is_refused_in_one_line(tmp_path, monkeypatch, run_cli):
    """``DENSING_SCRATCH`` missing: made (and its scratch removed after); a file where it should be, or below a file:
    one line naming it, exit 2, through both command-line paths."""
    hand = write_trace(tmp_path / "hand" / "rank0.json", hand_trace(shift=1000))
    missing = tmp_path / "new" / "scratch"
    row = stream_rank_row(hand, window_us=3, scratch_dir=str(missing))
    assert row["kernel_span_us"] == 35 and missing.is_dir() and not any(missing.iterdir())
    (tmp_path / "file").write_text("")
    for bad in (tmp_path / "file", tmp_path / "file" / "below"):
        monkeypatch.setenv("DENSING_SCRATCH", str(bad))
        for extra in ((), ("--format", "json")):
            code, out, err = run_cli("overlap", "analyze", hand, "--stream", *extra)
            assert code == 2 and out == "" and err.count("\n") == 1, err
            assert err.startswith(f"error: {bad}: cannot make the streaming scratch folder here"), err
