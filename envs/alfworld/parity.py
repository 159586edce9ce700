"""Step-by-step comparison of this engine with ALFWorld's official one (textworld ``PddlEnv`` + ``AlfredDemangler``).

Needs the optional extra ``treegym[alfworld-official]`` (``alfworld`` and
``textworld[pddl]``; fast-downward compiles from source, ~4 minutes).
:func:`official_available` says whether it is installed.

For one game, :func:`compare_game` plays, in both engines side by side,

1. the official planner expert's plan (``policy_commands`` at reset), and
2. a seeded random walk of ``walk_steps`` steps over the admissible commands,
   with about 5% invalid commands mixed in,

and compares the observation text, the admissible commands and ``won`` after
reset and after every step. It returns a :class:`GameParity` with the number of
compared steps and the first mismatches.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Mapping

from .engine import admissible_commands, initial_state, step_state
from .game import Game

INVALID_COMMANDS = ("fly away", "take moon 1 from sky 1", "go to nowhere 1", "open", "look around")


def official_available() -> str | None:
    """None when the official engine can be imported, else the reason it cannot."""
    try:
        import fast_downward  # noqa: F401
        import textworld  # noqa: F401
        from alfworld.agents.environment.alfred_tw_env import AlfredDemangler  # noqa: F401
        from textworld.envs.pddl import PddlEnv  # noqa: F401
    except Exception as exc:  # ImportError, or a broken fast-downward build (OSError)
        return f"{type(exc).__name__}: {exc}"
    return None


class OfficialGame:
    """The official engine on one game (``reset`` / ``step`` -> (text, admissible, won))."""

    def __init__(self, data: Mapping[str, Any]):
        import textworld
        from alfworld.agents.environment.alfred_tw_env import AlfredDemangler
        from textworld.envs.pddl import PddlEnv

        infos = textworld.EnvInfos(won=True, admissible_commands=True)
        self.env = AlfredDemangler(PddlEnv(infos))
        self.env.load(dict(data))

    def reset(self, policy: bool = False) -> tuple[str, list[str], bool, list[str] | None]:
        """Reset; with ``policy`` also the planner's plan from the initial state (the planner then stops)."""
        infos = self.env._wrapped_env.request_infos
        infos.policy_commands = policy
        state = self.env.reset()
        infos.policy_commands = False  # replanning on every step costs seconds; one plan is enough
        return state.feedback, list(state["admissible_commands"]), bool(state["won"]), state.get("policy_commands")

    def step(self, command: str) -> tuple[str, list[str], bool]:
        state, _score, _done = self.env.step(command)
        return state.feedback, list(state["admissible_commands"]), bool(state["won"])


@dataclass
class GameParity:
    task_id: str
    steps: int = 0
    mismatches: list[dict] = field(default_factory=list)
    plan_len: int = 0
    plan_won_official: bool = False
    plan_won_ours: bool = False

    @property
    def ok(self) -> bool:
        return not self.mismatches


def _compare(report: GameParity, where: str, ours: tuple, theirs: tuple) -> None:
    report.steps += 1
    for name, a, b in zip(("text", "admissible", "won"), ours, theirs):
        if a != b and len(report.mismatches) < 5:
            report.mismatches.append({"where": where, "field": name, "ours": a, "official": b})


def compare_game(task_id: str, data: Mapping[str, Any], seed: int = 0, walk_steps: int = 30,
                 style_check: bool = True) -> GameParity:
    """Play the official plan and a random walk through both engines (see the module docstring)."""
    report = GameParity(task_id)
    game = Game.from_data(data, source=task_id, task_id=task_id)

    official = OfficialGame(data)
    text, adm, won, plan = official.reset(policy=True)
    ours = initial_state(game)
    _compare(report, "reset", (ours.text, admissible_commands(ours), ours.won), (text, adm, won))
    plan = list(plan or [])
    report.plan_len = len(plan)
    for i, cmd in enumerate(plan):
        theirs = official.step(cmd)
        ours = step_state(ours, cmd)
        _compare(report, f"plan[{i}] {cmd!r}", (ours.text, admissible_commands(ours), ours.won), theirs)
        report.plan_won_official, report.plan_won_ours = theirs[2], ours.won
        if theirs[2] or ours.won:
            break

    text, adm, won, _ = official.reset()
    ours = initial_state(game)
    _compare(report, "walk reset", (ours.text, admissible_commands(ours), ours.won), (text, adm, won))
    rng = random.Random(f"{seed}:{task_id}")
    for i in range(walk_steps):
        cmd = rng.choice(INVALID_COMMANDS) if rng.random() < 0.05 else rng.choice(adm)
        text, adm, won = official.step(cmd)
        ours = step_state(ours, cmd)
        _compare(report, f"walk[{i}] {cmd!r}", (ours.text, admissible_commands(ours), ours.won), (text, adm, won))
        if won or ours.won:
            break
    return report
