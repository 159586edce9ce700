"""The WebShop site: Flask app factory over the shared engine (never a second implementation).

``create_app(catalog=None, ...)`` serves one catalog (a :class:`Catalog`, a
catalog directory, or None for the shipped default) to many concurrent sessions.

Pages for people (plain HTML forms, inline CSS)::

    GET  /                       start page: pick a task number or a random one
    POST /start                  form ``goal`` (optional) -> 303 to /s/<id>
    GET  /s/<id>                 the session's current page
    POST /s/<id>/search          form ``q``      = search[q]      -> 303 to /s/<id>
    POST /s/<id>/click           form ``target`` = click[target]  -> 303 to /s/<id>

JSON API (what the env's HTTP mode and scripts use)::

    POST   /api/sessions             {"goal_index": i} | {"split": s} | {"state": record} -> 201
    POST   /api/sessions/<id>/reset  {"goal_index": i}  (optional: same goal again)
    POST   /api/sessions/<id>/step   {"action": "click[Buy Now]"} -> reward, done, info
    GET    /api/sessions/<id>        state, info, instruction, observation (text)
    POST   /api/sessions/<id>/snapshot             -> {"state": record}
    POST   /api/sessions/<id>/restore {"state": record}
    GET    /api/sessions/<id>/expert               -> {"action": gold-path action or null}
    DELETE /api/sessions/<id>
    GET    /api/health

Errors are JSON ``{"error": "..."}``: unknown or expired session 404, malformed
request 400, body over ``max_content_length`` 413, too many sessions 503.
Sessions are freed on DELETE or after ``ttl`` seconds unused.
"""
from __future__ import annotations

import json
import os
import random
from typing import Any

from flask import Flask, jsonify, redirect, request
from werkzeug.exceptions import HTTPException

from treegym.envs.webshop.catalog import Catalog, load_catalog, load_default_catalog
from treegym.envs.webshop.engine import Session, WebShopEngine
from treegym.envs.webshop.render import render_html, render_text

from .store import SESSION_ID_RE, SessionStore, StoreFull

DEFAULT_TTL = 3600.0
DEFAULT_MAX_SESSIONS = 10_000
DEFAULT_MAX_CONTENT_LENGTH = 64 * 1024  # bytes; an action or a session record, never more


class ApiError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


def create_app(catalog: Catalog | str | os.PathLike | None = None, *, ttl: float = DEFAULT_TTL,
               max_sessions: int = DEFAULT_MAX_SESSIONS,
               max_content_length: int = DEFAULT_MAX_CONTENT_LENGTH) -> Flask:
    """A Flask app serving ``catalog`` (see the module docstring)."""
    if catalog is None:
        catalog = load_default_catalog()
    elif not isinstance(catalog, Catalog):
        catalog = load_catalog(catalog)
    engine = WebShopEngine(catalog)
    store = SessionStore(ttl=ttl, max_sessions=max_sessions)
    rng = random.Random()

    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = int(max_content_length)
    app.extensions["webshop"] = {"engine": engine, "store": store}

    # ------------------------------------------------------------------ helpers
    def session_or_404(sid: str) -> Session:
        if not SESSION_ID_RE.match(sid):
            raise ApiError(404, f"no session {sid[:70]!r}: session ids are 1-64 letters, digits, '-' or '_'")
        try:
            return store.get(sid)
        except KeyError:
            raise ApiError(404, f"no session {sid!r} (never created, closed, or expired after {int(ttl)} s unused); "
                                "create one with POST /api/sessions or start at /") from None

    def update_or_404(sid: str, fn: Any) -> Any:
        """``store.update`` that answers 404 when the session went away meanwhile (closed, expired)."""
        try:
            return store.update(sid, fn)
        except KeyError:
            raise ApiError(404, f"no session {sid!r} (closed or expired while this request ran)") from None

    def body() -> dict[str, Any]:
        # The raw body whatever the Content-Type says: clients that send JSON without
        # a header (curl -d, urllib) are labelled form-urlencoded, and their JSON must
        # not be dropped (that would silently start a session for a random goal).
        raw = request.get_data(cache=True)
        if not raw.strip():
            return {}
        try:
            data = json.loads(raw)
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise ApiError(400, "the request body must be a JSON object, e.g. {\"action\": \"search[red shoes]\"} "
                                f"(got {raw[:60]!r}; send it with Content-Type: application/json)")
        return data

    def goal_from(data: dict[str, Any]) -> int:
        if "goal_index" in data:
            gi = data["goal_index"]
            if not isinstance(gi, int) or isinstance(gi, bool) or not 0 <= gi < len(catalog.goals):
                raise ApiError(400, f"goal_index must be an integer in 0..{len(catalog.goals) - 1}, got {gi!r}")
            return gi
        split = data.get("split", "test")
        try:
            pool = catalog.split(str(split))
        except KeyError as exc:
            raise ApiError(400, str(exc.args[0])) from None
        if not len(pool):
            raise ApiError(400, f"split {split!r} has no goals")
        return pool[rng.randrange(len(pool))]

    def state_from(data: dict[str, Any]) -> Session:
        try:
            return engine.session_from_json(data.get("state"))
        except ValueError as exc:
            raise ApiError(400, f"bad session state: {exc}") from None

    def describe(s: Session, **extra: Any) -> dict[str, Any]:
        out = {"instruction": engine.instruction(s), "info": engine.info(s), "done": s.done,
               "reward": 0.0}
        out.update(extra)
        return out

    def create(session: Session) -> str:
        try:
            return store.create(session)
        except StoreFull as exc:
            raise ApiError(503, str(exc)) from None

    # ------------------------------------------------------------------ errors
    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError):
        return jsonify(error=exc.message), exc.status

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        message = exc.description or exc.name
        if exc.code == 413:
            message = (f"request body too large (limit {app.config['MAX_CONTENT_LENGTH']} bytes); "
                       "send one action or one session record per request")
        return jsonify(error=message), exc.code

    # ------------------------------------------------------------------ JSON API
    @app.get("/api/health")
    def health():
        return jsonify(status="ok", sessions=len(store), catalog=repr(catalog), goals=len(catalog.goals))

    @app.post("/api/sessions")
    def api_create():
        data = body()
        s = state_from(data) if "state" in data else engine.new_session(goal_from(data))
        sid = create(s)
        return jsonify(describe(s, session_id=sid)), 201

    @app.post("/api/sessions/<sid>/reset")
    def api_reset(sid: str):
        data = body()
        old = session_or_404(sid)
        gi = goal_from(data) if ("goal_index" in data or "split" in data) else old.goal_index
        fresh = engine.new_session(gi)
        update_or_404(sid, lambda _s: (fresh, None))
        return jsonify(describe(fresh, session_id=sid))

    @app.post("/api/sessions/<sid>/step")
    def api_step(sid: str):
        data = body()
        session_or_404(sid)
        action = data.get("action")
        if not isinstance(action, str):
            raise ApiError(400, "step needs {\"action\": \"search[...]\" or \"click[...]\"} with a string action")

        def apply(old: Session) -> tuple[Session, tuple[Session, float]]:
            new, reward = engine.step(old, action)
            return new, (new, reward)

        s, reward = update_or_404(sid, apply)
        return jsonify(describe(s, reward=reward))

    @app.get("/api/sessions/<sid>")
    def api_get(sid: str):
        s = session_or_404(sid)
        return jsonify(describe(s, state=s.to_json(), observation=render_text(engine.page_nodes(s))))

    @app.post("/api/sessions/<sid>/snapshot")
    def api_snapshot(sid: str):
        return jsonify(state=session_or_404(sid).to_json())

    @app.post("/api/sessions/<sid>/restore")
    def api_restore(sid: str):
        data = body()
        session_or_404(sid)
        s = state_from(data)
        update_or_404(sid, lambda _old: (s, None))
        return jsonify(describe(s))

    @app.get("/api/sessions/<sid>/expert")
    def api_expert(sid: str):
        return jsonify(action=engine.expert_action(session_or_404(sid)))

    @app.delete("/api/sessions/<sid>")
    def api_close(sid: str):
        session_or_404(sid)
        store.delete(sid)
        return jsonify(closed=sid)

    # ------------------------------------------------------------------ pages
    @app.get("/")
    def index():
        n = len(catalog.goals)
        return (
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>WebShop</title>"
            "<style>body{font:16px system-ui,sans-serif;max-width:640px;margin:60px auto;padding:0 20px}"
            "input,button{font-size:16px;padding:6px 10px}</style></head><body>"
            "<h1>WebShop</h1><p>Each visit is one shopping task: read the instruction, search, "
            "choose a product and its options, and buy it. You get a score between 0 and 1.</p>"
            "<form method=\"post\" action=\"/start\"><label>Task number (0&ndash;"
            f"{n - 1}, empty for a random test task) <input name=\"goal\" inputmode=\"numeric\" size=\"6\"></label> "
            "<button type=\"submit\">Start shopping</button></form></body></html>"
        )

    @app.post("/start")
    def start():
        raw = (request.form.get("goal") or "").strip()
        data: dict[str, Any] = {}
        if raw:
            if not raw.isdigit():
                raise ApiError(400, f"task number must be a whole number in 0..{len(catalog.goals) - 1}, got {raw[:40]!r}")
            data["goal_index"] = int(raw)
        sid = create(engine.new_session(goal_from(data)))
        return redirect(f"/s/{sid}", code=303)

    @app.get("/s/<sid>")
    def page(sid: str):
        s = session_or_404(sid)
        html = render_html(engine.page_nodes(s), base=f"/s/{sid}", page=s.page)
        return html, 200, {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"}

    def act(sid: str, action: str):
        session_or_404(sid)
        update_or_404(sid, lambda old: engine.step(old, action))
        return redirect(f"/s/{sid}", code=303)

    @app.post("/s/<sid>/search")
    def page_search(sid: str):
        return act(sid, f"search[{request.form.get('q', '')}]")

    @app.post("/s/<sid>/click")
    def page_click(sid: str):
        return act(sid, f"click[{request.form.get('target', '')}]")

    return app
