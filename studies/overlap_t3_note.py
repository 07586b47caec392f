"""Summarise studies/overlap_t3.sh's tables into OUT/note.md (the tensor-parallel and validation numbers in one page).

    python studies/overlap_t3_note.py OUT [RUNS]

Speed-up = serialized / chunked step time per repeat: unprofiled medians (summary.csv) and, with
RUNS, profiled ProfilerStep means; median and range over the repeats. Per sublayer (means over
ranks, then median and range over repeats): sublayer time, producer GEMM, exposed comm, measured
contention γ (chunked runs; a serialized run has no GEMM beside a collective), and the cross-run
contention: a chunked run's GEMM chunk beside a collective vs the serialized run's GEMM / k.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

T3_GEOMEAN, T3_MAX = 30.0, 47.0  # Pati et al. 2024: sublayer speed-up from fine-grained overlap, %


def mr(values) -> str:
    v = np.asarray(list(values), dtype=float)
    v = v[np.isfinite(v)]
    if not v.size:
        return "—"
    return f"{np.median(v):.3g} [{v.min():.3g}, {v.max():.3g}]"


def main(out: str, runs: str | None = None, chunks: int = 4) -> None:
    out = Path(out)
    summary = pd.read_csv(out / "summary.csv")
    sub = pd.read_csv(out / "sublayers.csv")
    lines = ["# T3 measured: tp none vs chunked, and validation over repeats", ""]
    piv = summary.pivot_table(index="repeat", columns="strategy", values="unprofiled_median_step_ms")
    speed = piv["tp-none"] / piv["tp-chunked"]
    lines += [
        f"Repeats: {len(piv)}. Values: median [min, max] over repeats.",
        "",
        "## Step time and speed-up (serialized / chunked)",
        "",
        f"- unprofiled median step: tp-none {mr(piv['tp-none'])} ms, tp-chunked {mr(piv['tp-chunked'])} ms",
        f"- speed-up (unprofiled): {mr(speed)}× → {mr(100 * (speed - 1))} % "
        f"(T3: {T3_GEOMEAN:g} % geomean, max {T3_MAX:g} %, per sublayer on GPUs)",
    ]
    if runs:
        from densing.overlap.validate import measured_step_s

        prof = {
            m: [measured_step_s(Path(runs) / f"r{r}" / f"tp-{m}") * 1e3 for r in piv.index] for m in ("none", "chunked")
        }
        ps = np.array(prof["none"]) / np.array(prof["chunked"])
        lines += [
            f"- profiled mean step: tp-none {mr(prof['none'])} ms, tp-chunked {mr(prof['chunked'])} ms; "
            f"speed-up {mr(ps)}×"
        ]
    lines += [
        "",
        "## Per sublayer (µs per step, mean over the 2 ranks)",
        "",
        "| mode | sublayer | sublayer time | producer GEMM | exposed comm (fwd) | backward comm | γ measured |",
        "|---|---|---|---|---|---|---|",
    ]
    per = sub.groupby(["repeat", "mode", "sublayer"]).mean(numeric_only=True).reset_index()
    for mode in ("none", "chunked"):
        for s in ("attn", "mlp"):
            g = per[(per["mode"] == mode) & (per["sublayer"] == s)]
            lines.append(
                f"| {mode} | {s} | {mr(g['sublayer_us'])} | {mr(g['producer_gemm_us'])} | "
                f"{mr(g['exposed_comm_us'])} | {mr(g['backward_comm_us'])} | {mr(g['contention'])} |"
            )
    lines += [
        "",
        "Best case of perfect overlap (serialized runs): (C + A) / max(C, A) with C the producer GEMM "
        "and A the forward all-reduce per sublayer:",
    ]
    for s_ in ("attn", "mlp"):
        n = per[(per["mode"] == "none") & (per["sublayer"] == s_)]
        c, a_ = n["producer_gemm_us"].to_numpy(), n["exposed_comm_us"].to_numpy()
        lines.append(f"- {s_}: {mr((c + a_) / np.maximum(c, a_))}× (C/A = {mr(c / a_)})")
    lines += [
        "",
        f"Cross-run contention (chunked GEMM chunk beside a collective vs the serialized GEMM / k, k = {chunks}): ",
    ]
    for s in ("attn", "mlp"):
        n = per[(per["mode"] == "none") & (per["sublayer"] == s)].set_index("repeat")
        c = per[(per["mode"] == "chunked") & (per["sublayer"] == s)].set_index("repeat")
        alone_per_call = n["gemm_alone_us"] / chunks
        lines.append(
            f"- {s}: {mr(c['gemm_concurrent_us'] / alone_per_call - 1)}; alone chunks in the chunked run "
            f"vs serialized/k: {mr(c['gemm_alone_us'] / alone_per_call - 1)}"
        )
    v = pd.read_csv(out / "validate_summary.csv")
    lines += [
        "",
        "## Validation (profiled step; error = predicted − measured, %)",
        "",
        "| strategy | repeats | error median | min | max | profiler overhead (median) |",
        "|---|---|---|---|---|---|",
    ]
    for _, r in v.iterrows():
        lines.append(
            f"| {r['strategy']} | {r['repeats']} | {r['error_median_pct']:+.1f} | {r['error_min_pct']:+.1f} | "
            f"{r['error_max_pct']:+.1f} | {r['profiler_overhead_median_pct']:+.1f} % |"
        )
    pw = pd.read_csv(out / "peer_wait_sync.csv")
    share = 100 * pw["exposed_peer_wait_us"] / pw["exposed_comm_us"]
    lines += ["", f"sync's exposed communication that is peer wait (per rank and repeat): {mr(share)} %", ""]
    (out / "note.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main(*sys.argv[1:3])
