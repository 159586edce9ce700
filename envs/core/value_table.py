"""One object per value: the table that lets immutable states share their parts.

An env whose states are immutable values builds many equal parts (the same page text, the same
search results, the same fact difference) in different states. :class:`ValueTable` hands out the
first object it saw equal to a value, and keeps it: states built through it share their parts, and
dropping a state (a fork replacing a sub-env's state, a search discarding a node) frees none of
them, only the few objects the state alone holds. Freeing is what costs on a busy machine: every
object freed is memory touched, cold when other processes have been through the caches.

The table is bounded: it is cleared when it reaches ``limit`` entries (then it starts sharing
again), so it never holds more than ``limit`` values alive. Clearing never changes a value, only
which object stands for it.
"""
from __future__ import annotations

from typing import Any, Hashable, TypeVar

V = TypeVar("V", bound=Hashable)

DEFAULT_LIMIT = 50_000


class ValueTable:
    """``table.one(value)``: the object this table keeps for ``value`` (``value`` itself the first time).
    Not thread-safe beyond the GIL's guarantees: two threads may each keep an equal object, which is
    harmless (values are immutable and compared by value)."""

    __slots__ = ("_kept", "limit")

    def __init__(self, limit: int = DEFAULT_LIMIT):
        if limit < 1:
            raise ValueError(f"a ValueTable needs limit >= 1, got {limit}")
        self._kept: dict[Any, Any] = {}
        self.limit = limit

    def one(self, value: V) -> V:
        kept = self._kept
        one = kept.get(value)
        if one is None:
            if len(kept) >= self.limit:
                kept.clear()
            one = kept[value] = value
        return one

    def __len__(self) -> int:
        return len(self._kept)
