"""Live step-by-step comparison of ``treegym/ALFWorld-v0`` with ALFWorld's official engine.

For one game, :func:`compare_game` records the official engine's ``plan`` and
``walk`` transcripts (:func:`.transcripts.record_official`: the planner's plan,
and a seeded random walk with about 5% invalid commands) and replays them
through the Gym API (``gym.make``, :func:`.transcripts.replay`), comparing the
observation text, the admissible commands (``obs["valid_actions"]``) and
``info["won"]`` after reset and after every step. Needs the official engine
(:func:`.official.official_available`); the committed golden transcripts give
the same check without it (``tests/envs/alfworld/test_alfworld_golden.py``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from .transcripts import Transcript, record_official, replay
import treegym.envs  # noqa: F401  (registers the ids)
from .generate import GENERATED_SPLITS, parse_task_id


@dataclass
class GameParity:
    task_id: str
    steps: int = 0
    mismatches: list[dict] = field(default_factory=list)
    plan_len: int = 0
    plan_won_official: bool = False
    plan_won_ours: bool = False
    transcripts: list[Transcript] = field(default_factory=list, repr=False)

    @property
    def ok(self) -> bool:
        return not self.mismatches


def make_env_for(task_id: str) -> Any:
    """``gym.make("treegym/ALFWorld-v0")`` on the split that holds ``task_id`` (shipped or generated)."""
    import gymnasium as gym

    if not str(task_id).startswith("gen/"):
        return gym.make("treegym/ALFWorld-v0")
    _, seed = parse_task_id(task_id)
    split = next(name for name, seeds in GENERATED_SPLITS.items() if seed in seeds)
    return gym.make("treegym/ALFWorld-v0", split=split)


def compare_game(task_id: str, data: Mapping[str, Any], seed: int = 0, walk_steps: int = 30) -> GameParity:
    """Record both official transcripts of one game and replay them through ``gym.make`` (module docstring)."""
    report = GameParity(task_id)
    report.transcripts = record_official(task_id, data, seed=seed, walk_steps=walk_steps)
    env = make_env_for(task_id)
    try:
        for t in report.transcripts:
            compared, bad = replay(env, t, max_mismatches=5 - len(report.mismatches))
            report.steps += compared
            report.mismatches += bad
            if t.kind == "plan":
                report.plan_len = len(t.commands)
                report.plan_won_official = t.won
                report.plan_won_ours = bool(env.unwrapped.state.won)
    finally:
        env.close()
    return report
