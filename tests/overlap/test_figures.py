import plotly.graph_objects as go

from densing.overlap import analyze, calibrate, predict, read_traces
from densing.overlap.figures import breakdown_figure, report_section, timeline_figure, whatif_figure
from overlap.overlap_tracegen import hand_trace, write_trace


def test_figures_from_frames(tmp_path):
    write_trace(tmp_path / "rank-0.json", hand_trace())
    traces = read_traces(tmp_path)
    bars = breakdown_figure(analyze(traces))
    assert isinstance(bars, go.Figure) and len(bars.data) == 3
    assert list(bars.data[0].y) == [100 * 15 / 35]
    timeline = timeline_figure(traces, step=1)
    assert {trace.name for trace in timeline.data} == {"computation", "communication", "memory"}
    curves = whatif_figure(predict(calibrate(traces), workers=[1, 2, 4]))
    assert len(curves.data) == 4 * 2


def test_report_section(tmp_path):
    write_trace(tmp_path / "rank-0.json", hand_trace())
    parts = report_section(tmp_path)
    assert [title for title, _ in parts][0] == "Temporal breakdown per rank"
    assert len(parts) == 3 and all(isinstance(fig, go.Figure) for _, fig in parts)


def test_report_section_runs_side_by_side(tmp_path):
    from overlap.test_cpu_trace import hand_cpu_trace, write

    for name in ("ddp", "sync"):
        write(tmp_path / name / "rank0.json", hand_cpu_trace(), rank=0)
        write(tmp_path / name / "rank1.json", hand_cpu_trace(shift=5), rank=1)
    parts = report_section(tmp_path)
    assert [title for title, _ in parts] == [
        "Runs side by side",
        "ddp: one step's timeline per rank",
        "sync: one step's timeline per rank",
    ]
    bars = parts[0][1]
    assert len(bars.data) == 3 and list(bars.data[0].x[0]) == ["ddp", "ddp", "sync", "sync"]
    assert list(bars.data[0].y) == [100 * 70 / 80] * 4
