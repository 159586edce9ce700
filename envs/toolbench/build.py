"""Build the shipped ToolBench mock data: ``python -m treegym.envs.toolbench.build [--out DIR] [--check]``.

Writes, deterministically (fixed seeds, sorted keys):

* ``tools/{Category}/{tool}.json``: ToolBench tool files (+ ``x-mock``);
  ``template_response`` is the type skeleton of a real call with the API's
  example arguments (``{"key": "str", ...}`` as in ToolBench's files);
* ``queries/G1_query.json``, ``G2_query.json``, ``G3_query.json``: tasks in
  ToolBench's query format with ``group``, ``split`` and ``gold``;
* ``splits.json``: ``{"dev": [ids], "test": [ids]}``.

``--check`` rebuilds in memory and exits non-zero when the shipped files differ.
The fixture tables these files derive from are shared with RestBench-v0 and
shipped by ``treegym.envs.tools_common.fixture_data`` (its own ``--check``).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from treegym.envs.tools_common.fixture_data import FIXTURE_SEED, generate_fixtures

from .schema import change_name, standardize
from .service import DATA_DIR, ToolService
from .tasks import GROUPS, build_tasks
from .toolspec import CATALOG

TASK_SEED = 7


def type_skeleton(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: type_skeleton(v) for k, v in value.items()}
    if isinstance(value, list):
        return [type_skeleton(value[0])] if value else []
    return {bool: "bool", int: "int", float: "float", str: "str"}.get(type(value), "NoneType")


def tool_files() -> dict[str, dict[str, dict[str, Any]]]:
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for category, tools in CATALOG.items():
        for tool in tools:
            std = standardize(tool["tool_name"])
            apis = []
            for api in tool["api_list"]:
                pure = change_name(standardize(api["name"]))
                apis.append({"name": api["name"], "url": f"https://{std.replace('_', '-')}.p.rapidapi.com/{pure}",
                             "description": api["description"], "method": api["method"],
                             "required_parameters": api["required_parameters"],
                             "optional_parameters": api["optional_parameters"], "template_response": {},
                             "x-mock": api["x-mock"]})
            out.setdefault(category, {})[std] = {"tool_name": tool["tool_name"], "tool_description": tool["tool_description"],
                                                 "title": tool["tool_name"], "standardized_name": std, "api_list": apis}
    return out


def add_template_responses(service: ToolService, tools: dict) -> None:
    for category, by_tool in tools.items():
        for std, tool in by_tool.items():
            for api in tool["api_list"]:
                spec = service.find(category, std, api["name"])
                example = {change_name(standardize(p["name"])): p["default"] for p in api["required_parameters"]}
                _, reply = service.call_spec(service.initial_world, spec, example)
                try:
                    payload = json.loads(reply["response"]) if reply["response"] else {}
                except ValueError:
                    payload = {}
                api["template_response"] = type_skeleton(payload)


def build(out: Path | None = None) -> dict[str, str]:
    """All files as ``{relative path: text}``; written under ``out`` when given."""
    fixtures = generate_fixtures(FIXTURE_SEED)
    tools = tool_files()
    service = ToolService(tools, fixtures)
    add_template_responses(service, tools)
    tasks = build_tasks(service, TASK_SEED)
    files: dict[str, str] = {}
    for category, by_tool in tools.items():
        for std, tool in by_tool.items():
            files[f"tools/{category}/{std}.json"] = _dump(tool, indent=1)
    for group in GROUPS:
        files[f"queries/{group}_query.json"] = _dump([t for t in tasks if t["group"] == group], indent=1)
    files["splits.json"] = _dump({s: [t["query_id"] for t in tasks if t["split"] == s] for s in ("dev", "test")})
    if out is not None:
        for rel, text in files.items():
            p = out / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")
    return files


def _dump(obj: Any, indent: int | None = None) -> str:
    return json.dumps(obj, indent=indent, sort_keys=False, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(DATA_DIR), help=f"output directory (default {DATA_DIR})")
    ap.add_argument("--check", action="store_true", help="compare with the files in --out instead of writing")
    args = ap.parse_args(argv)
    out = Path(args.out)
    if args.check:
        files = build(None)
        bad = [rel for rel, text in files.items() if not (out / rel).is_file() or (out / rel).read_text(encoding="utf-8") != text]
        for rel in bad:
            print(f"differs: {rel}", file=sys.stderr)
        print("up to date" if not bad else f"{len(bad)} files differ; rebuild with python -m treegym.envs.toolbench.build")
        return 1 if bad else 0
    files = build(out)
    n_tasks = sum(len(json.loads(files[f"queries/{g}_query.json"])) for g in GROUPS)
    print(f"wrote {len(files)} files to {out}: {sum(1 for r in files if r.startswith('tools/'))} tools, {n_tasks} tasks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
