"""Values derived from a table, computed once while nothing changes the table: a :class:`TableMemo`.

One measurement asks the same questions of one table many times (the score matrix of a benchmark tuple under every
reference of every row; a family's members on a benchmark under every rule). A :class:`TableMemo` keeps the answer
per (table, key), with a weak reference to the table, so an entry serves that very table object only. A memo is an
object: :func:`same_tables` opens one for a block (or the one it is given: a caller that runs several measurements
on the same tables may pass one memo to each), and the functions marked :func:`per_table` read the memo open in the
current context (a :class:`contextvars.ContextVar`, as :mod:`decimal` holds its context); outside a block nothing is
kept, so a table changed in place between two calls is read afresh. The blocks are opened by the measurement's
entry points (:func:`densing.trend.measure.measure_trend`) and by each worker of :mod:`densing.runtime.executor`,
whose tables nothing changes while they run.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import weakref


class TableMemo:
    """Values derived from tables, kept per (table, key) (module docstring), and values of plain inputs kept per key
    (:meth:`keep`, :meth:`recall`). The caller must not change a value it gets back (copy it where it may)."""

    def __init__(self) -> None:
        self._kept: dict[tuple, tuple] = {}   # (id of the table, key) → (weak reference to the table, the value)
        self._values: dict[tuple, object] = {}  # key → the value of keep

    def derived(self, table, key: tuple, compute):
        """``compute()``, a value of ``table`` named by ``key``, computed once for this very table object."""
        slot = (id(table), key)
        found = self._kept.get(slot)
        if found is not None and found[0]() is table:
            return found[1]
        value = compute()
        self._kept[slot] = (weakref.ref(table), value)
        return value

    def recall(self, key: tuple):
        """The value :meth:`keep` put under ``key``, or None: for values of plain inputs named in full by ``key``."""
        return self._values.get(key)

    def keep(self, key: tuple, value) -> None:
        self._values[key] = value


#: The memo open in this context (None outside :func:`same_tables`).
_OPEN: contextvars.ContextVar[TableMemo | None] = contextvars.ContextVar("densing_table_memo", default=None)


@contextlib.contextmanager
def same_tables(memo: TableMemo | None = None):
    """Within the block, the :func:`per_table` functions keep their values in ``memo`` (a new :class:`TableMemo` by
    default); a block inside another one uses the outer block's memo unless it is given its own. Yields the memo."""
    memo = memo if memo is not None else _OPEN.get() or TableMemo()
    token = _OPEN.set(memo)
    try:
        yield memo
    finally:
        _OPEN.reset(token)


def keeping() -> bool:
    """Whether a memo is open (inside :func:`same_tables`)."""
    return _OPEN.get() is not None


def recall(key: tuple):
    """:meth:`TableMemo.recall` of the open memo; None outside :func:`same_tables`."""
    memo = _OPEN.get()
    return None if memo is None else memo.recall(key)


def keep(key: tuple, value) -> None:
    """:meth:`TableMemo.keep` in the open memo; nothing is kept outside :func:`same_tables`."""
    memo = _OPEN.get()
    if memo is not None:
        memo.keep(key, value)


def derived(table, key: tuple, compute):
    """:meth:`TableMemo.derived` in the open memo; ``compute()`` afresh outside :func:`same_tables`."""
    memo = _OPEN.get()
    return compute() if memo is None else memo.derived(table, key, compute)


def per_table(function):
    """``function(table, *args)`` kept per (table, args) in the open memo (:func:`derived`; ``args`` hashable; the
    caller must not change the value it gets back). The key names the function by module and qualified name, so two
    functions never share an entry."""
    name = (function.__module__, function.__qualname__)

    @functools.wraps(function)
    def kept(table, *args):
        return derived(table, (name, *args), lambda: function(table, *args))

    return kept
