"""lm-eval's ``vllm`` backend as densing runs it: keyword arguments, batches vLLM schedules itself, no GGUF files,
and each model in a process of its own (:mod:`densing.eval.isolated`)."""

from __future__ import annotations

from typing import Any

from densing.errors import InputError
from densing.eval.backends import BACKENDS, Backend, keyword_arguments
from densing.eval.models import ModelSpec


class VLLMBackend(Backend):
    """lm-eval's ``VLLM``: vLLM chooses the device and schedules its own batches."""

    isolate = True

    def check(self, spec: ModelSpec) -> None:
        if spec.gguf_file is not None:
            raise InputError(
                f"model {spec.name!r}: gguf_file: the {self.name} backend is not given GGUF files here "
                "(lm-eval's VLLM would pass it on as an unknown argument); give the model's directory, or "
                "use --backend hf"
            )

    def load(
        self, model_class: type, spec: ModelSpec, *, device: str | None, batch_size: int | str, settings: Any = None
    ) -> Any:
        # one prompt at a time would waste the GPU: vLLM schedules its own batches
        return model_class(**keyword_arguments(spec, "auto" if batch_size == 1 else batch_size))


BACKENDS.register("vllm", VLLMBackend("vllm"))
