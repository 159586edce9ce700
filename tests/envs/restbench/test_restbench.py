"""treegym/RestBench-v0: mock TMDB/Spotify, RestGPT's correct path rate, gold plans, snapshots."""
from __future__ import annotations

import json
import re

import gymnasium as gym
import pytest

import treegym.envs as te
from treegym.envs.restbench.cpr import correct_path, path_contained, step_matches
from treegym.envs.restbench.env import shipped_tasks


def test_cpr_matches_path_parameters_structurally_in_order_with_alternatives():
    gold = ["GET /search/person", "GET /person/{person_id}/movie_credits"]
    assert path_contained(gold, ["GET /search/person?query=Sofia", "GET /person/501/movie_credits"])
    assert not path_contained(gold, ["GET /person/501/movie_credits", "GET /search/person"])  # order matters
    assert not step_matches("GET /person/{person_id}/movie_credits", "GET /person/501/tv_credits")
    assert not step_matches("GET /movie/{movie_id}/credits", "GET /movie/1/2/credits")       # one segment per param
    assert not step_matches("GET /movie/{movie_id}/credits", "POST /movie/1/credits")
    # RaD-Agent's conversion collapses any templated path to ".*", so a wrong endpoint passed there
    collapsed = re.sub(r".*\{.*?\}.*", ".*", "/movie/{movie_id}/credits")
    assert collapsed == ".*" and re.match(collapsed, "/person/7/movie_credits")
    assert not step_matches("GET /movie/{movie_id}/credits", "GET /person/7/movie_credits")
    assert correct_path([["GET /a/{x}"], ["GET /b"]], ["GET /b"])


def _play(env, tid, actions):
    env.reset(options={"task_id": tid})
    for a in actions:
        out = env.step(a)
        if out[2] or out[3]:
            return out
    return out


def test_every_reference_plan_passes_and_an_empty_answer_fails():
    env = gym.make("treegym/RestBench-v0", split="all")
    tasks = shipped_tasks()
    assert len(tasks) >= 150 and {t["api"] for t in tasks} == {"tmdb", "spotify"}
    for t in tasks:
        env.reset(options={"task_id": t["query_id"]})
        while True:
            obs, r, term, trunc, info = env.step(env.unwrapped.expert_action())
            if term or trunc:
                break
        assert term and r == 1.0 and info["evaluation"]["correct_path"], (t["query_id"], info["evaluation"])
        out = _play(env, t["query_id"], ["Final Answer: "])
        assert out[2] and not out[4]["success"]


def test_requests_errors_and_spotify_state_with_snapshots():
    env = gym.make("treegym/RestBench-v0", split="all", api="spotify")
    tid = next(t["query_id"] for t in shipped_tasks() if t["template"] == "add_song_to_playlist")
    obs, info = env.reset(options={"task_id": tid})
    assert any(e.startswith("POST /playlists/{playlist_id}/tracks") for e in info["endpoints"])
    nf = env.step("GET /nowhere")
    assert json.loads(nf[0]["text"])["status_code"] == 404
    na = env.step("DELETE /me")
    assert json.loads(na[0]["text"])["status_code"] == 405
    bad = env.step("GET /search?type=track")
    assert json.loads(bad[0]["text"])["status_code"] == 400 and "Missing required parameter: q" in bad[0]["text"]
    garbage = env.step("please add the song")
    assert "Invalid action" in garbage[0]["text"] and not garbage[2]
    snap = te.snapshot(env)
    plan = env.unwrapped.expert().plan
    for a in plan[:-1]:
        env.step(a)
    pl = next(iter(env.unwrapped.engine.tasks[tid]["gold"]["state"]))["key"]
    assert env.unwrapped.state.world.get("sp_playlists", pl)["tracks"]
    te.restore(env, snap)
    assert env.unwrapped.state.world.get("sp_playlists", pl)["tracks"] == []  # the addition is undone
    # JSON request form reaches the same answer as the text form
    a = env.step({"method": "GET", "url": "/search", "params": {"q": "night", "type": "track", "limit": 2}})
    te.restore(env, snap)
    b = env.step("GET https://api.spotify.com/v1/search?q=night&type=track&limit=2")
    assert a[0] == b[0] and json.loads(a[0]["text"])["status_code"] == 200


def test_openapi_specs_are_restgpts_with_schemas_security_and_our_server():
    env = gym.make("treegym/RestBench-v0", api="tmdb")
    env.reset()
    spec = env.unwrapped.openapi(server_url="http://127.0.0.1:9/rest/tmdb")
    assert spec["openapi"].startswith("3.") and spec["servers"] == [{"url": "http://127.0.0.1:9/rest/tmdb"}]
    op = spec["paths"]["/movie/{movie_id}/credits"]["get"]
    assert op["description"] and "content" in op["responses"]["200"]   # what RestGPT's parser reads
    sp = env.unwrapped.openapi("spotify")
    assert "requestBody" in sp["paths"]["/users/{user_id}/playlists"]["post"]
    scopes = sp["components"]["securitySchemes"]["oauth_2_0"]["flows"]["authorizationCode"]["scopes"]
    assert "playlist-modify-public" in scopes
    search = sp["paths"]["/search"]["get"]["responses"]["200"]
    assert "content" in search or "$ref" in search   # RestGPT reads ['content'] after dereferencing
    assert all(t >= 40000 and t < 50000 for t in env.unwrapped._pool)
    with pytest.raises(ValueError, match="api must be"):
        gym.make("treegym/RestBench-v0", api="github")
    assert te.check_rollback(gym.make("treegym/RestBench-v0", api="spotify"), n_trajectories=3).steps_checked > 0


@pytest.mark.slow
def test_builder_reproduces_the_shipped_tasks():
    from treegym.envs.restbench.catalog import RestData
    from treegym.envs.restbench.restbench import build_restbench_tasks
    from treegym.envs.restbench.tasks import build_tasks
    from treegym.envs.tools_common.fixtures import shipped_fixtures
    data = RestData(shipped_fixtures())
    assert json.loads(json.dumps(build_tasks(data) + build_restbench_tasks(data))) == list(shipped_tasks())


def test_the_world_indexes_answer_as_the_full_scans_they_replace():
    """Handlers read orders and lookups built once with the shared data (issue 26), never per call."""
    from treegym.envs.restbench.env import shipped_data, shipped_engine
    d = shipped_data()
    assert shipped_engine().data is d and shipped_engine("hidden").data is d   # one copy, whatever the variant
    by_release = sorted(d.movies.values(), key=lambda m: (m["release_date"], m["id"]))
    for pid in d.people:
        cast, crew = d.movie_credits_of(pid)
        assert list(cast) == [m for m in by_release if pid in m["cast"]]
        assert list(crew) == [m for m in by_release if m["director"] == pid]
    assert sum(len(d.movie_credits_of(p)[1]) for p in d.people) == len(d.movies)   # every film has its director
    assert list(d.people_by_popularity) == sorted(d.people, key=lambda k: (-d.people[k]["popularity"], k))
    for alid in d.albums:
        assert list(d.album_tracks(alid)) == sorted((t for t in d.tracks.values() if t["album_id"] == alid),
                                                    key=lambda t: (t["track_number"], t["id"]))
    for aid in d.artists:
        assert list(d.artist_tracks(aid)) == sorted((t for t in d.tracks.values() if aid in t["artist_ids"]),
                                                    key=lambda t: (-t["popularity"], t["id"]))
        assert list(d.artist_albums(aid)) == sorted((x for x in d.albums.values() if aid in x["artist_ids"]),
                                                    key=lambda x: (x["release_date"], x["id"]), reverse=True)
    # a list ordered on first use is kept, and answers the second page like the first call's order
    env = gym.make("treegym/RestBench-v0", split="all", api="tmdb")
    env.reset()
    first = json.loads(env.step("GET /movie/popular?page=2")[0]["text"])["response"]["results"]
    again = json.loads(env.step("GET /movie/popular?page=2")[0]["text"])["response"]["results"]
    by_popularity = sorted(d.movies.values(), key=lambda m: (-m["popularity"], m["id"]))
    assert first == again and [m["id"] for m in first] == [m["id"] for m in by_popularity[20:40]]
    kept = d.ordered("/movie/popular", lambda: pytest.fail("an ordering made twice"))
    assert [m["id"] for m in kept[20:40]] == [m["id"] for m in first]


def test_the_router_index_picks_what_trying_every_endpoint_in_order_picks():
    from treegym.envs.restbench.api import ENDPOINTS, Router

    def every_endpoint(router, method, path):
        known = False
        for e in router.endpoints:
            m = e.regex.match(path)
            if m and e.method == method:
                return e, m.groupdict(), True
            known = known or bool(m)
        return None, {}, known

    paths = {"", "/", "//", "/movie/", "/me//", "movie/1"}
    for e in ENDPOINTS:
        for value in ("1", "popular", "", "x/y"):
            p = re.sub(r"\{\w+\}", value, e.template)
            paths.update({p, p + "/", p + "//", p + "/extra", p.replace("/", "//", 1)})
    routers = [Router("tmdb"), Router("spotify")]
    found = 0
    for router in routers:
        for p in sorted(paths):
            for method in ("GET", "POST", "PUT", "DELETE"):
                got, want = router.match(method, p), every_endpoint(router, method, p)
                assert (got[0] is want[0], got[1], got[2]) == (True, want[1], want[2]), (router.endpoints[0].api, method, p)
                found += got[0] is not None
    assert found > len(ENDPOINTS)   # real matches were compared, not only misses
