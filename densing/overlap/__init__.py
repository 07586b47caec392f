"""Training-trace profiling: communication/computation overlap in PyTorch-profiler traces.

Plain data flows one way: :mod:`~densing.overlap.trace` (reader → :class:`RankTrace`),
:mod:`~densing.overlap.intervals` (numpy interval math), :mod:`~densing.overlap.metrics`
(DataFrames), :mod:`~densing.overlap.whatif` (models), :mod:`~densing.overlap.figures` (plotly).
"""
from densing.overlap.analysis import analyze, analyze_steps
from densing.overlap.metrics import compare, step_skew
from densing.overlap.model import RankTrace
from densing.overlap.trace import read_traces
from densing.overlap.whatif import Calibration, calibrate, predict

__all__ = ["analyze", "analyze_steps", "compare", "step_skew", "RankTrace", "read_traces",
           "Calibration", "calibrate", "predict"]
