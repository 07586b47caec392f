"""lm-eval's ``hf`` backend (``HFLM``) as densing runs it: typed keyword arguments, not an argument string, and the
device chosen here when none is given (cuda where there is one, else the CPU)."""
from __future__ import annotations

from typing import Any

from densing.eval.backends import BACKENDS, Backend
from densing.eval.models import ModelSpec


def keyword_arguments(spec: ModelSpec, batch_size: int | str) -> dict[str, Any]:
    """What an HF-style lm-eval class is given for ``spec``: the model's location, dtype, ``trust_remote_code`` and
    batch size, the revision and GGUF file where set, then the models file's own ``model_args``."""
    arguments: dict[str, Any] = {
        "pretrained": spec.model_directory(),
        "dtype": spec.dtype,
        "trust_remote_code": spec.trust_remote_code,
        "batch_size": batch_size,
    }
    if spec.revision:
        arguments["revision"] = spec.revision
    if spec.gguf_file is not None:
        arguments["gguf_file"] = spec.gguf_file
    return arguments


class HFBackend(Backend):
    """lm-eval's ``HFLM`` (and a subclass of it): made from keyword arguments on ``device`` (default cuda where
    there is one, else the CPU)."""

    def load(self, model_class: type, spec: ModelSpec, *, device: str | None, batch_size: int | str,
             settings: Any = None) -> Any:
        import torch

        arguments = {**keyword_arguments(spec, batch_size), **dict(spec.model_args)}
        arguments["device"] = device or ("cuda" if torch.cuda.is_available() else "cpu")
        if settings is not None:
            arguments["settings"] = settings
        return model_class(**arguments)


#: lm-eval's names of ``HFLM``
for _name in ("hf", "hf-auto", "huggingface"):
    BACKENDS.register(_name, HFBackend(_name))
