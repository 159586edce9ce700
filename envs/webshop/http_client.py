"""HTTP mode: one shopping session on a running WebShop site (``treegym serve webshop``).

:class:`WebShopSiteClient` owns one session on the site and speaks its JSON API
(``servers/webshop``): create / reset / step / snapshot / restore / close, plus
``GET /s/<id>`` for the page a browser would show, whose HTML the env parses
with BeautifulSoup (``render.parse_html``). Only the standard library is used
for HTTP. Every call returns the site's JSON answer plus ``html`` (the current
page), ``info`` and ``instruction``.

Failures are infrastructure errors and raise :class:`WebShopSiteError` with
the URL, the status and what to do (start the site, check the port, the
session expired).
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

DEFAULT_TIMEOUT = 30.0  # seconds per request


class WebShopSiteError(RuntimeError):
    """The WebShop site could not be reached or refused a request (the message says why)."""


class WebShopSiteClient:
    """One session on the site at ``base_url`` (e.g. ``http://127.0.0.1:3000``)."""

    def __init__(self, base_url: str, timeout: float = DEFAULT_TIMEOUT):
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError(f"server_url must be an http:// or https:// URL, got {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.session_id: str | None = None

    # ------------------------------------------------------------------ transport
    def _request(self, method: str, path: str, body: Any = None, want_json: bool = True) -> Any:
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
            except ValueError:
                pass
            hint = ""
            if exc.code == 404 and self.session_id:
                hint = " (the session may have expired: sessions are freed after the site's TTL; reset the env)"
            raise WebShopSiteError(f"{method} {url} failed with HTTP {exc.code}: {detail}{hint}") from None
        except (urllib.error.URLError, OSError) as exc:
            raise WebShopSiteError(
                f"cannot reach the WebShop site at {self.base_url} ({exc}); start it with "
                "`treegym serve webshop --port PORT` and pass server_url='http://127.0.0.1:PORT'") from None
        if not want_json:
            return raw.decode("utf-8")
        try:
            return json.loads(raw)
        except ValueError:
            raise WebShopSiteError(f"{method} {url} did not return JSON; is {self.base_url} a treegym WebShop site?") from None

    def _with_page(self, answer: dict) -> dict:
        answer = dict(answer)
        answer["html"] = self.page_html()
        return answer

    # ------------------------------------------------------------------ session API
    def reset(self, goal_index: int) -> dict:
        """Start (or restart) the session on goal ``goal_index``."""
        if self.session_id is None:
            answer = self._request("POST", "/api/sessions", {"goal_index": goal_index})
            self.session_id = answer["session_id"]
        else:
            answer = self._request("POST", f"/api/sessions/{self.session_id}/reset", {"goal_index": goal_index})
        return self._with_page(answer)

    def _sid(self) -> str:
        if self.session_id is None:
            raise WebShopSiteError("no session on the site yet: call reset() first")
        return self.session_id

    def step(self, action: str) -> dict:
        """Apply ``action``; the answer has ``reward``, ``done``, ``info``, ``instruction``, ``html``."""
        return self._with_page(self._request("POST", f"/api/sessions/{self._sid()}/step", {"action": action}))

    def page_html(self) -> str:
        """The session's current page as a browser gets it."""
        return self._request("GET", f"/s/{self._sid()}", want_json=False)

    def snapshot(self) -> dict:
        """The session record (plain JSON), as the site copies it."""
        return self._request("POST", f"/api/sessions/{self._sid()}/snapshot")["state"]

    def restore(self, state: dict) -> dict:
        """Make ``state`` (from :meth:`snapshot`) this session's state; creates the session if needed."""
        if self.session_id is None:
            answer = self._request("POST", "/api/sessions", {"state": state})
            self.session_id = answer["session_id"]
        else:
            answer = self._request("POST", f"/api/sessions/{self.session_id}/restore", {"state": state})
        return self._with_page(answer)

    def expert_action(self) -> str | None:
        return self._request("GET", f"/api/sessions/{self._sid()}/expert")["action"]

    def close(self) -> None:
        """Free the session on the site (quietly: the site may already be gone)."""
        if self.session_id is None:
            return
        try:
            self._request("DELETE", f"/api/sessions/{self.session_id}")
        except WebShopSiteError:
            pass
        self.session_id = None
