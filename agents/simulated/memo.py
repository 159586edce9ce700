"""A least-recently-used memo of dict entries, bounded in approximate bytes (the oracle's memo).

``ByteLRU(max_bytes)``: ``entry(key)`` returns the (mutable) dict kept for
``key``, creating an empty one on a miss, and marks it most recently used.
A caller that fills an entry calls ``resized(key)`` afterwards so its size is
counted again. Whenever the total goes past ``max_bytes``, least recently used
entries are dropped (a caller still holding a dropped dict may keep using it;
it is just no longer shared). Sizes are :func:`approx_size` estimates: the
``sys.getsizeof`` of the containers and objects reachable from the key and the
entry, each counted once, leaving out what every state of an env shares (an object whose class sets
``__shared_by_states__ = True``: WebShop's catalog, an ALFWorld game's tables; a state only points
at it, and counting it per key made each WebShop key "weigh" 7 MB and cost 50 ms to size).
Thread-safe.
"""
from __future__ import annotations

import sys
import threading
import types
from collections import OrderedDict
from typing import Any, Hashable

_ATOMS = (str, bytes, int, float, bool, complex, type(None))
_SKIP = (type, types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.ModuleType)


def approx_size(obj: Any, max_objects: int = 100_000) -> int:
    """Bytes of ``obj`` and everything reachable through containers, ``__dict__`` and
    ``__slots__`` (shared objects once; classes, modules, functions and objects whose class sets
    ``__shared_by_states__`` not at all).
    Stops counting after ``max_objects`` objects (the estimate is then a lower bound)."""
    seen: set[int] = set()
    stack = [obj]
    total = 0
    while stack and len(seen) < max_objects:
        o = stack.pop()
        if id(o) in seen or isinstance(o, _SKIP) or getattr(type(o), "__shared_by_states__", False):
            continue
        seen.add(id(o))
        total += sys.getsizeof(o, 64)
        if isinstance(o, _ATOMS):
            continue
        if isinstance(o, dict):
            stack.extend(o.keys())
            stack.extend(o.values())
        elif isinstance(o, (list, tuple, set, frozenset)):
            stack.extend(o)
        else:
            d = getattr(o, "__dict__", None)
            if isinstance(d, dict):
                stack.append(d)
            for slot in getattr(type(o), "__slots__", ()):
                if hasattr(o, slot):
                    stack.append(getattr(o, slot))
    return total


class ByteLRU:
    """Dict entries by key, least recently used dropped past ``max_bytes`` (module docstring)."""

    def __init__(self, max_bytes: int) -> None:
        self._data: OrderedDict[Hashable, dict] = OrderedDict()
        self._sizes: dict[Hashable, int] = {}
        self._key_sizes: dict[Hashable, int] = {}
        self._lock = threading.Lock()
        self.total = 0
        self.evictions = 0
        self.max_bytes = 0
        self.resize(max_bytes)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._data

    def entry(self, key: Hashable) -> dict:
        """The dict kept for ``key`` (a new empty one on a miss), now the most recently used."""
        with self._lock:
            found = self._data.get(key)
            if found is not None:
                self._data.move_to_end(key)
                return found
        key_size = approx_size(key)
        with self._lock:
            found = self._data.get(key)
            if found is None:
                found = self._data[key] = {}
                self._key_sizes[key] = key_size
                self._sizes[key] = key_size + sys.getsizeof(found)
                self.total += self._sizes[key]
                self._evict()
            return found

    def resized(self, key: Hashable) -> None:
        """Count ``key``'s entry again after the caller filled it (evicting if the total is now too big)."""
        with self._lock:
            found = self._data.get(key)
        if found is None:
            return
        size = self._key_sizes.get(key, 0) + approx_size(found)
        with self._lock:
            if key in self._sizes:
                self.total += size - self._sizes[key]
                self._sizes[key] = size
                self._evict()

    def resize(self, max_bytes: int) -> None:
        """A new bound (bytes, > 0); entries past it are dropped at once."""
        if int(max_bytes) <= 0:
            raise ValueError(f"the memo's bound must be a positive number of bytes, got {max_bytes!r}")
        with self._lock:
            self.max_bytes = int(max_bytes)
            self._evict()

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._sizes.clear()
            self._key_sizes.clear()
            self.total = 0

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {"entries": len(self._data), "bytes": self.total, "max_bytes": self.max_bytes,
                    "evictions": self.evictions}

    def _evict(self) -> None:  # with the lock held
        while self.total > self.max_bytes and self._data:
            key, _entry = self._data.popitem(last=False)
            self.total -= self._sizes.pop(key)
            self._key_sizes.pop(key, None)
            self.evictions += 1
