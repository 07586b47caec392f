"""CPU-side (gloo) trace metrics on a hand-made trace with known overlap; GPU traces still need kernels."""

import json

import numpy as np
import pytest

from densing.errors import TraceError
from densing.overlap import analyze, analyze_steps, read_traces
from densing.overlap.engine import SerialEngine
from densing.overlap.intervals import subtract_intervals
from densing.overlap.kineto import CPU
from densing.overlap.model import COMMUNICATION, COMPUTATION, LANE_THREAD, OTHER
from densing.overlap.trace import annotation_frame, decode_ranks, set_traces, trace_files


def op(name, ts, dur, tid=1, cat="cpu_op"):
    return {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur, "args": {}}


def write(path, events, rank=0, world=2):
    doc = {
        "distributedInfo": {"backend": "gloo", "rank": rank, "world_size": world},
        "traceEvents": events + [{"ph": "X", "cat": "Trace", "name": "PyTorch Profiler", "ts": 0, "dur": 1}],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))
    return path


def hand_cpu_trace(shift=0):
    """Training thread 1: ops [0,40) with a nested op [5,10), c10d::allreduce_ [40,42) that contains
    an aten::copy_ [40,41), ops [50,80); gloo thread 9: gloo:all_reduce [42,62); steps [0,45) [45,90).

    Hand-computed: compute C = [0,40) ∪ [50,80) = 70; calls K = [40,42) = 2; comm M = [42,62) = 20;
    M ∩ C = [50,62) = 12 → overlap 60 %, exposed 8; busy = [0,62) ∪ [50,80) = 80 over span 80 → idle 0.
    """
    s = shift
    return [
        op("ProfilerStep#1", s + 0, 45, cat="user_annotation"),
        op("ProfilerStep#2", s + 45, 45, cat="user_annotation"),
        op("forward", s + 0, 40, cat="user_annotation"),
        op("aten::mm", s + 0, 40),
        op("aten::add", s + 5, 5),
        op("c10d::allreduce_", s + 40, 2),
        op("aten::copy_", s + 40, 1),
        op("aten::mm", s + 50, 30),
        op("gloo:all_reduce", s + 42, 20, tid=9, cat="user_annotation"),
    ]


def test_hand_trace_overlap_exposed_breakdown(tmp_path):
    write(tmp_path / "rank0.json", hand_cpu_trace())
    row = analyze(tmp_path).iloc[0]
    assert row.compute_us == 70 and row.comm_us == 20 and row.overlap_us == 12
    assert row.exposed_comm_us == 8 and row.comm_comp_overlap_pct == pytest.approx(60)
    assert row.kernel_span_us == 80 and row.idle_us == 0
    assert row.non_compute_us == 10  # K (2) and the exposed collective (8)
    assert row.compute_pct == pytest.approx(100 * 70 / 80)


def test_categories_steps_and_threads(tmp_path):
    write(tmp_path / "rank0.json", hand_cpu_trace())
    (t,) = set_traces(tmp_path, decode_ranks(trace_files(tmp_path), CPU, SerialEngine()), CPU)
    comm = t.kernel_category == COMMUNICATION
    assert t.lane_kind == LANE_THREAD and list(t.kernel_lane[comm]) == [9]
    assert t.kernel_names[t.kernel_name_code[comm][0]] == "gloo:all_reduce"
    calls = t.kernel_category == OTHER
    assert list(zip(t.kernel_start_us[calls], t.kernel_end_us[calls])) == [(40, 42)]
    comp = t.kernel_category == COMPUTATION
    assert list(t.kernel_step[comp]) == [1, 2] and list(t.step_number) == [1, 2]
    steps = analyze_steps(tmp_path)
    assert list(steps["step_time_us"]) == [45, 45]
    assert steps.iloc[0]["comm_us"] == 20 and steps.iloc[1]["comm_us"] == 0  # the collective starts in step 1


def test_ranks_aligned_and_read_traces_falls_back(tmp_path):
    write(tmp_path / "rank0.json", hand_cpu_trace(shift=1000), rank=0)
    write(tmp_path / "rank1.json", hand_cpu_trace(shift=1010), rank=1)
    traces = read_traces(tmp_path)  # no GPU kernels, gloo collectives: the CPU-side reader
    assert [t.rank for t in traces] == [0, 1]
    assert traces[0].kernel_start_us.min() == 0 and traces[1].kernel_start_us.min() == 10
    ann = annotation_frame(tmp_path, ("forward",))
    assert set(ann["name"]) == {"forward", "gloo:all_reduce"} and (ann["step"] == 1).all()


def test_no_collectives_is_a_trace_error(tmp_path):
    write(tmp_path / "rank0.json", [e for e in hand_cpu_trace() if not e["name"].startswith("gloo:")])
    with pytest.raises(TraceError, match="no GPU kernels"):
        read_traces(tmp_path)
    with pytest.raises(TraceError, match="no CPU collectives"):
        set_traces(tmp_path, decode_ranks(trace_files(tmp_path), CPU, SerialEngine()), CPU)


def test_subtract_hand_case():
    s, e = subtract_intervals(np.array([0, 20]), np.array([10, 30]), np.array([5, 25]), np.array([22, 26]))
    assert list(zip(s, e)) == [(0, 5), (25 - 3, 25), (26, 30)]


def test_a_gloo_set_is_decoded_once(tmp_path, monkeypatch):
    """The set's kind is sniffed from distributedInfo.backend: each file is decoded once, as CPU ops."""
    from densing.overlap import trace
    from densing.overlap.kineto import CPU

    write(tmp_path / "rank0.json", hand_cpu_trace(shift=1000), rank=0)
    write(tmp_path / "rank1.json", hand_cpu_trace(shift=1010), rank=1)
    calls = []
    real = trace.decode_file
    monkeypatch.setattr(
        trace, "decode_file", lambda path, kind, *a: calls.append((path.name, kind)) or real(path, kind, *a)
    )
    assert [t.rank for t in read_traces(tmp_path, scheduler="serial")] == [0, 1]
    assert sorted(calls) == [("rank0.json", CPU), ("rank1.json", CPU)]
    calls.clear()
    assert list(analyze(tmp_path, scheduler="serial")["comm_comp_overlap_pct"]) == pytest.approx([60, 60])
    assert sorted(calls) == [("rank0.json", CPU), ("rank1.json", CPU)]


def test_a_gloo_set_without_backend_info_is_still_read(tmp_path):
    for rank, shift in ((0, 1000), (1, 1010)):
        path = write(tmp_path / f"rank{rank}.json", hand_cpu_trace(shift=shift), rank=rank)
        doc = json.loads(path.read_text())
        del doc["distributedInfo"]["backend"]
        path.write_text(json.dumps(doc))
    frame = analyze(tmp_path)
    assert list(frame["comm_comp_overlap_pct"]) == pytest.approx([60, 60])


def test_a_gloo_trace_is_streamed_in_batches_like_a_gpu_trace(tmp_path):
    """Kineto's layout (one event per block): the CPU columns decoded batch by batch are the
    columns decoded in one go."""
    from densing.overlap.kineto import CPU, decode_file, event_batches

    events = [e for k in range(30) for e in hand_cpu_trace(shift=100 * k)]
    body = ",\n".join("  " + json.dumps(e) for e in events)
    path = tmp_path / "rank0.json"
    path.write_text(
        '{\n  "distributedInfo": {"backend": "gloo", "rank": 3, "world_size": 4},\n'
        '  "traceEvents": [\n%s\n  ]\n}' % body
    )
    text = path.read_bytes()
    batches = list(event_batches([text[i : i + 1000] for i in range(0, len(text), 1000)], path, CPU, batch_bytes=2000))
    assert len(batches) > 5 and sum(len(b[0]) for b in batches) == len(events)
    streamed, info = decode_file(path, CPU, batch_bytes=2000)
    whole, _ = decode_file(path, CPU)
    assert info.rank == 3 and info.backend == "gloo" and streamed.names == whole.names
    for name in ("ts", "end", "tid", "name_code", "cat"):
        np.testing.assert_array_equal(streamed.column(name), whole.column(name), err_msg=name)
