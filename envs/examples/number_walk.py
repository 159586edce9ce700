"""A worked example of adding an env with native rollback (used by the README and tests).

NumberWalk: start at 0, reach ``target`` by commands ``add N`` / ``sub N``
(N in 1..3). Observation is the usual dict; reward 1 on reaching the target.
The whole simulator state is one int, so ``_get_state`` returns it directly.

Besides the snapshot hooks it implements the optional env-agent contract
(``envs/core/contract.py``): ``task_fields`` (the target), ``canonical_action``
(its own parser) and ``expert`` (the shortest walk), which is all every agent,
the ``oracle`` policy and the simulated LLMs need.
"""
from __future__ import annotations

from dataclasses import dataclass

from treegym.envs.core import ForkableEnv, text_observation_space, action_space
from treegym.envs.core.contract import ExpertAdvice


@dataclass(frozen=True)
class WalkTask:
    target: int


class NumberWalkEnv(ForkableEnv):
    def __init__(self, target: int = 7, max_steps: int = 10, render_mode: str | None = None):
        super().__init__(max_steps=max_steps, render_mode=render_mode)
        self._init_kwargs = {"target": target, "max_steps": max_steps}
        self.observation_space = text_observation_space()
        self.action_space = action_space()
        self.task = WalkTask(target)
        self.position = 0
        self.message = ""

    # --- the three hooks of the snapshot protocol
    def _get_state(self) -> tuple[int, str]:
        return (self.position, self.message)

    def _set_state(self, state: tuple[int, str]) -> None:
        self.position, self.message = state

    def _observe(self) -> tuple[dict, dict]:
        text = f"{self.message} You are at {self.position}.".strip()
        self._last_text = text
        obs = {
            "text": text,
            "instruction": f"Reach {self.task.target}.",
            "valid_actions": tuple(f"{op} {n}" for op in ("add", "sub") for n in (1, 2, 3)),
        }
        return obs, {"position": self.position, "success": self.position == self.task.target}

    # --- the env-agent contract (optional; defaults say "not available")
    def task_fields(self) -> dict:
        return {"target": self.task.target}

    def canonical_action(self, action: str) -> str | None:
        parts = str(action).lower().split()
        ok = len(parts) == 2 and parts[0] in ("add", "sub") and parts[1] in ("1", "2", "3")
        return " ".join(parts) if ok else None

    def expert(self) -> ExpertAdvice:
        gap, plan = self.task.target - self.position, []
        while gap:
            n = min(3, abs(gap))
            plan.append(f"{'add' if gap > 0 else 'sub'} {n}")
            gap -= n if gap > 0 else -n
        reachable = self.max_steps is None or self.max_steps - self.steps >= len(plan)
        return ExpertAdvice(tuple(plan) if reachable else (), 1.0 if reachable else 0.0, reachable)

    # --- the usual Gymnasium API
    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.steps, self.position, self.message = 0, 0, ""
        return self._observe()

    def step(self, action):
        canonical = self.canonical_action(action)
        if canonical is not None:
            parts = canonical.split()
            n = int(parts[1])
            self.position += n if parts[0] == "add" else -n
            self.message = f"You did {action}."
        else:
            self.message = f"Invalid action {action!r}: use 'add N' or 'sub N' with N in 1..3."
        truncated = self._count_step()
        obs, info = self._observe()
        terminated = info["success"]
        return obs, float(terminated), terminated, truncated and not terminated, info
