"""Real ToolBench data: upstream query files and tool folders, answered by a chosen transport.

:class:`UpstreamCatalog` turns the APIs named in ToolBench query files (and,
when ``tools_dir`` is given, ToolBench's ``data/toolenv/tools`` files, as
upstream's ``fetch_api_json`` re-reads parameters from them) into the same
:class:`~treegym.envs.toolbench.service.ApiSpec` records the mock service uses.
A transport answers calls with the service's interface (``find``,
``call_spec``, ``tool_descriptions``, ``initial_world``):

===================  ====================================================  =======  ==============
transport            what answers                                          offline  exact restore
===================  ====================================================  =======  ==============
``schema``           a deterministic responder built from each API's        yes      yes (pure)
                     ``template_response`` (values from blake2 of the
                     API and arguments), labelled ``"_simulated"``
``stabletoolbench``  StableToolBench's cache folder
                     (``{Category}/{tool}_for_{Category}/{api}.json``,     yes      yes (pure)
                     keyed by ``str(parsed input)``); a miss answers
                     ``"Cache miss..."``
``http``             a ToolBench ``/rapidapi`` or StableToolBench          no       no (the env
                     ``/virtual`` server (``service_url``)                         says so)
===================  ====================================================  =======  ==============

Argument checking (missing / unexpected / wrongly typed) is the mock
service's, so every transport answers bad input the same way.

Every transport has an ``identity`` (computed once, when the env is built), which the env's snapshots
record (``ToolBenchEnv.data_settings``) so a state is never restored into an env that answers its calls
from other data: the transport's name and a SHA-256 of the API table it was built from (the queries' APIs
and the tool files' parameters and templates), with, for ``stabletoolbench``, the bytes of the cache
files of those APIs (a missing one counts as missing), and, for ``http``, the service URL (never the key).
"""
from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
import urllib.error
import urllib.request
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from treegym.envs.core.file_digest import file_digest
from treegym.envs.tools_common.world import EMPTY_WORLD, WorldState

from .schema import api_function_name, change_name, standardize
from .service import ERR_PARSE, ApiSpec, api_key, bind_arguments, function_error, load_tools_dir, parse_tool_input, standard_category

TRANSPORTS = ("schema", "stabletoolbench", "http")
SIMULATED_LABEL = "schema responder (offline, deterministic, NOT real API data)"


class UpstreamCatalog:
    """APIs of upstream queries (+ optional tool files), keyed like the mock service (see module docstring)."""

    exact_restore = True

    def __init__(self, queries: Sequence[Mapping[str, Any]], tools_dir: str | Path | None = None):
        self.tools = load_tools_dir(tools_dir) if tools_dir else {}
        self.initial_world: WorldState = EMPTY_WORLD
        self.apis: dict[tuple[str, str, str], ApiSpec] = {}
        self.by_function: dict[str, list[ApiSpec]] = {}
        self.tool_descriptions: dict[str, str] = {}
        self.templates: dict[tuple[str, str, str], Any] = {}
        std_names = {standardize(t.get("tool_name", stem)): stem for tools in self.tools.values() for stem, t in tools.items()}
        for q in queries:
            for entry in q.get("api_list", []) or []:
                category = str(entry.get("category_name", ""))
                tool_name = str(entry.get("tool_name", ""))
                std_tool = std_names.get(standardize(tool_name), standardize(tool_name))
                api = dict(entry)
                tool_file = self.tools.get(category, {}).get(std_tool)
                if tool_file is not None:
                    self.tool_descriptions[std_tool] = tool_file.get("tool_description", "")
                    for a in tool_file.get("api_list", []):
                        if change_name(standardize(a["name"])) == change_name(standardize(entry.get("api_name", ""))):
                            api.update({"required_parameters": a.get("required_parameters", []),
                                        "optional_parameters": a.get("optional_parameters", []),
                                        "template_response": a.get("template_response", entry.get("template_response"))})
                else:
                    self.tool_descriptions.setdefault(std_tool, "")
                self._add(category, tool_name, std_tool, api)

    def _add(self, category: str, tool_name: str, std_tool: str, api: Mapping[str, Any]) -> None:
        name = str(api.get("api_name", api.get("name", "")))
        spec = ApiSpec(category, tool_name, std_tool, name, change_name(standardize(name)), api_function_name(name, std_tool),
                       str(api.get("api_description", "")), str(api.get("method", "GET")),
                       tuple(api.get("required_parameters") or ()), tuple(api.get("optional_parameters") or ()), {})
        key = (standard_category(category), std_tool, spec.pure_name)
        if key not in self.apis:
            self.apis[key] = spec
            self.by_function.setdefault(spec.function_name, []).append(spec)
            self.templates[key] = api.get("template_response")

    def find(self, category: str, tool: str, api: str) -> ApiSpec | None:
        return self.apis.get(api_key(category, tool, api))

    #: the transport's name in ``identity`` (``make_transport``'s)
    transport_name = "upstream"

    @cached_property
    def identity(self) -> str:
        """What a snapshot records of this transport (see the module docstring); computed once."""
        h = hashlib.sha256()
        for key in sorted(self.apis):
            h.update(json.dumps([key, dataclasses.asdict(self.apis[key]), self.templates.get(key)],
                                sort_keys=True, default=str).encode())
            h.update(b"\n")
        h.update(json.dumps(self.tool_descriptions, sort_keys=True).encode())
        self._digest_own_data(h)
        return f"{self.transport_name} sha256:{h.hexdigest()[:16]}"

    def _digest_own_data(self, h: Any) -> None:
        """Add the data this transport answers from, beyond the API table, to ``h`` (a hashlib object)."""

    def all_apis(self) -> Iterable[ApiSpec]:
        return self.apis.values()

    def _checked(self, spec: ApiSpec, tool_input: Any) -> tuple[dict | None, dict | None]:
        parsed = parse_tool_input(tool_input)
        if parsed is None:
            return None, {"error": ERR_PARSE, "response": ""}
        args, problem = bind_arguments(spec, parsed)
        if problem is not None:
            return None, function_error(spec, problem)
        return args, None


def _digest(*parts: Any) -> bytes:
    return hashlib.blake2b(json.dumps(parts, sort_keys=True, default=str).encode(), digest_size=32).digest()


def _fake(template: Any, seed: bytes, path: str = "") -> Any:
    h = hashlib.blake2b(seed + path.encode(), digest_size=8).digest()
    n = int.from_bytes(h, "big")
    if isinstance(template, dict):
        return {k: _fake(v, seed, f"{path}.{k}") for k, v in template.items()}
    if isinstance(template, list):
        return [_fake(template[0], seed, f"{path}[{i}]") for i in range(1 + n % 3)] if template else []
    kind = str(template).lower()
    if kind in ("int", "integer", "number"):
        return n % 1000
    if kind in ("float", "double"):
        return round((n % 100000) / 100, 2)
    if kind in ("bool", "boolean"):
        return bool(n % 2)
    if kind in ("nonetype", "null", "none"):
        return None
    return f"{path.rsplit('.', 1)[-1] or 'value'}_{h.hex()[:6]}"


class SchemaResponder(UpstreamCatalog):
    """Plausible, offline, deterministic answers from ``template_response`` (clearly labelled simulated)."""

    def __init__(self, queries: Sequence[Mapping[str, Any]], tools_dir: str | Path | None = None, seed: int = 0):
        super().__init__(queries, tools_dir)
        self.seed = seed

    transport_name = "schema"

    def _digest_own_data(self, h: Any) -> None:
        h.update(f"seed={self.seed}".encode())

    def call_spec(self, world: WorldState, spec: ApiSpec, tool_input: Any) -> tuple[WorldState, dict[str, str]]:
        args, err = self._checked(spec, tool_input)
        if err is not None:
            return world, err
        key = (standard_category(spec.category), spec.standard_tool, spec.pure_name)
        template = self.templates.get(key) or {"result": "str"}
        payload = _fake(template, _digest(self.seed, key, args))
        if isinstance(payload, dict):
            payload["_simulated"] = SIMULATED_LABEL
        else:
            payload = {"result": payload, "_simulated": SIMULATED_LABEL}
        return world, {"error": "", "response": json.dumps(payload, sort_keys=True, ensure_ascii=False)[:2048]}


class StableToolBenchCache(UpstreamCatalog):
    """Answers from StableToolBench's response cache folder (see module docstring)."""

    def __init__(self, queries: Sequence[Mapping[str, Any]], cache_dir: str | Path, tools_dir: str | Path | None = None):
        super().__init__(queries, tools_dir)
        self.cache_dir = Path(cache_dir)
        if not self.cache_dir.is_dir():
            raise FileNotFoundError(f"StableToolBench cache folder {self.cache_dir} does not exist "
                                    "(it holds {Category}/{tool}_for_{Category}/{api}.json files)")
        self._files: dict[Path, dict] = {}

    transport_name = "stabletoolbench"

    def _digest_own_data(self, h: Any) -> None:
        for key in sorted(self.apis):
            path = self._path(self.apis[key])
            h.update(f"{key}\0".encode())
            h.update(file_digest(path) or b"missing")

    def _path(self, spec: ApiSpec) -> Path:
        cat = standard_category(spec.category)
        return self.cache_dir / cat / f"{spec.standard_tool}_for_{cat}" / f"{spec.pure_name}.json"

    def _cache(self, spec: ApiSpec) -> dict:
        path = self._path(spec)
        if path not in self._files:
            try:
                data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
            except (OSError, ValueError):
                data = {}
            self._files[path] = data if isinstance(data, dict) else {}
        return self._files[path]

    def call_spec(self, world: WorldState, spec: ApiSpec, tool_input: Any) -> tuple[WorldState, dict[str, str]]:
        parsed = parse_tool_input(tool_input)
        if parsed is None:
            return world, {"error": ERR_PARSE, "response": ""}
        cache = self._cache(spec)
        hit = cache.get(str(parsed))
        if hit is None:  # the same input written with sorted keys
            canon = str(dict(sorted(parsed.items())))
            hit = next((v for k, v in cache.items() if _canonical_key(k) == canon), None)
        if hit is None:
            return world, {"error": "Cache miss: this input is not in the StableToolBench cache", "response": ""}
        if isinstance(hit, dict) and "response" in hit:
            resp = hit["response"]
            return world, {"error": str(hit.get("error", "")),
                           "response": resp if isinstance(resp, str) else json.dumps(resp, ensure_ascii=False)}
        return world, {"error": "", "response": hit if isinstance(hit, str) else json.dumps(hit, ensure_ascii=False)}


def _canonical_key(key: str) -> str | None:
    try:
        value = ast.literal_eval(key)  # a Python dict literal; literal_eval never runs code
    except (ValueError, SyntaxError):
        return None
    return str(dict(sorted(value.items()))) if isinstance(value, dict) else None


class HttpTransport(UpstreamCatalog):
    """Calls a running ToolBench (``/rapidapi``) or StableToolBench (``/virtual``) server. Not exactly restorable."""

    exact_restore = False

    def __init__(self, queries: Sequence[Mapping[str, Any]], service_url: str, toolbench_key: str = "",
                 tools_dir: str | Path | None = None, timeout: float = 60.0):
        super().__init__(queries, tools_dir)
        if not str(service_url).startswith(("http://", "https://")):
            raise ValueError(f"service_url must be an http(s) URL, got {service_url!r}")
        self.service_url, self.key, self.timeout = service_url, toolbench_key, timeout

    @property
    def transport_name(self) -> str:  # type: ignore[override]
        return f"http {self.service_url}"

    def call_spec(self, world: WorldState, spec: ApiSpec, tool_input: Any) -> tuple[WorldState, dict[str, str]]:
        text = tool_input if isinstance(tool_input, str) else json.dumps(tool_input)
        body = {"category": spec.category, "tool_name": spec.standard_tool, "api_name": spec.pure_name,
                "tool_input": text, "strip": "truncate", "toolbench_key": self.key}
        req = urllib.request.Request(self.service_url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "toolbench_key": self.key})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                out = json.loads(r.read().decode())
        except urllib.error.HTTPError as exc:
            return world, {"error": f"request invalid, data error. status_code={exc.code}", "response": ""}
        except (urllib.error.URLError, OSError, ValueError) as exc:
            return world, {"error": f"request invalid, data error ({type(exc).__name__}: {exc})", "response": ""}
        if not isinstance(out, dict):
            return world, {"error": "request invalid, data error", "response": ""}
        resp = out.get("response", "")
        return world, {"error": str(out.get("error", "")), "response": resp if isinstance(resp, str) else json.dumps(resp)}


def make_transport(name: str, queries: Sequence[Mapping[str, Any]], tools_dir: str | Path | None = None,
                   cache_dir: str | Path | None = None, service_url: str | None = None, toolbench_key: str = ""):
    """The transport called ``name`` (one of :data:`TRANSPORTS`) over ``queries``' APIs."""
    if name == "schema":
        return SchemaResponder(queries, tools_dir)
    if name == "stabletoolbench":
        if not cache_dir:
            raise ValueError("transport='stabletoolbench' needs cache_dir= (StableToolBench's tool_response_cache folder)")
        return StableToolBenchCache(queries, cache_dir, tools_dir)
    if name == "http":
        if not service_url:
            raise ValueError("transport='http' needs service_url= (e.g. http://127.0.0.1:8080/virtual)")
        return HttpTransport(queries, service_url, toolbench_key, tools_dir)
    raise ValueError(f"transport must be one of {TRANSPORTS} for upstream queries (or 'mock' for the shipped tasks), got {name!r}")
