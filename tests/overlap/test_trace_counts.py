"""Traces that never lose events in silence: a kernel (an event with ``args.stream``) without a ``ts`` or a ``dur``,
or with ``dur: null``, cannot be placed in time, and leaving it out changes every overlap number; the trace is refused
in one line naming the file, the count and the first such kernel, on the typer path, the typer-free
``--format json`` path, ``--stream`` and the API alike. Events that are no kernels (instant events, metadata, flows)
may lack a duration, as HTA reads them."""

from __future__ import annotations

import pytest

from densing.errors import TraceError
from densing.overlap import analyze
from tests.overlap.overlap_tracegen import hand_trace, write_trace


def _broken(kind: str) -> list:
    events = hand_trace(shift=1000)
    sgemm = next(e for e in events if e["name"] == "volta_sgemm_128x64_nn")
    if kind == "no dur":
        del sgemm["dur"]
    elif kind == "dur null":
        sgemm["dur"] = None
    elif kind == "no ts":
        del sgemm["ts"]
    elif kind == "float trace, no ts":
        for e in events:
            e["ts"] = e["ts"] + 0.5
        del sgemm["ts"]
    return events


KINDS = ["no dur", "dur null", "no ts", "float trace, no ts"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("how", ["typer", "json", "stream", "stream json"])
def test_a_kernel_without_a_time_refuses_the_trace_on_every_path(kind, how, tmp_path, run_cli):
    path = write_trace(tmp_path / "rank0.json", _broken(kind))
    extra = {
        "typer": (),
        "json": ("--format", "json"),
        "stream": ("--stream",),
        "stream json": ("--stream", "--format", "json"),
    }[how]
    code, out, err = run_cli("overlap", "analyze", path, *extra)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert f"{path}: 1 kernel event (with args.stream) without a 'ts' or 'dur'" in err
    assert "'volta_sgemm_128x64_nn'" in err


@pytest.mark.parametrize("kind", KINDS)
def test_the_api_refuses_it_too(kind, tmp_path):
    path = write_trace(tmp_path / "rank0.json", _broken(kind))
    for stream in (False, True):
        with pytest.raises(TraceError, match="1 kernel event"):
            analyze(path, stream=stream)


def test_events_that_are_no_kernels_may_lack_a_duration(tmp_path):
    events = hand_trace(shift=1000) + [
        {"ph": "i", "cat": "cpu_instant_event", "name": "marker", "pid": 1, "tid": 1, "ts": 1001, "s": "t"},
        {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 1, "pid": 1, "tid": 1, "ts": 1002},
        {"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "GPU 0"}},
    ]
    whole = analyze(write_trace(tmp_path / "plain" / "rank0.json", hand_trace(shift=1000)), stream=False)
    assert analyze(write_trace(tmp_path / "extra" / "rank0.json", events), stream=False).equals(whole)


def _overlapping(tmp_path, name: str = "rank0.json"):
    """The hand trace with a second compute kernel on stream 7 starting inside the first ([0, 10) and [4, 9))."""
    from tests.overlap.overlap_tracegen import kernel, launch

    events = hand_trace(shift=1000) + [launch(1000 - 4, 99), kernel("volta_sgemm_128x64_nn", 1004, 5, 99)]
    return write_trace(tmp_path / name, events)


def test_kernels_overlapping_on_one_stream_are_counted_on_every_path(tmp_path, run_cli):
    """A CUDA stream runs one kernel at a time: a kernel that starts inside another of its stream is a fault of the
    trace, counted per rank (``stream_overlaps``) in the table, in JSON (both paths) and streamed, with a warning line
    beside the table; a clean trace counts 0."""
    import json

    path = _overlapping(tmp_path)
    assert analyze(write_trace(tmp_path / "clean" / "rank0.json", hand_trace(shift=1000)))[
        "stream_overlaps"
    ].tolist() == [0]
    assert analyze(path, stream=False)["stream_overlaps"].tolist() == [1]
    assert analyze(path, stream=True)["stream_overlaps"].tolist() == [1]
    for extra in (("--format", "json"), ("--format", "json", "--stream"), ("--format", "csv")):
        code, out, err = run_cli("overlap", "analyze", path, *extra)
        assert code == 0, err
        if "json" in extra:
            assert json.loads(out)[0]["stream_overlaps"] == 1
    code, out, err = run_cli("overlap", "analyze", path)
    assert code == 0 and "kernels overlapping on their stream" in out
    assert err.startswith("warning: 1 kernel(s) start before the previous kernel of their CUDA stream has ended")


def test_the_windowed_count_equals_the_whole_count():
    import numpy as np

    from densing.overlap.metrics import stream_overlaps

    rng = np.random.default_rng(3)
    start = rng.uniform(0, 1000, 400)
    end = start + rng.uniform(0, 30, 400)
    stream = rng.integers(0, 4, 400)
    whole = stream_overlaps(start, end, stream)
    carry, windowed = {}, 0
    for low in range(0, 1000, 70):
        inside = (start >= low) & (start < low + 70)
        windowed += stream_overlaps(start[inside], end[inside], stream[inside], carry)
    assert whole == windowed > 0
