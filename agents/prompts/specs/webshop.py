"""The prompt spec of ``treegym/WebShop-v0``: ReAct's WebShop setup (Yao et al. 2023).

A one-shot Thought/Action example, then the instruction, the actions so far with
shortened pages, the current page and its valid actions. Actions are upstream
WebShop's: ``search[keywords]`` (the env's action template) and ``click[label]``.
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Sequence

from .. import register_spec
from ..spec import PromptSpec, Step, one_line

#: the done page's verdict, "[SEP] Your score (min 0.0, max 1.0) [SEP] 1.0": the env's reward
_SCORE = re.compile(r"\s*\[SEP\]\s*Your score \(min 0\.0, max 1\.0\)\s*\[SEP\]\s*[-+0-9.eE]+")

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


@register_spec("treegym/WebShop-v0")
class WebShopPrompts(PromptSpec):
    per_task = frozenset({"task_fields", "canonical_action"})  # its templates depend on the page (a search bar)
    task = ("You are a shopping assistant on the WebShop website. Find and buy the product the instruction "
            "describes.")
    action_syntax = ("Actions: search[keywords] (only on the page with the search bar) or click[label], where "
                     "label is a button,\na product id or an option value exactly as the page shows it. Select "
                     "every option the instruction asks for,\nthen click[Buy Now]; buying ends the task and the "
                     "purchase is scored against the instruction.")
    react_example = EXAMPLE
    value_rubric = ("Answer with one word on the last line:\nsure (on track to buy exactly the right product with "
                    "the right options and price), likely, or impossible.")
    compare_rubric = ("The better attempt is closer to buying the product that matches every attribute, option "
                      "and the price limit.")
    reflect_focus = "what went wrong (product, options or price) and what to do differently"
    malformed_examples = ("buy the best one", "click Buy")
    observation_label = "Current page"

    def task_lines(self, obs: dict) -> list[str]:
        # The instruction only: WebShop agents never see the goal's attribute list (the env's other task fields).
        return [f"Instruction: {one_line(obs.get('instruction', ''), 2000)}"]

    def without_verdict(self, obs: dict, history: Sequence[Step]) -> tuple[dict, Sequence[Step]]:
        """The done page without its score line: the score is the env's reward, which a value or
        comparison prompt may show only with ``peek_success`` (upstream's page shows it to a human)."""
        if isinstance(obs, dict) and "Your score" in str(obs.get("text", "")):
            obs = {**obs, "text": _SCORE.sub("", str(obs["text"]))}
        if self._scored(history):
            history = [replace(s, observation=_SCORE.sub("", s.observation)) if "Your score" in s.observation else s
                       for s in history]
        return obs, history

    def _scored(self, history: Sequence[Step]) -> bool:
        """Whether a step of ``history`` shows the score, remembered per path (by its last step: a path one
        step longer than a remembered one reads that step only)."""
        if not history:
            return False
        paths = self.__dict__.setdefault("_scored_paths", {})
        steps = tuple(history)
        got = paths.get(id(steps[-1]))  # the entry holds its steps, so this id is not reused
        if got is not None and got[0] == steps:
            return got[1]
        parent = paths.get(id(steps[-2])) if len(steps) > 1 else None
        if parent is not None and parent[0] == steps[:-1]:
            scored = parent[1] or "Your score" in steps[-1].observation
        else:
            scored = any("Your score" in s.observation for s in steps)
        if len(paths) >= 4096:
            paths.clear()
        paths[id(steps[-1])] = (steps, scored)
        return scored
