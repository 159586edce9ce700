"""RestBench-style tasks: templates, build (reference plans run against the mock APIs), loading.

A task follows RestBench's item shape (``query`` and ``solution``: the gold
``"METHOD /path/{param}"`` path) plus ``query_id``, ``api`` (tmdb / spotify),
``split`` and ``gold``: the reference plan (request texts with ``{$k.path}``
references to earlier response bodies, ending with ``Final Answer: ...``), the
resolved ``reference_actions``, answer checks, state checks and
``allowed_mutations``. :func:`build_tasks` runs every plan from the initial
world and stops when a plan fails, fails its own gold, or an empty answer passes.

Build: ``python -m treegym.envs.restbench.build`` writes ``data/tasks.json``
(the generated splits) and ``data/restbench_tasks.json`` (RestBench's own
157 queries, ``restbench.py``).
"""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Callable

from treegym.envs.tools_common.checks import resolve
from treegym.envs.tools_common.world import WorldState, changed_collections

from .catalog import RestData
from .catalog import INITIAL_WORLD
from .plan_runner import resolve_counts, run_plan
from .engine import RestBenchEngine

DATA_DIR = Path(__file__).with_name("data")
SEED = 11
TEMPLATES: dict[str, tuple[str, Callable]] = {}


def _fixture(table: dict, below: int) -> list:
    """The entities that come from the ToolBench fixtures (ids below ``below``), which the generated tasks draw from."""
    return [v for k, v in table.items() if k < below]


def _empty_playlists() -> list[tuple[str, str]]:
    """The user's empty playlists (id, name): the generated tasks' state checks expect exactly their additions."""
    return sorted((k, v["name"]) for k, v in INITIAL_WORLD["sp_playlists"].items() if not v["tracks"])


def template(name: str, api: str):
    def deco(fn):
        TEMPLATES[name] = (api, fn)
        return fn
    return deco


def _unique_title(d: RestData, m) -> bool:
    return sum(1 for x in d.movies.values() if m["title"].lower() in x["title"].lower()) == 1


def _unique_person(d: RestData, pid) -> bool:
    return sum(1 for x in d.people.values() if d.people[pid]["name"].lower() in x["name"].lower()) == 1


@template("director", "tmdb")
def t_director(rng, d):
    m = rng.choice(_fixture(d.movies, 20000))
    if not _unique_title(d, m):
        return None
    return {"query": rng.choice([f"Who is the director of {m['title']}?", f"Tell me who directed the movie {m['title']}."]),
            "solution": ["GET /search/movie", "GET /movie/{movie_id}/credits"],
            "plan": [f"GET /search/movie?query={m['title']}", "GET /movie/{$0.results.0.id}/credits",
                     "Final Answer: {$1.crew.0.name}"], "answer": ["$1.crew.0.name"]}


@template("directed_count", "tmdb")
def t_directed_count(rng, d):
    pid = rng.choice([p for p in d.people if p < 1000 and d.people[p]["known_for"] == "Directing"])
    if not _unique_person(d, pid):
        return None
    name = d.people[pid]["name"]
    return {"query": f"Give me the number of movies directed by {name}.",
            "solution": ["GET /search/person", "GET /person/{person_id}/movie_credits"],
            "plan": [f"GET /search/person?query={name}", "GET /person/{$0.results.0.id}/movie_credits",
                     "Final Answer: " + name + " directed {$1.crew|len} movies."],
            "answer": [{"count": "$1.crew"}]}


@template("lead_actor_movies", "tmdb")
def t_lead(rng, d):
    m = rng.choice(_fixture(d.movies, 20000))
    if not _unique_title(d, m):
        return None
    return {"query": f"Who plays the lead role in {m['title']}, and in how many movies has that actor appeared?",
            "solution": ["GET /search/movie", "GET /movie/{movie_id}/credits", "GET /person/{person_id}/movie_credits"],
            "plan": [f"GET /search/movie?query={m['title']}", "GET /movie/{$0.results.0.id}/credits",
                     "GET /person/{$1.cast.0.id}/movie_credits",
                     "Final Answer: {$1.cast.0.name} has appeared in {$2.cast|len} movies."],
            "answer": ["$1.cast.0.name", {"count": "$2.cast"}]}


@template("release_year", "tmdb")
def t_year(rng, d):
    m = rng.choice(_fixture(d.movies, 20000))
    if not _unique_title(d, m):
        return None
    return {"query": f"When was {m['title']} released?", "solution": ["GET /search/movie"],
            "plan": [f"GET /search/movie?query={m['title']}", "Final Answer: {$0.results.0.release_date}"],
            "answer": ["$0.results.0.release_date"]}


@template("runtime", "tmdb")
def t_runtime(rng, d):
    m = rng.choice(_fixture(d.movies, 20000))
    if not _unique_title(d, m):
        return None
    return {"query": f"How many minutes long is {m['title']}?", "solution": ["GET /search/movie", "GET /movie/{movie_id}"],
            "plan": [f"GET /search/movie?query={m['title']}", "GET /movie/{$0.results.0.id}",
                     "Final Answer: {$1.runtime} minutes"], "answer": ["$1.runtime"]}


@template("best_in_genre", "tmdb")
def t_genre(rng, d):
    g = rng.choice(sorted(d.genres))
    year = rng.choice([None, None] + sorted({int(m["release_date"][:4]) for m in _fixture(d.movies, 20000) if m["genre"] == g}))
    extra = f" from {year}" if year else ""
    params = f"with_genres={d.genres[g]}&sort_by=vote_average.desc" + (f"&primary_release_year={year}" if year else "")
    return {"query": f"What is the highest rated {g.lower()} movie{extra}?",
            "solution": ["GET /genre/movie/list", "GET /discover/movie"],
            "plan": ["GET /genre/movie/list", f"GET /discover/movie?{params}", "Final Answer: {$1.results.0.title}"],
            "answer": ["$1.results.0.title"]}


@template("similar", "tmdb")
def t_similar(rng, d):
    m = rng.choice(_fixture(d.movies, 20000))
    if not _unique_title(d, m) or sum(1 for x in d.movies.values() if x["genre"] == m["genre"]) < 2:
        return None
    return {"query": f"I liked {m['title']}. What is the best rated movie similar to it?",
            "solution": ["GET /search/movie", "GET /movie/{movie_id}/similar"],
            "plan": [f"GET /search/movie?query={m['title']}", "GET /movie/{$0.results.0.id}/similar",
                     "Final Answer: {$1.results.0.title}"], "answer": ["$1.results.0.title"]}


@template("trending_director", "tmdb")
def t_trending(rng, d):
    k = rng.randrange(0, 10)
    nth = ["1st", "2nd", "3rd"][k] if k < 3 else f"{k + 1}th"
    return {"query": f"Who directed the {nth} most trending movie this week?",
            "solution": ["GET /trending/movie/week", "GET /movie/{movie_id}/credits"],
            "plan": ["GET /trending/movie/week", f"GET /movie/{{$0.results.{k}.id}}/credits",
                     "Final Answer: {$1.crew.0.name}"], "answer": ["$1.crew.0.name"]}


def _unique_artist_track(d: RestData, t) -> bool:
    return sum(1 for x in d.tracks.values() if x["name"].lower() == t["name"].lower()) == 1 and \
        sum(1 for x in d.tracks.values() if t["name"].lower() in x["name"].lower()
            or t["name"].lower() in d.artists[x["artist_ids"][0]]["name"].lower()) == 1


@template("artist_top_track", "spotify")
def t_top(rng, d):
    a = rng.choice([a for a in d.artists.values() if a['id'].startswith('ar0')])
    return {"query": f"What is the most popular song by {a['name']}?",
            "solution": ["GET /search", "GET /artists/{id}/top-tracks"],
            "plan": [f"GET /search?q={a['name']}&type=artist", "GET /artists/{$0.artists.items.0.id}/top-tracks",
                     "Final Answer: {$1.tracks.0.name}"], "answer": ["$1.tracks.0.name"]}


@template("album_count", "spotify")
def t_albums(rng, d):
    a = rng.choice([a for a in d.artists.values() if a['id'].startswith('ar0')])
    return {"query": rng.choice([f"How many albums has {a['name']} released?", f"List the albums of {a['name']}."]),
            "solution": ["GET /search", "GET /artists/{id}/albums"],
            "plan": [f"GET /search?q={a['name']}&type=artist", "GET /artists/{$0.artists.items.0.id}/albums",
                     "Final Answer: {$1.items.0.name}, {$1.items.1.name} ({$1.total} albums)"],
            "answer": ["$1.items.0.name", "$1.items.1.name"]}


@template("track_album", "spotify")
def t_track_album(rng, d):
    t = rng.choice([t for t in d.tracks.values() if t['id'].startswith('tr0')])
    if not _unique_artist_track(d, t):
        return None
    return {"query": f"Which album is the song '{t['name']}' on?", "solution": ["GET /search"],
            "alternatives": [["GET /search", "GET /tracks/{id}"]],
            "plan": [f"GET /search?q={t['name']}&type=track", "Final Answer: {$0.tracks.items.0.album.name}"],
            "answer": ["$0.tracks.items.0.album.name"]}


@template("new_playlist_top_track", "spotify")
def t_new_pl(rng, d):
    a = rng.choice([a for a in d.artists.values() if a['id'].startswith('ar0')])
    name = rng.choice(["Road Trip", "Sunday Morning", "Coding Flow", "Party Starters", "Rainy Day", "Throwbacks"])
    return {"query": f"Make a new playlist called '{name}' and put the most popular song of {a['name']} in it.",
            "solution": ["GET /me", "POST /users/{user_id}/playlists", "GET /search", "GET /artists/{id}/top-tracks",
                         "POST /playlists/{playlist_id}/tracks"],
            "alternatives": [["POST /users/{user_id}/playlists", "GET /search", "GET /artists/{id}/top-tracks",
                              "POST /playlists/{playlist_id}/tracks"]],
            "plan": ["GET /me", "POST /users/{$0.id}/playlists " + json.dumps({"name": name}),
                     f"GET /search?q={a['name']}&type=artist", "GET /artists/{$2.artists.items.0.id}/top-tracks",
                     'POST /playlists/{$1.id}/tracks {"uris": ["{$3.tracks.0.uri}"]}',
                     "Final Answer: Created '" + name + "' ({$1.id}) with {$3.tracks.0.name}."],
            "answer": [],
            "state": [{"kind": "count", "collection": "sp_playlists", "where": {"name": name, "tracks": ["$3.tracks.0.id"]}, "eq": 1},
                      {"kind": "count", "collection": "sp_playlists", "eq": len(INITIAL_WORLD["sp_playlists"]) + 1}]}


@template("add_song_to_playlist", "spotify")
def t_add(rng, d):
    t = rng.choice([t for t in d.tracks.values() if t['id'].startswith('tr0')])
    if not _unique_artist_track(d, t):
        return None
    pl_id, pl_name = rng.choice(_empty_playlists())
    artist = d.artists[t["artist_ids"][0]]["name"]
    return {"query": f"Add '{t['name']}' by {artist} to my {pl_name} playlist.",
            "solution": ["GET /me/playlists", "GET /search", "POST /playlists/{playlist_id}/tracks"],
            "alternatives": [["GET /search", "GET /me/playlists", "POST /playlists/{playlist_id}/tracks"]],
            "plan": ["GET /me/playlists", f"GET /search?q={t['name']}&type=track",
                     'POST /playlists/' + pl_id + '/tracks {"uris": ["{$1.tracks.items.0.uri}"]}',
                     f"Final Answer: Added {t['name']} to {pl_name}."],
            "answer": [],
            "state": [{"kind": "value", "collection": "sp_playlists", "key": pl_id, "path": "tracks", "eq": [t["id"]]}]}


@template("rename_playlist", "spotify")
def t_rename(rng, d):
    pl_id, pl_name = rng.choice(_empty_playlists())
    new = rng.choice(["Late Night Drive", "Focus Mode", "Weekend Vibes", "Morning Coffee", "Summer Hits"])
    return {"query": f"Rename my playlist '{pl_name}' to '{new}'.",
            "solution": ["GET /me/playlists", "PUT /playlists/{playlist_id}"],
            "plan": ["GET /me/playlists", f"PUT /playlists/{pl_id} " + json.dumps({"name": new}),
                     f"Final Answer: Renamed {pl_name} to {new}."],
            "answer": [],
            "state": [{"kind": "value", "collection": "sp_playlists", "key": pl_id, "path": "name", "eq": new}]}


QUOTA = {"tmdb": 13, "spotify": 10}


def _checks(spec: list, responses: list) -> list[dict]:
    out = []
    for item in spec:
        if isinstance(item, dict) and "count" in item:
            out.append({"kind": "number", "value": len(resolve(item["count"], responses)), "tol": 0.0})
            continue
        v = resolve(item, responses)
        out.append({"kind": "number", "value": v, "tol": 0.011} if isinstance(v, (int, float)) and not isinstance(v, bool)
                   else {"kind": "contains", "value": str(v)})
    return out


def build_tasks(data: RestData) -> list[dict[str, Any]]:
    rng = random.Random(SEED)
    tasks: list[dict[str, Any]] = []
    world = WorldState.from_json(INITIAL_WORLD)
    for api, base in (("tmdb", 40000), ("spotify", 50000)):
        n = 0
        for name, (tapi, fn) in TEMPLATES.items():
            if tapi != api:
                continue
            seen, tries = set(), 0
            while len(seen) < QUOTA[api]:
                tries += 1
                if tries > 400:
                    if len(seen) >= 4:  # a template with a small slot space
                        break
                    raise RuntimeError(f"template {name}: only {len(seen)} distinct tasks")
                draft = fn(rng, data)
                if draft is None or draft["query"] in seen:
                    continue
                seen.add(draft["query"])
                qid = base + n
                task = {"query": draft["query"], "query_id": qid, "api": api, "template": name,
                        "solution": draft["solution"], "split": "dev" if n % 5 == 0 else "test",
                        "gold": {"plan": draft["plan"], "solution": draft["solution"], "alternatives": draft.get("alternatives", []),
                                 "answer": [], "state": [], "allowed_mutations": [], "reference_actions": []}}
                engine = RestBenchEngine(data, [task], {"all": [qid]}, world)
                state, responses, actions = run_plan(engine, qid, draft["plan"])
                task["gold"].update({"reference_actions": actions, "answer": _checks(draft.get("answer", []), responses),
                                     "state": resolve(draft.get("state", []), responses),
                                     "allowed_mutations": changed_collections(world, state.world)})
                # the plan resolved with |len already applied, for the expert
                task["gold"]["plan"] = [resolve_counts(s, responses) if "|len" in s else s for s in draft["plan"]]
                engine = RestBenchEngine(data, [task], {"all": [qid]}, world)
                state, _, _ = run_plan(engine, qid, draft["plan"])
                ev = engine.evaluate(state)
                if not ev["pass"] or not ev["correct_path"]:
                    raise RuntimeError(f"task {qid} ({name}): the reference plan fails its gold: {ev['failed_checks']}")
                empty = engine.step(engine.initial_state(qid, None), "Final Answer: ").state
                if engine.evaluate(empty)["pass"]:
                    raise RuntimeError(f"task {qid} ({name}): an empty answer passes")
                tasks.append(task)
                n += 1
    return tasks

