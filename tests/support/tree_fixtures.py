"""Seeded searches whose saved trees are compared against recorded fixtures
(``tests/fixtures/search_trees/``): every search agent on every env family but TextWorld (an optional
extra) with the offline synthetic LLM, as ``treegym run`` would play it. The fixtures were recorded before
the overhead optimisations (Game24 and ToolTasks before issue 26 item 2, the others before issue 37), so a faster framework must grow the very same trees: actions,
values, visit counts, and the prompts it sent.

Record missing fixtures: ``python -m tests.support.tree_fixtures`` from the repository root; re-record all
(only when a change of behaviour is intended) with ``--overwrite``."""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "search_trees"
AGENTS = ("bfs", "dfs", "dfsdt", "mcts", "lats", "elo", "astar")
ENVS = {"game24": "treegym/Game24-v0", "tooltasks": "treegym/ToolTasks-v0",
        # recorded at commit eec5079, before the overhead work of issue 37
        "alfworld": "treegym/ALFWorld-v0", "webshop": "treegym/WebShop-v0", "toolbench": "treegym/ToolBench-v0",
        "restbench": "treegym/RestBench-v0", "bmoca": "treegym/BMoCA-v0"}
LLM_SPEC = "synthetic:p_correct=0.5,judge_acc=0.8,value_noise=0.3,seed=0"
BUDGET = 30
SEED = 0


class PromptDigest:
    """An LLM that forwards everything to ``llm`` and hashes the chat messages of every ``complete`` call
    in order (a list of messages, or a request object carrying ``messages``): equal digests, equal prompts."""

    def __init__(self, llm: Any):
        self._llm = llm
        self._hash = hashlib.sha256()
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._llm, name)

    def complete(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        messages = request if isinstance(request, (list, tuple)) else getattr(request, "messages", request)
        self._hash.update(json.dumps(list(messages), sort_keys=True, default=str).encode())
        self.calls += 1
        return self._llm.complete(request, *args, **kwargs)

    def hexdigest(self) -> str:
        return self._hash.hexdigest()


def search_tree(env_key: str, agent: str) -> dict[str, Any]:
    """The JSON of the tree ``agent`` grows from ``reset(seed=SEED)`` of the env, LLM budget ``BUDGET``,
    with ``prompt_digest``/``prompt_calls``: a hash of every prompt the search sent, and their count."""
    import treegym.envs  # noqa: F401 - registers the ids
    from treegym.agents.llm_specs import make_llm
    from treegym.agents.registry import make_agent

    env_id = ENVS[env_key]
    env = gym.make(env_id)
    try:
        obs, info = env.reset(seed=SEED)
        llm = PromptDigest(make_llm(LLM_SPEC, env_id=env_id))
        policy = make_agent(agent, env_id, llm, seed=0, budget=BUDGET)
        policy.reset()
        policy.bind(env)
        policy.act(obs, info)
        tree = json.loads(json.dumps(policy.result.tree.to_json(), default=str))
        tree["prompt_digest"], tree["prompt_calls"] = llm.hexdigest(), llm.calls
        return tree
    finally:
        env.close()


def fixture_path(env_key: str, agent: str) -> Path:
    return FIXTURES / f"{env_key}-{agent}.json"


def record(overwrite: bool = False) -> None:
    """Record the fixtures that are missing (all of them with ``overwrite``)."""
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for env_key in ENVS:
        for agent in AGENTS:
            if fixture_path(env_key, agent).exists() and not overwrite:
                continue
            tree = search_tree(env_key, agent)
            fixture_path(env_key, agent).write_text(json.dumps(tree, ensure_ascii=False, indent=0, sort_keys=True))
            print(env_key, agent, len(tree["nodes"]), "nodes")


if __name__ == "__main__":
    record(overwrite="--overwrite" in sys.argv[1:])
    sys.exit(0)
