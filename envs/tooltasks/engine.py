"""``ToolTasksEngine``: ToolChain*-style tool tasks as a pure engine (see ``domains.py``).

**Action**: one call, as Python (``set_location("Boston")``, ``API.set_num_beds(3)``,
``update_cell(cell="B3", value=12)``; literals only, parsed with ``ast`` and never
executed), JSON ``{"name", "arguments"}`` or ToolBench's ReAct text. A call that
is not executable (wrong order, unknown object, bad value) answers ``Error: ...``
and changes nothing. The domain's final call (``search()`` / ``done()``) ends
the episode and evaluates the final state against the gold state.
"""
from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from treegym.envs.core.contract import ExpertAdvice, StepResult
from treegym.envs.core.records import replaced
from treegym.envs.tools_common.calls import parse_action as parse_json_or_react
from treegym.envs.core.state_json import StateReader
from treegym.envs.tools_common.state_fields import read_evaluation, read_world
from treegym.envs.tools_common.world import WorldState

from .domains import FUNCTIONS, TERMINAL, apply, dict_f1, goal_holds
from .world_check import world_problem


def parse_call(action: Any, functions: Mapping[str, Mapping[str, Any]]) -> tuple[str, dict] | str:
    """``(name, arguments)`` or an error message; positional arguments follow the function's parameter order."""
    text = str(action).strip()
    if text.startswith("API."):
        text = text[4:]
    head = text.split("(", 1)[0].strip()
    if head.isidentifier() and text.endswith(")"):
        call = _python_call(text)
        if isinstance(call, str):
            return call
        name, pos, kw = call
        args = dict(kw)
    else:
        parsed = parse_json_or_react(action)
        if isinstance(parsed, str):
            return f"{parsed}; or write a Python-style call like set_location(\"Boston\")"
        if not isinstance(parsed.arguments, dict):
            return "the arguments are not a JSON object"
        name, pos, args = parsed.name, (), dict(parsed.arguments)
    if name not in functions:
        return f"no function {name!r}; available: {', '.join(functions)}"
    params = functions[name]["parameters"]
    if len(pos) > len(params):
        return f"{name}() takes {len(params)} argument(s), got {len(pos)}"
    args = dict(zip(params, pos), **args)
    unknown = [k for k in args if k not in params]
    if unknown:
        return f"{name}() got an unexpected argument {unknown[0]!r}"
    return name, args


_SCALARS = (str, int, float, type(None))  # literal values no caller can change (bool is an int)
_PYTHON_CALLS: dict[str, tuple[str, tuple, tuple]] = {}
_PYTHON_CALLS_MAX = 4096  # texts remembered; the table starts again when full


def _python_call(text: str) -> tuple[str, tuple, tuple] | str:
    """A Python-style call's ``(name, positional values, keyword pairs)``, or an error message.

    A call is remembered per text when every value is a scalar: agents send the same calls again and again (a
    search expands one call from many nodes), and ``ast.parse`` cost most of a step. A call holding
    a list or dict is parsed every time, so no two steps share a mutable argument."""
    known = _PYTHON_CALLS.get(text)
    if known is not None:
        return known
    try:
        node = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # deep nesting; a lone surrogate (no UTF-8)
        return f"cannot parse the call {text[:80]!r}"
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        return "write one call like set_location(\"Boston\")"
    try:
        pos = tuple(ast.literal_eval(a) for a in node.args)
        kw = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        return "arguments must be literals (strings, numbers, lists, true/false)"
    call = (node.func.id, pos, tuple(kw.items()))
    if all(isinstance(v, _SCALARS) for v in (*pos, *kw.values())):
        if len(_PYTHON_CALLS) >= _PYTHON_CALLS_MAX:
            _PYTHON_CALLS.clear()
        _PYTHON_CALLS[text] = call
    return call


@dataclass(frozen=True)
class TaskState:
    task_id: Any
    world: WorldState
    calls: tuple[tuple[str, str, bool], ...] = ()     # (name, arguments JSON, executable)
    observation: str = ""
    done: bool = False
    evaluation: str | None = None


class ToolTasksEngine:
    def __init__(self, tasks: Sequence[Mapping[str, Any]], splits: Mapping[str, Sequence[Any]], reward_mode: str = "terminal"):
        if reward_mode not in ("terminal", "hidden"):
            raise ValueError(f"reward_mode must be 'terminal' or 'hidden', got {reward_mode!r}")
        self.tasks = {t["task_id"]: t for t in tasks}
        self._splits = {k: tuple(v) for k, v in splits.items()}
        self.reward_mode = reward_mode
        self._initial = {t["task_id"]: WorldState.from_json(t["initial_world"]) for t in tasks}  # (small: pickled whole)

    def splits(self):
        return tuple(self._splits)

    def task_ids(self, split):
        return self._splits[split]

    def task(self, task_id):
        if task_id not in self.tasks:
            raise ValueError(f"unknown ToolTasks task {task_id!r}; ids look like {list(self.tasks)[:3]}")
        return task_id

    def functions(self, task_id) -> dict:
        return FUNCTIONS[self.tasks[task_id]["domain"]]

    def initial_state(self, task, seed):
        return TaskState(task, self._initial[task], observation=self.tasks[task]["query"])

    def is_terminal(self, state):
        return state.done

    def step(self, state: TaskState, action: str) -> StepResult[TaskState]:
        if state.done:
            return StepResult(state, 0.0, True)
        task = self.tasks[state.task_id]
        parsed = parse_call(action, self.functions(state.task_id))
        if isinstance(parsed, str):
            return StepResult(replaced(state, observation=f"Error: {parsed}"))
        name, args = parsed
        world, msg = apply(task["domain"], state.world, name, args)
        ok = not msg.startswith("Error")
        new = replaced(state, world=world, observation=msg,
                       calls=state.calls + ((name, json.dumps(args, sort_keys=True), ok),))
        if name == TERMINAL[task["domain"]]:
            ev = self.evaluate(new)
            new = replaced(new, done=True, evaluation=json.dumps(ev, sort_keys=True),
                          observation=f"{msg}. Task finished.")
            return StepResult(new, 1.0 if self.reward_mode == "terminal" and ev["pass"] else 0.0, True)
        return StepResult(new)

    def evaluate(self, state: TaskState) -> dict[str, Any]:
        task = self.tasks[state.task_id]
        gold, domain = task["gold"], task["domain"]
        out: dict[str, Any] = {"calls": len(state.calls), "non_executable": sum(1 for c in state.calls if not c[2])}
        out["executable"] = out["non_executable"] == 0
        if domain in ("home_search", "trip_booking"):
            form = state.world.get("criteria", "form", {})
            out["f1"] = round(dict_f1(form, gold["form"]), 4)
            out["pass"] = out["f1"] == 1.0
        elif domain == "sheets":
            out["pass"] = (state.world.get("sheet", "rows") == gold["rows"]
                           and sorted(state.world.get("sheet", "bold", [])) == sorted(gold["bold"]))
        else:
            held = [goal_holds(state.world, g) for g in gold["goals"]]
            out["goals_met"] = sum(held)
            out["pass"] = all(held)
            names = [c[0] for c in state.calls if c[2]]
            out["lcs"] = round(_lcs(names, [c.split("(")[0] for c in gold["plan"]]) / max(len(names), len(gold["plan"]), 1), 4)
        return out

    def observe(self, state: TaskState) -> tuple[dict, dict]:
        task = self.tasks[state.task_id]
        fns = self.functions(state.task_id)
        obs = {"text": state.observation, "instruction": task["query"],
               "valid_actions": () if state.done else tuple(task.get("examples", ()))}
        ev = json.loads(state.evaluation) if state.evaluation else None
        info: dict[str, Any] = {"success": bool(ev and ev["pass"]), "domain": task["domain"], "calls": len(state.calls),
                                "finished": state.done}
        if not state.calls:
            info["functions"] = [{"name": k, "parameters": list(v["parameters"]), "description": v["description"]}
                                 for k, v in fns.items()]
        if ev is not None:
            info["evaluation"] = ev
        return obs, info

    def expert(self, state: TaskState) -> ExpertAdvice | None:
        """The gold plan from here: for forms, the setters whose value differs from gold; otherwise the
        unexecuted rest of the reference plan. Checked by simulating it: when it cannot pass any more
        (a form field gold does not have, a diverged sheet or house), the advice is unsolvable, value 0."""
        if state.done:
            ok = bool(json.loads(state.evaluation or "{}").get("pass"))
            return ExpertAdvice((), 1.0 if ok else 0.0, ok)
        task = self.tasks[state.task_id]
        gold, fns = task["gold"], self.functions(state.task_id)
        if task["domain"] in ("home_search", "trip_booking"):
            form = state.world.get("criteria", "form", {})
            plan = []
            for step in gold["plan"][:-1]:
                name, args = parse_call(step, fns)
                key = name[len("set_"):] if name.startswith("set_") else name[len("select_"):]
                if form.get(key) != gold["form"].get(key):
                    plan.append(step)
            plan.append(gold["plan"][-1])
        else:
            i = 0
            for c in (c for c in state.calls if c[2]):  # the executed prefix of the gold plan
                if i < len(gold["plan"]) and _same(gold["plan"][i], c, fns):
                    i += 1
            plan = list(gold["plan"][i:])
        sim = state
        for step in plan:
            sim = self.step(sim, step).state
        if not (sim.evaluation and json.loads(sim.evaluation)["pass"]):
            return ExpertAdvice(tuple(plan), 0.0, False)
        return ExpertAdvice(tuple(plan), 1.0, True)

    def state_to_json(self, state: TaskState) -> dict:
        return {"task_id": state.task_id, "world": state.world.to_json(), "calls": [list(c) for c in state.calls],
                "observation": state.observation, "done": state.done, "evaluation": state.evaluation}

    def state_from_json(self, data: Any) -> TaskState:
        """Every field checked (``StateReader``); the world must fit the task's (``shape_problem``)."""
        r = StateReader(data, "ToolTasks state")
        task_id = self.task(r.task_id())
        calls = []
        for i, c in enumerate(r.items("calls", [])):
            c = r.items_of(c, f"calls[{i}]")
            if len(c) != 3:
                raise r.fail(f"calls[{i}]", "[name, arguments JSON, executable]", c)
            calls.append((r.text_of(c[0], f"calls[{i}][0]"), r.text_of(c[1], f"calls[{i}][1]"),
                          r.flag_of(c[2], f"calls[{i}][2]")))
        world = read_world(r, self._initial[task_id])
        problem = world_problem(self.tasks[task_id]["domain"], world.to_json())
        if problem:
            raise ValueError(f"ToolTasks state field 'world' does not fit task {task_id}: {problem}")
        return TaskState(task_id, world, tuple(calls), r.text("observation", ""),
                         r.flag("done", False), read_evaluation(r))


def _same(step: str, call: tuple, functions) -> bool:
    parsed = parse_call(step, functions)
    return not isinstance(parsed, str) and parsed[0] == call[0] and json.dumps(parsed[1], sort_keys=True) == call[1]


def _lcs(a: Sequence[str], b: Sequence[str]) -> int:
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]
