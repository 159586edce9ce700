"""RestBench's own 157 queries (RestGPT: 100 TMDB, 57 Spotify) as RestBench-v0's ``restbench`` split.

Each task keeps RestBench's item (``query``, ``solution``: the gold path, as
upstream writes it) and gets ``query_id`` ``"tmdb-<n>"`` / ``"spotify-<n>"``
(n = the query's index in upstream's ``tmdb.json`` / ``spotify.json``) and a
``gold`` record: our reference plan (``restbench_plans.py``) and the requests
it resolves to from the initial world. RestBench has no gold answers (RestGPT
judged success by hand), so a task passes when the agent finishes with an
answer, its successful requests contain the gold path in order (correct path,
as RestGPT scores it: ``cpr.py``) and it changed nothing the reference plan
leaves alone. :func:`build_restbench_tasks` runs every plan and refuses one
that gets a non-2xx answer or fails its own gold.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from treegym.envs.tools_common.world import WorldState, changed_collections

from .catalog import INITIAL_WORLD, RestData
from .restbench_plans import SPOTIFY, TMDB
from .engine import RestBenchEngine
from .plan_runner import run_plan

DATA_DIR = Path(__file__).with_name("data")
SPLIT = "restbench"
_TOKEN = re.compile(r"\{@(person|company|artist|playlist|track):([^}]+)\}")


def upstream_queries(api: str) -> list[dict[str, Any]]:
    """RestBench's ``{query, solution}`` items of ``api`` as RestGPT ships them."""
    return json.loads((DATA_DIR / f"restbench_{api}.json").read_text(encoding="utf-8"))


def expand(step: str, data: RestData) -> str:
    """``{@kind:Name}`` replaced by that entity's id (a track by its URI)."""
    def one(m: re.Match) -> str:
        kind, name = m.group(1), m.group(2)
        if kind == "person":
            return str(max(k for k, p in data.people.items() if p["name"] == name))
        if kind == "company":
            return str(next(k for k, c in data.companies.items() if c["name"] == name))
        if kind == "artist":
            return data.artist_id(name)
        if kind == "track":
            return "spotify:track:" + data.track_id(name)
        return next(k for k, v in INITIAL_WORLD["sp_playlists"].items() if v["name"] == name)
    return _TOKEN.sub(one, step)


def build_restbench_tasks(data: RestData) -> list[dict[str, Any]]:
    """The 157 tasks with resolved reference requests (raises when a plan gets a non-2xx answer or fails its gold)."""
    world = WorldState.from_json(INITIAL_WORLD)
    out = []
    for api, plans in (("tmdb", TMDB), ("spotify", SPOTIFY)):
        queries = upstream_queries(api)
        if len(plans) != len(queries):
            raise RuntimeError(f"{len(plans)} {api} plans for {len(queries)} queries")
        for n, (item, plan) in enumerate(zip(queries, plans)):
            qid = f"{api}-{n}"
            steps = [expand(s, data) for s in plan] + [f"Final Answer: (reference plan of RestBench {qid})"]
            solution = [s.strip() for s in item["solution"]]
            task = {"query": item["query"], "query_id": qid, "api": api, "template": "restbench", "split": SPLIT,
                    "solution": item["solution"],
                    "gold": {"plan": steps, "solution": solution, "alternatives": [], "answer": [], "state": [],
                             "allowed_mutations": [], "reference_actions": [], "needs_correct_path": True}}
            engine = RestBenchEngine(data, [task], {"all": [qid]}, world)
            state, _, actions = run_plan(engine, qid, steps)
            task["gold"].update(reference_actions=actions, allowed_mutations=changed_collections(world, state.world))
            ev = RestBenchEngine(data, [task], {"all": [qid]}, world).evaluate(state)
            if not (ev["pass"] and ev["correct_path"]):
                raise RuntimeError(f"RestBench {qid}: the reference plan fails its gold: {ev}")
            out.append(task)
    return out
