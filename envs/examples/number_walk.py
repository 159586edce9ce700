"""A worked example of adding an env with native rollback: docs/envs.md's "Adding your own env" code,
character for character after this docstring (tests/envs/core/test_add_your_own_env.py checks it).

NumberWalk: start at 0, reach ``target`` by commands ``add N`` / ``sub N`` (N in 1..3); reward 1 on
reaching the target. The whole simulator state is a small tuple, so ``_get_state`` returns it
directly. Besides the snapshot hooks it implements the optional env-agent contract
(``envs/core/contract.py``): ``task_fields``, ``canonical_action`` and ``expert``, which is all
every agent, the ``oracle`` policy and the simulated LLMs need. Importing it registers
``mysuite/NumberWalk-v0``.
"""
import gymnasium as gym
import treegym.envs as te
from treegym.envs import ExpertAdvice, ForkableEnv, action_space, text_observation_space

class NumberWalkEnv(ForkableEnv):
    """Reach `target` from 0 with commands `add N` / `sub N` (N in 1..3)."""
    restore_settings = ("target",)  # a snapshot restores only into an env with its target

    def __init__(self, target: int = 7, max_steps: int = 10, render_mode=None):
        super().__init__(max_steps=max_steps, render_mode=render_mode)
        self.observation_space = text_observation_space()                # text, instruction, valid_actions
        self.action_space = action_space()                               # any str
        self.target, self.position, self.message = target, 0, ""

    # the snapshot hooks: an immutable state value, set it back, observe it
    def _get_state(self):
        return (self.position, self.message)

    def _set_state(self, state):
        self.position, self.message = state

    def _observe(self):
        obs = {"text": f"{self.message} You are at {self.position}.".strip(),
               "instruction": f"Reach {self.target}.",
               "valid_actions": tuple(f"{op} {n}" for op in ("add", "sub") for n in (1, 2, 3))}
        return obs, {"position": self.position, "success": self.position == self.target}  # success: required

    # the env-agent contract (each optional; the defaults say "not available")
    def task_fields(self):                     # the task as data, for prompts (never the answer)
        return {"target": self.target}

    def canonical_action(self, action):        # your own parser: the canonical form, None if malformed
        parts = str(action).lower().split()
        ok = len(parts) == 2 and parts[0] in ("add", "sub") and parts[1] in ("1", "2", "3")
        return " ".join(parts) if ok else None

    def expert(self):                          # what an expert does from here: plan, value, solvable
        gap, plan = self.target - self.position, []
        while gap:
            n = min(3, abs(gap))
            plan.append(f"{'add' if gap > 0 else 'sub'} {n}")
            gap -= n if gap > 0 else -n
        fits = self.max_steps - self.steps >= len(plan)
        return ExpertAdvice(tuple(plan) if fits else (), 1.0 if fits else 0.0, fits)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.steps, self.position, self.message = 0, 0, ""
        return self._observe()

    def step(self, action):
        canonical = self.canonical_action(action)                        # never raise on bad input
        if canonical is not None:
            op, n = canonical.split()
            self.position += int(n) if op == "add" else -int(n)
            self.message = f"You did {action}."
        else:
            self.message = f"Invalid action {action!r}: use 'add N' or 'sub N' with N in 1..3."
        truncated = self._count_step()                                   # the env owns its step limit
        obs, info = self._observe()
        return obs, float(info["success"]), info["success"], truncated and not info["success"], info

if "mysuite/NumberWalk-v0" not in gym.registry:                  # registered when the module is imported
    gym.register("mysuite/NumberWalk-v0", entry_point=NumberWalkEnv)

if __name__ == "__main__":                                           # python number_walk.py
    print(te.check_rollback(gym.make("mysuite/NumberWalk-v0")).summary())
