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
    extra = {"typer": (), "json": ("--format", "json"), "stream": ("--stream",),
             "stream json": ("--stream", "--format", "json")}[how]
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
        {"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "GPU 0"}}]
    whole = analyze(write_trace(tmp_path / "plain" / "rank0.json", hand_trace(shift=1000)), stream=False)
    assert analyze(write_trace(tmp_path / "extra" / "rank0.json", events), stream=False).equals(whole)
