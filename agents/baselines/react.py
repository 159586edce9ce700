"""The simple policies: ``oracle`` (the env's expert), ``random``, and ``react``.

* ``oracle`` plays the next action of the bound env's ``expert()`` (the
  env-agent contract: Game of 24's solver, WebShop's gold path, ...). No LLM.
* ``random`` picks uniformly among ``observation["valid_actions"]``.
* ``react`` is Thought/Action prompting through the env's prompt spec
  (``agents/prompts``): one LLM call per step, the spec builds the prompt
  from the observation and the episode so far and parses the action. When the
  LLM can constrain its output (``info.grammar``) and the env lists valid
  actions, the answer is constrained to them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..llm.base import LLM
from ..llm.info import info_of
from ..prompts import Step, get_prompts
from ..policy import AgentGaveUp, BasePolicy
from ..registry import register_agent
from ..requests import ReactRequest
from ..search.options import build_config, fields_of, option


class OraclePolicy(BasePolicy):
    """Plays the next action of the bound env's ``expert()`` (``envs/core/contract.py``)."""

    name = "oracle"

    def act(self, observation: dict, info: dict) -> str:
        return self._next_action()

    def _next_action(self) -> str:
        """The bound env's expert's next action (the observation adds nothing: the expert reads the env)."""
        if self.env is None:
            raise RuntimeError(f"the {self.name} policy must be bound to its env: call policy.bind(env) after reset")
        advice = self.env.unwrapped.expert()
        if advice is None:
            raise AgentGaveUp(f"{type(self.env.unwrapped).__name__} has no expert(); the oracle cannot play it")
        if advice.next_action is None:
            raise AgentGaveUp("the expert has no action from this state (unsolvable or finished)")
        return advice.next_action

    def propose_actions(self, observation: dict, info: dict, k: int) -> list[str]:
        """The expert's next action (for Auto-GPT's additional opinions)."""
        return [self._next_action()]


class RandomPolicy(BasePolicy):
    """Uniform over ``valid_actions``; seeded, so an episode is reproducible."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict, info: dict) -> str:
        valid = observation.get("valid_actions") or ()
        if not valid:
            raise AgentGaveUp("no valid actions listed in the observation")
        return str(valid[int(self.rng.integers(len(valid)))])


class ReactPolicy(BasePolicy):
    """ReAct: one LLM call per step through the env's prompt spec (prompt and parser).

    ``reflections`` (Reflexion's lessons from earlier attempts) are put in the
    prompt. ``history`` is the list of :class:`Step` of the current episode.
    """

    name = "react"

    def __init__(
        self,
        env_id: str,
        llm: LLM,
        *,
        temperature: float = 0.0,
        reflections: Sequence[str] = (),
        constrain: bool | None = None,
        seed: int | None = None,
        prompts: Any = None,
    ):
        self.env_id = env_id
        self.llm = llm
        self.prompts = prompts or get_prompts(env_id)
        self.temperature = float(temperature)
        self.reflections = list(reflections)
        self.constrain = info_of(llm).grammar if constrain is None else bool(constrain)
        self.seed = seed
        self.reset()

    def reset(self) -> None:
        """A new episode: no history, transcript or action waiting for its observation."""
        self.history: list[Step] = []
        self.transcript: list[str] = []
        self._pending: tuple[str, str] | None = None

    def bind(self, env: Any) -> None:
        self.env = env
        self.prompts.bind(env)

    def act(self, observation: dict, info: dict) -> str:
        """One ReAct step; the LLM request is about the bound env's live state."""
        if self._pending is not None:
            action, thought = self._pending
            self.history.append(Step(action, str(observation.get("text", "")), float(info.get("reward") or 0.0), thought))
        messages = self.prompts.react_messages(observation, self.history, self.reflections)
        valid = tuple(observation.get("valid_actions") or ())
        choices = valid if (self.constrain and valid) else None
        text = ReactRequest(messages, self.env, temperature=self.temperature, choices=choices,
                            seed=self.seed).send(self.llm)[0]
        self.transcript.append(text)
        action = self.prompts.parse_action(text, observation)
        self._pending = (action, text)
        return action

    def stats(self) -> dict[str, Any]:
        return {"reflections": len(self.reflections)}


def _check_oracle(env_id: str, llm: Any = None, **options: Any) -> None:
    _no_options("oracle", options, allowed={"seed"})


@register_agent("oracle", needs_llm=False, check=_check_oracle,
                help="the env's expert (solver, gold path): env.expert()'s next action")
def _make_oracle(env_id: str, llm: Any = None, **options: Any) -> OraclePolicy:
    _check_oracle(env_id, llm, **options)
    return OraclePolicy()


def _check_random(env_id: str, llm: Any = None, seed: int | None = None, **options: Any) -> None:
    _no_options("random", options)


@register_agent("random", needs_llm=False, check=_check_random, help="uniform over the listed valid actions")
def _make_random(env_id: str, llm: Any = None, seed: int | None = None, **options: Any) -> RandomPolicy:
    _check_random(env_id, llm, **options)
    return RandomPolicy(seed=seed)


@dataclass(frozen=True)
class ReactOptions:
    """The ``react`` agent's options."""

    temperature: float = option(0.0, "ours (greedy: one deterministic call per step)", "sampling temperature",
                                minimum=0)
    constrain: bool | None = option(None, "ours (none: held to the valid actions when the LLM supports a grammar)",
                                    "hold answers to the listed valid actions")
    seed: int | None = option(None, "ours (the LLM's own sampling)", "sampling seed")


def _react_options(env_id: str, llm: Any = None, **options: Any) -> ReactOptions:
    _no_options("react", options, allowed=set(fields_of(ReactOptions)))
    return build_config(ReactOptions, options, "react")


@register_agent("react", needs_llm=True, check=_react_options,
                help="ReAct Thought/Action prompting, one LLM call per step")
def _make_react(env_id: str, llm: LLM, **options: Any) -> ReactPolicy:
    opts = _react_options(env_id, llm, **options)
    return ReactPolicy(env_id, llm, temperature=opts.temperature, constrain=opts.constrain, seed=opts.seed)


def _no_options(agent: str, options: dict, allowed: set[str] = frozenset()) -> None:
    extra = sorted(set(options) - set(allowed))
    if extra:
        raise ValueError(f"agent {agent!r}: unknown option(s) {', '.join(map(repr, extra))}; "
                         f"its options are: {', '.join(sorted(allowed)) or 'none'}")
