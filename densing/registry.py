"""One registry of named things: the shape every extension point of densing shares.

A :class:`Registry` maps names to items in registration order (``register``, ``get``, ``unregister``:
docs/extending.md, "The registry every extension point shares"). A registry made with ``check`` runs it on each new
``(name, item)`` first (:func:`check_type`, :func:`check_callable`, :func:`check_range`); a bad registration is a
:class:`densing.errors.RegistryError` naming the registry, the name, the field and what was expected, and leaves the
registry unchanged. It is a mutable mapping: ``registry[name] = item`` sets an entry without the duplicate check (what
``monkeypatch.setitem`` needs to put an entry back), and ``register`` is the checked way in. The frontier rules
(:data:`densing.trend.rules.RULES`), the target tables (:data:`TABLES`), the overlap strategies
(:mod:`densing.overlap.strategies.registry`), the reference-data formats (:data:`densing.data.formats.FORMATS`), the
benchmark records (:data:`densing.data.benchmarks.BENCHMARKS`), the runs ``densing eval`` reads from them
(:data:`densing.eval.benchmarks.KNOWN_BENCHMARKS`) and densing's records of evaluation backends
(:data:`densing.eval.backends.BACKENDS`, keyed by lm-eval's model names) and the second designs (:data:`DESIGNS`,
the folders of ``densing/designs``: :func:`designs`) are registries.

**The target tables** a density trend is measured on, each with its benchmarks, sets and words: one record each.
A :class:`TrendTable` says what :func:`densing.trend.measure.measure_trend` needs to know of a table beyond its
rows: the benchmarks rule v3 may fit a reference family on, the benchmark sets inverted jointly (the first is the
headline's), the benchmarks and sets of the budget sensitivity, and how the verdict names it. A new table is one :func:`register_table` call.

- ``public``: ``results/public_models.csv`` (ObsScaling, Open LLM Leaderboard v1 and v2 scores).
- ``swallow``, ``swallow_2026``: the Swallow LLM Leaderboard's two protocols, registered by their design's folder
  (:mod:`densing.designs.swallow`); every lookup imports the designs first (:func:`designs`).

**Which table leads** (written before any trend on the Swallow tables was computed): the report's and ``densing
trend``'s headline stays the public table's, because the rest of the report (the density figure, the named models,
the checks, the OLMES comparison) is built on that measurement; the Swallow tables are measured through the same
engine and rule and shown beside it, row by row, with their agreement said, in the report's section "The paper's
protocol, 2023–2025". Of the two, the Swallow row is the one *closest to the paper's protocol* (its benchmarks in its
shots, chain of thought on BBH, MATH-500 of every level), and the report says so wherever the two disagree.
"""
from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from dataclasses import dataclass, field
from numbers import Integral, Real
from pathlib import Path
from typing import Any, Generic, TypeVar

from densing import paths
from densing.errors import InputError, RegistryError
from densing.validation import Interval

T = TypeVar("T")
_REQUIRED = object()


class Registry(MutableMapping[str, T], Generic[T]):
    """Named items in registration order. ``what`` names the registry in its errors (``"frontier"``,
    ``"--table"``); ``items``: ``(name, item)`` pairs registered at once; ``check(registry, name, item)``: what an item
    must be, run before it is added (a RegistryError refuses it)."""

    def __init__(self, what: str, items: Iterable[tuple[str, T]] = (),
                 check: Callable[["Registry", str, Any], None] | None = None) -> None:
        self.what = what
        self.check = check
        self._items: dict[str, T] = {}
        for name, item in items:
            self.register(name, item)

    def register(self, name: str, item: T, *, first: bool = False) -> T:
        """Add ``item`` under ``name`` (a non-empty string not yet registered, an item passing the registry's
        ``check``) and return it; ``first``: ahead of the others (a registry tried in order, such as the data
        formats). A refused registration leaves the registry unchanged."""
        if not isinstance(name, str) or not name.strip():
            raise RegistryError(f"{self.what}: a name is a non-empty string, got {name!r}")
        if self.check is not None:
            self.check(self, name, item)
        if name in self._items:
            raise RegistryError(f"{self.what}: {name!r} is already registered")
        if first:
            self._items = {name: item, **self._items}
        else:
            self._items[name] = item
        return item

    def unregister(self, name: str) -> None:
        """Remove ``name`` (nothing if it is not registered)."""
        self._items.pop(name, None)

    def get(self, name: str, default=_REQUIRED):
        """The item registered as ``name``; an unknown name is an :class:`InputError` listing the known ones
        (with ``default``, as ``dict.get``: the default instead of the error)."""
        try:
            return self._items[name]
        except (KeyError, TypeError):
            if default is not _REQUIRED:
                return default
            raise self.unknown(name) from None

    def unknown(self, name, known: Iterable[str] | None = None, note: str = "") -> InputError:
        """The error of an unknown ``name``: ``"<what>: expected one of <known><note>, got <name>"`` (``known``:
        default every registered name)."""
        listed = ", ".join(self._items if known is None else known)
        return InputError(f"{self.what}: expected one of {listed}{note}, got {name!r}")

    def names(self) -> tuple[str, ...]:
        """The registered names, in registration order."""
        return tuple(self._items)

    def __getitem__(self, name: str) -> T:
        return self._items[name]

    def __setitem__(self, name: str, item: T) -> None:
        self._items[name] = item

    def __delitem__(self, name: str) -> None:
        del self._items[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Registry({self.what!r}, names={list(self._items)!r})"


def check_type(registry: Registry, name: str, item: Any, kind: type) -> None:
    """A RegistryError unless ``item`` is a ``kind``."""
    if not isinstance(item, kind):
        raise RegistryError(f"{registry.what} {name!r}: expected a {kind.__name__}, got {type(item).__name__}")


def check_callable(registry: Registry, name: str, field: str, value: Any, n_args: int, *, optional: bool = False
                   ) -> None:
    """A RegistryError unless ``value`` (``field`` of the item) is a callable that takes ``n_args`` positional
    arguments (:func:`inspect.signature`); ``optional``: None is allowed."""
    if value is None and optional:
        return
    if not callable(value):
        raise RegistryError(f"{registry.what} {name!r}: field {field!r}: expected a callable of {n_args} argument(s), "
                            f"got {value!r}")
    try:
        inspect.signature(value).bind(*([None] * n_args))
    except TypeError:
        raise RegistryError(f"{registry.what} {name!r}: field {field!r}: {getattr(value, '__name__', value)!r} does not "
                            f"take {n_args} positional argument(s) (signature {inspect.signature(value)})") from None
    except ValueError:  # a builtin without a signature: nothing to check
        return


def check_range(registry: Registry, name: str, field: str, value: Any, low: float | None, high: float | None, *,
                closed: str = "both", integer: bool = False, optional: bool = True) -> None:
    """A RegistryError unless ``value`` (``field`` of the item) is a finite number (an integer with ``integer``) in the
    interval from ``low`` to ``high`` (``closed``: ``"both"``, ``"left"``, ``"right"``, ``"neither"``; None: open)."""
    if value is None and optional:
        return
    interval = Interval(Integral if integer else Real, low, high, closed)
    if not interval.matches(value):  # never NaN nor ±∞
        raise RegistryError(f"{registry.what} {name!r}: field {field!r}: expected {interval}, got {value!r}")


@dataclass(frozen=True)
class SecondDesign:
    """A second measurement design, one folder of ``densing/designs`` that registers itself (:func:`designs`):
    ``help`` its words; ``run(options)`` (None: no ``--design`` of its own, as a design of target tables found by
    ``--table``) prints ``densing trend --design NAME`` from the command's options (a mapping: results, fit, d0, since,
    epoch, n_boot, seed, fmt, wide, detail); for the report, ``side(inputs) -> (function, arguments)`` the computation
    run beside the headline (in a worker of its own; None: none), ``section(result, rows, paper_months)`` the section's
    data (None: no section) from that result (None without a side computation), the public table's rows and the
    paper's doubling time, and ``render(section)`` its part of the page; ``rank``: its section's place among the
    designs' sections (lower first)."""

    name: str
    help: str
    run: Callable | None
    side: Callable | None = None
    section: Callable | None = None
    render: Callable | None = None
    rank: int = 100
    #: ``line()``: one line ``densing trend`` prints beside the public table's headline (a stored record's verdict in
    #: short; None: none)
    line: Callable | None = None


def _check_design(registry: Registry, name: str, item: Any) -> None:
    check_type(registry, name, item, SecondDesign)
    for step, count in (("run", 1), ("side", 1), ("section", 3), ("render", 1), ("line", 0)):
        check_callable(registry, name, step, getattr(item, step), count, optional=True)


#: The registered second designs, by name (``densing trend --design NAME``, the report's sections beside the rows).
DESIGNS: Registry[SecondDesign] = Registry("--design", check=_check_design)


def lazy(module: str, attribute: str, count: int) -> Callable:
    """A function of ``count`` positional arguments that imports ``module`` when first called and calls its
    ``attribute`` with them: how a design registers its steps without loading them (the registry checks the count)."""
    def call(*args):
        return getattr(importlib.import_module(module), attribute)(*args)

    call.__name__ = attribute
    call.__signature__ = inspect.Signature([inspect.Parameter(f"arg{i}", inspect.Parameter.POSITIONAL_ONLY)
                                            for i in range(count)])
    return call


@functools.cache
def designs() -> Registry[SecondDesign]:
    """:data:`DESIGNS` once every folder of ``densing/designs`` is imported (each registers itself there, on the first
    call): removing a design's folder removes the design from the command line and the report."""
    package = importlib.import_module("densing.designs")
    for found in pkgutil.iter_modules(package.__path__):
        if found.ispkg:
            importlib.import_module(f"densing.designs.{found.name}")
    return DESIGNS


# --------------------------------------------------------------------------------------------------------------------
# The target tables (module docstring)
# --------------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TrendTable:
    """One target table's benchmarks and words (module docstring)."""

    name: str
    path: Path
    words: str                                   # how a verdict names the table: "the public table"
    candidates: tuple[str, ...]                  # benchmarks rule v3 may fit a family on
    sets: dict[str, tuple[str, tuple[str, ...]]]  # name → (label, benchmarks); the first is the headline's
    budget_benchmarks: tuple[str, ...] = ()
    budget_sets: tuple[str, ...] = ()
    paper_mapping: dict[str, str] = field(default_factory=dict)  # the paper's benchmark → what stands for it here
    #: the forecast check's cutoff (an ISO date): ``densing trend --table NAME --by benchmark`` then measures the table
    #: with its forecast check (:func:`densing.trend.protocol.measure_table`); None: no forecast check
    cutoff: str | None = None

    @property
    def headline_set(self) -> str:
        return next(iter(self.sets))


#: The registered target tables, by name (a :class:`densing.registry.Registry`).
TABLES: Registry[TrendTable] = Registry("--table", check=lambda registry, name, table: check_type(registry, name, table,
                                                                                                 TrendTable))


def register_table(table: TrendTable) -> TrendTable:
    """Add ``table`` to :data:`TABLES` (its name must be new: else a :class:`densing.errors.RegistryError`)."""
    return TABLES.register(table.name, table)


def tables() -> Registry[TrendTable]:
    """:data:`TABLES` with every design's tables registered (:func:`densing.registry.designs` imports them)."""
    designs()
    return TABLES


def table(name: str | TrendTable) -> TrendTable:
    """The registered table ``name`` (a :class:`TrendTable` is returned as it is); an unknown name is an InputError."""
    if isinstance(name, TrendTable):
        return name
    return tables().get(name)


def table_for_path(path: str | Path | None) -> TrendTable:
    """The registered table whose file is ``path`` (the public table's profile for any other file: a table of the
    public table's benchmarks, as ``--results`` has always taken)."""
    if path is not None:
        resolved = Path(path).resolve()
        for found in tables().values():
            if found.path.resolve() == resolved:
                return found
    return TABLES["public"]


register_table(TrendTable(
    "public", paths.RESULTS / "public_models.csv", "the public table",
    candidates=("mmlu", "arc_challenge", "hellaswag", "winogrande", "gsm8k", "humaneval",
                "leaderboard_bbh", "math_hard", "mmlu_pro", "gpqa", "musr"),
    sets={
        "paper": ("paper-like set (MMLU, BBH, MATH-hard, HumanEval)", ("mmlu", "leaderboard_bbh", "math_hard", "humaneval")),
        "paper_gsm8k": ("paper-like set with GSM8K for MATH", ("mmlu", "leaderboard_bbh", "gsm8k", "humaneval")),
        "knowledge_commonsense": ("knowledge & commonsense set (MMLU, HellaSwag, WinoGrande; rule v2's headline set)",
                                  ("mmlu", "hellaswag", "winogrande")),
        "v2_native": ("v2-native set (MMLU-Pro, BBH, MATH-hard; on this table a finding, seen after its headline)",
                      ("mmlu_pro", "leaderboard_bbh", "math_hard")),
    },
    budget_benchmarks=("mmlu", "leaderboard_bbh", "math_hard", "humaneval", "gsm8k"),
    budget_sets=("paper", "paper_gsm8k"),
    paper_mapping={
        "MMLU": "mmlu (Open LLM Leaderboard v1, 5-shot)",
        "BBH": "leaderboard_bbh (leaderboard v2, multiple-choice BBH, 72 models)",
        "MATH": "math_hard (leaderboard v2: MATH level 5 only, 72 models); gsm8k in the variant",
        "HumanEval": "humaneval (pass@1, 127 models)",
        "MBPP": "missing: not in the table",
    },
))
