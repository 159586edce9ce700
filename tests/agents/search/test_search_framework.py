"""The search framework: env access through snapshots, the LLM hooks, tree export, the agent loop."""
from __future__ import annotations

import json

import gymnasium as gym
import pytest

from treegym.agents.search.agent import SearchPolicy
from treegym.agents.prompts import PromptSpec, get_prompts
from treegym.agents.experiments.episode import run_episode
from treegym.agents.simulated.scripted import ScriptedLLM, oracle_reply
from treegym.agents.llm_specs import make_llm
from treegym.agents.search.algorithm import SearchAlgorithm
from treegym.agents.search.config import SearchConfig
from treegym.agents.search.tree import SearchNode, SearchTree
from treegym.agents.search.elo import EloSearch
from treegym.envs import snapshot
from treegym.scripts.cli import main as cli_main
from treegym.scripts.cmd_tree import TreeFileError, load_tree, render_tree

ENV = "treegym/Game24-v0"


def _hooks(llm, task_id=900, **opts):
    env = gym.make(ENV)
    obs, info = env.reset(options={"task_id": task_id})
    hooks = SearchConfig(env, get_prompts(ENV), llm, **opts)
    root = hooks.make_root(obs, info)
    hooks.tree = SearchTree(root, algorithm="test", env_id=ENV)
    return env, hooks, root


def test_expand_restores_steps_snapshots_and_reuses_children():
    env, hooks, root = _hooks(ScriptedLLM(["x"]))
    a = hooks.expand(root, "10 - 4 = 6 (left: 5 6 6)")
    b = hooks.expand(root, "5 * 4 = 20 (left: 6 10 20)")  # must start again from the root state
    assert a.observation["left"] == ("5", "6", "6")
    assert b.observation["left"] == ("6", "10", "20")
    assert hooks.expand(root, "10 - 4 = 6 (left: 5 6 6)") is a
    assert hooks.expansions == 2
    assert [c.id for c in root.children] == [1, 2] and a.parent is root and a.depth == 1
    c = hooks.expand(a, "6 - 5 = 1 (left: 1 6)")
    assert c.actions() == ["10 - 4 = 6 (left: 5 6 6)", "6 - 5 = 1 (left: 1 6)"]
    end = hooks.expand(c, "6 - 1 = 5 (left: 5)")
    assert end.terminal and not end.success
    with pytest.raises(ValueError, match="terminal"):
        hooks.expand(end, "5 + 1")
    # a malformed action is a child too: the env says what was wrong (step never raises)
    bad = hooks.expand(root, "please add things")
    assert bad.observation["text"].startswith("Invalid action") and not bad.terminal


@pytest.mark.parametrize("replies,expected", [
    (["A", "B"], 1.0),        # A wins in both orders
    (["B", "A"], 0.0),        # B wins in both orders
    (["A", "A"], 0.5),        # position bias: the two orders disagree
    (["maybe", "B"], 0.5),    # an unparseable judgment counts as a tie
])
def test_compare_is_judged_twice_with_the_order_swapped(replies, expected):
    llm = ScriptedLLM(replies)
    env, hooks, root = _hooks(llm)
    a = hooks.expand(root, "10 - 4 = 6 (left: 5 6 6)")
    b = hooks.expand(root, "10 + 4 = 14 (left: 5 6 14)")
    assert hooks.compare(a, b) == expected
    assert llm.usage.calls == 2
    first, second = (m[-1]["content"] for m in llm.calls)
    assert first.index("10 - 4") < first.index("10 + 4")
    assert second.index("10 + 4") < second.index("10 - 4")


def test_propose_dedupes_normalises_filters_and_avoids():
    reply = ("1. 10 - 4 = 6 (left: 5 6 6)\n2. 10 - 4 = 6 (left: 5 6 6)\n3. 4 + 5\n"
             "4. 11 * 3 = 33 (left: 33)\n5. 6 * 4 = 24 (left: 5 10 24)\nthat's all")
    env, hooks, root = _hooks(ScriptedLLM([reply]))
    got = hooks.propose(root, 5, avoid=["6 * 4 = 24 (left: 5 10 24)"])
    # duplicate merged, bare "4 + 5" rewritten to the env's line, the impossible 11 * 3 dropped
    assert got == ["10 - 4 = 6 (left: 5 6 6)", "5 + 4 = 9 (left: 6 9 10)"]
    assert all(a in root.observation["valid_actions"] for a in got)
    prompt = hooks.llm.calls[0][-1]["content"]
    assert "6 * 4 = 24 (left: 5 10 24)" in prompt and "Propose 5" in prompt


def test_propose_without_filter_keeps_what_the_env_would_reject():
    env, hooks, root = _hooks(ScriptedLLM(["11 * 3 = 33 (left: 33)"]), filter_valid=False)
    assert hooks.propose(root, 3) == ["11 * 3 = 33 (left: 33)"]


def test_sample_actions_is_one_call_with_n_samples():
    llm = make_llm("synthetic:p_correct=0.5,seed=3", env_id=ENV)
    env, hooks, root = _hooks(llm)
    samples = hooks.sample_actions(root, 6)
    assert len(samples) == 6 and llm.usage.calls == 1
    assert len(set(samples)) > 1  # i.i.d. samples differ


def test_value_and_reflect_hooks():
    env, hooks, root = _hooks(make_llm("scripted", env_id=ENV))
    good = hooks.expand(root, "10 - 4 = 6 (left: 5 6 6)")    # 6 * 5 - 6 = 24
    dead = hooks.expand(root, "10 * 6 = 60 (left: 4 5 60)")  # no way to 24
    assert hooks.value(good) == 1.0
    assert hooks.value(dead) == 0.0
    assert "24" in hooks.reflect(dead, "failed")


def test_tree_json_marks_the_chosen_path_and_renders(tmp_path):
    env, hooks, root = _hooks(ScriptedLLM(["x"]))
    a = hooks.expand(root, "5 * 4 = 20 (left: 6 10 20)")
    hooks.expand(root, "10 + 4 = 14 (left: 5 6 14)")
    b = hooks.expand(a, "10 - 6 = 4 (left: 4 20)")
    win = hooks.expand(b, "20 + 4 = 24 (left: 24)")
    win.value = 12.5
    tree = hooks.tree
    tree.value_name = "elo"
    tree.chosen = win
    path = tree.save(tmp_path / "t.json")
    data = json.loads(path.read_text())
    assert [n["id"] for n in data["nodes"] if n["chosen"]] == [0, 1, 3, 4]
    assert data["nodes"][4]["success"] and data["nodes"][4]["value"] == 12.5
    assert data["nodes"][2]["parent"] == 0 and not data["nodes"][2]["chosen"]
    text = render_tree(load_tree(path))
    assert "* 20 + 4 = 24 (left: 24)  elo=12.5 visits=0  [solved]" in text
    assert "  10 + 4 = 14 (left: 5 6 14)" in text
    top = render_tree(data, top=1)
    assert "10 + 4 = 14" not in top and "1 more children" in top
    shallow = render_tree(data, depth=1)
    assert "20 + 4" not in shallow and "2 nodes below depth 1" in shallow


def test_tree_command_prints_and_rejects_broken_files(tmp_path, capsys):
    env, hooks, root = _hooks(ScriptedLLM(["x"]))
    hooks.expand(root, "5 * 4 = 20 (left: 6 10 20)")
    path = hooks.tree.save(tmp_path / "t.json")
    assert cli_main(["tree", str(path), "--depth", "3"]) == 0
    assert "5 * 4 = 20" in capsys.readouterr().out
    broken = tmp_path / "broken.json"
    broken.write_text('{"nodes": [')
    assert cli_main(["tree", str(broken)]) == 2
    assert "not JSON" in capsys.readouterr().err
    with pytest.raises(TreeFileError, match="not a treegym search tree"):
        broken.write_text('{"nodes": []}')
        load_tree(broken)


class _PartialSearch(SearchAlgorithm):
    """Explores one step and chooses that non-terminal node: the agent must continue greedily."""

    name = "partial"

    def search(self, root: SearchNode, hooks: SearchConfig) -> None:
        hooks.expand(root, hooks.propose(root, 1)[0])

    def choose(self, tree: SearchTree) -> SearchNode | None:
        return tree.nodes[-1]


def test_agent_plays_the_chosen_path_then_continues_greedily(tmp_path):
    env = gym.make(ENV)
    agent = SearchPolicy(_PartialSearch, ENV, make_llm("scripted", env_id=ENV), tree_out=str(tmp_path / "tree-{task}.json"))
    rec = run_episode(env, agent, task_id=903, seed=0)
    assert rec["success"] and rec["steps"] == 3
    stats = agent.stats()
    assert stats["greedy_steps"] == 2 and stats["search_nodes"] == 2
    assert (tmp_path / "tree-903.json").exists()


def test_the_greedy_steps_of_an_episode_share_one_search_config_and_the_next_episode_builds_its_own():
    env = gym.make(ENV)
    agent = SearchPolicy(_PartialSearch, ENV, make_llm("scripted", env_id=ENV))
    built: list[SearchConfig] = []
    hooks_of = agent._hooks
    agent._hooks = lambda llm: built.append(hooks_of(llm)) or built[-1]  # records each config built
    first = run_episode(env, agent, task_id=903, seed=0)
    assert agent.stats()["greedy_steps"] == 2 and len(built) == 2  # the search's, then one for both greedy steps
    second = run_episode(env, agent, task_id=903, seed=0)
    assert len(built) == 4 and built[3] is not built[1] and second["actions"] == first["actions"]


def test_budget_stops_the_search_cleanly_and_restores_the_root(tmp_path):
    env = gym.make(ENV)
    obs, info = env.reset(options={"task_id": 904})
    before = snapshot(env)
    llm = make_llm("synthetic:p_correct=0.5,seed=0", env_id=ENV)
    agent = SearchPolicy(EloSearch, ENV, llm, budget=4)
    agent.reset()
    agent.bind(env)
    agent.run_search(obs, info)
    assert agent.result.stopped == "budget"
    assert llm.usage.calls == 4
    after = snapshot(env)
    assert (after.payload, after.steps, after.rng_state) == (before.payload, before.steps, before.rng_state)


# ----------------------------------------------------------------- env-agnostic: another env, other prompts
class _WalkPrompts(PromptSpec):
    """Minimal prompts for the NumberWalk example env (reach the target with add/sub N)."""

    def propose_messages(self, obs, history, k, avoid=(), reflections=()):
        return [{"role": "user", "content": f"{obs['text']}|{obs['instruction']}|avoid={','.join(avoid)}"}]

    def parse_proposals(self, text, obs):
        return [ln.strip() for ln in text.splitlines() if ln.strip()]

    def compare_messages(self, obs, traj_a, traj_b):
        return [{"role": "user", "content": f"A={traj_a[-1].observation if traj_a else ''}"
                                            f"|B={traj_b[-1].observation if traj_b else ''}"}]


def _walk_reply(messages):
    content = messages[-1]["content"]
    if content.startswith("A="):
        a, b = content[2:].split("|B=")
        at = lambda s: int(s.rsplit("at ", 1)[1].rstrip(".")) if "at " in s else 0  # noqa: E731
        return "A" if abs(7 - at(a)) <= abs(7 - at(b)) else "B"
    avoid = content.split("avoid=")[1].split(",")
    return "\n".join(a for a in ("add 3", "add 2", "add 1") if a not in avoid)


def test_elo_runs_unchanged_on_another_env(walk_env):
    agent = SearchPolicy(EloSearch, "treegym/NumberWalk-v0", ScriptedLLM(_walk_reply), prompts=_WalkPrompts(),
                         explorations=6, max_steps=4)
    rec = run_episode(walk_env, agent, seed=0)
    assert rec["success"], rec
    assert agent.stats()["search_nodes"] > 4


@pytest.mark.parametrize("agent", ["elo", "astar"])
def test_garbage_answers_never_crash_a_search(agent):
    from treegym.agents.registry import make_agent

    llm = ScriptedLLM(["", "Action: `` ", "I'd rather not.\n\n###", "answer: ((((", "7 ÷ 0 = ∞"], cycle=True)
    env = gym.make(ENV)
    policy = make_agent(agent, ENV, llm, memory_id="none") if agent == "astar" else make_agent(agent, ENV, llm)
    rec = run_episode(env, policy, task_id=906, seed=0)
    assert not rec["success"]
    assert rec["error"] and "gave up" in rec["error"]
    assert policy.stats()["search_llm_calls"] <= 100


class _FailingLLM(ScriptedLLM):
    """Answers a few requests, then the backend times out (after its own retries)."""

    def complete(self, request):
        from treegym.agents.llm.base import LLMTimeout

        if self.usage.calls >= 6:
            raise LLMTimeout("the endpoint did not answer in 60 s after 3 tries; check the server")
        return super().complete(request)


def test_a_backend_failure_ends_the_search_not_the_episode():
    env = gym.make(ENV)
    obs, info = env.reset(options={"task_id": 900})
    before = snapshot(env)
    agent = SearchPolicy(EloSearch, ENV, _FailingLLM(oracle_reply(get_prompts(ENV))))
    agent.reset()
    agent.bind(env)
    agent.act(obs, info)
    assert agent.result.stopped == "llm_error"
    assert "did not answer" in agent.stats()["search_llm_error"]
    assert agent.result.chosen is not None and agent.result.chosen.success  # found before the failure
    assert snapshot(env).payload == before.payload


def test_unknown_agent_options_are_named():
    from treegym.agents.registry import make_agent

    llm = make_llm("synthetic:seed=0", env_id=ENV)
    with pytest.raises(ValueError, match=r"unknown option\(s\) 'explorationz'.*explorations"):
        make_agent("elo", ENV, llm, explorationz=3)
    with pytest.raises(ValueError, match="use_h3"):
        make_agent("astar", ENV, llm, use_h3=False)
    assert make_agent("astar", ENV, llm, memory_id=None, budget=5).budget == 5  # `none` on the command line


def test_the_run_budget_becomes_the_search_budget():
    from treegym.agents.llm.budget import BudgetedLLM
    from treegym.agents.registry import make_agent

    llm = make_llm("synthetic:seed=0", env_id=ENV)
    assert make_agent("elo", ENV, llm).budget == 100  # the paper's
    assert make_agent("elo", ENV, BudgetedLLM(llm, max_calls=300)).budget == 300  # treegym run --budget 300
    assert make_agent("elo", ENV, BudgetedLLM(llm, max_calls=300), budget=30).budget == 30


# ----------------------------------------------------------------- over a real HTTP endpoint
@pytest.mark.parametrize("agent", ["elo", "astar"])
def test_search_through_the_openai_client_on_a_real_endpoint(agent):
    """The real ``openai`` client against a local OpenAI-compatible server whose answers are
    the env's oracle; a server error and a malformed response on the way are retried."""
    from support.chat_server import ChatServer, Fault
    from support.oracle_relay import OracleRelay
    from treegym.agents.llm.openai_client import OpenAICompatibleLLM
    from treegym.agents.registry import make_agent

    relay = OracleRelay(ENV)
    with ChatServer(reply=relay.reply) as server:
        server.inject(Fault.status(500), Fault.malformed())
        llm = relay.wrap(OpenAICompatibleLLM("test-model", base_url=server.base_url, api_key="EMPTY", backoff=0.01))
        opts = {"memory_id": "none"} if agent == "astar" else {"explorations": 3}
        policy = make_agent(agent, ENV, llm, **opts)
        rec = run_episode(gym.make(ENV), policy, task_id=908, seed=0)
        assert rec["success"], rec
        assert policy.stats()["search_llm_calls"] >= 3
        assert len(server.chat_requests()) >= policy.stats()["search_llm_calls"] + 2  # + the 2 retried


@pytest.mark.parametrize("agent,options,wrappers", [
    ("mcts", {}, 2),  # one budget per episode: the search sends through the run's own budget
    ("mcts", {"budget": 5}, 4),  # a search budget of its own beside the run's: that one is nested
])
def test_one_budget_wrapper_per_episode_when_the_search_budget_is_the_runs(tmp_path, monkeypatch, agent, options,
                                                                           wrappers):
    from treegym.agents.experiments.evaluation import RunConfig, evaluate
    from treegym.agents.llm import budget

    built: list[object] = []
    init = budget.BudgetedLLM.__init__

    def counting(self, *args, **kwargs):
        built.append(self)
        init(self, *args, **kwargs)

    monkeypatch.setattr(budget.BudgetedLLM, "__init__", counting)
    config = RunConfig(env_id=ENV, agent=agent, llm_spec="synthetic:p_correct=0.7,seed=0", task_ids=[900, 901],
                       budget=10, agent_options=options, preflight=False)
    records = evaluate(config, tmp_path / "out.jsonl", progress=False, log=None)
    assert len(records) == 2 and all(r["error"] is None or "budget" in r["error"] or "gave up" in r["error"]
                                     for r in records)
    assert len(built) == wrappers
    assert all(r["llm_calls"] <= 10 and r["agent_stats"]["search_llm_calls"] <= r["llm_calls"] for r in records)


def test_search_imports_no_higher_agent_layer():
    """The agents' order is llm < prompts/requests < simulated < search < baselines < experiments <
    training: no module of agents/search imports baselines, experiments or training, function-level
    imports included (cot@K, reflexion and sc@K live in baselines, above search)."""
    import ast
    from pathlib import Path

    import treegym.agents.search as search

    higher = ("baselines", "experiments", "training")
    found = []
    for path in sorted(Path(search.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                parts = name.split(".")
                if any(h in parts for h in higher) and (isinstance(node, ast.Import) or node.level or "treegym" in parts):
                    found.append(f"{path.name}: {name}")
    assert not found


def test_seeded_rng_draws_as_numpy_default_rng_and_is_built_on_first_draw():
    import copy
    import pickle

    import numpy as np

    from treegym.agents.search.algorithm import SeededRng

    lazy, eager = SeededRng(12345), np.random.default_rng(12345)
    assert lazy._generator is None  # nothing built before a draw
    assert [lazy.random(), int(lazy.integers(7)), lazy.random()] == \
        [eager.random(), int(eager.integers(7)), eager.random()]
    for twin in (copy.copy(lazy), pickle.loads(pickle.dumps(lazy))):
        assert twin.random() == copy.deepcopy(eager).random()
    with pytest.raises(AttributeError):
        SeededRng(1)._private


def test_an_algorithm_that_draws_is_handed_the_generator_itself():
    from types import SimpleNamespace

    import numpy as np

    from treegym.agents.search.algorithm import SeededRng
    from treegym.agents.search.elo import EloSearch
    from treegym.agents.search.mcts import MCTS

    elo, mcts = EloSearch(), MCTS()
    elo.start(SimpleNamespace(rng=SeededRng(3), peek_success=False))
    lazy = SeededRng(3)
    mcts.start(SimpleNamespace(rng=lazy, peek_success=False))
    assert isinstance(elo.rng, np.random.Generator) and elo.rng.random() == np.random.default_rng(3).random()
    assert mcts.rng is lazy and lazy._generator is None  # MCTS never draws: nothing built
