"""``treegym run`` builds one agent and one env per task: the agent's options are checked without
building it, the env made up front plays the first episode, and the synthetic LLM looks at states on
the episode's own env (native snapshots, put back after each look) rather than on a clone of it.
Before, a 2-task run built the agent 4 times (the CLI's option check, evaluate's up-front build, one
per task) and the env 5 times (the CLI's option check, one per task, one scratch clone per env)."""
from __future__ import annotations

import json

import gymnasium as gym

from treegym.agents.prompts import register_spec
from treegym.agents.prompts.specs.game24 import Game24Prompts
from treegym.agents.registry import agent_spec, register_agent
from treegym.agents.search.agent import SearchPolicy
from treegym.agents.search.mcts import MCTS
from treegym.envs.game24.env import Game24Env
from treegym.scripts.cli import main

ENV = "test/CountedGame24-v0"
BUILT = {"env": 0, "agent": 0}


class CountedGame24(Game24Env):
    """Game24, counting its constructions (clones included)."""

    def __init__(self, *args, **kwargs):
        BUILT["env"] += 1
        super().__init__(*args, **kwargs)


class CountedPolicy(SearchPolicy):
    """The MCTS search policy, counting its constructions."""

    def __init__(self, *args, **kwargs):
        BUILT["agent"] += 1
        super().__init__(*args, **kwargs)


def _register() -> None:
    if ENV not in gym.registry:
        gym.register(ENV, entry_point=CountedGame24)
        register_spec(ENV)(type("CountedGame24Prompts", (Game24Prompts,), {}))
        register_agent("counted-mcts", needs_llm=True, check=agent_spec("mcts").check, searches=True)(
            lambda env_id, llm, **options: CountedPolicy(MCTS, env_id, llm, **options))


def test_a_two_task_run_builds_one_agent_and_one_env_per_task(tmp_path):
    _register()
    BUILT.update(env=0, agent=0)
    out = tmp_path / "run.jsonl"
    code = main(["run", ENV, "--agent", "counted-mcts", "--agent-opt", "n_iters=3", "--llm",
                 "synthetic:p_correct=0.8,seed=0", "--tasks", "0,1", "--budget", "30", "--out", str(out),
                 "--no-progress"])
    assert code == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 2 and all(r["error"] is None and r["llm_calls"] > 0 for r in records)
    assert BUILT == {"env": 2, "agent": 2}


def test_a_bad_env_option_still_fails_the_run_before_any_episode(tmp_path, capsys):
    _register()
    out = tmp_path / "run.jsonl"
    code = main(["run", ENV, "--agent", "counted-mcts", "--llm", "synthetic:seed=0", "--tasks", "0,1",
                 "--env-opt", "max_steps=-3", "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and f"cannot make {ENV} with max_steps=-3" in err, err
    assert not out.exists() or out.read_text() == ""
