"""One registry of named things: the shape every extension point of densing shares (docs/extending.md, "The registry
every extension point shares"): the designs (:class:`Design`), the target tables they register (:class:`TrendTable`),
and :func:`resolve_table`, the one way from a ``--results`` path or a ``--table`` name to the table measured.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from dataclasses import dataclass, field
from numbers import Integral, Real
from pathlib import Path
from typing import Any, Generic, NamedTuple, TypeVar

from densing.errors import InputError, RegistryError
from densing.validation import Interval, as_path

T = TypeVar("T")
_REQUIRED = object()


#: The packages :func:`discover` has imported the subpackages of (or is importing them now).
_DISCOVERED: set[str] = set()


def discover(package: str) -> None:
    """Import every submodule and subpackage of ``package`` (a dotted name), once per process: each registers what it
    holds when it is imported. A file or folder that is not there is not found, so removing one removes what it
    registered."""
    if package in _DISCOVERED:
        return
    _DISCOVERED.add(package)  # first: a subpackage that reads a registry while it is imported finds it in progress
    try:
        root = importlib.import_module(package)
        for found in pkgutil.iter_modules(root.__path__):
            importlib.import_module(f"{package}.{found.name}")
    except BaseException:
        _DISCOVERED.discard(package)
        raise


class UnknownName(InputError, KeyError):
    """A name no registry holds (or no name at all): one line, as an InputError, and the KeyError a mapping raises."""

    __str__ = InputError.__str__


class Registry(MutableMapping[str, T], Generic[T]):
    """Named items in registration order. ``what`` names the registry in its errors (``"--table"``); ``items``:
    ``(name, item)`` pairs registered at once; ``check(registry, name, item)``: run before an item is added (a
    RegistryError refuses it); ``found_in``: the package whose subpackages register the items (:func:`discover`).
    ``registry[name] = item`` sets an entry unchecked (``monkeypatch.setitem``); :meth:`register` is the checked way."""

    found_in: str | None = None  # a subclass that sets its own items needs none

    def __init__(
        self,
        what: str,
        items: Iterable[tuple[str, T]] = (),
        check: Callable[[Registry, str, Any], None] | None = None,
        found_in: str | None = None,
    ) -> None:
        self.what, self.check, self.found_in = what, check, found_in
        self._items: dict[str, T] = {}
        for name, item in items:
            self.register(name, item)

    @property
    def _found(self) -> dict[str, T]:
        """The items, once the subpackages of ``found_in`` have registered theirs."""
        if self.found_in is not None:
            discover(self.found_in)
        return self._items

    def register(self, name: str, item: T, *, first: bool = False) -> T:
        """Add ``item`` under ``name`` (new, passing ``check``) and return it; ``first``: ahead of the others."""
        if not isinstance(name, str) or not name.strip():
            raise RegistryError(f"{self.what}: a name is a non-empty string, got {name!r}")
        if self.check is not None:
            self.check(self, name, item)
        if name in self._found:
            raise RegistryError(f"{self.what}: {name!r} is already registered")
        self._items = {name: item, **self._items} if first else {**self._items, name: item}
        return item

    def unregister(self, name: str) -> None:
        """Remove ``name`` (nothing if it is not registered)."""
        if name in self:
            del self._found[name]

    def get(self, name: str, default=_REQUIRED):
        """The item registered as ``name``; an unknown one is ``default`` where given, else :meth:`unknown`'s error."""
        return self[name] if default is _REQUIRED or name in self else default

    def unknown(self, name, known: Iterable[str] | None = None, note: str = "") -> InputError:
        """The error of an unknown ``name``: ``"<what>: expected one of <known><note>, got <name>"``."""
        listed = ", ".join(self._found if known is None else known)
        return UnknownName(f"{self.what}: expected one of {listed}{note}, got {name!r}")

    def names(self) -> tuple[str, ...]:
        """The registered names, in registration order."""
        return tuple(self._found)

    def __getitem__(self, name: str) -> T:
        try:
            return self._found[name]
        except (KeyError, TypeError):  # a name not registered, or no name (a list, None): one line
            raise self.unknown(name) from None

    def __setitem__(self, name: str, item: T) -> None:
        self._found[name] = item

    def __delitem__(self, name: str) -> None:
        del self._found[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._found)

    def __len__(self) -> int:
        return len(self._found)

    def __repr__(self) -> str:
        return f"Registry({self.what!r}, names={list(self._items)!r})"


def check_type(registry: Registry, name: str | None, item: Any, kind: type) -> None:
    """A RegistryError unless ``item`` is a ``kind`` (``name``: its name, where it has one)."""
    if not isinstance(item, kind):
        raise RegistryError(
            f"{registry.what}{'' if name is None else f' {name!r}'}: expected a {kind.__name__}, "
            f"got {type(item).__name__}"
        )


def check_callable(
    registry: Registry, name: str, field: str, value: Any, n_args: int, *, optional: bool = False
) -> None:
    """A RegistryError unless ``value`` (``field`` of the item) is a callable that takes ``n_args`` positional
    arguments (:func:`inspect.signature`); ``optional``: None is allowed."""
    if value is None and optional:
        return
    if not callable(value):
        raise RegistryError(
            f"{registry.what} {name!r}: field {field!r}: expected a callable of {n_args} argument(s), got {value!r}"
        )
    try:
        inspect.signature(value).bind(*([None] * n_args))
    except TypeError:
        raise RegistryError(
            f"{registry.what} {name!r}: field {field!r}: {getattr(value, '__name__', value)!r} does not "
            f"take {n_args} positional argument(s) (signature {inspect.signature(value)})"
        ) from None
    except ValueError:  # a builtin without a signature: nothing to check
        return


def check_range(
    registry: Registry,
    name: str,
    field: str,
    value: Any,
    low: float | None,
    high: float | None,
    *,
    closed: str = "both",
    integer: bool = False,
    optional: bool = True,
) -> None:
    """A RegistryError unless ``value`` (``field`` of the item) is a finite number (an integer with ``integer``) in the
    interval from ``low`` to ``high`` (``closed``: ``"both"``, ``"left"``, ``"right"``, ``"neither"``; None: open)."""
    if value is None and optional:
        return
    interval = Interval(Integral if integer else Real, low, high, closed)
    if not interval.matches(value):  # never NaN nor ±∞
        raise RegistryError(f"{registry.what} {name!r}: field {field!r}: expected {interval}, got {value!r}")


#: The package whose folders are the measurement designs (:data:`DESIGNS`, :data:`TABLES`): each folder's
#: ``__init__`` registers its design and its tables when :func:`discover` imports it.
DESIGN_PACKAGE = "densing.designs"


@dataclass(frozen=True)
class Design:
    """A measurement design, one folder of :data:`DESIGN_PACKAGE`: ``help`` its words; ``side(inputs) -> (function,
    arguments)`` its computation, run beside the report's headline in a worker (None: none). What a design shows is
    registered by the layers above it under the design's name: its report section in :data:`densing.report.designs.SECTIONS`,
    its terminal printing in :data:`densing.cli.designs.PRINTERS`."""

    name: str
    help: str
    side: Callable | None = None


def _check_design(registry: Registry, name: str, item: Any) -> None:
    check_type(registry, name, item, Design)
    check_callable(registry, name, "side", item.side, 1, optional=True)


#: The registered designs, by name (``densing trend --design NAME``, the report's sections beside the rows).
DESIGNS: Registry[Design] = Registry("--design", check=_check_design, found_in=DESIGN_PACKAGE)


def lazy(module: str, attribute: str, count: int) -> Callable:
    """A function of ``count`` positional arguments that imports ``module`` and calls its ``attribute`` with them: a
    design's computation registered without loading it (the registry checks the count)."""

    def call(*args):
        return getattr(importlib.import_module(module), attribute)(*args)

    call.__name__ = attribute
    call.__signature__ = inspect.Signature(
        [inspect.Parameter(f"arg{i}", inspect.Parameter.POSITIONAL_ONLY) for i in range(count)]
    )
    return call


def designs() -> Registry[Design]:
    """:data:`DESIGNS`, every folder of :data:`DESIGN_PACKAGE` registered."""
    discover(DESIGN_PACKAGE)
    return DESIGNS


# -- The target tables (module docstring) ------------------------------------------------------------------------------


@dataclass(frozen=True)
class TrendTable:
    """One target table: its words, the benchmarks the reference rule may fit a family on, the sets inverted jointly,
    the benchmarks and sets of the budget sensitivity, the paper's benchmarks' stand-ins."""

    name: str
    path: Path
    words: str  # how a verdict names the table: "the public table"
    candidates: tuple[str, ...]  # benchmarks the reference rule may fit a family on
    sets: dict[str, tuple[str, tuple[str, ...]]]  # name → (label, benchmarks); the first is the headline's
    budget_benchmarks: tuple[str, ...] = ()
    budget_sets: tuple[str, ...] = ()
    paper_mapping: dict[str, str] = field(default_factory=dict)  # the paper's benchmark → what stands for it here
    cutoff: str | None = None  # the forecast check's (ISO date; :func:`densing.trend.protocol.measure_table`)
    leads: bool = False  # measured when no ``--table`` is named (:func:`leading_table`; one table at most)

    @property
    def headline_set(self) -> str:
        return next(iter(self.sets))


def _check_table(registry: Registry, name: str, item: Any) -> None:
    check_type(registry, name, item, TrendTable)
    leading = [other.name for other in registry.values() if other.leads]
    if item.leads and leading:
        raise RegistryError(
            f"{registry.what} {name!r}: field 'leads': expected one leading table, and {leading[0]!r} leads already"
        )


#: The registered target tables, by name (a :class:`Registry` filled by the designs' folders).
TABLES: Registry[TrendTable] = Registry("--table", check=_check_table, found_in=DESIGN_PACKAGE)


def register_table(table: TrendTable) -> TrendTable:
    """Add ``table`` to :data:`TABLES` (a new name), the one that leads ahead of the others."""
    check_type(TABLES, None, table, TrendTable)
    return TABLES.register(table.name, table, first=table.leads)


def tables() -> Registry[TrendTable]:
    """:data:`TABLES`, every design's tables registered."""
    discover(DESIGN_PACKAGE)
    return TABLES


def leading_table() -> TrendTable:
    """The registered table that leads (:attr:`TrendTable.leads`); an InputError when no registered table does."""
    if (found := next((t for t in tables().values() if t.leads), None)) is None:
        raise InputError(
            f"{TABLES.what}: no registered table leads, so a table must be named: one of "
            f"{', '.join(TABLES) or '(none registered)'}"
        )
    return found


def table(name: str | TrendTable | None = None) -> TrendTable:
    """The registered table ``name`` (a :class:`TrendTable` as it is; None: :func:`leading_table`); else InputError."""
    if isinstance(name, TrendTable):
        return name
    if name is None:
        return leading_table()
    return tables().get(name)


def table_for_path(path: str | Path | None) -> TrendTable:
    """The registered table whose file is ``path``, else the leading table."""
    resolved = None if path is None else as_path(path, "results").resolve()
    return (
        next((t for t in tables().values() if resolved is not None and t.path.resolve() == resolved), None)
        or leading_table()
    )


class Target(NamedTuple):
    """A target table resolved (:func:`resolve_table`): the registered table that applies, and the file read."""

    table: TrendTable
    path: Path


def resolve_table(results: str | Path | None = None, table: str | TrendTable | None = None) -> Target:
    """The one way from what a caller names to the table measured (every ``--results``/``--table``, every API entry's
    ``results=``/``table=``): ``table`` names it (a registered name or a :class:`TrendTable`), ``results`` the file read
    (default its own; alone: the registered table whose file it is, else the leading one); else an InputError."""
    given = None if results is None else as_path(results, "results")
    if table is not None and not isinstance(table, (str, TrendTable)):
        raise InputError(f"{TABLES.what}: expected a table's name, one of {', '.join(tables())}, got {table!r}")
    if isinstance(table, TrendTable):
        found = table
    elif table is not None:
        found = tables().get(table)
    else:
        found = table_for_path(given)
    return Target(found, found.path if given is None else given)


def given_or_resolved(
    target: Target | None, results: str | Path | None = None, table: str | TrendTable | None = None
) -> Target:
    """The table a function reads: ``target`` where its caller has resolved it already (a command resolves its table
    once, :func:`resolve_table`, and hands that one value down), else the table ``results`` and ``table`` name
    (:func:`resolve_table`, for a caller who names it). Both given, or a ``target`` that is no :class:`Target`: an
    InputError, one table said one way."""
    if target is None:
        return resolve_table(results, table)
    if not isinstance(target, Target):
        raise InputError(f"target: expected a table resolved by densing.registry.resolve_table, got {target!r}")
    if results is not None or table is not None:
        raise InputError(
            "target: a table resolved already (densing.registry.resolve_table), so results= and table= are not given "
            "beside it; give one or the other"
        )
    return target
