"""BudgetedLLM's lock is free again after every way a request can end: answered, refused, failed inside the
model, or failed in the model's cost hook (the budget stays usable and its counts stay right)."""
from __future__ import annotations

import pytest

from treegym.agents.llm import BudgetedLLM, BudgetExceeded, LLMError
from treegym.agents.llm.request import Request
from treegym.agents.simulated.scripted import ScriptedLLM

HI = Request([{"role": "user", "content": "hi"}])


def test_the_lock_is_free_after_an_answer_a_refusal_and_a_model_error():
    llm = BudgetedLLM(ScriptedLLM(["one"]), max_calls=1)
    assert llm.complete(HI) == ["one"]
    assert not llm._lock.locked()
    with pytest.raises(BudgetExceeded, match="call budget spent: 1 of 1 calls used; stop the episode or raise max_calls"):
        llm.complete(HI)
    assert not llm._lock.locked()
    llm.max_calls = 5
    with pytest.raises(LLMError, match="ran out"):
        llm.complete(HI)
    assert not llm._lock.locked() and llm.remaining_calls == 4


class _BadCostHook:
    """A model whose ``last_cost`` hook returns something that is not a Usage."""

    name = "bad-cost"

    def __init__(self) -> None:
        self.usage = ScriptedLLM(["x"]).usage

    def last_cost(self) -> object:
        return object()

    def complete(self, request: Request) -> list[str]:
        return ["x"]


def test_a_broken_cost_hook_raises_its_error_and_leaves_the_budget_usable():
    llm = BudgetedLLM(_BadCostHook(), max_calls=3)
    with pytest.raises(AttributeError):
        llm.complete(HI)
    assert not llm._lock.locked()
    assert llm.remaining_calls == 3 and llm.usage.calls == 0  # the reservation is returned, nothing counted
