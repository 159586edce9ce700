"""The generic session server: any :class:`~treegym.envs.core.contract.Engine` over HTTP (Flask).

One server per env family, one piece of code for all of them: the server holds
live sessions (an engine state each) and answers with what the engine says, so
an :class:`~treegym.envs.core.engine_env.EngineEnv` with ``server_url=`` sees
exactly the observations, rewards and infos it would see in-process.

Serving an engine::

    from treegym.servers.sessions import create_session_app
    from treegym.servers.run import serve_in_thread

    app = create_session_app(MyEngine())                       # or {"variant": engine, ...}
    with serve_in_thread(app) as srv:                          # 127.0.0.1, a free port
        env = MyEnv(server_url=srv.url)                        # an EngineEnv subclass

``engines`` is one engine or a mapping ``variant name -> engine`` (engines that
differ only in how they observe, e.g. WebShop's ``text`` / ``text_rich`` /
``html``; they must share task ids and state JSON). A client picks one with
``"variant"`` when it creates a session (default: the first).

JSON API (bodies and answers are JSON objects)::

    GET    /api/health                   -> {status, sessions, variants, ...extra}
    GET    /api/tasks                    -> {splits: {split: [task ids]}, default_split}
    POST   /api/sessions                 {task_id | split | state, seed?, variant?} -> 201 {session_id, ...}
    POST   /api/sessions/<id>/reset      {task_id? | split?, seed?}   (default: the same task again)
    POST   /api/sessions/<id>/step       {action: str}   -> {observation, info, reward, terminated, truncated}
    GET    /api/sessions/<id>            -> {state, task_id, variant, observation, info, terminated}
    POST   /api/sessions/<id>/snapshot   -> {state}                   (the engine's state_to_json)
    POST   /api/sessions/<id>/restore    {state}                      (validated by state_from_json)
    POST   /api/sessions/<id>/fork       -> 201 {session_id, ...}     (a new session in the same state)
    GET    /api/sessions/<id>/expert     -> {available, action, plan, value, solvable}  (opt-in, else 403)
    DELETE /api/sessions/<id>            -> {closed: id}

Session answers carry ``observation``, ``info`` and ``terminated`` (the
engine's ``observe`` and ``is_terminal`` of the new state); ``step`` adds
``reward`` and ``truncated`` (``StepResult.truncated``: only engines wrapping an env with its
own step limit set it). ``split`` picks a random task of that split; neither ``task_id``
nor ``split`` a random task of the first split.

Errors are JSON ``{"error": "..."}`` saying what to do: unknown or expired
session 404, malformed request or state 400, body over ``max_content_length``
413, too many sessions 503, an engine failure 500. Sessions are freed on DELETE
or after ``ttl`` seconds unused (store: ``servers/session_store.py``).
Serve on 127.0.0.1 (``servers/run.py`` does by default): the API has no
authentication. Requests with a foreign ``Host`` or ``Origin`` header get 403
(``servers/guard.py``), and ``/expert`` answers only on a server started with
``serve_expert=True`` / ``treegym serve --expert``.

Sites that add pages for people (WebShop) call :func:`create_session_app` and
register their routes on the returned app, using its :class:`SessionService`
(``app.extensions["sessions"]``) to create, read and step sessions.
"""
from __future__ import annotations

import json
import os
import random
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from treegym.envs.core import jsonsafe
from treegym.envs.core.contract import Engine, StepResult

from .guard import install_guard
from .session_store import SESSION_ID_RE, SessionStore, StoreFull

DEFAULT_TTL = 3600.0                        # seconds a session may stay unused
DEFAULT_MAX_SESSIONS = 10_000
DEFAULT_MAX_CONTENT_LENGTH = 64 * 1024      # bytes; an action or a state record, never more
EXPERT_ENV = "TREEGYM_SERVE_EXPERT"


def expert_enabled() -> bool:
    """True when ``$TREEGYM_SERVE_EXPERT`` asks servers to answer ``/expert`` (1, true, yes)."""
    return os.environ.get(EXPERT_ENV, "").strip().lower() in ("1", "true", "yes", "on")


class ApiError(Exception):
    """An error answer: HTTP ``status`` and a message saying what to do."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


@dataclass(frozen=True)
class Live:
    """One live session: the engine variant it runs on, its state, and its task (None when made from a state)."""

    variant: str
    state: Any
    task_id: Any = None


class SessionService:
    """Sessions over engines, with every check of the JSON API (raises :class:`ApiError`)."""

    def __init__(self, engines: Mapping[str, Engine], store: SessionStore, rng: random.Random | None = None):
        if not engines:
            raise ValueError("a session server needs at least one engine")
        self.engines = dict(engines)
        self.default_variant = next(iter(self.engines))
        self.store = store
        self._rng = rng or random.Random()

    # ------------------------------------------------------------------ engines and tasks
    def engine(self, variant: str | None = None) -> Engine:
        name = self.default_variant if variant is None else variant
        if not isinstance(name, str) or name not in self.engines:
            raise ApiError(400, f"unknown variant {name!r}; choose one of {', '.join(map(repr, self.engines))}")
        return self.engines[name]

    def tasks(self) -> dict[str, list]:
        engine = self.engine()
        return {split: list(engine.task_ids(split)) for split in engine.splits()}

    def choose_task(self, data: Mapping[str, Any], engine: Engine) -> Any:
        """``data["task_id"]`` (checked by the engine), else a random task of ``data["split"]`` or the first split."""
        if data.get("task_id") is not None:
            task_id = data["task_id"]
            try:
                engine.task(task_id)
            except (ValueError, KeyError, TypeError, IndexError, OverflowError) as exc:  # 1e309 is inf
                raise ApiError(400, f"bad task_id {task_id!r}: {_reason(exc)}") from None
            return task_id
        splits = list(engine.splits())
        split = data.get("split", splits[0] if splits else None)
        if split not in splits:
            raise ApiError(400, f"unknown split {split!r}; choose one of {', '.join(map(repr, splits))}")
        pool = list(engine.task_ids(split))
        if not pool:
            raise ApiError(400, f"split {split!r} has no tasks")
        return pool[self._rng.randrange(len(pool))]

    def new_live(self, data: Mapping[str, Any], variant: str | None = None, default_task: Any = None) -> Live:
        """A session at the start of a task (see :meth:`choose_task`), or in ``data["state"]``."""
        variant = data.get("variant", variant)
        engine = self.engine(variant)
        variant = self.default_variant if variant is None else variant
        if "state" in data:
            return Live(variant, self.state_from(engine, data["state"]))
        seed = data.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise ApiError(400, f"seed must be an integer or null, got {seed!r}")
        if data.get("task_id") is None and "split" not in data and default_task is not None:
            data = {**data, "task_id": default_task}
        task_id = self.choose_task(data, engine)
        return Live(variant, engine.initial_state(engine.task(task_id), seed), task_id)

    @staticmethod
    def state_from(engine: Engine, data: Any) -> Any:
        """The engine state of a client's state JSON, refused (400) unless the engine can use it.

        Beyond ``state_from_json``, the state must observe, say whether it is terminal and
        survive a JSON round trip: a state that fails any of them would make every later
        request on its session fail, so it is refused before anything changes.
        """
        if jsonsafe.too_deep(data):
            raise ApiError(400, f"bad session state: nested more than {jsonsafe.MAX_DEPTH} levels deep")
        try:
            state = engine.state_from_json(data)
            engine.observe(state)
            engine.is_terminal(state)
            engine.expert(state)
            json.dumps(engine.state_to_json(engine.state_from_json(engine.state_to_json(state))), allow_nan=False)
        except Exception as exc:  # noqa: BLE001 - whatever a client's JSON breaks, the answer is "bad state"
            raise ApiError(400, f"bad session state: {type(exc).__name__}: {_reason(exc)}") from None
        return state

    # ------------------------------------------------------------------ sessions
    def create(self, live: Live) -> str:
        try:
            return self.store.create(live)
        except StoreFull as exc:
            raise ApiError(503, str(exc)) from None

    def get(self, sid: str) -> Live:
        if not SESSION_ID_RE.match(sid):
            raise ApiError(404, f"no session {sid[:70]!r}: session ids are 1-64 letters, digits, '-' or '_'")
        try:
            return self.store.get(sid)
        except KeyError:
            raise ApiError(404, f"no session {sid!r} (never created, closed, or expired after "
                                f"{int(self.store.ttl)} s unused); create one with POST /api/sessions") from None

    def update(self, sid: str, fn: Callable[[Live], tuple[Live, Any]]) -> Any:
        """``store.update`` answering 404 when the session went away meanwhile (closed, expired)."""
        self.get(sid)
        try:
            return self.store.update(sid, fn)
        except KeyError:
            raise ApiError(404, f"no session {sid!r} (closed or expired while this request ran)") from None

    def replace(self, sid: str, live: Live) -> Live:
        self.update(sid, lambda _old: (live, None))
        return live

    def step(self, sid: str, action: str) -> tuple[Live, StepResult]:
        if not isinstance(action, str):
            raise ApiError(400, "step needs {\"action\": \"...\"} with a string action")

        def apply(old: Live) -> tuple[Live, tuple[Live, StepResult]]:
            result = self.engine(old.variant).step(old.state, action)
            new = Live(old.variant, result.state, old.task_id)
            return new, (new, result)

        return self.update(sid, apply)

    def delete(self, sid: str) -> None:
        self.get(sid)
        self.store.delete(sid)

    def describe(self, live: Live, **extra: Any) -> dict[str, Any]:
        engine = self.engine(live.variant)
        obs, info = engine.observe(live.state)
        out = {"observation": obs, "info": info, "terminated": bool(engine.is_terminal(live.state))}
        out.update(extra)
        return out


def json_body_or_none(raw: bytes) -> Any:
    """A request body parsed as JSON whatever its Content-Type, or None when it is not JSON (also when it is
    nested too deeply to walk safely, which ``request.get_json(silent=True)`` would raise on); JSON with
    an over-long integer raises ``jsonsafe.JSONNumberTooLong`` (its message says so)."""
    try:
        return jsonsafe.loads(raw)
    except jsonsafe.JSONNumberTooLong:
        raise
    except ValueError:
        return None


def _reason(exc: BaseException) -> str:
    return str(exc.args[0]) if exc.args else type(exc).__name__


def create_session_app(
    engines: Engine | Mapping[str, Engine],
    *,
    ttl: float = DEFAULT_TTL,
    max_sessions: int = DEFAULT_MAX_SESSIONS,
    max_content_length: int = DEFAULT_MAX_CONTENT_LENGTH,
    health: Callable[[], dict[str, Any]] | None = None,
    import_name: str = __name__,
    allowed_hosts: Iterable[str] | None = None,
    serve_expert: bool | None = None,
    clock: Callable[[], float] = time.monotonic,
    default_split: str | None = None,
) -> Flask:
    """A Flask app serving ``engines`` (see the module docstring); ``health()`` adds fields to /api/health.

    ``clock`` (seconds) times the sessions' ``ttl``; tests pass a fake one. ``default_split``: the
    split ``/api/tasks`` tells clients to play by default (else the engine's ``default_split``, if any).

    Requests with a foreign ``Host`` or ``Origin`` are refused (``servers/guard.py``; ``allowed_hosts``
    adds host names, default ``$TREEGYM_ALLOWED_HOSTS``). ``/expert`` answers only when
    ``serve_expert`` (default: ``$TREEGYM_SERVE_EXPERT`` is 1), since it hands out the gold plan.
    """
    if not isinstance(engines, Mapping):
        engines = {"default": engines}
    service = SessionService(engines, SessionStore(ttl=ttl, max_sessions=max_sessions, clock=clock))
    app = Flask(import_name)
    app.config["MAX_CONTENT_LENGTH"] = int(max_content_length)
    app.extensions["sessions"] = service
    install_guard(app, allowed_hosts)
    if serve_expert is None:
        serve_expert = expert_enabled()

    def body() -> dict[str, Any]:
        # The raw body whatever the Content-Type says: clients that send JSON without a
        # header (curl -d, urllib) are labelled form-urlencoded, and Flask would move such a
        # body into request.form; dropping it would silently start a session on a random task.
        raw = request.get_data(cache=True)
        if not raw.strip():
            return {}
        try:
            data = json_body_or_none(raw)
        except jsonsafe.JSONNumberTooLong as exc:
            raise ApiError(400, f"the request body is JSON, but {exc}") from None
        if not isinstance(data, dict):
            raise ApiError(400, "the request body must be a JSON object, e.g. {\"action\": \"...\"} "
                                f"(got {raw[:60]!r}; send it with Content-Type: application/json)")
        return data

    # ------------------------------------------------------------------ errors
    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError):
        return jsonify(error=exc.message), exc.status

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        message = exc.description or exc.name
        if exc.code == 413:
            message = (f"request body too large (limit {app.config['MAX_CONTENT_LENGTH']} bytes); "
                       "send one action or one state record per request")
        return jsonify(error=message), exc.code

    @app.errorhandler(Exception)
    def _internal_error(exc: Exception):
        app.logger.exception("session server error")
        return jsonify(error=f"the server failed on this request ({type(exc).__name__}: {exc}); "
                             "the session is unchanged, see the server log"), 500

    # ------------------------------------------------------------------ API
    @app.get("/api/health")
    def api_health():
        out = {"status": "ok", "sessions": len(service.store), "variants": list(service.engines)}
        if health is not None:
            out.update(health())
        return jsonify(out)

    @app.get("/api/tasks")
    def api_tasks():
        # default_split: the split a client env made without split= plays (the engine's, else the first)
        return jsonify(splits=service.tasks(),
                       default_split=default_split or getattr(service.engine(), "default_split", None))

    @app.post("/api/sessions")
    def api_create():
        live = service.new_live(body())
        sid = service.create(live)
        return jsonify(service.describe(live, session_id=sid, task_id=live.task_id)), 201

    @app.post("/api/sessions/<sid>/reset")
    def api_reset(sid: str):
        data = body()
        old = service.get(sid)
        if data.get("task_id") is None and "split" not in data and old.task_id is None:
            raise ApiError(400, "this session was made from a state and has no task to reset to; "
                                "give {\"task_id\": ...} or {\"split\": ...}")
        live = service.replace(sid, service.new_live(data, old.variant, default_task=old.task_id))
        return jsonify(service.describe(live, session_id=sid, task_id=live.task_id))

    @app.post("/api/sessions/<sid>/step")
    def api_step(sid: str):
        live, result = service.step(sid, body().get("action"))
        return jsonify(service.describe(live, reward=float(result.reward), terminated=bool(result.terminated),
                                        truncated=bool(getattr(result, "truncated", False))))

    @app.get("/api/sessions/<sid>")
    def api_get(sid: str):
        live = service.get(sid)
        state = service.engine(live.variant).state_to_json(live.state)
        return jsonify(service.describe(live, state=state, task_id=live.task_id, variant=live.variant))

    @app.post("/api/sessions/<sid>/snapshot")
    def api_snapshot(sid: str):
        live = service.get(sid)
        return jsonify(state=service.engine(live.variant).state_to_json(live.state))

    @app.post("/api/sessions/<sid>/restore")
    def api_restore(sid: str):
        data = body()
        old = service.get(sid)
        if "state" not in data:
            raise ApiError(400, "restore needs {\"state\": ...} as the snapshot endpoint returned it")
        state = service.state_from(service.engine(old.variant), data["state"])
        live = service.replace(sid, Live(old.variant, state, old.task_id))
        return jsonify(service.describe(live))

    @app.post("/api/sessions/<sid>/fork")
    def api_fork(sid: str):
        live = service.get(sid)
        new_sid = service.create(live)  # states are immutable: the fork shares it until either steps
        return jsonify(service.describe(live, session_id=new_sid, task_id=live.task_id)), 201

    @app.get("/api/sessions/<sid>/expert")
    def api_expert(sid: str):
        live = service.get(sid)
        if not serve_expert:
            raise ApiError(403, "the expert (the task's gold plan) is off on this server; start it with "
                                f"--expert (or {EXPERT_ENV}=1) to let clients ask for it")
        advice = service.engine(live.variant).expert(live.state)
        if advice is None:
            return jsonify(available=False, action=None, plan=[], value=None, solvable=True)
        return jsonify(available=True, action=advice.next_action, plan=list(advice.plan), value=advice.value,
                       solvable=advice.solvable)

    @app.delete("/api/sessions/<sid>")
    def api_close(sid: str):
        service.delete(sid)
        return jsonify(closed=sid)

    return app
