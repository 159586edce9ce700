"""Flask app exposing the ToolBench env's core over HTTP (it never re-implements it).

**ToolBench / StableToolBench routes** (so unmodified upstream inference code
can set ``SERVICE_URL=http://127.0.0.1:PORT/virtual`` or point its
``service_url`` at ``/rapidapi``):

* ``POST /rapidapi`` and ``POST /virtual`` with upstream's body ``{category,
  tool_name, api_name, tool_input (JSON text or object), strip, toolbench_key}``
  -> ``{"error": ..., "response": ...}`` (HTTP 200, as upstream). Names are
  normalized like StableToolBench's ``prepare_tool_name_and_url`` (the tool may
  carry ``_for_{Category}``, the API ``_for_{tool}``). ``strip`` and
  ``toolbench_key`` are accepted and ignored (no key is needed). A missing
  field is HTTP 422 (FastAPI's answer upstream).
* Without ``session_id`` (body field or ``X-Session-Id`` header) calls act on
  one shared world (like a real service: bookings persist); with it, the call
  is a step of that session's episode (recorded, evaluated).

**RestBench routes**: ``/rest/tmdb/<path>`` and ``/rest/spotify/<path>`` answer
the RestBench mocks' endpoints (``GET /rest/tmdb/search/person?query=...``,
``POST /rest/spotify/users/treegym_user/playlists``) with their HTTP status
codes, on one shared world.

**Sessions API** (the env's HTTP mode and multi-process agents):

* ``POST /sessions`` ``{task_id, reward_mode?, max_steps?, max_observation_length?}`` -> ``{session_id, observation, info}``
* ``POST /sessions/<id>/step`` ``{action}`` -> ``{observation, reward, terminated, truncated, info}``
* ``GET /sessions/<id>/snapshot`` -> ``{state, steps}`` (the engine state as JSON, lossless)
* ``POST /sessions/<id>/restore`` ``{state, steps}`` -> ``{observation, info}``
* ``POST /sessions/<id>/fork`` -> ``{session_id}`` (a new session in the same state)
* ``POST /sessions/<id>/reset`` ``{task_id?}``; ``GET /sessions/<id>/expert``; ``GET /sessions/<id>/log``;
  ``GET /sessions/<id>/fields`` (task fields), ``GET /sessions/<id>/evaluation``;
  ``DELETE /sessions/<id>``; ``GET /health``; ``GET /tasks`` (splits and groups).

Sessions live in memory (LRU, ``max_sessions``; idle ones expire after
``ttl`` seconds); an unknown or expired session id is HTTP 404 with a message.
Errors in request bodies are HTTP 400 with ``{"error": ...}``; nothing is
``eval``-ed.
"""
from __future__ import annotations

import json
import threading
import time
import uuid
from collections import OrderedDict
from typing import Any

from flask import Blueprint, Flask, jsonify, request

from treegym.envs.core.snapshot import Snapshot
from treegym.envs.toolbench.env import ToolBenchEnv
from treegym.envs.toolbench.service import default_service

UPSTREAM_FIELDS = ("category", "tool_name", "api_name", "tool_input")


class _Session:
    def __init__(self, env: ToolBenchEnv):
        self.env = env
        self.lock = threading.Lock()
        self.touched = time.monotonic()


class SessionStore:
    """Sessions by id, LRU-bounded, idle ones expire."""

    def __init__(self, ttl: float, max_sessions: int):
        self.ttl, self.max_sessions = ttl, max_sessions
        self._items: "OrderedDict[str, _Session]" = OrderedDict()
        self._lock = threading.Lock()

    def add(self, env: ToolBenchEnv) -> str:
        sid = uuid.uuid4().hex
        with self._lock:
            self._expire()
            self._items[sid] = _Session(env)
            while len(self._items) > self.max_sessions:
                self._items.popitem(last=False)
        return sid

    def get(self, sid: str) -> _Session | None:
        with self._lock:
            self._expire()
            s = self._items.get(sid)
            if s is not None:
                s.touched = time.monotonic()
                self._items.move_to_end(sid)
            return s

    def remove(self, sid: str) -> bool:
        with self._lock:
            return self._items.pop(sid, None) is not None

    def _expire(self) -> None:
        now = time.monotonic()
        for sid in [k for k, s in self._items.items() if now - s.touched > self.ttl]:
            del self._items[sid]

    def __len__(self) -> int:
        return len(self._items)


def _bad(message: str, status: int = 400):
    return jsonify({"error": message}), status


def _jsonable(info: dict) -> dict:
    return json.loads(json.dumps(info, default=str))


def _obs(obs: dict) -> dict:
    return {"text": obs["text"], "instruction": obs["instruction"], "valid_actions": list(obs["valid_actions"])}


def create_app(ttl: float = 3600.0, max_sessions: int = 10_000) -> Flask:
    """The tool server app (see the module docstring)."""
    service = default_service()
    store = SessionStore(ttl, max_sessions)
    shared = {"world": service.initial_world}
    shared_lock = threading.Lock()
    bp = Blueprint("toolbench", __name__)

    def session_or_404(sid: str):
        s = store.get(sid)
        if s is None:
            return None, _bad(f"no session {sid!r} (closed, expired after {ttl:.0f} s idle, or never created); "
                              "create one with POST /sessions", 404)
        return s, None

    def upstream_call():
        body = request.get_json(silent=True)
        if not isinstance(body, dict):
            return _bad("the body must be a JSON object with category, tool_name, api_name, tool_input", 422)
        missing = [f for f in UPSTREAM_FIELDS if f not in body]
        if missing:
            return _bad(f"missing field(s): {', '.join(missing)}", 422)
        sid = body.get("session_id") or request.headers.get("X-Session-Id")
        spec = service.find(str(body["category"]), str(body["tool_name"]), str(body["api_name"]))
        if sid:
            s, err = session_or_404(str(sid))
            if err:
                return err
            if spec is None:
                return jsonify({"error": "API not working error...",
                                "response": f"no API {body['api_name']!r} in tool {body['tool_name']!r}"})
            tool_input = body["tool_input"]
            with s.lock:
                s.env.step(json.dumps({"name": spec.function_name, "arguments": tool_input}, ensure_ascii=False))
                rec = s.env.unwrapped.state.calls[-1]
            return jsonify({"error": rec.error if rec.code != 1 else f"No such function name: {spec.function_name}",
                            "response": rec.response})
        with shared_lock:
            world, reply = service.call(shared["world"], str(body["category"]), str(body["tool_name"]),
                                        str(body["api_name"]), body["tool_input"])
            shared["world"] = world
        return jsonify(reply)

    bp.add_url_rule("/rapidapi", "rapidapi", upstream_call, methods=["POST"])
    bp.add_url_rule("/virtual", "virtual", upstream_call, methods=["POST"])

    @bp.get("/health")
    def health():
        return jsonify({"ok": True, "sessions": len(store), "apis": len(service.apis)})

    @bp.get("/tasks")
    def tasks():
        engine = ToolBenchEnv(split="all").engine
        return jsonify({"splits": {k: list(engine.task_ids(k)) for k in engine.splits()},
                        "groups": {str(t): engine.group_of(t) for t in engine.task_ids("all")}})

    @bp.get("/sessions/<sid>/fields")
    def fields(sid):
        s, err = session_or_404(sid)
        if err:
            return err
        with s.lock:
            return jsonify(s.env.unwrapped.task_fields())

    @bp.get("/sessions/<sid>/evaluation")
    def evaluation(sid):
        s, err = session_or_404(sid)
        if err:
            return err
        with s.lock:
            return jsonify(s.env.unwrapped.evaluate())

    @bp.post("/sessions")
    def create():
        body = request.get_json(silent=True) or {}
        if not isinstance(body, dict) or "task_id" not in body:
            return _bad("POST /sessions needs a JSON body with task_id (a query id; GET /tasks lists them)")
        try:
            max_steps = body.get("max_steps", 12)
            env = ToolBenchEnv(split="all", reward_mode=body.get("reward_mode", "terminal"),
                               max_steps=None if max_steps is None else int(max_steps),
                               max_observation_length=int(body.get("max_observation_length", 1024)))
            obs, info = env.reset(options={"task_id": body["task_id"]})
        except (ValueError, TypeError) as exc:
            return _bad(str(exc))
        sid = store.add(env)
        return jsonify({"session_id": sid, "observation": _obs(obs), "info": _jsonable(info),
                        "state": env.unwrapped.engine.state_to_json(env.unwrapped.state)})

    @bp.post("/sessions/<sid>/step")
    def step(sid):
        s, err = session_or_404(sid)
        if err:
            return err
        body = request.get_json(silent=True)
        if not isinstance(body, dict) or "action" not in body:
            return _bad('step needs a JSON body {"action": "..."}')
        action = body["action"]
        if isinstance(action, (dict, list)):
            action = json.dumps(action, ensure_ascii=False)
        with s.lock:
            obs, reward, term, trunc, info = s.env.step(str(action))
            out = {"observation": _obs(obs), "reward": reward, "terminated": term, "truncated": trunc,
                   "info": _jsonable(info)}
            if body.get("with_state"):
                out["state"] = s.env.unwrapped.engine.state_to_json(s.env.unwrapped.state)
        return jsonify(out)

    @bp.get("/sessions/<sid>/snapshot")
    def snapshot(sid):
        s, err = session_or_404(sid)
        if err:
            return err
        with s.lock:
            u = s.env.unwrapped
            return jsonify({"state": u.engine.state_to_json(u.state), "steps": u.steps})

    @bp.post("/sessions/<sid>/restore")
    def restore(sid):
        s, err = session_or_404(sid)
        if err:
            return err
        body = request.get_json(silent=True)
        if not isinstance(body, dict) or "state" not in body:
            return _bad('restore needs {"state": ..., "steps": N} as GET /sessions/<id>/snapshot returned it')
        with s.lock:
            u = s.env.unwrapped
            try:
                state = u.engine.state_from_json(body["state"])
                steps = int(body.get("steps", len(state.calls)))
            except (ValueError, TypeError) as exc:
                return _bad(f"cannot restore: {exc}")
            snap = u.snapshot()
            obs, info = u.restore(Snapshot(kind=snap.kind, env_class=snap.env_class, payload=state, steps=steps,
                                           max_steps=snap.max_steps, rng_state=snap.rng_state,
                                           task=type(snap.task)(state.task_id, u.engine.task(state.task_id))))
        return jsonify({"observation": _obs(obs), "info": _jsonable(info)})

    @bp.post("/sessions/<sid>/fork")
    def fork(sid):
        s, err = session_or_404(sid)
        if err:
            return err
        with s.lock:
            twin = s.env.unwrapped.clone()
        return jsonify({"session_id": store.add(twin)})

    @bp.post("/sessions/<sid>/reset")
    def reset(sid):
        s, err = session_or_404(sid)
        if err:
            return err
        body = request.get_json(silent=True) or {}
        with s.lock:
            try:
                tid = body.get("task_id", s.env.unwrapped.state.task_id)
                obs, info = s.env.reset(options={"task_id": tid})
            except (ValueError, TypeError) as exc:
                return _bad(str(exc))
            state = s.env.unwrapped.engine.state_to_json(s.env.unwrapped.state)
        return jsonify({"observation": _obs(obs), "info": _jsonable(info), "state": state})

    @bp.get("/sessions/<sid>/expert")
    def expert(sid):
        s, err = session_or_404(sid)
        if err:
            return err
        with s.lock:
            advice = s.env.unwrapped.expert()
        if advice is None:
            return jsonify({"plan": [], "next_action": None, "value": None, "solvable": False})
        return jsonify({"plan": list(advice.plan), "next_action": advice.next_action, "value": advice.value,
                        "solvable": advice.solvable})

    @bp.get("/sessions/<sid>/log")
    def log(sid):
        s, err = session_or_404(sid)
        if err:
            return err
        with s.lock:
            return jsonify({"calls": [c.to_json() for c in s.env.unwrapped.state.calls]})

    @bp.delete("/sessions/<sid>")
    def close(sid):
        if not store.remove(sid):
            return _bad(f"no session {sid!r}", 404)
        return jsonify({"closed": sid})

    rest_world = {}
    rest_lock = threading.Lock()

    @bp.route("/rest/<api>/<path:path>", methods=["GET", "POST", "PUT", "DELETE"])
    def rest(api, path):
        """RestBench's TMDB and Spotify mocks as real REST routes (one shared world, like a live service)."""
        from treegym.envs.restbench.api import call as rest_call
        from treegym.envs.restbench.env import shipped_engine as rest_engine
        from treegym.envs.toolbench.world import Tx
        if api not in ("tmdb", "spotify"):
            return _bad(f"unknown API {api!r}; use /rest/tmdb/... or /rest/spotify/...", 404)
        engine = rest_engine()
        endpoint, params, known = engine.routers[api].match(request.method, "/" + path)
        if endpoint is None:
            return (_bad(f"{request.method} is not allowed on /{path}", 405) if known
                    else _bad(f"no endpoint {request.method} /{path} in the {api} API", 404))
        args = dict(request.args)
        body = request.get_json(silent=True)
        if isinstance(body, dict):
            args.update(body)
        with rest_lock:
            world = rest_world.setdefault(api, engine.initial_world)
            tx = Tx(world)
            status, payload = rest_call(engine.data, tx, endpoint, params, args)
            if status < 400:
                rest_world[api] = tx.commit()
        return jsonify(payload), status

    app = Flask("treegym-tools")
    app.json.sort_keys = False
    app.register_blueprint(bp)
    app.config["SESSIONS"] = store
    return app
