"""The schema of a run folder (one run of ``densing overlap run``): ``run.yaml`` and ``metrics.csv``, checked on read.

``run.yaml`` holds the run's status, configuration (:class:`TrainConfig`, :data:`TRAIN_CONSTRAINTS`) and machine
(:data:`RUN_DOMAIN`); ``metrics.csv`` one row per (rank, step) (:data:`METRICS_DOMAIN`). A folder whose status is not
``complete`` is refused as an incomplete run; a value outside its domain is an InputError naming the file, the field
(and the row), the value and the domain.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from numbers import Integral, Real
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from densing.errors import InputError
from densing.io import read_text
from densing.overlap.strategies.co2 import CLIP_MODES, PENALTY_MODES
from densing.overlap.strategies.tp import TP_OVERLAP_MODES
from densing.overlap_defaults import DEFAULT_BUCKET_MB, MAX_BUCKET_MB
from densing.validation import Interval, Options, validate

RUN_FILE = "run.yaml"
METRICS_FILE = "metrics.csv"
METRICS_COLUMNS = ["rank", "step", "step_time_s", "tokens", "loss", "profiled", "allreduce_wall_s", "allreduce_cpu_s"]
#: A run's life: ``running`` from launch, then ``complete`` (every rank's metrics merged), ``failed`` (torchrun or a
#: worker failed) or ``interrupted`` (Ctrl-C, SIGTERM); a run killed outright stays ``running``.
STATUSES = ("running", "failed", "interrupted", "complete")
COMPLETE = "complete"
LAUNCHER = "torch.distributed.run"


@dataclass(frozen=True)
class Counts:
    """A non-empty list of whole numbers ≥ 1 (a model's parameter sizes)."""

    def matches(self, value: Any) -> bool:
        return (
            isinstance(value, list)
            and len(value) > 0
            and all(isinstance(v, Integral) and not isinstance(v, bool) and v >= 1 for v in value)
        )

    def __str__(self) -> str:
        return "a non-empty list of integers ≥ 1"


_COUNT = [Interval(Integral, 1, None)]

#: The domain of each top-level field of ``run.yaml`` (``config``'s fields: :data:`TRAIN_CONSTRAINTS`).
RUN_DOMAIN: dict[str, list] = {
    "status": [Options(STATUSES)],
    **dict.fromkeys(("workers_per_node", "nnodes", "cpu_count"), _COUNT),
    "launcher": [Options({LAUNCHER})],
    "n_params": _COUNT,  # and the sum of param_numel
    "param_numel": [Counts()],
}


@dataclass(frozen=True)
class Column:
    """A column of ``metrics.csv``: ``bad(values, run)`` marks the values outside ``words`` (``run``: world size,
    steps); NaN is allowed where ``missing`` is."""

    words: str
    bad: Callable[[np.ndarray, dict], np.ndarray]
    missing: bool = False


def _whole(v: np.ndarray, low: float, high: float) -> np.ndarray:
    return ~(np.isfinite(v) & (v == np.round(v)) & (v >= low) & (v <= high))


#: The domain of each column of ``metrics.csv``: ranks and steps of the run, positive step times, tokens ≥ 1, a loss
#: ≥ 0 (NaN allowed: a diverged run is data; ``convergence`` refuses one whose losses are all NaN), ``profiled`` a
#: switch, the all-reduce's wall and CPU seconds ≥ 0 (empty for a strategy without a blocking all-reduce).
METRICS_DOMAIN: dict[str, Column] = {
    "rank": Column("a whole number in [0, world size − 1]", lambda v, run: _whole(v, 0, run["world"] - 1)),
    "step": Column("a whole number in [0, steps − 1]", lambda v, run: _whole(v, 0, run["steps"] - 1)),
    "step_time_s": Column("a number of seconds > 0", lambda v, run: ~(np.isfinite(v) & (v > 0))),
    "tokens": Column("a whole number ≥ 1", lambda v, run: _whole(v, 1, np.inf)),
    "loss": Column("a number ≥ 0, or NaN (a diverged step)", lambda v, run: ~(v >= 0) | np.isinf(v), missing=True),
    "profiled": Column("true or false (1 or 0)", lambda v, run: ~np.isin(v, (0.0, 1.0))),
    **dict.fromkeys(
        ("allreduce_wall_s", "allreduce_cpu_s"),
        Column("a number of seconds ≥ 0, or empty", lambda v, run: ~(v >= 0) | np.isinf(v), missing=True),
    ),
}


#: The largest seed: torch's generators take 64-bit seeds and each rank seeds ``seed × 100003 + rank``.
MAX_SEED = 2**32 - 1

_NATURAL = [Interval(Integral, 0, None)]
_POSITIVE = [Interval(Real, 0, None, closed="neither")]  # finite: NaN and ∞ never match

#: What each field of a :class:`TrainConfig` may be (:func:`densing.validation.validate`'s constraints; the
#: strategy is checked against the registry).
TRAIN_CONSTRAINTS: dict = {
    **{
        name: _COUNT
        for name in (
            "steps",
            "batch_size",
            "seq_len",
            "d_model",
            "n_layer",
            "n_head",
            "corpus_bytes",
            "profile_active",
            "local_steps",
            "tp_chunks",
        )
    },
    **{name: _NATURAL for name in ("profile_skip", "profile_wait", "profile_warmup", "threads")},
    **{name: _POSITIVE for name in ("lr", "outer_lr", "outer_clip", "gap_penalty")},
    "bucket_mb": [Interval(Real, 0, MAX_BUCKET_MB, closed="right")],  # DDP's bucket_cap_mb
    "outer_momentum": [Interval(Real, 0, 1, closed="left")],
    "seed": [Interval(Integral, 0, MAX_SEED)],
    "staleness_penalty": [Options(PENALTY_MODES)],
    "outer_clip_mode": [Options(CLIP_MODES)],
    "tp_overlap": [Options(TP_OVERLAP_MODES)],
}


@dataclass(frozen=True)
class TrainConfig:
    """What one run trains and profiles. Tokens per step = workers × batch_size × seq_len."""

    strategy: str = "ddp"
    steps: int = 200
    batch_size: int = 4
    seq_len: int = 64
    d_model: int = 256
    n_layer: int = 4
    n_head: int = 4
    lr: float = 1e-3
    seed: int = 0
    corpus: str = "stdlib"
    corpus_bytes: int = 4_000_000
    profile_skip: int = 40
    profile_wait: int = 1
    profile_warmup: int = 1
    profile_active: int = 24  # enough profiled steps for a stable mean (12 gave ±40% validation errors)
    threads: int = 0  # intra-op threads per worker; 0: cores / local workers
    bucket_mb: float = DEFAULT_BUCKET_MB
    local_steps: int = 4  # CO2's τ
    outer_lr: float = 1.0
    outer_momentum: float = 0.0  # the authors' setting at ≤ 16 GPUs (see densing.overlap.strategies.co2)
    outer_clip: float = 1.0  # CO2 outer momentum clipping threshold (used by the clip modes)
    staleness_penalty: str = "constant"  # CO2 penalty: constant (authors' code) | adaptive (densing's)
    gap_penalty: float = 1.0  # the constant penalty's divisor λ (1: no penalty, the authors' default)
    outer_clip_mode: str = "none"  # none (authors' default) | elementwise (authors' clamp) | l2 (densing's)
    tp_overlap: str = "none"  # tp: none (serialized all-reduce) | chunked
    tp_chunks: int = 4  # tp chunked: pieces of the producer GEMM

    def check(self) -> TrainConfig:
        """InputError naming the first field out of range (:data:`TRAIN_CONSTRAINTS`); else ``self``."""
        validate(TRAIN_CONSTRAINTS, **{f.name: getattr(self, f.name) for f in fields(self) if f.name != "strategy"})
        from densing.overlap.strategies.registry import get

        get(self.strategy, "training")  # InputError naming the strategies that can train
        if self.d_model % self.n_head:
            raise InputError(f"d_model: expected a multiple of n_head ({self.n_head}), got {self.d_model}")
        if self.profile_end > self.steps:
            raise InputError(
                f"steps: the profiler schedule needs {self.profile_end} steps "
                f"(skip + wait + warmup + active), got {self.steps}"
            )
        return self

    @property
    def run_name(self) -> str:
        """The run's folder under ``densing overlap run``'s output: the strategy, ``tp-<overlap>`` for tp."""
        return f"tp-{self.tp_overlap}" if self.strategy == "tp" else self.strategy

    @property
    def profile_end(self) -> int:
        return self.profile_skip + self.profile_wait + self.profile_warmup + self.profile_active

    @classmethod
    def from_dict(cls, data: dict, where: str = "run.yaml") -> TrainConfig:
        """A run.yaml's ``config`` (in file ``where``), checked; InputError naming the file and ``config.<field>``."""
        if unknown := sorted(set(data) - {f.name for f in fields(cls)}):
            raise InputError(f"{where}: config: unknown field {unknown[0]!r}")
        whole = ("steps", "local_steps", "tp_chunks", "batch_size", "seq_len")  # 200.0 is read as 200
        data = {k: int(v) if k in whole and isinstance(v, float) and v.is_integer() else v for k, v in data.items()}
        try:
            return cls(**data).check()
        except InputError as exc:
            raise InputError(f"{where}: config.{exc}") from None


def _load_yaml(path: Path) -> Any:
    import yaml

    try:
        return yaml.safe_load(read_text(path))
    except FileNotFoundError:
        raise InputError(f"{path}: no such file (not a 'densing overlap run' directory)") from None
    except yaml.YAMLError as exc:
        raise InputError(f"{path}: malformed YAML ({' '.join(str(exc).split())})") from None


def check_complete(run_dir: Path, meta: Any) -> None:
    """An InputError naming ``run_dir`` as an incomplete run unless ``meta`` (its run.yaml) says ``complete``."""
    status = meta.get("status") if isinstance(meta, dict) else None
    if status == COMPLETE:
        return
    said = "has no 'status' field" if status is None else f"says status: {status}"
    raise InputError(
        f"{run_dir}: an incomplete run ({RUN_FILE} {said}; a run records '{COMPLETE}' only once every "
        "rank's metrics are written); run it again with 'densing overlap run'"
    )


def read_run(run_dir: str | Path) -> tuple[dict, pd.DataFrame]:
    """A run folder's ``run.yaml`` (as a dict) and ``metrics.csv``, each checked against its schema: the run file
    against :data:`RUN_DOMAIN` and :class:`TrainConfig`, the metrics against :data:`METRICS_DOMAIN`, with one row per
    (rank, step) for each of this node's ranks and each step."""
    from densing.validation import as_path

    run_dir = as_path(run_dir, "run_dir")
    if run_dir.exists() and not run_dir.is_dir():
        raise InputError(f"{run_dir}: is a file; expected a 'densing overlap run' directory")
    path, meta = run_dir / RUN_FILE, _load_yaml(run_dir / RUN_FILE)
    if not isinstance(meta, dict) or not isinstance(meta.get("config"), dict):
        raise InputError(f"{path}: expected a mapping with a 'config' mapping")
    check_complete(run_dir, meta)
    if unknown := [name for name in meta if name not in RUN_DOMAIN and name != "config"]:
        raise InputError(
            f"{path}: unknown field {unknown[0]!r}; a run.yaml holds config, {', '.join(RUN_DOMAIN)} and no other field"
        )
    if missing := [name for name in RUN_DOMAIN if name not in meta]:
        raise InputError(f"{path}: missing field '{missing[0]}'")
    try:
        validate(RUN_DOMAIN, **{name: meta[name] for name in RUN_DOMAIN})
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None
    if sum(meta["param_numel"]) != meta["n_params"]:
        raise InputError(
            f"{path}: n_params: {meta['n_params']!r} is not the sum of param_numel ({sum(meta['param_numel'])})"
        )
    steps, workers = TrainConfig.from_dict(meta["config"], where=str(path)).steps, meta["workers_per_node"]
    path = run_dir / METRICS_FILE
    try:
        metrics = pd.read_csv(path)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file (the run says it is complete)") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not a CSV table ({' '.join(str(exc).split())})") from None
    if missing := [c for c in METRICS_COLUMNS if c not in metrics.columns]:
        raise InputError(f"{path}: missing column '{missing[0]}'")
    run = {"world": workers * meta["nnodes"], "steps": steps}
    for name, column in METRICS_DOMAIN.items():
        raw = metrics[name]
        values = pd.to_numeric(raw.replace({True: 1, False: 0, "True": 1, "False": 0}), errors="coerce").to_numpy(float)
        bad = column.bad(values, run) & ~(np.isnan(values) & column.missing & raw.isna().to_numpy())
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"{path}: row {row + 1}: field '{name}': {raw.iloc[row]!r} is outside its domain ({column.words})"
            )
    pairs = metrics[["rank", "step"]].drop_duplicates()
    if len(pairs) != len(metrics) or len(metrics) != workers * steps:
        raise InputError(
            f"{path}: {len(metrics)} rows for {workers} rank(s) × {steps} steps "
            f"({len(pairs)} distinct rank and step); expected one row per rank and step"
        )
    return meta, metrics


def check_run_folder(folder: Path) -> None:
    """For a reader of a folder's traces: a folder holding a run.yaml is a run folder, refused unless complete."""
    if (folder / RUN_FILE).is_file():
        check_complete(folder, _load_yaml(folder / RUN_FILE))
