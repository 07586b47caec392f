"""lm-eval's ``hf`` backend (``HFLM``) as densing runs it: typed keyword arguments, not an argument string, and the
device chosen here when none is given (cuda where there is one, else the CPU)."""

from __future__ import annotations

from typing import Any

from densing.eval.backends import BACKENDS, Backend, keyword_arguments
from densing.eval.models import ModelSpec


class HFBackend(Backend):
    """lm-eval's ``HFLM`` (and a subclass of it), made from keyword arguments (module docstring)."""

    def load(
        self, model_class: type, spec: ModelSpec, *, device: str | None, batch_size: int | str, settings: Any = None
    ) -> Any:
        import torch

        arguments = keyword_arguments(spec, batch_size)
        arguments["device"] = device or ("cuda" if torch.cuda.is_available() else "cpu")
        if settings is not None:
            arguments["settings"] = settings
        return model_class(**arguments)


#: lm-eval's names of ``HFLM``
for _name in ("hf", "hf-auto", "huggingface"):
    BACKENDS.register(_name, HFBackend(_name))
