"""The Flask app of the OpenEnv-compatible server: HTTP routes, the WebSocket session, Host/Origin checks."""
from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

from flask import Flask, g, jsonify, request
from werkzeug.exceptions import HTTPException

from treegym.envs.core import jsonsafe
from treegym.servers.guard import allowed_host_set, request_refusal

from .session import DEFAULT_MAX_FORKS, DEFAULT_MAX_SESSIONS, OpenEnvError, OpenEnvService, Session, _treegym_meta

DEFAULT_MAX_CONTENT_LENGTH = 1024 * 1024
WS_IDLE_TIMEOUT = 3600.0  # seconds a WebSocket session may go without a message (the HTTP sessions' ttl)

REFUSAL_GRACE_SECONDS = 5.0  # how long a refused WebSocket waits for its client's first message


def create_openenv_app(env_id: str, env_kwargs: Mapping[str, Any] | None = None, *,
                       max_sessions: int = DEFAULT_MAX_SESSIONS, max_forks: int = DEFAULT_MAX_FORKS,
                       max_content_length: int = DEFAULT_MAX_CONTENT_LENGTH,
                       allowed_hosts: Iterable[str] | None = None, ws_idle_timeout: float = WS_IDLE_TIMEOUT) -> Flask:
    """A Flask app serving ``env_id`` (made with ``env_kwargs``) over OpenEnv's protocol (module docstring).

    Requests with a foreign ``Host`` or ``Origin`` are refused by the guard every treegym server uses
    (``servers/guard.py``: loopback names plus ``allowed_hosts``, default ``$TREEGYM_ALLOWED_HOSTS``),
    answered in OpenEnv's ``{"detail": ...}`` shape, and so are cross-site browser requests. A WebSocket
    session that receives no message for ``ws_idle_timeout`` seconds is sent a ``SESSION_EXPIRED`` error
    and closed, and its env goes back to the pool."""
    try:
        from flask_sock import Sock
    except ImportError as exc:
        raise ImportError(f"the OpenEnv server needs flask-sock: pip install 'treegym[openenv]' ({exc})") from None
    service = OpenEnvService(env_id, env_kwargs, max_sessions=max_sessions, max_forks=max_forks)
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = int(max_content_length)
    app.config["SOCK_SERVER_OPTIONS"] = {"max_message_size": int(max_content_length)}
    app.extensions["openenv"] = service
    sock = Sock(app)

    def body() -> dict[str, Any]:
        raw = request.get_data(cache=True)
        try:  # JSON whatever the Content-Type says (curl -d sends a form type)
            data = jsonsafe.loads(raw) if raw.strip() else {}
        except ValueError:  # not JSON, or nested too deeply to walk safely
            data = None
        if not isinstance(data, dict):
            raise OpenEnvError(f"the request body must be a JSON object (got {raw[:60]!r})", 422)
        return data

    allowed = allowed_host_set(allowed_hosts)

    @app.before_request
    def _refuse_foreign_hosts():
        why = request_refusal(request.headers, allowed)
        return (jsonify(detail=why), 403) if why is not None else None

    @app.before_request
    def _claim_a_websocket_place():
        # Claimed before the handshake is answered: a client whose connect() returned holds a place (or is
        # told CAPACITY_REACHED at its first message), so places go in the order the connects completed.
        if request.url_rule is not None and request.url_rule.rule == "/ws":
            try:
                g.openenv_session = service.acquire(counted=True)
            except OpenEnvError as exc:
                g.openenv_refusal = exc

    @app.teardown_request
    def _free_an_unused_place(_exc: BaseException | None):
        session = g.pop("openenv_session", None)  # still here only when the handshake failed
        if session is not None:
            service.release(session, counted=True)

    def _refused(exc: OpenEnvError | HTTPException):
        if isinstance(exc, OpenEnvError):
            return jsonify(detail=exc.message), exc.status
        return jsonify(detail=exc.description or exc.name), exc.code

    for error_kind in (OpenEnvError, HTTPException):  # FastAPI's shape: {"detail": ...}
        app.register_error_handler(error_kind, _refused)

    @app.get("/health")
    def health():
        return jsonify(status="healthy", env_id=env_id, sessions=service.sessions, forks=len(service.forks))

    @app.get("/metadata")
    def metadata():
        return jsonify(service.metadata())

    @app.get("/schema")
    def schema():
        return jsonify(service.schema())

    @app.get("/state")
    def state():
        return jsonify(Session(service, None).state())

    def one_request(fn):
        session = service.acquire(counted=False)
        try:
            return jsonify(fn(session))
        finally:
            service.release(session)

    @app.post("/reset")
    def reset():
        data = body()
        return one_request(lambda s: s.reset(data, always_fork=True))

    @app.post("/step")
    def step():
        data = body()
        action = data.get("action")
        if not _treegym_meta(action.get("metadata") if isinstance(action, Mapping) else None).get("restore"):
            raise OpenEnvError("HTTP /step is stateless (as in OpenEnv): give action.metadata.treegym.restore = the "
                               "fork token of the previous /reset or /step answer, or play over the WebSocket /ws")
        return one_request(lambda s: s.step(action, always_fork=True))

    @sock.route("/ws")
    def ws_session(ws):
        if getattr(ws, "sock", None) is not None:
            ws.sock.settimeout(None)  # the HTTP read timeout is for requests; idleness is timed below
        refusal = g.pop("openenv_refusal", None)
        if refusal is not None:
            ws.send(_ws_error(refusal))
            # closing at once would fail the client's first send, hiding why; a client that sends nothing holds the
            # thread for a few seconds at most, not for the idle timeout (refused clients are not counted)
            ws.receive(timeout=min(ws_idle_timeout, REFUSAL_GRACE_SECONDS))
            return
        session = g.pop("openenv_session")
        try:
            while True:
                raw = ws.receive(timeout=ws_idle_timeout)
                if raw is None:  # idle too long (or closed): expire the session like the HTTP ones
                    if ws.connected:
                        ws.send(_ws_error(OpenEnvError(f"session expired after {ws_idle_timeout:g} s without a "
                                                       "message; open a new WebSocket", code="SESSION_EXPIRED")))
                        ws.close(reason=1000, message="session expired: idle")
                    return
                try:
                    message = jsonsafe.loads(raw)
                except ValueError as exc:
                    ws.send(_ws_error(OpenEnvError(f"Invalid JSON: {exc}", code="INVALID_JSON")))
                    continue
                kind = message.get("type") if isinstance(message, dict) else None
                if kind == "close":
                    return
                try:
                    data = message.get("data", {})
                    if kind == "reset":
                        out = {"type": "observation", "data": session.reset(data or {})}
                    elif kind == "step":
                        out = {"type": "observation", "data": session.step(data)}
                    elif kind == "state":
                        out = {"type": "state", "data": session.state()}
                    else:
                        raise OpenEnvError(f"Unknown message type: {kind!r} (reset, step, state, close)",
                                           code="UNKNOWN_TYPE")
                except OpenEnvError as exc:
                    out = json.loads(_ws_error(exc))
                except Exception as exc:  # broken infrastructure: say so and keep the session
                    app.logger.exception("OpenEnv session error")
                    out = json.loads(_ws_error(OpenEnvError(f"{type(exc).__name__}: {exc}", 500, "EXECUTION_ERROR")))
                ws.send(json.dumps(out))
        finally:
            service.release(session, counted=True)

    return app


def _ws_error(exc: OpenEnvError) -> str:
    return json.dumps({"type": "error", "data": {"message": exc.message, "code": exc.code}})
