"""TRL ``environment_factory`` classes, one per env family: treegym envs as multi-turn tool environments.

TRL's ``GRPOTrainer(environment_factory=...)`` makes one instance per
rollout, calls ``reset(**row)`` with the dataset row (its return text is
appended to the prompt), offers every public method as a tool (type hints and
the docstring's ``Args:`` become the tool schema) and scores the rollout with
``get_reward()``::

    from trl import GRPOTrainer
    from treegym.agents.training.adapters.trl import WebShopToolEnv, dataset_rows
    from datasets import Dataset

    trainer = GRPOTrainer(model=..., train_dataset=Dataset.from_list(dataset_rows("treegym/WebShop-v0", "train")),
                          environment_factory=WebShopToolEnv, ...)

A row is ``{"prompt": [...], "task_id": ..., "seed"?: ..., "prefix"?: [actions]}``;
``prefix`` starts mid-episode, and the rollouts of one row start from one fork
(:mod:`.episode`). ``get_reward()`` is the episode's total env reward (WebShop's
purchase score; 1.0 for a solved Game of 24, ALFWorld or tool task). A tool
called after the episode ended answers so and changes nothing.
"""
from __future__ import annotations

import json
from typing import Any, ClassVar, Mapping

from ...prompts import get_prompts
from .episode import TextEpisode
from treegym.envs.registration import env_class


#: env id -> its tool env class: every subclass of :class:`TreegymToolEnv` that sets its own ``env_id``
#: registers itself here (a family's tool env, in this module or a user's).
TOOL_ENVS: dict[str, type[TreegymToolEnv]] = {}


class TreegymToolEnv:
    """Base class: ``env_id`` / ``env_kwargs`` name the env; subclasses add the family's tools."""

    env_id: ClassVar[str] = ""
    env_kwargs: ClassVar[Mapping[str, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("env_id"):
            TOOL_ENVS[cls.env_id] = cls

    def __init__(self) -> None:
        if not self.env_id:
            raise TypeError("use a subclass with an env_id (e.g. WebShopToolEnv), or tool_env_class(env_id)")
        self._episode = TextEpisode(self.env_id, self.env_kwargs)

    def reset(self, **row: Any) -> str:
        """Start the row's task (``task_id``, optional ``seed``, ``split``, ``prefix``); other columns are ignored."""
        return self._episode.reset(task_id=row.get("task_id"), seed=row.get("seed"), split=row.get("split"),
                                   prefix=row.get("prefix") or ())

    def get_reward(self) -> float:
        """The episode's total env reward so far."""
        return float(self._episode.total_reward)

    def _act(self, action: str) -> str:
        return self._episode.step(action)


class Game24ToolEnv(TreegymToolEnv):
    env_id = "treegym/Game24-v0"

    def calculate(self, step: str) -> str:
        """Combine two of the numbers left with + - * /, or give the final answer.

        Args:
            step: one operation such as "13 - 9 = 4 (left: 4 4 10)" or "13 - 9", or "answer: (13 - 9) * (10 - 4)".
        """
        return self._act(step)


class WebShopToolEnv(TreegymToolEnv):
    env_id = "treegym/WebShop-v0"

    def search(self, query: str) -> str:
        """Search the shop (on the page with the search bar).

        Args:
            query: the search keywords, e.g. "red running shoes size 9".
        """
        return self._act(f"search[{query}]")

    def click(self, label: str) -> str:
        """Click a button, link or option on the current page.

        Args:
            label: its label as listed, e.g. "Buy Now", "Next >", "< Prev", a product id or an option value.
        """
        return self._act(f"click[{label}]")


class ALFWorldToolEnv(TreegymToolEnv):
    env_id = "treegym/ALFWorld-v0"

    def act(self, command: str) -> str:
        """Do one admissible command in the household.

        Args:
            command: the command as the game lists it, e.g. "go to countertop 1" or "take apple 1 from countertop 1".
        """
        return self._act(command)


class TextWorldToolEnv(TreegymToolEnv):
    env_id = "treegym/TextWorld-v0"

    def act(self, command: str) -> str:
        """Do one command in the text adventure.

        Args:
            command: a short command such as "go north", "take coin" or "open door".
        """
        return self._act(command)


class ToolBenchToolEnv(TreegymToolEnv):
    env_id = "treegym/ToolBench-v0"

    def call_function(self, name: str, arguments: str) -> str:
        """Call one of the task's functions (listed with the task).

        Args:
            name: the function's name.
            arguments: its arguments as a JSON object, e.g. "{\\"city\\": \\"Paris\\"}".
        """
        try:
            args = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            args = arguments  # the env answers a malformed call with what is wrong
        return self._act(json.dumps({"name": name, "arguments": args}, ensure_ascii=False))

    def finish(self, final_answer: str) -> str:
        """Give the final answer (everything the user asked for) and end the episode.

        Args:
            final_answer: the answer for the user.
        """
        return self._act(json.dumps({"name": "Finish", "arguments": {"return_type": "give_answer",
                                                                      "final_answer": final_answer}}))


class RestBenchToolEnv(TreegymToolEnv):
    env_id = "treegym/RestBench-v0"

    def request(self, method: str, path: str, body: str = "") -> str:
        """Send one HTTP request to the task's REST API.

        Args:
            method: GET, POST, PUT or DELETE.
            path: the path with its query, e.g. "/search/movie?query=The Silent Harbor".
            body: a JSON body for POST and PUT, else empty.
        """
        return self._act(f"{method.strip().upper()} {path.strip()}" + (f" {body.strip()}" if body.strip() else ""))

    def final_answer(self, answer: str) -> str:
        """Give the final answer and end the episode.

        Args:
            answer: the answer to the instruction.
        """
        return self._act(f"Final Answer: {answer}")


class ToolTasksToolEnv(TreegymToolEnv):
    env_id = "treegym/ToolTasks-v0"

    def call(self, expression: str) -> str:
        """Call one function of the task with literal arguments.

        Args:
            expression: the call, e.g. 'set_location("Boston")', 'put("cup", "sink")' or 'search()'.
        """
        return self._act(expression)


class BMoCAToolEnv(TreegymToolEnv):
    env_id = "treegym/BMoCA-v0"

    def tap(self, numeric_tag: int) -> str:
        """Tap the UI element with that numeric tag.

        Args:
            numeric_tag: the element's numeric_tag in the observation.
        """
        return self._act(f"tap({int(numeric_tag)})")

    def swipe(self, direction: str) -> str:
        """Swipe the screen.

        Args:
            direction: "up" (scroll down, or open the app drawer from the home screen), "down", "left" or "right".
        """
        return self._act(f'swipe("{direction}")')

    def press(self, button: str) -> str:
        """Press a navigation button.

        Args:
            button: "BACK", "HOME" or "OVERVIEW".
        """
        return self._act(f'press("{button}")')

    def dual_gesture(self, touch_y: float, touch_x: float, lift_y: float, lift_x: float) -> str:
        """Touch the screen at one point and lift at another (e.g. drag a slider); fractions of the screen in [0, 1].

        Args:
            touch_y: where the touch starts, from the top.
            touch_x: where the touch starts, from the left.
            lift_y: where the finger lifts, from the top.
            lift_x: where the finger lifts, from the left.
        """
        return self._act(f"dual-gesture({touch_y}, {touch_x}, {lift_y}, {lift_x})")


def tool_env_class(env_id: str, **env_kwargs: Any) -> type[TreegymToolEnv]:
    """The ``environment_factory`` for ``env_id``; ``env_kwargs`` go to ``gym.make`` (a subclass is made for them)."""
    if env_id not in TOOL_ENVS:
        raise ValueError(f"no TRL tool env for {env_id!r}; known: {', '.join(sorted(TOOL_ENVS))}")
    base = TOOL_ENVS[env_id]
    if not env_kwargs:
        return base
    return type(base.__name__, (base,), {"env_kwargs": dict(env_kwargs), "__doc__": base.__doc__})


def dataset_rows(env_id: str, split: str, *, limit: int | None = None, seed: int | None = 0,
                 prefix: list[str] | None = None) -> list[dict[str, Any]]:
    """One row per task of ``split``: a conversational ``prompt`` (the task and action help), ``task_id``, ``seed``.

    The env's own reset text (instruction, page, valid actions) is appended by ``reset`` at rollout time.
    """
    import gymnasium as gym

    cls = env_class(env_id)
    ids = list(cls.split_task_ids(split))[:limit]
    env = gym.make(env_id)
    try:
        spec = get_prompts(env_id).bind(env.unwrapped)
        system = f"{spec.task}\n\n{spec.action_help()}\nUse the tools to act; one action per tool call.".strip()
    finally:
        env.close()
    rows = []
    for task_id in ids:
        row: dict[str, Any] = {"prompt": [{"role": "system", "content": system}, {"role": "user", "content": ""}],
                               "task_id": task_id, "seed": seed}
        if prefix:
            row["prefix"] = list(prefix)
        rows.append(row)
    return rows
