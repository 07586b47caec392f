"""Training-trace profiling: communication/computation overlap in PyTorch-profiler traces.

Plain data flows one way: bytes (:mod:`~densing.overlap.gzipio`, :mod:`~densing.overlap.cutting`)
→ columns (:mod:`~densing.overlap.kineto`, :mod:`~densing.overlap.columns`) → one rank's
:class:`RankTrace` (:mod:`~densing.overlap.model`; HTA's rules in :mod:`~densing.overlap.selection`,
the CPU-side definitions in :mod:`~densing.overlap.cpu_trace`) → rows
(:mod:`~densing.overlap.intervals`, :mod:`~densing.overlap.metrics`). Per-rank work is a job
(:mod:`~densing.overlap.ranks`, :mod:`~densing.overlap.parts`) on an engine
(:mod:`~densing.overlap.engine`); :mod:`~densing.overlap.trace` reads a set into RankTraces and
:mod:`~densing.overlap.analysis` into rows. Models: :mod:`~densing.overlap.whatif`,
:mod:`~densing.overlap.fluid` and one module per strategy (:mod:`~densing.overlap.strategies`);
figures: :mod:`~densing.overlap.figures` (plotly); the trainer: :mod:`~densing.overlap.train`.
"""
from densing.overlap.analysis import analyze, analyze_steps
from densing.overlap.metrics import compare, step_skew
from densing.overlap.model import RankTrace
from densing.overlap.trace import read_traces
from densing.overlap.whatif import Calibration, calibrate, predict

__all__ = ["analyze", "analyze_steps", "compare", "step_skew", "RankTrace", "read_traces",
           "Calibration", "calibrate", "predict"]
