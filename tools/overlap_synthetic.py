"""Generate a synthetic multi-rank Kineto trace set for scale runs of ``densing overlap``.

    python tools/overlap_synthetic.py OUT_DIR --ranks 8 --events 1000000 [--seed 0]

Each rank gets ``rank-<r>.json.gz`` with about ``--events`` trace events laid out like a real
PyTorch-profiler trace: ProfilerStep annotations, per kernel a cpu_op, a cudaLaunchKernel
runtime event, an ac2g flow pair and the GPU kernel (compute on stream 7, NCCL all-reduce on
stream 20 with message sizes in args, some memcpy/memset), ns-resolution float timestamps,
``distributedInfo`` with rank and world size. The numbers are random, not from a real job: this
is for timing and memory, not for validating metrics.
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
from pathlib import Path

EVENTS_PER_KERNEL = 5  # cpu_op, runtime, flow start, flow end, kernel

COMPUTE_NAMES = [
    "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)",
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
    "flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t> >",
    "void cutlass::Kernel<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_nn_align8>(Params)",
]
COMM_NAME = "ncclKernel_AllReduce_RING_LL_Sum_bfloat16(ncclDevComm*, unsigned long, ncclWork*)"


def write_rank(path: Path, rank: int, world_size: int, events: int, seed: int) -> int:
    rng = random.Random(seed * 1000 + rank)
    kernels = max(1, events // EVENTS_PER_KERNEL)
    steps = 10
    per_step = max(1, kernels // steps)
    t_cpu = 1_700_000_000_000.0 + rank * 3.1  # µs, monotonic-clock-like
    t_gpu = t_cpu + 50.0
    out = []
    corr = 1
    written = 0
    for s in range(steps):
        step_start = t_cpu
        step_events = []
        for _ in range(per_step):
            kind = rng.random()
            launch_ts = t_cpu + rng.uniform(1.0, 3.0)
            op_dur = rng.uniform(4.0, 12.0)
            if kind < 0.08:  # all-reduce bucket on the comm stream, overlapping compute
                name, cat, stream = COMM_NAME, "kernel", 20
                dur = rng.uniform(50.0, 400.0)
                start = max(t_gpu - rng.uniform(0.0, 200.0), launch_ts + 5.0)
                extra = (
                    ', "Collective name": "allreduce", "In msg nelems": %d, "Out msg nelems": %d, '
                    '"Group size": %d, "dtype": "BFloat16"'
                ) % ((n := rng.randint(1 << 18, 1 << 23)), n, world_size)
                op = "record_param_comms"
            elif kind < 0.11:
                name, cat, stream, extra, op = "Memcpy HtoD (Pinned -> Device)", "gpu_memcpy", 7, "", "aten::copy_"
                dur = rng.uniform(2.0, 30.0)
                start = max(t_gpu, launch_ts + 5.0)
                t_gpu = start + dur
            elif kind < 0.12:
                name, cat, stream, extra, op = "Memset (Device)", "gpu_memset", 7, "", "aten::zero_"
                dur = rng.uniform(1.0, 3.0)
                start = max(t_gpu, launch_ts + 5.0)
                t_gpu = start + dur
            else:
                name, cat, stream, extra, op = rng.choice(COMPUTE_NAMES), "kernel", 7, "", "aten::mm"
                dur = rng.uniform(3.0, 80.0)
                start = max(t_gpu + rng.uniform(0.0, 2.0), launch_ts + 5.0)
                t_gpu = start + dur
            step_events.append(
                '{"ph": "X", "cat": "cpu_op", "name": "%s", "pid": %d, "tid": %d, "ts": %.3f, "dur": %.3f, '
                '"args": {"External id": %d, "Record function id": 0, "Ev Idx": %d}}'
                % (op, 1000 + rank, 1000 + rank, t_cpu, op_dur, corr, corr)
            )
            step_events.append(
                '{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": %d, "tid": %d, '
                '"ts": %.3f, "dur": %.3f, "args": {"External id": %d, "cbid": 211, "correlation": %d}}'
                % (1000 + rank, 1000 + rank, launch_ts, 3.5, corr, corr)
            )
            step_events.append(
                '{"ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %.3f, "cat": "ac2g", "name": "ac2g"}'
                % (corr, 1000 + rank, 1000 + rank, launch_ts)
            )
            step_events.append(
                '{"ph": "f", "id": %d, "pid": 0, "tid": %d, "ts": %.3f, "cat": "ac2g", "name": "ac2g", "bp": "e"}'
                % (corr, stream, start)
            )
            step_events.append(
                '{"ph": "X", "cat": "%s", "name": "%s", "pid": 0, "tid": %d, "ts": %.3f, "dur": %.3f, '
                '"args": {"External id": %d, "queued": 0, "device": 0, "context": 1, "stream": %d, '
                '"correlation": %d, "registers per thread": 64, "shared memory": 0, "blocks per SM": 1.5, '
                '"warps per SM": 6.0, "grid": [128, 1, 1], "block": [256, 1, 1], "est. achieved occupancy %%": 50%s}}'
                % (cat, name, stream, start, dur, corr, stream, corr, extra)
            )
            corr += 1
            t_cpu += op_dur + rng.uniform(0.5, 2.0)
            t_cpu = max(t_cpu, t_gpu - 5000.0)  # the CPU runs at most 5 ms ahead
        out.append(
            '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": %d, "tid": %d, '
            '"ts": %.3f, "dur": %.3f, "args": {"External id": %d}}'
            % (s, 1000 + rank, 1000 + rank, step_start, t_cpu - step_start, s)
        )
        out.extend(step_events)
        written += len(step_events) + 1
    head = (
        '{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": %d, "world_size": %d}, '
        '"deviceProperties": [], "traceEvents": [\n' % (rank, world_size)
    )
    tail = (
        ',\n{"name": "process_name", "ph": "M", "ts": %.3f, "pid": 0, "tid": 0, "args": {"name": "GPU 0"}},\n'
        '{"ph": "X", "cat": "Trace", "ts": %.3f, "dur": %.3f, "pid": "Spans", "tid": "PyTorch Profiler", '
        '"name": "PyTorch Profiler (0)", "args": {"Op count": 0}}\n], "traceName": "%s"}\n'
        % (1_700_000_000_000.0, 1_700_000_000_000.0, t_cpu - 1_700_000_000_000.0, path.name)
    )
    tmp = path.with_name(path.name + ".tmp")
    with gzip.open(tmp, "wt", compresslevel=1) as fh:
        fh.write(head)
        fh.write(",\n".join(out))
        fh.write(tail)
    os.replace(tmp, path)
    return written + 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--ranks", type=int, default=8)
    parser.add_argument("--events", type=int, default=1_000_000, help="trace events per rank")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for r in range(args.ranks):
        n = write_rank(args.out_dir / f"rank-{r}.json.gz", r, args.ranks, args.events, args.seed)
        print(f"wrote {args.out_dir / f'rank-{r}.json.gz'}: {n} events")


if __name__ == "__main__":
    main()
