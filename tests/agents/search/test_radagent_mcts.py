"""RaDAgent's MCTS@N (``radagent-mcts@N``) on hand-built trees with scripted values (not the truth):
N simulations before every decision step, the depth limit and closed flags measured from the current
decision, a win with ``peek_success``, and the answer when the budget cuts a step. The MCTS loop it
shares is tested in test_mcts.py."""
from __future__ import annotations

import math

import pytest

from support.mcts_trees import CHAIN, WIDE, WIDE_VALUES, hand_node, node_path, nodes_by_path
from support.tree_world import TreeLLM, run
from treegym.agents.search.agent import SearchPolicy
from treegym.agents.search.radagent_mcts import RaDAgentMCTS


def test_per_step_runs_n_simulations_before_every_decision():
    llm = TreeLLM(proposals=WIDE, values=WIDE_VALUES)
    agent = run(RaDAgentMCTS, WIDE, llm, n_iters=3, n_actions=2)
    decisions = agent.algorithm.decisions
    assert len(decisions) == 3 and decisions[-1].terminal
    assert [d.parent for d in decisions] == [agent.result.tree.root] + decisions[:-1]
    assert agent.result.chosen is decisions[-1]
    assert agent.stats()["mcts_decisions"] == 3 and agent.stats()["mcts_iterations"] > 3
    # back-propagation stops at the current decision step: the root saw only its own 3 simulations
    assert agent.result.tree.root.visits == 3
    assert decisions[0].visits > decisions[1].visits >= 1


def test_per_step_with_peek_stops_at_a_win_and_numbers_its_decisions():
    llm = TreeLLM(proposals=WIDE, values=WIDE_VALUES)
    agent = run(RaDAgentMCTS, WIDE, llm, n_iters=3, n_actions=2)
    assert [d.stats["decision"] for d in agent.algorithm.decisions] == [0, 1, 2]
    llm = TreeLLM(proposals=WIDE, values=WIDE_VALUES)
    agent = run(RaDAgentMCTS, WIDE, llm, ["b"], n_iters=3, n_actions=2, peek_success=True)
    assert agent.result.chosen.success and agent.algorithm.decisions == [] and agent.stats()["mcts_decisions"] == 0
    llm = TreeLLM(proposals=WIDE, values=WIDE_VALUES)
    agent = run(RaDAgentMCTS, WIDE, llm, n_iters=3, n_actions=2, peek_success=True)
    assert len(agent.algorithm.decisions) == 3  # nothing won: the decisions go on to the end


def test_per_step_depth_limit_counts_from_the_current_decision():
    llm = TreeLLM(proposals=CHAIN)
    agent = run(RaDAgentMCTS, CHAIN, llm, depth_limit=2, n_iters=1)
    # each decision's single simulation expands the current node: depth_limit is measured from it
    assert [node_path(n) for n in agent.algorithm.decisions] == ["a", "a/b", "a/b/c", "a/b/c/d"]


def test_per_step_reopens_what_the_old_depth_limit_closed():
    # depth_limit=1: the first decision's simulation closes "a" (at the limit); after committing to
    # "a" the limit counts from it, so "a" is expandable again and the walk goes on to the end
    for n_iters in (1, 3):
        llm = TreeLLM(proposals=CHAIN)
        agent = run(RaDAgentMCTS, CHAIN, llm, depth_limit=1, n_iters=n_iters)
        assert [node_path(n) for n in agent.algorithm.decisions] == ["a", "a/b", "a/b/c", "a/b/c/d"], n_iters


def test_per_step_rollouts_measure_the_depth_limit_from_the_current_decision():
    llm = TreeLLM(proposals=CHAIN)
    agent = run(RaDAgentMCTS, CHAIN, llm, depth_limit=3, n_iters=1, simulate="rollout",
                rollout_depth=1)
    assert nodes_by_path(agent)["a/b/c/d"].stats.get("rollout")  # rolled out from a/b/c, 2 below the decision a


def test_recomputed_closed_flags_follow_the_new_base():
    agent = SearchPolicy(RaDAgentMCTS, "t", TreeLLM(), prompts=object(), depth_limit=2)
    root = hand_node()
    a = hand_node(root, id=1, closed=True)  # closed from base 0: its children were all closed
    done = hand_node(a, id=2, terminal=True, closed=True)  # an ended episode: closed at any base
    deep = hand_node(a, id=3, closed=True)  # depth 2: at the limit from base 0, open from base 1
    agent.algorithm._base = 0
    assert agent.algorithm._recompute_closed(a) is True and a.stats["closed"] and deep.stats["closed"]
    agent.algorithm._base = 1
    assert agent.algorithm._recompute_closed(a) is False  # committed to "a": deep can be expanded again
    assert "closed" not in a.stats and "closed" not in deep.stats and done.stats["closed"] is True
    agent.algorithm._base = 2
    hand_node(deep, id=4, terminal=True)  # its only child ended the episode
    assert agent.algorithm._recompute_closed(deep) is True and deep.stats["closed"] is True


def test_radagent_mcts_runs_n_simulations_before_every_decision():
    from treegym.agents.registry import agent_spec

    make_radagent_mcts = agent_spec("radagent-mcts").factory

    llm = TreeLLM(proposals=WIDE, values=WIDE_VALUES)
    agent = run(make_radagent_mcts, WIDE, llm, at=3, n_actions=2)
    assert agent.name == "radagent-mcts" and agent.config.n_iters == 3 and agent.stats()["mcts_decisions"] == 3
    assert agent.result.tree.root.visits == 3  # N simulations at the first decision, more below it
    assert agent.stats()["mcts_iterations"] > 3
    assert make_radagent_mcts("treegym/TreeWorld-v0", TreeLLM()).config.n_iters == 40  # RaDAgent's MCTS@40
    # RaD-Agent's UCT: 1.41 * sqrt(2 ln N / n), our w_exp * sqrt(ln N / n)
    assert make_radagent_mcts("treegym/TreeWorld-v0", TreeLLM()).config.w_exp == pytest.approx(1.41 * math.sqrt(2))
    with pytest.raises(ValueError, match="unknown option.*'per_step'"):  # per decision step is what it is
        make_radagent_mcts("treegym/TreeWorld-v0", TreeLLM(), per_step=False)
    with pytest.raises(ValueError, match="n_iters"):
        make_radagent_mcts("treegym/TreeWorld-v0", TreeLLM(), at=3, n_iters=5)


def test_per_step_cut_by_the_budget_answers_with_the_best_path_below_its_last_decision():
    llm = TreeLLM(proposals=WIDE, values=WIDE_VALUES)
    agent = run(RaDAgentMCTS, WIDE, llm, n_iters=40, n_actions=2, budget=6)
    assert agent.result.stopped == "budget" and agent.algorithm.decisions == []
    chosen = agent.result.chosen
    assert chosen is not None and chosen.depth >= 1  # not "no answer": the simulations so far decide
    node = agent.result.tree.root
    while node.children:
        node = agent.algorithm._best_child(node)
    assert chosen is node
