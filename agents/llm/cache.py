"""A persistent on-disk LLM response cache (record / replay) as an LLM wrapper.

``CachedLLM(llm, path, mode)`` answers a request from the cache file when it
holds it, and otherwise asks ``llm`` (modes: ``auto`` records misses,
``record`` always asks and appends, ``replay`` never asks and raises
``LLMError`` on a miss).

The key is a SHA-256 of the full request: the backend's ``name`` (e.g.
``openai:gpt-4o-mini``; not the URL, so a cache recorded against one server
replays anywhere), messages, n, temperature, max_tokens, stop, choices, seed,
plus a **sample index**:

* temperature == 0: the index is always 0; an identical request gets the same
  recorded answer.
* temperature > 0: the k-th identical request made through this ``CachedLLM``
  (counting from its creation, ``session()`` or ``reset_samples()``) gets
  index k, so a search that samples the same prompt several times in an
  episode replays the recorded answers in the order they were recorded. Give
  each episode its own session (``cached.session()``: same file, fresh
  counters) so parallel episodes do not interleave their counts.

File format: JSON Lines, one entry per line, append-only::

    {"key": "<sha256>", "sample": 0, "model": "openai:...", "request": {...},
     "completions": ["..."], "usage": {"calls": 1, "prompt_tokens": 9, "completion_tokens": 3}}

Each entry is appended with one ``os.write`` of the whole line while holding a
``filelock`` on ``<path>.lock``, so threads and processes can share a file.
Lines that do not parse (a writer killed mid-line) are skipped with a
warning and counted in ``skipped_lines``; the request is simply recorded
again. When an entry is recorded twice, the later one wins.

Accounting: ``usage`` counts the wrapped LLM's real calls (misses);
``cache_hits`` / ``hit_usage`` count hits and what they cost when recorded;
``last_cost()`` reports the recorded cost for a hit, so a ``BudgetedLLM``
around the cache stops a replayed run where the recorded run stopped.
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
import time
import warnings
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

from ...envs.core.utf8_json import dump_line, utf8_bytes
from typing import Any, Iterator, Literal

from filelock import FileLock

from .accounting import CostTracker, WrapperAccounting, cost_of_last, usage_snapshot
from .base import LLM, LLMError, Usage
from .info import info_of
from .request import Request

CacheMode = Literal["record", "replay", "auto"]
_MODES = ("record", "replay", "auto")


def request_key(model: str, request: Request) -> str:
    """SHA-256 hex digest of a canonical JSON form of ``request`` for ``model`` (without the sample index)."""
    payload = {"model": model, "messages": request.plain_messages(), **request.sampling()}
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(utf8_bytes(text)).hexdigest()


def _valid_entry(entry: Any) -> bool:
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("key"), str)
        and isinstance(entry.get("sample"), int)
        and isinstance(entry.get("completions"), list)
        and all(isinstance(c, str) for c in entry["completions"])
    )


class ResponseCache:
    """The JSONL file behind ``CachedLLM``: an in-memory index kept in sync with the file."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        if self.path.is_dir():
            raise ValueError(f"LLM cache path {self.path} is a directory; give a file such as {self.path / 'llm_cache.jsonl'}")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._entries: dict[str, dict] = {}
        self._offset = 0  # bytes of the file already indexed (always at a line start)
        self._warned_tail_at = -1
        self.skipped_lines = 0
        self._thread_lock = threading.Lock()
        self._file_lock = FileLock(str(self.path) + ".lock")
        with self._locked():
            self._read_new()

    def __reduce__(self) -> tuple:
        return (ResponseCache, (self.path,))  # another process re-reads the file

    def __len__(self) -> int:
        with self._thread_lock:
            return len(self._entries)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with self._thread_lock, self._file_lock:
            yield

    def lookup(self, key: str, sample: int) -> dict | None:
        """The entry for (key, sample), re-reading lines other writers appended if needed."""
        ident = f"{key}:{sample}"
        with self._thread_lock:
            entry = self._entries.get(ident)
        if entry is None:
            with self._locked():
                self._read_new()
                entry = self._entries.get(ident)
        return entry

    def append(self, entry: dict) -> None:
        """Write ``entry`` as one line (one ``os.write``, under the file lock) and index it."""
        line, _escaped = dump_line(entry, separators=(",", ":"))  # an answer's lone surrogate: a \\u escape
        with self._locked():
            broken_tail = self._read_new()
            data = (b"\n" + line) if broken_tail else line  # never glue a line onto a truncated one
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                written = os.write(fd, data)
                while written < len(data):  # only for very large lines on odd filesystems
                    written += os.write(fd, data[written:])
                self._offset = os.fstat(fd).st_size
            finally:
                os.close(fd)
            self._entries[f"{entry['key']}:{entry['sample']}"] = entry

    def _read_new(self) -> bool:
        """Index complete lines added since the last read. Caller holds the lock.

        Returns True when the file ends in a partial line: under the lock no
        writer is mid-write, so it is the remains of a killed writer.
        """
        try:
            with open(self.path, "rb") as f:
                f.seek(self._offset)
                data = f.read()
        except FileNotFoundError:
            return False
        end = data.rfind(b"\n") + 1
        position = self._offset
        for raw in data[:end].split(b"\n")[:-1]:
            try:
                entry = json.loads(raw)
            except ValueError:
                entry = None
            if _valid_entry(entry):
                self._entries[f"{entry['key']}:{entry['sample']}"] = entry
            elif raw.strip():
                self.skipped_lines += 1
                warnings.warn(
                    f"LLM cache {self.path}: skipped a broken line at byte {position} "
                    "(probably a process killed while writing); that request will be recorded again",
                    RuntimeWarning,
                    stacklevel=3,
                )
            position += len(raw) + 1
        self._offset += end
        tail = data[end:]
        if tail and self._warned_tail_at != self._offset:
            self._warned_tail_at = self._offset
            warnings.warn(
                f"LLM cache {self.path}: ignoring a truncated last line ({len(tail)} bytes, "
                "probably a process killed while writing)",
                RuntimeWarning,
                stacklevel=3,
            )
        return bool(tail)


class CachedLLM(WrapperAccounting):
    """Wraps ``llm`` with a persistent response cache at ``path`` (see module docstring)."""

    def __init__(self, llm: LLM, path: str | os.PathLike | ResponseCache, mode: CacheMode = "auto") -> None:
        if mode not in _MODES:
            raise ValueError(f"cache mode must be one of {', '.join(_MODES)}, got {mode!r}")
        self.llm = llm
        self.name = llm.name
        self.info = info_of(llm)  # the wrapped LLM's (grammar support, simulated, price)
        self.mode = mode
        self.store = path if isinstance(path, ResponseCache) else ResponseCache(path)
        self._cost = CostTracker()
        self.usage: Usage = self._cost.usage
        self.hit_usage = Usage()
        self.cache_hits = 0
        self.cache_misses = 0
        self._samples: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"CachedLLM({self.llm!r}, path={str(self.store.path)!r}, mode={self.mode!r})"

    @property
    def path(self) -> Path:
        return self.store.path

    def session(self) -> "CachedLLM":
        """A CachedLLM on the same file and LLM with fresh sample counters and counts (one per episode)."""
        return CachedLLM(self.llm, self.store, self.mode)

    def reset_samples(self) -> None:
        """Restart the temperature > 0 sample indices (call at an episode start)."""
        with self._lock:
            self._samples.clear()

    def stats(self) -> dict[str, int]:
        return {"cache_hits": self.cache_hits, "cache_misses": self.cache_misses}

    def complete(self, request: Request) -> list[str]:
        key = request_key(self.llm.name, request)
        with self._lock:
            sample = self._samples[key] if request.temperature > 0 else 0
            self._samples[key] += 1
        self._cost.begin()
        if self.mode != "record":
            entry = self.store.lookup(key, sample)
            if entry is not None and len(entry["completions"]) == request.n:
                recorded = entry.get("usage") or {}
                cost = [int(recorded.get(k) or 0) for k in ("calls", "prompt_tokens", "completion_tokens")]
                with self._lock:
                    self.cache_hits += 1
                self.hit_usage.add(*cost)
                self._cost.note(*cost)
                return list(entry["completions"])
            if self.mode == "replay":
                raise LLMError(
                    f"request not in cache {self.store.path} (key {key[:12]}, sample {sample}, model {self.llm.name}); "
                    "run with mode='record' or 'auto' against a live model to add it"
                )
        before = usage_snapshot(self.llm)
        completions = self.llm.complete(request)
        spent = cost_of_last(self.llm, before)
        self._cost.charge(spent.calls, spent.prompt_tokens, spent.completion_tokens)
        with self._lock:
            self.cache_misses += 1
        self.store.append({
            "key": key,
            "sample": sample,
            "model": self.llm.name,
            "request": {"messages": request.plain_messages(), **request.sampling()},
            "completions": [str(c) for c in completions],
            "usage": spent.as_dict(),
            "time": round(time.time(), 3),
        })
        return completions
