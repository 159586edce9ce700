"""Seeded searches grow the same trees as when the fixtures were recorded (before the overhead
optimisations of issue 26 item 2): same nodes, actions, values, visit counts, LLM excerpts, and the
same prompts sent (a digest of every request's messages). See ``tests/support/tree_fixtures.py``."""
from __future__ import annotations

import json

import pytest

from treegym.agents.prompts.memo import _BRACKET
from tests.support.tree_fixtures import AGENTS, ENVS, fixture_path, search_tree


@pytest.mark.parametrize("env_key", sorted(ENVS))
@pytest.mark.parametrize("agent", AGENTS)
def test_seeded_search_grows_the_recorded_tree(env_key: str, agent: str) -> None:
    expected = json.loads(fixture_path(env_key, agent).read_text())
    got = search_tree(env_key, agent)
    assert [(n["id"], n["parent"], n["action"]) for n in got["nodes"]] == \
        [(n["id"], n["parent"], n["action"]) for n in expected["nodes"]]
    assert [(n["value"], n["visits"], n["stats"]) for n in got["nodes"]] == \
        [(n["value"], n["visits"], n["stats"]) for n in expected["nodes"]]
    assert (got["prompt_calls"], got["prompt_digest"]) == (expected["prompt_calls"], expected["prompt_digest"])
    assert json.loads(json.dumps(got, sort_keys=True)) == expected


def test_elo_choice_index_draws_as_numpy_choice() -> None:
    import numpy as np

    from treegym.agents.search.elo import choice_index, selection_probabilities

    gen = np.random.default_rng(7)
    for n in range(1, 9):
        for _ in range(200):
            probs = selection_probabilities(list(gen.normal(0, 300, n)), float(gen.uniform(10, 400)),
                                            0.0 if n % 2 else None)
            a, b = np.random.default_rng(n), np.random.default_rng(n)
            for _ in range(3):
                assert choice_index(a, probs) == int(b.choice(len(probs), p=probs))
            assert a.random() == b.random()  # the same draws consumed


@pytest.mark.parametrize("algorithm", ["elo", "astar", "mcts", "lats", "dfsdt", "bfs", "dfs", "other"])
def test_telemetry_value_reader_is_search_value(algorithm: str) -> None:
    from treegym.agents.search.telemetry import _value_reader, search_value
    from treegym.agents.search.tree import SearchNode

    read = _value_reader(algorithm)
    for visits in (0, 2):
        for stats in ({}, {"elo_updates": 1}, {"g": 1.0}, {"prior": 0.25}, {"judged": 1.0}, {"prior": None}):
            node = SearchNode(snapshot=None, observation={}, value=0.75, visits=visits, stats=dict(stats))
            assert read(node) == search_value(algorithm, node.value, node.visits, node.stats)


def _reference_normalise(spec, line: str, obs: dict) -> str:
    """``PromptSpec.normalise`` as it was before the memo (issue 26 item 2), for comparison."""
    from treegym.agents.prompts.spec import _BULLET

    line = _BULLET.sub("", str(line)).strip().strip("`").strip()
    valid = [str(v) for v in obs.get("valid_actions") or ()]
    low = {v.lower(): v for v in valid}
    if line.lower() in low:
        return low[line.lower()]
    for v in valid:
        m = _BRACKET.fullmatch(v)
        if m and m.group(2).strip().lower() == line.lower():
            return v
    canon = spec.canonical(line)
    if canon is not None:
        return next((v for v in valid if spec.canonical(v) == canon), line)
    return line


@pytest.mark.parametrize("env_id", ["treegym/Game24-v0", "treegym/ToolTasks-v0", "treegym/WebShop-v0"])
def test_normalise_and_extract_answer_as_before_the_memo(env_id: str) -> None:
    import gymnasium as gym

    from treegym.agents.prompts import get_prompts

    env = gym.make(env_id)
    try:
        obs, _ = env.reset(seed=1)
        spec = get_prompts(env_id).bind(env)
        valid = [str(v) for v in obs.get("valid_actions") or ()]
        lines = valid[:6] + [v.upper() for v in valid[:3]] + [f"- {v}  " for v in valid[:3]] + [
            "search[red shoes]", "click[Next >]", "Buy Now", "nothing here", "", "set_location('Boston')",
            'set_location( "Boston" )', "1 + 2 = 3", "Action: " + (valid[0] if valid else "x")]
        for obs_now in (obs, {**obs, "valid_actions": list(obs.get("valid_actions") or ())}, {**obs, "valid_actions": ()}):
            for line in lines:
                assert spec.normalise(line, obs_now) == _reference_normalise(spec, line, obs_now), line
    finally:
        env.close()


def test_astar_memory_scores_follow_added_plans() -> None:
    from treegym.agents.search.astar import LongTermMemory

    memory = LongTermMemory([("a", "b", "c")])
    assert memory.h1("b") == memory.h1("b") == pytest.approx(2 / 3)
    assert memory.g1(["a", "x"]) == 0.5
    memory.add(("x", "b"))  # a new plan changes both answers: nothing stale is served
    assert memory.h1("b") == pytest.approx((2 / 3 + 1.0) / 2)
    assert memory.g1(["a", "x"]) == 0.5 and memory.g1(["x"]) == 1.0


def test_per_task_answers_follow_the_env_to_another_task() -> None:
    import gymnasium as gym

    from treegym.agents.prompts import get_prompts

    env = gym.make("treegym/ToolTasks-v0")
    try:
        spec = get_prompts("treegym/ToolTasks-v0").bind(env)
        seen = set()
        for seed in range(4):
            obs, _ = env.reset(seed=seed)
            assert spec.task_fields() == env.unwrapped.task_fields()
            assert spec.cached_task_lines(obs) == spec.task_lines(obs)
            first = next(iter(obs.get("valid_actions") or ()), None)
            if first is not None:
                assert spec.canonical(first) == env.unwrapped.canonical_action(first)
            seen.add(str(spec.task_fields()["query"]))
        assert len(seen) > 1  # the tasks differed, and the spec followed
    finally:
        env.close()
