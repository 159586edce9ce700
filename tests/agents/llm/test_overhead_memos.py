"""The second overhead pass's caches answer as the uncached code does (issue 26 item 2)."""
from __future__ import annotations

import gymnasium as gym

import treegym.envs  # noqa: F401 - registers the envs
from treegym.agents.llm.accounting import CostTracker
from treegym.agents.llm.base import Usage
from treegym.agents.llm.budget import BudgetedLLM
from treegym.agents.llm.request import Request
from treegym.agents.prompts import get_prompts


def test_extract_remembers_per_valid_list_what_uncached_reading_answers() -> None:
    env = gym.make("treegym/Game24-v0")
    obs, _ = env.reset(seed=0)
    spec = get_prompts("treegym/Game24-v0").bind(env)
    valid = list(obs["valid_actions"])
    lines = valid[:5] + [f"- {valid[0]}", valid[1].upper(), "Action: " + valid[2], "no action here", "", "12 * 2 = 24"]
    first = [spec.extract(ln, obs) for ln in lines]
    assert first == [spec._extract(ln, obs) for ln in lines]
    assert first[:3] == valid[:3] and first[8] is None
    assert set(spec.action_index(obs).extracted) >= set(lines)
    assert [spec.extract(ln, obs) for ln in lines] == first  # answered from memory, the same
    other = dict(obs, valid_actions=tuple(valid[1:]))  # another list: its own memory
    assert spec.extract(valid[0], other) == spec._extract(valid[0], other)
    env.close()


class _Counting:
    name = "counting"

    def __init__(self, calls_per_request: int = 1) -> None:
        self._cost = CostTracker()
        self.usage = self._cost.usage
        self.per = calls_per_request

    def last_cost(self) -> Usage:
        return self._cost.last()

    def calls_needed(self, n: int) -> int:
        return self.per

    def complete(self, request: Request) -> list[str]:
        self._cost.begin()
        self._cost.charge(self.per, 3, 1)
        return ["ok"] * request.n


def test_budget_reads_the_hooks_of_the_llm_it_wraps_now() -> None:
    budget = BudgetedLLM(_Counting(), max_calls=10)
    assert budget.complete(Request([{"role": "user", "content": "hi"}])) == ["ok"]
    assert (budget.usage.calls, budget.usage.total_tokens, budget.last_cost().calls) == (1, 4, 1)
    budget.llm = _Counting(calls_per_request=3)  # swapped: its own hooks, not the first LLM's
    budget.complete(Request([{"role": "user", "content": "hi"}]))
    assert (budget.usage.calls, budget.last_cost().calls) == (4, 3)
    import pickle

    again = pickle.loads(pickle.dumps(budget))
    again.complete(Request([{"role": "user", "content": "hi"}]))
    assert again.usage.calls == 7


def test_cost_tracker_last_is_this_requests_cost() -> None:
    t = CostTracker()
    assert t.last().calls == 0
    t.begin()
    t.charge(1, 10, 2)
    t.note(0, 5, 0)
    assert (t.last().calls, t.last().prompt_tokens, t.last().completion_tokens) == (1, 15, 2)
    assert (t.usage.calls, t.usage.prompt_tokens) == (1, 10)
    t.begin()
    assert t.last().total_tokens == 0


def test_a_states_context_is_rendered_once_and_answers_as_rendering_it_again() -> None:
    from treegym.agents.prompts import Step

    env = gym.make("treegym/ALFWorld-v0")
    obs, _ = env.reset(seed=0)
    spec = get_prompts("treegym/ALFWorld-v0").bind(env)
    action = obs["valid_actions"][0]
    after, *_ = env.step(action)
    history = [Step(action, after["text"])]
    value = spec.value_messages(after, history)
    assert len(spec._memo().contexts) == 1
    propose = spec.propose_messages(after, list(history), 3)  # another kind, the same state: from memory
    assert len(spec._memo().contexts) == 1
    fresh = get_prompts("treegym/ALFWorld-v0").bind(env)  # nothing remembered
    assert value == fresh.value_messages(after, history) and propose == fresh.propose_messages(after, history, 3)
    copy = dict(after)  # an equal copy: rendered anew, to the same text
    assert "\n".join(spec._context_block(copy, history)) == "\n".join(spec._context(after, history))
    assert len(spec._memo().contexts) == 2
    env.reset(seed=1)  # another task: nothing kept from the last one
    assert "\n".join(spec._context_block(after, history)) == "\n".join(spec._context(after, history))
    assert len(spec._memo().contexts) == 1
    env.close()


def test_a_childs_history_extends_its_parents_and_reads_as_rendering_it_whole() -> None:
    from treegym.agents.prompts import Step

    env = gym.make("treegym/ALFWorld-v0")
    obs, _ = env.reset(seed=0)
    spec = get_prompts("treegym/ALFWorld-v0").bind(env)
    history: list[Step] = []
    for action in obs["valid_actions"][:4]:
        after, *_ = env.step(action)
        history = history + [Step(action, after["text"])]  # a child's path: its parent's steps plus one
        block = spec._history_block(history)
        assert "\n".join(block) == "\n".join(spec.history_lines(history)) and len(block) == len(history)
        assert spec._history_block(list(history)) is block  # the same steps: from memory
    assert len(spec._memo().histories) == 4
    reordered = [history[1], history[0]]  # the same step objects at other places: their own rendering
    assert "\n".join(spec._history_block(reordered)) == "\n".join(spec.history_lines(reordered))
    assert spec._history_block([]) == [] and spec.compare_messages(obs, [], history)[1]["content"].count("(no actions yet)") == 1
    env.close()


def test_the_valid_action_index_follows_a_list_changed_in_place() -> None:
    env = gym.make("treegym/ToolTasks-v0")
    obs, _ = env.reset(seed=0)
    spec = get_prompts("treegym/ToolTasks-v0").bind(env)
    valid = list(obs["valid_actions"])
    shown = dict(obs, valid_actions=valid)
    first = spec.action_index(shown)
    assert spec.action_index(shown) is first and first.valid == tuple(valid)
    valid.pop(0)  # the same list object, other content
    assert spec.action_index(shown).valid == tuple(valid)
    env.close()


def test_one_line_answers_as_collapsing_every_whitespace_run() -> None:
    import random

    from treegym.agents.prompts.spec import one_line

    pieces = ["go", "to", "desk 1", " ", "  ", "\n", "\t", "\xa0", "\u2028", "\x1c", "\u3000", "é", "[SEP]", ""]
    rng = random.Random(0)
    texts = ["", " ", "plain text", " lead", "trail ", "a  b", None, 0, 24] + \
        ["".join(rng.choice(pieces) for _ in range(rng.randrange(1, 12))) for _ in range(3000)]
    for text in texts:
        for n in (5, 4000):
            t = " ".join(str(text or "").split())
            assert one_line(text, n) == (t if len(t) <= n else t[: n - 3] + "..."), repr(text)


def test_extract_lines_reads_each_line_as_extract_does() -> None:
    env = gym.make("treegym/ALFWorld-v0")
    obs, _ = env.reset(seed=0)
    spec = get_prompts("treegym/ALFWorld-v0").bind(env)
    valid = list(obs["valid_actions"])
    lines = [valid[0], valid[1].upper(), "- " + valid[2], "Action: " + valid[3], "nonsense", valid[0]]
    fresh = get_prompts("treegym/ALFWorld-v0").bind(env)
    assert spec.extract_lines(lines, obs) == [fresh._extract(ln, obs) for ln in lines]
    assert spec.extract_lines(lines, obs) == [spec.extract(ln, obs) for ln in lines]  # from memory, the same
    env.close()
