"""The client of the generic session server (``treegym.servers.sessions``): one session over HTTP.

:class:`SessionClient` owns at most one session on the server at ``base_url``
and speaks its JSON API (create, reset, step, snapshot, restore, fork, expert,
close, and the task list). Only the standard library is used, so an env's
remote mode needs no server-side packages. Every session call returns the
server's JSON answer (``observation``, ``info``, ``terminated``, and ``reward``
after a step).

Failures are infrastructure errors and raise :class:`SessionServerError` with
the URL, the status and what to do (start the server, check the port, the
session expired).
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

DEFAULT_TIMEOUT = 60.0  # seconds per request


class SessionServerError(RuntimeError):
    """The session server could not be reached or refused a request (the message says why)."""


class SessionClient:
    """One session on the server at ``base_url`` (e.g. ``http://127.0.0.1:3000``).

    ``variant`` picks one of the server's engines (None: its default);
    ``start_hint`` is the command that starts the server, quoted when it cannot be reached.
    """

    def __init__(self, base_url: str, variant: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                 start_hint: str = "start the session server"):
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError(f"server_url must be an http:// or https:// URL, got {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.variant = variant
        self.timeout = timeout
        self.start_hint = start_hint
        self.session_id: str | None = None

    # ------------------------------------------------------------------ transport
    def request(self, method: str, path: str, body: Any = None) -> Any:
        """One JSON request; the decoded answer, or :class:`SessionServerError`."""
        url = self.base_url + path
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(url, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode("utf-8", "replace")
            try:
                detail = json.loads(detail).get("error", detail)
            except (ValueError, AttributeError):
                pass
            hint = ""
            if exc.code == 404 and self.session_id:
                hint = " (the session may have expired: sessions are freed after the server's TTL; reset the env)"
            raise SessionServerError(f"{method} {url} failed with HTTP {exc.code}: {detail}{hint}") from None
        except (urllib.error.URLError, OSError) as exc:
            raise SessionServerError(
                f"cannot reach the session server at {self.base_url} ({exc}); {self.start_hint} "
                "and pass its URL as server_url='http://127.0.0.1:PORT'") from None
        try:
            return json.loads(raw)
        except ValueError:
            raise SessionServerError(f"{method} {url} did not return JSON; is {self.base_url} a treegym "
                                     "session server?") from None

    def _sid(self) -> str:
        if self.session_id is None:
            raise SessionServerError("no session on the server yet: reset the env first")
        return self.session_id

    # ------------------------------------------------------------------ tasks
    def splits(self) -> dict[str, list]:
        """``{split: [task ids]}`` of the server's engine."""
        return self.tasks()["splits"]

    def tasks(self) -> dict[str, Any]:
        """``{"splits": {split: [task ids]}, "default_split": name or None}`` of the server's engine."""
        return self.request("GET", "/api/tasks")

    # ------------------------------------------------------------------ the session
    def start(self, task_id: Any, seed: int | None = None) -> dict:
        """Start (or restart) the session on ``task_id``."""
        body = {"task_id": task_id, "seed": seed}
        if self.session_id is None:
            if self.variant is not None:
                body["variant"] = self.variant
            answer = self.request("POST", "/api/sessions", body)
            self.session_id = answer["session_id"]
            return answer
        return self.request("POST", f"/api/sessions/{self.session_id}/reset", body)

    def step(self, action: str) -> dict:
        return self.request("POST", f"/api/sessions/{self._sid()}/step", {"action": action})

    def snapshot(self) -> Any:
        """The session's state as the engine's ``state_to_json`` gives it."""
        return self.request("POST", f"/api/sessions/{self._sid()}/snapshot")["state"]

    def restore(self, state: Any) -> dict:
        """Make ``state`` (from :meth:`snapshot`) the session's state; creates the session if needed."""
        if self.session_id is None:
            body = {"state": state}
            if self.variant is not None:
                body["variant"] = self.variant
            answer = self.request("POST", "/api/sessions", body)
            self.session_id = answer["session_id"]
            return answer
        return self.request("POST", f"/api/sessions/{self.session_id}/restore", {"state": state})

    def fork(self) -> "SessionClient":
        """A client of a new session on the server in this session's state (no state crosses the wire)."""
        answer = self.request("POST", f"/api/sessions/{self._sid()}/fork")
        twin = SessionClient(self.base_url, self.variant, self.timeout, self.start_hint)
        twin.session_id = answer["session_id"]
        return twin

    def expert(self) -> dict:
        """``{available, action, plan, value, solvable}`` from the engine's expert."""
        return self.request("GET", f"/api/sessions/{self._sid()}/expert")

    def close(self) -> None:
        """Free the session on the server (quietly: the server may already be gone)."""
        if self.session_id is None:
            return
        try:
            self.request("DELETE", f"/api/sessions/{self.session_id}")
        except SessionServerError:
            pass
        self.session_id = None
