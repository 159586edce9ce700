"""``SCREENS``: the screens of recently observed device states, shared by every env in the process.

A native device state (the simulator's ``PhoneState``) is an immutable value and
its screen a pure function of it, so the dump and element list computed once for
a state hold for every env that comes back to that state (a search restoring a
node, a group of envs started from one snapshot). Entries are keyed by the state
object's identity and keep it alive, so an id is never reused while its entry
lives; the cache is bounded in entries (a screen is ~9 KB: dump ~3.5 KB, element
list ~4 KB), least recently used first out, and safe to use from several threads.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from .observation import ParsedScreen

MAX_SCREENS = 1024  # ~9 MB at the typical screen size


class ScreenCache:
    """Bounded LRU of ``state -> (xml, ParsedScreen)`` by identity (see the module docstring)."""

    def __init__(self, max_entries: int = MAX_SCREENS):
        self.max_entries = max_entries
        self._entries: OrderedDict[int, tuple[Any, str, ParsedScreen]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, state: Any) -> tuple[str, ParsedScreen] | None:
        with self._lock:
            hit = self._entries.get(id(state))
            if hit is None or hit[0] is not state:
                return None
            self._entries.move_to_end(id(state))
            return hit[1], hit[2]

    def put(self, state: Any, xml: str, parsed: ParsedScreen) -> None:
        with self._lock:
            self._entries[id(state)] = (state, xml, parsed)
            self._entries.move_to_end(id(state))
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


SCREENS = ScreenCache()
