"""Evaluation backends: any model in lm-eval's model registry, and what densing does with one.

``densing eval --backend NAME`` takes every name registered with lm-eval, lm-eval's own and those the modules of this
package register (:func:`ensure_registered`); what densing does with one is its :class:`Backend` record in
:data:`BACKENDS` (docs/extending.md, "An evaluation backend").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from densing.errors import EvalError, InputError
from densing.registry import Registry, check_type
from densing.validation import validate

if TYPE_CHECKING:
    from densing.eval.models import ModelSpec


class Backend:
    """What densing does with the lm-eval model registered as ``name``; the defaults suit any lm-eval model, and
    subclasses override what differs (:mod:`.hf`, :mod:`.vllm`, :mod:`.densing_hf`)."""

    #: each model in a process of its own by default (``run_sweep(isolate=None)``)
    isolate: bool = False
    #: densing's prefix engine, which takes ``settings``, ``shard`` and ``time_limit``
    engine: bool = False
    #: the backend that the deprecated ``prefix_cache=True`` on it names this one instead
    prefix_cache_of: str | None = None

    def __init__(self, name: str) -> None:
        self.name = name

    def key(self) -> dict[str, Any]:
        """The store key's entries for this backend (``backend`` also fills the rows' ``backend`` column)."""
        return {"backend": self.name}

    @property
    def recorded_as(self) -> str:
        """The backend's name in the store key and in the rows' ``backend`` column."""
        return str(self.key()["backend"])

    def check(self, spec: ModelSpec) -> None:
        """Raise :class:`InputError` for a model this backend is not given (checked before any work)."""

    def load(
        self, model_class: type, spec: ModelSpec, *, device: str | None, batch_size: int | str, settings: Any = None
    ) -> Any:
        """The lm-eval model of ``spec``, made as lm-eval's command line makes it: its ``--model_args`` are
        :func:`keyword_arguments` but the batch size and a false ``trust_remote_code``."""
        arguments = {
            k: v for k, v in keyword_arguments(spec, 0).items() if k != "batch_size" and (k != "trust_remote_code" or v)
        }
        return model_class.create_from_arg_string(
            ",".join(f"{k}={v}" for k, v in arguments.items()), {"batch_size": batch_size, "device": device}
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def keyword_arguments(spec: ModelSpec, batch_size: int | str) -> dict[str, Any]:
    """What an HF-style lm-eval class is given for ``spec``, the models file's own ``model_args`` last."""
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
    return {**arguments, **dict(spec.model_args)}


#: densing's records of backends, by their name in lm-eval's model registry (a name without one gets :class:`Backend`).
BACKENDS: Registry[Backend] = Registry(
    "backend", check=lambda registry, name, backend: check_type(registry, name, backend, Backend)
)

_registered = False


def ensure_registered() -> None:
    """Register lm-eval's own models, then each module of this package (once)."""
    global _registered
    if _registered:
        return
    from densing.eval.harness import require_lm_eval

    require_lm_eval()
    import importlib
    import pkgutil

    import lm_eval.models  # noqa: F401  (registers lm-eval's own names; get_model does so only into an empty registry)

    for module in pkgutil.iter_modules(__path__):
        if not module.name.startswith("_"):
            try:
                importlib.import_module(f"{__name__}.{module.name}")
            except ImportError as exc:  # a backend module whose own dependency is missing: one line naming both
                raise EvalError(f"backend module {__name__}.{module.name}: cannot import it: {exc}") from None
    _registered = True


def lm_eval_names() -> tuple[str, ...]:
    """Every name in lm-eval's model registry, densing's backends among them, sorted."""
    ensure_registered()
    from lm_eval.api.registry import MODEL_REGISTRY

    return tuple(sorted(MODEL_REGISTRY))


def get(name: str) -> Backend:
    """The record of backend ``name`` (else the default :class:`Backend`); a name lm-eval lacks is an InputError."""
    validate({"backend": [BackendName()]}, backend=name)
    return BACKENDS.get(name, None) or Backend(name)


def with_prefix_cache(backend: str, prefix_cache: bool) -> str:
    """The backend that ``prefix_cache=True`` (deprecated; ``--prefix-cache``) on ``backend`` names (the engine whose
    :attr:`Backend.prefix_cache_of` it is: ``hf`` → ``densing-hf``); ``backend`` itself without it."""
    if not prefix_cache:
        return backend
    ensure_registered()
    for name, record in BACKENDS.items():
        if backend in (name, record.prefix_cache_of) and record.engine:
            return name
    of = ", ".join(record.prefix_cache_of for record in BACKENDS.values() if record.engine and record.prefix_cache_of)
    raise InputError(f"prefix_cache: only the {of} backend has it, not {backend!r}")


def engine_names() -> str:
    """The backends with densing's prefix engine (settings, shards, a time limit), in words."""
    ensure_registered()
    return " or ".join(name for name, record in BACKENDS.items() if record.engine)


def check_settings(record: Backend, settings: Any) -> None:
    """An InputError when prefix-engine ``settings`` are given to a backend without the engine."""
    if settings is not None and not record.engine:
        raise InputError(f"settings: only the prefix engine ({engine_names()}) takes them, not {record.name!r}")


class BackendName:
    """A constraint of :func:`densing.validation.validate`: a name in lm-eval's model registry, read when checked."""

    def matches(self, value: Any) -> bool:
        return isinstance(value, str) and value in lm_eval_names()

    def __str__(self) -> str:
        return f"one of {', '.join(lm_eval_names())} (lm-eval's model registry)"
