"""Mock TMDB and Spotify REST APIs (RestBench's two services): endpoints, routing and calls.

An :class:`Endpoint` is ``METHOD /path/{param}`` with its query/body
parameters and a handler ``(ctx, path_params, args) -> (status, body)``
(``tmdb.py``, ``tmdb_tv.py``, ``spotify.py``, ``spotify_player.py``); its
summary and parameters come from the service's OpenAPI spec (``spec.py``).
:class:`Router` matches a concrete request (literal paths win over templates:
``/movie/popular`` is never ``/movie/{movie_id}``); :func:`call` validates the
arguments, runs the handler and gives a 2xx body every field the spec's
response schema declares. Errors answer like the real services: TMDB's
``{"success": false, "status_code", "status_message"}``, Spotify's
``{"error": {"status", "message"}}`` (:func:`route_error` for unknown routes).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from treegym.envs.tools_common.world import Tx

from . import spec, spotify, spotify_player, tmdb, tmdb_tv  # noqa: F401 - importing registers the routes
from .catalog import RestData

APIS = ("tmdb", "spotify")
PARTIAL_ANSWERS = {"GET /search"}   # Spotify answers only the result types asked for


@dataclass(frozen=True)
class Param:
    name: str
    where: str           # "query" or "body"
    type: str            # "string", "integer", "number", "boolean", "array", "object"
    required: bool = False
    description: str = ""


@dataclass(frozen=True)
class Endpoint:
    api: str             # "tmdb" or "spotify"
    method: str
    template: str        # "/movie/{movie_id}/credits"
    summary: str
    handler: Callable[..., tuple[int, Any]]
    params: tuple[Param, ...] = ()
    mutates: bool = False
    regex: re.Pattern = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        pattern = "^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(self.template)) + "/?$"
        object.__setattr__(self, "regex", re.compile(pattern))

    @property
    def name(self) -> str:
        return f"{self.method} {self.template}"


class Ctx:
    """What a handler sees: the read-only data, the call's transaction on the world, the concrete request path."""

    def __init__(self, data: RestData, tx: Tx, path: str = ""):
        self.data, self.tx, self.path = data, tx, path


def _endpoints() -> tuple[Endpoint, ...]:
    out = []
    for api, routes in (("tmdb", tmdb.ROUTES), ("spotify", spotify.ROUTES)):
        for method, template, handler in routes:
            params = tuple(Param(p["name"], p["where"], p["type"], p["required"], p["description"])
                           for p in spec.params(api, method, template))
            out.append(Endpoint(api, method, template, spec.summary(api, method, template) or f"{method} {template}",
                                handler, params, mutates=method != "GET"))
    return tuple(out)


ENDPOINTS: tuple[Endpoint, ...] = _endpoints()


class Router:
    """Matches ``(method, path)`` to an endpoint of one API (literal paths win over templates)."""

    def __init__(self, api: str | None = None):
        eps = [e for e in ENDPOINTS if api is None or e.api == api]
        self.endpoints = sorted(eps, key=lambda e: (e.template.count("{"), e.template))
        # a template matches only paths with as many segments (a parameter never spans a "/"): try only those
        self._by_depth: dict[int, list[Endpoint]] = {}
        for e in self.endpoints:
            self._by_depth.setdefault(e.template.count("/"), []).append(e)

    def match(self, method: str, path: str) -> tuple[Endpoint | None, dict[str, str], bool]:
        """(endpoint, path parameters, path_known); ``path_known`` True when another method would match."""
        known = False
        for e in self._by_depth.get((path[:-1] if path.endswith("/") else path).count("/"), ()):
            m = e.regex.match(path)
            if m:
                if e.method == method:
                    return e, m.groupdict(), True
                known = True
        return None, {}, known

    def openapi(self, api: str, server_url: str | None = None) -> dict[str, Any]:
        """The OpenAPI 3 spec of ``api`` that clients read (``spec.published``)."""
        return spec.published(api, server_url)


def route_error(api: str, method: str, path: str, known: bool) -> tuple[int, Any]:
    """The real service's answer to a route it lacks (404) or a method the path does not take (405)."""
    if api == "tmdb":
        if known:
            return 405, {"success": False, "status_code": 3, "status_message": f"{method} is not allowed on {path}."}
        return 404, {"success": False, "status_code": 34, "status_message": "The resource you requested could not be found."}
    if known:
        return 405, {"error": {"status": 405, "message": f"Method {method} not allowed on {path}"}}
    return 404, {"error": {"status": 404, "message": "Service not found"}}


def call(data: RestData, tx: Tx, endpoint: Endpoint, path_params: Mapping[str, str], args: Mapping[str, Any],
         path: str = "") -> tuple[int, Any]:
    """Validate ``args`` against the endpoint and run it (never raises on bad input); 2xx bodies conform to the spec."""
    clean: dict[str, Any] = {}
    declared = {p.name: p for p in endpoint.params}
    for p in endpoint.params:
        v = args.get(p.name)
        if v is None or v == "":
            if p.required:
                return 400, _missing(endpoint, p.name)
            continue
        try:
            v = _typed(p.type, v)
        except (TypeError, ValueError):
            return 400, _invalid(endpoint, p.name, v)
        clean[p.name] = v
    unknown = sorted(set(args) - set(declared))
    if unknown and endpoint.api == "spotify" and endpoint.method != "GET":
        return 400, {"error": {"status": 400, "message": f"Unknown field(s): {', '.join(unknown)}"}}
    if not path:
        path = re.sub(r"\{(\w+)\}", lambda m: str(path_params.get(m.group(1), "")), endpoint.template)
    try:
        status, body = endpoint.handler(Ctx(data, tx, path), dict(path_params), clean)
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:  # a value the handler could not use
        return 400, _invalid(endpoint, type(exc).__name__, str(exc)[:100])
    if 200 <= status < 300 and body is not None:
        body = spec.conform(spec.response_schema(endpoint.api, endpoint.method, endpoint.template, status), body,
                            add_top=endpoint.name not in PARTIAL_ANSWERS)
    return status, body


def _typed(kind: str, v: Any) -> Any:
    if kind == "integer":
        if isinstance(v, bool) or (isinstance(v, float) and not v.is_integer()):
            raise ValueError(v)
        return int(v)
    if kind == "number":
        return float(v)
    if kind == "boolean" and not isinstance(v, bool):
        if str(v).lower() not in ("true", "false"):
            raise ValueError(v)
        return str(v).lower() == "true"
    if kind == "array" and not isinstance(v, list):
        return [x for x in str(v).split(",") if x]
    if kind == "string" and not isinstance(v, str):
        return v if isinstance(v, (dict, list)) else str(v)
    return v


def _missing(e: Endpoint, name: str) -> dict:
    if e.api == "tmdb":
        return {"success": False, "status_code": 7, "status_message": f"Missing required parameter: {name}."}
    return {"error": {"status": 400, "message": f"Missing required parameter: {name}"}}


def _invalid(e: Endpoint, name: str, value: Any) -> dict:
    if e.api == "tmdb":
        return {"success": False, "status_code": 22, "status_message": f"Invalid {name}: {value!r}."}
    return {"error": {"status": 400, "message": f"Invalid value for {name}: {value!r}"}}
