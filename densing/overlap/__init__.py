"""Training-trace profiling: communication/computation overlap in PyTorch-profiler traces.

Data flows one way: bytes (``gzipio``) → columns (``kineto``, ``columns``) → one rank's :class:`RankTrace` (``model``;
HTA's rules in ``selection``, the CPU-side ones in ``cpu_trace``) → rows (``intervals``, ``metrics``). Per-rank work
is a job (a large file's parts too) on an ``engine``; ``trace`` reads a set into RankTraces, ``analysis`` into rows.
Models: ``whatif`` and ``strategies``; figures: ``figures``; the trainer: ``train`` (docs/profiling_internals.md).
"""

from __future__ import annotations

import importlib

#: Each public name and the module it lives in: loaded on first use, so that a command importing one submodule
#: (``overlap analyze`` imports :mod:`~densing.overlap.analysis`) does not load the what-if models as well.
_HOMES = {
    "analyze": "analysis",
    "analyze_steps": "analysis",
    "compare": "metrics",
    "step_skew": "metrics",
    "RankTrace": "model",
    "read_traces": "trace",
    "Calibration": "whatif",
    "calibrate": "whatif",
    "predict": "whatif",
}

__all__ = list(_HOMES)


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module 'densing.overlap' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"densing.overlap.{_HOMES[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
