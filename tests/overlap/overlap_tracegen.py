"""Write small Kineto-format traces for tests (plain JSON, same field layout as PyTorch's)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path


def kernel(name, ts, dur, corr, stream=7, cat="kernel", **extra_args):
    args = {"device": 0, "stream": stream, "correlation": corr} | extra_args
    return {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": stream, "ts": ts, "dur": dur, "args": args}


def launch(ts, corr, name="cudaLaunchKernel"):
    return {
        "ph": "X",
        "cat": "cuda_runtime",
        "name": name,
        "pid": 1,
        "tid": 1,
        "ts": ts,
        "dur": 1,
        "args": {"correlation": corr},
    }


def step(number, ts, dur):
    return {
        "ph": "X",
        "cat": "user_annotation",
        "name": f"ProfilerStep#{number}",
        "pid": 1,
        "tid": 1,
        "ts": ts,
        "dur": dur,
        "args": {},
    }


def write_trace(path: Path, events, rank=0, world_size=1, gz=False) -> Path:
    doc = {
        "schemaVersion": 1,
        "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": world_size},
        "traceEvents": events + [{"ph": "X", "cat": "Trace", "name": "PyTorch Profiler", "ts": 0, "dur": 1000}],
    }
    data = json.dumps(doc).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def hand_trace(shift=0, corr_base=0):
    """Kernels (µs): compute [0,10) [5,15); comm [12,22); memcpy [30,35); all launched in step 1.

    A further compute kernel [50,60) is launched in the last step (2), which HTA excludes.
    Hand-computed: span 35, busy 27, idle 8, compute 15, non-compute 12, comm 10, overlap 3.
    """
    c = corr_base
    return [
        step(1, shift - 5, 45),
        step(2, shift + 40, 40),
        launch(shift - 4, c + 1),
        kernel("volta_sgemm_128x64_nn", shift + 0, 10, c + 1),
        launch(shift - 3, c + 2),
        kernel("void at::native::elementwise_kernel<128>", shift + 5, 10, c + 2, stream=8),
        launch(shift - 2, c + 3, "ncclKernel launch"),
        kernel(
            "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
            shift + 12,
            10,
            c + 3,
            stream=20,
            **{"In msg nelems": 1000, "dtype": "Float"},
        ),
        launch(shift - 1, c + 4, "cudaMemcpyAsync"),
        kernel("Memcpy DtoH (Device -> Pinned)", shift + 30, 5, c + 4, cat="gpu_memcpy"),
        launch(shift + 41, c + 5),
        kernel("volta_sgemm_128x64_nn", shift + 50, 10, c + 5),
    ]


def rules_trace(path):
    """Kernels (µs): sgemm [0,10); ncclDevKernel_AllReduce [5,15); hccl_AllReduce [20,30); hipMemcpyDtoD [28,33);
    sgemm [32,40); all launched in the one step.

    HTA 0.5.0: compute = sgemm ∪ hccl = 28, comm = ncclDev = 10, overlap 5 (50 %), span 40, idle 5,
    non-compute 7 (hipMemcpyDtoD is 'other'). traceinsight 0.6.1: compute = sgemm = 18, comm = ncclDev ∪ hccl ∪
    hip = 23, overlap [5,10) + [32,33) = 6, idle 5, non-compute 17."""
    kernels = [
        ("sgemm", 0, 10, 7),
        ("ncclDevKernel_AllReduce", 5, 10, 8),
        ("hccl_AllReduce", 20, 10, 8),
        ("hipMemcpyDtoD", 28, 5, 9),
        ("sgemm", 32, 8, 7),
    ]
    events = [step(1, -5, 100)]
    for corr, (name, ts, dur, stream) in enumerate(kernels):
        events += [launch(-4 + corr, corr), kernel(name, ts, dur, corr, stream=stream)]
    return write_trace(path, events)
