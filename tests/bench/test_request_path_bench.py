"""scripts/bench/bench_request_path.py: every hook reaches the LLM through the budget as many times as it
says, the LLM's time is what is subtracted, and the figures come out per hook (no timing asserted)."""
from __future__ import annotations

import gymnasium as gym

import treegym.envs  # noqa: F401
from treegym.scripts.bench import bench_request_path as brp
from treegym.scripts.bench.bench_overhead import LLM_SPEC

GAME24 = "treegym/Game24-v0"


def test_each_hook_sends_its_calls_to_the_timed_llm():
    env = gym.make(GAME24)
    hooks, timed = brp._hooks(env, GAME24, LLM_SPEC)
    assert set(hooks) == set(brp.HOOKS)
    for name, calls in {"value": 1, "react": 1, "propose": 1, "compare": 2, "imagine": 1, "path": 1}.items():
        before, cpu = timed.usage.calls, timed.cpu_seconds
        hooks[name]()
        assert timed.usage.calls - before == calls, name
        assert timed.cpu_seconds > cpu, name  # the model's time is counted, to be left out


def test_the_figures_come_out_per_hook_beside_the_env():
    result = brp.measure(GAME24, calls=3, repeats=2)
    assert result["baseline"]["n"] == 2 and result["baseline"]["median"] > 0
    assert set(result["hooks"]) == set(brp.HOOKS)
    assert all(s["n"] == 2 and s["median"] > 0 for s in result["hooks"].values())
    text = brp.format_result(GAME24, result)
    assert all(f"  {hook} " in text for hook in brp.HOOKS) and "x" in text.splitlines()[-1]
