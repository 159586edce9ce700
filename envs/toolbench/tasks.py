"""Tasks: generation with gold (build time) and loading (run time).

A task is one entry of a ToolBench query file (``query``, ``query_id``,
``api_list``, ``relevant APIs``) plus ``group`` (G1/G2/G3), ``split``
(dev/test), ``template`` and ``gold`` (see ``gold.py``).

:func:`build_tasks` draws slots for every template (seeded), runs each
reference plan against the service from the initial world, resolves every
gold value from the real responses, records the calls the plan changed
(``allowed_mutations``) and verifies that the reference plan passes and an
empty Finish fails; a template that does not verify stops the build.
"""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from treegym.envs.tools_common.checks import resolve
from treegym.envs.tools_common.world import WorldState

from .gold import evaluate
from .schema import standardize
from .service import ApiSpec, ToolService
from .templates import TEMPLATES
from treegym.envs.tools_common.world import changed_collections

GROUPS = ("G1", "G2", "G3")
SPLITS = ("test", "dev")
QUOTA = {"G1": 8, "G2": 11, "G3": 12}          # tasks per solvable template
QUOTA_UNSOLVABLE = {"G1": 4, "G2": 4, "G3": 4}  # tasks per unsolvable template
ID_BASE = {"G1": 10000, "G2": 20000, "G3": 30000}


class PlanFailed(RuntimeError):
    """A reference plan did not run cleanly against the service (a bug in a template or handler)."""


def function_map(service: ToolService, apis: Iterable[ApiSpec]) -> dict[str, ApiSpec]:
    return {a.function_name: a for a in apis}


def run_plan(service: ToolService, world: WorldState, plan: Sequence[Mapping[str, Any]]
             ) -> tuple[WorldState, list[Any], list[dict[str, Any]], dict[str, Any] | None]:
    """Run a reference plan: the final world, each step's parsed response, the resolved calls and the Finish arguments."""
    responses: list[Any] = []
    calls: list[dict[str, Any]] = []
    finish = None
    for step in plan:
        args = resolve(step["arguments"], responses)
        if step["name"] == "Finish":
            finish = args
            break
        specs = service.by_function.get(step["name"])
        if not specs:
            raise PlanFailed(f"unknown function {step['name']!r}")
        world, reply = service.call_spec(world, specs[0], args)
        if reply["error"]:
            raise PlanFailed(f"{step['name']}({args}) answered {reply['error']!r}")
        payload = json.loads(reply["response"])
        failed = isinstance(payload, dict) and payload.get("status") == "failed"
        responses.append(payload)
        calls.append({"name": step["name"], "arguments": args, "code": 0, "ok": not failed})
    return world, responses, calls, finish


def _api_list(service: ToolService, tools: Sequence[str], rng: random.Random, group: str) -> list[ApiSpec]:
    by_tool: dict[str, list[ApiSpec]] = {}
    for spec in service.all_apis():
        by_tool.setdefault(spec.standard_tool, []).append(spec)
    chosen = [standardize(t) for t in tools]
    categories = sorted({by_tool[t][0].category for t in chosen})
    if group != "G1":  # one distractor tool from a category of the query, as ToolBench samples tools per category
        pool = sorted(t for t, specs in by_tool.items() if specs[0].category in categories and t not in chosen)
        chosen.append(rng.choice(pool))
    return [s for t in chosen for s in by_tool[t]]


def _answer_checks(spec: Sequence[Any], responses: list[Any]) -> list[dict[str, Any]]:
    checks = []
    for item in spec:
        ref, tol = (item["ref"], item.get("tol")) if isinstance(item, dict) else (item, None)
        value = resolve(ref, responses)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            checks.append({"kind": "contains", "value": str(value)})
        else:
            checks.append({"kind": "number", "value": value, "tol": tol if tol is not None else max(0.011, abs(value) * 1e-4)})
    return checks


def build_task(service: ToolService, name: str, draft: Mapping[str, Any], group: str, solvable: bool, query_id: int,
               rng: random.Random) -> dict[str, Any]:
    initial = service.initial_world
    world, responses, calls, finish = run_plan(service, initial, draft["plan"])
    if finish is None:
        raise PlanFailed(f"template {name}: the plan does not end with Finish")
    apis = _api_list(service, draft["tools"], rng, group)
    plan_calls = [s["name"] for s in draft["plan"] if s["name"] != "Finish"]
    gold: dict[str, Any] = {
        "solvable": solvable,
        "reference_plan": draft["plan"],
        "reference_calls": calls,
        "final_answer": finish.get("final_answer", ""),
        "solution_path": plan_calls if solvable else plan_calls[:1],
        "alternatives": draft.get("alternatives", []),
        "answer": _answer_checks(draft.get("answer", []), responses) if solvable else [],
        "state": resolve(draft.get("state", []), responses) if solvable else [],
        "allowed_mutations": sorted(_changed(initial, world)) if solvable else [],
        "final_world_digest": world.digest(),
    }
    relevant = []
    for fname in dict.fromkeys(plan_calls):
        spec = service.by_function[fname][0]
        relevant.append([spec.tool_name, spec.name])
    task = {"query": draft["query"], "query_id": query_id, "api_list": [a.query_entry() for a in apis],
            "relevant APIs": relevant, "group": group, "template": name, "gold": gold}
    functions = [a.function_name for a in apis]
    ref = evaluate(gold, initial, world, finish, calls, functions)
    if not ref["pass"]:
        raise PlanFailed(f"template {name} task {query_id}: the reference plan fails its own gold: {ref['failed_checks']}")
    empty = evaluate(gold, initial, initial, {"return_type": "give_answer", "final_answer": ""}, [], functions)
    if empty["pass"]:
        raise PlanFailed(f"template {name} task {query_id}: an empty Finish passes; the gold checks nothing")
    return task


def _changed(a: WorldState, b: WorldState) -> list[str]:
    return changed_collections(a, b)


def build_tasks(service: ToolService, seed: int = 7) -> list[dict[str, Any]]:
    """All tasks, G1 then G2 then G3, each group in template order (deterministic in ``seed``)."""
    rng = random.Random(seed)
    tasks: list[dict[str, Any]] = []
    for group in GROUPS:
        n = 0
        for name, (g, solvable, fn) in TEMPLATES.items():
            if g != group:
                continue
            want = QUOTA[group] if solvable else QUOTA_UNSOLVABLE[group]
            seen: set[str] = set()
            tries = 0
            while len(seen) < want:
                tries += 1
                if tries > 500:
                    raise PlanFailed(f"template {name}: only {len(seen)} distinct tasks after 500 draws")
                draft = fn(rng, service.fixtures)
                if draft is None or draft["query"] in seen:
                    continue
                seen.add(draft["query"])
                task = build_task(service, name, draft, group, solvable, ID_BASE[group] + n, rng)
                task["split"] = "dev" if n % 5 == 0 else "test"
                tasks.append(task)
                n += 1
    return tasks


# ------------------------------------------------------------------ loading
def load_query_file(path: str | Path) -> list[dict[str, Any]]:
    """A ToolBench query file (a JSON list of queries), with a clear error for anything else."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise FileNotFoundError(f"cannot read query file {p}: {exc}") from exc
    except ValueError as exc:
        raise ValueError(f"query file {p} is not valid JSON: {exc}") from exc
    if not isinstance(data, list):
        raise ValueError(f"query file {p} must hold a JSON list of queries, got {type(data).__name__}")
    for i, q in enumerate(data):
        if not isinstance(q, dict) or "query" not in q:
            raise ValueError(f"query file {p}: entry {i} has no 'query' field")
        if "query_id" not in q:
            q["query_id"] = i  # as ToolBench's runner numbers them
    return data
