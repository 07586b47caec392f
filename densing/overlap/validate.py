"""What-if predictions checked against measured runs (``densing overlap validate``).

The model is calibrated on a ``sync`` run's profiled steps (no overlap: every phase, a ``record_function``
annotation, is measured alone) and predicts ddp's and co2's step time on the same workers and machine:

* forward F, backward B, optimizer O: mean durations of their annotations; loop overhead o = step − (F + B + A + O) with
  A the ``allreduce`` annotation (means add up: F + B + A + O + o is the sync step, the table's first row);
* all-reduce T_ar(S) = step mean of the *fastest* rank's ``gloo:all_reduce``; S = 4·n_params bytes, bandwidth S/T_ar;
* skew Σ = mean of (own − fastest) ``gloo:all_reduce``: the time a rank waits for a slower peer;
* gradient copy P = A − the rank's own ``gloo:all_reduce``: flatten, average, unflatten (3 passes over S bytes);
* all-reduce CPU share u = the process's CPU seconds in the blocking all-reduce / T_ar (``metrics.csv``).

Each strategy's validation model is its ``predict_run_s`` (:mod:`densing.overlap.strategies`); each repeat of ``run
--repeats N`` is validated on its own sync run (T3 on its tp-none run, :mod:`densing.overlap.sublayers`).
"""

from __future__ import annotations

import math
from numbers import Integral
from pathlib import Path

import pandas as pd

from densing.errors import InputError
from densing.overlap.analysis import analyze_steps, measured_step_s
from densing.overlap.run_schema import METRICS_FILE, RUN_FILE, check_run_folder, read_run
from densing.overlap.strategies.base import RunCalibration
from densing.overlap.trace import annotation_frame
from densing.validation import CONTENTION, ExistingPath, Interval, validate as check

#: What the run comparisons take: run folders that exist, T3's γ (> −1, or None: measured), a window of ≥ 1 steps.
RUNS_CONSTRAINTS = {
    **{name: [ExistingPath("folder")] for name in ("sync_dir", "run_dir", "ddp_dir", "co2_dir")},
    "contention": [CONTENTION, None],  # γ > −1 (densing.overlap.whatif.CONTENTION)
    "window": [Interval(Integral, 1, None)],
}

PHASES = ("forward", "backward", "allreduce", "optimizer", "co2_outer")


def calibrate_run(sync_dir: str | Path) -> RunCalibration:
    """Measure the model's inputs on a ``sync`` run directory (see the module docstring)."""
    sync_dir = Path(sync_dir)
    meta, metrics = read_run(sync_dir)
    cfg = meta["config"]
    if cfg.get("strategy") != "sync":
        raise InputError(
            f"{sync_dir / 'run.yaml'}: config.strategy: expected 'sync' for calibration, got {cfg.get('strategy')!r}"
        )
    ann = annotation_frame(sync_dir, PHASES).loc[lambda a: a["step"] >= 0]
    phases = ann[ann["name"].isin(PHASES)].pivot_table(
        index=["rank", "step"], columns="name", values="duration_us", aggfunc="sum", fill_value=0.0
    )
    steps = analyze_steps(sync_dir).set_index(["rank", "step"])["step_time_us"]
    phases = (phases.join(steps, how="inner") / 1e6).reset_index()
    coll = ann[~ann["name"].isin(PHASES)].copy()
    coll["duration_s"] = coll["duration_us"] / 1e6
    for name in ("forward", "backward", "allreduce", "optimizer"):
        if name not in phases.columns:
            raise InputError(f"{sync_dir}: no '{name}' annotations in the profiled steps")
    phases = phases.join(coll.groupby(["rank", "step"])["duration_s"].sum().rename("collective_s"), on=["rank", "step"])
    phases["fastest_s"] = phases["step"].map(coll.groupby("step")["duration_s"].min())
    if phases[["collective_s", "fastest_s"]].isna().any().any():
        raise InputError(f"{sync_dir}: a profiled step without its gloo:all_reduce")
    mean = phases.mean(numeric_only=True)  # means, not medians: a step is the sum of its phases, and means add up
    overhead = float(mean["step_time_us"] - mean[["forward", "backward", "allreduce", "optimizer"]].sum())
    allreduce = float(mean["fastest_s"])
    # CPU share u: fastest rank per step, all steps of the run (unprofiled steps are measured too)
    m = metrics.dropna(subset=["allreduce_wall_s", "allreduce_cpu_s"])
    if m.empty:
        raise InputError(f"{sync_dir / 'metrics.csv'}: no allreduce_wall_s/allreduce_cpu_s values")
    per_step = m.groupby("step").agg(wall=("allreduce_wall_s", "min"), cpu=("allreduce_cpu_s", "mean"))
    share = float(per_step["cpu"].mean() / per_step["wall"].mean())
    numel = tuple(int(n) for n in meta["param_numel"])
    nbytes = 4.0 * sum(numel)
    threads = int(cfg.get("threads") or 0) or max(1, int(meta["cpu_count"]) // int(meta["workers_per_node"]))
    return RunCalibration(
        forward_s=float(mean["forward"]),
        backward_s=float(mean["backward"]),
        optimizer_s=float(mean["optimizer"]),
        overhead_s=overhead,
        copy_s=max(0.0, float(mean["allreduce"] - mean["collective_s"])),
        allreduce_s=allreduce,
        skew_s=max(0.0, float(mean["collective_s"] - mean["fastest_s"])),
        allreduce_cpu_share=share,
        comm_bytes=nbytes,
        bandwidth_bytes_per_s=nbytes / allreduce,
        step_s=float(mean["step_time_us"]),
        workers=int(meta["workers_per_node"]),
        cores=int(meta["cpu_count"]),
        threads=threads,
        param_numel=numel,
    )


def validate(sync_dir: str | Path, *run_dirs: str | Path) -> tuple[RunCalibration, pd.DataFrame]:
    """Calibrate on ``sync_dir`` and predict the step time of each run in ``run_dirs`` with the validation model of
    the strategy its ``run.yaml`` names: the calibration and a table (:func:`_table`) whose first row is the sync run
    itself (its phases add up to its step: error 0)."""
    from densing.overlap.strategies.registry import get

    cal = calibrate_run(sync_dir)
    sync_meta, _ = read_run(Path(sync_dir))
    rows = [
        {
            "strategy": "sync",
            "run": str(sync_dir),
            "measured_ms": cal.step_s * 1e3,
            "predicted_ms": get("sync", "validation").predict_run_s(cal, sync_meta["config"], True) * 1e3,
            "predicted_no_contention_ms": math.nan,
        }
    ]
    for run_dir in run_dirs:
        meta, _ = read_run(Path(run_dir))
        cfg = meta["config"]
        try:
            strategy = get(str(cfg.get("strategy")), "validation")
        except InputError as exc:
            raise InputError(f"{Path(run_dir) / 'run.yaml'}: config.{exc}") from None
        if int(meta["workers_per_node"]) != cal.workers:
            raise InputError(
                f"{Path(run_dir) / 'run.yaml'}: workers_per_node: expected {cal.workers} "
                f"(as the sync run), got {meta['workers_per_node']}"
            )
        rows.append(
            {
                "strategy": strategy.name,
                "run": str(run_dir),
                "measured_ms": measured_step_s(run_dir) * 1e3,
                "predicted_ms": strategy.predict_run_s(cal, cfg, True) * 1e3,
                "predicted_no_contention_ms": strategy.predict_run_s(cal, cfg, False) * 1e3,
            }
        )
    return cal, _table(rows)


_COLUMNS = [
    "strategy",
    "measured_ms",
    "predicted_ms",
    "error_pct",
    "predicted_no_contention_ms",
    "error_no_contention_pct",
    "run",
]


def _table(rows: list[dict]) -> pd.DataFrame:
    """``rows`` with error_pct = 100·(predicted − measured)/measured (and without contention), columns in order."""
    frame = pd.DataFrame(rows)
    for predicted, error in (("predicted_ms", "error_pct"), ("predicted_no_contention_ms", "error_no_contention_pct")):
        frame[error] = 100.0 * (frame[predicted] - frame["measured_ms"]) / frame["measured_ms"]
    return frame[_COLUMNS + [c for c in frame.columns if c not in _COLUMNS]]


def profiler_overhead(run_dir: str | Path) -> dict:
    """Profiled vs unprofiled wall-clock step time of one run (the slower rank per step, ``metrics.csv``): the
    schedule's active steps against those outside its window [skip, skip + wait + warmup + active) but the first 5
    (warm-up). Returns profiled_ms, unprofiled_ms (means) and overhead_pct = 100·(p/u − 1)."""
    meta, metrics = read_run(run_dir)
    cfg = meta["config"]
    skip = int(cfg.get("profile_skip", 0))
    end = skip + int(cfg.get("profile_wait", 0)) + int(cfg.get("profile_warmup", 0)) + int(cfg.get("profile_active", 0))
    per_step = metrics.groupby("step").agg(t=("step_time_s", "max"), profiled=("profiled", "max"))
    steps = per_step.index.to_series()
    plain = per_step[((steps < skip) | (steps >= end)) & (steps >= min(5, skip))]
    prof = per_step[per_step["profiled"].astype(bool)]
    p = float(prof["t"].mean() * 1e3) if len(prof) else math.nan
    u = float(plain["t"].mean() * 1e3) if len(plain) else math.nan
    return {
        "profiled_ms": p,
        "unprofiled_ms": u,
        "profiler_overhead_pct": 100.0 * (p / u - 1.0) if u and math.isfinite(u) else math.nan,
    }


#: The run folders ``densing overlap run`` writes into its output (one per strategy; tp once per overlap mode).
RUN_NAMES = ("sync", "ddp", "co2", "tp-none", "tp-chunked")


def is_run_root(path: str | Path) -> bool:
    """A ``densing overlap run`` output folder (one sub-folder per run) rather than one run."""
    path = Path(path)
    return (
        not (path / "run.yaml").exists() and path.is_dir() and any((path / n / "run.yaml").exists() for n in RUN_NAMES)
    )


def validate_root(root: str | Path, contention: float | None = None) -> pd.DataFrame:
    """Validate one repeat: ddp and co2 from its ``sync`` run; ``tp-chunked`` by T3 from its ``tp-none`` run with the
    contention measured on the chunked run or ``contention`` (:func:`~densing.overlap.sublayers.predict_t3`); every row
    compares the *profiled* step (ProfilerStep mean), with the unprofiled step and the profiler's overhead beside it."""
    from densing.overlap.sublayers import predict_t3

    check(RUNS_CONSTRAINTS, sync_dir=root, contention=contention)
    root = Path(root)
    tensor_parallel = (root / "tp-none" / "run.yaml").exists() and (root / "tp-chunked" / "run.yaml").exists()
    if contention is not None and not tensor_parallel:
        raise InputError(
            f"contention: {root} has no tensor-parallel run (tp-none/ and tp-chunked/); γ enters only "
            "T3's prediction of the chunked run, so it would change nothing"
        )
    for name in RUN_NAMES:  # an incomplete run is refused as one, whichever runs the comparisons need
        if (root / name).is_dir() and not (root / name / "run.yaml").exists():  # never left out in silence
            raise InputError(
                f"{root / name}: a run folder without run.yaml (not written by 'densing overlap run', or "
                "cut short before it began); remove the folder or run it again"
            )
        check_run_folder(root / name)
    frames = []
    if (root / "sync" / "run.yaml").exists():
        others = [root / n for n in ("ddp", "co2") if (root / n / "run.yaml").exists()]
        frames.append(validate(root / "sync", *others)[1])
    if tensor_parallel:
        gamma, predicted_us, free_us = predict_t3(root / "tp-none", root / "tp-chunked", contention)
        frames.append(
            _table(
                [
                    {
                        "strategy": "t3",
                        "measured_ms": measured_step_s(root / "tp-chunked") * 1e3,
                        "predicted_ms": predicted_us / 1e3,
                        "predicted_no_contention_ms": free_us / 1e3,
                        "run": str(root / "tp-chunked"),
                        "contention": gamma,
                    }
                ]
            )
        )
    if not frames:
        raise InputError(f"{root}: no sync run and no tp-none + tp-chunked pair to validate")
    frame = pd.concat(frames, ignore_index=True)
    frame = pd.concat([frame, pd.DataFrame([profiler_overhead(r) for r in frame["run"]])], axis=1)
    frame["compares"] = "profiled step (ProfilerStep mean)"
    return frame


def validate_repeats(path: str | Path, contention: float | None = None) -> pd.DataFrame:
    """:func:`validate_root` of each repeat (``r0``, ``r1``, … or ``path`` itself), a ``repeat`` column first."""
    check(RUNS_CONSTRAINTS, sync_dir=path, contention=contention)
    path = Path(path)
    roots = sorted(
        (p for p in path.glob("r*") if p.name[1:].isdigit() and is_run_root(p)), key=lambda p: int(p.name[1:])
    ) or ([path] if is_run_root(path) else [])
    if not roots:
        raise InputError(f"{path}: expected a 'densing overlap run' output folder (sync/ or tp-none/, or r0/, r1/ …)")
    return pd.concat(
        [
            f.assign(repeat=i)[["repeat", *f.columns]]
            for i, f in enumerate(validate_root(root, contention) for root in roots)
        ],
        ignore_index=True,
    )


def error_summary(per_repeat: pd.DataFrame) -> pd.DataFrame:
    """Per strategy (in first-seen order) across repeats: n, the prediction error's median, min and max (%), and the
    median profiled step, unprofiled step and profiler overhead."""
    return (
        per_repeat.assign(abs_error=per_repeat["error_pct"].abs())
        .groupby("strategy", sort=False)
        .agg(
            repeats=("error_pct", "size"),
            error_median_pct=("error_pct", "median"),
            error_min_pct=("error_pct", "min"),
            error_max_pct=("error_pct", "max"),
            abs_error_median_pct=("abs_error", "median"),
            measured_profiled_ms_median=("measured_ms", "median"),
            predicted_ms_median=("predicted_ms", "median"),
            unprofiled_ms_median=("unprofiled_ms", "median"),
            profiler_overhead_median_pct=("profiler_overhead_pct", "median"),
        )
        .reset_index()
    )


def convergence(ddp_dir: str | Path, co2_dir: str | Path, window: int = 20) -> pd.DataFrame:
    """Training loss of two runs at equal tokens: the final rank-mean loss and the mean of the last ``window`` steps.
    Each run is named by the strategy its ``run.yaml`` records: a co2 run beside a ddp or sync run, with the same
    tokens; a run whose losses are all NaN is refused."""
    check(RUNS_CONSTRAINTS, window=window, ddp_dir=ddp_dir, co2_dir=co2_dir)
    out = []
    for run_dir in (ddp_dir, co2_dir):
        meta, metrics = read_run(run_dir)
        label = meta["config"].get("strategy") if isinstance(meta["config"], dict) else None
        if not isinstance(label, str) or not label:
            raise InputError(f"{Path(run_dir) / RUN_FILE}: config.strategy: expected the run's strategy, got {label!r}")
        per_step = metrics.groupby("step").agg(tokens=("tokens", "first"), loss=("loss", "mean"))
        if per_step["loss"].notna().sum() == 0:
            raise InputError(
                f"{Path(run_dir) / METRICS_FILE}: field 'loss': NaN on every one of {len(metrics)} rows "
                "(a diverged run); nothing to compare"
            )
        out.append(
            {
                "strategy": label,
                "run": str(run_dir),
                "steps": int(len(per_step)),
                "tokens": int(per_step["tokens"].iloc[-1]),
                "final_loss": float(per_step["loss"].iloc[-1]),
                f"mean_loss_last_{window}": float(per_step["loss"].tail(window).mean()),
                "local_steps": meta["config"].get("local_steps") if label == "co2" else None,
            }
        )
    if out[0]["strategy"] == out[1]["strategy"]:
        raise InputError(
            f"{co2_dir}: config.strategy: {out[1]['strategy']!r}, the same as {ddp_dir}'s; convergence "
            "compares two strategies (a co2 run against a ddp run)"
        )
    if "co2" not in (out[0]["strategy"], out[1]["strategy"]):
        raise InputError(
            f"{co2_dir}: config.strategy: neither run is a co2 run ({out[0]['strategy']!r}, "
            f"{out[1]['strategy']!r}); convergence compares a co2 run against a ddp run"
        )
    frame = pd.DataFrame(sorted(out, key=lambda row: row["strategy"] == "co2"))  # the baseline first, then co2
    frame["local_steps"] = frame["local_steps"].astype("Int64")  # an integer (τ), null for ddp
    if frame["tokens"].nunique() != 1:
        raise InputError(f"{co2_dir}: tokens: expected the same total as {ddp_dir}, got {frame['tokens'].tolist()}")
    return frame
