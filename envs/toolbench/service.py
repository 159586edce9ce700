"""The mock tool service: a tool catalog (ToolBench tool files) + fixtures (``tools_common.fixtures``) + handlers.

:class:`ToolService` answers one call the way ToolBench's RapidAPI service
does, as a pure function of the world state::

    new_world, reply = service.call(world, category, tool, api, tool_input)

``reply`` is ``{"error": str, "response": str}`` (the response is the JSON
text of the payload, cut to 2048 characters as upstream's service cuts it):

* unknown tool or API of a known category/tool -> ``error`` "API not working error..." (upstream's 404 text);
* tool input that is not a JSON object -> "Tool input parse error...\\n";
* a missing required or an unexpected argument, or a value of the wrong type
  or form -> "Function executing from my_tools.{Category}.{tool}.api import
  {api} error...\\n{api}() missing 1 required positional argument: 'x'" (the
  Python message upstream's ``eval`` produces);
* a business failure (sold out, insufficient funds, unknown id) -> no error,
  response ``{"status": "failed", "reason": ...}``;
* otherwise the payload.

The state never changes on an error or a failure. Nothing raises.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from treegym.envs.core import jsonsafe
from treegym.envs.tools_common.fixtures import Fixtures, shipped_fixtures
from treegym.envs.tools_common.world import Tx, WorldState, static_world

from .handlers import HANDLERS, BadInput, Ctx, Failed
from .schema import api_function_name, change_name, standardize

DATA_DIR = Path(__file__).with_name("data")
RESPONSE_MAX = 2048

ERR_NOT_WORKING = "API not working error..."
ERR_PARSE = "Tool input parse error...\n"


def standard_category(category: str) -> str:
    """ToolBench/StableToolBench's category normalization (spaces, commas, slashes -> ``_``)."""
    s = str(category).replace(" ", "_").replace(",", "_").replace("/", "_")
    while "__" in s:
        s = s.replace("__", "_")
    return s


def api_key(category: str, tool: str, api: str) -> tuple[str, str, str]:
    """(category, standardized tool, pure API name) of an API named as ToolBench's service names
    it: the tool may carry ``_for_{Category}`` and the API ``_for_{tool}``."""
    cat = standard_category(category)
    tool_std = standardize(str(tool))
    if tool_std.endswith("_for_" + cat.lower()):
        tool_std = tool_std[: -len("_for_" + cat.lower())]
    api_std = change_name(standardize(str(api)))
    if api_std.endswith("_for_" + tool_std):
        api_std = api_std[: -len("_for_" + tool_std)]
    return cat, tool_std, api_std


@dataclass(frozen=True)
class ApiSpec:
    """One API of the catalog, with what the service needs to run it."""

    category: str
    tool_name: str           # the tool file's ``tool_name``
    standard_tool: str       # the file stem (ToolBench's standard tool name)
    name: str                # the API's ``name`` as in the tool file
    pure_name: str           # change_name(standardize(name))
    function_name: str       # ``{api}_for_{tool}``
    description: str
    method: str
    required: tuple[Mapping[str, Any], ...]
    optional: tuple[Mapping[str, Any], ...]
    mock: Mapping[str, Any]

    @property
    def mutates(self) -> bool:
        return bool(self.mock.get("mutates"))

    def query_entry(self) -> dict[str, Any]:
        """The API as an entry of a ToolBench query's ``api_list``."""
        return {"category_name": self.category, "tool_name": self.tool_name, "api_name": self.name,
                "api_description": self.description, "required_parameters": [dict(p) for p in self.required],
                "optional_parameters": [dict(p) for p in self.optional], "method": self.method}


class ToolService:
    """Tool files + fixtures + handlers (see module docstring). Read-only after construction."""

    def __init__(self, tools: Mapping[str, Mapping[str, Mapping[str, Any]]], fixtures: Mapping[str, Any] | Fixtures):
        self.tools = tools  # category -> standard tool name -> tool JSON
        self.fixtures = fixtures if isinstance(fixtures, Fixtures) else Fixtures(fixtures)
        self.initial_world = static_world(self.fixtures.data.get("initial_world", {}))
        self.apis: dict[tuple[str, str, str], ApiSpec] = {}
        self.by_function: dict[str, list[ApiSpec]] = {}
        self.tool_descriptions: dict[str, str] = {}
        for category, tools_in in tools.items():
            for std_tool, tool in tools_in.items():
                self.tool_descriptions[std_tool] = tool.get("tool_description", "")
                for api in tool.get("api_list", []):
                    spec = ApiSpec(category, tool["tool_name"], std_tool, api["name"], change_name(standardize(api["name"])),
                                   api_function_name(api["name"], std_tool), api.get("description", ""),
                                   api.get("method", "GET"), tuple(api.get("required_parameters") or ()),
                                   tuple(api.get("optional_parameters") or ()), api.get("x-mock") or {})
                    self.apis[(standard_category(category), std_tool, spec.pure_name)] = spec
                    self.by_function.setdefault(spec.function_name, []).append(spec)

    # ------------------------------------------------------------- lookup
    def find(self, category: str, tool: str, api: str) -> ApiSpec | None:
        """The API named like ToolBench's service names it (tool may carry ``_for_{Category}``, api ``_for_{tool}``)."""
        cat, tool_std, api_std = api_key(category, tool, api)
        spec = self.apis.get((cat, tool_std, api_std))
        if spec is None:  # category names are matched case-insensitively as a courtesy
            for (c, t, a), s in self.apis.items():
                if c.lower() == cat.lower() and t == tool_std and a == api_std:
                    return s
        return spec

    def all_apis(self) -> Iterable[ApiSpec]:
        return self.apis.values()

    # ------------------------------------------------------------- calls
    def call(self, world: WorldState, category: str, tool: str, api: str, tool_input: Any) -> tuple[WorldState, dict[str, str]]:
        spec = self.find(category, tool, api)
        if spec is None:
            return world, {"error": ERR_NOT_WORKING,
                           "response": f"no API {api!r} in tool {tool!r} of category {category!r}"}
        return self.call_spec(world, spec, tool_input)

    def call_spec(self, world: WorldState, spec: ApiSpec, tool_input: Any) -> tuple[WorldState, dict[str, str]]:
        tool_input = parse_tool_input(tool_input)
        if tool_input is None:
            return world, {"error": ERR_PARSE, "response": ""}
        args, problem = bind_arguments(spec, tool_input)
        if problem is None:
            tx = Tx(world)
            try:
                payload = HANDLERS[spec.mock["handler"]](Ctx(self.fixtures, tx, spec.mock), args)
            except Failed as exc:
                return world, {"error": "", "response": _dump({"status": "failed", "reason": str(exc)})}
            except BadInput as exc:
                problem = f"{spec.pure_name}() {exc}"
            except (TypeError, ValueError, KeyError) as exc:  # a value a handler could not use
                problem = f"{spec.pure_name}() {type(exc).__name__}: {exc}"
            else:
                return tx.commit(), {"error": "", "response": _dump(payload)}
        return world, function_error(spec, problem)


def parse_tool_input(tool_input: Any) -> dict | None:
    """The tool input as a dict (JSON text parsed; empty text is ``{}``), or None when it is no JSON object."""
    if isinstance(tool_input, str):
        if tool_input.strip() == "":
            return {}
        try:
            tool_input = jsonsafe.loads(tool_input, strict=False)
        except ValueError:
            return None
    return tool_input if isinstance(tool_input, dict) else None


def function_error(spec: ApiSpec, problem: str) -> dict[str, str]:
    """The reply of ToolBench's service when the API function raised (its ``exec``/``eval`` message)."""
    code = f"from my_tools.{standard_category(spec.category)}.{spec.standard_tool}.api import {spec.pure_name}"
    return {"error": f"Function executing {code} error...\n{problem}", "response": ""}


def bind_arguments(spec: ApiSpec, given: Mapping[str, Any]) -> tuple[dict[str, Any], str | None]:
    """Arguments by parameter name, converted to the declared types, or a Python-style message."""
    params = {change_name(standardize(p["name"])): (p, True) for p in spec.required}
    params.update({change_name(standardize(p["name"])): (p, False) for p in spec.optional})
    for key in given:
        if key not in params:
            return {}, f"{spec.pure_name}() got an unexpected keyword argument '{key}'"
    missing = [k for k, (_, req) in params.items() if req and (given.get(k) is None or given.get(k) == "")]
    if missing:
        names = " and ".join(f"'{m}'" for m in missing)
        plural = "s" if len(missing) > 1 else ""
        return {}, f"{spec.pure_name}() missing {len(missing)} required positional argument{plural}: {names}"
    args: dict[str, Any] = {}
    for key, (p, _) in params.items():
        value = given.get(key)
        if value is None or value == "":
            continue
        if p["type"] == "NUMBER":
            if isinstance(value, bool):
                return {}, f"{spec.pure_name}() argument '{key}' must be a number, got {value!r}"
            try:
                num = float(value)
            except (TypeError, ValueError):
                return {}, f"{spec.pure_name}() argument '{key}' must be a number, got {value!r}"
            if num != num or num in (float("inf"), float("-inf")):
                return {}, f"{spec.pure_name}() argument '{key}' must be a finite number, got {value!r}"
            value = int(num) if num.is_integer() else num
        elif p["type"] == "BOOLEAN":
            if isinstance(value, str) and value.strip().lower() in ("true", "false"):
                value = value.strip().lower() == "true"
            elif not isinstance(value, bool):
                return {}, f"{spec.pure_name}() argument '{key}' must be true or false, got {value!r}"
        elif isinstance(value, (dict, list)):
            return {}, f"{spec.pure_name}() argument '{key}' must be a string, got {type(value).__name__}"
        else:
            value = str(value)
        args[key] = value
    return args, None


def _dump(payload: Any) -> str:
    # sorted keys: a response never depends on the insertion order of records, which a JSON
    # round trip of the world (snapshots over HTTP) may change
    return json.dumps(payload, ensure_ascii=False, sort_keys=True)[:RESPONSE_MAX]


# ------------------------------------------------------------------ loading
def load_tools_dir(path: str | os.PathLike) -> dict[str, dict[str, dict[str, Any]]]:
    """``{Category}/{tool}.json`` files under ``path`` (ToolBench's ``data/toolenv/tools`` layout)."""
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"tools directory {root} does not exist")
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for cat_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        for f in sorted(cat_dir.glob("*.json")):
            try:
                tool = json.loads(f.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise ValueError(f"tool file {f} is not valid JSON: {exc}") from exc
            if not isinstance(tool, dict) or "api_list" not in tool or "tool_name" not in tool:
                raise ValueError(f"tool file {f} is not a ToolBench tool (needs tool_name and api_list)")
            out.setdefault(cat_dir.name, {})[f.stem] = tool
    return out


_DEFAULT: ToolService | None = None


def default_service() -> ToolService:
    """The shipped catalog and fixtures, loaded once per process and shared."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = ToolService(load_tools_dir(DATA_DIR / "tools"), shipped_fixtures())
    return _DEFAULT
