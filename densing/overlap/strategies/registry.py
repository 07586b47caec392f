"""The overlap strategies densing knows: one module each, one line here.

To add a strategy, write ``densing/overlap/strategies/<name>.py`` defining its functions and a ``STRATEGY =
Strategy(...)`` (:mod:`.base`), and add it to ``_BUILT_IN`` below — the trainer, the what-if model, the validation and
the command line iterate over this registry. :func:`register` adds one at run time (a plug-in, or a test).
"""

from __future__ import annotations

import math

from densing.errors import InputError, RegistryError
from densing.overlap.strategies import co2, ddp, sync, t3, tp
from densing.overlap.strategies.base import CAPABILITIES, Strategy, WhatIfPoint
from densing.registry import Registry, check_callable, check_type
from densing.validation import comma_items

_BUILT_IN = (sync.STRATEGY, ddp.STRATEGY, co2.STRATEGY, t3.STRATEGY, tp.STRATEGY)


def _check_strategy(registry: Registry, name: str, strategy) -> None:
    """A strategy is a :class:`Strategy` whose models take what their callers give and whose what-if step time at a
    probe point (a 0.1 s step on 8 workers, 100 MB over 100 Gb/s) is a finite number ≥ 0."""
    check_type(registry, name, strategy, Strategy)
    for field, arity in (("step_time_s", 1), ("predict_run_s", 3), ("training", 1)):
        check_callable(registry, name, field, getattr(strategy, field), arity, optional=True)
    if strategy.step_time_s is not None:
        probe = WhatIfPoint(
            compute_s=0.1, workers=8, message_bytes=1e8, bandwidth_bytes_per_s=1.25e10, latency_s=1e-5, allreduce_s=0.02
        )
        try:
            step = float(strategy.step_time_s(probe))
        except (TypeError, ValueError, ArithmeticError, AttributeError) as exc:
            raise RegistryError(f"strategy {name!r}: field 'step_time_s' fails on a probe point ({exc})") from None
        if not (math.isfinite(step) and step >= 0):
            raise RegistryError(
                f"strategy {name!r}: field 'step_time_s': {step!r} s at a probe point; expected a finite step time ≥ 0"
            )


_REGISTRY: Registry[Strategy] = Registry("strategy", ((s.name, s) for s in _BUILT_IN), check=_check_strategy)


def register(strategy: Strategy) -> Strategy:
    """Add ``strategy`` (a name not yet taken: else a :class:`densing.errors.RegistryError`); returns it."""
    return _REGISTRY.register(strategy.name, strategy)


def unregister(name: str) -> None:
    """Remove the strategy ``name`` (nothing if there is none)."""
    _REGISTRY.unregister(name)


def names(capability: str | None = None) -> tuple[str, ...]:
    """The registered strategies' names (those that have ``capability``), in registration order."""
    if capability is not None and capability not in CAPABILITIES:
        raise InputError(f"capability: expected one of {', '.join(CAPABILITIES)}, got {capability!r}")
    return tuple(n for n, s in _REGISTRY.items() if capability is None or s.can(capability))


def get(name: str, capability: str | None = None) -> Strategy:
    """The strategy called ``name`` (with ``capability``); else an InputError naming the known ones."""
    if capability is None:
        return _REGISTRY.get(name)
    known = names(capability)
    if name not in known:
        what = " with training hooks" if capability == "training" else f" with a {capability} model"
        raise _REGISTRY.unknown(name, known, what)
    return _REGISTRY[name]


def parse(text: str, capability: str) -> list[Strategy]:
    """The strategies of a comma-separated list (``all``: every one with ``capability``)."""
    wanted = comma_items(text, "strategy")
    if wanted == ["all"]:
        wanted = list(names(capability))
    return [get(name, capability) for name in wanted]


def strategy_rows() -> list[dict]:
    """One row per registered strategy: name, summary and whether it has each capability."""
    return [
        {"strategy": s.name, **{c: s.can(c) for c in CAPABILITIES}, "summary": s.summary} for s in _REGISTRY.values()
    ]
