"""Metrics on hand-built traces whose numbers are computed by hand in the docstrings."""

import pytest
from hypothesis import given, strategies as st

from densing.errors import TraceError
from densing.overlap import analyze, analyze_steps, read_traces, step_skew
from densing.overlap.model import COMMUNICATION, COMPUTATION, MEMORY, OTHER, kernel_category
from overlap.overlap_tracegen import hand_trace, kernel, launch, step, write_trace


def test_hand_computed_breakdown(tmp_path):
    """span 35, idle 8, compute 15, non-compute 12, comm 10, overlap 3 (see hand_trace)."""
    write_trace(tmp_path / "rank-0.json", hand_trace(shift=1_661_203_462_598_738))
    row = analyze(tmp_path).iloc[0]
    assert row["kernel_count"] == 4  # the kernel launched in the last step is excluded (as HTA)
    assert row["kernel_span_us"] == 35
    assert row["idle_us"] == 8 and row["compute_us"] == 15 and row["non_compute_us"] == 12
    assert row["comm_us"] == 10 and row["overlap_us"] == 3 and row["exposed_comm_us"] == 7
    assert row["comm_comp_overlap_pct"] == pytest.approx(30.0)
    assert row["idle_pct"] == pytest.approx(100 * 8 / 35)
    assert row["compute_pct"] == pytest.approx(100 * 15 / 35)
    assert row["non_compute_pct"] == pytest.approx(100 * 12 / 35)
    assert row["comm_bytes"] == 4000  # 1000 float elements


def test_per_step_rows(tmp_path):
    write_trace(tmp_path / "rank-0.json", hand_trace())
    steps = analyze_steps(tmp_path)
    assert list(steps["step"]) == [1]
    assert steps["step_time_us"].iloc[0] == 45
    assert steps["comm_comp_overlap_pct"].iloc[0] == pytest.approx(30.0)


def test_ns_resolution_timestamps_are_rounded_inwards_like_hta(tmp_path):
    """HTA 0.5.0 round_down_time_stamps: ts ← ceil(ts), end ← floor(ts + dur).

    compute [0.4, 10.2) → [1, 10);  comm [8.6, 20.5) → [9, 20): overlap 1, comm 11 → 9.0909 %.
    """
    events = [
        launch(0.1, 1),
        kernel("sm90_gemm", 0.4, 9.8, 1),
        launch(0.2, 2),
        kernel("ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", 8.6, 11.9, 2),
    ]
    write_trace(tmp_path / "t.json", events)
    row = analyze(tmp_path / "t.json").iloc[0]
    assert row["comm_us"] == 11 and row["compute_us"] == 9 and row["overlap_us"] == 1
    assert row["comm_comp_overlap_pct"] == pytest.approx(100 / 11)


def test_large_integer_ns_timestamps_keep_precision(tmp_path):
    base = 1_732_000_000_000_000_000  # ns since epoch, > 2**53
    events = [
        launch(base, 1),
        kernel("gemm", base + 1, 3, 1),
        launch(base + 1, 2),
        kernel("ncclKernel_SendRecv(x)", base + 3, 2, 2),
    ]
    write_trace(tmp_path / "t.json", events)
    row = analyze(tmp_path / "t.json").iloc[0]
    assert row["kernel_span_us"] == 4 and row["overlap_us"] == 1 and row["comm_us"] == 2


def test_ranks_are_aligned_and_skew_found(tmp_path):
    write_trace(tmp_path / "rank-0.json", hand_trace(shift=1000), rank=0, world_size=2)
    slow = hand_trace(shift=1003, corr_base=100)
    slow[0] = step(1, 1003 - 5, 60)  # rank 1's step 1 lasts 60 µs instead of 45
    write_trace(tmp_path / "rank-1.json", slow, rank=1, world_size=2)
    traces = read_traces(tmp_path)
    assert [t.rank for t in traces] == [0, 1]
    assert traces[0].kernel_start_us.min() == 5 and traces[1].kernel_start_us.min() == 8
    skew = step_skew(analyze_steps(traces)).iloc[0]
    assert skew["skew_us"] == 15 and skew["slowest_rank"] == 1
    assert skew["slowest_excess_pct"] == pytest.approx(100 * (60 / 52.5 - 1))
    assert bool(skew["straggler"])


@pytest.mark.parametrize(
    "name,expected",
    [
        ("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", COMMUNICATION),
        ("ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", COMMUNICATION),
        ("Memcpy DtoD (Device -> Device)", MEMORY),
        ("Memset (Device)", MEMORY),
        ("volta_sgemm_128x64_nn", COMPUTATION),
        ("void at::native::vectorized_elementwise_kernel<4>", COMPUTATION),
        ("Event Sync", OTHER),
        ("cudaStreamSynchronize-ish Sync", OTHER),
    ],
)
def test_kernel_category_follows_hta(name, expected):
    assert kernel_category(name) == expected


_PIECES = ["nccl", "Kernel", "Memcpy", "Memset", "dma", "Sync", "\n", "x", " ", "Dev", "kernel"]


@given(st.lists(st.sampled_from(_PIECES), max_size=6).map("".join))
def test_kernel_category_string_tests_equal_htas_regexes(name):
    """The string tests give exactly HTA 0.5.0's regex answers (hta/utils/utils.py)."""
    import re

    if re.match(r"^nccl.*Kernel", name):
        expected = COMMUNICATION
    elif re.match(r"(^Memcpy)|(^Memset)|(^dma)", name):
        expected = MEMORY
    elif not re.match(r"(^nccl.*Kernel)|(.*(Memcpy)|(Memset))|(.*Sync)", name):
        expected = COMPUTATION
    else:
        expected = OTHER
    assert kernel_category(name) == expected


def test_no_gpu_kernels_is_a_trace_error(tmp_path):
    write_trace(tmp_path / "cpu.json", [launch(1, 1), step(1, 0, 10)])
    with pytest.raises(TraceError, match="no GPU kernels"):
        analyze(tmp_path / "cpu.json")


def test_missing_fields_are_tolerated(tmp_path):
    """Events without name/args/dur, metadata events and a string stream id (HTA: int("20"))."""
    events = hand_trace() + [
        {"ph": "X", "cat": "cpu_op", "ts": 3, "dur": 1},  # no name, no args
        {"ph": "i", "cat": "instant", "name": "mark", "ts": 4, "s": "t"},  # no dur: dropped
        {"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "GPU 0"}},  # no ts
    ]
    events[7]["args"]["stream"] = "20"  # the all-reduce kernel, stream as a string
    write_trace(tmp_path / "r.json", events)
    row = analyze(tmp_path).iloc[0]
    assert row["comm_us"] == 10 and row["overlap_us"] == 3


def test_batched_decoding_equals_whole(tmp_path):
    """Kineto-style one-event-per-block JSON decoded in small batches gives the same arrays."""
    import json

    import numpy as np

    from densing.overlap.kineto import GPU, decode_file, event_batches

    doc = {"distributedInfo": {"rank": 5, "world_size": 8}, "traceEvents": hand_trace()}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc, indent=2).replace("\n    {", "\n  {"))
    whole = analyze(path)
    batches = list(event_batches([path.read_bytes()], path, GPU, batch_bytes=300))
    assert len(batches) == 2 and batches[-1][2].rank == 5 and batches[0][2] is None
    assert sum(len(events) for events, _, _ in batches) == len(doc["traceEvents"])
    streamed, info = decode_file(path, GPU, batch_bytes=300)
    whole_cols, _ = decode_file(path, GPU)
    assert info.rank == 5 and info.world_size == 8
    for name in ("ts", "dur", "stream", "correlation", "name_code", "comm_bytes"):
        np.testing.assert_array_equal(streamed.column(name), whole_cols.column(name), err_msg=name)
    assert analyze(path).equals(whole)


def _kineto_text(events, rank=0) -> str:
    """Kineto's layout: one event per block, blocks separated by ``},\\n  {``."""
    import json

    body = ",\n".join("  " + json.dumps(e) for e in events)
    return (
        '{\n  "schemaVersion": 1,\n  "distributedInfo": {"rank": %d, "world_size": 8},\n'
        '  "traceEvents": [\n%s\n  ],\n  "traceName": "t"\n}' % (rank, body)
    )


def _many_steps(steps=40):
    events = []
    for k in range(steps):  # 40 copies of hand_trace, 100 µs apart, with their own steps
        for e in hand_trace(shift=100 * k, corr_base=10 * k):
            if e["name"].startswith("ProfilerStep#"):
                e["name"] = f"ProfilerStep#{2 * k + int(e['name'][-1])}"
            events.append(e)
    return events


def _same_traces(a, b):
    import numpy as np

    assert len(a) == len(b)
    for x, y in zip(a, b):
        for field in ("rank", "world_size", "time_origin_us", "kernel_names", "step_names_seen", "lane_kind"):
            assert getattr(x, field) == getattr(y, field), field
        for field in (
            "kernel_start_us",
            "kernel_end_us",
            "kernel_category",
            "kernel_lane",
            "kernel_name_code",
            "kernel_step",
            "kernel_comm_bytes",
            "step_number",
            "step_start_us",
            "step_end_us",
        ):
            np.testing.assert_array_equal(getattr(x, field), getattr(y, field), err_msg=field)


@pytest.mark.parametrize("parts", [2, 3])
def test_a_file_cut_into_part_jobs_reads_like_one_job(tmp_path, parts):
    """Part jobs each read the file themselves and decode only their events; in order, their
    columns are the whole file's, on this process and on a process pool alike."""
    import gzip

    import numpy as np

    from densing.overlap.engine import ProcessEngine, SerialEngine
    from densing.overlap.kineto import GPU, decode_file, decode_part
    from densing.overlap.trace import run_ranks, set_traces

    path = tmp_path / "r.json.gz"
    path.write_bytes(gzip.compress(_kineto_text(_many_steps()).encode()))
    one = read_traces(path, scheduler="serial")
    whole, info = decode_file(path, GPU)
    pieces = [decode_part(path, k, parts) for k in range(parts)]
    assert all(cols.events > 0 for cols, _ in pieces)  # every part has events of its own
    cols = pieces[0][0]
    for other, _ in pieces[1:]:
        cols.extend(other)
    assert pieces[-1][1] == info and info.rank == 0
    for name in ("ts", "dur", "stream", "correlation", "name_code", "comm_bytes"):
        np.testing.assert_array_equal(cols.column(name), whole.column(name), err_msg=name)
    for engine in (SerialEngine(), ProcessEngine(parts)):
        _same_traces(one, set_traces(path, run_ranks([path], GPU, engine, split_min_bytes=0), GPU))
    assert one[0].step_number.size == 80 and one[0].kernel_count == 200 - 1  # last step's kernel excluded


def test_part_jobs_report_a_malformed_span_naming_the_file(tmp_path):
    from densing.overlap.engine import ProcessEngine
    from densing.overlap.kineto import GPU
    from densing.overlap.trace import run_ranks

    text = _kineto_text(_many_steps())
    broken = text[: len(text) // 4] + text[len(text) // 4 :].replace('"dur": ', '"dur" ', 1)
    (tmp_path / "r.json").write_text(broken)
    (rank,) = run_ranks([tmp_path / "r.json"], GPU, ProcessEngine(2), split_min_bytes=0)
    assert isinstance(rank, TraceError)
    assert str(rank).startswith(f"{tmp_path / 'r.json'}: malformed JSON")  # the file, named once


def test_a_part_jobs_error_is_raised_by_the_combining_job(tmp_path):
    from densing.overlap.kineto import GPU, decode_part
    from densing.overlap.trace import combined_columns

    path = tmp_path / "r.json"
    path.write_text(_kineto_text(_many_steps()))
    first = decode_part(path, 0, 2)
    with pytest.raises(TraceError, match=f"^{path}: timestamp beyond 64-bit"):
        combined_columns(path, GPU, first, TraceError("timestamp beyond 64-bit integer range"))


def test_streamed_batches_may_switch_to_float_timestamps(tmp_path):
    """An integer-µs first batch and an ns-resolution later one: as if decoded whole (all rounded)."""
    from densing.overlap.kineto import FLOAT_TS, GPU, INT_TS, decode_stream, event_batches
    from densing.overlap.selection import decoded_rank, to_rank_trace

    events = _many_steps(10)
    for e in events[len(events) // 2 :]:
        e["ts"] += 0.25
    path = tmp_path / "r.json"
    path.write_text(_kineto_text(events))
    whole = read_traces(path)
    text = path.read_bytes()
    pieces = [text[i : i + 1000] for i in range(0, len(text), 1000)]
    modes = [mode for _, mode, _ in event_batches(pieces, path, GPU, batch_bytes=2000)]
    assert len(modes) > 2 and modes[0] == INT_TS and modes[-1] == FLOAT_TS
    cols, info = decode_stream(pieces, path, GPU, batch_bytes=2000)
    _same_traces(whole, [to_rank_trace(decoded_rank(path, cols, info, 0), True, whole[0].time_origin_us)])


def test_multi_member_gzip_reads_like_one_member(tmp_path):
    import gzip

    text = _kineto_text(_many_steps(5)).encode()
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    (tmp_path / "one" / "r.json.gz").write_bytes(gzip.compress(text))
    (tmp_path / "two" / "r.json.gz").write_bytes(gzip.compress(text[:1000]) + gzip.compress(text[1000:]))
    assert analyze(tmp_path / "two").equals(analyze(tmp_path / "one"))


@given(st.lists(st.integers(-3, 40), max_size=30), st.lists(st.integers(-3, 40), max_size=30))
def test_isin_sorted_equals_numpy_isin(values, pool):
    import numpy as np

    from densing.overlap.columns import isin_sorted

    values, pool = np.array(values, dtype=np.int64), np.array(pool, dtype=np.int64)
    np.testing.assert_array_equal(isin_sorted(values, np.unique(pool)), np.isin(values, pool))


def test_sorted_unique_and_isin_match_numpy():
    """The numpy.ma-free helpers of the trace reader agree with np.unique / np.isin."""
    import numpy as np
    from hypothesis import given, settings, strategies as st

    from densing.overlap.columns import isin_codes, sorted_unique

    ints = st.lists(st.integers(-5, 40), max_size=60)

    @settings(max_examples=200, deadline=None)
    @given(ints, ints)
    def check(values, codes):
        a = np.asarray(values, dtype=np.int64)
        assert np.array_equal(sorted_unique(a), np.unique(a))
        assert np.array_equal(isin_codes(a, codes), np.isin(a, codes))

    check()
