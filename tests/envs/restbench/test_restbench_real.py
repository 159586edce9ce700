"""RestBench's own 157 queries (RestGPT's TMDB and Spotify sets) on the spec-driven mocks."""
from __future__ import annotations

import json
import re

import gymnasium as gym

from treegym.envs.restbench.env import shipped_engine, shipped_tasks
from treegym.envs.restbench.restbench import upstream_queries
from treegym.envs.restbench.spec import raw_spec, resolve


def _expert_episode(env, tid):
    env.reset(options={"task_id": tid})
    while True:
        obs, r, term, trunc, info = env.step(env.unwrapped.expert_action())
        if term or trunc:
            return env.unwrapped.state, r, info


def test_all_157_gold_paths_run_with_2xx_answers_and_pass_on_the_correct_path():
    env = gym.make("treegym/RestBench-v0", split="restbench", max_steps=12)
    tasks = [t for t in shipped_tasks() if t["split"] == "restbench"]
    assert len(tasks) == 157 and [t["query"] for t in tasks] == [q["query"] for q in upstream_queries("tmdb")
                                                                    + upstream_queries("spotify")]
    served = {"tmdb": set(), "spotify": set()}
    for t in tasks:
        state, reward, info = _expert_episode(env, t["query_id"])
        assert all(200 <= c.status < 300 for c in state.calls), (t["query_id"], [(c.path, c.status) for c in state.calls])
        assert reward == 1.0 and info["evaluation"]["correct_path"], (t["query_id"], info["evaluation"])
        served[t["api"]] |= {c.endpoint for c in state.calls}
    # every endpoint the gold paths name (46 TMDB, 37 Spotify once whitespace and parameter names are normalised)
    def norm(step):
        return re.sub(r"\{\w+\}", "{}", step.strip())

    for api, n in (("tmdb", 46), ("spotify", 37)):
        gold = {norm(s) for q in upstream_queries(api) for s in q["solution"]}
        assert len(gold) == n and gold <= {norm(e) for e in served[api]}, (api, gold - {norm(e) for e in served[api]})


def test_every_endpoint_of_both_specs_is_served():
    from treegym.envs.restbench.api import ENDPOINTS
    for api in ("tmdb", "spotify"):
        declared = {(m.upper(), path) for path, ops in raw_spec(api)["paths"].items() for m in ops
                    if m in ("get", "post", "put", "delete")}
        assert declared <= {(e.method, e.template) for e in ENDPOINTS if e.api == api}, api


def test_wrong_path_or_no_answer_fails_a_restbench_query():
    env = gym.make("treegym/RestBench-v0", split="restbench")
    tid = "tmdb-0"   # give me the number of movies directed by Sofia Coppola
    env.reset(options={"task_id": tid})
    env.step("GET /search/person?query=Sofia Coppola")
    out = env.step("Final Answer: 2")          # skipped GET /person/{person_id}/movie_credits
    assert out[2] and not out[4]["success"] and not out[4]["evaluation"]["correct_path"]
    state, reward, info = _expert_episode(env, tid)
    assert reward == 1.0
    env.reset(options={"task_id": tid})
    for a in env.unwrapped.expert().plan[:-1]:
        env.step(a)
    out = env.step('{"name": "Finish", "arguments": {"return_type": "give_up_and_restart"}}')
    assert out[2] and not out[4]["success"] and out[4]["evaluation"]["correct_path"]


def _call(engine, state, text):
    state = engine.step(state, text).state
    return state, state.calls[-1].status, json.loads(state.calls[-1].body)


def test_literal_routes_spec_fields_paging_status_codes_and_error_shapes():
    engine = shipped_engine()
    tm = engine.initial_state("tmdb-16", None)
    for path in ("/movie/popular", "/movie/now_playing"):
        tm, status, body = _call(engine, tm, "GET " + path)
        assert status == 200 and tm.calls[-1].endpoint == "GET " + path and body["results"]
    tm, status, latest = _call(engine, tm, "GET /movie/latest")
    assert status == 200 and tm.calls[-1].endpoint == "GET /movie/latest" and latest["title"]
    tm, status, movie = _call(engine, tm, f"GET /movie/{latest['id']}")
    declared = resolve(raw_spec("tmdb")["paths"]["/movie/{movie_id}"]["get"]["responses"]["200"], "tmdb")
    assert set(declared["content"]["application/json"]["schema"]["properties"]) <= set(movie)
    tm, status, body = _call(engine, tm, "GET /movie/99999999")
    assert status == 404 and body["status_code"] == 34 and body["success"] is False
    tm, status, body = _call(engine, tm, "GET /no/such/route")
    assert status == 404 and body["status_message"].startswith("The resource you requested")

    sp = engine.initial_state("spotify-55", None)
    sp, status, pls = _call(engine, sp, "GET /me/playlists?limit=1")
    assert status == 200 and {"href", "limit", "next", "offset", "previous", "total", "items"} <= set(pls)
    assert pls["limit"] == 1 and pls["next"] and pls["previous"] is None and pls["total"] == 4
    sp, status, tracks = _call(engine, sp, f"GET /playlists/{pls['items'][0]['id']}/tracks")
    assert status == 200 and tracks["items"][0]["track"]["uri"].startswith("spotify:track:")
    sp, status, found = _call(engine, sp, "GET /search?q=Mariah&type=artist")
    assert set(found) == {"artists"}     # only the asked-for type, as Spotify answers
    sp, status, _ = _call(engine, sp, "PUT /me/player/volume?volume_percent=60")
    assert status == 204 and sp.world.get("sp_player", "state")["volume_percent"] == 60
    sp, status, body = _call(engine, sp, "PUT /me/player/volume?volume_percent=600")
    assert status == 400 and body["error"]["status"] == 400
    sp, status, body = _call(engine, sp, "GET /no/such/route")
    assert status == 404 and body == {"error": {"status": 404, "message": "Service not found"}}
    sp, status, created = _call(engine, sp, 'POST /users/treegym_user/playlists {"name": "Mix"}')
    assert status == 201 and created["tracks"]["total"] == 0 and created["owner"]["id"] == "treegym_user"
