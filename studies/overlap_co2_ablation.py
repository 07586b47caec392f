"""CO2 ablation: training loss at equal tokens vs DDP for each CO2 variant at τ ∈ {4, 12}.

Variants: the authors' code (fairscale-CO2 defaults: constant gap penalty λ = 1, no clipping, β = 0
at ≤ 16 GPUs; densing's default), the authors' element-wise clamp switched on (c = 1), densing's
adaptive per-tensor penalty, densing's global ℓ2 clip (c = 1), and the three together (adaptive + ℓ2 + β = 0.5)
(adaptive penalty + ℓ2 clip + β = 0.5). Same model, data, seed and tokens as the ddp run.

    python studies/overlap_co2_ablation.py OUT RUNS [STEPS]

writes OUT/co2_ablation.csv and OUT/co2_ablation.md (traces and metrics stay in RUNS).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pandas as pd

from densing.overlap.run_schema import read_run
from densing.overlap.train import TrainConfig, run_strategies

VARIANTS = {
    "authors (λ=1, no clip, β=0)": {},
    "authors + elementwise clamp c=1": {"outer_clip_mode": "elementwise"},
    "adaptive penalty": {"staleness_penalty": "adaptive"},
    "l2 clip c=1": {"outer_clip_mode": "l2"},
    "adaptive + l2 clip + β=0.5": {"staleness_penalty": "adaptive", "outer_clip_mode": "l2", "outer_momentum": 0.5},
}
WINDOW = 20


def loss_row(run_dir: Path) -> dict:
    _, metrics = read_run(run_dir)
    per_step = metrics.groupby("step").agg(tokens=("tokens", "first"), loss=("loss", "mean"))
    return {
        "tokens": int(per_step["tokens"].iloc[-1]),
        f"mean_loss_last_{WINDOW}": float(per_step["loss"].tail(WINDOW).mean()),
    }


def main(out: str, runs: str, steps: int = 200) -> None:
    out_dir, runs_dir = Path(out), Path(runs)
    base = TrainConfig(steps=steps, profile_skip=steps - 3, profile_active=1)
    run_strategies(runs_dir / "ddp", ["ddp"], base, workers=2)
    ddp = loss_row(runs_dir / "ddp" / "ddp")
    rows = [{"variant": "ddp (reference)", "local_steps": None, **ddp, "delta_vs_ddp": 0.0}]
    for tau in (4, 12):
        for i, (name, fields) in enumerate(VARIANTS.items()):
            run = runs_dir / f"co2_tau{tau}_v{i}"
            run_strategies(run, ["co2"], replace(base, local_steps=tau, **fields), workers=2)
            r = loss_row(run / "co2")
            if r["tokens"] != ddp["tokens"]:
                raise SystemExit(f"{run}: tokens {r['tokens']} ≠ ddp's {ddp['tokens']}")
            rows.append(
                {
                    "variant": name,
                    "local_steps": tau,
                    **r,
                    "delta_vs_ddp": r[f"mean_loss_last_{WINDOW}"] - ddp[f"mean_loss_last_{WINDOW}"],
                }
            )
    frame = pd.DataFrame(rows)
    frame["local_steps"] = frame["local_steps"].astype("Int64")
    out_dir.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out_dir / "co2_ablation.csv", index=False)
    lines = [
        f"# CO2 ablation: training loss at equal tokens vs DDP ({steps} steps, 2 gloo workers)",
        "",
        f"Command: `python studies/overlap_co2_ablation.py {out} RUNS {steps}`; loss = mean of the last "
        f"{WINDOW} steps (rank mean); delta = CO2 − DDP (lower is better).",
        "",
        "| variant | τ | tokens | loss | Δ vs DDP |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        tau = "—" if r["local_steps"] is None else r["local_steps"]
        lines.append(
            f"| {r['variant']} | {tau} | {r['tokens']} | {r[f'mean_loss_last_{WINDOW}']:.4f} | "
            f"{r['delta_vs_ddp']:+.4f} |"
        )
    lines.append("")
    (out_dir / "co2_ablation.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], *(int(a) for a in sys.argv[3:4]))
