"""The mock TMDB API (v3): one handler per endpoint RestBench uses, over :class:`~.catalog.RestData`.

A handler ``(ctx, path_params, args) -> (status, body)`` builds the body from
the world; ``api.call`` then fills every field TMDB's OpenAPI schema declares
that the handler left out (``spec.conform``). Errors are TMDB's:
``{"success": false, "status_code": 34, "status_message": ...}`` with HTTP 404
for an unknown id, 422 for a bad value.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from .catalog import REVIEWERS, RestData, h

ROUTES: list[tuple[str, str, Callable]] = []   # (method, template, handler)
PAGE = 20


def get(template: str):
    def deco(fn):
        ROUTES.append(("GET", template, fn))
        return fn
    return deco


def not_found() -> tuple[int, Any]:
    return 404, {"success": False, "status_code": 34, "status_message": "The resource you requested could not be found."}


def invalid(message: str) -> tuple[int, Any]:
    return 422, {"success": False, "status_code": 22, "status_message": message}


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def page(rows: Sequence, a: dict, view: Callable[[Any], Any] | None = None) -> dict:
    """TMDB's paging object over ``rows``; ``view`` (when given) turns only the asked page's rows into results."""
    n = max(1, _int(a.get("page")) or 1)
    results = list(rows[(n - 1) * PAGE: n * PAGE])
    return {"page": n, "results": [view(r) for r in results] if view else results,
            "total_pages": max(1, -(-len(rows) // PAGE)), "total_results": len(rows)}


# ------------------------------------------------------------------ views
def movie_brief(m: dict) -> dict:
    return {"id": m["id"], "title": m["title"], "original_title": m["title"], "release_date": m["release_date"],
            "vote_average": m["vote_average"], "vote_count": 100 + h(m["title"], 20000), "genre_ids": m["genre_ids"],
            "popularity": m["popularity"], "overview": f"{m['title']} ({m['release_date'][:4]}), a {m['genre'].lower()} film.",
            "poster_path": f"/poster{m['id']}.jpg", "backdrop_path": f"/backdrop{m['id']}.jpg", "original_language": "en",
            "adult": False, "video": False}


def tv_brief(t: dict) -> dict:
    return {"id": t["id"], "name": t["name"], "original_name": t["name"], "first_air_date": t["first_air_date"],
            "vote_average": t["vote_average"], "vote_count": 100 + h(t["name"], 9000), "genre_ids": [t["genre"]["id"]],
            "popularity": t["popularity"], "overview": f"{t['name']}, a {t['genre']['name'].lower()} series.",
            "poster_path": f"/tvposter{t['id']}.jpg", "backdrop_path": f"/tvbackdrop{t['id']}.jpg",
            "origin_country": ["US"], "original_language": "en"}


def person_brief(d: RestData, pid: int) -> dict:
    p = d.people[pid]
    cast, crew = d.movie_credits_of(pid)
    return {"id": pid, "name": p["name"], "known_for_department": p["known_for"], "popularity": p["popularity"],
            "profile_path": f"/profile{pid}.jpg", "adult": False, "gender": p["gender"],
            "known_for": [dict(movie_brief(m), media_type="movie") for m in (crew + cast)[:3]]}


def credit_id(media: str, role: str, pid: int, oid: int) -> str:
    """``mc1001x20001``: media ``m``ovie / ``t``v, role ``c``ast / ``d``irector, person, title (``GET /credit/{id}``)."""
    return f"{media}{role}{pid}x{oid}"


def _cast(d: RestData, pids: list[int], media: str, oid: int) -> list[dict]:
    return [{"id": c, "name": d.people[c]["name"], "character": f"Role {i + 1}", "order": i,
             "credit_id": credit_id(media, "c", c, oid), "known_for_department": d.people[c]["known_for"],
             "profile_path": f"/profile{c}.jpg"} for i, c in enumerate(pids)]


def _director(d: RestData, pid: int, media: str, oid: int) -> list[dict]:
    return [{"id": pid, "name": d.people[pid]["name"], "job": "Director", "department": "Directing",
             "credit_id": credit_id(media, "d", pid, oid)}]


def _images(kind: str, oid: int, n: int = 2) -> list[dict]:
    return [{"file_path": f"/{kind}{oid}_{k}.jpg", "aspect_ratio": 0.667, "height": 1500, "width": 1000,
             "iso_639_1": "en", "vote_average": 5.0, "vote_count": 3} for k in range(1, n + 1)]


def _reviews(title: str, oid: int, a: dict) -> dict:
    rows = [{"id": f"rv{oid}-{k}", "author": REVIEWERS[h(title + str(k), len(REVIEWERS))],
             "author_details": {"name": "", "username": REVIEWERS[h(title + str(k), len(REVIEWERS))], "rating": 6 + k},
             "content": f"{title} is {'gripping' if k == 1 else 'uneven but memorable'}; review {k}.",
             "created_at": "2023-05-01T10:00:00.000Z", "updated_at": "2023-05-01T10:00:00.000Z",
             "url": f"https://www.themoviedb.org/review/rv{oid}-{k}"} for k in (1, 2)]
    return dict(page(rows, a), id=oid)


def _search(rows: list, key: str, a: dict) -> list:
    q = str(a["query"]).strip().lower()
    return [r for r in rows if q in r[key].lower()]


# ------------------------------------------------------------------ search
@get("/search/movie")
def search_movie(ctx, p, a):
    year = a.get("year") or a.get("primary_release_year")
    rows = [m for m in _search(list(ctx.data.movies.values()), "title", a) if year is None or m["release_date"].startswith(str(year))]
    return 200, page(sorted(rows, key=lambda m: (-m["popularity"], m["id"])), a, movie_brief)


@get("/search/person")
def search_person(ctx, p, a):
    q, d = str(a["query"]).strip().lower(), ctx.data
    return 200, page([k for k in d.people_by_id if q in d.people[k]["name"].lower()], a, lambda k: person_brief(d, k))


@get("/search/tv")
def search_tv(ctx, p, a):
    rows = _search(list(ctx.data.tv.values()), "name", a)
    return 200, page(sorted(rows, key=lambda t: (-t["popularity"], t["id"])), a, tv_brief)


@get("/search/collection")
def search_collection(ctx, p, a):
    rows = _search(list(ctx.data.collections.values()), "name", a)
    return 200, page([{"id": c["id"], "name": c["name"], "poster_path": f"/coll{c['id']}.jpg",
                       "backdrop_path": f"/collbd{c['id']}.jpg"} for c in rows], a)


@get("/search/company")
def search_company(ctx, p, a):
    rows = _search(list(ctx.data.companies.values()), "name", a)
    return 200, page([{"id": c["id"], "name": c["name"], "logo_path": c["logo_path"]} for c in rows], a)


# ------------------------------------------------------------------ movies
def entity_route(template: str, table: str, param: str, answer: Callable) -> None:
    """Register ``GET template``: 404 when path parameter ``param`` names no entity of ``ctx.data.<table>``,
    else ``answer(ctx, key, entity, path_params, args) -> (status, body)``."""
    def handler(ctx, p, a):
        key = _int(p[param])
        x = getattr(ctx.data, table).get(key)
        return not_found() if x is None else answer(ctx, key, x, p, a)
    get(template)(handler)


def _movie_route(suffix: str):
    """``/movie/{movie_id}<suffix>`` answered by ``fn(ctx, movie, args)``."""
    def deco(fn):
        entity_route("/movie/{movie_id}" + suffix, "movies", "movie_id", lambda ctx, k, m, p, a: (200, fn(ctx, m, a)))
        return fn
    return deco


@_movie_route("")
def movie_details(ctx, m, a):
    d = ctx.data
    coll = d.collections.get(m["collection"]) if m["collection"] else None
    comp = d.companies.get(m["company"]) if m["company"] else None
    return dict(movie_brief(m), runtime=m["runtime"], genres=[{"id": m["genre_ids"][0], "name": m["genre"]}],
                belongs_to_collection=coll and {"id": coll["id"], "name": coll["name"], "poster_path": f"/coll{coll['id']}.jpg",
                                                "backdrop_path": f"/collbd{coll['id']}.jpg"},
                production_companies=[{"id": comp["id"], "name": comp["name"], "logo_path": comp["logo_path"],
                                       "origin_country": comp["origin_country"]}] if comp else [],
                production_countries=[{"iso_3166_1": "US", "name": "United States of America"}],
                spoken_languages=[{"iso_639_1": "en", "name": "English"}], status="Released",
                budget=1_000_000 * (5 + h(m["title"], 200)), revenue=1_000_000 * (10 + h(m["title"] + "$", 900)),
                homepage=f"https://www.example.com/movie/{m['id']}", imdb_id=f"tt{m['id']:07d}", tagline="")


@_movie_route("/credits")
def movie_credits(ctx, m, a):
    return {"id": m["id"], "cast": _cast(ctx.data, m["cast"], "m", m["id"]),
            "crew": _director(ctx.data, m["director"], "m", m["id"])}


@_movie_route("/images")
def movie_images(ctx, m, a):
    return {"id": m["id"], "backdrops": _images("backdrop", m["id"]), "posters": _images("poster", m["id"])}


@_movie_route("/keywords")
def movie_keywords(ctx, m, a):
    return {"id": m["id"], "keywords": [{"id": 900 + h(k, 9000), "name": k} for k in m["keywords"]]}


@_movie_route("/release_dates")
def movie_release_dates(ctx, m, a):
    return {"id": m["id"], "results": [{"iso_3166_1": "US", "release_dates": [
        {"certification": "PG-13", "iso_639_1": "", "note": "", "release_date": m["release_date"] + "T00:00:00.000Z", "type": 3}]}]}


@_movie_route("/reviews")
def movie_reviews(ctx, m, a):
    return _reviews(m["title"], m["id"], a)


def _alike(ctx, m) -> list:
    return sorted((x for x in ctx.data.movies.values() if x["genre"] == m["genre"] and x["id"] != m["id"]),
                  key=lambda x: (-x["vote_average"], x["id"]))


@_movie_route("/similar")
def movie_similar(ctx, m, a):
    return page(_alike(ctx, m), a, movie_brief)


@_movie_route("/recommendations")
def movie_recommendations(ctx, m, a):
    rows = sorted(_alike(ctx, m), key=lambda x: (-x["popularity"], x["id"]))
    return page(rows, a, movie_brief)


def _movie_list(template: str, key: Callable, since: str | None = None) -> None:
    """Register ``GET template``: the movies released since ``since`` ordered by ``key`` (ordered once, kept)."""
    def handler(ctx, p, a):
        rows = ctx.data.ordered(template, lambda: sorted(
            (m for m in ctx.data.movies.values() if since is None or m["release_date"] >= since), key=key))
        return 200, page(rows, a, movie_brief)
    get(template)(handler)


_movie_list("/movie/top_rated", lambda m: (-m["vote_average"], m["id"]))
_movie_list("/movie/popular", lambda m: (-m["popularity"], m["id"]))
_movie_list("/movie/now_playing", lambda m: (-m["popularity"], m["id"]), since="2023-01-01")
_movie_list("/movie/upcoming", lambda m: (m["release_date"], m["id"]), since="2024-01-01")


@get("/movie/latest")
def movie_latest(ctx, p, a):
    m = max(ctx.data.movies.values(), key=lambda m: (m["release_date"], m["id"]))
    return 200, movie_details(ctx, m, a)


@get("/genre/movie/list")
def genre_list(ctx, p, a):
    return 200, {"genres": [{"id": i, "name": g} for g, i in sorted(ctx.data.genres.items(), key=lambda x: x[1])]}


@get("/discover/movie")
def discover(ctx, p, a):
    rows = list(ctx.data.movies.values())
    wanted = genre_ids(a)
    if wanted is not None:
        rows = [m for m in rows if wanted & set(m["genre_ids"])]
    if a.get("primary_release_year") is not None:
        rows = [m for m in rows if m["release_date"].startswith(str(a["primary_release_year"]))]
    for key, test in (("primary_release_date.gte", lambda m, v: m["release_date"] >= v),
                      ("primary_release_date.lte", lambda m, v: m["release_date"] <= v),
                      ("vote_average.gte", lambda m, v: m["vote_average"] >= float(v)),
                      ("vote_average.lte", lambda m, v: m["vote_average"] <= float(v))):
        if a.get(key) is not None:
            try:
                rows = [m for m in rows if test(m, a[key])]
            except ValueError:
                return invalid(f"Invalid {key}: {a[key]!r}.")
    rows = sort_by(rows, a, "release_date", ("release_date", "primary_release_date"))
    return invalid(f"Invalid sort_by {a['sort_by']!r}.") if rows is None else (200, page(rows, a, movie_brief))


def genre_ids(a: dict) -> set | None:
    """The ``with_genres`` filter (ids joined by ``,`` or ``|``), None when absent."""
    return None if a.get("with_genres") is None else {_int(x) for x in str(a["with_genres"]).replace("|", ",").split(",")}


def sort_by(rows: list, a: dict, date_field: str, date_names: tuple[str, ...]) -> list | None:
    """``rows`` in TMDB's ``sort_by`` order (default ``popularity.desc``; ties by id); None for an unknown order."""
    field, _, direction = str(a.get("sort_by") or "popularity.desc").rpartition(".")
    fields = dict({"popularity": "popularity", "vote_average": "vote_average"}, **{n: date_field for n in date_names})
    if field not in fields or direction not in ("asc", "desc"):
        return None
    desc = direction == "desc"
    return sorted(rows, key=lambda r: (r[fields[field]], -r["id"] if desc else r["id"]), reverse=desc)


@get("/trending/{media_type}/{time_window}")
def trending(ctx, p, a):
    kind, window = p["media_type"], p["time_window"]
    if kind not in ("all", "movie", "tv", "person") or window not in ("day", "week"):
        return invalid("media_type must be all, movie, tv or person and time_window day or week.")
    d = ctx.data
    views = {"movie": lambda k: movie_brief(d.movies[k]), "tv": lambda k: tv_brief(d.tv[k]),
             "person": lambda k: person_brief(d, k)}
    rows = d.ordered(f"/trending/{kind}/{window}", lambda: _trending(d, kind, window))
    return 200, page(rows, a, lambda row: dict(views[row[1]](row[2]), media_type=row[1]))


def _trending(d: RestData, kind: str, window: str) -> list[tuple[float, str, int]]:
    """(score, media type, id) of the trending ``kind`` (all, movie, tv, person) in ``window``, best first."""
    rows: list[tuple[float, str, int]] = []
    if kind in ("all", "movie"):
        rows += [(m["popularity"], "movie", k) for k, m in d.movies.items()]
    if kind in ("all", "tv"):
        rows += [(t["popularity"] / 10, "tv", k) for k, t in d.tv.items()]
    if kind in ("all", "person"):
        rows += [(x["popularity"] / 2, "person", k) for k, x in d.people.items()]
    if window == "day":  # today's ranking differs from the week's
        rows = [(s * (0.5 + h(str(k), 100) / 100), t, k) for s, t, k in rows]
    return sorted(rows, key=lambda x: (-x[0], x[2]))


# ------------------------------------------------------------------ people
def _person_route(suffix: str):
    """``/person/{person_id}<suffix>`` answered by ``fn(ctx, person_id, args)``."""
    def deco(fn):
        entity_route("/person/{person_id}" + suffix, "people", "person_id", lambda ctx, k, x, p, a: (200, fn(ctx, k, a)))
        return fn
    return deco


@_person_route("")
def person_details(ctx, pid, a):
    x = ctx.data.people[pid]
    return {"id": pid, "name": x["name"], "birthday": f"{x['born']}-{1 + h(x['name'], 12):02d}-{1 + h(x['name'] + 'b', 28):02d}",
            "place_of_birth": x["place_of_birth"], "known_for_department": x["known_for"], "gender": x["gender"],
            "popularity": x["popularity"], "biography": f"{x['name']} works in {x['known_for'].lower()}.",
            "profile_path": f"/profile{pid}.jpg", "imdb_id": f"nm{pid:07d}", "deathday": None, "adult": False,
            "also_known_as": [], "homepage": None}


@_person_route("/images")
def person_images(ctx, pid, a):
    return {"id": pid, "profiles": _images("profile", pid)}


@_person_route("/movie_credits")
def person_movie_credits(ctx, pid, a):
    cast, crew = ctx.data.movie_credits_of(pid)
    return {"id": pid, "cast": [dict(movie_brief(m), character="Lead" if m["cast"][0] == pid else "Supporting",
                                     credit_id=credit_id("m", "c", pid, m["id"])) for m in cast],
            "crew": [dict(movie_brief(m), job="Director", department="Directing", credit_id=credit_id("m", "d", pid, m["id"])) for m in crew]}


@_person_route("/tv_credits")
def person_tv_credits(ctx, pid, a):
    shows = sorted(ctx.data.tv.values(), key=lambda t: (t["first_air_date"], t["id"]))
    return {"id": pid, "cast": [dict(tv_brief(t), character="Lead", episode_count=t["episodes"]) for t in shows if pid in t["cast"]],
            "crew": [dict(tv_brief(t), job="Director", department="Directing", episode_count=2) for t in shows
                     if t["director"] == pid]}


@get("/person/popular")
def person_popular(ctx, p, a):
    return 200, page(ctx.data.people_by_popularity, a, lambda k: person_brief(ctx.data, k))
