"""A thread-safe LRU cache bounded in bytes, not in entries.

WebShop caches values of very different sizes (a product with a long
description, a rendered HTML page, a session holding 50 result ASINs), so an
entry count says little about memory. :class:`ByteLRU` charges each entry the
size its ``sizeof`` function estimates and evicts least-recently-used entries
until the total is at most ``max_bytes``. An entry larger than the whole budget
is not kept at all. Estimates need not be exact, only proportional to what the
entry really holds (see :func:`text_bytes`).
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable, Generic, Hashable, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

# What CPython spends per small object (header + pointer in its container), used by estimates.
OBJECT_OVERHEAD = 56
ENTRY_OVERHEAD = 200  # the OrderedDict node, the key/value references, the recorded size


def text_bytes(*parts: Any) -> int:
    """A rough in-memory size of nested str/tuple/list/dict/number values (strings at 1 byte per char)."""
    total = 0
    stack = list(parts)
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            total += OBJECT_OVERHEAD - 7 + len(x)
        elif isinstance(x, (tuple, list, set, frozenset)):
            total += OBJECT_OVERHEAD + 8 * len(x)
            stack.extend(x)
        elif isinstance(x, dict):
            total += OBJECT_OVERHEAD + 100 * len(x)
            stack.extend(x.keys())
            stack.extend(x.values())
        else:
            total += 32
    return total


class ByteLRU(Generic[K, V]):
    """Least-recently-used cache whose entries' estimated sizes sum to at most ``max_bytes``.

    ``sizeof(key, value)`` estimates an entry's bytes (``ENTRY_OVERHEAD`` is added).
    ``get`` refreshes recency; ``put`` inserts or replaces then evicts. All
    methods are thread-safe. ``nbytes`` is the current estimated total.
    """

    def __init__(self, max_bytes: int, sizeof: Callable[[K, V], int]):
        if max_bytes < 0:
            raise ValueError(f"max_bytes must be >= 0, got {max_bytes}")
        self.max_bytes = int(max_bytes)
        self._sizeof = sizeof
        self._data: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.nbytes = 0

    def get(self, key: K, default: Any = None) -> Any:
        with self._lock:
            hit = self._data.get(key)
            if hit is None:
                return default
            self._data.move_to_end(key)
            return hit[0]

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._data

    def put(self, key: K, value: V) -> None:
        size = int(self._sizeof(key, value)) + ENTRY_OVERHEAD
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self.nbytes -= old[1]
            if size > self.max_bytes:
                return
            self._data[key] = (value, size)
            self.nbytes += size
            while self.nbytes > self.max_bytes:
                _, (_, s) = self._data.popitem(last=False)
                self.nbytes -= s

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.nbytes = 0

    def __len__(self) -> int:
        return len(self._data)
