"""GEM-style text envs (axon-rl/gem): string observations, ``reset(seed)``, and ``spawn(same_state=True)`` by fork.

GEM's ``Env`` API is Gymnasium's with text: ``reset(seed) -> (obs: str, info)``,
``step(action: str) -> (obs, reward, terminated, truncated, info)``, and
``spawn(same_state=False, **kwargs)`` for a new env of the same configuration,
in the same state when ``same_state=True``. Here ``same_state=True`` is a
treegym fork (snapshot + restore into a new env: microseconds for native
snapshots), so GEM-based trainers get group starts from any mid-episode state::

    from treegym.agents.training.adapters.gem import TreegymGemEnv
    env = TreegymGemEnv("treegym/ALFWorld-v0", task_id=...)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step("go to countertop 1")
    group = [env.spawn(same_state=True) for _ in range(8)]   # 8 copies of this state

When ``gem-llm`` is installed the class is a ``gem.core.Env`` subclass, so GEM's
wrappers and registry take it; without it, it
has the same methods on ``object``.
``register_with_gem(env_id, **kwargs)`` puts it in GEM's registry under the same id.
"""
from __future__ import annotations

import random
from functools import partial
from typing import Any, Mapping

import treegym.envs as te

from .episode import TextEpisode

try:  # a real gem.Env when GEM is installed
    from gem.core import Env as _GemEnv
except ImportError:  # pragma: no cover - depends on the optional extra
    _GemEnv = object


class TreegymGemEnv(_GemEnv):
    """A treegym env as a GEM text env (module docstring).

    ``task_id`` fixes the task; otherwise ``reset(seed)`` picks one of ``split``
    by the seed (the env's first split by default). ``seed`` (as GEM's
    ``make_vec`` passes it) seeds the seeds of resets that give none, so
    auto-resets move on to other tasks. ``env_kwargs`` go to ``gym.make``.
    """

    def __init__(self, env_id: str, task_id: Any = None, split: str | None = None,
                 env_kwargs: Mapping[str, Any] | None = None, seed: int | None = None):
        super().__init__()
        self.env_id, self.task_id, self.split, self.seed = env_id, task_id, split, seed
        self.env_kwargs = dict(env_kwargs or {})
        self.episode = TextEpisode(env_id, self.env_kwargs)
        self._seeds = random.Random(seed)

    def reset(self, seed: int | None = None, task_id: Any = None) -> tuple[str, dict[str, Any]]:
        """Start ``task_id`` (or this env's task, or one of its split chosen by ``seed``); (text, info)."""
        if seed is None:
            seed = self._seeds.randrange(2 ** 31)
        task = task_id if task_id is not None else self.task_id
        if task is None and self.split is not None:
            ids = list(type(self.episode.env.unwrapped).split_task_ids(self.split))
            task = random.Random(seed).choice(ids)
        text = self.episode.reset(task_id=task, seed=seed, split=None if task is not None else self.split)
        return text, dict(self.episode.info)

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        before = self.episode.total_reward
        text = self.episode.step(action)
        info = dict(self.episode.info)
        truncated = bool(info.get("truncated", False))
        return text, self.episode.total_reward - before, self.episode.done and not truncated, truncated, info

    def sample_random_action(self) -> str:
        valid = list(self.episode.obs.get("valid_actions") or ())
        if not valid:
            raise NotImplementedError(f"{self.env_id} lists no valid actions to sample from here")
        return random.choice(valid)

    # ------------------------------------------------------------------ forks
    def get_state(self) -> Any:
        """The current state: a treegym snapshot (immutable, picklable) plus the episode's counters."""
        ep = self.episode
        return {"snapshot": te.snapshot(ep.env), "total_reward": ep.total_reward, "done": ep.done,
                "steps": ep.steps, "obs": ep.obs, "info": ep.info}

    def set_state(self, state: Mapping[str, Any]) -> None:
        ep = self.episode
        ep.obs, ep.info = te.restore(ep.env, state["snapshot"])
        ep.total_reward, ep.done, ep.steps = state["total_reward"], state["done"], state["steps"]

    def spawn(self, same_state: bool = False, **kwargs: Any) -> "TreegymGemEnv":
        """A new env with this configuration (``kwargs`` override it); in this env's state when ``same_state``."""
        config = {"env_id": self.env_id, "task_id": self.task_id, "split": self.split, "env_kwargs": self.env_kwargs,
                  "seed": self.seed}
        unknown = set(kwargs) - set(config)
        if unknown:
            raise TypeError(f"spawn() got unknown option(s) {sorted(unknown)}; known: {sorted(config)}")
        config.update(kwargs)
        child = TreegymGemEnv(**config)
        if same_state:
            if child.env_id != self.env_id or child.env_kwargs != self.env_kwargs:
                raise ValueError("spawn(same_state=True) needs the same env_id and env_kwargs")
            child.set_state(self.get_state())
        return child

    def close(self) -> None:
        self.episode.close()


def register_with_gem(env_id: str, gem_id: str | None = None, **kwargs: Any) -> str:
    """Register ``env_id`` in GEM's registry (as ``gem_id``, default the same id); ``kwargs`` go to the constructor.

    Then ``gem.make(gem_id)`` and ``gem.make_vec([gem_id] * n)`` build :class:`TreegymGemEnv` envs. Returns the GEM id.
    """
    import gem

    gem_id = gem_id or env_id
    if gem_id not in gem.envs.registration.ENV_REGISTRY:
        gem.register(gem_id, entry_point=partial(TreegymGemEnv, env_id), **kwargs)
    return gem_id
