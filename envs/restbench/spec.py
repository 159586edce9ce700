"""TMDB's and Spotify's OpenAPI specs (RestGPT's, shipped in ``data/``): parameters, response schemas, the published spec.

The mock reads everything about an endpoint's interface from the spec that
RestGPT's planner, caller and parser read: its summary, its query and body
parameters (:func:`params`), and the schema of its answer, which
:func:`conform` uses to give every body all the fields the spec declares
(a field the world does not know gets a typed empty value: ``""``, ``0``,
``false``, ``[]``, ``null`` where nullable, or an object filled the same way).
:func:`published` is the spec a client downloads: upstream's text with
``servers`` pointing at our mock and the few routes we add described.
"""
from __future__ import annotations

import copy
import gzip
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).with_name("data")
METHODS = ("get", "post", "put", "delete", "patch")
# parameters the real APIs take that RestGPT's copies of the specs leave out
EXTRA_PARAMS = {("PUT", "/me/player/play"): [{"name": "device_id", "in": "query", "schema": {"type": "string"}}],
                ("PUT", "/me/player/pause"): [{"name": "device_id", "in": "query", "schema": {"type": "string"}}],
                ("GET", "/discover/movie"): [{"name": n, "in": "query", "schema": {"type": t}} for n, t in (
                    ("primary_release_year", "integer"), ("primary_release_date.gte", "string"),
                    ("primary_release_date.lte", "string"), ("vote_average.gte", "number"), ("vote_average.lte", "number"),
                    ("with_genres", "string"), ("with_original_language", "string"))]}
# parameters the spec marks required where the real API needs only one of them (the handler checks)
ONE_OF = {("GET", "/recommendations"): {"seed_artists", "seed_genres", "seed_tracks"}}
# routes we serve that the specs lack: (api, method, path) -> the spec entry they share
ALIASES = {("spotify", "GET", "/track/{id}"): "/tracks/{id}"}


@lru_cache(maxsize=2)
def raw_spec(api: str) -> dict[str, Any]:
    """Upstream's spec of ``api`` ("tmdb" or "spotify"), as shipped (read-only: copy before changing it)."""
    with gzip.open(DATA_DIR / f"{api}_oas.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


def _operation(api: str, method: str, template: str) -> dict[str, Any]:
    path = ALIASES.get((api, method, template), template)
    return raw_spec(api)["paths"].get(path, {}).get(method.lower(), {})


def resolve(node: Any, api: str, depth: int = 0) -> Any:
    """``node`` with every ``$ref`` replaced (``allOf`` merged, ``oneOf``/``anyOf`` by their first choice)."""
    if depth > 12:
        return {}
    if isinstance(node, list):
        return [resolve(x, api, depth + 1) for x in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target: Any = raw_spec(api)
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target.get(part, {})
        return resolve(target, api, depth + 1)
    if "allOf" in node:
        merged: dict[str, Any] = {"type": "object", "properties": {}}
        for part in resolve(node["allOf"], api, depth + 1):
            merged["properties"].update(part.get("properties", {}))
            for k in ("description", "nullable"):
                if k in part:
                    merged[k] = part[k]
        return merged
    for key in ("oneOf", "anyOf"):
        if key in node and node[key]:
            return resolve(node[key][0], api, depth + 1)
    return {k: resolve(v, api, depth + 1) for k, v in node.items() if k not in ("example", "examples")}


def summary(api: str, method: str, template: str) -> str:
    op = _operation(api, method, template)
    return str(op.get("summary") or op.get("description") or "").strip().split("\n")[0]


def params(api: str, method: str, template: str) -> list[dict[str, Any]]:
    """``[{name, where ("query"/"body"), type, required, description}]`` of an endpoint (path parameters excluded)."""
    op = resolve(_operation(api, method, template), api)
    path_item = resolve(raw_spec(api)["paths"].get(ALIASES.get((api, method, template), template), {}), api)
    out: dict[str, dict[str, Any]] = {}
    for prm in list(path_item.get("parameters", [])) + list(op.get("parameters", [])) + EXTRA_PARAMS.get((method, template), []):
        if prm.get("in") == "query":
            out[prm["name"]] = {"name": prm["name"], "where": "query", "type": prm.get("schema", {}).get("type", "string"),
                                "required": str(prm.get("required", False)).lower() == "true"
                                and prm["name"] not in ONE_OF.get((method, template), ()),
                                "description": str(prm.get("description", ""))[:200]}
    body = (op.get("requestBody") or {}).get("content", {}).get("application/json", {}).get("schema", {})
    for name, sub in body.get("properties", {}).items():
        was = out.get(name)
        out[name] = {"name": name, "where": "body", "type": sub.get("type", "string"),
                     "required": bool(was and was["required"]) or name in body.get("required", []),
                     "description": str(sub.get("description", ""))[:200]}
    return list(out.values())


@lru_cache(maxsize=512)
def response_schema(api: str, method: str, template: str, status: int) -> dict[str, Any] | None:
    responses = _operation(api, method, template).get("responses", {})
    answer = responses.get(str(status)) or responses.get("200")
    if not answer:
        return None
    content = resolve(answer, api).get("content", {})
    media = content.get("application/json") or next(iter(content.values()), {})
    return media.get("schema")


def conform(schema: dict[str, Any] | None, value: Any, depth: int = 0, add_top: bool = True) -> Any:
    """``value`` with every field ``schema`` declares (see the module docstring); fields it has are kept as they are.

    ``add_top=False`` leaves the top level's missing fields out (Spotify's search answers only the types asked for).
    """
    if not schema or value is None or depth > 8:
        return value
    if isinstance(value, dict) and "properties" in schema:
        out = dict(value)
        for name, sub in schema["properties"].items():
            if name in out:
                if isinstance(out[name], (dict, list)):  # a scalar is kept as it is: no call for it
                    out[name] = conform(sub, out[name], depth + 1)
            elif name and add_top:  # TMDB's trending schema has a field named ""
                out[name] = empty(sub, depth + 1)
        return out
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        items = schema["items"]
        return [conform(items, v, depth + 1) if isinstance(v, (dict, list)) else v for v in value]
    return value


def empty(schema: dict[str, Any], depth: int = 0) -> Any:
    """A typed empty value for a field the world does not know."""
    if schema.get("nullable") or depth > 6:
        return None
    kind = schema.get("type", "object" if "properties" in schema else None)
    if not isinstance(kind, str):  # a malformed entry in upstream's spec
        return None
    if kind == "object":
        return {k: empty(v, depth + 1) for k, v in schema.get("properties", {}).items() if k}
    return {"array": [], "string": "", "integer": 0, "number": 0, "boolean": False}.get(kind)


def published(api: str, server_url: str | None = None) -> dict[str, Any]:
    """The spec a client reads: upstream's, ``servers`` set to ``server_url`` (when given), our aliases described."""
    spec = copy.deepcopy(raw_spec(api))
    if server_url:
        spec["servers"] = [{"url": server_url}]
    for (a, method, template), target in ALIASES.items():
        if a == api:
            op = copy.deepcopy(spec["paths"][target][method.lower()])
            op["summary"] = f"{op.get('summary', '').strip()} (also served as {template}: RestBench's gold path writes it so)"
            op["operationId"] = op.get("operationId", "op") + "-alias"
            spec["paths"].setdefault(template, {})[method.lower()] = op
    return spec
