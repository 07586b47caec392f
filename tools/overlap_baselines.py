"""What the overlap benchmarks share (imported by bench/overlap_vs_hta.py and bench/overlap_big_trace.py): the
HolisticTraceAnalysis/traceinsight script each baseline runs, the four compared numbers, and the peak-memory poll."""

from __future__ import annotations

import os

METRICS = ("comm_comp_overlap_pct", "idle_pct", "compute_pct", "non_compute_pct")

#: Run as ``python -c HTA_CODE SET_DIR`` under HTA 0.5.0 or traceinsight 0.6.1 (both install the module ``hta``):
#: loads the set, computes ``get_comm_comp_overlap`` and ``get_temporal_breakdown`` and prints per rank the four
#: :data:`METRICS` as JSON (the breakdown's percentages recomputed from its µs columns, which HTA rounds).
HTA_CODE = r"""
import json, logging, sys
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis
ta = TraceAnalysis(trace_dir=sys.argv[1])
ov = ta.get_comm_comp_overlap(visualize=False)
br = ta.get_temporal_breakdown(visualize=False)
rows = {str(r): {"comm_comp_overlap_pct": float(o)} for r, o in zip(ov["rank"], ov["comp_comm_overlap_pctg"])}
for _, b in br.iterrows():
    k = float(b["kernel_time(us)"])
    rows[str(int(b["rank"]))].update(idle_pct=100 * float(b["idle_time(us)"]) / k,
                                     compute_pct=100 * float(b["compute_time(us)"]) / k,
                                     non_compute_pct=100 * float(b["non_compute_time(us)"]) / k)
print(json.dumps(rows))
"""


def tree_rss_bytes(root: int) -> int:
    """The sum of RSS over process ``root`` and all its descendants (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        stack.extend(children.get(pid, []))
        try:
            with open(f"/proc/{pid}/statm") as fh:
                total += int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            pass
    return total
