"""Plotly figures for the overlap section of the HTML report, each of the plain data of :mod:`densing.overlap`
(DataFrames, RankTrace lists); only :func:`report_section` and :func:`overlap_table` (the report's) read files.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from densing.overlap.analysis import RankTraces, analyze
from densing.overlap.model import CATEGORY_NAMES, RankTrace
from densing.overlap.trace import read_traces
from densing.validation import Frame, validate_params

#: The columns of :func:`densing.overlap.analyze`'s rows the breakdown figures draw.
BREAKDOWN = Frame(("rank", "compute_pct", "non_compute_pct", "idle_pct", "comm_comp_overlap_pct", "exposed_comm_us"))
#: The columns of :func:`densing.overlap.predict`'s rows the what-if figure draws.
WHATIF = Frame(("strategy", "bandwidth_gbps", "workers", "scaling_efficiency", "step_time_us"))


class Runs:
    """Runs side by side: a non-empty mapping of a run's name to its :data:`BREAKDOWN` rows."""

    def matches(self, value) -> bool:
        return isinstance(value, Mapping) and bool(value) and all(BREAKDOWN.matches(v) for v in value.values())

    def __str__(self) -> str:
        return f"a non-empty mapping of run names to {BREAKDOWN} (densing.overlap.analyze's rows)"


_COLORS = {
    "idle": "#bdbdbd",
    "compute": "#1f77b4",
    "non-compute": "#ff7f0e",
    "communication": "#d62728",
    "memory": "#9467bd",
    "computation": "#1f77b4",
    "other": "#7f7f7f",
}


def _stacked(x, frames: list[pd.DataFrame], head: str = "") -> go.Figure:
    """Stacked compute / non-compute / idle % bars of the rows of ``frames`` at ``x``, with the comm-comp overlap %
    and exposed communication in the hover (after ``head``)."""
    fig = go.Figure()
    extra = np.concatenate(
        [np.stack([df["comm_comp_overlap_pct"], df["exposed_comm_us"] / 1e3], axis=-1) for df in frames]
    )
    for column, label in [("compute_pct", "compute"), ("non_compute_pct", "non-compute"), ("idle_pct", "idle")]:
        y = np.concatenate([df[column].to_numpy() for df in frames])
        fig.add_bar(
            x=x,
            y=y,
            name=label,
            marker_color=_COLORS[label],
            customdata=extra,
            hovertemplate=(
                f"{head}{label} %{{y:.2f}}%<br>comm-comp overlap %{{customdata[0]:.2f}}%"
                "<br>exposed comm %{customdata[1]:.1f} ms<extra></extra>"
            ),
        )
    return fig


@validate_params({"df": [BREAKDOWN]})
def breakdown_figure(df: pd.DataFrame) -> go.Figure:
    """Stacked bars per rank: idle / compute / non-compute % of the GPU kernel span (hover: :func:`_stacked`)."""
    fig = _stacked(df["rank"].astype(str), [df], head="rank %{x}<br>")
    return fig.update_layout(
        barmode="stack",
        title="Temporal breakdown of the GPU kernel span per rank",
        xaxis_title="rank",
        yaxis_title="% of kernel span",
        yaxis_range=[0, 100],
    )


@validate_params({"traces": [RankTraces()]})
def timeline_figure(
    traces: Sequence[RankTrace], step: int | None = None, max_kernels: int = 20000, label: str | None = None
) -> go.Figure:
    """One step's GPU kernels per rank and stream, coloured by category; ``step`` defaults to the first step all ranks
    share (the whole trace when there is none). At most the ``max_kernels`` longest kernels per rank are drawn."""
    if step is None:
        common = set.intersection(*(set(int(s) for s in np.unique(t.kernel_step) if s >= 0) for t in traces))
        step = min(common) if common else None
    fig, shown = go.Figure(), set()
    for t in traces:
        idx = np.flatnonzero(t.kernel_step == step) if step is not None else np.arange(t.kernel_count)
        if idx.size > max_kernels:
            idx = idx[np.argsort(t.kernel_end_us[idx] - t.kernel_start_us[idx])[-max_kernels:]]
        for code, name in enumerate(CATEGORY_NAMES):
            k = idx[t.kernel_category[idx] == code]
            if k.size == 0:
                continue
            fig.add_bar(
                base=t.kernel_start_us[k] / 1e3,
                x=(t.kernel_end_us[k] - t.kernel_start_us[k]) / 1e3,
                y=[f"rank {t.rank} / {t.lane_kind} {s}" for s in t.kernel_lane[k]],
                orientation="h",
                name=name,
                legendgroup=name,
                showlegend=name not in shown,
                marker_color=_COLORS[name],
                customdata=np.asarray(t.kernel_names, dtype=object)[t.kernel_name_code[k]],
                hovertemplate="%{customdata}<br>start %{base:.3f} ms, %{x:.3f} ms<extra></extra>",
            )
            shown.add(name)
    ranks = ", ".join(str(t.rank) for t in traces[:8]) + (" …" if len(traces) > 8 else "")
    title = f"kernels of ranks {ranks}" + (f", step {step}" if step is not None else "")
    return fig.update_layout(
        barmode="overlay",
        title=f"{label}: {title}" if label else title,
        xaxis_title="time since first event (ms)",
        yaxis_title="",
        bargap=0.2,
    )


@validate_params({"df": [WHATIF]})
def whatif_figure(df: pd.DataFrame) -> go.Figure:
    """Scaling efficiency against workers, one line per (strategy, bandwidth)."""
    fig = go.Figure()
    for (strategy, gbps), g in df.groupby(["strategy", "bandwidth_gbps"], sort=True):
        g = g.sort_values("workers")
        fig.add_scatter(
            x=g["workers"],
            y=g["scaling_efficiency"],
            mode="lines+markers",
            name=f"{strategy}, {gbps:g} Gb/s",
            customdata=g["step_time_us"] / 1e3,
            hovertemplate="%{x} workers: efficiency %{y:.3f}, step %{customdata:.1f} ms<extra></extra>",
        )
    return fig.update_layout(
        title="What-if: scaling efficiency by overlap strategy and network",
        xaxis_title="workers",
        xaxis_type="log",
        yaxis_title="scaling efficiency (compute / step time)",
        yaxis_range=[0, 1.05],
    )


@validate_params({"frames": [Runs()]})
def runs_figure(frames: dict[str, pd.DataFrame]) -> go.Figure:
    """Several runs side by side: per run and rank, stacked compute / non-compute / idle % (:func:`_stacked`)."""
    x = [
        [name for name, df in frames.items() for _ in range(len(df))],
        [f"rank {r}" for df in frames.values() for r in df["rank"]],
    ]
    fig = _stacked(x, list(frames.values()))
    return fig.update_layout(
        barmode="stack",
        title="Runs side by side: temporal breakdown per rank",
        yaxis_title="% of span",
        yaxis_range=[0, 100],
    )


def _run_sets(trace_dir: Path) -> dict[str, list[RankTrace]]:
    """Each trace-holding sub-folder's traces by name (a 'densing overlap run' output), if ``trace_dir`` has none."""
    if not trace_dir.is_dir() or any(f.name.endswith((".json", ".json.gz")) for f in trace_dir.iterdir()):
        return {}
    return {
        d.name: read_traces(d)
        for d in sorted(trace_dir.iterdir())
        if d.is_dir() and any(f.name.endswith((".json", ".json.gz")) for f in d.iterdir())
    }


#: The overlap numbers the report prints beside the figures, with their names for a reader.
OVERLAP_TABLE_COLUMNS = {
    "comm_comp_overlap_pct": "overlap %",
    "exposed_comm_us": "exposed comm (ms)",
    "comm_us": "comm (ms)",
    "compute_us": "compute (ms)",
    "idle_pct": "idle %",
}


def overlap_table(trace_dir: str | Path) -> pd.DataFrame:
    """One row per run (strategy) and rank: the report's overlap numbers (:data:`OVERLAP_TABLE_COLUMNS`)."""
    sets = _run_sets(Path(trace_dir)) or {Path(trace_dir).name: read_traces(trace_dir)}
    frames = {name: analyze(traces) for name, traces in sets.items()}
    return pd.concat(
        [
            pd.DataFrame(
                {
                    "run": name,
                    "rank": frame["rank"],
                    **{
                        title: frame[column].to_numpy(float) / (1e3 if column.endswith("_us") else 1.0)
                        for column, title in OVERLAP_TABLE_COLUMNS.items()
                    },
                }
            )
            for name, frame in frames.items()
        ],
        ignore_index=True,
    )


def report_section(trace_dir: str | Path, model_params: float | None = None) -> list[tuple[str, go.Figure]]:
    """The report's overlap figures for a trace folder: breakdown bars, one step's timeline and, when the trace (or
    ``model_params``) gives the communication volume, what-if curves; for a folder of run folders (``densing overlap
    run OUT``) the runs side by side, then each run's timeline."""
    from densing.errors import InputError
    from densing.overlap.whatif import calibrate, predict

    if read := _run_sets(Path(trace_dir)):
        return [("Runs side by side", runs_figure({name: analyze(t) for name, t in read.items()}))] + [
            (f"{name}: one step's timeline per rank", timeline_figure(t, label=name)) for name, t in read.items()
        ]
    traces = read_traces(trace_dir)
    parts = [
        ("Temporal breakdown per rank", breakdown_figure(analyze(traces))),
        ("One step's GPU timeline per rank", timeline_figure(traces, label=Path(trace_dir).name)),
    ]
    with contextlib.suppress(InputError):  # no message sizes in the trace and no model size: no what-if curves
        parts.append(
            (
                "What-if: overlap strategies, workers and networks",
                whatif_figure(predict(calibrate(traces, model_params=model_params))),
            )
        )
    return parts
