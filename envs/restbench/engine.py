"""``RestBenchEngine``: RestBench-style REST tasks (TMDB, Spotify) as a pure engine.

**State** (:class:`RestState`, immutable): task id, world (Spotify playlists;
TMDB is read-only), the request log, the last observation, the Finish and the
evaluation at the end. **Step**: one request (see ``actions.py``) answered by
the task's API -> observation ``{"status_code": N, "response": body}`` as JSON
text (cut to ``max_observation_length``); unknown paths are 404, a path that
takes another method 405, bad parameters 400; a failed request changes
nothing. ``Final Answer: ...`` (or ToolBench's Finish) ends the episode and
evaluates it: answer checks, final-state checks (Spotify), no mutation outside
the gold plan's, and the correct path (``cpr.py``) as a diagnostic.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from treegym.envs.core.contract import ExpertAdvice, StepResult
from treegym.envs.core.state_json import StateReader
from treegym.envs.tools_common.checks import PlanError, check_answer, check_state, resolve
from treegym.envs.tools_common.state_fields import read_evaluation, read_finish, read_status, read_world
from treegym.envs.tools_common.world import Tx, WorldState, changed_collections

from .actions import Finish, Request, parse_action
from .api import Router, call, route_error
from .catalog import RestData
from .cpr import correct_path

REWARD_MODES = ("terminal", "hidden")
DEFAULT_MAX_OBSERVATION = 8192   # characters of an observation; TMDB and Spotify bodies are verbose


@dataclass(frozen=True)
class RestCall:
    method: str
    path: str
    endpoint: str          # "GET /movie/{movie_id}" or "" when nothing matched
    status: int
    args: str              # JSON of query/body parameters
    body: str              # JSON of the response body

    def to_json(self) -> dict[str, Any]:
        return {"method": self.method, "path": self.path, "endpoint": self.endpoint, "status": self.status,
                "args": self.args, "body": self.body}


@dataclass(frozen=True)
class RestState:
    task_id: Any
    world: WorldState
    calls: tuple[RestCall, ...] = ()
    observation: str = ""
    status_code: int | None = None
    finish: tuple[tuple[str, Any], ...] | None = None
    done: bool = False
    evaluation: str | None = None


class RestBenchEngine:
    """The engine (see the module docstring)."""

    def __init__(self, data: RestData, tasks: Sequence[Mapping[str, Any]], splits: Mapping[str, Sequence[Any]],
                 initial_world: WorldState, reward_mode: str = "terminal",
                 max_observation_length: int = DEFAULT_MAX_OBSERVATION):
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {REWARD_MODES}, got {reward_mode!r}")
        self.data = data
        self.tasks = {t["query_id"]: t for t in tasks}
        self._splits = {k: tuple(v) for k, v in splits.items()}
        self.initial_world = initial_world
        self.reward_mode = reward_mode
        self.max_observation_length = max_observation_length
        self.routers = {"tmdb": Router("tmdb"), "spotify": Router("spotify")}
        first_movie, first_track = min(data.movies), sorted(data.tracks)[0]
        # suggested requests (any request that fits the API is legal; these exercise reads and writes)
        self.examples = {
            "tmdb": ("GET /movie/top_rated", "GET /trending/movie/week", "GET /genre/movie/list",
                     "GET /search/movie?query=the", f"GET /movie/{first_movie}/credits", "GET /person/popular"),
            "spotify": ("GET /me", "GET /me/playlists", "GET /search?q=night&type=track",
                        'POST /users/treegym_user/playlists {"name": "New Mix"}',
                        'POST /playlists/pl0001chill/tracks {"uris": ["spotify:track:%s"]}' % first_track,
                        'PUT /playlists/pl0002gym {"name": "Renamed"}',
                        'DELETE /playlists/pl0001chill/tracks {"tracks": [{"uri": "spotify:track:%s"}]}' % first_track)}
        for k in self.examples:  # the answer action too, so every action form has a listed example
            self.examples[k] += ("Final Answer: I could not find it.",)

    def splits(self) -> Sequence[str]:
        return tuple(self._splits)

    def task_ids(self, split: str) -> Sequence[Any]:
        return self._splits[split]

    def task(self, task_id: Any) -> Any:
        if task_id in self.tasks:
            return task_id
        try:
            if int(task_id) in self.tasks:
                return int(task_id)
        except (TypeError, ValueError):
            pass
        raise ValueError(f"unknown RestBench task {task_id!r}; ids look like {list(self.tasks)[:3]}")

    def endpoints(self, api: str) -> list[str]:
        return [f"{e.name}: {e.summary}" for e in self.routers[api].endpoints]

    def initial_state(self, task: Any, seed: int | None) -> RestState:
        return RestState(task_id=task, world=self.initial_world, observation=self.tasks[task]["query"])

    def is_terminal(self, state: RestState) -> bool:
        return state.done

    def step(self, state: RestState, action: str) -> StepResult[RestState]:
        if state.done:
            return StepResult(state, 0.0, True)
        parsed = parse_action(action)
        if isinstance(parsed, str):
            obs = json.dumps({"status_code": None, "response": f"Invalid action: {parsed}"})
            return StepResult(replace(state, observation=obs, status_code=None))
        if isinstance(parsed, Finish):
            return self._finish(state, parsed)
        return StepResult(self._request(state, parsed))

    def _request(self, state: RestState, req: Request) -> RestState:
        api = self.tasks[state.task_id]["api"]
        endpoint, path_params, known = self.routers[api].match(req.method, req.path)
        world = state.world
        if endpoint is None:
            status, body = route_error(api, req.method, req.path, known)
        else:
            tx = Tx(world)
            status, body = call(self.data, tx, endpoint, path_params, dict(req.args), req.path)
            if status < 400:
                world = tx.commit()
        body_text = json.dumps(body, ensure_ascii=False, sort_keys=True)
        # == json.dumps({"status_code": status, "response": body}, ensure_ascii=False, sort_keys=True), body encoded once
        obs = f'{{"response": {body_text}, "status_code": {int(status)}}}'
        if len(obs) > self.max_observation_length:
            obs = obs[: self.max_observation_length] + "..."
        rec = RestCall(req.method, req.path, endpoint.name if endpoint else "", status,
                       json.dumps(dict(req.args), sort_keys=True, ensure_ascii=False), body_text)
        return replace(state, world=world, calls=state.calls + (rec,), observation=obs, status_code=status)

    def _finish(self, state: RestState, fin: Finish) -> StepResult[RestState]:
        if fin.return_type == "give_answer" and fin.final_answer is None:
            return StepResult(replace(state, observation='{error:"must have "final_answer""}', status_code=None))
        finish = {"return_type": fin.return_type, "final_answer": fin.final_answer or ""}
        new = replace(state, finish=tuple(sorted(finish.items())), done=True,
                      observation='{"response":"successfully giving the final answer."}' if fin.return_type == "give_answer"
                      else '{"response":"chose to give up and restart"}')
        ev = self.evaluate(new)
        new = replace(new, evaluation=json.dumps(ev, sort_keys=True))
        return StepResult(new, 1.0 if self.reward_mode == "terminal" and ev["pass"] else 0.0, True)

    def evaluate(self, state: RestState) -> dict[str, Any]:
        gold = self.tasks[state.task_id]["gold"]
        finish = dict(state.finish) if state.finish else {}
        answer = str(finish.get("final_answer") or "")
        executed = [f"{c.method} {c.path}" for c in state.calls if c.status < 400]
        changed = changed_collections(self.initial_world, state.world)
        failed = [] if finish.get("return_type") == "give_answer" else ["no final answer"]
        failed += [f"answer[{i}] {c['kind']} {c.get('value')!r}" for i, c in enumerate(gold["answer"]) if not check_answer(c, answer)]
        failed += [f"state[{i}]" for i, c in enumerate(gold.get("state", [])) if not check_state(c, state.world)]
        failed += [f"mutated {c}" for c in changed if c not in set(gold.get("allowed_mutations", []))]
        path_ok = correct_path([gold["solution"]] + list(gold.get("alternatives", [])), executed)
        if gold.get("needs_correct_path") and not path_ok:  # RestBench's own queries: no gold answers to check
            failed.append("gold path not followed")
        return {"pass": not failed, "failed_checks": failed, "finished": state.done, "correct_path": path_ok,
                "requests": len(state.calls), "failed_requests": sum(1 for c in state.calls if c.status >= 400),
                "extra_requests": max(0, len(state.calls) - len(gold["solution"])), "changed": changed}

    def observe(self, state: RestState) -> tuple[dict, dict]:
        task = self.tasks[state.task_id]
        obs = {"text": state.observation, "instruction": task["query"],
               "valid_actions": () if state.done else self.examples[task["api"]]}
        ev = json.loads(state.evaluation) if state.evaluation else None
        info: dict[str, Any] = {"success": bool(ev and ev["pass"]), "status_code": state.status_code,
                                "requests": len(state.calls), "api": task["api"], "finished": state.done}
        if not state.calls and not state.done:
            info["endpoints"] = self.endpoints(task["api"])
        if ev is not None:
            info["evaluation"] = ev
            info["correct_path"] = bool(ev["correct_path"])  # the record's CPR flag (envs/core/contract.py)
        return obs, info

    def expert(self, state: RestState) -> ExpertAdvice | None:
        gold = self.tasks[state.task_id]["gold"]
        if state.done:
            ok = bool(json.loads(state.evaluation or "{}").get("pass"))
            return ExpertAdvice((), 1.0 if ok else 0.0, ok)
        plan, ref = gold["plan"], gold["reference_actions"]
        responses: list[Any] = []
        i = 0
        for c in state.calls:
            if i < len(plan) - 1 and c.status < 400:
                want = self._resolved(plan, ref, i, responses)
                if isinstance(want, Request) and (want.method, want.path, json.dumps(dict(want.args), sort_keys=True)) == \
                        (c.method, c.path, c.args):
                    responses.append(json.loads(c.body))
                    i += 1
        actions = [self._text(plan, ref, k, responses) for k in range(i, len(plan))]
        sim = state  # check by simulation: an off-plan mutation can make the rest fail
        for a in actions:
            sim = self.step(sim, a).state
        ok = bool(sim.evaluation and json.loads(sim.evaluation)["pass"])
        return ExpertAdvice(tuple(actions), 1.0 if ok else 0.0, ok)

    @staticmethod
    def _text(plan, ref, k, responses) -> str:
        try:
            return resolve(plan[k], responses)
        except PlanError:
            return ref[k]

    def _resolved(self, plan, ref, k, responses):
        return parse_action(self._text(plan, ref, k, responses))

    def state_to_json(self, state: RestState) -> dict[str, Any]:
        return {"task_id": state.task_id, "world": state.world.to_json(), "calls": [c.to_json() for c in state.calls],
                "observation": state.observation, "status_code": state.status_code,
                "finish": dict(state.finish) if state.finish else None, "done": state.done, "evaluation": state.evaluation}

    def state_from_json(self, data: Any) -> RestState:
        """Every field checked (``StateReader``); the world must fit the API's (``shape_problem``)."""
        r = StateReader(data, "RestBench state")
        task_id = self.task(r.task_id())
        calls = []
        for i, c in enumerate(r.items("calls", [])):
            c, at = r.object_of(c, f"calls[{i}]"), f"calls[{i}]"
            calls.append(RestCall(*(r.text_of(c.get(k), f"{at}.{k}") for k in ("method", "path", "endpoint")),
                                  r.integer_of(c.get("status"), f"{at}.status", 0, 999),
                                  r.text_of(c.get("args"), f"{at}.args"), r.text_of(c.get("body"), f"{at}.body")))
        return RestState(task_id, read_world(r, self.initial_world), tuple(calls), r.text("observation", ""),
                         read_status(r), read_finish(r), r.flag("done", False), read_evaluation(r))
