"""The LLM-facing side of ``treegym/WebShop-v0``: ReAct-style prompts, tolerant parsers, the oracle.

Actions are upstream WebShop's: ``search[keywords]`` on the page with the search
bar, ``click[label]`` for a button, a product id or an option value.

Prompts follow ReAct's WebShop setup (Yao et al. 2023): a one-shot Thought /
Action example, then the instruction, the actions so far with (shortened)
observations, the current page and its valid actions. Every system message
starts with a request tag (``oracle.py``) and every user message carries plain
``Instruction: ...`` and ``Action k: ...`` lines, which is what lets
:meth:`WebShopAdapter.oracle_answer` rebuild the episode from the messages: it
finds the goal by its instruction in the shipped catalog, replays the actions
on the engine and asks the gold path (``WebShopEngine.expert_action``). For an
instruction it does not know (another catalog) it falls back to the rule
baseline's choice among the listed valid actions.
"""
from __future__ import annotations

import re
import threading
from typing import Any, Sequence

from ..llm.base import Message
from .base import EnvAdapter, Step, register_adapter
from .oracle import OracleAnswer, OracleRendering, request_kind, request_tag

ENV_ID = "treegym/WebShop-v0"
NAV_LABELS = ("back to search", "next >", "< prev", "description", "features", "reviews", "buy now")
_ACTION_RE = re.compile(r"\b(search|click)\s*\[([^\]\n]*)\]", re.IGNORECASE)
_OBS_CHARS = 600  # how much of each past observation goes into a prompt

EXAMPLE = """Instruction: i need a long lasting pink lip gloss, and price lower than 20.00 dollars
Observation: WebShop [SEP] Instruction: [SEP] i need a long lasting pink lip gloss, and price lower than 20.00 dollars [SEP] Search
Thought: I start by searching for the product with its key words.
Action: search[long lasting pink lip gloss]
Observation: Instruction: [SEP] ... [SEP] Back to Search [SEP] Page 1 (Total results: 50) [SEP] Next > [SEP] B0EXAMPLE1 [SEP] Lumora Shimmer Lip Gloss, Long Lasting, Pack of 2 [SEP] $12.99 [SEP] B0EXAMPLE2 [SEP] Verra Matte Lipstick [SEP] $24.00
Thought: B0EXAMPLE1 is a long lasting lip gloss under 20 dollars. I open it.
Action: click[B0EXAMPLE1]
Observation: Instruction: [SEP] ... [SEP] Back to Search [SEP] < Prev [SEP] color [SEP] pink [SEP] red [SEP] nude [SEP] Lumora Shimmer Lip Gloss, Long Lasting, Pack of 2 [SEP] Price: $12.99 [SEP] Rating: 4.5 [SEP] Description [SEP] Features [SEP] Reviews [SEP] Buy Now
Thought: The instruction asks for pink, so I select the pink option before buying.
Action: click[pink]
Observation: (the same page, pink selected)
Thought: The product, the option and the price match. I buy it.
Action: click[Buy Now]"""

REACT_SYSTEM = """{tag}
You are a shopping assistant on the WebShop website. Find and buy the product the instruction describes.
Each turn you see the current page; answer with two lines:
Thought: <brief reasoning>
Action: <exactly one action>
Actions: search[keywords] (only on the page with the search bar) or click[label], where label is a button,
a product id or an option value exactly as the page shows it. Select every option the instruction asks for,
then click[Buy Now]; buying ends the task and the purchase is scored against the instruction.

Example:
{example}
"""

PROPOSE_SYSTEM = """{tag}
You are a shopping assistant on the WebShop website. Propose promising next actions, one per line, each
search[keywords] (only where there is a search bar) or click[label] with a label shown on the page.
"""

VALUE_SYSTEM = """{tag}
You judge a WebShop shopping attempt in progress. Answer with one word on the last line:
sure (on track to buy exactly the right product with the right options and price), likely, or impossible.
"""

COMPARE_SYSTEM = """{tag}
You compare two WebShop shopping attempts for the same instruction. The better attempt is closer to buying
the product that matches every attribute, option and the price limit. Answer "Answer: A" or "Answer: B".
"""

IMAGINE_SYSTEM = """{tag}
You plan the rest of a WebShop shopping attempt. List the remaining actions to finish the purchase, one per
line (search[...] or click[...]), ending with click[Buy Now]; answer "impossible" if it cannot be finished.
"""

REFLECT_SYSTEM = """{tag}
You review a failed WebShop shopping attempt and write a short plan for the next attempt.
"""


def _one_line(text: str, n: int = _OBS_CHARS) -> str:
    t = " ".join(str(text or "").split())
    return t if len(t) <= n else t[: n - 3] + "..."


def _history_lines(history: Sequence[Step]) -> list[str]:
    lines = []
    for i, s in enumerate(history, 1):
        lines.append(f"Action {i}: {s.action}")
        if s.observation:
            lines.append(f"Observation {i}: {_one_line(s.observation)}")
    return lines


def _actions_in(text: str) -> list[str]:
    return [m.group(1).strip() for m in re.finditer(r"^Action \d+: (.*)$", text, re.MULTILINE)]


def _instruction_in(text: str) -> str:
    m = re.search(r"^Instruction: (.*)$", text, re.MULTILINE)
    return m.group(1).strip() if m else ""


def _valid_in(text: str) -> list[str]:
    m = re.search(r"^Valid actions: (.*)$", text, re.MULTILINE)
    return [a.strip() for a in m.group(1).split(" | ") if a.strip()] if m else []


def rule_choice(valid_actions: Sequence[str], instruction: str = "") -> str:
    """The rule baseline's action (Auto-GPT study): search the instruction, open the first result, buy."""
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


@register_adapter(ENV_ID)
class WebShopAdapter(OracleRendering, EnvAdapter):
    """Prompts, parsers and oracle for ``treegym/WebShop-v0`` (see the module docstring)."""

    _lock = threading.Lock()
    _tables: dict[int, dict[str, int]] = {}  # id(catalog) -> instruction -> goal index

    # ------------------------------------------------------------- prompt pieces
    @staticmethod
    def _state_lines(obs: dict, history: Sequence[Step], with_page: bool = True) -> list[str]:
        lines = [f"Instruction: {_one_line(obs.get('instruction', ''), 2000)}"]
        lines += _history_lines(history)
        if with_page:
            lines.append(f"Current page: {_one_line(obs.get('text', ''), 4000)}")
            valid = obs.get("valid_actions") or ()
            if valid:
                lines.append("Valid actions: " + " | ".join(valid))
        return lines

    # ------------------------------------------------------------- ReAct
    def react_messages(self, obs: dict, history: Sequence[Step], reflections: Sequence[str] = ()) -> list[Message]:
        user = self._state_lines(obs, history)
        if reflections:
            user = ["Lessons from earlier attempts:"] + [f"- {r}" for r in reflections] + [""] + user
        user.append("Reply with Thought: ... and Action: ...")
        return [{"role": "system", "content": REACT_SYSTEM.format(tag=request_tag("react"), example=EXAMPLE)},
                {"role": "user", "content": "\n".join(user)}]

    def parse_action(self, text: str, obs: dict) -> str:
        """The action in an answer, in the env's syntax; never raises.

        Prefers the last ``Action:`` line, else the last ``search[...]``/``click[...]``
        anywhere; a bare label that is clickable on the page becomes ``click[label]``.
        """
        lines = [ln.strip() for ln in str(text or "").strip().splitlines() if ln.strip()]
        if not lines:
            return ""
        chosen = None
        for ln in reversed(lines):
            if ln.lower().lstrip("*# ").startswith("action"):
                chosen = ln.split(":", 1)[1].strip() if ":" in ln else ln
                break
        if chosen is None:
            found = list(_ACTION_RE.finditer(str(text)))
            chosen = found[-1].group(0) if found else lines[-1]
        return self._normalise(chosen, obs)

    def _normalise(self, chosen: str, obs: dict) -> str:
        chosen = chosen.strip().strip("`").strip()
        m = _ACTION_RE.search(chosen)
        if m:
            return f"{m.group(1).lower()}[{m.group(2).strip()}]"
        for action in obs.get("valid_actions") or ():
            if action.lower().startswith("click[") and action[6:-1].lower() == chosen.lower():
                return action
        return chosen

    # ------------------------------------------------------------- search hooks
    def is_free_action(self, action: str, obs: dict) -> bool:
        """Any ``search[query]`` is legal on a page with a search bar, whatever the listed example query."""
        has_search_bar = any(str(v).startswith("search[") for v in obs.get("valid_actions") or ())
        return has_search_bar and action.startswith("search[") and action.endswith("]") and len(action) > 8

    def propose_messages(self, obs: dict, history: Sequence[Step], k: int, avoid: Sequence[str] = ()) -> list[Message]:
        user = self._state_lines(obs, history)
        if avoid:
            user.append("These actions were already tried from here; propose different ones:")
            user += [f"- {a}" for a in avoid]
        user.append(f"Propose {k} possible next actions, one per line.")
        return [{"role": "system", "content": PROPOSE_SYSTEM.format(tag=request_tag("propose"))},
                {"role": "user", "content": "\n".join(user)}]

    def parse_proposals(self, text: str, obs: dict) -> list[str]:
        out: list[str] = []
        for ln in str(text or "").splitlines():
            m = _ACTION_RE.search(ln)
            if m:
                action = f"{m.group(1).lower()}[{m.group(2).strip()}]"
                if action not in out:
                    out.append(action)
        return out

    def value_messages(self, obs: dict, history: Sequence[Step]) -> list[Message]:
        user = self._state_lines(obs, history) + ["Is this attempt on track? Answer sure, likely or impossible."]
        return [{"role": "system", "content": VALUE_SYSTEM.format(tag=request_tag("value"))},
                {"role": "user", "content": "\n".join(user)}]

    def compare_messages(self, obs: dict, traj_a: Sequence[Step], traj_b: Sequence[Step]) -> list[Message]:
        user = [f"Instruction: {_one_line(obs.get('instruction', ''), 2000)}", "Trajectory A:"]
        user += _history_lines(traj_a) + ["Trajectory B:"] + _history_lines(traj_b)
        user.append("Which attempt is better? Answer: A or Answer: B")
        return [{"role": "system", "content": COMPARE_SYSTEM.format(tag=request_tag("compare"))},
                {"role": "user", "content": "\n".join(user)}]

    def imagine_messages(self, obs: dict, history: Sequence[Step]) -> list[Message]:
        user = self._state_lines(obs, history) + ["Remaining actions:"]
        return [{"role": "system", "content": IMAGINE_SYSTEM.format(tag=request_tag("imagine"))},
                {"role": "user", "content": "\n".join(user)}]

    def parse_imagined(self, text: str) -> list[str]:
        if str(text or "").strip().lower().startswith("impossible"):
            return []
        return self.parse_proposals(text, {})

    @staticmethod
    def action_key(action: str) -> str:
        m = _ACTION_RE.search(action or "")
        return f"{m.group(1).lower()}[{' '.join(m.group(2).lower().split())}]" if m else (action or "").strip().lower()

    def reflect_messages(self, obs: dict, trajectory: Sequence[Step], outcome: str) -> list[Message]:
        user = [f"Instruction: {_one_line(obs.get('instruction', ''), 2000)}"] + _history_lines(trajectory)
        user += [f"Outcome: {outcome}",
                 "In two sentences, say what went wrong (product, options or price) and what to do differently."]
        return [{"role": "system", "content": REFLECT_SYSTEM.format(tag=request_tag("reflect"))},
                {"role": "user", "content": "\n".join(user)}]

    def demonstrations(self, n: int = 3, seed: int = 0) -> list[list[str]]:
        """Gold-path action lists of ``n`` training goals of the shipped catalog."""
        engine = self._engine()
        if engine is None:
            return []
        pool = list(engine.catalog.split("train")) or list(engine.catalog.split("all"))
        demos = []
        for gi in pool[seed: seed + n]:
            demos.append(self._gold_rest(engine, engine.new_session(gi)))
        return demos

    # ------------------------------------------------------------- oracle
    @staticmethod
    def _catalogs() -> list[Any]:
        """Catalogs to look instructions up in: the shipped one, then every catalog this process loaded."""
        from treegym.envs.webshop import catalog as cat

        found = []
        try:
            found.append(cat.load_default_catalog())
        except cat.CatalogError:
            pass
        found += [c for c in list(cat._CACHE.values()) if all(c is not f for f in found)]
        return found

    def _engine(self, instruction: str = "") -> Any:
        """An engine over the catalog holding ``instruction`` (else the first catalog), or None."""
        from treegym.envs.webshop.engine import WebShopEngine

        catalogs = self._catalogs()
        for c in catalogs:
            if self._goal_index(c, instruction) is not None:
                return WebShopEngine(c)
        return WebShopEngine(catalogs[0]) if catalogs else None

    def _goal_index(self, catalog: Any, instruction: str) -> int | None:
        cls = type(self)
        with cls._lock:
            table = cls._tables.get(id(catalog))
            if table is None:
                table = {}
                for g in catalog.goals:
                    table.setdefault(" ".join(g.instruction_text.split()), g.index)
                cls._tables[id(catalog)] = table
        return table.get(" ".join(instruction.split()))

    def _replay(self, engine: Any, text: str) -> Any:
        """The engine session the messages describe, or None for an unknown instruction."""
        gi = None if engine is None else self._goal_index(engine.catalog, _instruction_in(text))
        if gi is None:
            return None
        s = engine.new_session(gi)
        for action in _actions_in(text):
            s, _ = engine.step(s, action)
        return s

    @staticmethod
    def _gold_rest(engine: Any, s: Any, limit: int = 20) -> list[str]:
        plan = []
        while not s.done and len(plan) < limit:
            a = engine.expert_action(s)
            plan.append(a)
            s, _ = engine.step(s, a)
        return plan

    @staticmethod
    def _score(s: Any) -> float:
        """How good an attempt is: a finished one by its reward, an unfinished one can still score 1."""
        if s is None:
            return 0.0
        return 2.0 * s.reward if s.done else 1.0

    def oracle_answer(self, messages: Sequence[Message]) -> OracleAnswer:
        """The truth about a request built by this adapter (kind from the system tag)."""
        kind = request_kind(messages) or "react"
        user = next((str(m.get("content", "")) for m in reversed(messages) if m.get("role") == "user"), "")
        engine = self._engine(_instruction_in(user))
        if kind == "compare":
            head, _, rest = user.partition("Trajectory A:")
            a_text, _, b_text = rest.partition("Trajectory B:")
            sa, sb = self._score(self._replay(engine, head + a_text)), self._score(self._replay(engine, head + b_text))
            return OracleAnswer("compare", preference=1.0 if sa > sb else 0.0 if sa < sb else 0.5)
        s = self._replay(engine, user)
        valid = _valid_in(user)
        if s is None:  # an instruction of another catalog: the rule baseline's guess
            guess = rule_choice(valid, _instruction_in(user)) if valid else "click[Buy Now]"
            return OracleAnswer(kind, correct=(guess,), wrong=tuple(a for a in valid if a != guess),
                                malformed=("buy it",), value=0.5, text="Read the instruction again and match every option.")
        if kind == "value":
            return OracleAnswer("value", value=(s.reward if s.done else 1.0))
        if kind == "reflect":
            goal = engine.goal(s)
            return OracleAnswer("reflect", text=(
                f"The attempt did not buy a product that matches every requirement. Next time search for "
                f"'{engine.expert_query(engine.new_session(goal.index))}', open {goal.asin}, select "
                f"{', '.join(v for _, v in engine._goal_option_values(goal)) or 'no options'} and buy."))
        rest = self._gold_rest(engine, s)
        if kind == "imagine":
            return OracleAnswer("imagine", correct=tuple(rest),
                                wrong=("click[Buy Now]",) if rest[:1] != ["click[Buy Now]"] else ("click[< Prev]",),
                                value=1.0 if rest else 0.0)
        correct = tuple(rest[:1])
        wrong = tuple(a for a in (valid or engine.valid_actions(s)) if self.action_key(a) not in
                      {self.action_key(c) for c in correct})
        k = 1
        if kind == "propose":
            m = re.search(r"Propose (\d+) possible", user)
            k = int(m.group(1)) if m else 1
            avoid = {self.action_key(a) for a in re.findall(r"^- (.*)$", user, re.MULTILINE)}
            wrong = tuple(a for a in wrong if self.action_key(a) not in avoid) or wrong
        return OracleAnswer(kind, correct=correct, wrong=wrong, malformed=("buy the best one", "click Buy"), k=k)

    def scripted_reply(self, messages: Sequence[Message]) -> str:
        """What a perfect model answers: the gold path's action (or the oracle's judgement)."""
        return self.render_oracle(self.oracle_answer(messages))

    def render_react(self, action: str, thought: str = "") -> str:
        return f"Thought: {thought or 'This follows the instruction.'}\nAction: {action}"

    def parse_comparison(self, text: str) -> float:
        """1.0 for A, 0.0 for B, 0.5 for a tie or an unreadable answer (the last "Answer:" wins)."""
        found = re.findall(r"answer\s*[:=]?\s*\**\s*(a|b|tie)\b", str(text or ""), re.IGNORECASE)
        choice = found[-1].lower() if found else str(text or "").strip().lower().rstrip(".")
        return {"a": 1.0, "b": 0.0}.get(choice, 0.5)

    def render_comparison(self, preference: float) -> str:
        return "Answer: A" if preference >= 0.75 else "Answer: B" if preference <= 0.25 else "Answer: tie"
