"""MCTS (UCT with LLM proposals and ToT's value) on Game of 24: UCT by hand, solving, degrading,
budget, rollback, determinism (plain MCTS and LATS, which shares its loop); then the MCTS policy on
hand-built trees with scripted values (not the truth).

On the hand-built trees it checks UCT selection and running-mean back-propagation step by step, the
visit-weighted-mean invariant on a larger search, ``output``, rollout depth, ties, and that no oracle
is read without ``peek_success``. LATS's and RaDAgent's MCTS@N's own behaviour is in test_lats.py
and test_radagent_mcts.py.
"""
from __future__ import annotations

import json
import math

import pytest

from support.agent_runs import ACCURATE, ENV, WEAK, assert_call_budget_holds_under_threads, garbage_episode, pass_rate, same_state, searched
from support.mcts_trees import CHAIN, WIDE, WIDE_VALUES, hand_node, node_path, nodes_by_path
from support.tree_world import TreeLLM, run, started
from treegym.agents.llm_specs import make_llm
from treegym.agents.registry import make_agent
from treegym.agents.search.agent import SearchPolicy
from treegym.agents.search.lats import LATS
from treegym.agents.search.mcts import MCTS
from treegym.agents.search.radagent_mcts import RaDAgentMCTS
from treegym.agents.search.tree import SearchNode, SearchTree


# ------------------------------ by hand, and on Game of 24 with the synthetic model

def _node(visits: int, value: float, prior: float = 0.0) -> SearchNode:
    node = SearchNode(snapshot=None, observation={}, visits=visits, value=value)  # type: ignore[arg-type]
    node.stats["prior"] = prior
    return node


def test_uct_by_hand():
    agent = SearchPolicy(MCTS, ENV, make_llm(ACCURATE, env_id=ENV), w_exp=1.0)
    parent = _node(visits=8, value=0.0)
    # Q + w * sqrt(ln 8 / 2) = 0.5 + 1.019668...
    assert agent.algorithm.uct(parent, _node(2, 0.5)) == pytest.approx(0.5 + math.sqrt(math.log(8) / 2))
    # unvisited: the prior stands in for Q, and N counts as 1
    assert agent.algorithm.uct(parent, _node(0, 0.0, prior=0.25)) == pytest.approx(0.25 + math.sqrt(math.log(8)))


@pytest.mark.parametrize("agent", ["mcts", "lats"])
def test_solves_with_an_accurate_model_and_degrades_with_a_weak_one(agent):
    good = pass_rate(agent, ACCURATE)
    bad = pass_rate(agent, WEAK, budget=30)
    assert good >= 0.8
    assert bad <= good - 0.5


@pytest.mark.parametrize("agent", ["mcts", "lats"])
@pytest.mark.parametrize("budget", [1, 4, 9])
def test_never_exceeds_its_budget_and_stops_cleanly(agent, budget):
    llm = make_llm(WEAK, env_id=ENV)
    policy, env, before, action = searched(agent, llm, budget=budget)
    assert llm.usage.calls <= budget
    assert policy.stats()["search_stopped"] in ("budget", "done")
    assert action is None or isinstance(action, str)
    assert same_state(env, before)


@pytest.mark.parametrize("agent", ["mcts", "lats"])
def test_search_leaves_the_env_where_it_found_it_and_the_plan_replays(agent):
    policy, env, before, first = searched(agent, make_llm(ACCURATE, env_id=ENV), peek_success=True)
    assert same_state(env, before)
    tree = policy.result.tree
    assert len(tree) > 4 and len(policy.result.trajectories) > 1  # branches were explored and abandoned
    chosen = policy.result.chosen
    assert chosen.success and first == chosen.actions()[0]
    # playing the chosen actions on the live env reproduces the chosen leaf exactly
    for action in chosen.actions():
        obs, reward, terminated, truncated, info = env.step(action)
    assert info["success"] and same_state(env, chosen.snapshot)


@pytest.mark.parametrize("agent", ["mcts", "lats"])
def test_same_seed_same_tree(agent):
    trees = [json.dumps(searched(agent, make_llm(WEAK, env_id=ENV), task_id=903, budget=40)[0].result.tree.to_json())
             for _ in range(2)]
    assert trees[0] == trees[1]
    assert len(json.loads(trees[0])["nodes"]) > 5


def test_backed_up_values_are_visit_weighted_means():
    """Q(n) * N(n) = sum over children of Q * N + (simulations that ended at n) * prior(n)
    (test_backed_up_values_are_visit_weighted_means_of_the_simulations below checks the same by hand on a scripted tree)."""
    policy, *_ = searched("mcts", make_llm(WEAK, env_id=ENV), budget=40, stop_on_success=False)
    root = policy.result.tree.root
    assert root.visits == policy.stats()["mcts_iterations"] > 1
    for node in policy.result.tree.nodes:
        if node.visits:
            own = node.visits - sum(c.visits for c in node.children)
            total = sum(c.visits * c.value for c in node.children) + own * node.stats.get("prior", 0.0)
            assert own >= 0 and node.visits * node.value == pytest.approx(total)


def test_bad_options_are_named():
    with pytest.raises(ValueError, match="simulate"):
        SearchPolicy(MCTS, ENV, make_llm(ACCURATE, env_id=ENV), simulate="dice")
    with pytest.raises(ValueError, match="n_actions"):
        SearchPolicy(MCTS, ENV, make_llm(ACCURATE, env_id=ENV), n_actions=0)


@pytest.mark.parametrize("agent", ["mcts", "lats"])
def test_the_runs_call_budget_holds_under_threads(agent, tmp_path):
    assert_call_budget_holds_under_threads(agent, tmp_path / "runs.jsonl")


def test_mcts_at_n_sets_the_iterations():
    llm = make_llm(WEAK, env_id=ENV)
    policy, *_ = searched("mcts@3", llm, budget=200, stop_on_success=False)
    assert policy.config.n_iters == 3 and policy.stats()["mcts_iterations"] <= 3
    assert policy.result.tree.root.visits == policy.stats()["mcts_iterations"]
    with pytest.raises(ValueError, match="@3"):
        make_agent("mcts@3", ENV, llm, n_iters=5)


@pytest.mark.parametrize("agent", ["mcts", "lats"])
def test_garbage_answers_end_the_episode_cleanly(agent):
    record, llm = garbage_episode(agent)
    assert not record["success"] and len(llm.calls) <= 40
    assert record["error"] is None or record["error"].startswith(("agent gave up", "budget exhausted")), record["error"]


def test_mcts_through_the_real_openai_client_and_a_local_server():
    from support.agent_runs import episode
    from support.chat_server import ChatServer
    from support.oracle_relay import OracleRelay
    from treegym.agents.llm.openai_client import OpenAICompatibleLLM

    relay = OracleRelay(ENV)
    with ChatServer(reply=relay.reply) as server:
        llm = relay.wrap(OpenAICompatibleLLM("test-model", base_url=server.base_url, api_key="EMPTY", backoff=0.001))
        record, policy = episode("mcts", llm, 904, budget=30)
        served = len(server.chat_requests())
    assert record["success"] and record["error"] is None
    assert served == policy.stats()["search_llm_calls"] <= 30


# ------------------------------ on hand-built trees with scripted models (not the truth)

SMALL = {"": ["a", "b"], "a": ["a1", "a2"], "b": ["b1"]}
SMALL_VALUES = {"a": 0.8, "b": 0.2, "a/a1": 0.4, "a/a2": 0.6, "b/b1": 0.1}


def test_three_iterations_by_hand():
    llm = TreeLLM(proposals=SMALL, values=SMALL_VALUES)
    agent = run(MCTS, SMALL, llm, n_iters=3, n_actions=2, w_exp=1.0)
    n = nodes_by_path(agent)
    # 1: expand the root (a 0.8, b 0.2), simulate a: 0.8 backs up to the root and a
    # 2: UCT at the root: a 0.8 + sqrt(ln 1 / 1) = 0.8 beats b's prior 0.2 + 0 -> expand a (a1 0.4, a2 0.6),
    #    simulate a2: 0.6
    # 3: a 0.7 + sqrt(ln 2 / 2) > b 0.2 + sqrt(ln 2); below a, a2 0.6 + sqrt(ln 2) > a1 0.4 + sqrt(ln 2);
    #    a2 ended the episode and was simulated, so it is closed: a1 (fresh, ended the episode too) is
    #    simulated with its value: 0.4; now nothing below a is open
    assert (n[""].visits, n["a"].visits, n["a/a2"].visits, n["b"].visits, n["a/a1"].visits) == (3, 3, 1, 0, 1)
    assert n[""].value == pytest.approx((0.8 + 0.6 + 0.4) / 3)
    assert n["a"].value == pytest.approx((0.8 + 0.6 + 0.4) / 3)
    assert n["a/a2"].value == pytest.approx(0.6) and n["a/a1"].value == pytest.approx(0.4)
    assert n["a/a2"].stats["closed"] and n["a"].stats["closed"] and not n[""].stats.get("closed")
    assert [e[1] for e in llm.log if e[0] == "value"] == ["a", "b", "a/a1", "a/a2"]
    assert agent.result.chosen is n["a/a2"]


def test_backed_up_values_are_visit_weighted_means_of_the_simulations():
    llm = TreeLLM(proposals=WIDE, values=WIDE_VALUES)
    agent = run(MCTS, WIDE, llm, n_iters=7, n_actions=2, w_exp=0.5)
    tree = agent.result.tree
    assert tree.root.visits == agent.stats()["mcts_iterations"] == 7
    for node in tree.nodes:
        if not node.visits:
            continue
        below = sum(c.visits for c in node.children)
        own = node.visits - below  # simulations that ended at this node, each worth its prior
        assert own >= 0
        total = sum(c.visits * c.value for c in node.children) + own * node.stats.get("prior", 0.0)
        assert node.visits * node.value == pytest.approx(total), node_path(node)
    assert len([n for n in tree.nodes if n.visits]) >= 6


def test_max_children_per_expansion_is_n_actions():
    llm = TreeLLM(proposals=WIDE, values=WIDE_VALUES)
    agent = run(MCTS, WIDE, llm, n_iters=6, n_actions=2)
    assert max(len(n.children) for n in agent.result.tree.nodes) == 2


def _hand_tree(visits_values: list[tuple[int, float]]) -> SearchTree:
    root = SearchNode(snapshot=None, observation={}, visits=sum(v for v, _ in visits_values))  # type: ignore[arg-type]
    tree = SearchTree(root)
    for visits, value in visits_values:
        child = SearchNode(snapshot=None, observation={}, action=f"c{len(root.children)}",  # type: ignore[arg-type]
                           parent=root, depth=1, visits=visits, value=value)
        root.children.append(child)
        tree.add(child)
    return tree


def test_output_follow_max_follows_q_and_max_visit_follows_visits():
    llm = TreeLLM()
    tree = _hand_tree([(5, 0.3), (2, 0.9), (0, 0.0)])
    tree.root.children[2].stats["prior"] = 0.95  # unvisited: its prior stands for Q
    assert SearchPolicy(MCTS, "t", llm, prompts=object()).algorithm._best_child(tree.root) is tree.root.children[2]
    tree.root.children[2].stats["prior"] = 0.5
    assert SearchPolicy(MCTS, "t", llm, prompts=object()).algorithm.choose(tree) is tree.root.children[1]
    assert SearchPolicy(MCTS, "t", llm, prompts=object(), output="max_visit").algorithm.choose(tree) is tree.root.children[0]


def test_output_max_reward_is_llm_reasoners_best_finished_path_not_the_q_path():
    # LLM-Reasoners' max_reward: among paths that ended the episode, the highest sum of step rewards
    # (here the priors); follow_max (the default) walks the highest Q instead
    root = hand_node()
    a = hand_node(root, id=1, value=0.9, visits=3, prior=0.9)  # the highest Q, but nothing below it ended
    hand_node(a, id=3, value=0.9, visits=1, prior=0.9)
    b = hand_node(root, id=2, value=0.2, visits=1, prior=0.2)
    b_end = hand_node(b, id=4, terminal=True, prior=0.5)
    c = hand_node(root, id=5, value=0.1, visits=1, prior=0.1)
    hand_node(c, id=6, terminal=True, prior=0.5)  # the same end value, a lower sum (0.6 < 0.7)
    tree = SearchTree(root, algorithm="mcts")
    assert _bare(output="max_reward").algorithm.choose(tree) is b_end
    assert _bare().config.output == "follow_max" and _bare().algorithm.choose(tree).id == 3
    unfinished = hand_node()
    hand_node(unfinished, id=1, value=0.5, visits=1, prior=0.5)
    assert _bare(output="max_reward").algorithm.choose(SearchTree(unfinished, algorithm="mcts")) is None


def test_rollout_depth_bounds_each_simulation():
    chain = {"": ["a", "b"], "a": ["a1"], "a/a1": ["a2"], "a/a1/a2": ["a3"], "a/a1/a2/a3": ["a4"], "b": ["b1"]}
    values = {"a": 0.9, "b": 0.1}
    llm = TreeLLM(proposals=chain, values=values)
    agent = run(MCTS, chain, llm, n_iters=1, n_actions=2, simulate="rollout", rollout_depth=2, depth_limit=10)
    rolled = [n for n in agent.result.tree.nodes if n.stats.get("rollout")]
    assert [node_path(n) for n in rolled] == ["a/a1", "a/a1/a2"]
    assert agent.result.tree.root.visits == 1 and rolled[-1].visits == 1  # backed up from the rollout's end

    llm = TreeLLM(proposals=chain, values=values)
    agent = run(MCTS, chain, llm, n_iters=1, n_actions=2, simulate="rollout", rollout_depth="none",
                depth_limit=10)
    rolled = [n for n in agent.result.tree.nodes if n.stats.get("rollout")]
    assert node_path(rolled[-1]) == "a/a1/a2/a3/a4" and rolled[-1].terminal  # to the end of the episode
    assert ("value", "a/a1/a2/a3/a4") in llm.log  # the final state is valued by the model, not the env


def test_rollout_width_values_the_candidates_and_keeps_the_best():
    tree = {"": ["a"], "a": ["p", "q"], "a/p": ["p1"], "a/q": ["q1"]}
    llm = TreeLLM(proposals=tree, values={"a": 0.5, "a/p": 0.2, "a/q": 0.7})
    agent = run(MCTS, tree, llm, n_iters=1, n_actions=1, simulate="rollout", rollout_depth=1, rollout_width=2)
    rolled = [node_path(n) for n in agent.result.tree.nodes if n.stats.get("rollout")]
    assert rolled == ["a/q"]
    assert agent.result.tree.root.value == pytest.approx(0.7)


def test_no_oracle_by_default_and_the_env_verdict_with_peek():
    tree = {"": ["a", "b"], "a": ["a1"]}
    values = {"a": 0.5, "b": 0.0, "a/a1": 0.9}  # the model dislikes b, which wins
    llm = TreeLLM(proposals=tree, values=values)
    agent = run(MCTS, tree, llm, ["b"], n_iters=4, n_actions=2)
    assert ("value", "b") in llm.log and not agent.result.chosen.success
    assert agent.stats()["mcts_iterations"] == 3  # then everything is closed; the win was not a reason to stop
    llm = TreeLLM(proposals=tree, values=values)
    agent = run(MCTS, tree, llm, ["b"], n_iters=4, n_actions=2, peek_success=True)
    assert ("value", "b") not in llm.log and agent.result.chosen.success
    assert agent.stats()["mcts_iterations"] == 1  # stopped at the won step
    with pytest.raises(ValueError, match="peek_success"):
        SearchPolicy(MCTS, "t", llm, prompts=object(), stop_on_success=True)


def test_uct_with_a_parent_visited_once_has_no_exploration_bonus():
    agent = SearchPolicy(MCTS, "t", TreeLLM(), prompts=object())
    parent = SearchNode(snapshot=None, observation={}, visits=1)  # type: ignore[arg-type]
    child = SearchNode(snapshot=None, observation={}, visits=1, value=0.5)  # type: ignore[arg-type]
    assert agent.algorithm.uct(parent, child) == 0.5
    fresh = SearchNode(snapshot=None, observation={})  # type: ignore[arg-type]
    assert agent.algorithm.uct(parent, fresh) == 0.0  # no prior yet: 0


def test_depth_limit_and_dead_steps():
    llm = TreeLLM(proposals=WIDE, values=WIDE_VALUES)
    agent = run(MCTS, WIDE, llm, n_iters=6, n_actions=2, depth_limit=1)
    assert [e[1] for e in llm.log if e[0] == "propose"] == [""]  # only the root is expanded
    assert agent.result.tree.root.stats["closed"]
    tree = {"": ["a"], "a": ["a1"]}
    llm = TreeLLM(proposals={"": ["a"]}, values={"a": 0.5})
    agent = run(MCTS, tree, llm, n_iters=5, n_actions=2)
    a = agent.result.tree.root.children[0]
    assert a.stats["dead"] and a.stats["closed"] and agent.stats()["mcts_iterations"] == 2
    assert agent.result.chosen is a


def test_fresh_stats_and_rollout_depth_parsing():
    agent = SearchPolicy(RaDAgentMCTS, "t", TreeLLM(), prompts=object())
    assert agent.stats() == {"mcts_iterations": 0, "mcts_decisions": 0}
    assert SearchPolicy(LATS, "t", TreeLLM(), prompts=object()).stats() == {"mcts_iterations": 0, "reflections": 0}
    assert SearchPolicy(MCTS, "t", TreeLLM(), prompts=object(), rollout_depth="").config.rollout_depth is None


# ----------------------------------------------------------------- ties, the answer's fallbacks

def test_ties_go_to_the_earlier_child():
    tree = {"": ["a", "b", "c"], "a": ["a1"], "b": ["b1"], "c": ["c1"]}
    llm = TreeLLM(proposals=tree)  # every state is valued 0.5: all priors tie
    agent = run(MCTS, tree, llm, n_iters=2, n_actions=3)
    n = nodes_by_path(agent)
    # 1: expand the root, simulate the first of three equal priors; 2: UCT ties at the root (0.5 + 0 each)
    #    go to a again, which is expanded
    assert n["a"].visits == 2 and n["b"].visits == n["c"].visits == 0
    assert [e[1] for e in llm.log if e[0] == "propose"] == ["", "a"]
    # the answer follows the earlier child on equal Q (follow_max) and equal visits and Q (max_visit)
    root = hand_node()
    first, second = hand_node(root, value=0.5, visits=1, id=1), hand_node(root, value=0.5, visits=1, id=2)
    for output in ("follow_max", "max_visit"):
        assert _bare(output=output).algorithm._best_child(root) is first
    fresh = hand_node()
    lo, hi = hand_node(fresh, id=1, prior=0.3), hand_node(fresh, id=2)  # unvisited: by prior, a missing prior is 0
    assert _bare().algorithm._best_child(fresh) is lo


def test_rollout_ties_go_to_the_earlier_child():
    tree = {"": ["a"], "a": ["x", "y"], "a/x": ["x1"], "a/y": ["y1"]}
    llm = TreeLLM(proposals=tree)
    agent = run(MCTS, tree, llm, n_iters=1, n_actions=1, simulate="rollout", rollout_width=2, rollout_depth=1)
    n = nodes_by_path(agent)
    assert n["a/x"].stats.get("rollout") and not n["a/y"].stats.get("rollout")


def _bare(**options) -> MCTS:
    from support.tree_world import TreePrompts

    return started(SearchPolicy(MCTS, TreePrompts.env_id, TreeLLM(), prompts=TreePrompts(), **options))


def test_with_peek_the_answer_skips_lost_steps_and_falls_back_to_the_first_win():
    agent = _bare(peek_success=True)
    root = hand_node()
    hand_node(root, value=0.9, visits=1, terminal=True, id=1)  # lost: never the answer
    hand_node(root, value=0.5, visits=1, id=2)
    won = hand_node(root, value=0.7, visits=1, terminal=True, success=True, id=3)
    assert agent.algorithm._best_child(root) is won
    # no simulation ended on a win (self.won is None) but the tree holds wins: the earliest one
    late, early = hand_node(root, terminal=True, success=True, id=7), hand_node(root, terminal=True, success=True, id=5)

    class Tree:
        nodes = [root, late, early]

    assert agent.algorithm.choose(Tree()) is early  # type: ignore[arg-type]


def test_nothing_proposed_gives_no_answer():
    for cls in (MCTS, RaDAgentMCTS):
        agent = run(cls, {"": ["a"]}, TreeLLM(proposals={}), n_iters=2)
        assert agent.result.chosen is None and agent.result.tree.root.stats["dead"]


def test_a_rollout_stops_at_the_depth_limit_and_at_the_end_of_the_episode():
    llm = TreeLLM(proposals=CHAIN)
    agent = run(MCTS, CHAIN, llm, n_iters=1, depth_limit=2, simulate="rollout", rollout_depth="none")
    assert max(n.depth for n in agent.result.tree.nodes) == 2  # not one step past depth_limit
    llm = TreeLLM(proposals=CHAIN)
    agent = run(MCTS, CHAIN, llm, n_iters=1, depth_limit=9, simulate="rollout", rollout_depth="none")
    assert [e[1] for e in llm.log if e[0] == "propose"] == ["", "a", "a/b", "a/b/c"]  # none at the leaf


def test_a_rollout_dead_end_is_marked_dead_and_never_expanded_again():
    llm = TreeLLM(proposals={"": ["a"], "a": []})
    agent = run(MCTS, CHAIN, llm, n_iters=3, simulate="rollout")
    assert [e[1] for e in llm.log if e[0] == "propose"] == ["", "a"]
    a = agent.result.tree.root.children[0]
    assert a.stats["dead"] is True and a.stats["closed"] and a.visits == 1


def test_make_mcts_without_an_at_suffix_keeps_the_default_iterations():
    from support.tree_world import TreePrompts

    assert make_agent("mcts", TreePrompts.env_id, TreeLLM(), prompts=TreePrompts()).config.n_iters == 10


def test_selection_descends_through_nodes_a_rollout_already_visited():
    tree = {"": ["a", "b"], "a": ["x", "y"], "a/x": ["x1"], "a/y": ["y1"], "b": ["b1"]}
    llm = TreeLLM(proposals=tree, values={"a": 0.8, "b": 0.2, "a/x": 0.9})
    agent = run(MCTS, tree, llm, n_iters=2, n_actions=2, simulate="rollout", rollout_depth=1)
    # 1: expand the root, roll a out one step (to x); 2: UCT picks a again and goes on to x (visited by the
    #    rollout, so not a fresh child) and expands x, not a
    assert [e[1] for e in llm.log if e[0] == "propose"] == ["", "a", "a/x"]


def _uct_tree():
    """A tree with hand-set statistics: the root seen 1000 times; its child b (5 visits, Q 0.1) beats
    a (990 visits, Q 0.9) only through the exploration term; below b, b2 (4 visits, Q 0.9) beats b1
    (1 visit, Q 0.1) with b's own ln 5, but would lose to it with the root's ln 1000."""
    root = SearchNode(snapshot=None, observation={}, visits=1000, value=0.8)  # type: ignore[arg-type]
    nodes = {"": root}
    for path, visits, q in (("a", 990, 0.9), ("b", 5, 0.1), ("b/b1", 1, 0.1), ("b/b2", 4, 0.9)):
        parent = nodes[path.rpartition("/")[0]]
        node = SearchNode(snapshot=None, observation={}, action=path.split("/")[-1], parent=parent,  # type: ignore[arg-type]
                          depth=parent.depth + 1, visits=visits, value=q)
        parent.children.append(node)
        nodes[path] = node
    return nodes


def test_selection_explores_by_uct_with_the_parents_visit_count():
    nodes = _uct_tree()
    agent = SearchPolicy(MCTS, "treegym/TreeWorld-v0", TreeLLM(), w_exp=1.0)
    assert agent.algorithm.uct(nodes[""], nodes["b"]) == pytest.approx(0.1 + math.sqrt(math.log(1000) / 5))
    assert agent.algorithm.uct(nodes["b"], nodes["b/b2"]) == pytest.approx(0.9 + math.sqrt(math.log(5) / 4))
    # exploration takes the walk to b (Q alone would pick a); below b, b's own visit count (ln 5,
    # not the root's ln 1000) makes b2's Q outweigh b1's larger bonus
    assert agent.algorithm._select(nodes[""]) == [nodes[""], nodes["b"], nodes["b/b2"]]
    # w_exp scales the bonus: without it selection only exploits
    assert SearchPolicy(MCTS, "treegym/TreeWorld-v0", TreeLLM(), w_exp=0.0).algorithm._select(nodes[""]) == [nodes[""], nodes["a"]]


