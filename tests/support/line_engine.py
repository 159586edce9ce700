"""A small pure engine for the session-server tests: walk a line to a target.

Tasks 1..4 are targets (``train``: 1, 2; ``test``: 3, 4); the seed sets the
start (``seed % 3``). Actions ``left``/``right`` move, ``stay`` does nothing,
``win`` ends the episode (reward 1 on the target, else 0); ``boom`` raises
(an engine bug, for the server's 500 answer); anything else leaves the state
with a notice. ``shout=True`` observes in capitals (a second variant).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from treegym.envs.core import ExpertAdvice, StepResult


@dataclass(frozen=True)
class LineState:
    target: int
    at: int = 0
    done: bool = False
    notice: str = ""


class LineEngine:
    def __init__(self, shout: bool = False):
        self.shout = shout

    def splits(self):
        return ("train", "test")

    def task_ids(self, split):
        return {"train": (1, 2), "test": (3, 4)}[split]

    def task(self, task_id):
        if task_id not in (1, 2, 3, 4):
            raise ValueError(f"no task {task_id!r}; tasks are 1..4")
        return task_id

    def initial_state(self, task, seed):
        return LineState(target=task, at=(seed or 0) % 3)

    def step(self, state, action):
        state = replace(state, notice="")
        if action == "boom":
            raise RuntimeError("the engine broke")
        if action in ("left", "right"):
            return StepResult(replace(state, at=state.at + (1 if action == "right" else -1)))
        if action == "win":
            won = state.at == state.target
            return StepResult(replace(state, done=True), reward=1.0 if won else 0.0, terminated=True)
        if action == "stay":
            return StepResult(state)
        return StepResult(replace(state, notice=f"unknown action {action[:40]!r}"))

    def is_terminal(self, state):
        return state.done

    def observe(self, state):
        text = f"at {state.at} {state.notice}".strip()
        obs = {"text": text.upper() if self.shout else text, "instruction": f"reach {state.target} and win",
               "valid_actions": ("left", "right", "stay", "win")}
        return obs, {"success": state.done and state.at == state.target, "at": state.at}

    def expert(self, state):
        if state.done:
            return ExpertAdvice(plan=(), value=1.0 if state.at == state.target else 0.0,
                                solvable=state.at == state.target)
        d = state.target - state.at
        return ExpertAdvice(plan=("right",) * d + ("left",) * -d + ("win",), value=1.0)

    def state_to_json(self, state):
        return {"target": state.target, "at": state.at, "done": state.done, "notice": state.notice}

    def state_from_json(self, data):
        if not isinstance(data, dict) or set(data) != {"target", "at", "done", "notice"}:
            raise ValueError("a line state is {target, at, done, notice}")
        return LineState(**data)
