"""URL-chosen worlds for upstream ToolBench / StableToolBench clients: ``/s/<session>/rapidapi`` and ``/s/<session>/virtual``.

Upstream clients can set only their service URL (ToolBench's
``rapidapi_wrapper.service_url``, StableToolBench's ``SERVICE_URL``), so the
session rides in the URL. Every ``<session>`` (1-64 letters, digits, ``-`` or
``_``, chosen by the client) names its own world: the calls of one never see
the bookings, wallet or calendar of another, nor the shared world of the plain
``/rapidapi`` route. Routes::

    POST   /s/<session>/rapidapi | /virtual   upstream's body -> {"error", "response"} (HTTP 200, as upstream)
    POST   /s/<session>/reset                 {task_id?} (or ?task_id=) -> the world at the start of that task
    GET    /s/<session>                       -> {session, task_id, query, calls, world}
    DELETE /s/<session>                       -> {closed}

A session that does not exist yet is made by its first call, on the shipped
initial world (no task); ``reset`` starts it on a task (the task's initial
world) or again from the start. A call answers exactly what the in-process
env's call answers from the same world (both run ``ToolService.call_spec``).
Sessions expire after the server's ``ttl`` unused, like ``/api/sessions``.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from flask import Blueprint, jsonify, request

from treegym.envs.core import jsonsafe
from treegym.envs.toolbench.engine import ToolBenchEngine
from treegym.envs.tools_common.world import WorldState
from treegym.servers.session_store import SESSION_ID_RE, SessionStore, StoreFull

UPSTREAM_FIELDS = ("category", "tool_name", "api_name", "tool_input")


@dataclass(frozen=True)
class UrlWorld:
    """One URL-chosen session: the task it started on (None: none), its world, and how many calls it answered."""

    task_id: Any
    world: WorldState
    calls: int = 0


def _error(message: str, status: int):
    return jsonify({"error": message}), status


def upstream_body() -> tuple[dict | None, Any]:
    """Upstream's request body ``{category, tool_name, api_name, tool_input, ...}``, or (None, an HTTP 422 answer)."""
    try:
        body = jsonsafe.loads(request.get_data(cache=True))
    except ValueError:  # not JSON, or nested too deeply to walk safely
        body = None
    if not isinstance(body, dict):
        return None, _error("the body must be a JSON object with category, tool_name, api_name, tool_input", 422)
    missing = [f for f in UPSTREAM_FIELDS if f not in body]
    if missing:
        return None, _error(f"missing field(s): {', '.join(missing)}", 422)
    return body, None


def url_sessions_blueprint(engine: ToolBenchEngine, store: SessionStore) -> Blueprint:
    """The ``/s/<session>/...`` routes over ``engine``'s tool service, sessions kept in ``store``."""
    service = engine.service
    bp = Blueprint("toolbench_url_sessions", __name__)

    def check(name: str):
        if not SESSION_ID_RE.match(name):
            return _error(f"bad session name {name[:70]!r}: use 1-64 letters, digits, '-' or '_' "
                          "(e.g. /s/worker-3/virtual)", 404)
        return None

    def start(task_id: Any) -> UrlWorld:
        if task_id is None:
            return UrlWorld(None, service.initial_world)
        tid = engine.task(task_id)  # ValueError names the ids that exist
        return UrlWorld(tid, engine.view(tid).initial_world)

    def call(name: str):
        bad = check(name)
        if bad:
            return bad
        body, bad = upstream_body()
        if bad:
            return bad
        try:
            store.put(name, start(None), replace=False)
        except StoreFull as exc:
            return _error(str(exc), 503)

        def apply(old: UrlWorld):
            world, reply = service.call(old.world, str(body["category"]), str(body["tool_name"]),
                                        str(body["api_name"]), body["tool_input"])
            return replace(old, world=world, calls=old.calls + 1), reply

        try:
            reply = store.update(name, apply)
        except KeyError:
            return _error(f"session {name!r} was closed while this call ran", 404)
        return jsonify(reply)

    bp.add_url_rule("/s/<name>/rapidapi", "rapidapi", call, methods=["POST"])
    bp.add_url_rule("/s/<name>/virtual", "virtual", call, methods=["POST"])

    @bp.post("/s/<name>/reset")
    def reset(name: str):
        bad = check(name)
        if bad:
            return bad
        raw = request.get_data(cache=True)
        try:
            data = jsonsafe.loads(raw) if raw.strip() else {}
        except ValueError:
            data = None
        if not isinstance(data, dict):
            return _error('the reset body must be a JSON object such as {"task_id": 12} (or empty)', 400)
        task_id = data.get("task_id", request.args.get("task_id"))
        try:
            live = start(task_id)
            store.put(name, live)
        except ValueError as exc:
            return _error(f"bad task_id {task_id!r}: {exc}", 400)
        except StoreFull as exc:
            return _error(str(exc), 503)
        return jsonify(describe(name, live))

    @bp.get("/s/<name>")
    def show(name: str):
        bad = check(name)
        if bad:
            return bad
        try:
            live = store.get(name)
        except KeyError:
            return _error(f"no session {name!r} (never used, closed, or expired after {int(store.ttl)} s unused); "
                          f"its first call to /s/{name}/virtual makes it, POST /s/{name}/reset starts it on a task", 404)
        return jsonify(describe(name, live, world=live.world.to_json()))

    @bp.delete("/s/<name>")
    def close(name: str):
        bad = check(name)
        if bad:
            return bad
        if not store.delete(name):
            return _error(f"no session {name!r}", 404)
        return jsonify(closed=name)

    def describe(name: str, live: UrlWorld, **extra: Any) -> dict[str, Any]:
        query = engine.tasks[live.task_id]["query"] if live.task_id is not None else None
        return dict({"session": name, "task_id": live.task_id, "query": query, "calls": live.calls}, **extra)

    return bp
