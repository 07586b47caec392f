"""Training-trace profiling: communication/computation overlap in PyTorch-profiler traces.

Plain data flows one way: bytes (:mod:`~densing.overlap.gzipio`) → columns (:mod:`~densing.overlap.kineto`,
:mod:`~densing.overlap.columns`) → one rank's :class:`RankTrace` (:mod:`~densing.overlap.model`; HTA's rules in
:mod:`~densing.overlap.selection`, the CPU-side definitions in :mod:`~densing.overlap.cpu_trace`) → rows
(:mod:`~densing.overlap.intervals`, :mod:`~densing.overlap.metrics`). Per-rank work is a job
(:mod:`~densing.overlap.ranks`, :mod:`~densing.overlap.parts`) on an engine (:mod:`~densing.overlap.engine`);
:mod:`~densing.overlap.trace` reads a set into RankTraces and :mod:`~densing.overlap.analysis` into rows. Models:
:mod:`~densing.overlap.whatif` and one module per strategy (:mod:`~densing.overlap.strategies`); figures:
:mod:`~densing.overlap.figures`; the trainer: :mod:`~densing.overlap.train`.
"""
from __future__ import annotations

import importlib

#: Each public name and the module it lives in: loaded on first use, so that a command importing one submodule
#: (``overlap analyze`` imports :mod:`~densing.overlap.analysis`) does not load the what-if models as well.
_HOMES = {"analyze": "analysis", "analyze_steps": "analysis", "compare": "metrics", "step_skew": "metrics",
          "RankTrace": "model", "read_traces": "trace", "Calibration": "whatif", "calibrate": "whatif",
          "predict": "whatif"}

__all__ = list(_HOMES)


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module 'densing.overlap' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"densing.overlap.{_HOMES[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
