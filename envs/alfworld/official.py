"""ALFWorld's official engine (textworld ``PddlEnv`` + ALFWorld's ``AlfredDemangler``), for parity checks.

Needs the optional extra ``treegym[alfworld-official]`` (``alfworld`` and
``textworld[pddl]``; fast-downward compiles from source, ~4 minutes).
:func:`official_available` says whether it is installed.
"""
from __future__ import annotations

from typing import Any, Mapping


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


def require_official(program: str) -> bool:
    """True when the official engine imports; else prints why and how to install it, for ``program``."""
    import sys

    why = official_available()
    if why is not None:
        print(f"{program}: the official engine is not installed ({why}); "
              "pip install 'treegym[alfworld-official]'", file=sys.stderr)
    return why is None


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
