"""One treegym episode played as text, the core the trainer adapters share (TRL, GEM, verifiers).

:class:`TextEpisode` owns one ``gym.make(env_id)`` env and speaks text: the
start of an episode and every step come back as the lines the env's prompt
spec writes (task, current page, valid actions), so a trainer's model reads
what treegym's own agents read.

**Group starts from a fork.** ``reset(task_id=..., seed=..., prefix=[...])``
starts a task after the actions in ``prefix`` (a mid-episode state, for GRPO
groups that branch from step k). The first episode to reach a (task, seed,
prefix) start plays it and keeps a snapshot in a process-wide cache (the
``START_CACHE`` most recent starts); every later episode with the same start,
on any instance of the same env id and options, restores it instead of
replaying: K rollouts of one dataset row cost one replay plus K restores.
"""
from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any, Mapping, Sequence

import gymnasium as gym

import treegym.envs as te

from ...prompts import get_prompts

START_CACHE = 256
_starts: OrderedDict[tuple, Any] = OrderedDict()
_starts_lock = threading.Lock()


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


class TextEpisode:
    """One env of ``env_id`` (made with ``env_kwargs``) played as text (module docstring)."""

    def __init__(self, env_id: str, env_kwargs: Mapping[str, Any] | None = None):
        self.env_id, self.env_kwargs = env_id, dict(env_kwargs or {})
        self.env = gym.make(env_id, **self.env_kwargs)
        self.prompts = get_prompts(env_id).bind(self.env.unwrapped)
        self.obs: dict = {}
        self.info: dict = {}
        self.total_reward = 0.0
        self.done = False
        self.steps = 0
        self.forked_start = False

    # ------------------------------------------------------------------ episode
    def reset(self, task_id: Any = None, seed: int | None = None, split: str | None = None,
              prefix: Sequence[str] = ()) -> str:
        """Start ``task_id`` (or a task of ``split``) after the ``prefix`` actions; the text the model reads first."""
        if isinstance(prefix, str) or not all(isinstance(a, str) for a in prefix):
            raise ValueError(f"prefix must be a list of action strings, got {prefix!r}")
        options = {k: v for k, v in (("task_id", task_id), ("split", split)) if v is not None}
        key = (self.env_id, _key(self.env_kwargs), _key(task_id), seed, split, tuple(prefix))
        with _starts_lock:
            snap = _starts.get(key)
            if snap is not None:
                _starts.move_to_end(key)
        self.total_reward, self.done, self.steps = 0.0, False, 0
        if snap is not None and task_id is not None:
            self.obs, self.info = te.restore(self.env, snap)
            self.steps, self.forked_start = len(prefix), True
            return self.start_text()
        self.obs, self.info = self.env.reset(seed=seed, options=options or None)
        for action in prefix:
            self.obs, _reward, terminated, truncated, self.info = self.env.step(action)
            self.steps += 1
            if terminated or truncated:
                raise ValueError(f"the prefix ends the episode at action {self.steps} ({action!r}); "
                                 "a group start must leave moves to play")
        self.forked_start = False
        if task_id is not None:  # a random task (no id) is not a reusable start
            with _starts_lock:
                _starts[key] = te.snapshot(self.env)
                while len(_starts) > START_CACHE:
                    _starts.popitem(last=False)
        return self.start_text()

    def step(self, action: str) -> str:
        """Play ``action``; the text the model reads next (the env's answer, also to a malformed action)."""
        if self.done:
            return "The episode is over; no more actions are taken."
        self.obs, reward, terminated, truncated, self.info = self.env.step(action)
        self.steps += 1
        self.total_reward += float(reward)
        self.done = bool(terminated or truncated)
        text = "\n".join(self.prompts.state_lines(self.obs))
        if self.done:
            text += f"\nThe episode is over (reward {float(reward):g}, success: {bool(self.info.get('success'))})."
        return text

    @property
    def success(self) -> bool:
        return bool(self.info.get("success"))

    def start_text(self) -> str:
        return "\n".join(self.prompts.task_lines(self.obs) + self.prompts.state_lines(self.obs))

    def instructions(self) -> str:
        """What the task is and how actions are written (the prompt spec's task and action help)."""
        return f"{self.prompts.task}\n\n{self.prompts.action_help()}".strip()

    def close(self) -> None:
        self.env.close()


def clear_start_cache() -> None:
    """Drop every cached group start (e.g. after rebuilding a catalog at the same path)."""
    with _starts_lock:
        _starts.clear()
