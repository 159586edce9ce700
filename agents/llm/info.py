"""What an LLM declares about itself beyond ``complete``: :class:`LLMInfo` and the optional members.

Every member of an LLM that callers read besides ``name``, ``usage`` and
``complete`` is declared here, in :class:`DescribedLLM` (all optional; a
custom LLM without them gets the defaults) and :class:`LLMWrapper`:

* ``info: LLMInfo`` - simulated or not, reached over HTTP, grammar support,
  price. Read it with :func:`info_of`; wrappers (budget, cache) pass their
  inner LLM's on. The run records carry it (``llm_info``), so the report reads
  it from there and never recognises a backend by its name.
* ``result_config() -> dict`` - the settings that can change an answer (a
  run's resume key); :func:`result_config_of` (default ``{"name": name}``).
* ``preflight() -> None`` - one tiny request that raises ``LLMError`` naming
  a wrong key, model or endpoint; :func:`preflight_of`.
* ``last_cost() -> Usage`` and ``calls_needed(n) -> int`` - the cost hooks of
  ``accounting.py`` (the budget reads them there).
* a wrapper's ``llm`` - the LLM it wraps; :func:`unwrap` sees through wrappers;
  a budget wrapper's ``max_calls`` (:class:`BudgetedWrapper`) - its call limit, which a
  search agent takes as its default budget.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol

from .base import LLM, Usage


@dataclass(frozen=True)
class LLMInfo:
    """Facts about an LLM backend that callers act on (module docstring)."""

    #: answers from the env's expert, not a model (the scripted and synthetic LLMs): results say "simulated"
    simulated: bool = False
    #: reached over HTTP, so it takes ``timeout=`` and ``max_retries=`` (``treegym run --timeout``)
    over_http: bool = False
    #: constrains decoding to ``request.choices`` (agents then send the valid actions as choices)
    grammar: bool = False
    #: USD per 1M (input, output) tokens; None = unknown (the report looks the model up in its price table)
    price: tuple[float, float] | None = None

    def as_record(self) -> dict[str, Any]:
        """The JSON form run records carry as ``llm_info``."""
        return {"simulated": self.simulated, "over_http": self.over_http, "grammar": self.grammar,
                "price": list(self.price) if self.price is not None else None}


#: What an LLM that declares nothing is: a real model, in-process, no grammar, price unknown.
DEFAULT_INFO = LLMInfo()
#: The simulated backends' (``agents/simulated``): no model behind them, nothing to pay.
SIMULATED_INFO = LLMInfo(simulated=True, price=(0.0, 0.0))


class DescribedLLM(LLM, Protocol):
    """An LLM with every optional member (each may be left out; see the module docstring)."""

    info: LLMInfo

    def result_config(self) -> dict[str, Any]: ...

    def preflight(self) -> None: ...

    def last_cost(self) -> Usage: ...

    def calls_needed(self, n: int) -> int: ...


class LLMWrapper(LLM, Protocol):
    """An LLM around another one (budget, cache): ``llm`` is the wrapped LLM, ``info`` is its info."""

    llm: LLM
    info: LLMInfo


class BudgetedWrapper(LLMWrapper, Protocol):
    """A wrapper that stops after ``max_calls`` model calls (None: no limit), as ``budget.BudgetedLLM``."""

    max_calls: int | None


def info_of(llm: Any) -> LLMInfo:
    """``llm.info``, or :data:`DEFAULT_INFO` for an LLM that declares none (None: no LLM)."""
    info = getattr(llm, "info", None)
    return info if isinstance(info, LLMInfo) else DEFAULT_INFO


def unwrap(llm: Any) -> Any:
    """The innermost LLM under wrappers (:class:`LLMWrapper`), or ``llm`` itself."""
    for _ in range(8):  # wrappers nest a few deep; a bound on a self-referencing object
        inner = getattr(llm, "llm", None)
        if inner is None or not callable(getattr(inner, "complete", None)):
            break
        llm = inner
    return llm


def result_config_of(llm: Any) -> dict[str, Any]:
    """The result-affecting settings of ``llm`` seen through wrappers: its ``result_config()``, else its name."""
    inner = unwrap(llm)
    describe = getattr(inner, "result_config", None)
    cfg = dict(describe()) if callable(describe) else {}
    cfg.setdefault("name", str(getattr(inner, "name", type(inner).__name__)))
    return cfg


def preflight_of(llm: Any) -> Callable[[], None] | None:
    """``llm``'s own ``preflight``, or None when it has none (a wrapper's inner LLM is not asked:
    a cache may answer without it)."""
    check = getattr(llm, "preflight", None)
    return check if callable(check) else None
