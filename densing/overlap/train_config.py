"""What one run of ``densing overlap run`` trains and profiles (:class:`TrainConfig`) and the domain of each of its
fields (:data:`TRAIN_CONSTRAINTS`): the ``config`` of a run folder's ``run.yaml``
(:mod:`densing.overlap.run_schema`)."""
from __future__ import annotations

from dataclasses import dataclass, fields
from numbers import Integral, Real

from densing.errors import InputError
from densing.overlap.strategies.co2 import CLIP_MODES, PENALTY_MODES
from densing.overlap.strategies.tp import TP_OVERLAP_MODES
from densing.overlap_defaults import DEFAULT_BUCKET_MB, MAX_BUCKET_MB
from densing.validation import Interval, Options, validate

#: The largest seed: torch's generators take 64-bit seeds and each rank seeds ``seed × 100003 + rank``.
MAX_SEED = 2**32 - 1

_COUNT, _NATURAL = [Interval(Integral, 1, None)], [Interval(Integral, 0, None)]
_POSITIVE = [Interval(Real, 0, None, closed="neither")]  # finite: NaN and ∞ never match

#: What each field of a :class:`TrainConfig` may be (:func:`densing.validation.validate`'s constraints; the
#: strategy is checked against the registry).
TRAIN_CONSTRAINTS: dict = {
    **{name: _COUNT for name in ("steps", "batch_size", "seq_len", "d_model", "n_layer", "n_head", "corpus_bytes",
                                  "profile_active", "local_steps", "tp_chunks")},
    **{name: _NATURAL for name in ("profile_skip", "profile_wait", "profile_warmup", "threads")},
    **{name: _POSITIVE for name in ("lr", "outer_lr", "outer_clip", "gap_penalty")},
    # DDP's bucket_cap_mb: above 0, at most MAX_BUCKET_MB
    "bucket_mb": [Interval(Real, 0, MAX_BUCKET_MB, closed="right")],
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

    def check(self) -> "TrainConfig":
        """Raise InputError naming the first field that is out of range (:data:`TRAIN_CONSTRAINTS`)."""
        validate(TRAIN_CONSTRAINTS, **{f.name: getattr(self, f.name) for f in fields(self) if f.name != "strategy"})
        from densing.overlap.strategies.registry import get

        get(self.strategy, "training")  # InputError naming the strategies that can train
        if self.d_model % self.n_head:
            raise InputError(f"d_model: expected a multiple of n_head ({self.n_head}), got {self.d_model}")
        if self.profile_end > self.steps:
            raise InputError(f"steps: the profiler schedule needs {self.profile_end} steps "
                             f"(skip + wait + warmup + active), got {self.steps}")
        return self

    @property
    def run_name(self) -> str:
        """The run's folder under ``densing overlap run``'s output: the strategy, ``tp-<overlap>`` for tp."""
        return f"tp-{self.tp_overlap}" if self.strategy == "tp" else self.strategy

    @property
    def profile_end(self) -> int:
        return self.profile_skip + self.profile_wait + self.profile_warmup + self.profile_active

    @classmethod
    def from_dict(cls, data: dict, where: str = "run.yaml") -> "TrainConfig":
        """The configuration a run.yaml's ``config`` holds (``where``: the file), checked; InputError naming the file
        and the field (``config.<name>``)."""
        names = {f.name: f.type for f in fields(cls)}
        unknown = sorted(set(data) - set(names))
        if unknown:
            raise InputError(f"{where}: config: unknown field {unknown[0]!r}")
        data = dict(data)
        for name in ("steps", "local_steps", "tp_chunks", "batch_size", "seq_len"):
            value = data.get(name)
            if isinstance(value, float) and value.is_integer():
                data[name] = int(value)
        try:
            return cls(**data).check()
        except InputError as exc:
            raise InputError(f"{where}: config.{exc}") from None
