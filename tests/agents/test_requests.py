"""LLM requests as values: the transport's ``Request``, the typed request kinds, the oracle's bounded memo."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import gymnasium as gym
import pytest

from support.paths import REPO
from treegym.agents.llm import CachedLLM, Request
from treegym.agents.llm.cache import request_key
from treegym.agents.requests import REQUEST_KINDS, LIVE, ProposeRequest, ReactRequest, ValueRequest
from treegym.agents.simulated import oracle
from treegym.agents.simulated.memo import ByteLRU, approx_size
from treegym.agents.simulated.scripted import ScriptedLLM
from treegym.envs import snapshot
from treegym.scripts.dev import import_graph

USER = [{"role": "user", "content": "hi"}]


def test_a_request_is_a_frozen_value_and_about_is_not_part_of_it():
    r = Request(USER, n=0, stop=["\n"], choices=["a", "b"], about="anything")
    assert r.n == 1 and r.stop == ("\n",) and r.choices == ("a", "b") and isinstance(r.messages, tuple)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.n = 2  # type: ignore[misc]
    assert r == Request(USER, stop=("\n",), choices=("a", "b"), about="other")
    assert r.replace(max_tokens=8).about == "anything" and r.replace(max_tokens=8).max_tokens == 8
    assert request_key("m", r) == request_key("m", r.replace(about=None))  # the cache never reads it
    with pytest.raises(TypeError, match="sequence of chat messages"):
        Request("hi")  # type: ignore[arg-type]


def test_wrappers_pass_the_typed_request_through_untouched(tmp_path):
    seen = []

    def reply(request: Request) -> str:
        seen.append(request.about)
        return "ok"

    reply.takes_request = True  # type: ignore[attr-defined]
    llm = CachedLLM(ScriptedLLM(reply), tmp_path / "c.jsonl")
    typed = ValueRequest(USER, env=object())
    assert typed.send(llm) == ["ok"] and seen == [typed]
    assert typed.send(llm) == ["ok"] and seen == [typed]  # the second answer came from the cache


def test_the_typed_request_is_the_one_object_the_backend_gets(tmp_path):
    from treegym.agents.llm import BudgetedLLM

    got = []

    def reply(request: Request) -> str:
        got.append(request)
        return "ok"

    reply.takes_request = True  # type: ignore[attr-defined]
    typed = ValueRequest([{"role": "user", "content": "hi"}], env=object(), choices=["sure", "likely"], n=0)
    assert typed.send(BudgetedLLM(ScriptedLLM(reply), max_calls=1)) == ["ok"] and got[0] is typed
    assert typed.messages == tuple(USER) and typed.n == 1 and typed.choices == ("sure", "likely")
    assert (typed.max_tokens, typed.stop, typed.about) == (None, None, typed)
    assert request_key("m", typed) == request_key("m", Request(USER, choices=("sure", "likely")))
    plain = typed.replace(max_tokens=8)  # a backend that changes a setting gets a plain Request, about kept
    assert type(plain) is Request and plain.max_tokens == 8 and plain.about is typed and plain.choices == typed.choices
    with pytest.raises(TypeError, match="sequence of chat messages"):
        ValueRequest(["hi"], env=object())  # type: ignore[list-item]


def test_the_kinds_and_what_they_carry():
    assert REQUEST_KINDS == ("react", "propose", "compare", "value", "reflect", "imagine")
    env = object()
    p = ProposeRequest(USER, env, ((None, ["a"]),), k=3, avoid=["x"], temperature=0.7, seed=2)
    assert p.states == ((None, ("a",)),) and p.avoid == ("x",) and p.k == 3
    sent = p.to_llm()
    assert sent.about is p and (sent.n, sent.temperature, sent.seed) == (1, 0.7, 2)
    assert ReactRequest(USER, env).states == (LIVE,)
    assert ReactRequest(USER).to_llm().about is None  # about no env: about nothing


def test_the_transport_imports_nothing_else_from_agents():
    root = Path(import_graph.__file__).resolve().parents[2]
    lines, _clean = import_graph.report(["agents"], root)
    assert not [line for line in lines if line.startswith("upward arrow: treegym.agents.llm")]
    for path in (root / "agents" / "llm").glob("*.py"):  # not even by name (importlib)
        code = re.sub(r'"""[\s\S]*?"""', "", path.read_text(encoding="utf-8"))
        assert not re.search(r"treegym\.agents\.(?!llm\b)", code), path.name


def test_the_byte_lru_evicts_the_least_recently_used_past_its_bound():
    memo = ByteLRU(max_bytes=20_000)
    for i in range(50):
        memo.entry(("state", i)).update(valid=["x" * 100] * 5)
        memo.resized(("state", i))
    stats = memo.stats()
    assert stats["bytes"] <= 20_000 and stats["evictions"] > 0 and 0 < stats["entries"] < 50
    assert ("state", 49) in memo and ("state", 0) not in memo
    memo.entry(("state", 49 - stats["entries"] + 1))  # the oldest kept one becomes the most recent
    memo.entry(("state", 99)).update(valid=["y" * 2000])
    memo.resized(("state", 99))
    assert ("state", 49 - stats["entries"] + 1) in memo and ("state", 99) in memo
    memo.resize(1)
    assert len(memo) == 0 and memo.stats()["bytes"] == 0
    with pytest.raises(ValueError, match="positive"):
        memo.resize(0)
    assert approx_size(["x" * 1000]) > 1000


def test_the_oracle_memo_is_bounded_in_bytes_and_settable():
    env = gym.make("treegym/Game24-v0")
    before = oracle.memo_stats()
    try:
        oracle.set_memo_limit(30_000)
        for task in range(900, 960):
            env.reset(options={"task_id": task})
            oracle.truth(ProposeRequest(USER, env, ((snapshot(env), ()),), k=3))
        stats = oracle.memo_stats()
        assert stats["max_bytes"] == 30_000 and stats["bytes"] <= 30_000
        assert stats["evictions"] > before["evictions"] and stats["entries"] < 60
        # an evicted state is simply examined again, with the same truth
        env.reset(options={"task_id": 900})
        first = oracle.truth(ProposeRequest(USER, env, ((snapshot(env), ()),), k=3))
        oracle.set_memo_limit(1)
        again = oracle.truth(ProposeRequest(USER, env, ((snapshot(env), ()),), k=3))
        assert (again.correct, again.wrong) == (first.correct, first.wrong)
    finally:
        oracle.set_memo_limit(before["max_bytes"])
        env.close()
    assert oracle.memo_stats()["max_bytes"] == oracle.DEFAULT_MEMO_BYTES


def test_the_memo_bound_comes_from_the_environment_for_every_process(monkeypatch):
    monkeypatch.setenv("TREEGYM_ORACLE_MEMO_MB", "0.5")
    assert oracle._memo_bytes_from_env() == 512 * 1024
    monkeypatch.setenv("TREEGYM_ORACLE_MEMO_MB", "lots")
    with pytest.raises(ValueError, match="TREEGYM_ORACLE_MEMO_MB='lots' must be a positive number of megabytes"):
        oracle._memo_bytes_from_env()
    monkeypatch.delenv("TREEGYM_ORACLE_MEMO_MB")
    assert oracle._memo_bytes_from_env() == oracle.DEFAULT_MEMO_BYTES


def test_an_llm_taking_one_request_answers_through_the_budget():
    from treegym.agents.llm.budget import BudgetedLLM
    from treegym.agents.llm.base import Usage
    from treegym.agents.requests import ReactRequest

    class NewStyle:
        name, usage = "new", Usage()

        def complete(self, request):
            return ["ok"] * request.n

    assert ReactRequest([{"role": "user", "content": "hi"}], n=2).send(BudgetedLLM(NewStyle(), max_calls=3)) == ["ok", "ok"]


def test_the_readme_custom_llm_example_runs_an_episode():
    """docs/llms.md's "Your own LLM" block, run as written, then one episode with the agent it makes."""
    import re
    from pathlib import Path

    import gymnasium as gym

    import treegym.envs  # noqa: F401  (registers the ids)
    from treegym.agents.experiments.episode import run_episode

    text = (REPO / "docs" / "llms.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "class EchoFirstChoice" in b)
    scope: dict = {}
    exec(compile(block, "docs/llms.md", "exec"), scope)
    record = run_episode(gym.make("treegym/Game24-v0"), scope["agent"], seed=0)
    assert record["error"] is None and record["steps"] > 0
    assert scope["EchoFirstChoice"].usage.calls >= record["steps"]


def test_state_size_estimates_leave_out_what_every_state_shares():
    class Shared:
        __shared_by_states__ = True

        def __init__(self) -> None:
            self.data = ["x" * 1000] * 100

    class Held:
        def __init__(self) -> None:
            self.data = [str(i) * 1000 for i in range(100)]

    assert approx_size({"state": 1, "tables": Shared()}) < 1_000
    assert approx_size({"state": 1, "tables": Held()}) > 100_000
    # a WebShop state points at its catalog (megabytes); its estimate is the state's own
    env = gym.make("treegym/WebShop-v0")
    try:
        obs, _ = env.reset(seed=0)
        env.step(obs["valid_actions"][0])
        payload = snapshot(env).payload
        catalog = env.unwrapped.catalog
        assert approx_size(catalog.goals) > 1_000_000 and approx_size(payload) < 100_000
    finally:
        env.close()


@pytest.mark.parametrize("cls", [ReactRequest, ProposeRequest, ValueRequest])
def test_a_prepared_request_equals_the_constructed_one(cls):
    ref = (None, ("a", "b"))
    settings = {"temperature": 0.7, "seed": 3, "choices": ("x", "y")}
    if cls is ProposeRequest:
        settings.update(k=3, avoid=("a",))
    if cls is ReactRequest:
        settings.update(n=2, avoid=("a",), opinions=("b",))
    fast = cls.prepared(USER, "env", (ref,), **settings)
    slow = cls(USER, "env", (ref,), **settings)
    assert type(fast) is cls and fast == slow and fast.about is fast
    assert {f.name: getattr(fast, f.name) for f in dataclasses.fields(cls)} == \
           {f.name: getattr(slow, f.name) for f in dataclasses.fields(cls)}
    assert isinstance(fast.messages, tuple) and fast.to_llm() == slow.to_llm()
    with pytest.raises(TypeError, match="sequence of chat messages"):
        cls.prepared(["hi"], "env", (ref,))  # the messages are still checked
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.n = 5  # type: ignore[misc]
