"""lm-eval runner: benchmark sweeps recording score and conditional loss into a results store (:func:`evaluate`,
:func:`ingest`, :func:`read_store`). torch and lm-eval (the ``eval`` extra) are imported only when a sweep runs.
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
