"""The memo of values derived from a table: :func:`same_tables` opens one for a block (a
:class:`contextvars.ContextVar`) that keeps each answer per (table, key), the table weakly referenced; outside a block
nothing is kept, so a table changed in place is read afresh.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import weakref

#: The memo open in this context (None outside :func:`same_tables`): (id of the table, key) → (weak reference to the
#: table, the value) for :func:`derived`; ("value", key) → the value for :func:`keep`. Values are not to be changed.
_OPEN: contextvars.ContextVar[dict | None] = contextvars.ContextVar("densing_table_memo", default=None)


@contextlib.contextmanager
def same_tables():
    """Within the block, the :func:`per_table` functions keep their values in a memo (an outer block's, if any)."""
    memo = _OPEN.get()
    token = _OPEN.set({} if memo is None else memo)
    try:
        yield
    finally:
        _OPEN.reset(token)


def keeping() -> bool:
    """Whether a memo is open (inside :func:`same_tables`)."""
    return _OPEN.get() is not None


def recall(key: tuple):
    """The value :func:`keep` put under ``key`` (plain inputs named in full) in the open memo, or None."""
    memo = _OPEN.get()
    if memo is None:
        return None
    return memo.get(("value", key))


def keep(key: tuple, value) -> None:
    """Keep ``value`` under ``key`` in the open memo; nothing is kept outside :func:`same_tables`."""
    if (memo := _OPEN.get()) is not None:
        memo[("value", key)] = value


def derived(table, key: tuple, compute):
    """``compute()``, ``table``'s value named by ``key``, once per table object in the open memo; afresh outside."""
    if (memo := _OPEN.get()) is None:
        return compute()
    slot = (id(table), key)
    if (found := memo.get(slot)) is not None and found[0]() is table:
        return found[1]
    value = compute()
    memo[slot] = (weakref.ref(table), value)
    return value


def per_table(function):
    """``function(table, *args)`` kept per (table, args) in the open memo (:func:`derived`; ``args`` hashable; the
    caller must not change the value it gets back)."""
    name = (function.__module__, function.__qualname__)

    @functools.wraps(function)
    def kept(table, *args):
        return derived(table, (name, *args), lambda: function(table, *args))

    return kept
