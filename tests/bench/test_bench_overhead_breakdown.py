"""scripts/bench/bench_overhead_breakdown.py: the parts add up to the timed search, and nothing stays patched
(no timing asserted)."""
from __future__ import annotations

import gymnasium as gym
import pytest

import treegym.envs  # noqa: F401
from treegym.agents.search.config import SearchConfig
from treegym.agents.search.telemetry import SearchTelemetry
from treegym.scripts.bench import bench_overhead as bo, bench_overhead_breakdown as bd

GAME24 = "treegym/Game24-v0"


@pytest.mark.parametrize("agent", ["mcts", "elo"])
def test_the_parts_add_up_to_the_timed_search_and_nothing_stays_patched(agent):
    before = (SearchConfig.__dict__["expand"], SearchConfig.__dict__["_note"], SearchTelemetry.__dict__["expanded"])
    result = bd.measure_breakdown(lambda: gym.make(GAME24), GAME24, agents=[agent], seeds=[0], budget=12, repeats=1)
    assert result["depth"] == 0 and result["depths"] == {0: 0}
    a = result["agents"][agent]
    assert "error" not in a, a
    parts = a["parts"]
    assert set(parts) == set(bd.PARTS)
    assert sum(parts.values()) == pytest.approx(a["timed"]["median"], rel=1e-9)
    for part in ("env step", "restore+snap", "prompt build", "request path", "expand", "algorithm", "outside"):
        assert parts[part] > 0, part
    assert a["plain"]["n"] == a["timed"]["n"] == 1 and a["plain"]["median"] > 0
    assert (SearchConfig.__dict__["expand"], SearchConfig.__dict__["_note"],
            SearchTelemetry.__dict__["expanded"]) == before
    env = gym.make(GAME24)
    assert "step" not in vars(env)
    assert "Game24-v0" in bd.format_breakdown(GAME24, result)


def test_an_agent_that_fails_on_the_env_is_named_not_fatal():
    result = bd.measure_breakdown(lambda: gym.make(GAME24), GAME24, agents=["mcts", "nosuchagent"], seeds=[0],
                                  budget=8, repeats=1)
    assert "error" not in result["agents"]["mcts"]
    assert "nosuchagent" in result["agents"]["nosuchagent"]["error"]


def test_searches_start_at_the_depth_asked_for_and_are_checked_there():
    tooltasks = "treegym/ToolTasks-v0"
    result = bd.measure_breakdown(lambda: bo.make_with_room(tooltasks, 8), tooltasks, agents=["mcts"], seeds=[0, 1],
                                  budget=10, repeats=1, depth=8)
    assert result["depth"] == 8 and result["depths"] == {0: 8, 1: 8}
    a = result["agents"]["mcts"]
    assert a["plain"]["n"] == a["timed"]["n"] == 2
    assert sum(a["parts"].values()) == pytest.approx(a["timed"]["median"], rel=1e-9)
    assert "searches from depth 8 (seed 0: 8, seed 1: 8)" in bd.format_breakdown(tooltasks, result)
    # Game24's episodes end at step 3: its searches start at the last open depth
    assert bd.measure_breakdown(lambda: gym.make(GAME24), GAME24, agents=["mcts"], seeds=[0], budget=6, repeats=1,
                                depth=8)["depths"] == {0: 2}


def test_what_the_llm_calls_is_the_llms_time_not_a_framework_part():
    import time

    def spin(seconds):
        t0 = time.process_time()
        while time.process_time() - t0 < seconds:
            pass

    clock = bd.ExclusiveClock()
    calls = []
    step = clock.wrap("env step", lambda busy: (calls.append(busy), spin(busy)))
    llm = clock.wrap("llm", lambda: step(0.03))  # the simulated LLM stepping the env to find the truth
    clock.enter("outside")
    llm()
    step(0.0)  # the framework's own step
    clock.leave()
    assert calls == [0.03, 0.0]
    assert clock.seconds["llm"] >= 0.03  # the LLM's step is the LLM's time ...
    assert clock.seconds["env step"] < 0.03  # ... and not the env step part's
