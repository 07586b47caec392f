"""``densing-hf``: lm-eval's HF backend with densing's prefix engine (:mod:`densing.eval.backends.prefix`), registered
here with lm-eval's model registry and in :data:`densing.eval.backends.BACKENDS`. Its numbers are ``hf``'s (to float
rounding), so the store key and the rows' ``backend`` column record it as ``hf`` with the prefix cache.
"""

from __future__ import annotations

from typing import Any

from lm_eval.api.registry import register_model

from densing.eval.backends import BACKENDS
from densing.eval.backends.hf import HFBackend
from densing.eval.backends.prefix.lm import PrefixCachedHFLM

#: the name lm-eval's registry (``--model``) and ``densing eval --backend`` know the prefix engine by
NAME = "densing-hf"


class PrefixBackend(HFBackend):
    """``densing-hf``'s record: an HF backend that takes the engine's settings, shards and a time limit."""

    engine = True
    prefix_cache_of = "hf"

    def key(self) -> dict[str, Any]:
        return {"backend": self.prefix_cache_of, "prefix_cache": True}  # the key of hf with the prefix cache


register_model(NAME)(PrefixCachedHFLM)
BACKENDS.register(NAME, PrefixBackend(NAME))
