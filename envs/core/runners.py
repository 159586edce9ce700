"""How an :class:`~treegym.envs.core.engine_env.EngineEnv` holds its episode: the runners.

* :class:`InProcessRunner`: the engine state, an immutable value (a snapshot is a reference).
* :class:`LiveRunner`: a :class:`~treegym.envs.core.contract.LiveEngine`'s mutable live value,
  stepped in place; ``get_state`` freezes a copy (snapshot), ``set_state`` thaws one (restore),
  so a step copies nothing.
* :class:`RemoteRunner`: one session on a session server (every call one request).
* :class:`RemoteTasks`: a server's task list, for a remote env without a local engine.

All runners share one interface: ``start(task, seed)``, ``step(action) -> (reward, terminated,
truncated)``, ``observe()``, ``is_terminal()``, ``get_state()``, ``set_state(payload)``,
``expert()``, ``close()``.
"""
from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any, Sequence

from .contract import Engine, ExpertAdvice
from .session_client import SessionClient
from .snapshot import SnapshotError


@dataclass(frozen=True)
class RemoteState:
    """The snapshot payload of a remote-mode env: the server's state JSON, as text (immutable)."""

    json: str


# ---------------------------------------------------------------------------- runners
class InProcessRunner:
    """Holds one episode's engine state and asks the engine directly (``task``: an ``EngineTask``).
    Slotted: setting ``state`` (a restore, a fork) touches this one object."""

    __slots__ = ("engine", "state")

    def __init__(self, engine: Engine):
        self.engine = engine
        self.state: Any = None

    def start(self, task: Any, seed: int | None) -> None:
        self.state = self.engine.initial_state(task.spec, seed)

    def step(self, action: str) -> tuple[float, bool, bool]:
        result = self.engine.step(self.state, action)
        self.state = result.state
        return float(result.reward), bool(result.terminated), bool(getattr(result, "truncated", False))

    def observe(self) -> tuple[dict, dict]:
        return self.engine.observe(self.state)

    def is_terminal(self) -> bool:
        return bool(self.engine.is_terminal(self.state))

    def get_state(self) -> Any:
        return self.state

    def set_state(self, payload: Any) -> None:
        if isinstance(payload, RemoteState):
            raise SnapshotError("this snapshot was taken in remote mode (server_url=); restore it on an env "
                                "of the same server, not on an in-process one")
        self.state = payload

    def expert(self) -> ExpertAdvice | None:
        return self.engine.expert(self.state)

    def close(self) -> None:
        pass


class LiveRunner(InProcessRunner):
    """Holds a :class:`~treegym.envs.core.contract.LiveEngine`'s live value: steps copy nothing,
    ``get_state`` freezes a copy (what a snapshot holds), ``set_state`` thaws the snapshot's state."""

    def __init__(self, engine: Engine):
        super().__init__(engine)
        self.live: Any = None

    def start(self, task: Any, seed: int | None) -> None:
        self.live = self.engine.thaw(self.engine.initial_state(task.spec, seed))

    def step(self, action: str) -> tuple[float, bool, bool]:
        result = self.engine.step_live(self.live, action)
        self.live = result.state
        return float(result.reward), bool(result.terminated), bool(getattr(result, "truncated", False))

    def observe(self) -> tuple[dict, dict]:
        return self.engine.observe(self.engine.peek(self.live))

    def is_terminal(self) -> bool:
        return bool(self.engine.is_terminal(self.engine.peek(self.live)))

    def get_state(self) -> Any:
        return self.engine.freeze(self.live)

    def set_state(self, payload: Any) -> None:
        if isinstance(payload, RemoteState):
            super().set_state(payload)  # raises, naming the mode
        self.live = self.engine.thaw(payload)

    def expert(self) -> ExpertAdvice | None:
        return self.engine.expert(self.engine.peek(self.live))


def _tuples(value: Any) -> Any:
    """JSON lists back to the tuples engines put in observations (fresh containers throughout)."""
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    if isinstance(value, dict):
        return {k: _tuples(v) for k, v in value.items()}
    return value


class RemoteRunner:
    """Owns one session on a session server; keeps the last answer so observing costs no request."""

    def __init__(self, client: SessionClient):
        self.client = client
        self._last: dict | None = None

    def start(self, task: Any, seed: int | None) -> None:
        self._last = self.client.start(task.task_id, seed)

    def step(self, action: str) -> tuple[float, bool, bool]:
        self._last = self.client.step(action)
        return float(self._last["reward"]), bool(self._last["terminated"]), bool(self._last.get("truncated"))

    def observe(self) -> tuple[dict, dict]:
        return _tuples(self._last["observation"]), copy.deepcopy(self._last["info"])

    def is_terminal(self) -> bool:
        return bool(self._last["terminated"])

    def get_state(self) -> RemoteState:
        return RemoteState(json.dumps(self.client.snapshot(), sort_keys=True))

    def set_state(self, payload: Any) -> None:
        if not isinstance(payload, RemoteState):
            raise SnapshotError("this env runs against a session server (server_url=); restore a snapshot "
                                "taken in remote mode, not an in-process one")
        self._last = self.client.restore(json.loads(payload.json))

    def expert(self) -> ExpertAdvice | None:
        answer = self.client.expert()
        if not answer.get("available"):
            return None
        return ExpertAdvice(plan=tuple(answer["plan"]), value=answer["value"], solvable=bool(answer["solvable"]))

    def close(self) -> None:
        self.client.close()
        self._last = None


class RemoteTasks:
    """The task list of a session server, for a remote env without a local engine (specs are the ids)."""

    def __init__(self, client: SessionClient):
        self.client = client
        self._splits: dict[str, tuple] | None = None
        self.default_split: str | None = None

    def _all(self) -> dict[str, tuple]:
        if self._splits is None:
            answer = self.client.tasks()
            self._splits = {k: tuple(v) for k, v in answer["splits"].items()}
            default = answer.get("default_split")
            self.default_split = default if default in self._splits else None
        return self._splits

    def splits(self) -> Sequence[str]:
        return tuple(self._all())  # (also reads the server's default_split)

    def task_ids(self, split: str) -> Sequence[Any]:
        return self._all()[split]

    def task(self, task_id: Any) -> Any:
        if not any(task_id in ids for ids in self._all().values()):
            raise ValueError(f"task id {task_id!r} is not a task of the server at {self.client.base_url}")
        return task_id
