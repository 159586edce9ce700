"""A* (ToolChain*): cost functions by hand, memory, and the agent on Game of 24; then the policy on
hand-built trees with scripted samples and imagined plans (not the truth).

On the hand-built trees it checks the frontier order (always the lowest f), the cost terms of every
node (g2 = count / k, g accumulated along the path, h2 from the imagined plan), no goal test without
``peek_success``, and free-form actions kept.
"""
from __future__ import annotations

import sys
import uuid

import gymnasium as gym
import pytest

from support.tree_world import TreeLLM, TreePrompts, TreeWorldEnv, run
from treegym.agents.experiments.episode import run_episode
from treegym.agents.llm_specs import make_llm
from treegym.agents.registry import make_agent
from treegym.agents.search.agent import SearchPolicy
from treegym.agents.search.astar import (
    AStarSearch,
    LongTermMemory,
    combine,
    future_cost,
    lcs_length,
    lcs_score,
    step_cost,
)
from treegym.envs import snapshot
from treegym.envs.core.contract import ExpertAdvice


# ------------------------------ by hand, and on Game of 24 with the synthetic model

ENV = "treegym/Game24-v0"


def test_lcs_and_score():
    assert lcs_length("ABCBDAB", "BDCABA") == 4
    assert lcs_length([], ["a"]) == 0
    assert lcs_score(["a", "b", "c"], ["a", "x", "c", "d"]) == pytest.approx(2 / 3)
    assert lcs_score(["a"], ["b", "a"]) == 1.0  # normalised by the shorter plan


def test_cost_combinations():
    assert step_cost(0.5, 0.5, 0.5) == pytest.approx(0.5)
    assert step_cost(1.0, 0.0, 0.5) == 0.0  # a perfect memory match costs nothing
    assert step_cost(0.0, 0.75, 0.5) == pytest.approx(0.5)  # sqrt(1 * 0.25)
    assert step_cost(None, 0.75, 0.5) == pytest.approx(0.25)  # g1 dropped: (1 - g2) alone
    assert step_cost(None, None, 0.5) == 1.0  # both dropped: unit step cost (breadth-first)
    assert future_cost(None, None, 0.5) == 0.0
    assert future_cost(0.36, 0.0, 0.5) == pytest.approx(0.8)  # sqrt(0.64 * 1)
    assert combine(0.25, 1.0, 1.0) == pytest.approx(0.25)


def test_memory_scores():
    mem = LongTermMemory([["a", "b", "c"], ["x", "c"]])
    assert mem.g1(["a", "c"]) == 1.0
    assert mem.g1(["q"]) == 0.0
    # "c" is last in both plans: relative positions 3/3 and 2/2
    assert mem.h1("c") == 1.0
    # "a" is first of a 3-step plan
    assert mem.h1("a") == pytest.approx(1 / 3)
    mem.add(["a", "b", "c"])
    assert len(mem) == 2  # duplicates are not stored twice


def _play(spec, tasks, **opts):
    out = []
    for tid in tasks:
        env = gym.make(ENV)
        llm = make_llm(spec, env_id=ENV)
        agent = make_agent("astar", ENV, llm, memory_id="none", **opts)
        rec = run_episode(env, agent, task_id=tid, seed=0)
        out.append((rec, agent, llm))
    return out


def test_astar_solves_with_an_accurate_model_and_degrades():
    tasks = range(910, 920)
    good = sum(r["success"] for r, _, _ in _play("synthetic:p_correct=0.8,seed=0", tasks))
    bad = sum(r["success"] for r, _, _ in _play("synthetic:p_correct=0.1,seed=0", tasks))
    assert good >= 9
    assert bad < good


def test_astar_respects_the_budget():
    for rec, agent, llm in _play("synthetic:p_correct=0.1,seed=0", [911, 912], budget=7):
        assert agent.result.stopped == "budget" and agent.stats()["search_llm_calls"] == 7
        assert llm.usage.calls == 7  # counted by the model itself: search and greedy fallback share the budget


def test_astar_leaves_the_env_at_the_root_and_is_reproducible():
    def once():
        env = gym.make(ENV)
        obs, info = env.reset(options={"task_id": 915})
        before = snapshot(env)
        agent = make_agent("astar", ENV, make_llm("synthetic:p_correct=0.4,seed=5", env_id=ENV), memory_id="none")
        agent.reset()
        agent.bind(env)
        agent.act(obs, info)
        after = snapshot(env)
        assert (after.payload, after.steps) == (before.payload, before.steps)
        return agent.result.tree.to_json()

    first = once()
    assert len(first["nodes"]) > 3
    assert first == once()


def test_ablation_switches_change_the_search():
    def tree(**opts):
        env = gym.make(ENV)
        obs, info = env.reset(options={"task_id": 913})
        agent = make_agent("astar", ENV, make_llm("synthetic:p_correct=0.5,seed=1", env_id=ENV),
                           memory_id="none", **opts)
        agent.reset()
        agent.bind(env)
        agent.act(obs, info)
        return agent.result.tree.to_json()["nodes"]

    full = tree()
    for switch in ("use_g1", "use_g2", "use_h1", "use_h2"):
        ablated = tree(**{switch: "false"})
        term = switch[4:]
        assert all(n["stats"].get(term) is None for n in ablated if n["parent"] is not None)
        assert [(n["action"], n["value"]) for n in ablated] != [(n["action"], n["value"]) for n in full], switch
    # with no g/h terms every step costs 1 and the search is breadth-first: f = depth
    bfs = tree(use_g1=False, use_g2=False, use_h1=False, use_h2=False)
    assert all(n["value"] == pytest.approx(n["depth"]) for n in bfs)


@pytest.mark.parametrize("peek,expected", [(True, [3, 4]), (False, [2, 2])])
def test_memory_persists_across_episodes_of_a_run_and_learns_from_success_only_with_peek(peek, expected):
    llm = make_llm("synthetic:p_correct=0.9,seed=0", env_id=ENV)
    sizes, memory_id = [], f"test-persist-{uuid.uuid4().hex}"  # fresh per test run, shared by its episodes
    for tid in (916, 917):
        env = gym.make(ENV)
        agent = make_agent("astar", ENV, llm, memory_id=memory_id, n_demos=2, peek_success=peek)
        rec = run_episode(env, agent, task_id=tid, seed=0)
        assert rec["success"]
        sizes.append(agent.stats()["astar_memory_plans"])
    # 2 demonstrations, then (only when the search may read the env's success flag) one solved plan
    # per episode: the memory feeds later searches, so it obeys the same information rule
    assert sizes == expected


def test_bad_weights_are_rejected():
    with pytest.raises(ValueError, match="alpha"):
        make_agent("astar", ENV, make_llm("synthetic:seed=0", env_id=ENV), alpha=2)


# ------------------------------ on hand-built trees with scripted models (not the truth)

TREE = {"": ["a", "b", "c"], "a": ["a1", "a2"], "b": ["b1", "b2"], "c": ["c1"],
        "a/a1": ["x", "y"], "a/a2": ["z"], "b/b1": ["w"]}
SAMPLES = {"": ["a", "a", "b", "zz", "c"], "a": ["a2", "a1", "a2", "a2", "a1"], "b": ["b1", "b1", "b1", "b2", "b1"],
           "c": ["c1", "c1", "c1", "c1", "c1"], "a/a1": ["x", "y", "y", "y", "y"], "a/a2": ["z"] * 5,
           "b/b1": ["w"] * 5}
IMAGINED = {"a": ["s", "s", "s"], "b": ["s"], "c": ["s", "s", "s", "s"], "a/a1": ["s"], "a/a2": ["s", "s", "s"]}
# b/b1 imagines nothing: "cannot be finished", h2 = 0


def _llm(samples=SAMPLES, imagined=IMAGINED) -> TreeLLM:
    return TreeLLM(samples=samples, imagined=imagined)


def _path(node) -> str:
    return "/".join(node.actions())


def _expansions(llm: TreeLLM) -> list[str]:
    """The paths expanded, in order (one run of k ReAct samples per expansion)."""
    out: list[str] = []
    reacts = [e[1] for e in llm.log if e[0] == "react"]
    for i in range(0, len(reacts), 5):
        assert len(set(reacts[i:i + 5])) == 1
        out.append(reacts[i])
    return out


def _by_path(agent) -> dict:
    return {_path(n): n for n in agent.result.tree.nodes}


def test_the_frontier_is_always_expanded_at_its_lowest_f():
    llm = _llm()
    agent = run(AStarSearch, TREE, llm, iterations=5, memory_id="none")
    nodes = _by_path(agent)
    order = _expansions(llm)
    assert order[0] == "" and len(order) == 5
    frontier = [nodes[""]]
    for path in order:
        node = nodes[path]
        best = min(frontier, key=lambda n: (n.value, n.id))
        assert node is best, (path, [(_path(n), n.value) for n in frontier])
        frontier.remove(node)
        frontier += [c for c in node.children if not c.terminal]
    # the costs really differ, so the order is not an accident of ids
    assert len({round(n.value, 6) for n in nodes.values() if n.parent is not None}) >= 5


def test_every_nodes_costs_follow_eq1_and_eq2_with_g2_over_k():
    llm = _llm()
    agent = run(AStarSearch, TREE, llm, iterations=6, memory_id="none", alpha=0.3, beta=0.7)
    nodes = _by_path(agent)
    assert "zz" not in nodes  # not a legal action: no node, but it counted in k
    assert nodes["a"].stats["g2"] == pytest.approx(2 / 5)
    assert nodes["b"].stats["g2"] == pytest.approx(1 / 5)
    assert nodes["a/a2"].stats["g2"] == pytest.approx(3 / 5)
    for path, node in nodes.items():
        if node.parent is None:
            continue
        st = node.stats
        assert st["g"] == pytest.approx(node.parent.stats["g"] + step_cost(st["g1"], st["g2"], 0.3)), path
        if node.terminal:
            assert st["h2"] == 0.0  # a finished plan is not imagined (and its success is not read)
        else:
            rest = len(IMAGINED.get(path, ()))
            assert st["h2"] == pytest.approx(node.depth / (node.depth + rest) if rest else 0.0), path
        assert st["h"] == pytest.approx(future_cost(st["h1"], st["h2"], 0.7))
        assert node.value == pytest.approx(st["g"] + st["h"])
    imagined = [e[1] for e in llm.log if e[0] == "imagine"]
    assert sorted(imagined) == sorted(p for p, n in nodes.items() if n.parent is not None and not n.terminal)


def test_unparseable_samples_count_in_k():
    samples = dict(SAMPLES, **{"": ["a", "", "", "", "a"]})
    agent = run(AStarSearch, TREE, _llm(samples), iterations=1, memory_id="none")
    assert _by_path(agent)["a"].stats["g2"] == pytest.approx(2 / 5)


def test_no_goal_test_without_peek_and_a_goal_test_with_it():
    tree = {"": ["a", "b"], "a": ["a1"], "a/a1": ["a2"]}
    samples = {"": ["b", "b", "b", "a", "a"], "a": ["a1"] * 5, "a/a1": ["a2"] * 5}
    imagined = {"a": ["s"], "a/a1": ["s"]}
    llm = TreeLLM(samples=samples, imagined=imagined)
    agent = run(AStarSearch, tree, llm, ["b"], iterations=10, memory_id="none")
    assert _expansions(llm) == ["", "a", "a/a1"]  # the won leaf b never ended the search
    nodes = _by_path(agent)
    assert nodes["b"].visits == 0 and nodes["b"].stats["h2"] == 0.0
    assert ("imagine", "b") not in llm.log
    # the answer: the complete plan with the lowest f, whatever the env says about it
    complete = [n for n in nodes.values() if n.terminal]
    assert agent.result.chosen is min(complete, key=lambda n: (n.value, n.id))
    assert agent.stats()["peek_success"] is False

    llm = TreeLLM(samples=samples, imagined=imagined)
    agent = run(AStarSearch, tree, llm, ["b"], iterations=10, memory_id="none", peek_success=True)
    assert _expansions(llm) == [""]  # b is selected next (h2 = 1 without imagining) and is the goal
    assert agent.result.chosen.success and _by_path(agent)["b"].stats["h2"] == 1.0


def test_without_complete_plans_the_answer_is_the_lowest_f_open_node():
    agent = run(AStarSearch, TREE, _llm(), iterations=1, memory_id="none")
    open_nodes = [n for n in agent.result.tree.nodes if n.parent is not None]
    assert agent.result.chosen is min(open_nodes, key=lambda n: (n.value, n.id))


class FreeQueries(TreePrompts):
    def is_listed_or_templated(self, action, obs):
        return action in obs["valid_actions"] or (action.startswith("search[") and obs["text"] == "at root")


def test_free_form_actions_the_prompts_accept_are_kept():
    samples = dict(SAMPLES, **{"": ["search[red shoes]", "search[red shoes]", "a", "zz", "search[blue]"]})
    llm = _llm(samples)
    from support.tree_world import TreeWorldEnv

    env = TreeWorldEnv(TREE)
    obs, info = env.reset()
    agent = SearchPolicy(AStarSearch, TreePrompts.env_id, llm, prompts=FreeQueries(), iterations=1, memory_id="none",
                             budget=100)
    agent.reset()
    agent.bind(env)
    agent.run_search(obs, info)
    actions = {c.action: c for c in agent.result.tree.root.children}
    assert set(actions) == {"search[red shoes]", "a", "search[blue]"}
    assert actions["search[red shoes]"].stats["g2"] == pytest.approx(2 / 5)


def test_ablations_drop_the_terms():
    llm = _llm()
    agent = run(AStarSearch, TREE, llm, iterations=2, memory_id="none", use_g2=False, use_h2=False)
    for node in agent.result.tree.nodes[1:]:
        assert node.stats["g2"] is None and node.stats["h2"] is None
    assert "imagine" not in llm.request_kinds()


def test_lcs_scores_on_edge_cases_and_the_character_score():
    from treegym.agents.search.astar import _char_lcs_score, lcs_length, lcs_score

    assert lcs_length("", "abc") == lcs_length("abc", "") == 0 and lcs_length("abcb", "bcb") == 3
    assert lcs_score([], ["x"]) == lcs_score(["x"], []) == 0.0
    assert lcs_score(["a", "b", "c"], ["a", "c"]) == 1.0 and lcs_score(["a", "b"], ["b", "c", "d"]) == 0.5
    assert _char_lcs_score("", "abc") == _char_lcs_score("abc", "") == 0.0
    assert _char_lcs_score("abcd", "axcy") == 0.5 and _char_lcs_score("ab", "xaby") == 1.0


@pytest.mark.parametrize("rapidfuzz", ["installed", "missing"])
def test_the_character_score_is_the_same_with_and_without_rapidfuzz(rapidfuzz, monkeypatch):
    from treegym.agents.search.astar import _char_lcs_score

    from treegym.agents.search import astar

    monkeypatch.setattr(astar, "_RAPIDFUZZ", [])  # looked up afresh (it is looked up once per process)
    if rapidfuzz == "missing":
        monkeypatch.setitem(sys.modules, "rapidfuzz.distance", None)  # the import fails: the pure-Python LCS
    else:
        pytest.importorskip("rapidfuzz")
    assert _char_lcs_score("abcd", "axcy") == 0.5 and _char_lcs_score("ab", "xaby") == 1.0
    assert _char_lcs_score("kitten", "sitting") == pytest.approx(4 / 6)
    assert astar._RAPIDFUZZ == [None] if rapidfuzz == "missing" else astar._RAPIDFUZZ[0] is not None


@pytest.mark.parametrize("rapidfuzz", ["installed", "missing"])
def test_g1_is_the_best_lcs_score_against_the_plans_with_and_without_rapidfuzz(rapidfuzz, monkeypatch):
    """g1 compares plans coded as ints (a key no memory plan holds matches nothing): the same number as
    lcs_score over the plans as written, with rapidfuzz and with the pure-Python LCS, as plans are added."""
    import random

    from treegym.agents.search import astar

    monkeypatch.setattr(astar, "_RAPIDFUZZ", [])
    if rapidfuzz == "missing":
        monkeypatch.setitem(sys.modules, "rapidfuzz.distance", None)
    else:
        pytest.importorskip("rapidfuzz")
    rng = random.Random(rapidfuzz)
    words = ["go to desk 1", "open drawer 2", "12 * 2", "4 + 8", "take pen", "x", "y"]
    memory = LongTermMemory()
    for _ in range(6):
        memory.add([rng.choice(words[:5]) for _ in range(rng.randint(1, 6))])
        for _ in range(40):
            plan = [rng.choice(words) for _ in range(rng.randint(0, 7))]
            want = max((lcs_score(plan, m) for m in memory.plans), default=0.0)
            assert memory.g1(plan) == want, (plan, memory.plans)
    assert astar._RAPIDFUZZ == [None] if rapidfuzz == "missing" else astar._RAPIDFUZZ[0] is not None


_DEMOS = {0: ["a", "a2", "z"], 1: ["b", "b1"], 2: ["c", "x", "a1"]}


class MemoryWorld(TreeWorldEnv):
    """The tree with a ``train`` split whose expert plans (the env's truth) seed A*'s long-term
    memory, so g1 and h1 are not zero."""

    @classmethod
    def split_task_ids(cls, split):
        return list(_DEMOS) if split == "train" else []

    def reset(self, *, seed=None, options=None):
        self.demo = (options or {}).get("task_id")
        return super().reset(seed=seed, options=options)

    def expert(self):
        return ExpertAdvice(plan=_DEMOS[self.demo]) if getattr(self, "demo", None) is not None else None


def _run_with_memory(llm, wins=(), **options):
    env = MemoryWorld(TREE, wins)
    obs, info = env.reset()
    agent = SearchPolicy(AStarSearch, TreePrompts.env_id, llm, prompts=TreePrompts(), memory_id="none", budget=200, **options)
    agent.reset()
    agent.bind(env)
    agent.run_search(obs, info)
    return agent


def test_g1_and_h1_come_from_the_long_term_memory():
    llm = _llm()
    agent = _run_with_memory(llm, iterations=5)
    nodes = _by_path(agent)
    root = nodes[""]
    assert root.stats["g"] == 0.0 and root.stats["h"] == 0.0
    memory = agent.algorithm.memory
    assert len(memory) == 3
    checked = 0
    for path, node in nodes.items():
        if node.parent is None:
            continue
        plan = path.split("/")
        assert node.stats["g1"] == pytest.approx(memory.g1(plan)) and node.stats["h1"] == pytest.approx(
            memory.h1(node.action))
        checked += node.stats["g1"] > 0 and 0 < node.stats["h1"] < 1
    assert checked >= 2
    assert nodes["a"].stats["g"] == pytest.approx(step_cost(1.0, 2 / 5, 0.5))  # "a" starts a memory plan: g1 = 1
    assert all(n.visits == 1 for n in nodes.values() if n.children)  # each expanded node was selected once


def test_max_steps_stops_expansion_but_not_selection():
    llm = _llm()
    agent = run(AStarSearch, TREE, llm, iterations=4, max_steps=1, memory_id="none")
    assert _expansions(llm) == [""]
    depth1 = [n for n in agent.result.tree.nodes if n.depth == 1]
    assert sorted(n.visits for n in depth1) == [1, 1, 1]  # all three selected, none expanded


def test_without_filter_valid_unlisted_samples_make_nodes():
    agent = run(AStarSearch, TREE, _llm(), iterations=1, memory_id="none", filter_valid=False)
    assert "zz" in {c.action for c in agent.result.tree.root.children}


def test_with_peek_the_answer_is_the_lowest_f_win_and_lost_plans_are_never_answers():
    tree = {"": ["a", "b", "c"], "c": ["c1"]}
    samples = {"": ["a", "b", "c", "c", "c"], "c": ["c1"] * 5}
    llm = TreeLLM(samples=samples, imagined={"c": ["s"]})
    agent = run(AStarSearch, tree, llm, ["a", "b"], iterations=1, memory_id="none", peek_success=True)
    nodes = _by_path(agent)
    assert agent.result.chosen is min((nodes["a"], nodes["b"]), key=lambda n: (n.value, n.id))
    assert agent.stats()["astar_memory_plans"] == 1  # the won plan joined the memory (ToolChain* 3.2)
    llm = TreeLLM(samples=samples, imagined={"c": ["s"]})
    agent = run(AStarSearch, tree, llm, [], iterations=1, memory_id="none", peek_success=True)
    assert _path(agent.result.chosen) == "c"  # a and b ended the episode and lost: the open node c
    assert agent.stats()["astar_memory_plans"] == 0
    llm = TreeLLM(samples={"": [""] * 5})
    assert run(AStarSearch, tree, llm, iterations=2, memory_id="none").result.chosen is None


def test_the_run_memory_is_one_per_env_and_memory_id_and_seeded_once():
    from treegym.agents.search.astar import run_memory

    seeded: list[int] = []

    def seed():
        seeded.append(1)
        return [["a", "b"]]

    mid = f"policy-test-{uuid.uuid4().hex}"
    memory = run_memory("e1", mid, seed)
    assert run_memory("e1", mid, seed) is memory and seeded == [1] and memory.plans == [("a", "b")]
    assert run_memory("e2", mid, seed) is not memory and run_memory("e1", mid + "x", seed) is not memory
    # no memory_id: every episode gets its own, freshly seeded
    assert run_memory("e1", None, seed) is not run_memory("e1", None, seed)
    for text in ("none", "None", ""):  # the option's words for it, typed once by the agent's config
        agent = SearchPolicy(AStarSearch, TreePrompts.env_id, TreeLLM(), prompts=TreePrompts(), memory_id=text)
        assert agent.config.memory_id is None


def test_agents_with_one_memory_id_share_it_and_n_demos_bounds_the_seed():
    from treegym.agents.search.astar import run_memory

    mid = f"policy-test-{uuid.uuid4().hex}"
    first = run(AStarSearch, TREE, _llm(), iterations=1, memory_id=mid)
    second = run(AStarSearch, TREE, _llm(), iterations=1, memory_id=mid)
    assert first.algorithm.memory is second.algorithm.memory is run_memory(TreePrompts.env_id, mid, list)
    assert SearchPolicy(AStarSearch, TreePrompts.env_id, TreeLLM(), prompts=TreePrompts()).config.memory_id == "run"  # the default
    assert len(_run_with_memory(_llm(), iterations=1, n_demos=1).algorithm.memory) == 1
    assert len(_run_with_memory(_llm(), iterations=1, n_demos=0).algorithm.memory) == 0


def test_a_dropped_term_leaves_the_other_alone_and_an_empty_memory_scores_zero():
    from treegym.agents.search.astar import LongTermMemory

    assert future_cost(None, 0.25, 0.5) == pytest.approx(0.75) and future_cost(0.25, None, 0.5) == pytest.approx(0.75)
    assert LongTermMemory().g1(["a"]) == 0.0 and LongTermMemory().h1("a") == 0.0
    agent = run(AStarSearch, TREE, _llm(), iterations=1, memory_id="none", use_g1=False, use_h1=False)
    children = agent.result.tree.root.children
    assert children and all(c.stats["g1"] is None and c.stats["h1"] is None for c in children)


def test_without_peek_a_lost_complete_plan_is_still_the_answer():
    tree = {"": ["a", "c"], "c": ["c1"]}
    llm = TreeLLM(samples={"": ["a", "c", "c", "c", "c"]}, imagined={"c": ["s"]})
    agent = run(AStarSearch, tree, llm, [], iterations=1, memory_id="none")
    assert _path(agent.result.chosen) == "a" and not agent.result.chosen.success


def test_without_peek_a_won_answer_does_not_join_the_memory():
    tree = {"": ["a", "b", "c"], "c": ["c1"]}
    samples = {"": ["a", "b", "c", "c", "c"], "c": ["c1"] * 5}
    agent = run(AStarSearch, tree, TreeLLM(samples=samples, imagined={"c": ["s"]}), ["a", "b"],
                iterations=1, memory_id="none")
    assert agent.result.chosen.success  # the answer won, but the search may not know it
    assert agent.stats()["astar_memory_plans"] == 0 and len(agent.algorithm.memory) == 0
