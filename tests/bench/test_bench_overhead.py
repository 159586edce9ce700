"""scripts/bench/bench_overhead.py: searches start at the chosen depth (their trees grow from the depth
state, checked against reset + replay), the baseline is measured there, and a search that started
elsewhere is refused; each search's expansions are replayed (expansion_replay.py), and a tree the replay
does not reproduce is refused (no timing asserted)."""
from __future__ import annotations

import gymnasium as gym
import pytest

import treegym.envs as te
from treegym.scripts.bench import bench_overhead as bo
from treegym.scripts.bench.bench_rollback import RollbackRefused, open_walk, replay, sibling_branches
from treegym.scripts.bench.bench_support import Samples
from treegym.scripts.bench.expansion_replay import ExpansionReplay, expansions_of

TOOLTASKS = "treegym/ToolTasks-v0"


def test_the_start_states_are_the_rollback_benchmarks_depth_states():
    env = bo.make_with_room(TOOLTASKS, 8)
    try:
        states = bo.start_states(env, [0, 1], 8)
        for seed, state in states.items():
            assert len(state.actions) == 8
            branch_a, _b = sibling_branches(env, seed, 8)
            assert list(state.actions) == branch_a.actions
            assert te.first_difference(state.obs, branch_a.obs) is None
            assert not state.obs.get("done", False) and state.obs["valid_actions"]
        assert bo.start_states(env, [0], 0)[0].actions == ()
        assert te.first_difference(bo.start_states(env, [0], 0)[0].obs, env.reset(seed=0)[0]) is None
    finally:
        env.close()


def test_the_env_gets_room_below_a_deep_start():
    plain, roomy = gym.make(TOOLTASKS), bo.make_with_room(TOOLTASKS, 8)
    assert roomy.unwrapped.max_steps == plain.unwrapped.max_steps + 8
    assert bo.make_with_room(TOOLTASKS, 0).unwrapped.max_steps == plain.unwrapped.max_steps


@pytest.mark.parametrize("agent", ["mcts", "bfs"])
def test_a_search_from_depth_8_grows_its_tree_from_the_depth_state(agent):
    env = bo.make_with_room(TOOLTASKS, 8)
    try:
        [state] = bo.start_states(env, [0], 8).values()
        llm = bo.timed_llm(bo.LLM_SPEC, TOOLTASKS)
        policy, cpu, _wall = bo.checked_search(env, TOOLTASKS, state, agent, llm, budget=12)
        root = policy.result.tree.root
        assert te.first_difference(root.observation, state.obs) is None
        # every first-level child is what the depth state's replay + its action gives
        assert root.children
        for child in root.children:
            assert te.first_difference(child.observation,
                                       replay(env, 0, [*state.actions, child.action])[0]) is None
        depth0 = bo.start_states(env, [0], 0)[0]
        assert te.first_difference(root.observation, depth0.obs) is not None  # not reset's state
        assert cpu > llm.cpu_seconds > 0
    finally:
        env.close()


def test_a_search_that_did_not_start_at_its_state_is_refused():
    env = bo.make_with_room(TOOLTASKS, 8)
    try:
        deep = bo.start_states(env, [0], 8)[0]
        shallow = bo.start_states(env, [0], 3)[0]
        policy, _cpu, _wall = bo.checked_search(env, TOOLTASKS, shallow, "mcts", bo.timed_llm(bo.LLM_SPEC, TOOLTASKS), 8)
        with pytest.raises(RollbackRefused, match="another root observation"):
            bo.check_search_start(env, deep, policy.result.tree.root)
        # a root that looks right but whose children grew elsewhere is refused too
        root = policy.result.tree.root
        root.observation = deep.obs
        with pytest.raises(RollbackRefused, match="first child"):
            bo.check_search_start(env, deep, root)
    finally:
        env.close()


def test_measure_overhead_from_depth_8_reports_the_depth_and_checks_every_search():
    r = bo.measure_overhead(lambda: bo.make_with_room(TOOLTASKS, 8), TOOLTASKS, agents=["mcts", "nosuchagent"],
                            seeds=[0, 1], budget=10, repeats=2, depth=8)
    assert r["depth"] == 8 and r["depths"] == {0: 8, 1: 8}
    assert r["baseline"]["cpu"]["n"] == 2 * 2 * 2  # 2 seeds x 2 agents' arms x 2 repetitions
    a = r["agents"]["mcts"]
    assert a["starts_checked"] == 4 and a["framework"]["cpu"]["n"] == 4
    assert 0 < a["timer_cpu_per_expansion"] < a["framework"]["cpu"]["median"]
    assert "nosuchagent" in r["agents"]["nosuchagent"]["error"]
    # every counted search's expansions were replayed REPLAY_BLOCKS times, each checked against its tree
    assert a["replays_checked"] == a["expansion_env"]["cpu"]["n"] == 4 * bo.REPLAY_BLOCKS
    assert a["expansion_env"]["cpu"]["median"] > 0 and a["ratio_at_expansions"]["cpu"]["n"] == 4
    assert a["ratio_at_expansions_cpu"] > 0 and a["ratio_at_expansions_wall"] > 0
    assert 0 <= a["follow_on_share"] < 0.5  # mcts expands from the root down: it rarely expands a child just made
    text = bo.format_overhead(TOOLTASKS, r)
    assert "searches from depth 8 (seed 0: 8, seed 1: 8)" in text and "(/exp: target <= 2x)" in text
    assert "env@exp" in text and "/start = framework / the env's restore+step+snapshot at the start state" in text


def _search_tree(env, depth=8, agent="mcts", budget=12):
    state = bo.start_states(env, [0], depth)[0]
    policy, _cpu, _wall = bo.checked_search(env, TOOLTASKS, state, agent, bo.timed_llm(bo.LLM_SPEC, TOOLTASKS), budget)
    return state, policy.result.tree.root, int(policy.stats()["search_expansions"])


def test_the_expansion_replay_replays_each_expansion_of_the_search_from_its_parent():
    env = bo.make_with_room(TOOLTASKS, 8)
    try:
        state, root, expansions = _search_tree(env)
        nodes = expansions_of(root, expansions, "the search")
        assert len(nodes) == expansions > 1 and [n.id for n in nodes] == sorted(n.id for n in nodes)
        replayed = ExpansionReplay(env, state, nodes, "the search")
        assert [item.node for item in replayed.items] == nodes
        # one snapshot per distinct parent; parent_of follows the tree
        assert len(replayed.parents) == len({id(n.parent) for n in nodes})
        for i, n in enumerate(nodes):
            assert replayed.parent_of[i] == (-1 if n.parent is root else nodes.index(n.parent))
        assert replayed.follow_ons == sum(1 for a, b in zip(nodes, nodes[1:]) if b.parent is a)
        samples = Samples()
        seen = []
        replayed.run(samples, "expansions", lambda i, item, result: seen.append((i, item.action, result[0])))
        replayed.run(samples, "expansions")
        assert samples.cpu["expansions"][0] > 0 and len(samples.cpu["expansions"]) == 2
        assert [(i, a) for i, a, _obs in seen] == [(i, n.action) for i, n in enumerate(nodes)]
        assert all(te.first_difference(obs, n.observation) is None for (_i, _a, obs), n in zip(seen, nodes))
        replayed.close()
        assert replayed.parents == []
    finally:
        env.close()


def test_the_replay_restores_where_the_search_did(monkeypatch):
    """A follow-on expansion (the child the previous expansion made) steps from the state the env holds, as
    the search's store does; every other expansion restores its parent (plus one restore moving the env off)."""
    env = bo.make_with_room(TOOLTASKS, 8)
    try:
        state, root, expansions = _search_tree(env, agent="dfsdt")
        replayed = ExpansionReplay(env, state, expansions_of(root, expansions, "the search"), "the search")
        assert replayed.follow_ons > 0  # dfsdt goes down the child it just made
        restores = []
        real = te.restore
        monkeypatch.setattr(te, "restore", lambda e, snap, **kw: restores.append(snap) or real(e, snap, **kw))
        replayed.run(Samples(), "expansions")
        assert len(restores) == 1 + len(replayed) - replayed.follow_ons
        replayed.close()
    finally:
        env.close()


def test_a_tree_the_replay_does_not_reproduce_is_refused():
    env = bo.make_with_room(TOOLTASKS, 8)
    try:
        state, root, expansions = _search_tree(env)
        with pytest.raises(RollbackRefused, match=f"counted {expansions + 1} expansions"):
            expansions_of(root, expansions + 1, "the search")
        nodes = expansions_of(root, expansions, "the search")
        # a child whose observation is not what its action gives from its parent
        leaf = next(n for n in reversed(nodes) if not n.children)
        leaf.observation = {**leaf.observation, "text": leaf.observation["text"] + " (not what the env said)"}
        replayed = ExpansionReplay(env, state, nodes, "the search")
        try:
            with pytest.raises(RollbackRefused, match=f"replaying node {leaf.id} .* another observation"):
                replayed.run(Samples(), "expansions")
        finally:
            replayed.close()
        # a parent whose observation is not what reset + replay of its path gives
        parent = next(n for n in nodes if n.children)
        parent.observation = {**parent.observation, "text": "elsewhere"}
        with pytest.raises(RollbackRefused, match="reset \\+ replay to the parent"):
            ExpansionReplay(env, state, nodes, "the search")
    finally:
        env.close()


def test_the_verdict_is_on_the_ratio_its_target_names():
    agent = {"framework": {"cpu": {"median": 30e-6, "p25": 29e-6, "p75": 31e-6}}, "timer_cpu_per_expansion": 1e-6,
             "expansions": {"median": 10}, "expansion_env": {"cpu": {"median": 20e-6}},
             "ratio": {"cpu": {"p25": 2.9, "p75": 3.1}}, "ratio_cpu": 3.0, "ratio_wall": 3.0,
             "ratio_at_expansions": {"cpu": {"p25": 1.4, "p75": 1.6}}, "ratio_at_expansions_cpu": 1.5,
             "ratio_at_expansions_wall": 1.5}
    r = {"baseline": {"cpu": {"median": 10e-6, "p25": 9e-6, "p75": 11e-6}}, "agents": {"mcts": agent}}
    deep = bo.format_overhead(TOOLTASKS, {**r, "depth": 8, "depths": {0: 8}})
    assert "ok (/exp: target <= 2x)" in deep
    start = bo.format_overhead(TOOLTASKS, {**r, "depth": 0, "depths": {0: 0}})
    assert "OVER (/start: target <= 2.5x)" in start


def test_the_command_line_takes_a_depth(capsys):
    assert bo.main(["--env", TOOLTASKS, "--agents", "mcts", "--seeds", "1", "--budget", "8", "--repeats", "1",
                    "--depth", "4"]) == 0
    out = capsys.readouterr().out
    assert "searches from depth 4 (seed 0: 4)" in out and "load average" in out
    with pytest.raises(SystemExit):
        bo.main(["--depth", "-1"])
    assert "--depth >= 0" in capsys.readouterr().err


def test_an_agent_that_gives_up_after_its_search_still_searched():
    # dfsdt from ALFWorld's depth-8 state of seed 1 finds nothing to play after its search (AgentGaveUp)
    alfworld = "treegym/ALFWorld-v0"
    env = bo.make_with_room(alfworld, 8)
    try:
        state = bo.start_states(env, [1], 8)[1]
        policy, cpu, _wall = bo.checked_search(env, alfworld, state, "dfsdt", bo.timed_llm(bo.LLM_SPEC, alfworld), 40)
        assert policy.result is not None and cpu > 0
        assert policy.stats()["search_llm_calls"] >= 1
    finally:
        env.close()


def test_a_step_limit_known_only_after_reset_gets_its_room_too():
    # B-MoCA's limit is the task's, set by reset: the depth column's env gets the first task's + 8
    pytest.importorskip("PIL")
    plain = gym.make("treegym/BMoCA-v0")
    plain.reset(seed=0)
    roomy = bo.make_with_room("treegym/BMoCA-v0", 8)
    roomy.reset(seed=0)
    assert roomy.unwrapped.max_steps == plain.unwrapped.max_steps + 8
    assert len(bo.start_states(roomy, [0], 8)[0].actions) == 8
