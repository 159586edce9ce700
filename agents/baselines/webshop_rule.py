"""WebShop's scripted baselines: the ``rule`` baseline, and ``gold`` (the ``oracle`` under WebShop's name).

* ``rule`` - the rule baseline of the Auto-GPT study (Yang et al. 2023): search
  the instruction text, click the first result, buy it (no option selection).
  It reads only the observation, so it runs in-process or over HTTP alike.
* ``gold`` - the gold path: the generic ``oracle`` policy (the env's
  ``expert()``: search the target, open it, select the goal options, buy).

Both are defined for ``treegym/WebShop-v0`` only; asking for them on another
env is a clear error naming the agents that work everywhere. Both expose
``propose_actions(observation, info, k)`` so Auto-GPT's "additional opinions"
can ask them for suggestions.
"""
from __future__ import annotations

from typing import Any, Sequence

from .react import OraclePolicy
from ..policy import AgentGaveUp, BasePolicy
from ..registry import register_agent

ENV_ID = "treegym/WebShop-v0"
NAV_LABELS = ("back to search", "next >", "< prev", "description", "features", "reviews", "buy now")


def rule_choice(valid_actions: Sequence[str], instruction: str = "") -> str:
    """The rule baseline's action: search the instruction, open the first result, buy."""
    acts = list(valid_actions)
    low = [a.lower() for a in acts]
    search = next((a for a in acts if a.lower().startswith("search[")), None)
    if search is not None:
        return f"search[{instruction.lower()}]" if instruction.strip() else search
    if "click[buy now]" in low:  # an item page
        return "click[Buy Now]"
    products = [a for a in acts if a.lower().startswith("click[") and a[6:-1].lower() not in NAV_LABELS]
    if products:  # a result page
        return products[0]
    for nav in ("click[< Prev]", "click[Back to Search]"):  # a sub-page or an empty result page
        if nav.lower() in low:
            return nav
    return acts[0] if acts else "click[Back to Search]"


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


def _check_scripted(name: str) -> Any:
    """The check of a scripted WebShop baseline ``name``: WebShop only, no options (``seed`` is accepted:
    the runner passes one; it is deterministic)."""
    def check(env_id: str, llm: Any = None, seed: int | None = None, **options: Any) -> None:
        _require_webshop(name, env_id)
        if options:
            raise ValueError(f"agent {name!r} takes no options, got {', '.join(sorted(options))}")

    return check


@register_agent("rule", needs_llm=False, check=_check_scripted("rule"),
                help="WebShop rule baseline: search the instruction, click the first result, buy")
def make_rule(env_id: str, llm: Any = None, seed: int | None = None, **options: Any) -> RulePolicy:
    _check_scripted("rule")(env_id, llm, **options)
    return RulePolicy()


@register_agent("gold", needs_llm=False, check=_check_scripted("gold"),
                help="WebShop gold path (the oracle): search the target, pick the goal options, buy")
def make_gold(env_id: str, llm: Any = None, seed: int | None = None, **options: Any) -> OraclePolicy:
    _check_scripted("gold")(env_id, llm, **options)
    policy = OraclePolicy()
    policy.name = "gold"
    return policy
