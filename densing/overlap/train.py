"""A small data-parallel trainer, profiled: ``densing overlap run`` (needs the ``train`` extra).

:func:`launch` starts W workers with torch's own launcher (``python -m torch.distributed.run``; gloo on CPU, nccl on
CUDA; several nodes through torchrun's rendezvous flags), each running :func:`.train_worker.worker_main`: a GPT-style
byte-level model trained on a text corpus with a strategy's training hooks (:mod:`densing.overlap.strategies`). Each
rank writes a Kineto trace (``rank<r>.json.gz``: ``ProfilerStep#N`` and the phases ``forward``, ``backward``,
``allreduce`` (sync), ``optimizer``, ``co2_outer``) and ``metrics-rank<r>.csv``, which :func:`launch` merges into
``metrics.csv`` beside ``run.yaml`` (the configuration and the machine).
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from dataclasses import asdict
from numbers import Integral
from pathlib import Path

import pandas as pd

from densing.errors import InputError
from densing.io import atomic_write_text
from densing.overlap.run_schema import COMPLETE, LAUNCHER, METRICS_FILE, RUN_FILE, TrainConfig

# the worker's model and entry point are public here too (`name as name` marks a re-export)
from densing.overlap.train_worker import (
    build_model as build_model,
    load_corpus,
    param_numel,
    worker_main as worker_main,
)
from densing.validation import Interval, validate

#: Host memory one worker process takes besides its model: the interpreter with torch loaded.
WORKER_BASE_BYTES = 256 * 2**20
#: Bytes per parameter a worker holds in host memory (every worker builds its model on the CPU): the weights, their
#: gradients and AdamW's two moments, each float32.
TRAIN_BYTES_PER_PARAM = 16


def torchrun_command(
    run_dir: Path, workers: int, nnodes: int = 1, node_rank: int = 0, rdzv_endpoint: str | None = None
) -> list[str]:
    """The ``python -m torch.distributed.run`` command line that starts one node's workers."""
    layout = (
        ["--standalone"]
        if nnodes == 1
        else [
            "--nnodes",
            str(nnodes),
            "--node-rank",
            str(node_rank),
            "--rdzv-backend",
            "c10d",
            "--rdzv-endpoint",
            rdzv_endpoint,
        ]
    )
    return [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--nproc-per-node",
        str(workers),
        *layout,
        "-m",
        "densing.overlap.worker",
        str(run_dir),
    ]


#: ``--rdzv-endpoint``: HOST:PORT (a name or an IPv4 address, or a bracketed IPv6 one), the port in 1-65535.
_ENDPOINT = re.compile(r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):([0-9]{1,5})")


def _check_layout(workers, nnodes=1, node_rank=0, rdzv_endpoint=None) -> None:
    """InputError unless workers per node ≥ 1, nodes ≥ 1, 0 ≤ node rank < nodes, several nodes with a HOST:PORT."""
    validate(
        {"workers": [Interval(Integral, 1, None)], "nnodes": [Interval(Integral, 1, None)]},
        workers=workers,
        nnodes=nnodes,
    )
    validate({"node_rank": [Interval(Integral, 0, nnodes - 1)]}, node_rank=node_rank)
    if nnodes > 1 and not rdzv_endpoint:
        raise InputError("rdzv_endpoint: several nodes need --rdzv-endpoint HOST:PORT")
    if rdzv_endpoint is not None:
        match = _ENDPOINT.fullmatch(str(rdzv_endpoint))
        if match is None or not 1 <= int(match.group(1)) <= 65535:
            raise InputError(f"rdzv_endpoint: expected HOST:PORT (a port in 1-65535), got {rdzv_endpoint!r}")


@functools.lru_cache(maxsize=8)
def _corpus_size(name: str, max_bytes: int) -> int:
    return len(load_corpus(name, max_bytes))


def check_launch(
    config: TrainConfig,
    run_dir: str | Path,
    workers: int = 2,
    nnodes: int = 1,
    node_rank: int = 0,
    rdzv_endpoint: str | None = None,
) -> None:
    """InputError naming the first thing a run of ``config`` into ``run_dir`` would fail on once torchrun had
    started (torch, the configuration, the node layout, tp's split, the output folder, the corpus, the memory),
    writing nothing."""
    from importlib.util import find_spec

    from densing.io import check_writable_folder

    if find_spec("torch") is None:  # torchrun and the workers are torch's
        raise InputError("densing overlap run trains with torch, which is not installed: pip install 'densing[train]'")
    config.check()
    _check_layout(workers, nnodes, node_rank, rdzv_endpoint)
    if config.strategy == "tp":
        from densing.overlap.strategies.tp import check_tp

        check_tp(
            config.d_model,
            config.n_head,
            workers * nnodes,
            config.batch_size * config.seq_len,
            config.tp_chunks,
            config.tp_overlap,
        )
    check_writable_folder(run_dir)
    size = _corpus_size(config.corpus, config.corpus_bytes)
    if config.seq_len + 1 >= size:
        raise InputError(
            f"seq_len: expected fewer than {size - 1:,} (corpus {config.corpus!r} holds {size:,} bytes), "
            f"got {config.seq_len}"
        )
    need = workers * (WORKER_BASE_BYTES + TRAIN_BYTES_PER_PARAM * sum(param_numel(config)))
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # not a POSIX system
        memory = None
    if memory is not None and need > memory:
        raise InputError(
            f"workers: {workers} worker(s) training a {sum(param_numel(config)):,}-parameter model "
            f"(d_model {config.d_model}, n_layer {config.n_layer}) need about {need / 2**30:,.1f} GiB, "
            f"more than this machine's {memory / 2**30:,.1f} GiB"
        )


def launch(
    config: TrainConfig,
    run_dir: str | Path,
    workers: int = 2,
    nnodes: int = 1,
    node_rank: int = 0,
    rdzv_endpoint: str | None = None,
) -> pd.DataFrame:
    """Train and profile one run under torchrun; returns the merged per-step metrics. ``run.yaml`` says ``status:
    running`` (the workers read it), then ``complete`` (or ``failed``, ``interrupted``); InputError naming the last
    lines of a failed torchrun."""
    from densing.runtime.processes import end_subprocess

    check_launch(config, run_dir, workers, nnodes, node_rank, rdzv_endpoint)  # before anything is written
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    for stale in list(run_dir.glob("rank*.json.gz")) + list(run_dir.glob("metrics-rank*.csv")):
        stale.unlink()
    numel = param_numel(config)
    meta = {
        "status": "running",
        "config": asdict(config),
        "workers_per_node": workers,
        "nnodes": nnodes,
        "cpu_count": os.cpu_count(),
        "launcher": LAUNCHER,
        "n_params": sum(numel),
        "param_numel": numel,
    }
    _write_meta(run_dir, meta)
    env = dict(os.environ, OMP_NUM_THREADS=str(config.threads or max(1, (os.cpu_count() or 1) // workers)))
    # its own process group: an error, Ctrl-C or SIGTERM here ends torchrun and its workers together
    group = {"process_group": 0} if sys.version_info >= (3, 11) else {"start_new_session": True}
    status = "failed"
    try:
        proc = subprocess.Popen(
            torchrun_command(run_dir, workers, nnodes, node_rank, rdzv_endpoint),
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            **group,
        )
        try:
            _, stderr = proc.communicate()
        finally:
            end_subprocess(proc)  # torchrun's workers too, should torchrun end before them
        if proc.returncode != 0:
            tail = " | ".join((stderr or "").strip().splitlines()[-3:])
            raise InputError(f"{run_dir}: torchrun exited with {proc.returncode}: {tail}")
        if not (parts := sorted(run_dir.glob("metrics-rank*.csv"))):  # merged into metrics.csv (atomic)
            raise InputError(f"{run_dir}: no metrics-rank*.csv (did the workers run?)")
        metrics = pd.concat([pd.read_csv(p) for p in parts], ignore_index=True).sort_values(["step", "rank"])
        atomic_write_text(run_dir / METRICS_FILE, metrics.to_csv(index=False))
        for p in parts:
            p.unlink()
        status = COMPLETE
    except (KeyboardInterrupt, SystemExit):  # Ctrl-C; SIGTERM (densing.runtime.processes.Terminated)
        status = "interrupted"
        raise
    finally:  # complete only once every rank's metrics are merged (densing.overlap.run_schema)
        _write_meta(run_dir, {**meta, "status": status})
    return metrics.reset_index(drop=True)


def _write_meta(run_dir: Path, meta: dict) -> None:
    import yaml

    atomic_write_text(run_dir / RUN_FILE, yaml.safe_dump(meta, sort_keys=False, allow_unicode=True))


def run_strategies(
    out: str | Path,
    strategies,
    base: TrainConfig,
    workers: int = 2,
    tp_overlaps=("none",),
    repeats: int = 1,
    on_progress=None,
    **launch_args,
) -> pd.DataFrame:
    """Run each strategy into ``out/<run name>`` (``out/r<i>/<run name>`` with ``repeats`` > 1) with the same model,
    data and seed; ``tp`` once per mode of ``tp_overlaps`` (``tp-none``, ``tp-chunked``). One summary row per run: the
    median wall-clock time of its *unprofiled* steps (``validate`` compares profiled means), tokens/s and the loss.
    ``on_progress(line)``: called as each run starts, with its name and place among the runs."""
    from dataclasses import replace

    from densing.io import check_writable_folder
    from densing.validation import as_path

    validate({"repeats": [Interval(Integral, 1, None)]}, repeats=repeats)
    out = check_writable_folder(as_path(out, "out"))
    _check_layout(workers, **launch_args)
    configs = []
    for strategy in strategies:
        modes = list(tp_overlaps) if strategy == "tp" else [base.tp_overlap]
        if strategy == "tp" and not modes:
            raise InputError("tp_overlap: expected at least one of none, chunked")
        configs += [replace(base, strategy=strategy, tp_overlap=m).check() for m in modes]
    runs = [
        (r, (out / f"r{r}" if repeats > 1 else out) / config.run_name, config)
        for r in range(repeats)
        for config in configs
    ]
    for _, run_dir, config in runs:  # all checked before the first starts: nothing written, no process started
        check_launch(config, run_dir, workers=workers, **launch_args)
    rows, world = [], workers * launch_args.get("nnodes", 1)
    for place, (r, run_dir, config) in enumerate(runs, 1):
        if on_progress is not None:
            on_progress(
                f"training {run_dir.relative_to(out)} (run {place} of {len(runs)}: {config.steps} steps on "
                f"{world} workers)"
            )
        metrics = launch(config, run_dir, workers=workers, **launch_args)
        per_step = metrics[~metrics["profiled"].astype(bool)].groupby("step")["step_time_s"].max()
        tokens_per_step = (1 if config.strategy == "tp" else world) * config.batch_size * config.seq_len
        loss = metrics.groupby("step")["loss"].mean()
        rows.append(
            {
                "repeat": r,
                "strategy": config.run_name,
                "steps": config.steps,
                "unprofiled_median_step_ms": float(per_step.median() * 1e3),
                "tokens_per_s": float(tokens_per_step / per_step.median()),
                "final_loss": float(loss.iloc[-1]),
                "mean_loss_last_20": float(loss.tail(20).mean()),
                "run": str(run_dir.relative_to(out)),
            }
        )
    frame = pd.DataFrame(rows)
    return frame if repeats > 1 else frame.drop(columns="repeat")
