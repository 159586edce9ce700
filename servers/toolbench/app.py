"""The tool server: the generic session server over the ToolBench engine, plus upstream's routes.

It exposes the env's core and never re-implements it:

* **Sessions** (``/api/...``, :mod:`treegym.servers.sessions`): ToolBench-v0
  episodes over HTTP; variants ``terminal`` and ``hidden`` (the reward modes).
  ``gym.make("treegym/ToolBench-v0", server_url=URL)`` plays through them with
  the same observations as in-process.
* **ToolBench / StableToolBench**: ``POST /rapidapi`` and ``POST /virtual`` with
  upstream's body ``{category, tool_name, api_name, tool_input (JSON text or
  object), strip, toolbench_key}`` -> ``{"error", "response"}`` (HTTP 200, as
  upstream), so unmodified upstream inference code can set
  ``SERVICE_URL=http://127.0.0.1:PORT/virtual``. Names are normalized like
  StableToolBench's ``prepare_tool_name_and_url`` (the tool may carry
  ``_for_{Category}``, the API ``_for_{tool}``); ``strip`` and ``toolbench_key``
  are accepted and ignored; a missing field is HTTP 422 (FastAPI's answer
  upstream). Without ``session_id`` (body field or ``X-Session-Id`` header)
  calls act on one shared world (bookings persist, as on a live service); with
  it the call is a step of that session's episode.
* **URL-chosen worlds** for clients that can set only their URL
  (``url_sessions.py``): ``/s/<session>/rapidapi`` and ``/s/<session>/virtual``
  act on that session's own world; ``POST /s/<session>/reset {task_id}``
  starts it on a task.
* **RestBench** (``rest_routes.py``): ``/rest/tmdb/<path>`` and
  ``/rest/spotify/<path>`` answer as the real services do, on one shared world,
  or on a URL-chosen one under ``/s/<session>/rest/...``;
  ``/rest/<api>/openapi.json`` is RestGPT's spec pointing at this mock.
* **RestBench-v0 / ToolTasks-v0 sessions**: the generic session server mounted
  under ``/restbench`` and ``/tooltasks`` (``server_url="http://HOST:PORT/restbench"``).

Nothing is ``eval``-ed; bind to 127.0.0.1 (the default of ``treegym serve``).
"""
from __future__ import annotations

import json
import threading

from flask import Blueprint, Flask, jsonify, request

from treegym.envs.toolbench.env import shipped_engine
from treegym.servers.session_store import SessionStore
from treegym.servers.sessions import ApiError, create_session_app

from .rest_routes import rest_blueprint
from .url_sessions import upstream_body, url_sessions_blueprint
from treegym.envs.restbench.env import shipped_engine as rest_engine
from treegym.envs.tooltasks.env import shipped_engine as task_engine


def _bad(message: str, status: int = 400):
    return jsonify({"error": message}), status


def create_app(ttl: float = 3600.0, max_sessions: int = 10_000) -> Flask:
    """The tool server app (see the module docstring)."""
    engine = shipped_engine("terminal")
    app = create_session_app({"terminal": engine, "hidden": shipped_engine("hidden")}, ttl=ttl,
                             max_sessions=max_sessions, import_name="treegym-tools",
                             health=lambda: {"apis": len(engine.service.apis)})
    app.json.sort_keys = False
    sessions = app.extensions["sessions"]
    service = engine.service
    shared = {"world": service.initial_world}
    lock = threading.Lock()
    bp = Blueprint("toolbench", __name__)

    def upstream_call():
        body, bad = upstream_body()
        if bad:
            return bad
        sid = body.get("session_id") or request.headers.get("X-Session-Id")
        spec = service.find(str(body["category"]), str(body["tool_name"]), str(body["api_name"]))
        if sid:
            if spec is None:
                return jsonify({"error": "API not working error...",
                                "response": f"no API {body['api_name']!r} in tool {body['tool_name']!r}"})
            action = json.dumps({"name": spec.function_name, "arguments": body["tool_input"]}, ensure_ascii=False)
            try:
                live, _ = sessions.step(str(sid), action)
            except ApiError as exc:
                return _bad(exc.message, exc.status)
            rec = live.state.calls[-1]
            error = rec.error if rec.code != 1 else f"No such function name: {spec.function_name}"
            return jsonify({"error": error, "response": rec.response})
        with lock:
            world, reply = service.call(shared["world"], str(body["category"]), str(body["tool_name"]),
                                        str(body["api_name"]), body["tool_input"])
            shared["world"] = world
        return jsonify(reply)

    bp.add_url_rule("/rapidapi", "rapidapi", upstream_call, methods=["POST"])
    bp.add_url_rule("/virtual", "virtual", upstream_call, methods=["POST"])

    app.register_blueprint(bp)
    app.register_blueprint(url_sessions_blueprint(engine, SessionStore(ttl=ttl, max_sessions=max_sessions)))
    app.register_blueprint(rest_blueprint(SessionStore(ttl=ttl, max_sessions=max_sessions)))
    # RestBench-v0 and ToolTasks-v0 sessions: the same generic session server, mounted under a prefix
    # (their HTTP-mode envs take server_url="http://HOST:PORT/restbench" or ".../tooltasks").
    from werkzeug.middleware.dispatcher import DispatcherMiddleware

    mounts = {"/restbench": create_session_app({"terminal": rest_engine("terminal"), "hidden": rest_engine("hidden")},
                                               ttl=ttl, max_sessions=max_sessions, import_name="treegym-restbench"),
              "/tooltasks": create_session_app({"terminal": task_engine("terminal"), "hidden": task_engine("hidden")},
                                               ttl=ttl, max_sessions=max_sessions, import_name="treegym-tooltasks")}
    app.wsgi_app = DispatcherMiddleware(app.wsgi_app, {k: v.wsgi_app for k, v in mounts.items()})
    return app
