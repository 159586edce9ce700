"""A thread-safe store of live sessions for a session server: id -> an immutable value, with expiry.

The values are immutable (an engine state, or the server's record holding
one), so the store only swaps values: ``update`` runs
``fn(old) -> (new, result)`` under that session's own lock (two requests on one
session are applied one after the other; different sessions never wait on each
other beyond a dict lookup). A session unused for ``ttl`` seconds is freed;
``max_sessions`` bounds memory (creating one more first frees expired ones, then
refuses with :class:`StoreFull`).
"""
from __future__ import annotations

import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

SESSION_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class StoreFull(RuntimeError):
    """Too many live sessions; close some or wait for them to expire."""


@dataclass
class _Entry:
    session: Any
    last_used: float
    lock: threading.Lock = field(default_factory=threading.Lock)


class SessionStore:
    """Live sessions by id (see the module docstring). ``clock`` is in seconds."""

    def __init__(self, ttl: float = 3600.0, max_sessions: int = 10_000, clock: Callable[[], float] = time.monotonic):
        self.ttl = float(ttl)
        self.max_sessions = int(max_sessions)
        self._clock = clock
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()
        self._last_purge = clock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def create(self, session: Any) -> str:
        now = self._clock()
        with self._lock:
            if now - self._last_purge > self.ttl / 10 or len(self._entries) >= self.max_sessions:
                self._purge_locked(now)
            if len(self._entries) >= self.max_sessions:
                raise StoreFull(f"the server holds {len(self._entries)} sessions (its limit); close sessions "
                                "with DELETE /api/sessions/<id> or wait for them to expire")
            sid = secrets.token_urlsafe(12)
            self._entries[sid] = _Entry(session, now)
            return sid

    def put(self, sid: str, session: Any, replace: bool = True) -> None:
        """Store ``session`` under a client-chosen id ``sid``: created, or replaced (``replace=False``: kept)."""
        if not SESSION_ID_RE.match(sid):
            raise ValueError(f"session ids are 1-64 letters, digits, '-' or '_'; got {sid[:70]!r}")
        now = self._clock()
        with self._lock:
            entry = self._entries.get(sid)
            if entry is not None and now - entry.last_used > self.ttl:
                entry = None  # expired: made anew
            if entry is None:
                if now - self._last_purge > self.ttl / 10 or len(self._entries) >= self.max_sessions:
                    self._purge_locked(now)
                if len(self._entries) >= self.max_sessions:
                    raise StoreFull(f"the server holds {len(self._entries)} sessions (its limit); close sessions "
                                    "or wait for them to expire")
                self._entries[sid] = _Entry(session, now)
                return
        if replace:
            with entry.lock:  # after any update running on it
                entry.session, entry.last_used = session, now

    def _entry(self, sid: str) -> _Entry:
        now = self._clock()
        with self._lock:
            entry = self._entries.get(sid)
            if entry is None:
                raise KeyError(sid)
            if now - entry.last_used > self.ttl:
                del self._entries[sid]
                raise KeyError(sid)
            entry.last_used = now
            return entry

    def get(self, sid: str) -> Any:
        """The session ``sid``; ``KeyError`` if unknown or expired."""
        return self._entry(sid).session

    def update(self, sid: str, fn: Callable[[Any], tuple[Any, Any]]) -> Any:
        """Replace session ``sid`` by ``fn(old)[0]`` atomically; return ``fn(old)[1]``."""
        entry = self._entry(sid)
        with entry.lock:
            new, result = fn(entry.session)
            entry.session = new
            return result

    def delete(self, sid: str) -> bool:
        with self._lock:
            return self._entries.pop(sid, None) is not None

    def purge_expired(self) -> int:
        with self._lock:
            return self._purge_locked(self._clock())

    def _purge_locked(self, now: float) -> int:
        dead = [sid for sid, e in self._entries.items() if now - e.last_used > self.ttl]
        for sid in dead:
            del self._entries[sid]
        self._last_purge = now
        return len(dead)
