"""scripts/bench/bench_overhead_breakdown.py: the parts add up to the timed search, and nothing stays patched
(no timing asserted)."""
from __future__ import annotations

import gymnasium as gym
import pytest

import treegym.envs  # noqa: F401
from treegym.agents.search.config import SearchConfig
from treegym.agents.search.telemetry import SearchTelemetry
from treegym.scripts.bench import bench_overhead_breakdown as bd

GAME24 = "treegym/Game24-v0"


@pytest.mark.parametrize("agent", ["mcts", "elo"])
def test_the_parts_add_up_to_the_timed_search_and_nothing_stays_patched(agent):
    before = (SearchConfig.__dict__["expand"], SearchConfig.__dict__["_note"], SearchTelemetry.__dict__["expanded"])
    result = bd.measure_breakdown(lambda: gym.make(GAME24), GAME24, agents=[agent], seeds=[0], budget=12, repeats=1)
    a = result[agent]
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
    assert "error" not in result["mcts"]
    assert "nosuchagent" in result["nosuchagent"]["error"]
