"""Per-request cost accounting shared by the LLM backends and wrappers.

Every backend keeps a cumulative ``usage`` (``Usage``: model calls, prompt and
completion tokens). Wrappers such as the budget also need to know what *one*
``complete`` request cost, even when several threads share one client; a
cumulative counter cannot tell them that. ``CostTracker`` keeps both: the
shared ``usage`` and, per thread, the cost of that thread's most recent
``complete``.

Optional hooks an LLM may offer (the wrappers fall back when absent):

* ``last_cost() -> Usage``: what this thread's last ``complete`` spent;
* ``calls_needed(n) -> int``: an upper bound on the model calls the next
  ``complete(request)`` with ``request.n == n`` can make (default 1).
"""
from __future__ import annotations

import threading
from typing import Any

from .base import Usage


class CostTracker:
    """A cumulative ``Usage`` plus the cost of each thread's current/last request."""

    def __init__(self, usage: Usage | None = None) -> None:
        self.usage = usage if usage is not None else Usage()
        self._local = threading.local()

    def __getstate__(self) -> dict:
        return {"usage": self.usage}

    def __setstate__(self, state: dict) -> None:
        self.usage = state["usage"]
        self._local = threading.local()

    def begin(self) -> None:
        """Start a new request on this thread (resets ``last()``)."""
        self._local.cost = [0, 0, 0]  # this thread's alone: plain counters, no lock

    def charge(self, calls: int = 0, prompt_tokens: int = 0, completion_tokens: int = 0) -> None:
        """Add to the cumulative usage and to this thread's current request."""
        self.usage.add(calls, prompt_tokens, completion_tokens)
        self.note(calls, prompt_tokens, completion_tokens)

    def record(self, calls: int, prompt_tokens: int, completion_tokens: int, locked: bool = False) -> None:
        """A whole request at once (``begin`` then ``charge``): add it to the cumulative usage, and make it
        this thread's last request. ``locked``: the caller holds a lock that every writer of this usage
        holds (a budget's own), so the usage's shared lock is not taken again."""
        if locked:
            usage = self.usage
            usage.calls += calls
            usage.prompt_tokens += prompt_tokens
            usage.completion_tokens += completion_tokens
        else:
            self.usage.add(calls, prompt_tokens, completion_tokens)
        self._local.cost = [calls, prompt_tokens, completion_tokens]

    def note(self, calls: int = 0, prompt_tokens: int = 0, completion_tokens: int = 0) -> None:
        """Add to this thread's current request only (a cache hit's recorded cost)."""
        cost = self._current()
        cost[0] += calls
        cost[1] += prompt_tokens
        cost[2] += completion_tokens

    def last(self) -> Usage:
        """What this thread's most recent request spent (zero before any), as a new ``Usage``."""
        cost = getattr(self._local, "cost", None)
        return Usage() if cost is None else Usage(cost[0], cost[1], cost[2])

    def _current(self) -> list[int]:
        cost = getattr(self._local, "cost", None)
        if cost is None:
            cost = self._local.cost = [0, 0, 0]
        return cost


def calls_needed(llm: Any, n: int) -> int:
    """Upper bound on the model calls a ``complete`` of ``n`` completions makes (1 unless the LLM says more)."""
    hook = getattr(llm, "calls_needed", None)
    return max(1, int(hook(n))) if callable(hook) else 1


def usage_snapshot(llm: Any) -> tuple[int, int, int]:
    u = llm.usage
    return (u.calls, u.prompt_tokens, u.completion_tokens)


def cost_of_last(llm: Any, before: tuple[int, int, int]) -> Usage:
    """What ``llm``'s last ``complete`` on this thread cost.

    Uses the LLM's ``last_cost()`` hook when it has one (exact under threads);
    otherwise the change of its cumulative usage since ``before`` (exact when
    no other thread uses the same LLM at the same time).
    """
    hook = getattr(llm, "last_cost", None)
    return hook() if callable(hook) else usage_since(llm, before)


def usage_since(llm: Any, before: tuple[int, int, int]) -> Usage:
    """The change of ``llm``'s cumulative usage since ``before`` (a :func:`usage_snapshot`)."""
    c, p, k = usage_snapshot(llm)
    return Usage(c - before[0], p - before[1], k - before[2])


class PerProcessLock:
    """Mixin for LLM objects with a ``_lock``: picklable for process pools.

    The lock is dropped when pickled and made anew in the unpickling process.
    """

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state.pop("_lock", None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()


class WrapperAccounting(PerProcessLock):
    """Mixin for wrappers around an inner ``self.llm`` that keep their own ``self._cost``."""

    def last_cost(self) -> Usage:
        return self._cost.last()  # type: ignore[attr-defined]

    def calls_needed(self, n: int) -> int:
        return calls_needed(self.llm, n)  # type: ignore[attr-defined]

