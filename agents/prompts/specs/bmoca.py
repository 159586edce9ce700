"""The prompt spec of ``treegym/BMoCA-v0``, in the style of B-MoCA's LLM agent (Lee et al. 2024).

As upstream: the agent is told it performs daily tasks on a smartphone, gets the
goal, the screen as the numbered element list parsed from the view hierarchy,
and up to 4 previous actions, and answers in three parts, ``Description`` (what
it sees), ``Thought`` and ``Action``, choosing one of the B-MoCA functions:
``dual-gesture(touch_y, touch_x, lift_y, lift_x)``, ``tap(numeric_tag)``,
``swipe(direction)``, ``press(button)``. A short demonstration (upstream v2.5
adds human demonstrations) shows the format. The prompt text is ours.
"""
from __future__ import annotations

from typing import Sequence

from .. import register_spec
from ..spec import PromptSpec, Step, one_line

ACTIONS = """Available functions (write exactly one after "Action: "):
- dual-gesture(touch_y, touch_x, lift_y, lift_x): touch the screen at (touch_y, touch_x) and lift at (lift_y, lift_x); coordinates are fractions of the screen height and width in [0, 1], (0, 0) is the top left. Use it to drag a slider to a position.
- tap(numeric_tag): tap the UI element with that numeric tag.
- swipe(direction): swipe "up" (scroll down / open the app drawer from the home screen), "down", "left" or "right".
- press("BACK"), press("HOME"), press("OVERVIEW"): press a navigation button."""

EXAMPLE = """Goal: turn on wifi
Previous actions: (none)
Observation: [{'numeric_tag': 0, 'description': 'com.google.android.apps.nexuslauncher.id_clock_fri_jan_1'}, {'numeric_tag': 1, 'description': 'com.google.android.apps.nexuslauncher.id_smartspace_content'}, {'numeric_tag': 2, 'description': 'android.widget.TextView_Settings'}, {'numeric_tag': 3, 'description': 'android.widget.TextView_Camera'}, ...]
Description: The home screen shows app icons; element 2 is the Settings app.
Thought: Wi-Fi is switched in Settings, so I open the Settings app first.
Action: tap(2)

Goal: turn on wifi
Previous actions: tap(2)
Observation: [..., {'numeric_tag': 3, 'description': 'android.id_title_network_&_internet'}, {'numeric_tag': 4, 'description': 'android.id_summary_wi-fi_mobile_data_usage_and_hotspot'}, ...]
Description: The Settings app is open; element 3 is "Network & internet", which holds the Wi-Fi switch.
Thought: I go into Network & internet.
Action: tap(3)

Goal: turn on wifi
Previous actions: tap(2), tap(3)
Observation: [{'numeric_tag': 0, 'description': 'android.widget.ImageButton_Navigateup'}, ..., {'numeric_tag': 6, 'description': 'android.id_switch_widget_off'}, {'numeric_tag': 7, 'description': 'android.id_widget_frame'}, {'numeric_tag': 8, 'description': 'android.widget.LinearLayout'}, ...]
Description: The Network & internet page; the Wi-Fi row's switch (element 6) is off.
Thought: Tapping the switch turns Wi-Fi on, which accomplishes the goal.
Action: tap(6)"""


@register_spec("treegym/BMoCA-v0")
class BMoCAPrompts(PromptSpec):
    task = "You are an agent that is trained to perform daily tasks on digital devices, such as smartphones."
    action_syntax = ACTIONS
    react_example = EXAMPLE
    value_rubric = ("Answer with one word on the last line: sure (the goal will be accomplished within the step "
                    "limit from this screen), likely, or impossible.")
    compare_rubric = "The better attempt is on a screen closer to accomplishing the goal, with fewer wasted actions."
    reflect_focus = "which screen or element was wrong and what path to the goal to take next time"
    malformed_examples = ("open the settings", "tap the Wi-Fi switch")
    observation_label = "Observation"
    page_chars = 30000  # a screen's element list; cutting it would hide elements the agent must tap
    history_obs_chars = 0
    max_previous = 4

    def task_lines(self, obs: dict) -> list[str]:
        return [one_line(obs.get("instruction", ""), 500)]

    def history_lines(self, history: Sequence[Step]) -> list[str]:
        recent = [s.action for s in history][-self.max_previous:]
        return [f"Previous actions: {', '.join(recent) if recent else '(none)'}"]

    def state_lines(self, obs: dict) -> list[str]:
        # every tap(n) is legal, so the element list itself is the menu of actions
        return [f"{self.observation_label}: {one_line(obs.get('text', ''), self.page_chars)}"]

    def react_messages(self, obs: dict, history: Sequence[Step], reflections: Sequence[str] = (),
                       avoid: Sequence[str] = ()) -> list:
        system = self._system(
            "You are given a goal task instruction to accomplish, an observation from the environment, and the "
            "previous actions you have taken (up to 4). The observation describes the screen layout parsed from "
            "the Android view hierarchy: a numeric tag and a description for each UI element.",
            "Your answer has three parts, in this format:\nDescription: <what you observe on the screen>\n"
            "Thought: <how to proceed towards the goal>\nAction: <one function call>",
            self.action_help(), f"Examples:\n{self.react_example}")
        user = self.reflection_lines(reflections) + self.context(obs, history) + self.avoid_lines(avoid)
        return self._messages(system, user + ["Reply with Description: ..., Thought: ... and Action: ..."])

    def render_react(self, action: str, thought: str = "") -> str:
        return (f"Description: The screen is described by the element list above.\n"
                f"Thought: {thought or 'This action moves towards the goal.'}\nAction: {action}")
