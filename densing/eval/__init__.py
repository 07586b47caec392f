"""lm-eval runner: benchmark sweeps recording score and conditional loss into a results store.

The pandas entry points are :func:`evaluate` (run or resume a sweep, return its tidy rows),
:func:`ingest` (existing lm-eval outputs into a store) and :func:`read_store`. torch and lm-eval
(the ``eval`` extra) are imported only when a sweep runs.
"""
from densing.eval.benchmarks import KNOWN_BENCHMARKS, Benchmark
from densing.eval.ingest import ingest
from densing.eval.models import ModelSpec, read_models_file
from densing.eval.runner import evaluate, run_sweep
from densing.eval.store import read_store

__all__ = [
    "KNOWN_BENCHMARKS",
    "Benchmark",
    "ModelSpec",
    "evaluate",
    "ingest",
    "read_models_file",
    "read_store",
    "run_sweep",
]
