"""A new search algorithm is one class and one config: a beam search written here (not shipped) is a
:class:`SearchAlgorithm` (not a policy) with no ``__init__``, no ``env_id``/``llm`` and no option
handling; one decorator registers it as an agent, and the one search policy around it owns acting,
budgets, greedy continuation, stats, trees and seeding, its options typed from the config."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from support.tree_world import TreeLLM, TreePrompts, TreeWorldEnv, run
from treegym.agents import registry
from treegym.agents.registry import agent_names, make_agent
from treegym.agents.search.agent import SearchPolicy, register_algorithm
from treegym.agents.search.algorithm import SearchAlgorithm
from treegym.agents.search.config import SearchConfig
from treegym.agents.search.options import option
from treegym.agents.search.tree import SearchNode, SearchTree


@dataclass(frozen=True)
class BeamConfig:
    width: int = option(2, "ours (a test algorithm)", "states kept per level", minimum=1)
    depth: int = option(3, "ours (a test algorithm)", "levels", minimum=1)


class BeamSearch(SearchAlgorithm[BeamConfig]):
    """Keep the ``width`` best-valued states per level for ``depth`` levels; answer the best end."""

    name = "beam"
    Config = BeamConfig

    def search(self, root: SearchNode, hooks: SearchConfig) -> None:
        beam = [root]
        for _ in range(self.config.depth):
            children = []
            for node in beam:
                for action in hooks.propose(node, self.config.width):
                    child = hooks.expand(node, action)
                    child.value = 1.0 if self.known_win(child) else hooks.value(child)
                    children.append(child)
            beam = sorted((c for c in children if not c.terminal), key=lambda c: (-c.value, c.id))[: self.config.width]
            if not beam:
                return

    def choose(self, tree: SearchTree) -> SearchNode | None:
        ends = [n for n in tree.nodes if n is not tree.root and not n.children]
        return max(ends, key=lambda n: (n.value, -n.id), default=None)


TREE = {"": ["a", "b", "c"], "a": ["a1", "a2"], "b": ["b1"], "c": ["c1"]}


@pytest.fixture(autouse=True)
def beam_registered(monkeypatch):
    """The one decorator registers the beam search, for this file's tests only: registered at import,
    "beam" would join every test that runs all registered agents and is collected after this file."""
    agent_names()  # the shipped agents are discovered first, so the copy below holds them all
    monkeypatch.setattr(registry, "_AGENTS", dict(registry._AGENTS))
    register_algorithm("beam", help="beam search (a test algorithm)")(BeamSearch)


def test_a_beam_search_is_one_class_and_one_config():
    llm = TreeLLM(proposals=TREE, values={"a": 0.9, "b": 0.2, "c": 0.6, "a/a1": 0.1, "a/a2": 0.8, "c/c1": 0.3})
    agent = run(BeamSearch, TREE, llm, width="2", depth=2)  # a string, as --agent-opt gives it
    assert agent.config == BeamConfig(width=2, depth=2)
    assert agent.result.actions == ["a", "a2"]
    stats = agent.stats()
    assert stats["search_nodes"] == 6 and stats["search_llm_calls"] == len(llm.calls) == 8 and stats["peek_success"] is False
    assert agent.result.tree.algorithm == "beam" and not hasattr(agent.algorithm, "llm")
    assert isinstance(make_agent("beam", TreePrompts.env_id, TreeLLM(), prompts=TreePrompts()).algorithm, BeamSearch)
    with pytest.raises(ValueError, match=r"^beam: width must be a whole number of at least 1, not 0"):
        make_agent("beam", TreePrompts.env_id, TreeLLM(), width=0)
    with pytest.raises(ValueError, match=r"agent 'beam': unknown option\(s\) 'breadth'"):
        make_agent("beam", TreePrompts.env_id, TreeLLM(), breadth=3)


def test_the_policy_plays_the_beam_answer_and_then_continues_greedily():
    tree = {"": ["a", "b"], "a": ["a1"], "a/a1": ["a1x"]}
    env = TreeWorldEnv(tree, wins=["a/a1/a1x"])
    llm = TreeLLM(proposals=tree, values={"a": 0.9, "b": 0.1, "a/a1": 0.5})
    agent = SearchPolicy(BeamSearch, TreePrompts.env_id, llm, prompts=TreePrompts(), width=1, depth=2, budget=50)
    obs, info = env.reset()
    agent.reset()
    agent.bind(env)
    done, played = False, []
    while not done:
        action = agent.act(obs, info)
        played.append(action)
        obs, _reward, term, trunc, info = env.step(action)
        done = term or trunc
    assert played == ["a", "a1", "a1x"] and info["success"]  # a1x: the greedy step after the beam's answer
    assert agent.stats()["greedy_steps"] == 1
