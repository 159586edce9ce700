"""WebShop's scripted baselines: the ``rule`` baseline and the ``gold`` path.

* ``rule`` - the rule baseline of the Auto-GPT study (Yang et al. 2023): search
  the instruction text, click the first result, buy it (no option selection).
  It reads only the observation, so it runs in-process or over HTTP alike.
  It is defined for ``treegym/WebShop-v0`` only; asking for it on another env
  is a clear error naming the agents that work everywhere.
* ``gold`` - the gold path (``WebShopEnv.expert_action``: search the target,
  open it, select the goal options, buy); needs the bound env, like ``oracle``.

Both expose ``propose_actions(observation, info, k)`` so Auto-GPT's
"additional opinions" can ask them for suggestions.
"""
from __future__ import annotations

from typing import Any

from .adapters.webshop import ENV_ID, NAV_LABELS, rule_choice
from .policy import AgentGaveUp, BasePolicy
from .registry import register_agent


def _require_webshop(name: str, env_id: str) -> None:
    if env_id != ENV_ID:
        raise ValueError(f"agent {name!r} is WebShop's scripted baseline and only plays {ENV_ID}, not {env_id}; "
                         "on other envs use oracle (the env's expert), random, or an LLM agent such as react")


class RulePolicy(BasePolicy):
    """Search the instruction, open the first result, buy (see the module docstring)."""

    name = "rule"

    def act(self, observation: dict, info: dict) -> str:
        valid = observation.get("valid_actions") or ()
        if not valid:
            raise AgentGaveUp("the page lists no actions (the episode is over)")
        return rule_choice(valid, str(observation.get("instruction", "")))

    def propose_actions(self, observation: dict, info: dict, k: int) -> list[str]:
        """The rule's choice first; on a result page, the next results in page order."""
        first = self.act(observation, info)
        products = [a for a in observation.get("valid_actions") or ()
                    if a.lower().startswith("click[") and a[6:-1].lower() not in NAV_LABELS and a != first]
        return ([first] + products)[: max(1, k)]


class GoldPathPolicy(BasePolicy):
    """Plays ``env.unwrapped.expert_action()`` of a bound WebShop env."""

    name = "gold"

    def act(self, observation: dict, info: dict) -> str:
        env: Any = self.env
        if env is None or not callable(getattr(getattr(env, "unwrapped", env), "expert_action", None)):
            raise RuntimeError("the gold policy must be bound to a WebShop env: call policy.bind(env) after reset")
        action = env.unwrapped.expert_action()
        if action is None:
            raise AgentGaveUp("the episode is over: the gold path has no further action")
        return action

    def propose_actions(self, observation: dict, info: dict, k: int) -> list[str]:
        return [self.act(observation, info)]


@register_agent("rule", needs_llm=False, help="WebShop rule baseline: search the instruction, click the first result, buy")
def make_rule(env_id: str, llm: Any = None, seed: int | None = None, **options: Any) -> RulePolicy:
    # deterministic: seed is accepted (the runner passes one) and unused
    _require_webshop("rule", env_id)
    if options:
        raise ValueError(f"agent 'rule' takes no options, got {', '.join(sorted(options))}")
    return RulePolicy()


@register_agent("gold", needs_llm=False, help="WebShop gold path: search the target, pick the goal options, buy")
def make_gold(env_id: str, llm: Any = None, seed: int | None = None, **options: Any) -> GoldPathPolicy:
    _require_webshop("gold", env_id)
    if options:
        raise ValueError(f"agent 'gold' takes no options, got {', '.join(sorted(options))}")
    return GoldPathPolicy()
