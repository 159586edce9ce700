"""scripts/bench/bench_prompt_cost.py: both runs grow the same search, the stubbed one answers every prompt
call from the record with new text, and nothing stays patched (no timing asserted)."""
from __future__ import annotations

import gymnasium as gym

import treegym.envs  # noqa: F401
from treegym.agents.search.config import SearchConfig
from treegym.scripts.bench import bench_prompt_cost as pc

GAME24 = "treegym/Game24-v0"


def test_real_and_stubbed_searches_are_measured_and_nothing_stays_patched():
    before = SearchConfig.__dict__["_clean"]
    result = pc.measure_prompt_cost(lambda: gym.make(GAME24), GAME24, agents=["mcts", "bfs"], seeds=[0],
                                    budget=12, repeats=2)
    for agent in ("mcts", "bfs"):
        a = result[agent]
        assert "error" not in a, a
        assert a["real"]["n"] == a["stubbed"]["n"] == 2 and a["real"]["median"] > 0 < a["stubbed"]["median"]
        assert a["calls"] > 0 and a["cost"] == a["real"]["median"] - a["stubbed"]["median"]
        assert a["py_calls"] > a["calls"]  # each prompt call runs the prompt layer's own functions
    assert SearchConfig.__dict__["_clean"] is before
    assert "Game24-v0" in pc.format_prompt_cost(GAME24, result)


def test_fresh_rebuilds_every_string_and_keeps_the_value():
    value = [{"role": "user", "content": "Input: 4 4 6 8"}, ("a", ""), "x", 3]
    again = pc.fresh(value)
    assert again == value
    assert again[0]["content"] is not value[0]["content"] and again[1][0] is not value[1][0] and again[2] is not value[2]


def test_a_search_that_makes_other_calls_than_recorded_is_refused():
    calls = pc._Calls()
    calls.mode, calls.log = "stubbed", ["only one"]
    answer = calls.wrap(lambda: "real")
    assert answer() == "only one"
    try:
        answer()
    except pc.SearchMismatch:
        pass
    else:
        raise AssertionError("a call past the record was answered")
    result = pc.measure_prompt_cost(lambda: gym.make(GAME24), GAME24, agents=["nosuchagent"], seeds=[0],
                                    budget=8, repeats=1)
    assert "nosuchagent" in result["nosuchagent"]["error"]


def test_the_command_line_measures_from_a_state_depth_actions_in(capsys):
    assert pc.main(["--env", GAME24, "--agents", "bfs", "--seeds", "1", "--budget", "8", "--repeats", "1",
                    "--depth", "1"]) == 0
    out = capsys.readouterr().out
    assert "not measured" not in out and "bfs" in out
    result = pc.measure_prompt_cost(lambda: gym.make(GAME24), GAME24, agents=["bfs"], seeds=[0], budget=8,
                                    repeats=1, depth=1)
    assert "error" not in result["bfs"], result
