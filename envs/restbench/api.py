"""Mock TMDB and Spotify REST APIs (RestBench's two services) over treegym's seeded fixtures.

An :class:`Endpoint` is ``METHOD /path/{param}`` with query/body parameters and
a handler ``(ctx, path_params, args) -> (status, body)``; :class:`Router`
matches a concrete request to it. Handlers are pure functions of the fixtures
(the ToolBench mock's movie, people and music tables, reshaped to TMDB's and
Spotify's field names and integer / base-62-like ids) and of the world state
(Spotify playlists, which mutate). Errors answer like the real services: 404
with TMDB's ``status_message`` or Spotify's ``{"error": {"status", "message"}}``,
400 for missing or malformed parameters, 405 for a method the path does not take.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from treegym.envs.toolbench.handlers import Fixtures
from treegym.envs.toolbench.world import Tx

USER_ID = "treegym_user"


@dataclass(frozen=True)
class Param:
    name: str
    where: str           # "query" or "body"
    type: str            # "string", "integer", "boolean", "array"
    required: bool = False
    description: str = ""


@dataclass(frozen=True)
class Endpoint:
    api: str             # "tmdb" or "spotify"
    method: str
    template: str        # "/movie/{movie_id}/credits"
    summary: str
    handler: Callable[..., tuple[int, Any]]
    params: tuple[Param, ...] = ()
    mutates: bool = False
    regex: re.Pattern = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        pattern = "^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(self.template)) + "/?$"
        object.__setattr__(self, "regex", re.compile(pattern))

    @property
    def name(self) -> str:
        return f"{self.method} {self.template}"


class Ctx:
    def __init__(self, data: "RestData", tx: Tx):
        self.data, self.tx = data, tx


def _tmdb_404() -> tuple[int, Any]:
    return 404, {"success": False, "status_code": 34, "status_message": "The resource you requested could not be found."}


def _sp_error(status: int, message: str) -> tuple[int, Any]:
    return status, {"error": {"status": status, "message": message}}


class RestData:
    """TMDB- and Spotify-shaped views of the fixtures (built once, read-only)."""

    def __init__(self, fx: Fixtures):
        self.fx = fx
        self.genres = {g: 100 + i for i, g in enumerate(sorted({m["genre"] for m in fx.table("movies")}))}
        self.person_ids = {p["person_id"]: 500 + int(p["person_id"].split("-")[1]) for p in fx.table("people")}
        self.people = {self.person_ids[p["person_id"]]: p for p in fx.table("people")}
        self.movies: dict[int, dict] = {}
        for m in fx.table("movies"):
            mid = 10000 + int(m["movie_id"].split("-")[1])
            self.movies[mid] = {"id": mid, "title": m["title"], "release_date": f"{m['year']}-06-01",
                                "vote_average": m["rating"], "runtime": m["runtime_min"], "genre": m["genre"],
                                "genre_ids": [self.genres[m["genre"]]], "director": self.person_ids[m["director_id"]],
                                "cast": [self.person_ids[c] for c in m["cast_ids"]],
                                "popularity": round(50 + (mid * 37) % 400 / 4, 1)}
        artists = sorted({t["artist"] for t in fx.table("tracks")})
        self.artist_ids = {a: f"ar{i + 1:02d}{_slug(a)[:6]}" for i, a in enumerate(artists)}
        self.artists = {v: {"id": v, "name": k, "type": "artist", "genres": ["pop"] if i % 2 else ["indie"],
                            "followers": {"total": 1000 * (i + 3)}} for i, (k, v) in enumerate(sorted(self.artist_ids.items()))}
        self.album_ids = {a["album_id"]: f"al{a['album_id'][3:]}{_slug(a['title'])[:6]}" for a in fx.table("albums")}
        self.albums = {self.album_ids[a["album_id"]]: {"id": self.album_ids[a["album_id"]], "name": a["title"],
                                                       "artist_id": self.artist_ids[a["artist"]],
                                                       "release_date": f"{a['year']}-03-15", "type": "album"}
                       for a in fx.table("albums")}
        self.tracks = {}
        for t in fx.table("tracks"):
            tid = f"tr{t['track_id'][3:]}{_slug(t['title'])[:6]}"
            self.tracks[tid] = {"id": tid, "name": t["title"], "artist_id": self.artist_ids[t["artist"]],
                                "album_id": self.album_ids[t["album_id"]], "duration_ms": t["duration_s"] * 1000,
                                "popularity": t["popularity"], "uri": f"spotify:track:{tid}"}


def _slug(s: str) -> str:
    return re.sub(r"[^a-z0-9]", "", s.lower())


def _movie_brief(m: Mapping) -> dict:
    return {"id": m["id"], "title": m["title"], "release_date": m["release_date"], "vote_average": m["vote_average"],
            "genre_ids": m["genre_ids"]}


def _page(results: list, limit: int = 20) -> dict:
    return {"page": 1, "results": results[:limit], "total_pages": 1, "total_results": len(results)}


def _int_id(value: str) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


# ------------------------------------------------------------------ TMDB
def search_movie(ctx, p, a):
    q = a["query"].strip().lower()
    rows = [m for m in ctx.data.movies.values() if q in m["title"].lower()
            and (a.get("year") is None or m["release_date"].startswith(str(a["year"])))]
    return 200, _page([_movie_brief(m) for m in sorted(rows, key=lambda m: (-m["popularity"], m["id"]))])


def search_person(ctx, p, a):
    q = a["query"].strip().lower()
    rows = [{"id": pid, "name": x["name"], "known_for_department": x["known_for"]}
            for pid, x in sorted(ctx.data.people.items()) if q in x["name"].lower()]
    return 200, _page(rows)


def movie_details(ctx, p, a):
    m = ctx.data.movies.get(_int_id(p["movie_id"]))
    if m is None:
        return _tmdb_404()
    return 200, {"id": m["id"], "title": m["title"], "release_date": m["release_date"], "runtime": m["runtime"],
                 "vote_average": m["vote_average"], "genres": [{"id": m["genre_ids"][0], "name": m["genre"]}],
                 "popularity": m["popularity"]}


def movie_credits(ctx, p, a):
    m = ctx.data.movies.get(_int_id(p["movie_id"]))
    if m is None:
        return _tmdb_404()
    people = ctx.data.people
    return 200, {"id": m["id"], "cast": [{"id": c, "name": people[c]["name"], "order": i} for i, c in enumerate(m["cast"])],
                 "crew": [{"id": m["director"], "name": people[m["director"]]["name"], "job": "Director",
                           "department": "Directing"}]}


def movie_similar(ctx, p, a):
    m = ctx.data.movies.get(_int_id(p["movie_id"]))
    if m is None:
        return _tmdb_404()
    rows = [x for x in ctx.data.movies.values() if x["genre"] == m["genre"] and x["id"] != m["id"]]
    return 200, _page([_movie_brief(x) for x in sorted(rows, key=lambda x: (-x["vote_average"], x["id"]))])


def person_details(ctx, p, a):
    pid = _int_id(p["person_id"])
    x = ctx.data.people.get(pid)
    if x is None:
        return _tmdb_404()
    return 200, {"id": pid, "name": x["name"], "birthday": f"{x['born']}-01-15", "known_for_department": x["known_for"]}


def person_movie_credits(ctx, p, a):
    pid = _int_id(p["person_id"])
    if pid not in ctx.data.people:
        return _tmdb_404()
    movies = sorted(ctx.data.movies.values(), key=lambda m: (m["release_date"], m["id"]))
    return 200, {"id": pid, "cast": [{"id": m["id"], "title": m["title"], "release_date": m["release_date"]}
                                     for m in movies if pid in m["cast"]],
                 "crew": [{"id": m["id"], "title": m["title"], "release_date": m["release_date"], "job": "Director"}
                          for m in movies if m["director"] == pid]}


def top_rated(ctx, p, a):
    rows = sorted(ctx.data.movies.values(), key=lambda m: (-m["vote_average"], m["id"]))
    return 200, _page([_movie_brief(m) for m in rows])


def genre_list(ctx, p, a):
    return 200, {"genres": [{"id": i, "name": g} for g, i in sorted(ctx.data.genres.items(), key=lambda x: x[1])]}


def discover(ctx, p, a):
    rows = list(ctx.data.movies.values())
    if a.get("with_genres") is not None:
        gid = _int_id(a["with_genres"])
        rows = [m for m in rows if gid in m["genre_ids"]]
    if a.get("primary_release_year") is not None:
        rows = [m for m in rows if m["release_date"].startswith(str(a["primary_release_year"]))]
    order = a.get("sort_by") or "popularity.desc"
    key = {"popularity.desc": lambda m: (-m["popularity"], m["id"]), "vote_average.desc": lambda m: (-m["vote_average"], m["id"]),
           "release_date.desc": lambda m: (m["release_date"][::-1], m["id"]), "release_date.asc": lambda m: (m["release_date"], m["id"])}
    if order not in key:
        return 400, {"success": False, "status_code": 22, "status_message": f"Invalid sort_by {order!r}."}
    if order == "release_date.desc":
        rows = sorted(rows, key=lambda m: (m["release_date"], -m["id"]), reverse=True)
    else:
        rows = sorted(rows, key=key[order])
    return 200, _page([_movie_brief(m) for m in rows])


def trending(ctx, p, a):
    rows = sorted(ctx.data.movies.values(), key=lambda m: (-m["popularity"], m["id"]))
    return 200, _page([_movie_brief(m) for m in rows])


def person_popular(ctx, p, a):
    counts = {pid: sum(1 for m in ctx.data.movies.values() if pid in m["cast"] or m["director"] == pid) for pid in ctx.data.people}
    rows = sorted(ctx.data.people.items(), key=lambda kv: (-counts[kv[0]], kv[0]))
    return 200, _page([{"id": pid, "name": x["name"], "known_for_department": x["known_for"]} for pid, x in rows])


# ------------------------------------------------------------------ Spotify
def _track_view(ctx, t):
    return {"id": t["id"], "name": t["name"], "uri": t["uri"], "duration_ms": t["duration_ms"], "popularity": t["popularity"],
            "artists": [{"id": t["artist_id"], "name": ctx.data.artists[t["artist_id"]]["name"]}],
            "album": {"id": t["album_id"], "name": ctx.data.albums[t["album_id"]]["name"]}}


def sp_search(ctx, p, a):
    q, kinds = a["q"].strip().lower(), [k.strip() for k in str(a["type"]).split(",")]
    limit = max(1, min(int(a.get("limit") or 10), 50))
    if not set(kinds) <= {"track", "artist", "album"}:
        return _sp_error(400, f"Bad search type field {a['type']!r}")
    out: dict[str, Any] = {}
    if "track" in kinds:
        rows = [t for t in ctx.data.tracks.values() if q in t["name"].lower()
                or q in ctx.data.artists[t["artist_id"]]["name"].lower()]
        rows.sort(key=lambda t: (-t["popularity"], t["id"]))
        out["tracks"] = {"items": [_track_view(ctx, t) for t in rows[:limit]], "total": len(rows)}
    if "artist" in kinds:
        rows = [x for x in ctx.data.artists.values() if q in x["name"].lower()]
        out["artists"] = {"items": rows[:limit], "total": len(rows)}
    if "album" in kinds:
        rows = [x for x in ctx.data.albums.values() if q in x["name"].lower()]
        out["albums"] = {"items": rows[:limit], "total": len(rows)}
    return 200, out


def sp_artist(ctx, p, a):
    x = ctx.data.artists.get(p["id"])
    return (200, x) if x else _sp_error(404, "non existing id")


def sp_artist_top(ctx, p, a):
    if p["id"] not in ctx.data.artists:
        return _sp_error(404, "non existing id")
    rows = sorted((t for t in ctx.data.tracks.values() if t["artist_id"] == p["id"]), key=lambda t: (-t["popularity"], t["id"]))
    return 200, {"tracks": [_track_view(ctx, t) for t in rows[:10]]}


def sp_artist_albums(ctx, p, a):
    if p["id"] not in ctx.data.artists:
        return _sp_error(404, "non existing id")
    rows = sorted((x for x in ctx.data.albums.values() if x["artist_id"] == p["id"]), key=lambda x: (x["release_date"], x["id"]))
    return 200, {"items": rows, "total": len(rows)}


def sp_album(ctx, p, a):
    x = ctx.data.albums.get(p["id"])
    if not x:
        return _sp_error(404, "non existing id")
    tracks = [{"id": t["id"], "name": t["name"], "uri": t["uri"]} for t in ctx.data.tracks.values() if t["album_id"] == x["id"]]
    return 200, dict(x, tracks={"items": tracks, "total": len(tracks)})


def sp_album_tracks(ctx, p, a):
    status, body = sp_album(ctx, p, a)
    return (status, body["tracks"]) if status == 200 else (status, body)


def sp_track(ctx, p, a):
    t = ctx.data.tracks.get(p["id"])
    return (200, _track_view(ctx, t)) if t else _sp_error(404, "non existing id")


def sp_me(ctx, p, a):
    return 200, {"id": USER_ID, "display_name": "Treegym User", "country": "US", "product": "premium"}


def _playlist_view(ctx, pl):
    return {"id": pl["id"], "name": pl["name"], "description": pl["description"], "public": pl["public"],
            "owner": {"id": USER_ID}, "tracks": {"total": len(pl["tracks"]),
                                                 "items": [{"track": _track_view(ctx, ctx.data.tracks[t])} for t in pl["tracks"]]}}


def sp_my_playlists(ctx, p, a):
    rows = [v for _, v in ctx.tx.items("sp_playlists")]
    return 200, {"items": [{"id": v["id"], "name": v["name"], "tracks": {"total": len(v["tracks"])}} for v in rows],
                 "total": len(rows)}


def sp_create_playlist(ctx, p, a):
    if p["user_id"] != USER_ID:
        return _sp_error(403, "You cannot create a playlist for another user")
    if not str(a["name"]).strip():
        return _sp_error(400, "Missing required field: name")
    n = int(ctx.tx.get("_counters", "SPL", 0)) + 1
    ctx.tx.put("_counters", "SPL", n)
    pid = f"pl{n:04d}new"
    pl = {"id": pid, "name": str(a["name"]).strip(), "description": str(a.get("description") or ""),
          "public": bool(a.get("public", True)), "tracks": []}
    ctx.tx.put("sp_playlists", pid, pl)
    return 201, _playlist_view(ctx, pl)


def sp_get_playlist(ctx, p, a):
    pl = ctx.tx.get("sp_playlists", p["playlist_id"])
    return (200, _playlist_view(ctx, pl)) if pl else _sp_error(404, "Not found.")


def _uris(ctx, values) -> tuple[list[str] | None, str]:
    ids = []
    for u in values if isinstance(values, list) else str(values).split(","):
        u = (u.get("uri") if isinstance(u, dict) else str(u)).strip()
        tid = u.rsplit(":", 1)[-1]
        if not u.startswith("spotify:track:") or tid not in ctx.data.tracks:
            return None, f"Invalid track uri: {u}"
        ids.append(tid)
    return ids, ""


def sp_add_tracks(ctx, p, a):
    pl = ctx.tx.get("sp_playlists", p["playlist_id"])
    if pl is None:
        return _sp_error(404, "Not found.")
    ids, err = _uris(ctx, a["uris"])
    if ids is None:
        return _sp_error(400, err)
    pl["tracks"].extend(ids)
    ctx.tx.put("sp_playlists", pl["id"], pl)
    return 201, {"snapshot_id": f"{pl['id']}-{len(pl['tracks'])}"}


def sp_remove_tracks(ctx, p, a):
    pl = ctx.tx.get("sp_playlists", p["playlist_id"])
    if pl is None:
        return _sp_error(404, "Not found.")
    ids, err = _uris(ctx, a["tracks"])
    if ids is None:
        return _sp_error(400, err)
    pl["tracks"] = [t for t in pl["tracks"] if t not in set(ids)]
    ctx.tx.put("sp_playlists", pl["id"], pl)
    return 200, {"snapshot_id": f"{pl['id']}-{len(pl['tracks'])}"}


def sp_rename_playlist(ctx, p, a):
    pl = ctx.tx.get("sp_playlists", p["playlist_id"])
    if pl is None:
        return _sp_error(404, "Not found.")
    for k in ("name", "description", "public"):
        if a.get(k) is not None:
            pl[k] = a[k] if k != "name" else str(a[k]).strip()
    ctx.tx.put("sp_playlists", pl["id"], pl)
    return 200, {}


Q, BODY = "query", "body"
ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("tmdb", "GET", "/search/movie", "Search for movies by their original, translated and alternative titles.", search_movie,
             (Param("query", Q, "string", True, "Text to search"), Param("year", Q, "integer", False, "Release year"))),
    Endpoint("tmdb", "GET", "/search/person", "Search for people.", search_person, (Param("query", Q, "string", True, "Name to search"),)),
    Endpoint("tmdb", "GET", "/movie/{movie_id}", "Get the primary information about a movie.", movie_details),
    Endpoint("tmdb", "GET", "/movie/{movie_id}/credits", "Get the cast and crew for a movie.", movie_credits),
    Endpoint("tmdb", "GET", "/movie/{movie_id}/similar", "Get a list of similar movies.", movie_similar),
    Endpoint("tmdb", "GET", "/person/{person_id}", "Get the primary person details by id.", person_details),
    Endpoint("tmdb", "GET", "/person/{person_id}/movie_credits", "Get the movie credits for a person.", person_movie_credits),
    Endpoint("tmdb", "GET", "/movie/top_rated", "Get the top rated movies.", top_rated),
    Endpoint("tmdb", "GET", "/genre/movie/list", "Get the list of official genres for movies.", genre_list),
    Endpoint("tmdb", "GET", "/discover/movie", "Discover movies by genre, year and sort order.", discover,
             (Param("with_genres", Q, "integer", False, "Genre id"), Param("primary_release_year", Q, "integer", False, "Year"),
              Param("sort_by", Q, "string", False, "popularity.desc, vote_average.desc, release_date.desc or release_date.asc"))),
    Endpoint("tmdb", "GET", "/trending/movie/week", "Get the trending movies of the week.", trending),
    Endpoint("tmdb", "GET", "/person/popular", "Get the list of popular people.", person_popular),
    Endpoint("spotify", "GET", "/search", "Search for tracks, artists or albums.", sp_search,
             (Param("q", Q, "string", True, "Search text"), Param("type", Q, "string", True, "track, artist, album (comma-separated)"),
              Param("limit", Q, "integer", False, "At most this many items (1-50)"))),
    Endpoint("spotify", "GET", "/artists/{id}", "Get an artist.", sp_artist),
    Endpoint("spotify", "GET", "/artists/{id}/top-tracks", "Get an artist's top tracks.", sp_artist_top),
    Endpoint("spotify", "GET", "/artists/{id}/albums", "Get an artist's albums.", sp_artist_albums),
    Endpoint("spotify", "GET", "/albums/{id}", "Get an album.", sp_album),
    Endpoint("spotify", "GET", "/albums/{id}/tracks", "Get an album's tracks.", sp_album_tracks),
    Endpoint("spotify", "GET", "/tracks/{id}", "Get a track.", sp_track),
    Endpoint("spotify", "GET", "/me", "Get the current user's profile.", sp_me),
    Endpoint("spotify", "GET", "/me/playlists", "Get the current user's playlists.", sp_my_playlists),
    Endpoint("spotify", "POST", "/users/{user_id}/playlists", "Create a playlist for a user.", sp_create_playlist,
             (Param("name", BODY, "string", True, "Playlist name"), Param("description", BODY, "string", False, "Description"),
              Param("public", BODY, "boolean", False, "Public playlist")), mutates=True),
    Endpoint("spotify", "GET", "/playlists/{playlist_id}", "Get a playlist with its tracks.", sp_get_playlist),
    Endpoint("spotify", "PUT", "/playlists/{playlist_id}", "Change a playlist's name, description or visibility.", sp_rename_playlist,
             (Param("name", BODY, "string", False, "New name"), Param("description", BODY, "string", False, "Description"),
              Param("public", BODY, "boolean", False, "Public")), mutates=True),
    Endpoint("spotify", "POST", "/playlists/{playlist_id}/tracks", "Add tracks to a playlist.", sp_add_tracks,
             (Param("uris", BODY, "array", True, "Spotify track URIs, e.g. spotify:track:ID"),), mutates=True),
    Endpoint("spotify", "DELETE", "/playlists/{playlist_id}/tracks", "Remove tracks from a playlist.", sp_remove_tracks,
             (Param("tracks", BODY, "array", True, "Objects {\"uri\": ...} of the tracks to remove"),), mutates=True),
)


class Router:
    """Matches ``(method, path)`` to an endpoint of one API (literal paths win over templates)."""

    def __init__(self, api: str | None = None):
        eps = [e for e in ENDPOINTS if api is None or e.api == api]
        self.endpoints = sorted(eps, key=lambda e: e.template.count("{"))

    def match(self, method: str, path: str) -> tuple[Endpoint | None, dict[str, str], bool]:
        """(endpoint, path parameters, path_known); ``path_known`` True when another method would match."""
        known = False
        for e in self.endpoints:
            m = e.regex.match(path)
            if m:
                if e.method == method:
                    return e, m.groupdict(), True
                known = True
        return None, {}, known

    def openapi(self, api: str) -> dict[str, Any]:
        """An OpenAPI 3 description of ``api``'s endpoints."""
        paths: dict[str, Any] = {}
        for e in self.endpoints:
            if e.api != api:
                continue
            op: dict[str, Any] = {"summary": e.summary, "operationId": f"{e.method.lower()}{re.sub(r'[^a-zA-Z0-9]+', '_', e.template)}",
                                  "responses": {"200": {"description": "OK"}}}
            params = [{"name": n, "in": "path", "required": True, "schema": {"type": "string"}}
                      for n in re.findall(r"\{(\w+)\}", e.template)]
            params += [{"name": p.name, "in": "query", "required": p.required, "description": p.description,
                        "schema": {"type": p.type}} for p in e.params if p.where == Q]
            if params:
                op["parameters"] = params
            body = [p for p in e.params if p.where == BODY]
            if body:
                op["requestBody"] = {"required": any(p.required for p in body), "content": {"application/json": {"schema": {
                    "type": "object", "required": [p.name for p in body if p.required],
                    "properties": {p.name: {"type": p.type, "description": p.description} for p in body}}}}}
            paths.setdefault(e.template, {})[e.method.lower()] = op
        title = {"tmdb": "TMDB (treegym mock)", "spotify": "Spotify Web API (treegym mock)"}[api]
        return {"openapi": "3.0.0", "info": {"title": title, "version": "1"},
                "servers": [{"url": "https://api.themoviedb.org/3" if api == "tmdb" else "https://api.spotify.com/v1"}],
                "paths": paths}


def call(data: RestData, tx: Tx, endpoint: Endpoint, path_params: Mapping[str, str], args: Mapping[str, Any]) -> tuple[int, Any]:
    """Validate ``args`` against the endpoint and run it (never raises on bad input)."""
    clean: dict[str, Any] = {}
    declared = {p.name: p for p in endpoint.params}
    for p in endpoint.params:
        v = args.get(p.name)
        if v is None or v == "":
            if p.required:
                return 400, _missing(endpoint, p.name)
            continue
        if p.type == "integer":
            try:
                v = int(v)
            except (TypeError, ValueError):
                return 400, _invalid(endpoint, p.name, v)
        elif p.type == "boolean" and not isinstance(v, bool):
            if str(v).lower() not in ("true", "false"):
                return 400, _invalid(endpoint, p.name, v)
            v = str(v).lower() == "true"
        elif p.type == "array" and not isinstance(v, list):
            v = [x for x in str(v).split(",") if x]
        elif p.type == "string":
            v = str(v)
        clean[p.name] = v
    unknown = sorted(set(args) - set(declared))
    if unknown and endpoint.api == "spotify" and endpoint.method != "GET":
        return 400, {"error": {"status": 400, "message": f"Unknown field(s): {', '.join(unknown)}"}}
    try:
        return endpoint.handler(Ctx(data, tx), dict(path_params), clean)
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:  # a value it could not use
        message = f"Invalid request: {type(exc).__name__}: {exc}"
        if endpoint.api == "tmdb":
            return 400, {"success": False, "status_code": 22, "status_message": message}
        return 400, {"error": {"status": 400, "message": message}}


def _missing(e: Endpoint, name: str) -> dict:
    if e.api == "tmdb":
        return {"success": False, "status_code": 7, "status_message": f"Missing required parameter: {name}."}
    return {"error": {"status": 400, "message": f"Missing required parameter: {name}"}}


def _invalid(e: Endpoint, name: str, value: Any) -> dict:
    if e.api == "tmdb":
        return {"success": False, "status_code": 22, "status_message": f"Invalid {name}: {value!r}."}
    return {"error": {"status": 400, "message": f"Invalid value for {name}: {value!r}"}}
