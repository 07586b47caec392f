"""What-if predictions checked against measured runs (``densing overlap validate``).

The model is calibrated on a ``sync`` run (no overlap: every phase is measured alone) and predicts
the step time of ``ddp`` and ``co2`` runs at the same worker count and machine, which are then
compared with their measured step times. All times are medians over the profiled steps
(``ProfilerStep#N`` in the traces; the ``record_function`` phases the trainer annotates).

Calibrated from the sync run (per step, medians over steps; one rank's view unless stated):

* forward F, backward B, optimizer O: mean durations of the ``forward``/``backward``/``optimizer``
  annotations; loop overhead o = step − (F + B + A + O) with A the ``allreduce`` annotation
  (means, because a step is the sum of its phases and means add up: F + B + A + O + o is the sync
  step exactly, the table's first row);
* all-reduce time T_ar(S) = mean over steps of the *fastest* rank's ``gloo:all_reduce``;
  S = 4·n_params bytes; effective bandwidth S/T_ar;
* skew Σ = mean of (own − fastest) ``gloo:all_reduce``: the time a rank waits for a slower peer
  at a per-step all-reduce (the ranks' compute times vary from step to step);
* gradient copy cost P = A − the rank's own ``gloo:all_reduce``: flatten, average and unflatten,
  three passes over S bytes, so one pass costs P/3;
* all-reduce CPU share u = CPU seconds the process spends during the blocking all-reduce (the
  training thread is blocked, so this is the collective's threads) / T_ar (``metrics.csv``).

Models: each strategy's validation model (``predict_run_s``, one module per strategy in
:mod:`densing.overlap.strategies`) on the fluid model of :mod:`densing.overlap.fluid`; the run's
strategy is read from its ``run.yaml``.
"""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from densing.errors import InputError
from densing.overlap.fluid import RunCalibration

PHASES = ("forward", "backward", "allreduce", "optimizer", "co2_outer")


def _phase_medians(run_dir: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per (rank, step): phase durations (s) and the ProfilerStep duration; and the collectives."""
    from densing.overlap.trace import annotation_frame
    from densing.overlap.analysis import analyze_steps

    ann = annotation_frame(run_dir, PHASES)
    ann = ann[ann["step"] >= 0]
    phases = ann[ann["name"].isin(PHASES)].pivot_table(index=["rank", "step"], columns="name",
                                                       values="duration_us", aggfunc="sum", fill_value=0.0)
    steps = analyze_steps(run_dir).set_index(["rank", "step"])["step_time_us"]
    phases = phases.join(steps, how="inner") / 1e6
    coll = ann[~ann["name"].isin(PHASES)].copy()
    coll["duration_s"] = coll["duration_us"] / 1e6
    return phases.reset_index(), coll


def _meta(run_dir: Path) -> tuple[dict, pd.DataFrame]:
    from densing.overlap.train import read_run

    return read_run(run_dir)


def calibrate_run(sync_dir: str | Path) -> RunCalibration:
    """Measure the model's inputs on a ``sync`` run directory (see the module docstring)."""
    sync_dir = Path(sync_dir)
    meta, metrics = _meta(sync_dir)
    cfg = meta["config"]
    if cfg.get("strategy") != "sync":
        raise InputError(f"{sync_dir / 'run.yaml'}: config.strategy: expected 'sync' for calibration, "
                         f"got {cfg.get('strategy')!r}")
    if "param_numel" not in meta:
        raise InputError(f"{sync_dir / 'run.yaml'}: missing field 'param_numel'")
    phases, coll = _phase_medians(sync_dir)
    for name in ("forward", "backward", "allreduce", "optimizer"):
        if name not in phases.columns:
            raise InputError(f"{sync_dir}: no '{name}' annotations in the profiled steps")
    own = coll.groupby(["rank", "step"])["duration_s"].sum()
    phases = phases.join(own.rename("collective_s"), on=["rank", "step"])
    phases["fastest_s"] = phases["step"].map(coll.groupby("step")["duration_s"].min())
    if phases[["collective_s", "fastest_s"]].isna().any().any():
        raise InputError(f"{sync_dir}: a profiled step without its gloo:all_reduce")
    # means, not medians: a step is the sum of its phases, and means add up
    mean = phases.mean(numeric_only=True)
    overhead = float(mean["step_time_us"] - mean[["forward", "backward", "allreduce", "optimizer"]].sum())
    copy = float(mean["allreduce"] - mean["collective_s"])
    allreduce = float(mean["fastest_s"])
    skew = float(mean["collective_s"] - mean["fastest_s"])
    # CPU share: CPU seconds the process spends in the blocking all-reduce over the transfer time
    # (fastest rank per step, all steps of the run: unprofiled steps are measured too)
    m = metrics.dropna(subset=["allreduce_wall_s", "allreduce_cpu_s"])
    if m.empty:
        raise InputError(f"{sync_dir / 'metrics.csv'}: no allreduce_wall_s/allreduce_cpu_s values")
    per_step = m.groupby("step").agg(wall=("allreduce_wall_s", "min"), cpu=("allreduce_cpu_s", "mean"))
    share = float(per_step["cpu"].mean() / per_step["wall"].mean())
    numel = tuple(int(n) for n in meta["param_numel"])
    nbytes = 4.0 * sum(numel)
    threads = int(cfg.get("threads") or 0) or max(1, int(meta["cpu_count"]) // int(meta["workers_per_node"]))
    return RunCalibration(
        forward_s=float(mean["forward"]), backward_s=float(mean["backward"]), optimizer_s=float(mean["optimizer"]),
        overhead_s=overhead, copy_s=max(0.0, copy), allreduce_s=allreduce, skew_s=max(0.0, skew),
        allreduce_cpu_share=share, comm_bytes=nbytes, bandwidth_bytes_per_s=nbytes / allreduce,
        step_s=float(mean["step_time_us"]), workers=int(meta["workers_per_node"]), cores=int(meta["cpu_count"]),
        threads=threads, param_numel=numel,
    )


# --------------------------------------------------------------------------- fluid simulation


def measured_step_s(run_dir: str | Path) -> float:
    """Median over ranks of the mean ProfilerStep duration of a run (seconds)."""
    from densing.overlap.analysis import analyze_steps

    steps = analyze_steps(run_dir)
    if steps.empty:
        raise InputError(f"{run_dir}: no ProfilerStep annotations with ops")
    return float(steps.groupby("rank")["step_time_us"].mean().median() / 1e6)


def validate(sync_dir: str | Path, *run_dirs: str | Path | None) -> tuple[RunCalibration, pd.DataFrame]:
    """Calibrate on ``sync_dir``, predict the step time of each run in ``run_dirs`` with its
    strategy's validation model (the strategy named in its ``run.yaml``), compare with measurement.

    Returns the calibration and a table: strategy, measured_ms, predicted_ms (with contention),
    error_pct = 100·(predicted − measured)/measured, and the same without contention. The first
    row is the sync run itself (its phases add up to its step: error 0).
    """
    from densing.overlap.strategies.registry import get

    cal = calibrate_run(sync_dir)
    sync_meta, _ = _meta(Path(sync_dir))
    rows = [{"strategy": "sync", "run": str(sync_dir), "measured_ms": cal.step_s * 1e3,
             "predicted_ms": get("sync", "validation").predict_run_s(cal, sync_meta["config"], True) * 1e3,
             "predicted_no_contention_ms": math.nan}]
    for run_dir in run_dirs:
        if run_dir is None:
            continue
        meta, _ = _meta(Path(run_dir))
        cfg = meta["config"]
        try:
            strategy = get(str(cfg.get("strategy")), "validation")
        except InputError as exc:
            raise InputError(f"{Path(run_dir) / 'run.yaml'}: config.{exc}") from None
        if int(meta["workers_per_node"]) != cal.workers:
            raise InputError(f"{Path(run_dir) / 'run.yaml'}: workers_per_node: expected {cal.workers} "
                             f"(as the sync run), got {meta['workers_per_node']}")
        pred, free = strategy.predict_run_s(cal, cfg, True), strategy.predict_run_s(cal, cfg, False)
        rows.append({"strategy": strategy.name, "run": str(run_dir), "measured_ms": measured_step_s(run_dir) * 1e3,
                     "predicted_ms": pred * 1e3, "predicted_no_contention_ms": free * 1e3})
    frame = pd.DataFrame(rows)
    frame["error_pct"] = 100.0 * (frame["predicted_ms"] - frame["measured_ms"]) / frame["measured_ms"]
    frame["error_no_contention_pct"] = (100.0 * (frame["predicted_no_contention_ms"] - frame["measured_ms"])
                                        / frame["measured_ms"])
    return cal, frame[["strategy", "measured_ms", "predicted_ms", "error_pct", "predicted_no_contention_ms",
                       "error_no_contention_pct", "run"]]


def convergence(ddp_dir: str | Path, co2_dir: str | Path, window: int = 20) -> pd.DataFrame:
    """Training loss of two runs at equal tokens: the rank-mean loss per step, and the mean of the
    last ``window`` steps (both runs must have the same tokens per step)."""
    from densing.overlap.train import read_run

    out = []
    for label, run_dir in (("ddp", ddp_dir), ("co2", co2_dir)):
        meta, metrics = read_run(run_dir)
        per_step = metrics.groupby("step").agg(tokens=("tokens", "first"), loss=("loss", "mean"))
        last = per_step.tail(window)
        out.append({"strategy": label, "run": str(run_dir), "steps": int(len(per_step)),
                    "tokens": int(per_step["tokens"].iloc[-1]), "final_loss": float(per_step["loss"].iloc[-1]),
                    f"mean_loss_last_{window}": float(last["loss"].mean()),
                    "local_steps": meta["config"].get("local_steps") if label == "co2" else None})
    frame = pd.DataFrame(out)
    if frame["tokens"].nunique() != 1:
        raise InputError(f"{co2_dir}: tokens: expected the same total as {ddp_dir}, got {frame['tokens'].tolist()}")
    return frame
