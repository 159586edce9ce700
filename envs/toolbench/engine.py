"""``ToolBenchEngine``: ToolBench-style tool use as a pure engine (see ``envs/core/contract.py``).

**State** (:class:`ToolState`, immutable): the task id, the world state
(mutable collections only; fixtures live on the service), the call log
(:class:`CallRecord`: function, arguments, status code, response), the last
observation and status code, the Finish arguments, and the evaluation once
the episode is over. A native snapshot is a reference to it.

**Step** (one action = one call, ToolBench's ``_step``):

* a function of the task (ToolBench matches names by suffix, as here) ->
  the service's ``{"error", "response"}`` as JSON text, cut to
  ``max_observation_length`` characters (+ ``...``), status code 0, or
  6-11 by upstream's error strings, or 2 for an input error;
* an unknown name -> ``{"error": "No such function name: X", "response": ""}``, code 1;
* an action that is no tool call -> code 2 with a message saying which forms work;
* ``Finish``: ``give_answer`` with ``final_answer`` -> code 3, the episode ends
  and is evaluated; ``give_up_and_restart`` -> code 4, the episode ends (a
  pruned leaf for DFSDT; a pass on unsolvable tasks); a missing
  ``return_type`` or ``final_answer`` -> code 2 and the episode goes on.
  Unparseable Finish input is salvaged by string search as ToolBench does.

**Reward**: ``reward_mode="terminal"`` gives 1.0 when the finished episode
passes the gold checks (``gold.evaluate``); ``"hidden"`` always gives 0.0
(utility must come from comparisons, as in RaDAgent/Elo studies); the
evaluation is in ``info["evaluation"]`` at the end in both modes, and
``info["success"]`` is the pass flag (the contract requires it).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from treegym.envs.core.contract import ExpertAdvice, StepResult
from treegym.envs.core.records import replaced
from treegym.envs.tools_common.calls import ParsedCall, parse_action
from treegym.envs.core.state_json import StateReader
from treegym.envs.tools_common.checks import PlanError, resolve
from treegym.envs.tools_common.state_fields import read_evaluation, read_finish, read_status, read_world
from treegym.envs.tools_common.world import WorldState

from .gold import evaluate
from .schema import FINISH_FUNCTION, api_to_openai_function, standardize, tool_description_block
from .service import ApiSpec, ToolService

REWARD_MODES = ("terminal", "hidden")
DEFAULT_MAX_OBSERVATION = 1024

# upstream's client maps the service's error strings to status codes (rapidapi_wrapper._step)
ERROR_CODES = {"API not working error...": 6, "Unauthorized error...": 7, "Unsubscribed error...": 8,
               "Too many requests error...": 9, "Rate limit per minute error...": 10, "Message error...": 11}


@dataclass(frozen=True)
class CallRecord:
    """One executed action: function name, canonical arguments (JSON text), status code, ok flag, full response."""

    name: str
    arguments: str
    code: int
    ok: bool
    response: str = ""
    error: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": self.arguments, "code": self.code, "ok": self.ok,
                "response": self.response, "error": self.error}


@dataclass(frozen=True)
class ToolState:
    """Everything an episode has (see the module docstring); never mutated."""

    task_id: Any
    world: WorldState
    calls: tuple[CallRecord, ...] = ()
    observation: str = ""
    status_code: int | None = None
    finish: tuple[tuple[str, str], ...] | None = None   # the Finish arguments, as sorted pairs
    done: bool = False
    evaluation: str | None = None                        # JSON text of the evaluation, at the end


@dataclass
class TaskView:
    """A task prepared for play: its query entry, OpenAI functions and function -> API map (built once, shared)."""

    task: Mapping[str, Any]
    functions: list[dict[str, Any]]
    functions_json: str
    by_name: dict[str, ApiSpec]
    system_prompt: str
    examples: tuple[str, ...]
    initial_world: WorldState
    gold: Mapping[str, Any] | None = field(default=None)


class ToolBenchEngine:
    """The engine (see the module docstring). Tasks and the service are shared, read-only."""

    def __init__(self, service: ToolService, tasks: Sequence[Mapping[str, Any]], splits: Mapping[str, Sequence[Any]],
                 reward_mode: str = "terminal", max_observation_length: int = DEFAULT_MAX_OBSERVATION):
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {REWARD_MODES}, got {reward_mode!r}")
        if not isinstance(max_observation_length, int) or max_observation_length < 16:
            raise ValueError(f"max_observation_length must be an integer >= 16, got {max_observation_length!r}")
        self.service = service
        self.tasks = {t["query_id"]: t for t in tasks}
        self._splits = {k: tuple(v) for k, v in splits.items()}
        self.reward_mode = reward_mode
        self.max_observation_length = max_observation_length
        self._views: dict[Any, TaskView] = {}

    # ------------------------------------------------------------ tasks
    def splits(self) -> Sequence[str]:
        return tuple(self._splits)

    def task_ids(self, split: str) -> Sequence[Any]:
        return self._splits[split]

    def task(self, task_id: Any) -> Any:
        if task_id not in self.tasks:
            # ids arrive as strings from the command line and JSON
            try:
                if int(task_id) in self.tasks:
                    return int(task_id)
            except (TypeError, ValueError):
                pass
            raise ValueError(f"unknown ToolBench task {task_id!r}; ids look like {list(self.tasks)[:3]}")
        return task_id

    def group_of(self, task_id: Any) -> str | None:
        return self.tasks[task_id].get("group")

    def task_fields(self, task: Any) -> dict[str, Any]:
        """The Engine contract's ``task_fields(task)``: ``task`` is what :meth:`task` returns (the id)."""
        view = self.view(task)
        return {"query": view.task["query"], "query_id": view.task["query_id"], "group": view.task.get("group"),
                "functions": json.loads(view.functions_json), "system_prompt": view.system_prompt}

    def evaluate_state(self, state: ToolState) -> dict[str, Any]:
        """The evaluation at the end, or as if the agent stopped now without a Finish."""
        return json.loads(state.evaluation) if state.evaluation else self.evaluate(state, None)

    def view(self, task_id: Any) -> TaskView:
        v = self._views.get(task_id)
        if v is None:
            v = self._views[task_id] = self._make_view(self.tasks[task_id])
        return v

    def _make_view(self, task: Mapping[str, Any]) -> TaskView:
        functions, by_name, tools = [], {}, []
        for entry in task.get("api_list", []):
            spec = self.service.find(entry.get("category_name", ""), entry.get("tool_name", ""), entry.get("api_name", ""))
            std_tool = spec.standard_tool if spec else standardize(entry.get("tool_name", ""))
            f = api_to_openai_function(entry, std_tool)
            functions.append(f)
            if spec is not None:
                by_name[f["name"]] = spec
            tools.append((std_tool, self.service.tool_descriptions.get(std_tool, "")))
        functions.append(json.loads(json.dumps(FINISH_FUNCTION)))
        examples = []
        for f in functions[:-1]:
            props = f["parameters"]["properties"]
            args = {k: props[k].get("example_value", "") for k in f["parameters"]["required"]}
            examples.append(json.dumps({"name": f["name"], "arguments": args}, ensure_ascii=False))
        examples.append(json.dumps({"name": "Finish", "arguments": {"return_type": "give_up_and_restart"}}))
        return TaskView(task, functions, json.dumps(functions), by_name, tool_description_block(tools), tuple(examples),
                        self.service.initial_world, task.get("gold"))

    # ------------------------------------------------------------ engine protocol
    def initial_state(self, task: Any, seed: int | None) -> ToolState:
        view = self.view(task)
        return ToolState(task_id=task, world=view.initial_world, observation=str(view.task["query"]))

    def is_terminal(self, state: ToolState) -> bool:
        return state.done

    def step(self, state: ToolState, action: str) -> StepResult[ToolState]:
        if state.done:
            return StepResult(state, 0.0, True)
        view = self.view(state.task_id)
        parsed = parse_action(action)
        if isinstance(parsed, str):
            obs = json.dumps({"error": f"Invalid action: {parsed}", "response": ""})
            rec = CallRecord("", json.dumps(str(action)[:200]), 2, False)
            return StepResult(replaced(state, calls=state.calls + (rec,), observation=obs, status_code=2))
        if parsed.name == "Finish":
            return self._finish(state, view, parsed)
        return StepResult(self._call(state, view, parsed))

    def _call(self, state: ToolState, view: TaskView, call: ParsedCall) -> ToolState:
        args_text = json.dumps(call.arguments, sort_keys=True, ensure_ascii=False)
        name = next((f["name"] for f in view.functions[:-1] if call.name and f["name"].endswith(call.name)), None)
        spec = view.by_name.get(name) if name else None
        if spec is None:
            reply, code = {"error": f"No such function name: {call.name}", "response": ""}, 1
            world = state.world
        else:
            world, reply = self.service.call_spec(state.world, spec, call.arguments)
            err = reply["error"]
            code = ERROR_CODES.get(err, 2 if err.startswith(("Function executing", "Tool input parse error")) else (11 if err else 0))
        ok = code == 0 and not _failed(reply["response"])
        obs = json.dumps(reply, ensure_ascii=False)
        if len(obs) > self.max_observation_length:
            obs = obs[: self.max_observation_length] + "..."
        rec = CallRecord(name or call.name, args_text, code, ok, reply["response"], reply["error"])
        return replaced(state, world=world, calls=state.calls + (rec,), observation=obs, status_code=code)

    def _finish(self, state: ToolState, view: TaskView, call: ParsedCall) -> StepResult[ToolState]:
        data = call.arguments
        if not isinstance(data, dict):
            data = _salvage_finish(str(data))
        rec_args = json.dumps(data, sort_keys=True, ensure_ascii=False)
        rtype = data.get("return_type")
        if rtype is None:
            obs, code = '{error:"must have "return_type""}', 2
        elif rtype == "give_up_and_restart":
            obs, code = '{"response":"chose to give up and restart"}', 4
        elif rtype == "give_answer":
            if "final_answer" not in data:
                obs, code = '{error:"must have "final_answer""}', 2
            else:
                obs, code = '{"response":"successfully giving the final answer."}', 3
        else:
            obs, code = '{error:""return_type" is not a valid choice"}', 2
        rec = CallRecord("Finish", rec_args, code, code in (3, 4))
        new = replaced(state, calls=state.calls + (rec,), observation=obs, status_code=code)
        if code not in (3, 4):
            return StepResult(new)
        finish = {"return_type": rtype, "final_answer": str(data.get("final_answer") or "")}
        ev = self.evaluate(new, finish)
        new = replaced(new, finish=tuple(sorted(finish.items())), done=True, evaluation=json.dumps(ev, sort_keys=True))
        reward = 1.0 if (self.reward_mode == "terminal" and ev.get("pass")) else 0.0
        return StepResult(new, reward, True)

    def evaluate(self, state: ToolState, finish: Mapping[str, Any] | None) -> dict[str, Any]:
        """The gold evaluation of ``state`` ending with ``finish`` (tasks without gold: pass is None)."""
        view = self.view(state.task_id)
        calls = [{"name": c.name, "code": c.code, "ok": c.ok} for c in state.calls if c.name != "Finish"]
        names = [f["name"] for f in view.functions[:-1]]
        if view.gold is None:
            return {"pass": None, "finished": finish is not None, "return_type": (finish or {}).get("return_type"),
                    "tool_calls": len(calls), "hallucinated_calls": sum(1 for c in calls if c["name"] not in names),
                    "invalid_calls": sum(1 for c in calls if c["code"] == 2), "note": "no gold for this task"}
        return evaluate(view.gold, view.initial_world, state.world, finish, calls, names)

    def observe(self, state: ToolState) -> tuple[dict, dict]:
        view = self.view(state.task_id)
        obs = {"text": state.observation, "instruction": str(view.task["query"]),
               "valid_actions": () if state.done else view.examples}
        ev = json.loads(state.evaluation) if state.evaluation else None
        info: dict[str, Any] = {
            "success": bool(ev and ev.get("pass")), "status_code": state.status_code, "tool_calls": len(state.calls),
            "query_id": state.task_id, "group": view.task.get("group"), "finished": state.done,
            "give_up": bool(state.finish and dict(state.finish).get("return_type") == "give_up_and_restart"),
        }
        if not state.calls:  # the functions never change in an episode: ToolBench gives them once, at the start
            info["functions"] = json.loads(view.functions_json)
        if ev is not None:
            info["evaluation"] = ev
            if "correct_path" in ev:
                info["correct_path"] = bool(ev["correct_path"])  # the record's CPR flag (envs/core/contract.py)
        return obs, info

    # ------------------------------------------------------------ expert
    def expert(self, state: ToolState) -> ExpertAdvice | None:
        view = self.view(state.task_id)
        gold = view.gold
        if gold is None:
            return None
        if state.done:
            ev = json.loads(state.evaluation or "{}")
            return ExpertAdvice(plan=(), value=1.0 if ev.get("pass") else 0.0, solvable=bool(ev.get("pass")))
        plan = [s for s in gold["reference_plan"] if s["name"] != "Finish"]
        finish = next(s for s in gold["reference_plan"] if s["name"] == "Finish")
        ref_calls = gold.get("reference_calls", [])
        responses: list[Any] = []
        i, stray = 0, False
        for c in state.calls:
            if c.name == "Finish":
                continue
            gold_ok = ref_calls[i].get("ok", True) if i < len(ref_calls) else True
            if i < len(plan) and c.code == 0 and c.ok == gold_ok and c.name == plan[i]["name"] \
                    and _same_args(c.arguments, self._args(plan[i], responses, ref_calls, i)):
                responses.append(json.loads(c.response))
                i += 1
            elif c.ok and c.name in view.by_name and view.by_name[c.name].mutates:
                stray = True
        actions = []
        for k in range(i, len(plan)):
            actions.append(json.dumps({"name": plan[k]["name"], "arguments": self._args(plan[k], responses, ref_calls, k)},
                                      ensure_ascii=False))
        try:
            fin = resolve(finish["arguments"], responses) if i == len(plan) else None
        except PlanError:
            fin = None
        if fin is None:
            fin = {"return_type": "give_answer", "final_answer": gold.get("final_answer", "")} \
                if gold.get("solvable", True) else dict(finish["arguments"])
        actions.append(json.dumps({"name": "Finish", "arguments": fin}, ensure_ascii=False))
        return ExpertAdvice(plan=tuple(actions), value=0.0 if stray else 1.0, solvable=not stray)

    @staticmethod
    def _args(step: Mapping[str, Any], responses: list[Any], ref_calls: Sequence[Mapping[str, Any]], k: int) -> Any:
        try:
            return resolve(step["arguments"], responses)
        except PlanError:
            return ref_calls[k]["arguments"] if k < len(ref_calls) else step["arguments"]

    # ------------------------------------------------------------ JSON form (session servers)
    def state_to_json(self, state: ToolState) -> dict[str, Any]:
        return {"task_id": state.task_id, "world": state.world.to_json(), "calls": [c.to_json() for c in state.calls],
                "observation": state.observation, "status_code": state.status_code,
                "finish": dict(state.finish) if state.finish is not None else None, "done": state.done,
                "evaluation": state.evaluation}

    def state_from_json(self, data: Any) -> ToolState:
        """Every field checked (``StateReader``); the world must fit the task's (``shape_problem``)."""
        r = StateReader(data, "ToolBench state")
        task_id = self.task(r.task_id())
        calls = []
        for i, c in enumerate(r.items("calls", [])):
            c, at = r.object_of(c, f"calls[{i}]"), f"calls[{i}]"
            calls.append(CallRecord(r.text_of(c.get("name"), f"{at}.name"), r.text_of(c.get("arguments"), f"{at}.arguments"),
                                    r.integer_of(c.get("code"), f"{at}.code", -999, 999), r.flag_of(c.get("ok"), f"{at}.ok"),
                                    r.text_of(c.get("response", ""), f"{at}.response"),
                                    r.text_of(c.get("error", ""), f"{at}.error")))
        return ToolState(task_id, read_world(r, self.view(task_id).initial_world), tuple(calls),
                         r.text("observation", ""), read_status(r), read_finish(r), r.flag("done", False),
                         read_evaluation(r))


def _failed(response: str) -> bool:
    """True when a service response is a business failure (``{"status": "failed", "reason": ...}``)."""
    if '"failed"' not in response:
        return False
    try:
        payload = json.loads(response)
    except ValueError:
        return False
    return isinstance(payload, dict) and payload.get("status") == "failed"


def _same_args(recorded: str, want: Any) -> bool:
    try:
        have = json.loads(recorded)
    except ValueError:
        return False
    norm = lambda d: {k: str(v).strip().lower() for k, v in d.items()} if isinstance(d, dict) else d  # noqa: E731
    return norm(have) == norm(want)


def _salvage_finish(text: str) -> dict[str, Any]:
    """ToolBench's string search for ``return_type`` / ``final_answer`` in Finish input that is not JSON."""
    out: dict[str, Any] = {}
    key = '"return_type": "'
    if key in text:
        if '"return_type": "give_answer"' in text:
            out["return_type"] = "give_answer"
        elif '"return_type": "give_up_and_restart"' in text:
            out["return_type"] = "give_up_and_restart"
        else:
            start = text.find(key) + len(key)
            out["return_type"] = text[start:text.find('",', start)]
    key = '"final_answer": "'
    if key in text:
        out["final_answer"] = text[text.find(key) + len(key):]
    return out
