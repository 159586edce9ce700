"""Plays agent steps into a :class:`~.forest.Forest`: the policy's prompt and reply, the env's step,
the fork after it, and the accounting of all of it.

The policy is ReAct-style action proposal through the env's prompt spec (``agents/prompts``) and
any :class:`~treegym.agents.llm.base.LLM`: the spec builds the chat prompt from the observation and
the path so far, the LLM answers (one call per step, ``temperature`` and a fresh ``seed`` per call,
so samples from one state differ), the spec parses the action. When the LLM can constrain its
output and the page lists valid actions, the answer is constrained to them (as the ``react``
agent does). Rows keep that exact prompt and reply.

``Player.play_from(forest, node_id)`` continues from a node's state to the end of the episode:
when the env is elsewhere it restores the node's snapshot (timed, counted, with the prefix steps a
replay would have played). With ``fork=True`` a snapshot is taken after every step, so any node
can be branched later; with ``identify=True`` each state gets an identity for GiGPO's anchors.
"""
from __future__ import annotations

import hashlib
import json
import time
from typing import Any

import numpy as np

import treegym.envs as te

from ...llm.info import info_of
from ...prompts import Step, get_prompts
from ...requests import ReactRequest
from .accounting import Accounting
from .forest import Forest, Node


def state_identity(env: Any, snap: Any) -> str:
    """A digest of the env's own state in ``snap`` (its engine's ``state_to_json`` of the payload),
    or "" when the env has no JSON form of its state (anchors then fall back to tree positions)."""
    engine = getattr(getattr(env, "unwrapped", env), "engine", None)
    to_json = getattr(engine, "state_to_json", None)
    if snap is None or to_json is None:
        return ""
    try:
        text = json.dumps(to_json(snap.payload), sort_keys=True, default=str)
    except Exception:  # noqa: BLE001 - a state without a JSON form: no identity, never a wrong one
        return ""
    return hashlib.sha1(f"{snap.env_class}|{text}".encode("utf-8", "replace")).hexdigest()[:16]


class Player:
    """One env and one policy playing steps into forests (module docstring)."""

    def __init__(self, env: Any, env_id: str, llm: Any, *, temperature: float = 1.0, seed: int = 0,
                 max_steps: int = 30, fork: bool = True, identify: bool = False, constrain: bool | None = None):
        if int(max_steps) < 1:
            raise ValueError(f"max_steps must be at least 1, got {max_steps}")
        self.env, self.env_id, self.llm = env, env_id, llm
        self.temperature, self.max_steps = float(temperature), int(max_steps)
        self.fork, self.identify = bool(fork) or bool(identify), bool(identify)
        self.constrain = info_of(llm).grammar if constrain is None else bool(constrain)
        self.prompts = get_prompts(env_id)
        self.rng = np.random.default_rng(seed)
        self.acct = Accounting()
        self._snap: dict[int, Any] = {}  # node id -> snapshot of the state after it
        self._obs: dict[int, dict] = {}  # node id -> the observation after it
        self._at: tuple[int, int] | None = None  # (id(forest), node id) the env is in now
        self._reset_before = False  # the env's first reset also loads its data: not a replay's cost

    # ------------------------------------------------------------------ states
    def root(self, forest: Forest, tree: int) -> Node:
        """Reset the env to the forest's task and seed and add a root for ``tree``."""
        options = None if forest.task_id is None else {"task_id": forest.task_id}
        t0 = time.perf_counter()
        obs, info = self.env.reset(seed=forest.seed, options=options)
        took = time.perf_counter() - t0
        if self._reset_before:
            self.acct.warm_resets += 1
            self.acct.warm_reset_seconds += took
        self._reset_before = True
        self.acct.reset_seconds += took
        self.acct.resets += 1
        self.prompts.bind(self.env)
        snap = self._fork()
        node = forest.add_root(tree, state_key=state_identity(self.env, snap) if self.identify else "")
        self._remember(forest, node.id, obs, snap)
        return node

    def _fork(self) -> Any:
        if not self.fork:
            return None
        t0 = time.perf_counter()
        snap = te.snapshot(self.env)
        self.acct.snapshot_seconds += time.perf_counter() - t0
        self.acct.snapshots += 1
        return snap

    def _remember(self, forest: Forest, node_id: int, obs: dict, snap: Any) -> None:
        self._obs[node_id], self._at = obs, (id(forest), node_id)
        if snap is not None:
            self._snap[node_id] = snap

    def _go_to(self, forest: Forest, node_id: int) -> dict:
        """The observation at ``node_id``, restoring its snapshot when the env is elsewhere."""
        if self._at == (id(forest), node_id):
            return self._obs[node_id]
        snap = self._snap.get(node_id)
        if snap is None:
            raise RuntimeError(f"node {node_id} has no snapshot to branch from (play with fork=True)")
        t0 = time.perf_counter()
        obs, _ = te.restore(self.env, snap)
        self.acct.restore_seconds += time.perf_counter() - t0
        self.acct.restores += 1
        self.acct.prefix_steps_saved += forest.nodes[node_id].depth
        self._at = (id(forest), node_id)
        return obs

    def forget(self) -> None:
        """Drop the snapshots and observations of the forest played so far (call between tasks)."""
        self._snap.clear()
        self._obs.clear()
        self._at = None

    # ------------------------------------------------------------------ steps
    def _history(self, forest: Forest, node_id: int) -> list[Step]:
        return [Step(n.action, str(self._obs[n.id].get("text", "")), n.reward, n.completion)
                for n in forest.path(node_id)]

    def _ask(self, obs: dict, history: list[Step]) -> tuple[list[dict[str, str]], str, str]:
        """One ReAct call: (the chat prompt, the LLM's reply, the parsed action)."""
        messages = [dict(m) for m in self.prompts.react_messages(obs, history)]
        valid = tuple(obs.get("valid_actions") or ())
        usage = getattr(self.llm, "usage", None)
        before = usage.as_dict() if usage is not None else None
        text = ReactRequest(messages, self.env, temperature=self.temperature,
                            choices=valid if (self.constrain and valid) else None,
                            seed=int(self.rng.integers(2**31 - 1))).send(self.llm)[0]
        if before is not None:
            after = usage.as_dict()
            self.acct.llm_calls += after["calls"] - before["calls"]
            self.acct.prompt_tokens += after["prompt_tokens"] - before["prompt_tokens"]
            self.acct.completion_tokens += after["completion_tokens"] - before["completion_tokens"]
        else:
            self.acct.llm_calls += 1
        return messages, text, self.prompts.parse_action(text, obs)

    def play_from(self, forest: Forest, node_id: int) -> Node:
        """Play from ``node_id``'s state to the end of the episode; returns the leaf."""
        node = forest.nodes[node_id]
        if node.leaf:
            raise ValueError(f"node {node_id} ended its trajectory; branch from a node before it")
        obs = self._go_to(forest, node_id)
        history = self._history(forest, node_id)
        while True:
            messages, text, action = self._ask(obs, history)
            t0 = time.perf_counter()
            obs, reward, terminated, truncated, _ = self.env.step(action)
            self.acct.step_seconds += time.perf_counter() - t0
            self.acct.env_steps += 1
            leaf = bool(terminated or truncated or node.depth + 1 >= self.max_steps)
            snap = None if leaf else self._fork()  # a leaf is never branched
            node = forest.add_step(node.id, action=action, reward=float(reward), completion=text, prompt=messages,
                                   leaf=leaf, state_key=state_identity(self.env, snap) if self.identify else "")
            self._remember(forest, node.id, obs, snap)
            history.append(Step(action, str(obs.get("text", "")), float(reward), text))
            if leaf:
                self.acct.trajectories += 1
                return node
