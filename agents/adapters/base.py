"""Env adapters: the LLM-facing side of each env (prompts and parsers), keyed by env id.

Algorithms never see prompts. They call an adapter's hooks:

* ``react_messages(obs, history)`` / ``parse_action(text, obs)`` - one ReAct step;
* ``propose_messages(obs, history, k, avoid)`` / ``parse_proposals(text, obs)`` - k candidate next actions;
* ``compare_messages(traj_a, traj_b)`` / ``parse_comparison(text)`` - pairwise judgment, 1 = A better, 0 = B, 0.5 tie;
* ``value_messages(obs, history)`` / ``parse_value(text)`` - a state's value in [0, 1] (ToT sure/likely/impossible);
* ``reflect_messages(trajectory, outcome)`` - a self-reflection on a failed trajectory;
* ``scripted_reply(messages)`` - what a perfect model would answer, for the scripted LLM in tests.

Optional hooks, looked up when present (an env without them simply lacks the feature):

* ``oracle_answer(messages) -> OracleAnswer`` - the truth for a tagged request
  (``agents/adapters/oracle.py``); the synthetic LLM corrupts it with its knobs;
* ``imagine_messages(obs, history)`` / ``parse_imagined(text)`` - A*'s imagined
  plan to the goal (the h2 heuristic);
* ``action_key(action)`` - a canonical form of an action for deduplication and plan memory;
* ``demonstrations(n, seed)`` - solved plans that seed A*'s long-term memory;
* ``answer_key(observation) -> str`` - what self-consistency votes on.

A trajectory is a list of ``Step(action, observation_text, reward)`` from the
task's start; ``history`` is the same list for the current path.

Register an adapter with ``@register_adapter("treegym/MyEnv-v0")``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from ..llm.base import Message


@dataclass(frozen=True)
class Step:
    """One transition of a trajectory as adapters see it."""

    action: str
    observation: str
    reward: float = 0.0
    thought: str = ""


class EnvAdapter:
    """Default hooks; env adapters override the prompts and parsers."""

    env_id: str = ""
    # The answers the comparison and value prompts ask for; an LLM that can
    # constrain its output (the embedded model) is held to them.
    compare_choices: tuple[str, ...] = ("A", "B")
    value_choices: tuple[str, ...] = ("sure", "likely", "impossible")

    # ---- ReAct
    def react_messages(self, obs: dict, history: Sequence[Step], reflections: Sequence[str] = ()) -> list[Message]:
        raise NotImplementedError(f"{type(self).__name__} has no ReAct prompt")

    def parse_action(self, text: str, obs: dict) -> str:
        """The action in an LLM answer (``Action: ...`` line, or the whole text)."""
        for line in reversed(text.strip().splitlines()):
            line = line.strip()
            if line.lower().startswith("action:"):
                return line.split(":", 1)[1].strip()
        return text.strip().splitlines()[-1].strip() if text.strip() else ""

    def is_free_action(self, action: str, obs: dict) -> bool:
        """True for a legal action the env cannot list (a free-text search query).

        Search code keeps proposals that are listed in ``valid_actions`` or pass this test.
        """
        return False

    # ---- search hooks
    def propose_messages(self, obs: dict, history: Sequence[Step], k: int, avoid: Sequence[str] = ()) -> list[Message]:
        raise NotImplementedError(f"{type(self).__name__} has no propose prompt")

    def parse_proposals(self, text: str, obs: dict) -> list[str]:
        raise NotImplementedError

    def compare_messages(self, obs: dict, traj_a: Sequence[Step], traj_b: Sequence[Step]) -> list[Message]:
        raise NotImplementedError(f"{type(self).__name__} has no comparison prompt")

    def parse_comparison(self, text: str) -> float:
        """1.0 when the answer picks A, 0.0 for B, 0.5 when it picks neither or both.

        Reads the last ``A``/``B`` verdict: ``Answer: B``, ``preference: A``,
        ``**B**`` or a bare letter, so a reasoning preamble does not count as a vote.
        """
        import re

        verdicts = re.findall(r"(?:answer|preference|choice|better|winner)\W{0,3}\s*(?:is\s+)?\W?([AB])\b",
                              text, flags=re.IGNORECASE)
        if not verdicts:
            verdicts = re.findall(r"(?<![A-Za-z])([AB])(?![A-Za-z])", text.strip()[:3], flags=re.IGNORECASE)
        if not verdicts:
            return 0.5
        return 1.0 if verdicts[-1].upper() == "A" else 0.0

    def value_messages(self, obs: dict, history: Sequence[Step]) -> list[Message]:
        raise NotImplementedError(f"{type(self).__name__} has no value prompt")

    def parse_value(self, text: str) -> float:
        t = text.strip().lower().splitlines()[-1] if text.strip() else ""
        if "sure" in t:
            return 1.0
        if "likely" in t:
            return 0.5
        if "impossible" in t:
            return 0.0
        return 0.25

    def reflect_messages(self, obs: dict, trajectory: Sequence[Step], outcome: str) -> list[Message]:
        steps = "\n".join(f"> {s.action}\n{s.observation}" for s in trajectory)
        return [
            {"role": "system", "content": "You review failed attempts and write a short plan for the next attempt."},
            {"role": "user", "content": f"Task: {obs.get('instruction', '')}\nAttempt:\n{steps}\nOutcome: {outcome}\n"
             "In two sentences, say what went wrong and what to do differently next time."},
        ]

    # ---- testing
    def scripted_reply(self, messages: Sequence[Message]) -> str:
        raise NotImplementedError(f"{type(self).__name__} has no scripted (oracle) reply")


_ADAPTERS: dict[str, Callable[[], EnvAdapter]] = {}
_ADAPTER_MODULES: dict[str, str] = {
    "treegym/Game24-v0": "treegym.agents.adapters.game24",
    "treegym/WebShop-v0": "treegym.agents.adapters.webshop",
}


def register_adapter(env_id: str) -> Callable[[type], type]:
    def deco(cls: type) -> type:
        cls.env_id = env_id
        _ADAPTERS[env_id] = cls
        return cls

    return deco


def get_adapter(env_id: str) -> EnvAdapter:
    """The adapter for ``env_id`` (imports its module on first use)."""
    if env_id not in _ADAPTERS and env_id in _ADAPTER_MODULES:
        import importlib

        importlib.import_module(_ADAPTER_MODULES[env_id])
    if env_id not in _ADAPTERS:
        raise KeyError(f"no LLM adapter for {env_id!r}; adapters exist for: {', '.join(sorted(_ADAPTER_MODULES))}")
    return _ADAPTERS[env_id]()


def adapter_env_ids() -> list[str]:
    return sorted(_ADAPTER_MODULES)
