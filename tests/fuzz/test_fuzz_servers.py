"""Every server route with malformed, nested, huge and wrong-type bodies, and mutated snapshots.

The WebShop site and the tool server (ToolBench sessions, RestBench and
ToolTasks mounts, upstream's /virtual and /rapidapi, the RestBench REST mocks)
run on 127.0.0.1. Asserts: no 5xx answer, no request hangs, and a refused
request (4xx) leaves its session exactly as it was (its state JSON is
unchanged); a mutated snapshot is either refused or leaves a session that
every route can still serve.
"""
from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from fuzzing import ODD_TEXT, count, deep_json, http_request, mutate_json, rng_for, tally

pytest.importorskip("flask")

from treegym.servers.run import serve_in_thread  # noqa: E402


@pytest.fixture(scope="module")
def tools_server():
    from treegym.servers.toolbench import create_app

    with serve_in_thread(create_app()) as srv:
        yield srv


@pytest.fixture(scope="module")
def webshop_server():
    from treegym.servers.webshop import create_app

    with serve_in_thread(create_app()) as srv:
        yield srv


_send = http_request  # one request, never a 5xx


def _json(raw: bytes):
    try:
        return json.loads(raw)
    except ValueError:
        return None


def bad_bodies(rng, n: int):
    """Malformed, nested, huge and wrong-type request bodies."""
    fixed = [b"", b"{", b"null", b"[]", b"3", b'"x"', b"\xff\xfe", b'{"action": null}', b'{"action": 5}',
             b'{"action": ["a"]}', b'{"action": {"a": 1}}', b'{"task_id": 1e309}', b'{"task_id": -1e309}',
             b'{"task_id": NaN}', b'{"task_id": [1]}', b'{"task_id": {"a": 1}}', b'{"task_id": true}',
             b'{"task_id": 99999999999999999999999}', b'{"split": 3}', b'{"split": "nope"}', b'{"seed": "x"}',
             b'{"seed": 1e308}', b'{"variant": []}', b'{"variant": "nope"}', b'{"state": null}', b'{"state": 3}',
             b'{"state": {}}', b'{"state": []}', deep_json(1_000).encode(), deep_json(5_000, "object").encode(),
             ('{"action": ' + deep_json(2_000) + "}").encode(), ('{"state": ' + deep_json(900, "object") + "}").encode(),
             b'{"action": "' + b"x" * 70_000 + b'"}', b'{"action": "' + "ü".encode() * 20_000 + b'"}']
    for i in range(n):
        if i < len(fixed):
            yield fixed[i]
        else:
            yield json.dumps({rng.choice(["action", "task_id", "state", "split", "seed", "variant"]):
                              rng.choice(ODD_TEXT + [None, 1.5, -3, [], {}])}).encode()


def _state(srv, api: str, sid: str):
    status, raw = _send(srv, "GET", f"{api}/{sid}")
    return status, (_json(raw) or {}).get("state")


def _new(srv, api: str, rng) -> tuple[str, dict]:
    status, raw = _send(srv, "POST", api, json.dumps({"seed": rng.randrange(1000)}).encode())
    assert status == 201, raw[:300]
    made = _json(raw)
    return made["session_id"], made


def _fuzz_session_api(srv, prefix: str, name: str) -> None:
    rng = rng_for(f"servers:{name}")
    api = f"{prefix}/api/sessions"
    sid, made = _new(srv, api, rng)
    for _ in range(3):  # somewhere into an episode
        valid = list(made["observation"].get("valid_actions") or [])
        if valid:
            _, raw = _send(srv, "POST", f"{api}/{sid}/step", json.dumps({"action": rng.choice(valid)}).encode())
            made = _json(raw)
    _, before = _state(srv, api, sid)
    routes = [("POST", api), ("POST", f"{api}/{sid}/step"), ("POST", f"{api}/{sid}/reset"),
              ("POST", f"{api}/{sid}/restore"), ("POST", f"{api}/{sid}/snapshot"), ("POST", f"{api}/{sid}/fork"),
              ("GET", f"{api}/{sid}"), ("GET", f"{api}/{sid}/expert"), ("GET", f"{prefix}/api/tasks"),
              ("GET", f"{prefix}/api/health"), ("POST", f"{api}/{'x' * 80}/step"), ("POST", f"{api}/..%2f/step"),
              ("DELETE", f"{api}/nope")]
    refused = 0
    for body in bad_bodies(rng, count(60)):
        for method, path in routes:
            status, raw = _send(srv, method, path, body if method == "POST" else None)
            if path.endswith(("/step", "/reset", "/restore")) and sid in path and status >= 400:
                after = _state(srv, api, sid)[1]
                assert after == before, (path, body[:200], "a refused request changed the session")
                refused += 1
            elif status < 300 and sid in path and path.endswith(("/step", "/reset", "/restore")):
                before = _state(srv, api, sid)[1]  # an accepted odd request moved the session on
    tally("refused requests with the session unchanged", refused)
    _fuzz_snapshots(srv, api, rng)


def _fuzz_snapshots(srv, api: str, rng) -> None:
    accepted = 0
    for i in range(count(120)):
        sid, made = _new(srv, api, rng)
        for _ in range(rng.randrange(4)):
            valid = list(made["observation"].get("valid_actions") or [])
            if not valid:
                break
            _, raw = _send(srv, "POST", f"{api}/{sid}/step", json.dumps({"action": rng.choice(valid)}).encode())
            made = _json(raw)
        _, state = _state(srv, api, sid)
        mutated = mutate_json(rng, state, edits=rng.choice([1, 1, 2, 3]))
        status, raw = _send(srv, "POST", f"{api}/{sid}/restore", json.dumps({"state": mutated}).encode())
        tally("mutated snapshots")
        if status >= 400:
            assert _state(srv, api, sid)[1] == state, "a refused restore changed the session"
            continue
        accepted += 1
        # an accepted state must stay usable on every route
        obs = (_json(raw) or {}).get("observation") or {}
        for action in list(obs.get("valid_actions") or [])[:2] + [rng.choice(ODD_TEXT)]:
            _send(srv, "POST", f"{api}/{sid}/step", json.dumps({"action": action}).encode())
        for method, path in [("GET", f"{api}/{sid}"), ("POST", f"{api}/{sid}/snapshot"), ("POST", f"{api}/{sid}/fork"),
                             ("GET", f"{api}/{sid}/expert"), ("POST", f"{api}/{sid}/reset")]:
            _send(srv, method, path, b"{}" if method == "POST" else None)
        _send(srv, "DELETE", f"{api}/{sid}")
    tally("mutated snapshots accepted (then used on every route)", accepted)


@pytest.mark.parametrize("prefix", ["", "/restbench", "/tooltasks"])
def test_tool_server_session_routes(tools_server, prefix):
    _fuzz_session_api(tools_server, prefix, f"tools{prefix}")


def test_webshop_session_routes(webshop_server):
    _fuzz_session_api(webshop_server, "", "webshop")


def test_webshop_pages(webshop_server):
    rng = rng_for("servers:webshop-pages")
    srv = webshop_server
    form = "application/x-www-form-urlencoded"
    for goal in ["", "0", "-1", "²", "٣", "1e309", "99999999999999999999", "x" * 5000, "%00", "0" * 300]:
        _send(srv, "POST", "/start", f"goal={goal}".encode(), form)
    status, made = _send(srv, "POST", "/api/sessions", b'{"task_id": 0}')
    sid = _json(made)["session_id"]
    # upstream WebShop's page routes (servers/webshop/upstream_routes.py), with odd segments and form values
    for _ in range(count(80)):
        value = rng.choice(ODD_TEXT + ["x" * 3000, "&target=", "%ff%fe", "['a', 'b']", "{'size': 'x'}", "{"])
        seg = quote(value.encode("utf-8", "surrogatepass"), safe="'[]{},:+")
        path = rng.choice([f"/{sid}", f"/search_results/{sid}/{seg}/1", f"/search_results/{sid}/shoes/{seg}",
                           f"/item_page/{sid}/{seg}/shoes/1/{{}}", f"/item_page/{sid}/B0000/shoes/1/{seg}",
                           f"/item_sub_page/{sid}/B0000/shoes/1/{seg}/{{}}", f"/done/{sid}/{seg}/{{}}",
                           f"/fixed_{seg}"])
        if rng.random() < 0.5:
            _send(srv, "POST", path, f"search_query={value}".encode("utf-8", "surrogatepass"), form)
        else:
            _send(srv, "GET", path)
        _send(srv, "GET", f"/s/{sid}")
    for path in ["/s/nope", "/s/" + "x" * 300, "/s/%00", "/", "/nope", "/fixed_99999999999999"]:
        _send(srv, "GET", path)


def test_tool_server_upstream_and_rest_routes(tools_server):
    rng = rng_for("servers:upstream")
    srv = tools_server
    good = {"category": "Travel", "tool_name": "skyroutes", "api_name": "search_flights", "tool_input": "{}"}
    for _ in range(count(150)):
        body = dict(good)
        key = rng.choice(list(good) + ["session_id", "strip"])
        body[key] = rng.choice(ODD_TEXT + [None, 3, [], {}, deep_json(60, "object"), "x" * 20_000])
        if rng.random() < 0.2:
            body.pop(rng.choice(list(good)), None)
        raw = json.dumps(body).encode() if rng.random() < 0.9 else rng.choice([b"{", deep_json(3_000).encode(), b""])
        _send(srv, "POST", rng.choice(["/virtual", "/rapidapi"]), raw)
    paths = ["/rest/tmdb/search/movie", "/rest/tmdb/movie/550", "/rest/tmdb/movie/x", "/rest/spotify/search",
             "/rest/spotify/me", "/rest/spotify/playlists/1/tracks", "/rest/nope/x", "/rest/tmdb/" + "a/" * 200]
    for _ in range(count(150)):
        path = rng.choice(paths)
        query = "?" + quote(rng.choice(["query=", "query=ü", "page=-1", "page=1e309", "limit=x", "q=" + "x" * 3000, ""]),
                            safe="=&")
        method = rng.choice(["GET", "POST", "PUT", "DELETE"])
        body = rng.choice([None, b"{", b"[]", json.dumps({"uris": rng.choice([None, [None], "x", [{"a": 1}], 3]),
                                                           "tracks": rng.choice([None, [{}], "y", 2])}).encode()])
        _send(srv, method, path + query, body if method != "GET" else None)
