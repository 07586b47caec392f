"""An lm-eval model whose weights load on its first request (:class:`LoadsOnFirstRequest`), so that a cold ``densing
eval`` builds its first pair's requests and says the first of them before it loads the model (docs/evaluation.md,
"Before the first request").

lm-eval's ``evaluate`` asks a model three things before it hands it requests: its rank, its number of processes (to
share the documents out) and whether it reads images (``MULTIMODAL``); the request cache (``CachingLM``) gives it a
cache hook. Then every task's requests are built, and only then handed to the model's request methods
(``loglikelihood``, ``loglikelihood_rolling``, ``generate_until``). Building a request without a chat template needs
nothing of the model. :class:`LoadsOnFirstRequest` answers those questions itself (rank 0 of one process, the model
class's ``MULTIMODAL``), keeps the cache hook for the model, and loads the model on its first request, or on the first
question it cannot answer itself: every other attribute is the loaded model's. A sweep makes one in a single process
only (:func:`densing.eval.runner.run_sweep`): in a run of several processes (``WORLD_SIZE`` > 1) the rank is the
loaded model's to say, and it loads at once.

The load leaves Python's, numpy's and torch's random generators as it found them (:func:`random_states_kept`):
lm-eval seeds them before it builds the requests, and a model loaded after the seeding must not move them.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lm_eval.api.model import LM

from densing.errors import EvalError
from densing.eval.loading import ParameterCounts

#: The model's methods that lm-eval hands requests to.
REQUEST_METHODS = ("loglikelihood", "loglikelihood_rolling", "generate_until")


@dataclass(frozen=True)
class HandedRequests:
    """One call of a request method: its name, how many requests it was handed, and the first request's strings (its
    context or text, and the continuation whose likelihood is asked where there is one)."""

    request_type: str
    count: int
    context: str
    continuation: str | None

    @classmethod
    def of(cls, request_type: str, requests: list[Any]) -> HandedRequests:
        """The call of ``request_type`` with lm-eval's ``requests`` (``Instance`` objects; ``args`` are (context,
        continuation) for a log-likelihood, (context, generation settings) for a generation, (text,) for a rolling
        log-likelihood)."""
        arguments = requests[0].args
        continuation = arguments[1] if request_type == "loglikelihood" else None
        return cls(request_type, len(requests), str(arguments[0]), continuation)


def ignore_event(event: str, handed: HandedRequests | None) -> None:
    """The events of a model nobody listens to."""


@contextlib.contextmanager
def random_states_kept():
    """Python's, numpy's and torch's (CPU) random generators restored on leaving to their state on entering."""
    import numpy as np
    import torch

    python_state, numpy_state, torch_state = random.getstate(), np.random.get_state(), torch.random.get_rng_state()
    try:
        yield
    finally:
        random.setstate(python_state)
        np.random.set_state(numpy_state)
        torch.random.set_rng_state(torch_state)


class LoadsOnFirstRequest(LM):
    """An lm-eval model that ``load()`` makes on its first request (module docstring): ``load`` returns (the lm-eval
    model, its parameter counts); ``model_class`` is the class it will be (its ``MULTIMODAL``; the request cache's key,
    :func:`densing.eval.runner.decoding_identity`).

    ``on_event(event, handed)`` is told ``"requests"`` with each call of a request method (:class:`HandedRequests`),
    before the call loads the model, then ``"loading"`` and ``"loaded"`` around the load (``handed`` None)."""

    def __init__(self, load: Callable[[], tuple[Any, ParameterCounts]], model_class: type) -> None:
        super().__init__()  # rank 0 of one process; a cache hook that keeps nothing until the request cache's
        self._load = load
        self._loaded: tuple[Any, ParameterCounts] | None = None
        self._answered_for_it = False  # whether rank or world_size was answered before the load
        self.model_class = model_class
        self.MULTIMODAL = bool(getattr(model_class, "MULTIMODAL", False))
        self.on_event: Callable[[str, HandedRequests | None], None] = ignore_event

    @property
    def lm(self) -> Any:
        """The loaded lm-eval model (loaded now where it is not yet; the name is lm-eval's ``CachingLM.lm``)."""
        return self._load_once()[0]

    @property
    def counts(self) -> ParameterCounts:
        """The loaded model's parameter counts (loaded now where it is not yet)."""
        return self._load_once()[1]

    def load_now(self) -> None:
        """Load the model before anything is asked of it (a run of several processes: the rank is the model's)."""
        self._load_once()

    def _load_once(self) -> tuple[Any, ParameterCounts]:
        """(the model, its counts), loaded on the first call with the random generators kept; the cache hook handed
        on. Where rank 0 of one process was answered for it, a model that says otherwise is an EvalError."""
        if self._loaded is None:
            self.on_event("loading", None)
            with random_states_kept():
                model, counts = self._load()
            if self._answered_for_it and (model.rank, model.world_size) != (0, 1):
                raise EvalError(
                    f"the model loaded as rank {model.rank} of {model.world_size} processes after its "
                    "requests were built for one process; a run of several processes sets WORLD_SIZE"
                )
            model.set_cache_hook(self.cache_hook)
            self._loaded = (model, counts)
            self.on_event("loaded", None)
        return self._loaded

    def _handed(self, request_type: str, requests: list[Any]) -> Any:
        """The loaded model's ``request_type`` method, after ``on_event`` is told of the call."""
        if requests:
            self.on_event("requests", HandedRequests.of(request_type, requests))
        return getattr(self.lm, request_type)

    def loglikelihood(self, requests: list[Any], *args: Any, **kwargs: Any) -> list[tuple[float, bool]]:
        return self._handed("loglikelihood", requests)(requests, *args, **kwargs)

    def loglikelihood_rolling(self, requests: list[Any], *args: Any, **kwargs: Any) -> list[float]:
        return self._handed("loglikelihood_rolling", requests)(requests, *args, **kwargs)

    def generate_until(self, requests: list[Any], *args: Any, **kwargs: Any) -> list[str]:
        return self._handed("generate_until", requests)(requests, *args, **kwargs)

    def set_cache_hook(self, cache_hook: Any) -> None:
        """Keep lm-eval's cache hook for the model, and hand it on where the model is loaded."""
        self.cache_hook = cache_hook
        if self._loaded is not None:
            self._loaded[0].set_cache_hook(cache_hook)

    @property
    def rank(self) -> int:
        if self._loaded is not None:
            return self._loaded[0].rank
        self._answered_for_it = True
        return self._rank

    @property
    def world_size(self) -> int:
        if self._loaded is not None:
            return self._loaded[0].world_size
        self._answered_for_it = True
        return self._world_size

    # lm-eval's LM defines these; the loaded model's own are the answers
    @property
    def device(self) -> Any:
        return self.lm.device

    @property
    def tokenizer_name(self) -> str:
        return self.lm.tokenizer_name

    def chat_template(self, *args: Any, **kwargs: Any) -> Any:
        return self.lm.chat_template(*args, **kwargs)

    def apply_chat_template(self, *args: Any, **kwargs: Any) -> Any:
        return self.lm.apply_chat_template(*args, **kwargs)

    def all_gather(self, tensor: Any) -> Any:
        return self.lm.all_gather(tensor)

    def gather_object(self, obj: Any, dst: int = 0) -> Any:
        return self.lm.gather_object(obj, dst=dst)

    def barrier(self) -> None:
        self.lm.barrier()

    def __getattr__(self, name: str) -> Any:
        """Any other attribute: the loaded model's (Python's own probes, ``__name__``, are not handed on)."""
        if name.startswith("__") or name in ("_load", "_loaded", "_answered_for_it"):
            raise AttributeError(name)
        return getattr(self.lm, name)
