"""The rank-trace model: what the metrics read of one rank's trace (:class:`RankTrace`, built by readers, read by
metrics and figures), and HTA's kernel categories.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from densing.errors import InputError, TraceError

if TYPE_CHECKING:
    import pandas as pd

# Kernel categories (codes in RankTrace.kernel_category)
COMMUNICATION, MEMORY, COMPUTATION, OTHER = 0, 1, 2, 3
CATEGORY_NAMES = ("communication", "memory", "computation", "other")

# What RankTrace.kernel_lane holds
LANE_STREAM = "stream"  # GPU traces: the CUDA stream id (args.stream)
LANE_THREAD = "thread"  # CPU (gloo) traces: the id of the thread that ran the op (tid)

#: Per kernel-category rules, the (communication, memory, not-computation) patterns of its ``get_kernel_type``:
#: HTA 0.5.0 hta/utils/utils.py (NCCL_KERNEL_RE, MEMORY_KERNEL_RE, NCCL_COMPUTE_KERNEL_RE; RCCL kernels are also
#: named "ncclKernel_*"/"ncclDevKernel_*"; gloo runs on the CPU and has no GPU kernels) and traceinsight 0.6.1
#: (HTA's successor) hta/common/types.py (CommunicateKernelGroupingPattern, MemoryKernelGroupingPattern,
#: ComputeKernelGroupingPattern, the last one inverse-matched).
_PATTERNS = {
    "hta": (
        re.compile(r"^nccl.*Kernel"),
        re.compile(r"(^Memcpy)|(^Memset)|(^dma)"),
        re.compile(r"(^nccl.*Kernel)|(.*(Memcpy)|(Memset))|(.*Sync)"),
    ),
    "traceinsight": (
        re.compile(r"(^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)"),
        re.compile(r"(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)"),
        re.compile(
            r"(^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|(^Stream Wait Event)|(cuda.*LaunchKernel)"
            r"|(^runFunction)|(^hip)|(^job_exe)|(^packet)|(^pe_exe)|(^cpum_exe_subgraph)|(^hccl)"
            r"|(^collective_subgraph_execution)"
        ),
    ),
}

#: The kernel-category rules :func:`kernel_category` follows: ``hta`` (HolisticTraceAnalysis 0.5.0, the default)
#: and ``traceinsight`` (traceinsight 0.6.1, which also counts ``hip*``, ``hccl*`` and every ``nccl*`` name as
#: communication). docs/profiling.md says where they differ.
KERNEL_RULES = ("hta", "traceinsight")
DEFAULT_KERNEL_RULES = "hta"

STEP_RE = re.compile(r"ProfilerStep#(\d+)")


class NoGpuKernelsError(TraceError):
    """A trace without GPU kernels: a CPU-only job, read by :mod:`densing.overlap.cpu_trace` if it has collectives."""


@functools.cache
def kernel_category(name: str, rules: str = DEFAULT_KERNEL_RULES) -> int:
    """Classify a GPU kernel name as HTA 0.5.0 ``get_kernel_type`` does (``rules="hta"``), or traceinsight 0.6.1's
    (``"traceinsight"``): the first of communication, memory and other whose pattern (``_PATTERNS``) matches (so
    ``hipMemcpy…`` is communication under traceinsight), else computation. Each answer is kept."""
    check_rules(rules)
    return next((c for c, p in zip((COMMUNICATION, MEMORY, OTHER), _PATTERNS[rules]) if p.match(name)), COMPUTATION)


def check_rules(rules: str) -> None:
    """An :class:`~densing.errors.InputError` naming ``rules`` unless it is one of :data:`KERNEL_RULES`."""
    if rules not in KERNEL_RULES:
        raise InputError(f"kernel rules: expected one of {', '.join(KERNEL_RULES)}, got {rules!r}")


def step_containing(
    times_us: np.ndarray, step_start_us: np.ndarray, step_end_us: np.ndarray, step_number: np.ndarray
) -> np.ndarray:
    """The number of the ``ProfilerStep`` each time falls in, −1 for none (or a NaN time): steps sorted by start,
    t is in step i when start_i ≤ t < end_i for the last step i that starts at or before t (HTA ``add_iteration``)."""
    times_us = np.asarray(times_us, dtype=np.float64)
    out = np.full(times_us.shape, -1, dtype=np.int64)
    if not step_start_us.size:
        return out
    si = np.searchsorted(step_start_us, times_us, side="right") - 1
    si_c = np.clip(si, 0, step_start_us.size - 1)
    ok = ~np.isnan(times_us) & (si >= 0) & (times_us < step_end_us[si_c])
    out[ok] = step_number[si_c[ok]]
    return out


@dataclass(frozen=True)
class RankTrace:
    """The timed work and step annotations of one rank (times in µs from ``time_origin_us``): GPU kernels on CUDA
    streams, or the ops of a CPU (gloo) job's threads (:mod:`densing.overlap.cpu_trace`); ``lane_kind`` says which."""

    path: str
    rank: int
    world_size: int
    time_origin_us: float
    kernel_start_us: np.ndarray
    kernel_end_us: np.ndarray
    kernel_category: np.ndarray  # int8 codes, see CATEGORY_NAMES
    kernel_lane: np.ndarray  # int64: CUDA stream (GPU traces) or thread id (CPU traces), see lane_kind
    kernel_name_code: np.ndarray  # int32 index into kernel_names
    kernel_names: tuple[str, ...]
    kernel_step: np.ndarray  # int64 ProfilerStep number of the launching CPU event, -1 if none
    kernel_comm_bytes: np.ndarray  # float64 collective message bytes where args carry it, else nan
    step_number: np.ndarray  # int64
    step_start_us: np.ndarray
    step_end_us: np.ndarray
    step_names_seen: frozenset = field(default=frozenset())
    lane_kind: str = LANE_STREAM

    @property
    def kernel_count(self) -> int:
        return int(self.kernel_start_us.size)

    def __repr__(self) -> str:
        """One line: the rank, its work items and steps (the arrays stay out of it; ``kernels_frame()`` has them)."""
        from pathlib import Path

        items = "kernels" if self.lane_kind == LANE_STREAM else "ops"
        lanes = np.unique(self.kernel_lane).size
        return (
            f"RankTrace(rank {self.rank} of {self.world_size}, {self.kernel_count:,} {items} on {lanes} "
            f"{self.lane_kind}{'s' if lanes != 1 else ''}, {self.step_number.size} steps, {Path(self.path).name})"
        )

    def _repr_html_(self) -> str:
        """The one-line repr and the first kernels as a table, for notebooks."""
        import html

        return f"<p>{html.escape(repr(self))}</p>" + self.kernels_frame().head(10).to_html(index=False)

    def kernels_frame(self) -> pd.DataFrame:
        """The kernels as a tidy DataFrame, one row per kernel (the lane column named by ``lane_kind``)."""
        import pandas as pd

        start, end = self.kernel_start_us, self.kernel_end_us
        names = np.asarray(self.kernel_names, dtype=object)[self.kernel_name_code]
        return pd.DataFrame(
            {
                "rank": self.rank,
                "start_us": start,
                "end_us": end,
                "duration_us": end - start,
                "category": np.asarray(CATEGORY_NAMES, dtype=object)[self.kernel_category],
                self.lane_kind: self.kernel_lane,
                "name": names,
                "step": self.kernel_step,
                "comm_bytes": self.kernel_comm_bytes,
            }
        )
