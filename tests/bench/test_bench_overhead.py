"""scripts/bench/bench_overhead.py: searches start at the chosen depth (their trees grow from the depth
state, checked against reset + replay), the baseline is measured there, and a search that started
elsewhere is refused (no timing asserted)."""
from __future__ import annotations

import gymnasium as gym
import pytest

import treegym.envs as te
from treegym.scripts.bench import bench_overhead as bo
from treegym.scripts.bench.bench_rollback import RollbackRefused, open_walk, replay, sibling_branches

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
        policy, cpu, _wall = bo._search(env, TOOLTASKS, state, agent, llm, budget=12)
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
        policy, _cpu, _wall = bo._search(env, TOOLTASKS, shallow, "mcts", bo.timed_llm(bo.LLM_SPEC, TOOLTASKS), 8)
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
    text = bo.format_overhead(TOOLTASKS, r)
    assert "searches from depth 8 (seed 0: 8, seed 1: 8)" in text and "target <= 2x" in text


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
        policy, cpu, _wall = bo._search(env, alfworld, state, "dfsdt", bo.timed_llm(bo.LLM_SPEC, alfworld), 40)
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
