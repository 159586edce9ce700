"""What a rollout run spent: trajectories, env steps, LLM calls and tokens, and env time.

Restoring a snapshot replaces replaying the branch's prefix (a reset plus ``depth`` steps).
``restore_seconds`` is measured; the replay it replaced is estimated from the same run's mean
step time and mean reset time, leaving out the env's first reset, which also loads data (with no
later reset the estimate counts resets as free, so it errs low) (``replay_seconds_estimate``). The bench (``scripts/bench/bench_rollouts.py``)
replays prefixes for real to check the estimate and that each restore equals its replay.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass
class Accounting:
    """Counters of one run (or one task); ``+`` adds two."""

    tasks: int = 0
    trajectories: int = 0  # leaves
    env_steps: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    resets: int = 0
    warm_resets: int = 0  # resets after the env's first (which also loads data): the replay estimate's unit
    snapshots: int = 0
    restores: int = 0
    prefix_steps_saved: int = 0  # steps a replay of each restored prefix would have played
    reset_seconds: float = 0.0
    warm_reset_seconds: float = 0.0
    step_seconds: float = 0.0
    snapshot_seconds: float = 0.0
    restore_seconds: float = 0.0

    def __add__(self, other: "Accounting") -> "Accounting":
        return Accounting(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)})

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def replay_seconds_estimate(self) -> float:
        """What replaying every restored prefix would have cost at this run's mean reset and step times."""
        reset = self.warm_reset_seconds / self.warm_resets if self.warm_resets else 0.0  # no warm reset: 0 (low)
        step = self.step_seconds / self.env_steps if self.env_steps else 0.0
        return self.restores * reset + self.prefix_steps_saved * step

    @property
    def env_seconds_saved(self) -> float:
        """The estimated replay time minus what forking cost (restores and the snapshots taken)."""
        return self.replay_seconds_estimate - self.restore_seconds - self.snapshot_seconds

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.update(tokens=self.tokens, replay_seconds_estimate=self.replay_seconds_estimate,
                   env_seconds_saved=self.env_seconds_saved)
        return out

    def summary(self) -> str:
        return (f"{self.trajectories} trajectories, {self.env_steps} env steps, {self.llm_calls} LLM calls, "
                f"{self.tokens} tokens; {self.restores} restores replaced {self.prefix_steps_saved} prefix steps "
                f"(env time saved ~{self.env_seconds_saved * 1000:.1f} ms: replay ~{self.replay_seconds_estimate * 1000:.1f} ms "
                f"vs restore {self.restore_seconds * 1000:.1f} ms + snapshots {self.snapshot_seconds * 1000:.1f} ms)")
