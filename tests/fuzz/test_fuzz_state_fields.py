"""Every field of every family's session state set to every JSON type, then every route exercised.

For each env id a session server (``treegym serve <id>``, ``servers/env_server.py``) runs on
127.0.0.1; a session is played a few steps in and its state JSON read. Then every field path
(each object key at every depth, and the first item of each list) is set, one at a time, to each
of :data:`JSON_TYPES` (null, booleans, ints, a huge int, a 5,000-digit int, a float, strings, a
lone surrogate, a list, an object) and sent to ``restore``. Asserts: never a 5xx, no hang; a
refused restore (4xx) says what was wrong and leaves the session as it was; an accepted one leaves a
session every route still serves (observe, step with listed and odd actions, snapshot, fork,
restore of that snapshot, expert, reset): "refused, or every route can still serve it". A state
restored in-process (``EngineEnv.engine_state`` reads the same JSON) is checked the same way:
``state_from_json`` refuses it with a ``ValueError``, or ``step`` answers without an exception.

Size: ``TREEGYM_FUZZ_SCALE`` multiplies the field paths tried per family (every top-level field
always); ``TREEGYM_FUZZ_SEED`` picks which ones (``fuzzing.py``).
"""
from __future__ import annotations

import importlib.util
import json
from typing import Any, Iterator

import pytest

from fuzzing import ODD_TEXT, count, http_request, rng_for, tally

pytest.importorskip("flask")

import treegym.envs as te  # noqa: E402
from treegym.servers.env_server import create_env_app  # noqa: E402
from treegym.servers.run import serve_in_thread  # noqa: E402

#: stands for a 5,000-digit integer literal in a request body (Python's json cannot write one)
HUGE_INT = "<5000-digit int>"
JSON_TYPES: list[Any] = [None, True, False, 0, -7, 10 ** 30, HUGE_INT, 2.5, -1e308, "", "x", "\ud800",
                         "ü" * 50, [], [1, "a"], {}, {"a": 1}]
#: nested field paths tried per family at scale 1 (every top-level field is always tried)
NESTED_PATHS = 10
#: steps into the episode before the state is read
DEPTH = 3
FAMILIES = sorted(te.ENVS)


def _needs(env_id: str) -> None:
    if env_id == "treegym/TextWorld-v0" and importlib.util.find_spec("textworld") is None:
        pytest.skip("textworld is not installed")


def _send(srv, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    raw_body = None if body is None else json.dumps(body).replace(json.dumps(HUGE_INT), "9" * 5000).encode()
    status, raw = http_request(srv, method, path, raw_body)
    tally("state-field requests")
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, None


def paths(value: Any, prefix: tuple = ()) -> Iterator[tuple]:
    """Every object key at every depth and the first item of every list, as key/index paths."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield prefix + (key,)
            yield from paths(item, prefix + (key,))
    elif isinstance(value, list) and value:
        yield prefix + (0,)
        yield from paths(value[0], prefix + (0,))


def set_at(value: Any, path: tuple, new: Any) -> Any:
    """A copy of JSON ``value`` with the item at ``path`` replaced by ``new``."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: set_at(value[head], rest, new)}
    out = list(value)
    out[head] = set_at(out[head], rest, new)
    return out


def _chosen_paths(state: Any, rng) -> list[tuple]:
    every = list(paths(state))
    top = [p for p in every if len(p) == 1]
    nested = [p for p in every if len(p) > 1]
    rng.shuffle(nested)
    return top + nested[:count(NESTED_PATHS)]


def _every_route(srv, api: str, sid: str, made: Any, rng) -> None:
    """Observe, step (listed and odd actions), snapshot, fork, restore that snapshot, expert, reset."""
    _send(srv, "GET", f"{api}/{sid}")
    obs = (made or {}).get("observation") or {}
    for action in list(obs.get("valid_actions") or [])[:2] + [rng.choice(ODD_TEXT)]:
        _send(srv, "POST", f"{api}/{sid}/step", {"action": action})
    status, snap = _send(srv, "POST", f"{api}/{sid}/snapshot", {})
    _send(srv, "GET", f"{api}/{sid}/expert")
    status_f, forked = _send(srv, "POST", f"{api}/{sid}/fork", {})
    if status_f < 300 and isinstance(forked, dict) and forked.get("session_id"):
        _send(srv, "POST", f"{api}/{forked['session_id']}/step", {"action": "look"})
        _send(srv, "DELETE", f"{api}/{forked['session_id']}")
    if status < 300 and isinstance(snap, dict) and "state" in snap:
        _send(srv, "POST", f"{api}/{sid}/restore", {"state": snap["state"]})
    _send(srv, "POST", f"{api}/{sid}/reset", {})


def _in_process(env_id: str, engine: Any, data: Any, rng) -> None:
    """The same JSON read by the engine in-process: refused with a ValueError, or it steps."""
    try:
        state = engine.state_from_json(data)
    except ValueError:
        return
    except Exception as exc:  # noqa: BLE001 - the contract: ValueError naming what was wrong
        pytest.fail(f"{env_id}: state_from_json raised {type(exc).__name__}: {exc} (contract: ValueError)")
    tally("states accepted in-process (then stepped)")
    obs, _info = engine.observe(state)
    for action in list(obs.get("valid_actions") or [])[:2] + [rng.choice(ODD_TEXT)]:
        engine.step(state, action)


@pytest.mark.parametrize("env_id", FAMILIES)
def test_every_state_field_of_every_type_is_refused_or_served(env_id):
    _needs(env_id)
    rng = rng_for(f"state-fields:{env_id}")
    engines = None
    with serve_in_thread(create_env_app(env_id)) as srv:
        api = "/api/sessions"
        status, made = _send(srv, "POST", api, {"seed": 0})
        assert status == 201, made
        sid = made["session_id"]
        for _ in range(DEPTH):
            valid = list(made["observation"].get("valid_actions") or [])
            if not valid:
                break
            _, made = _send(srv, "POST", f"{api}/{sid}/step", {"action": valid[0]})
        _, got = _send(srv, "GET", f"{api}/{sid}")
        state = got["state"]
        accepted = refused = 0
        for path in _chosen_paths(state, rng):
            for new in JSON_TYPES:
                bad = set_at(state, path, new)
                status, answer = _send(srv, "POST", f"{api}/{sid}/restore", {"state": bad})
                tally("state fields set")
                if status >= 400:
                    refused += 1
                    assert isinstance(answer, dict) and answer.get("error"), answer
                    assert "\n" not in answer["error"] and len(answer["error"]) < 600, answer["error"][:800]
                    assert _send(srv, "GET", f"{api}/{sid}")[1]["state"] == state, \
                        f"a refused restore changed the session ({path} = {new!r:.60})"
                    continue
                accepted += 1
                _every_route(srv, api, sid, answer, rng)
                _send(srv, "POST", f"{api}/{sid}/restore", {"state": state})  # back to the played state
        if env_id != "treegym/BMoCA-v0":  # B-MoCA's served states are signed: nothing to read in-process
            from treegym.servers.env_server import session_engines

            engines = session_engines(env_id)
            engine = next(iter(engines.values()))
            for path in _chosen_paths(state, rng):
                for new in JSON_TYPES:
                    if new is not HUGE_INT:  # json.loads refuses it before any engine sees it
                        _in_process(env_id, engine, set_at(state, path, new), rng)
        tally("state fields refused", refused)
        tally("state fields accepted (then every route)", accepted)
