"""A sweep's models: where each comes from (checked before anything runs), its parameter counts, and loading it with
the class lm-eval's model registry holds under the backend's name, made as its record says (:mod:`.backends`).
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
from numbers import Real
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from densing.errors import EvalError, InputError, first_line
from densing.eval import backends
from densing.eval.models import ModelSpec
from densing.validation import Device, Interval, WholeNumber, validate

if TYPE_CHECKING:
    from densing.eval.backends.prefix.settings import PrefixSettings

#: What :func:`densing.eval.runner.run_sweep`'s and :func:`load_model`'s arguments may be (checked before any model loads).
SWEEP_CONSTRAINTS = {
    "backend": [backends.BackendName()],
    # items per task (lm-eval reads a limit below 1 as a fraction); 10⁷ is above every benchmark's size
    "limit": [WholeNumber(1, 1e7), None],
    "time_limit": [Interval(Real, 0, None, closed="neither"), None],
    # None: cuda where there is one, else the CPU; a device no backend knows is refused rather than ignored
    "device": [Device(), None],
}


#: The files a Hugging Face tokenizer is saved as (fast, its config, sentencepiece, BPE and WordPiece vocabularies): a
#: local model directory holds one of them, or lm-eval loads the model first and fails on the first request.
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "tokenizer.model",
    "vocab.json",
    "vocab.txt",
    "spiece.model",
    "sentencepiece.bpe.model",
)


def check_model_source(spec: ModelSpec) -> None:
    """Raise :class:`EvalError` if a model given as a local path (or GGUF file) does not exist."""
    try:
        location = spec.model_directory()
    except InputError as exc:
        raise EvalError(str(exc)) from None
    path = Path(location).expanduser()
    if spec.gguf_file is not None:
        if not (path / spec.gguf_file).is_file():
            raise EvalError(f"model {spec.name!r}: {path / spec.gguf_file}: no such GGUF file")
        return
    if path.exists():
        if not (path / "config.json").is_file():
            raise EvalError(f"model {spec.name!r}: {spec.model}: no config.json (not a Hugging Face model directory)")
        if "tokenizer" not in dict(spec.model_args) and not any((path / name).is_file() for name in TOKENIZER_FILES):
            raise EvalError(
                f"model {spec.name!r}: {spec.model}: no tokenizer ({', '.join(TOKENIZER_FILES[:3])} …); "
                "save the tokenizer beside the weights or name one with model_args tokenizer=…"
            )
        return
    text = spec.model
    if text.startswith(("/", "./", "../", "~")) or text.count("/") >= 2 or text.count(os.sep) >= 2:
        raise EvalError(f"model {spec.name!r}: {spec.model}: no such model directory")


def _device_count(kind: str) -> int | None:
    """How many devices of ``kind`` torch sees on this machine (None: a kind whose count torch does not tell)."""
    import torch

    counts = {
        "cuda": lambda: torch.cuda.device_count() if torch.cuda.is_available() else 0,
        "mps": lambda: int(torch.backends.mps.is_available()),
        "xpu": lambda: torch.xpu.device_count() if hasattr(torch, "xpu") and torch.xpu.is_available() else 0,
    }
    return counts[kind]() if kind in counts else None


def check_device_present(device: str | None) -> None:
    """An InputError when ``device`` names a CUDA, MPS or XPU device this machine lacks (lm-eval would use the CPU)."""
    if device is None:
        return
    kind, _, index = device.partition(":")
    count = _device_count(kind)
    if count is not None and int(index or 0) >= count:
        raise InputError(
            f"device: {device!r} is not on this machine ({count} {kind} device(s) here); give one it has, or cpu"
        )


class ParameterCounts(NamedTuple):
    """Parameter counts of a loaded model (plain numbers of parameters)."""

    total: float
    non_embedding: float
    ladder: float


def count_parameters(model: Any) -> ParameterCounts:
    """Total, non-embedding and OLMo-ladder parameter counts of a torch model.

    Non-embedding excludes every ``nn.Embedding`` (token and learned position embeddings) and an output projection
    not tied to the input embedding (Kaplan et al. 2020, §2.1 count N this way). The ladder count is N as AI2's OLMo
    ladder counts it (its ``configs/*.json`` ``n``),

        N_ladder = non-embedding + numel(output head),

    a head tied to the input embedding counted once, as the head.
    """
    import torch

    total = sum(p.numel() for p in model.parameters())  # parameters() yields a tied weight once
    output = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    embeddings = [m for m in model.modules() if isinstance(m, torch.nn.Embedding)]
    embeddings += [output] if output is not None else []
    embedding_ids = {id(p) for module in embeddings for p in module.parameters()}
    embedding = sum(p.numel() for p in model.parameters() if id(p) in embedding_ids)  # a tied head counted once
    head = sum(p.numel() for p in output.parameters()) if output is not None else 0
    non_embedding = total - embedding
    return ParameterCounts(float(total), float(non_embedding), float(non_embedding + head))


def load_model(
    spec: ModelSpec, *, backend: str, device: str | None, batch_size: int | str, settings: PrefixSettings | None = None
) -> tuple[Any, ParameterCounts]:
    """Load ``spec`` with lm-eval's backend ``backend`` (:func:`registered_model`, made by
    :meth:`densing.eval.backends.Backend.load`); return (lm, its parameter counts, :func:`_count_loaded`).
    ``settings`` (:class:`densing.eval.backends.prefix.settings.PrefixSettings`) configure the prefix engine."""
    validate(SWEEP_CONSTRAINTS, device=device, backend=backend)  # the backend's check needs lm-eval (EvalError)
    record = backends.get(backend)
    record.check(spec)
    backends.check_settings(record, settings)
    model_class = registered_model(backend)
    thresholds = gc.get_threshold()  # no full collection while transformers imports the model's modules (each scans
    gc.set_threshold(thresholds[0], thresholds[1], 1 << 30)  # every object; young garbage is still collected)
    try:
        with quiet_loading():
            lm = record.load(model_class, spec, device=device, batch_size=batch_size, settings=settings)
            counts = _count_loaded(lm, spec)
    except EvalError:
        raise
    except Exception as exc:  # transformers / hub / vllm load errors
        raise EvalError(f"model {spec.name!r}: cannot load {spec.model}: {first_line(exc)}") from None
    finally:
        gc.set_threshold(*thresholds)
    return lm, counts


@contextlib.contextmanager
def quiet_loading():
    """Hugging Face Hub's and transformers' progress bars off while a model loads: a failed load is then one line."""
    from huggingface_hub.utils import are_progress_bars_disabled, disable_progress_bars, enable_progress_bars
    from transformers.utils import logging as transformers_logging

    hub_was_off, transformers_was_on = are_progress_bars_disabled(), transformers_logging.is_progress_bar_enabled()
    disable_progress_bars()
    transformers_logging.disable_progress_bar()
    try:
        yield
    finally:
        if not hub_was_off:
            enable_progress_bars()
        if transformers_was_on:
            transformers_logging.enable_progress_bar()


def _count_loaded(lm: Any, spec: ModelSpec) -> ParameterCounts:
    """The parameter counts of a loaded lm-eval model: its torch module's, else its config's, else the models file's."""
    import torch

    module = getattr(lm, "model", None)
    if isinstance(module, torch.nn.Module):
        return count_parameters(module)
    try:  # the model built on the meta device from its config: shapes without weights
        from transformers import AutoConfig, AutoModelForCausalLM

        extra = {"gguf_file": spec.gguf_file} if spec.gguf_file is not None else {}
        config = AutoConfig.from_pretrained(
            spec.model_directory(), revision=spec.revision, trust_remote_code=spec.trust_remote_code, **extra
        )
        with torch.device("meta"):
            model = AutoModelForCausalLM.from_config(config, trust_remote_code=spec.trust_remote_code)
        return count_parameters(model)
    except Exception as exc:  # no config to read: the models file's counts, where it gives them
        if spec.params is None:
            raise EvalError(
                f"model {spec.name!r}: the backend holds no torch module and {spec.model} has no config to "
                f"count parameters from ({first_line(exc)}); give params in the models file"
            ) from None
        non_embedding = spec.non_embedding_params if spec.non_embedding_params is not None else math.nan
        return ParameterCounts(float(spec.params), float(non_embedding), float(spec.params))


def registered_model(name: str) -> type:
    """lm-eval's model class registered as ``name``, densing's backends among them."""
    backends.ensure_registered()
    from lm_eval.api.registry import get_model

    try:
        return get_model(name)
    except (ValueError, ImportError) as exc:
        raise EvalError(f"backend {name!r}: {first_line(exc)}") from None
