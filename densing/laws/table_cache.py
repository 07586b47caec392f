"""Values derived from a table, computed once while nothing changes the table: :func:`same_tables`.

One measurement asks the same questions of one table many times (the score matrix of a benchmark tuple under every
reference of every row; a family's members on a benchmark under every rule). Inside :func:`same_tables` the answer
of :func:`derived` is kept per (table, key), with a weak reference to the table, so an entry serves that very table
object only; outside the block nothing is kept, so a table changed in place between two calls is read afresh. The
block is entered by the measurement's entry points (:func:`densing.trend.measure.measure_trend`), whose tables
nothing changes while they run.
"""
from __future__ import annotations

import contextlib
import functools
import weakref

#: Inside :func:`same_tables`: (id of the table, key) → (weak reference to the table, the value); ("value", key) → the
#: value of :func:`keep`.
_KEPT: dict[tuple, tuple] | None = None


@contextlib.contextmanager
def same_tables():
    """Within the block, :func:`derived` computes each (table, key) once; blocks nest (the outermost one clears)."""
    global _KEPT
    outer = _KEPT
    if outer is None:
        _KEPT = {}
    try:
        yield
    finally:
        if outer is None:
            _KEPT = None


def keeping() -> bool:
    """Whether :func:`derived` keeps values now (inside :func:`same_tables`)."""
    return _KEPT is not None


def recall(key: tuple):
    """The value :func:`keep` put under ``key`` in this block of :func:`same_tables`, or None (always None outside one):
    for values of plain inputs named in full by ``key`` (no table to hold a reference to)."""
    return None if _KEPT is None else _KEPT.get(("value", key))


def keep(key: tuple, value) -> None:
    """Keep ``value`` under ``key`` for the block of :func:`same_tables` (nothing is kept outside one)."""
    if _KEPT is not None:
        _KEPT[("value", key)] = value


def derived(table, key: tuple, compute):
    """``compute()`` — a value of ``table`` named by ``key`` — kept for the block of :func:`same_tables` (computed
    afresh outside one). The caller must not change the value it gets back (copy it where it may)."""
    if _KEPT is None:
        return compute()
    slot = (id(table), key)
    found = _KEPT.get(slot)
    if found is not None and found[0]() is table:
        return found[1]
    value = compute()
    _KEPT[slot] = (weakref.ref(table), value)
    return value


def per_table(function):
    """``function(table, *args)`` kept per (table, args) for the block of :func:`same_tables`, through
    :func:`derived` (``args`` hashable; the caller must not change the value it gets back). The key names the
    function by module and qualified name, so two functions never share an entry."""
    name = (function.__module__, function.__qualname__)

    @functools.wraps(function)
    def kept(table, *args):
        return derived(table, (name, *args), lambda: function(table, *args))

    return kept
