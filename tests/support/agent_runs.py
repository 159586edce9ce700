"""Running search/attempt agents on Game of 24 for the agent tests (real env, real LLM backends).

``ACCURATE`` / ``WEAK`` are synthetic-LLM settings: a model that is right about
every kind of request most of the time, and one that is mostly wrong.
"""
from __future__ import annotations

from typing import Any, Sequence

import gymnasium as gym

from treegym.agents.experiments.episode import run_episode
from treegym.agents.llm_specs import make_llm
from treegym.agents.simulated.scripted import ScriptedLLM
from treegym.agents.policy import AgentGaveUp
from treegym.agents.registry import make_agent
from treegym.envs import snapshot
from treegym.agents.llm.request import Request

ENV = "treegym/Game24-v0"
TASKS = (900, 901, 902, 903, 904, 905)
PASS_TASKS = tuple(range(900, 920))  # pass rates: the first 20 test puzzles
ACCURATE = "synthetic:p_correct=0.95,judge_acc=0.95,position_bias=0,value_noise=0.1,seed=0"
WEAK = "synthetic:p_correct=0.1,judge_acc=0.5,position_bias=0.3,value_noise=1.0,seed=0"


def episode(agent: str, llm: Any, task_id: int, **options: Any) -> tuple[dict, Any]:
    """One episode of ``agent`` on task ``task_id``; returns (run record, policy)."""
    env = gym.make(ENV)
    try:
        policy = make_agent(agent, ENV, llm, seed=options.pop("seed", 0), **options)
        return run_episode(env, policy, task_id=task_id, seed=0), policy
    finally:
        env.close()


def pass_rate(agent: str, spec: str, tasks: Sequence[int] = PASS_TASKS, **options: Any) -> float:
    wins = 0
    for t in tasks:
        record, _ = episode(agent, make_llm(spec, env_id=ENV), t, **dict(options))
        wins += bool(record["success"])
    return wins / len(tasks)


def searched(agent: str, llm: Any, task_id: int = 900, **options: Any) -> tuple[Any, Any, Any, Any]:
    """Run only the search of ``agent`` (its first ``act``) on a fresh env.

    Returns (policy, env, the snapshot taken just before, the first action or
    None when the agent gave up: a spent budget before any usable answer).
    """
    env = gym.make(ENV)
    obs, info = env.reset(options={"task_id": task_id})
    policy = make_agent(agent, ENV, llm, seed=options.pop("seed", 0), **options)
    policy.reset()
    policy.bind(env)
    before = snapshot(env)
    try:
        action = policy.act(obs, info)
    except AgentGaveUp:
        action = None
    return policy, env, before, action


def same_state(env: Any, snap: Any) -> bool:
    """Is the env exactly in ``snap``'s state (simulator state, step counter, task)?"""
    now = snapshot(env)
    return (now.payload, now.steps, now.max_steps, now.task) == (snap.payload, snap.steps, snap.max_steps, snap.task)


def recording(spec: str = ACCURATE) -> ScriptedLLM:
    """A ScriptedLLM that answers like the synthetic model ``spec`` and records every prompt."""
    model = make_llm(spec, env_id=ENV)

    def reply(request: Request) -> str:  # the prompt and its typed request, greedy and unseeded
        return model.complete(Request(request.messages, about=request.about))[0]

    reply.takes_request = True  # type: ignore[attr-defined]
    return ScriptedLLM(reply, name="recorded-synthetic")


def run_with_budget(agent: str, spec: str, budget: int, out: Any, tasks: Sequence[int] = TASKS[:4],
                    **options: Any) -> list[dict]:
    """``agent`` through the episode runner (``evaluate``) on 2 threads with the run's call budget."""
    from treegym.agents.experiments.evaluation import RunConfig, evaluate

    config = RunConfig(env_id=ENV, agent=agent, llm_spec=spec, task_ids=list(tasks), budget=budget, workers=2,
                       agent_options=dict(options))
    return evaluate(config, out, progress=False)


def assert_call_budget_holds_under_threads(agent: str, out: Any, **options: Any) -> None:
    """The run's call budget of 6 holds for ``agent`` on 2 threads over 4 tasks: every episode spends
    at most 6 calls and ends without error or gives up because the budget ran out."""
    records = run_with_budget(agent, WEAK, 6, out, **options)
    assert len(records) == 4
    for r in records:
        assert r["llm_calls"] <= 6 and r["prompt_tokens"] > 0
        assert r["error"] is None or r["error"].startswith(("agent gave up", "budget exhausted")), r["error"]


GARBAGE = ("", "lorem ipsum", "{{{ 42", "Action: ", "Thought: hmm\nAction: 99 * 99 = 9801", "sure maybe", "A or B?",
           "\x00\x01 \u202e24", "answer: 24 = 24")


def garbage_episode(agent: str, task_id: int = 901, **options: Any) -> tuple[dict, Any]:
    """One episode of ``agent`` with a model that only answers garbage (cycled); returns (record, llm)."""
    llm = ScriptedLLM(list(GARBAGE), cycle=True, name="garbage")
    record, _ = episode(agent, llm, task_id, budget=40, **options)
    return record, llm


def required_options(agent: str) -> dict:
    """Options ``agent`` cannot run without: cot@K and reflexion are defined by the env's
    success signal (pass@K, Reflexion's failure feedback) and refuse to run unless
    ``peek_success`` allows that oracle."""
    return {"peek_success": True} if agent.split("@")[0] in ("cot", "reflexion") else {}
