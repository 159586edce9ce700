"""The prompt spec of ``treegym/Game24-v0``: Tree of Thoughts' prompts (princeton-nlp/tree-of-thought-llm).

Propose and value are ToT's own prompts (the numbers left, a few-shot list of
next steps; sure/likely/impossible with ToT's examples); ReAct is a one-shot
Thought/Action game. Actions are the env's lines (``a op b = c (left: ...)``,
``answer: <expression> = 24``); the env's parser matches answers to them.
"""
from __future__ import annotations

from typing import Sequence

from .. import register_spec
from ..spec import Message, PromptSpec, Step

PROPOSE_EXAMPLE = """Input: 2 8 8 14
Possible next steps:
2 + 8 = 10 (left: 8 10 14)
8 / 2 = 4 (left: 4 8 14)
14 + 2 = 16 (left: 8 8 16)
2 * 8 = 16 (left: 8 14 16)
8 - 2 = 6 (left: 6 8 14)
14 - 8 = 6 (left: 2 6 8)
14 / 2 = 7 (left: 7 8 8)
14 - 2 = 12 (left: 8 8 12)"""

VALUE_EXAMPLES = """Evaluate if given numbers can reach 24 (sure/likely/impossible)
Input: 10 14
10 + 14 = 24
sure
Input: 11 12
11 + 12 = 23
12 - 11 = 1
11 * 12 = 132
11 / 12 = 0.91
impossible
Input: 4 4 10
4 + 4 + 10 = 8 + 10 = 18
4 * 10 - 4 = 40 - 4 = 36
(10 - 4) * 4 = 6 * 4 = 24
sure
Input: 5 7 8
5 + 7 + 8 = 12 + 8 = 20
(8 - 5) * 7 = 3 * 7 = 21
I cannot obtain 24 now, but numbers are within a reasonable range
likely
Input: 1 3 3
1 * 3 * 3 = 9
(1 + 3) * 3 = 12
1 3 3 are all too small
impossible"""

# the system messages, written once (ToT's prompts as above)
PROPOSE_SYSTEM = ("You help solve the Game of 24 by proposing possible next steps, one per line, in the form\n"
                  "a op b = c (left: <numbers left>). The game is won when the last number left is 24.\n\n"
                  f"Example\n{PROPOSE_EXAMPLE}\n")
ANSWER_SYSTEM = ("Use numbers and basic arithmetic operations (+ - * /) to obtain 24. Each step combines two "
                 "numbers; finish with one line 'Answer: <one expression using each input number exactly once> "
                 "= 24'.\nExample\nInput: 4 4 6 8\nSteps:\n4 + 8 = 12 (left: 4 6 12)\n6 - 4 = 2 (left: 2 12)\n"
                 "2 * 12 = 24 (left: 24)\nAnswer: (6 - 4) * (4 + 8) = 24\n")
VALUE_SYSTEM = VALUE_EXAMPLES + "\nEnd with one word: sure, likely or impossible.\n"


@register_spec("treegym/Game24-v0")
class Game24Prompts(PromptSpec):
    per_task = frozenset({"task_fields", "action_templates", "canonical_action"})  # the env's answers depend on its task only
    task = ("You are playing the Game of 24: use each of the four puzzle numbers exactly once with + - * / to "
            "obtain 24.\nEach turn, combine two of the numbers left into one; the game is won when the last "
            "number left is 24.")
    action_syntax = ("The Action is exactly one of:\n  a op b = c (left: <the numbers left after this step>)\n"
                     "  answer: <one expression using the four puzzle numbers> = 24   (ends the game at once)")
    react_example = """Puzzle: 4 4 6 8
Numbers left: 4 4 6 8
Thought: 4 + 8 = 12 leaves 4 6 12, and 12 * (6 - 4) = 24.
Action: 8 + 4 = 12 (left: 4 6 12)
Numbers left: 4 6 12
Thought: 6 - 4 = 2 leaves 2 12, and 2 * 12 = 24.
Action: 6 - 4 = 2 (left: 2 12)
Numbers left: 2 12
Thought: 12 * 2 = 24, the last number.
Action: 12 * 2 = 24 (left: 24)"""
    propose_example = PROPOSE_EXAMPLE
    value_rubric = VALUE_EXAMPLES
    compare_rubric = ("An attempt that reached 24 beats one that did not; otherwise prefer the attempt whose "
                      "numbers left can still make 24.")
    malformed_examples = ("I need to think more.", "answer: 24")

    def task_lines(self, obs: dict) -> list[str]:
        numbers = self._task_fields().get("numbers") or []
        return [f"Puzzle: {' '.join(numbers)}"] if numbers else super().task_lines(obs)

    def state_lines(self, obs: dict) -> list[str]:
        return [f"Numbers left: {' '.join(obs.get('left') or ())}"]

    def propose_messages(self, obs: dict, history: Sequence[Step], k: int, avoid: Sequence[str] = (),
                         reflections: Sequence[str] = ()) -> list[Message]:
        """ToT's propose prompt: the few-shot list, then the numbers left. With one number left (only under
        ``protocol="tot"`` is that not the end) it is ToT's step-to-answer prompt: the steps, to be followed by the
        ``Answer:`` line (the model writes it, prefix included, as ToT's CoT prompt has it do)."""
        if len(obs.get("left") or ()) == 1:
            return self._answer_messages(history, k)
        system = PROPOSE_SYSTEM
        user = self.reflection_lines(reflections) + self.avoid_lines(avoid)
        user += [f"Propose {k} possible next steps.", f"Input: {' '.join(obs.get('left') or ())}", "Possible next steps:"]
        return self._messages(system, user)

    def _answer_messages(self, history: Sequence[Step], k: int) -> list[Message]:
        numbers = " ".join(self._task_fields().get("numbers") or ())
        system = ANSWER_SYSTEM
        steps = [s.action for s in history if not s.action.lower().startswith("answer")]
        ask = (f"Write {k} possible 'Answer: <expression> = 24' lines, one per line." if k > 1
               else "Write the 'Answer: <expression> = 24' line.")
        user = [ask, f"Input: {numbers}", "Steps:", *steps]
        return self._messages(system, user)

    def value_messages(self, obs: dict, history: Sequence[Step]) -> list[Message]:
        """ToT's value prompt: can the numbers left still reach 24?"""
        system = VALUE_SYSTEM
        return self._messages(system, [f"Input: {' '.join(obs.get('left') or ())}"])
