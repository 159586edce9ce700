"""RestGPT-style calls on the served TMDB and Spotify mocks: base URL from the spec's ``servers``, requests with
the spec's paths and params, answers parsed with the spec's response schema, compared with the in-process env."""
from __future__ import annotations

import json
import re
import urllib.parse

import pytest

requests = pytest.importorskip("requests")
pytest.importorskip("flask")

from treegym.envs.restbench.env import shipped_engine, shipped_tasks  # noqa: E402


def deref(node, spec, depth=0):
    """Every ``$ref`` replaced, as RestGPT's ``reduce_openapi_spec`` does before its parser reads a schema."""
    if depth > 10:
        return {}
    if isinstance(node, list):
        return [deref(x, spec, depth + 1) for x in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = spec
        for part in node["$ref"][2:].split("/"):
            target = target[part]
        return deref(target, spec, depth + 1)
    return {k: deref(v, spec, depth + 1) for k, v in node.items()}


def matched_endpoint(spec, method, path):
    """The spec's template for a concrete path: an exact path first, then templates (as RestGPT matches them)."""
    if method.lower() in spec["paths"].get(path, {}):
        return path, spec["paths"][path][method.lower()]
    for template, ops in spec["paths"].items():
        pattern = "^" + re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(template)) + "$"
        if method.lower() in ops and re.match(pattern, path):
            return template, ops[method.lower()]
    raise AssertionError(f"{method} {path} is not in the spec")


def send(base, action):
    """One reference action ("GET /path?x=1", "POST /path {json}") sent the way RestGPT's caller does."""
    method, rest = action.split(" ", 1)
    url, _, body = rest.partition(" {")
    parts = urllib.parse.urlsplit(url.replace(" ", "%20"))
    params = dict(urllib.parse.parse_qsl(parts.query))
    data = json.loads("{" + body) if body else None
    kwargs = {"params": params or None, "headers": {"Authorization": "Bearer any-token"}, "timeout": 60}
    if method in ("POST", "PUT", "DELETE"):
        kwargs["json"] = data
    return method, parts.path, requests.request(method, base + parts.path, **kwargs), params


@pytest.mark.slow
def test_restgpt_style_client_runs_all_157_gold_paths_and_parses_with_the_spec(tool_server):
    engine = shipped_engine()
    specs = {api: requests.get(f"{tool_server.url}/rest/{api}/openapi.json", timeout=60).json() for api in ("tmdb", "spotify")}
    assert specs["tmdb"]["servers"][0]["url"] == f"{tool_server.url}/rest/tmdb"
    assert "securitySchemes" in specs["spotify"]["components"]
    for task in (t for t in shipped_tasks() if t["split"] == "restbench"):
        api, qid = task["api"], task["query_id"]
        # one URL-chosen world per query, so Spotify's changes never leak into the next query
        base = specs[api]["servers"][0]["url"].replace("/rest/", f"/s/rg-{qid}/rest/")
        state = engine.initial_state(qid, None)
        for action in task["gold"]["reference_actions"][:-1]:
            method, path, r, params = send(base, action)
            state = engine.step(state, action).state
            assert 200 <= r.status_code < 300 and r.status_code == state.calls[-1].status, (qid, action, r.text[:200])
            if not r.content:   # 204, or Spotify's empty 200 (PUT /me/tracks)
                assert state.calls[-1].body == "null"
                continue
            body = r.json()
            assert body == json.loads(state.calls[-1].body), (qid, action)
            template, op = matched_endpoint(specs[api], method, path)
            schema = deref(op["responses"]["200" if "200" in op["responses"] else str(r.status_code)], specs[api])
            props = schema["content"]["application/json"]["schema"].get("properties", {})
            if api == "spotify" and template == "/search":   # RestGPT narrows the schema to the asked types
                props = {k + "s": props[k + "s"] for k in params["type"].split(",")}
            assert set(props) - {""} <= set(body), (qid, action, sorted(set(props) - set(body)))


def test_unknown_routes_and_methods_answer_in_the_real_apis_error_shapes(tool_server):
    r = requests.get(f"{tool_server.url}/rest/tmdb/movie/latest/nope", timeout=60)
    assert r.status_code == 404 and r.json()["status_code"] == 34
    r = requests.get(f"{tool_server.url}/rest/spotify/nowhere", timeout=60)
    assert r.status_code == 404 and r.json() == {"error": {"status": 404, "message": "Service not found"}}
    r = requests.post(f"{tool_server.url}/rest/spotify/me", json={}, timeout=60)
    assert r.status_code == 405 and r.json()["error"]["status"] == 405
    r = requests.put(f"{tool_server.url}/s/rg-x/rest/spotify/me/player/volume", params={"volume_percent": 10}, timeout=60)
    assert r.status_code == 204 and r.content == b""
    assert requests.delete(f"{tool_server.url}/s/rg-x/rest", timeout=60).json() == {"closed": "rg-x"}
