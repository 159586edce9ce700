"""The RestBench mocks over HTTP, as RestGPT calls the real services: ``/rest/tmdb/...`` and ``/rest/spotify/...``.

RestGPT builds every URL from its spec's ``servers[0].url``, so that URL is the
one setting a user changes. Routes::

    GET|POST|PUT|DELETE /rest/<api>/<path>            one shared world (as a live account)
    GET|POST|PUT|DELETE /s/<session>/rest/<api>/<path> the world of URL-chosen ``<session>`` (made on first use)
    GET    /rest/<api>/openapi.json                    RestGPT's spec with servers = this mock
    GET    /s/<session>/rest/<api>/openapi.json        the same, servers = that session's mock
    DELETE /s/<session>/rest                           forget the session (its next call starts afresh)

``<api>`` is ``tmdb`` or ``spotify``. Query parameters and a JSON (or form)
body are the call's arguments; answers carry the real APIs' status codes
(204 with an empty body where Spotify sends none) and error shapes. Calls run
the env's engine core (``envs/restbench/api.py``): the same answers as
RestBench-v0 in-process. ``Authorization`` is accepted and ignored.
"""
from __future__ import annotations

import threading
from typing import Any

from flask import Blueprint, Response, jsonify, request

from treegym.envs.core import jsonsafe
from treegym.envs.restbench.api import APIS, call, route_error
from treegym.envs.restbench.env import shipped_engine
from treegym.envs.restbench.spec import published
from treegym.envs.tools_common.world import Tx
from treegym.servers.session_store import SESSION_ID_RE, SessionStore, StoreFull

METHODS = ["GET", "POST", "PUT", "DELETE"]


def rest_blueprint(store: SessionStore) -> Blueprint:
    """The routes above; URL-chosen worlds are kept in ``store`` (key ``<session>``: {api: world})."""
    bp = Blueprint("restbench_mocks", __name__)
    engine = shipped_engine()
    shared: dict[str, Any] = {}
    shared_lock = threading.Lock()

    def args() -> dict[str, Any]:
        out: dict[str, Any] = dict(request.args)
        raw = request.get_data(cache=True)
        body = None
        if raw.strip():
            try:
                body = jsonsafe.loads(raw)
            except ValueError:
                body = dict(request.form) or None
        if isinstance(body, dict):
            out.update(body)
        return out

    def answer(status: int, payload: Any):
        if status == 204 or payload is None:
            return Response(status=status)
        return jsonify(payload), status

    def run(api: str, path: str, world: Any) -> tuple[Any, int, Any]:
        """(new world or None when unchanged, status, body) of this request on ``world``."""
        endpoint, params, known = engine.routers[api].match(request.method, "/" + path)
        if endpoint is None:
            return None, *route_error(api, request.method, "/" + path, known)
        tx = Tx(world)
        status, payload = call(engine.data, tx, endpoint, params, args(), "/" + path)
        return (tx.commit() if status < 400 else None), status, payload

    def bad_api(api: str):
        return jsonify(error=f"unknown API {api!r}; use /rest/tmdb/... or /rest/spotify/..."), 404

    @bp.route("/rest/<api>/<path:path>", methods=METHODS)
    def rest(api: str, path: str):
        if api not in APIS:
            return bad_api(api)
        if path == "openapi.json" and request.method == "GET":
            return jsonify(published(api, request.host_url + f"rest/{api}"))
        with shared_lock:
            world, status, payload = run(api, path, shared.get(api, engine.initial_world))
            if world is not None:
                shared[api] = world
        return answer(status, payload)

    @bp.route("/s/<name>/rest/<api>/<path:path>", methods=METHODS)
    def session_rest(name: str, api: str, path: str):
        if not SESSION_ID_RE.match(name):
            return jsonify(error=f"bad session name {name[:70]!r}: use 1-64 letters, digits, '-' or '_'"), 404
        if api not in APIS:
            return bad_api(api)
        if path == "openapi.json" and request.method == "GET":
            return jsonify(published(api, request.host_url + f"s/{name}/rest/{api}"))
        try:
            store.put(name, {}, replace=False)
        except StoreFull as exc:
            return jsonify(error=str(exc)), 503

        def apply(worlds: dict):
            world, status, payload = run(api, path, worlds.get(api, engine.initial_world))
            return (dict(worlds, **{api: world}) if world is not None else worlds), (status, payload)

        try:
            status, payload = store.update(name, apply)
        except KeyError:
            return jsonify(error=f"session {name!r} was closed while this call ran"), 404
        return answer(status, payload)

    @bp.delete("/s/<name>/rest")
    def forget(name: str):
        if not SESSION_ID_RE.match(name) or not store.delete(name):
            return jsonify(error=f"no REST session {name[:70]!r}"), 404
        return jsonify(closed=name)

    return bp
