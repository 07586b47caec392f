"""``densing overlap``: thin typer commands over :mod:`densing.overlap`."""

from __future__ import annotations

import sys
from numbers import Integral
from pathlib import Path

import typer

from densing.cli.output import (
    FORMAT_HELP,
    Format,
    command_group,
    print_frame,
    print_json,
    print_text,
    size_option,
    working,
)
from densing.errors import InputError
from densing.numbers import counted_noun
from densing.overlap_defaults import DEFAULT_BUCKET_MB
from densing.validation import (
    ExistingPath,
    Interval,
    comma_items,
    validate as check,  # `validate` is a command here
)

overlap_app = command_group(
    "Communication/computation overlap in PyTorch-profiler (Kineto) traces, and what-if models.", name="overlap"
)


def _floats(text: str, field: str) -> list[float]:
    """The numbers of a comma-separated option, each once (:func:`densing.validation.comma_items`)."""

    def number(item: str) -> float:
        try:
            return float(item)
        except ValueError:
            raise InputError(f"{field}: expected comma-separated numbers, got {text!r}") from None

    return comma_items(text, field, number)


_SCHEDULER_HELP = (
    "Where the ranks' files are decoded and analysed: auto (this process for small sets, local "
    "processes for a few large files, a local Dask cluster for large sets), serial, processes, "
    "local (a Dask LocalCluster), or the ADDRESS of a running Dask scheduler (tcp://host:8786)."
)


#: The processes (or Dask workers) that decode a trace set: at least one, or None for one per CPU.
ENGINE_CONSTRAINTS = {"workers": [Interval(Integral, 1, None), None]}


#: ``overlap analyze``'s first columns at the terminal: the rank (and step), the overlap % and the exposed communication.
FIRST = ("rank", "step", "comm_comp_overlap_pct", "exposed_comm_us", "comm_us")


@overlap_app.command()
def analyze(
    path: Path = typer.Argument(..., help="A trace file (.json/.json.gz) or a directory with one file per rank."),
    steps: bool = typer.Option(False, "--steps", help="One row per (rank, ProfilerStep) instead of per rank."),
    peer_wait: bool = typer.Option(
        False,
        "--peer-wait",
        help="Split each rank's exposed communication into transfer and peer wait (skew: waiting for the slower rank to join the matching collective).",
    ),
    scheduler: str = typer.Option("auto", "--scheduler", help=_SCHEDULER_HELP),
    workers: int | None = typer.Option(
        None, "--workers", help="Local processes or local Dask workers (default: one per CPU)."
    ),
    fmt: Format = typer.Option(Format.table, "--format", help=FORMAT_HELP),
    wide: bool = typer.Option(
        False, "--wide", help="Tables: keep the columns with nothing in them (comm bytes of a trace without them)."
    ),
    stream: bool | None = typer.Option(
        None,
        "--stream/--no-stream",
        help="One trace file in bounded memory (decoded batch by batch, kernels kept on disk by time window; per rank only). Default: from 1 GiB of JSON or 128 MiB of gzip.",
    ),
    kernel_rules: str = typer.Option(
        "hta",
        "--kernel-rules",
        help="Whose kernel categories: hta (HolisticTraceAnalysis 0.5.0: communication is ^nccl.*Kernel) or traceinsight (0.6.1: also hip*, hccl* and every nccl* name).",
    ),
) -> None:
    """Per-rank comm-comp overlap %, temporal breakdown and exposed communication (HTA's definitions)."""
    from densing.overlap.analysis import analyze as analyze_ranks, analyze_rows, analyze_steps
    from densing.overlap.model import check_rules

    check(ENGINE_CONSTRAINTS, workers=workers)
    check_rules(kernel_rules)
    if stream and (steps or peer_wait):
        raise InputError("--stream: per rank only (without --steps or --peer-wait)")
    if peer_wait:
        if kernel_rules != "hta":
            raise InputError("--kernel-rules: --peer-wait reads HTA 0.5.0's categories only (--kernel-rules hta)")
        if steps:
            raise InputError("--peer-wait: per rank only (without --steps)")
        from densing.overlap.metrics import peer_wait as split

        print_frame(split(path), fmt, title=f"exposed communication: transfer vs peer wait, {path}", keys=1, wide=wide)
        return
    if fmt is Format.json and not steps:  # the fast path: no pandas for a machine-readable answer
        print_json(analyze_rows(path, scheduler, workers, kernel_rules, stream))
        return
    frame = (
        analyze_steps(path, scheduler, workers, kernel_rules)
        if steps
        else analyze_ranks(path, scheduler, workers, kernel_rules, stream)
    )
    if fmt is Format.table:  # the number the command exists for first: the overlap %, then what is exposed
        frame = frame[[*(c for c in FIRST if c in frame.columns), *(c for c in frame.columns if c not in FIRST)]]
    print_frame(frame, fmt, title=f"overlap {path}", keys=1, wide=wide, together=FIRST[1:])  # the rank names each row
    if "stream_overlaps" in frame.columns and (frame["stream_overlaps"] > 0).any():
        faulty = frame[frame["stream_overlaps"] > 0]
        print(
            f"warning: {int(faulty['stream_overlaps'].sum())} kernel(s) start before the previous kernel of their "
            f"CUDA stream has ended (rank(s) {', '.join(map(str, faulty['rank'].tolist()[:8]))}): a fault of the "
            "trace, which a stream cannot run; the breakdown takes them as written",
            file=sys.stderr,
        )


@overlap_app.command()
def skew(
    path: Path = typer.Argument(..., help="A directory with one trace file per rank."),
    threshold_pct: float = typer.Option(5.0, "--threshold-pct", help="Flag a straggler above this % over the median."),
    scheduler: str = typer.Option("auto", "--scheduler", help=_SCHEDULER_HELP),
    workers: int | None = typer.Option(
        None, "--workers", help="Local processes or local Dask workers (default: one per CPU)."
    ),
    fmt: Format = typer.Option(Format.table, "--format", help=FORMAT_HELP),
) -> None:
    """Step-time skew across ranks and stragglers, per ProfilerStep."""
    from densing.overlap.analysis import analyze_steps
    from densing.overlap.metrics import SKEW_CONSTRAINTS, step_skew

    check(ENGINE_CONSTRAINTS, workers=workers)
    check(SKEW_CONSTRAINTS, straggler_threshold_pct=threshold_pct)
    print_frame(step_skew(analyze_steps(path, scheduler, workers), threshold_pct), fmt, title=f"step skew {path}")


@overlap_app.command()
def compare(
    base: Path = typer.Argument(..., help="Baseline trace file or directory."),
    candidate: Path = typer.Argument(..., help="Candidate trace file or directory."),
    fmt: Format = typer.Option(Format.table, "--format", help=FORMAT_HELP),
) -> None:
    """Per-metric deltas (candidate − base) and the step-time speedup."""
    from densing.overlap.analysis import analyze as analyze_ranks, analyze_steps
    from densing.overlap.metrics import compare as compare_frames
    from densing.overlap.trace import read_traces

    check({"base": [ExistingPath()], "candidate": [ExistingPath()]}, base=base, candidate=candidate)
    b, c = read_traces(base), read_traces(candidate)
    frame = compare_frames(analyze_ranks(b), analyze_ranks(c), analyze_steps(b), analyze_steps(c))
    print_frame(frame, fmt, title=f"{candidate} vs {base}")


@overlap_app.command()
def whatif(
    path: Path = typer.Argument(..., help="Trace file or directory to calibrate compute time and bytes per step."),
    model_params: str | None = typer.Option(
        None,
        "--model-params",
        help="Model size (e.g. 7B); all-reduced bytes = params × --bytes-per-param. Default: bytes from the trace's collectives.",
    ),
    bytes_per_param: float = typer.Option(
        4.0, "--bytes-per-param", help="Bytes all-reduced per parameter with --model-params (4: fp32 gradients)."
    ),
    workers: str = typer.Option(
        "1,2,4,8,16,32,64,128", "--workers", help="Comma-separated worker counts to predict the step time at."
    ),
    bandwidth_gbps: str = typer.Option(
        "800,80", "--bandwidth-gbps", help="Link bandwidths in Gb/s (CO2's RDMA and TCP settings)."
    ),
    strategies: str = typer.Option(
        "all",
        "--strategies",
        help="Comma-separated names with a what-if model (see 'densing overlap strategies'); all: every one.",
    ),
    local_steps: int = typer.Option(4, "--local-steps", help="CO2's τ."),
    contention: float = typer.Option(0.1, "--contention", help="T3's compute-contention factor γ."),
    contention_from: Path | None = typer.Option(
        None,
        "--contention-from",
        help="A 'densing overlap run' tp-chunked folder: T3's γ measured there (producer GEMM time beside a collective vs alone) instead of --contention.",
    ),
    latency_us: float = typer.Option(5.0, "--latency-us", help="Per-message latency α."),
    bucket_mb: float = typer.Option(
        DEFAULT_BUCKET_MB, "--bucket-mb", help="DDP bucket size (MiB; the same default as run's bucket_cap_mb)."
    ),
    fmt: Format = typer.Option(Format.table, "--format", help=FORMAT_HELP),
) -> None:
    """Predicted step time and scaling efficiency: sync DP, bucketed DDP, CO2 and T3 overlap."""
    from densing.overlap.strategies.registry import parse
    from densing.overlap.whatif import WHATIF_CONSTRAINTS, calibrate, calibration_warnings, idle_note, predict

    # every option is checked before the trace is read: the grid's own numbers, then the calibration's
    params = size_option(model_params, "--model-params")
    counts = [int(w) if float(w).is_integer() and abs(w) < 2**63 else w for w in _floats(workers, "--workers")]
    links = _floats(bandwidth_gbps, "--bandwidth-gbps")
    for w in counts:
        check(WHATIF_CONSTRAINTS, workers=w)
    for gbps in links:
        check({"bandwidth_gbps": WHATIF_CONSTRAINTS["bandwidths_gbps"]}, bandwidth_gbps=gbps)  # named as given
    check(
        WHATIF_CONSTRAINTS,
        model_params=params,
        bytes_per_param=bytes_per_param,
        local_steps=local_steps,
        contention=contention,
        latency_us=latency_us,
    )
    check({"bucket_mb": WHATIF_CONSTRAINTS["bucket_bytes"]}, bucket_mb=bucket_mb)  # MiB, named as given
    check({"contention_from": [ExistingPath("folder"), None]}, contention_from=contention_from)
    names = [s.name for s in parse(strategies, "whatif")]
    calibration = calibrate(path, model_params=params, bytes_per_param=bytes_per_param)
    if contention_from is not None:
        from densing.overlap.sublayers import measured_contention

        contention = measured_contention(contention_from)
        typer.echo(f"T3 contention γ = {contention:.3f}, measured on {contention_from}", err=True)
    frame = predict(
        calibration,
        workers=counts,
        bandwidths_gbps=links,
        strategies=names,
        local_steps=local_steps,
        contention=contention,
        latency_us=latency_us,
        bucket_bytes=bucket_mb * 2**20,
    )
    for line in calibration_warnings(calibration):  # after the inputs were checked: an error stays one line
        typer.echo(f"warning: {line}", err=True)
    print_frame(frame, fmt, title=f"what-if from {path}", keys=3)  # strategy, workers, bandwidth
    if fmt is Format.table:
        print_text(idle_note(calibration))
    else:  # stdout is the rows alone
        typer.echo(f"note: {idle_note(calibration)}", err=True)


@overlap_app.command()
def run(
    out: Path = typer.Argument(
        ...,
        help="Output folder (missing folders are made): one sub-folder per strategy (traces rank<r>.json.gz, metrics.csv, run.yaml).",
    ),
    strategies: str = typer.Option(
        "all",
        "--strategies",
        help="Comma-separated names with training hooks (see 'densing overlap strategies'); all: every one.",
    ),
    workers: int = typer.Option(2, "--workers", help="Workers per node (torchrun --nproc-per-node)."),
    steps: int = typer.Option(
        200, "--steps", help="Training steps per run (at least the profiler's skip + wait + warm-up + active)."
    ),
    batch_size: int = typer.Option(4, "--batch-size", help="Sequences per worker per step."),
    seq_len: int = typer.Option(64, "--seq-len", help="Tokens per sequence."),
    d_model: int = typer.Option(256, "--d-model", help="The GPT's width (a multiple of --n-head)."),
    n_layer: int = typer.Option(4, "--n-layer", help="The GPT's transformer blocks."),
    n_head: int = typer.Option(4, "--n-head", help="Attention heads per block."),
    lr: float = typer.Option(1e-3, "--lr", help="AdamW learning rate (the inner optimizer for co2)."),
    corpus: str = typer.Option("stdlib", "--corpus", help="stdlib, shakespeare, or a text file / folder."),
    profile_skip: int = typer.Option(
        40, "--profile-skip", help="Steps run before the profiler starts (warm caches, settled timings)."
    ),
    profile_active: int = typer.Option(24, "--profile-active", help="Profiled steps (the validation's means)."),
    bucket_mb: float = typer.Option(DEFAULT_BUCKET_MB, "--bucket-mb", help="DDP bucket_cap_mb (MiB)."),
    local_steps: int = typer.Option(4, "--local-steps", help="CO2's τ."),
    outer_lr: float = typer.Option(
        1.0, "--outer-lr", help="CO2's outer learning rate (1: the averaged model as it is)."
    ),
    outer_momentum: float = typer.Option(0.0, "--outer-momentum", help="CO2's β (the authors use 0 at ≤ 16 GPUs)."),
    staleness_penalty: str = typer.Option(
        "constant",
        "--staleness-penalty",
        help="CO2: constant (authors' code: Λ = 1/--gap-penalty) or adaptive (densing's per-tensor λ).",
    ),
    gap_penalty: float = typer.Option(1.0, "--gap-penalty", help="CO2's constant penalty divisor λ (1: none)."),
    outer_clip_mode: str = typer.Option(
        "none",
        "--outer-clip-mode",
        help="CO2 outer momentum clipping: none (authors' default), elementwise (authors' clamp to ±c) or l2 (densing's global norm).",
    ),
    outer_clip: float = typer.Option(1.0, "--outer-clip", help="CO2 clipping threshold c."),
    tp_overlap: str = typer.Option(
        "none",
        "--tp-overlap",
        help="tp: none (serialized all-reduce), chunked (per-chunk async all-reduce), or a comma list: one run each.",
    ),
    tp_chunks: int = typer.Option(4, "--tp-chunks", help="tp chunked: pieces of the producer GEMM (along tokens)."),
    repeats: int = typer.Option(1, "--repeats", help="Run the whole set N times, into OUT/r0 to OUT/r<N-1>."),
    seed: int = typer.Option(0, "--seed", help="Seed of the model's initialisation and the data order."),
    nnodes: int = typer.Option(1, "--nnodes", help="torchrun --nnodes (several nodes need --rdzv-endpoint)."),
    node_rank: int = typer.Option(0, "--node-rank", help="torchrun --node-rank: this node's index among --nnodes."),
    rdzv_endpoint: str | None = typer.Option(None, "--rdzv-endpoint", help="torchrun --rdzv-endpoint HOST:PORT."),
    fmt: Format = typer.Option(Format.table, "--format", help=FORMAT_HELP),
) -> None:
    """Train a small GPT with data parallelism (torchrun; gloo on CPU, nccl on GPUs) and profile it."""
    from densing.overlap.strategies.registry import parse
    from densing.overlap.train import TrainConfig, run_strategies

    fields = {name: value for name, value in locals().items() if name in TrainConfig.__dataclass_fields__}
    names = [s.name for s in parse(strategies, "training")]
    modes = [m.strip() for m in tp_overlap.split(",") if m.strip()]
    base = TrainConfig(**fields | {"tp_overlap": modes[0] if modes else ""})  # each option a field of the same name
    strategies = counted_noun(len(names), "strategy", "strategies")
    with working(f"checking the runs of {strategies} before torchrun starts …") as say:
        summary = run_strategies(
            out,
            names,
            base,
            workers=workers,
            tp_overlaps=modes,
            repeats=repeats,
            nnodes=nnodes,
            node_rank=node_rank,
            rdzv_endpoint=rdzv_endpoint,
            on_progress=say,
        )
    print_frame(summary, fmt, title=f"runs in {out} (step time: median of the unprofiled steps)")


@overlap_app.command()
def validate(
    sync_dir: Path = typer.Argument(
        ...,
        help="A 'densing overlap run' folder of the sync strategy (calibration), or a whole 'run' output (OUT: sync/, ddp/, co2/, tp-none/, tp-chunked/; or its repeats OUT/r0, OUT/r1 and so on).",
    ),
    runs: list[Path] | None = typer.Argument(
        None, help="Runs to predict (e.g. the ddp and co2 folders); each run's strategy is read from its run.yaml."
    ),
    calibration: bool = typer.Option(
        False, "--calibration", help="Print what the model learned from the sync run instead."
    ),
    per_repeat: bool = typer.Option(
        False,
        "--per-repeat",
        help="With a run output: one row per (repeat, strategy) instead of the summary across repeats.",
    ),
    contention: float | None = typer.Option(
        None, "--contention", help="T3's γ for the tp-chunked prediction (default: measured on the chunked run)."
    ),
    fmt: Format = typer.Option(Format.table, "--format", help=FORMAT_HELP),
) -> None:
    """What-if check: calibrate on the sync run (tp-none for T3), predict the other runs' step times,
    compare with measurement. Times compared are profiled steps (ProfilerStep means); the
    unprofiled step and the profiler's overhead are shown beside them."""
    from densing.overlap.validate import (
        RUNS_CONSTRAINTS,
        error_summary,
        is_run_root,
        validate as validate_runs,
        validate_repeats,
    )

    check(RUNS_CONSTRAINTS, contention=contention, sync_dir=sync_dir)  # every option and folder before any is read
    for run_dir in runs or []:
        check(RUNS_CONSTRAINTS, run_dir=run_dir)
    if (
        is_run_root(sync_dir)
        or any(sync_dir.glob("r[0-9]*/sync/run.yaml"))
        or any(sync_dir.glob("r[0-9]*/tp-none/run.yaml"))
    ):
        if runs or calibration:
            raise InputError("runs: a run output folder is validated as a whole (no further runs, no --calibration)")
        table = validate_repeats(sync_dir, contention)
        if per_repeat:
            print_frame(table, fmt, title="what-if vs measured, per repeat (profiled step time)", keys=2)
        else:
            print_frame(
                error_summary(table),
                fmt,
                title=f"prediction error across {table['repeat'].nunique()} repeat(s) (profiled step time)",
                keys=1,
            )
        return
    if contention is not None:
        raise InputError(
            f"--contention: {sync_dir} is one run, not a run output folder with a tensor-parallel pair "
            "(tp-none/ and tp-chunked/); γ enters only T3's prediction of the chunked run"
        )
    cal, table = validate_runs(sync_dir, *(runs or []))
    print_frame(cal.to_frame() if calibration else table, fmt, title="what-if vs measured (profiled step time)")


@overlap_app.command()
def sublayers(
    run_dir: Path = typer.Argument(..., help="A tp run folder (tp-none or tp-chunked)."),
    fmt: Format = typer.Option(Format.table, "--format", help=FORMAT_HELP),
) -> None:
    """Per-sublayer time, exposed communication and measured contention of a tensor-parallel run."""
    from densing.overlap.sublayers import sublayer_table

    print_frame(sublayer_table(run_dir), fmt, title=f"tp sublayers {run_dir} (times per step)", keys=2)


@overlap_app.command()
def strategies(fmt: Format = typer.Option(Format.table, "--format", help=FORMAT_HELP)) -> None:
    """The overlap strategies: what each one is and which models it has (what-if, validation, training)."""
    import pandas as pd

    from densing.overlap.strategies.registry import strategy_rows

    print_frame(pd.DataFrame(strategy_rows()), fmt, title="overlap strategies")


@overlap_app.command()
def convergence(
    ddp_dir: Path = typer.Argument(..., help="The ddp run."),
    co2_dir: Path = typer.Argument(..., help="The co2 run (same tokens per step)."),
    window: int = typer.Option(20, "--window", help="Average the loss of the last WINDOW steps."),
    fmt: Format = typer.Option(Format.table, "--format", help=FORMAT_HELP),
) -> None:
    """Training loss of co2 against ddp at equal tokens."""
    from densing.overlap.validate import RUNS_CONSTRAINTS, convergence as compare_loss

    check(RUNS_CONSTRAINTS, window=window, ddp_dir=ddp_dir, co2_dir=co2_dir)
    print_frame(compare_loss(ddp_dir, co2_dir, window), fmt, title="training loss at equal tokens")
