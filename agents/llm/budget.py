"""``BudgetedLLM``: an LLM wrapper that enforces a call and token budget.

The papers report success at a budget of LLM calls (30-300), so agents run
inside one. The rules:

* **Calls** are model requests as the wrapped LLM reports them (its
  ``last_cost()``): one per ``complete`` normally; a server that ignores ``n``
  makes the OpenAI client send extra requests, and each counts. Before a
  request the budget reserves the wrapped LLM's worst case
  (``calls_needed(n)``, 1 unless it says more) and raises ``BudgetExceeded``
  if that would go past ``max_calls``, so the wrapped LLM never exceeds it,
  even with several threads.
* **Tokens** (prompt + completion) are only known after a request. The request
  that crosses ``max_tokens`` still returns its answer (it is paid for); every
  later request raises ``BudgetExceeded`` before calling the model.
* A cache hit counts what the recorded request cost (see ``CachedLLM``), so a
  replayed run stops exactly where the recorded one did.

``usage`` is this budget's own spend; ``reset_budget()`` zeroes it (between
episodes, not while requests are in flight).
"""
from __future__ import annotations

import threading
from typing import Any

from .accounting import CostTracker, WrapperAccounting, usage_since, usage_snapshot
from .base import LLM, BudgetExceeded, Usage
from .info import info_of
from .request import Request


class BudgetedLLM(WrapperAccounting):
    """Wraps ``llm``; at most ``max_calls`` model calls and about ``max_tokens`` tokens (None = unlimited)."""

    def __init__(self, llm: LLM, max_calls: int | None = None, max_tokens: int | None = None) -> None:
        if max_calls is not None and max_calls < 0 or max_tokens is not None and max_tokens < 0:
            raise ValueError(f"budgets must be >= 0 or None, got max_calls={max_calls}, max_tokens={max_tokens}")
        self.llm = llm
        self.name = llm.name
        self.info = info_of(llm)  # the wrapped LLM's (grammar support, simulated, price)
        self.max_calls = max_calls
        self.max_tokens = max_tokens
        self._cost = CostTracker()
        self.usage: Usage = self._cost.usage
        self._reserved = 0
        self._lock = threading.Lock()
        self._hooks: tuple[Any, Any, Any] | None = None

    def _hooks_of_llm(self) -> tuple[Any, Any, Any]:
        """``(llm, calls_needed, last_cost)``: the wrapped LLM's optional hooks (accounting.py, None when
        absent), looked up once per wrapped LLM object rather than on every request."""
        hooks = self._hooks
        if hooks is None or hooks[0] is not self.llm:
            llm = self.llm
            need, last = getattr(llm, "calls_needed", None), getattr(llm, "last_cost", None)
            hooks = self._hooks = (llm, need if callable(need) else None, last if callable(last) else None)
        return hooks

    def __getstate__(self) -> dict:
        state = super().__getstate__()
        state.pop("_hooks", None)  # bound methods of the wrapped LLM: looked up again after unpickling
        return state

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self._hooks = None

    def __repr__(self) -> str:
        return f"BudgetedLLM({self.llm!r}, max_calls={self.max_calls}, max_tokens={self.max_tokens})"

    @property
    def remaining_calls(self) -> int | None:
        """Calls left (None when calls are unlimited); in-flight requests count as spent."""
        if self.max_calls is None:
            return None
        with self._lock:
            return max(0, self.max_calls - self.usage.calls - self._reserved)

    @property
    def remaining_tokens(self) -> int | None:
        if self.max_tokens is None:
            return None
        return max(0, self.max_tokens - self.usage.total_tokens)

    def reset_budget(self) -> None:
        """Start a fresh budget (zero calls and tokens spent)."""
        with self._lock:
            self._cost = CostTracker()
            self.usage = self._cost.usage

    def complete(self, request: Request) -> list[str]:
        hooks = self._hooks
        if hooks is None or hooks[0] is not self.llm:
            hooks = self._hooks_of_llm()
        llm, hook, last_cost = hooks
        need = 1 if hook is None else max(1, int(hook(request.n)))
        lock, max_calls, max_tokens = self._lock, self.max_calls, self.max_tokens
        # acquire/release in try/finally rather than `with lock`: the same guarantee, without the
        # context manager's two method calls (a fifth of this method's own cost per request)
        lock.acquire()
        try:
            cost = self._cost
            usage = cost.usage
            if (max_calls is not None and usage.calls + self._reserved + need > max_calls
                    or max_tokens is not None and usage.prompt_tokens + usage.completion_tokens >= max_tokens):
                self._refuse(usage, need)
            self._reserved += need
        finally:
            lock.release()
        if last_cost is None:
            before = usage_snapshot(llm)
        try:
            return llm.complete(request)
        finally:
            spent = last_cost() if last_cost is not None else usage_since(llm, before)
            lock.acquire()
            try:  # every writer of this budget's usage holds this lock: no second one needed
                self._reserved -= need
                cost.record(spent.calls, spent.prompt_tokens, spent.completion_tokens, locked=True)
            finally:
                lock.release()

    def _refuse(self, usage: Usage, need: int) -> None:
        """Raise ``BudgetExceeded`` naming what is spent (the token budget first; called under the lock)."""
        if self.max_tokens is not None and usage.total_tokens >= self.max_tokens:
            raise BudgetExceeded(
                f"token budget spent: {usage.total_tokens} of {self.max_tokens} tokens used "
                f"in {usage.calls} calls; stop the episode or raise max_tokens"
            )
        raise BudgetExceeded(
            f"call budget spent: {usage.calls} of {self.max_calls} calls used"
            + (f", {self._reserved} in flight" if self._reserved else "")
            + (f", this request may need {need}" if need > 1 else "")
            + "; stop the episode or raise max_calls"
        )
