"""HTTP mode: the ToolBench engine behind a running tool server (``treegym serve tools``).

:class:`ToolServerClient` speaks the sessions API (standard library only).
:class:`RemoteToolBenchEngine` implements the engine protocol on one server
session: a state is the canonical JSON text of the server's engine state
(immutable, picklable, lossless), so ``EngineEnv`` snapshots stay native and
exact. Before stepping from a state other than the session's current one the
engine restores it on the server (one extra request); observations of states
it has seen come from a small cache.

Infrastructure failures raise :class:`ToolServerError` saying what to do.
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections import OrderedDict
from typing import Any, Sequence

from treegym.envs.core.contract import ExpertAdvice, StepResult

DEFAULT_TIMEOUT = 30.0


class ToolServerError(RuntimeError):
    """The tool server could not be reached or refused a request (the message says why)."""


class ToolServerClient:
    """JSON requests to a tool server at ``base_url`` (e.g. ``http://127.0.0.1:8080``)."""

    def __init__(self, base_url: str, timeout: float = DEFAULT_TIMEOUT):
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError(f"server_url must be an http:// or https:// URL, got {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    def request(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base_url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.loads(resp.read().decode())
        except urllib.error.HTTPError as exc:
            try:
                detail = json.loads(exc.read().decode()).get("error", "")
            except ValueError:
                detail = ""
            raise ToolServerError(f"{method} {self.base_url + path} -> HTTP {exc.code}: {detail}") from exc
        except (urllib.error.URLError, OSError) as exc:
            raise ToolServerError(f"cannot reach the tool server at {self.base_url} ({exc}); start it with "
                                  "`treegym serve tools --port PORT` or fix server_url") from exc

    def create(self, task_id: Any, **options: Any) -> dict:
        return self.request("POST", "/sessions", dict(options, task_id=task_id))

    def step(self, sid: str, action: str, with_state: bool = False) -> dict:
        return self.request("POST", f"/sessions/{sid}/step", {"action": action, "with_state": with_state})

    def snapshot(self, sid: str) -> dict:
        return self.request("GET", f"/sessions/{sid}/snapshot")

    def restore(self, sid: str, state: Any, steps: int | None = None) -> dict:
        body = {"state": state}
        if steps is not None:
            body["steps"] = steps
        return self.request("POST", f"/sessions/{sid}/restore", body)

    def reset(self, sid: str, task_id: Any) -> dict:
        return self.request("POST", f"/sessions/{sid}/reset", {"task_id": task_id})

    def expert(self, sid: str) -> dict:
        return self.request("GET", f"/sessions/{sid}/expert")

    def close(self, sid: str) -> dict:
        return self.request("DELETE", f"/sessions/{sid}")


def _key(state_json: Any) -> str:
    return json.dumps(state_json, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


class RemoteToolBenchEngine:
    """The engine protocol over one server session (see the module docstring)."""

    CACHE = 256

    def __init__(self, server_url: str, reward_mode: str = "terminal", max_observation_length: int = 1024):
        self.client = ToolServerClient(server_url)
        self.reward_mode, self.max_observation_length = reward_mode, max_observation_length
        tasks = self.client.request("GET", "/tasks")
        self._splits = {k: tuple(v) for k, v in tasks["splits"].items()}
        self._groups = {int(k): v for k, v in tasks["groups"].items()}
        self.sid: str | None = None
        self._current: str | None = None
        self._seen: "OrderedDict[str, tuple[dict, dict]]" = OrderedDict()

    def splits(self) -> Sequence[str]:
        return tuple(self._splits)

    def task_ids(self, split: str) -> Sequence[Any]:
        return self._splits[split]

    def task(self, task_id: Any) -> Any:
        try:
            tid = int(task_id)
        except (TypeError, ValueError):
            tid = None
        if tid not in self._groups:
            raise ValueError(f"unknown ToolBench task {task_id!r} on the server")
        return tid

    def group_of(self, task_id: Any) -> str | None:
        return self._groups.get(task_id)

    def _remember(self, state_json: Any, obs: dict, info: dict) -> str:
        key = _key(state_json)
        obs = dict(obs, valid_actions=tuple(obs["valid_actions"]))
        self._seen[key] = (obs, info)
        self._seen.move_to_end(key)
        while len(self._seen) > self.CACHE:
            self._seen.popitem(last=False)
        self._current = key
        return key

    def _go_to(self, state: str) -> None:
        if self.sid is None:  # a fresh env restored from a snapshot (clone): open its session first
            self.initial_state(json.loads(state)["task_id"], None)
        if self._current != state:
            out = self.client.restore(self.sid, json.loads(state))
            self._remember(json.loads(state), out["observation"], out["info"])

    def initial_state(self, task: Any, seed: int | None) -> str:
        if self.sid is None:
            out = self.client.create(task, reward_mode=self.reward_mode, max_steps=None,
                                     max_observation_length=self.max_observation_length)
            self.sid = out["session_id"]
        else:
            out = self.client.reset(self.sid, task)
        return self._remember(out["state"], out["observation"], out["info"])

    def step(self, state: str, action: str) -> StepResult[str]:
        self._go_to(state)
        out = self.client.step(self.sid, action, with_state=True)
        key = self._remember(out["state"], out["observation"], out["info"])
        return StepResult(key, float(out["reward"]), bool(out["terminated"]))

    def is_terminal(self, state: str) -> bool:
        return bool(json.loads(state).get("done"))

    def observe(self, state: str) -> tuple[dict, dict]:
        if state not in self._seen:
            self._go_to(state)
            if state not in self._seen:
                self._current = None
                self._go_to(state)
        obs, info = self._seen[state]
        return dict(obs), json.loads(json.dumps(info))

    def expert(self, state: str) -> ExpertAdvice | None:
        self._go_to(state)
        out = self.client.expert(self.sid)
        if not out["plan"] and out["value"] is None:
            return None
        return ExpertAdvice(plan=tuple(out["plan"]), value=out["value"], solvable=bool(out["solvable"]))

    def task_fields(self, state: str) -> dict[str, Any]:
        self._go_to(state)
        return self.client.request("GET", f"/sessions/{self.sid}/fields")

    def evaluate_state(self, state: str) -> dict[str, Any]:
        self._go_to(state)
        return self.client.request("GET", f"/sessions/{self.sid}/evaluation")

    def state_to_json(self, state: str) -> Any:
        return json.loads(state)

    def state_from_json(self, data: Any) -> str:
        return _key(data)
