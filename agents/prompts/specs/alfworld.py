"""The prompt spec of ``treegym/ALFWorld-v0``: in the style of the ReAct / Reflexion ALFWorld setups.

As there, the few-shot example is chosen by the task type (pick, look-at,
clean, heat, cool, pick-two): one short solved game of the same type, in
Thought/Action form (treegym's own examples, written for this spec). Actions
are the game's commands (``go to X``, ``take X from Y``, ``put X in/on Y`` or,
with ``style="0.4"``, ``move X to Y``); anything else answers
"Nothing happens.".
"""
from __future__ import annotations

from .. import register_spec
from ..spec import PromptSpec

_INTRO = ("Observation: You are in the middle of a room. Looking quickly around you, you see a cabinet 2, a cabinet 1, "
          "a countertop 1, a drawer 1, a fridge 1, a microwave 1, a shelf 1, a sinkbasin 1, and a desk 1.")

EXAMPLES = {
    "pick_and_place_simple": f"""Task: put a mug in shelf.
{_INTRO}
Thought: A mug is likely on the countertop or in a cabinet. I check the countertop first.
Action: go to countertop 1
Observation: You arrive at loc 3. On the countertop 1, you see a mug 1, and a spoon 2.
Thought: I found mug 1. I take it and bring it to the shelf.
Action: take mug 1 from countertop 1
Observation: You pick up the mug 1 from the countertop 1.
Action: go to shelf 1
Observation: You arrive at loc 7. On the shelf 1, you see nothing.
Action: put mug 1 in/on shelf 1
Observation: You put the mug 1 in/on the shelf 1.""",
    "look_at_obj_in_light": f"""Task: look at book under the desklamp.
{_INTRO}
Thought: I need the book in hand, then turn on the desklamp. Books are often on a desk or a shelf.
Action: go to shelf 1
Observation: You arrive at loc 7. On the shelf 1, you see a book 1.
Action: take book 1 from shelf 1
Observation: You pick up the book 1 from the shelf 1.
Thought: Now I find the desklamp, probably on the desk.
Action: go to desk 1
Observation: You arrive at loc 9. On the desk 1, you see a desklamp 1, and a pen 1.
Action: use desklamp 1
Observation: You turn on the desklamp 1.""",
    "pick_clean_then_place_in_recep": f"""Task: put a clean plate in cabinet.
{_INTRO}
Thought: I find a plate, clean it with the sinkbasin, then put it in a cabinet.
Action: go to countertop 1
Observation: You arrive at loc 3. On the countertop 1, you see a plate 2.
Action: take plate 2 from countertop 1
Observation: You pick up the plate 2 from the countertop 1.
Action: go to sinkbasin 1
Observation: You arrive at loc 5. On the sinkbasin 1, you see nothing.
Action: clean plate 2 with sinkbasin 1
Observation: You clean the plate 2 using the sinkbasin 1.
Action: go to cabinet 1
Observation: You arrive at loc 1. The cabinet 1 is closed.
Action: open cabinet 1
Observation: You open the cabinet 1. The cabinet 1 is open. In it, you see nothing.
Action: put plate 2 in/on cabinet 1
Observation: You put the plate 2 in/on the cabinet 1.""",
    "pick_heat_then_place_in_recep": f"""Task: heat some egg and put it in countertop.
{_INTRO}
Thought: Eggs are usually in the fridge. I take one, heat it with the microwave, then put it on the countertop.
Action: go to fridge 1
Observation: You arrive at loc 4. The fridge 1 is closed.
Action: open fridge 1
Observation: You open the fridge 1. The fridge 1 is open. In it, you see a egg 1, and a lettuce 1.
Action: take egg 1 from fridge 1
Observation: You pick up the egg 1 from the fridge 1.
Action: go to microwave 1
Observation: You arrive at loc 6. The microwave 1 is closed.
Action: heat egg 1 with microwave 1
Observation: You heat the egg 1 using the microwave 1.
Action: go to countertop 1
Observation: You arrive at loc 3. On the countertop 1, you see a spoon 2.
Action: put egg 1 in/on countertop 1
Observation: You put the egg 1 in/on the countertop 1.""",
    "pick_cool_then_place_in_recep": f"""Task: cool some apple and put it in shelf.
{_INTRO}
Thought: I find an apple, cool it with the fridge, then put it on the shelf.
Action: go to countertop 1
Observation: You arrive at loc 3. On the countertop 1, you see a apple 1.
Action: take apple 1 from countertop 1
Observation: You pick up the apple 1 from the countertop 1.
Action: go to fridge 1
Observation: You arrive at loc 4. The fridge 1 is closed.
Action: cool apple 1 with fridge 1
Observation: You cool the apple 1 using the fridge 1.
Action: go to shelf 1
Observation: You arrive at loc 7. On the shelf 1, you see nothing.
Action: put apple 1 in/on shelf 1
Observation: You put the apple 1 in/on the shelf 1.""",
    "pick_two_obj_and_place": f"""Task: put two cellphone in drawer.
{_INTRO}
Thought: I need two cellphones in the drawer, one at a time.
Action: go to desk 1
Observation: You arrive at loc 9. On the desk 1, you see a cellphone 1, and a cellphone 2.
Action: take cellphone 1 from desk 1
Observation: You pick up the cellphone 1 from the desk 1.
Action: go to drawer 1
Observation: You arrive at loc 2. The drawer 1 is closed.
Action: open drawer 1
Observation: You open the drawer 1. The drawer 1 is open. In it, you see nothing.
Action: put cellphone 1 in/on drawer 1
Observation: You put the cellphone 1 in/on the drawer 1.
Thought: One is in. I fetch the second cellphone from the desk.
Action: go to desk 1
Observation: You arrive at loc 9. On the desk 1, you see a cellphone 2.
Action: take cellphone 2 from desk 1
Observation: You pick up the cellphone 2 from the desk 1.
Action: go to drawer 1
Observation: You arrive at loc 2. The drawer 1 is open. In it, you see a cellphone 1.
Action: put cellphone 2 in/on drawer 1
Observation: You put the cellphone 2 in/on the drawer 1.""",
}


@register_spec("treegym/ALFWorld-v0")
class ALFWorldPrompts(PromptSpec):
    per_task = frozenset({"task_fields", "action_templates", "canonical_action"})  # the env's answers depend on its task only
    task = ("You are in a household text game (ALFWorld). Reach the goal of the task by moving between "
            "receptacles and using objects.")
    action_syntax = ("Act with exactly one admissible command, written as the game lists it: go to <receptacle>, "
                     "open/close <receptacle>,\ntake <object> from <receptacle>, put <object> in/on <receptacle>, "
                     "clean/heat/cool <object> with <receptacle>,\nuse <object>, examine <something>, look, "
                     "inventory. You hold one object at a time; anything else answers \"Nothing happens.\"")
    value_rubric = ("Answer with one word on the last line:\nsure (the goal is reached or the next steps clearly "
                    "reach it), likely, or impossible.")
    compare_rubric = "The better attempt is closer to the goal: the right object found, treated and put in place."
    reflect_focus = "which receptacles were searched in vain, which step failed, and the plan to follow next time"
    malformed_examples = ("find the apple", "go to the kitchen")
    observation_label = "Current observation"

    @property
    def react_example(self) -> str:  # type: ignore[override]
        return self.per_task_text("react_example", self._react_example)

    def _react_example(self) -> str:
        fields = self._task_fields()
        example = EXAMPLES.get(fields.get("task_type", ""), EXAMPLES["pick_and_place_simple"])
        if fields.get("style") == "0.4":
            example = example.replace(" in/on ", " to ").replace("put ", "move ").replace("You put", "You move")
        return example

    def action_help(self) -> str:
        return self.per_task_text("action_help", self._action_help)

    def _action_help(self) -> str:
        if self._task_fields().get("style") == "0.4":
            return self.action_syntax.replace("put <object> in/on <receptacle>", "move <object> to <receptacle>")
        return self.action_syntax
