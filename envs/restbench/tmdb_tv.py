"""The mock TMDB API, part two: TV shows, seasons, episodes, collections, companies, networks, credits, reviews (see ``tmdb.py``)."""
from __future__ import annotations

import re
from typing import Callable

from .catalog import TV_GENRES, h
from .tmdb import (_cast, _director, _images, _int, _reviews, entity_route, genre_ids, get, invalid, movie_brief,
                   not_found, page, sort_by, tv_brief)


def _tv_route(suffix: str):
    """``/tv/{tv_id}<suffix>`` answered by ``fn(ctx, show, args, season, episode)``; season and episode
    numbers must exist in the show (404 otherwise)."""
    def answer(fn, ctx, t, p, a):
        season, episode = _int(p.get("season_number", 1)), _int(p.get("episode_number", 1))
        if season is None or not 0 < season <= t["seasons"] or episode is None or not 0 < episode <= t["episodes"]:
            return not_found()
        return 200, fn(ctx, t, a, season, episode)

    def deco(fn):
        entity_route("/tv/{tv_id}" + suffix, "tv", "tv_id", lambda ctx, k, t, p, a: answer(fn, ctx, t, p, a))
        return fn
    return deco


def _season_date(t: dict, season: int) -> str:
    return f"{int(t['first_air_date'][:4]) + season - 1}{t['first_air_date'][4:]}"


def _episode(ctx, t: dict, season: int, ep: int) -> dict:
    d = ctx.data
    guests = sorted(d.people)[h(f"{t['name']}{season}{ep}", len(d.people))]
    return {"id": t["id"] * 1000 + season * 100 + ep, "name": f"{t['name']} {season}x{ep:02d}",
            "overview": f"Season {season}, episode {ep} of {t['name']}: the story takes a "
                        f"{('dark', 'comic', 'surprising', 'quiet')[h(t['name'] + str(season * 100 + ep), 4)]} turn.",
            "air_date": _season_date(t, season), "episode_number": ep, "season_number": season,
            "still_path": f"/still{t['id']}_{season}_{ep}.jpg", "vote_average": round(7 + h(f"{season}{ep}{t['name']}", 25) / 10, 1),
            "vote_count": 50 + h(t["name"] + str(ep), 500), "production_code": "", "runtime": 45,
            "crew": _director(d, t["director"], "t", t["id"]), "guest_stars": _cast(d, [guests], "t", t["id"])}


@_tv_route("")
def tv_details(ctx, t, a, season, ep):
    d = ctx.data
    net, comp = d.networks[t["network"]], d.companies[t["company"]]
    return dict(tv_brief(t), genres=[t["genre"]], number_of_seasons=t["seasons"],
                number_of_episodes=t["seasons"] * t["episodes"], episode_run_time=[45], in_production=False,
                created_by=[{"id": t["director"], "name": d.people[t["director"]]["name"], "credit_id": f"cb{t['id']}"}],
                networks=[{"id": net["id"], "name": net["name"], "logo_path": net["logo_path"], "origin_country": net["origin_country"]}],
                production_companies=[{"id": comp["id"], "name": comp["name"], "logo_path": comp["logo_path"],
                                       "origin_country": comp["origin_country"]}],
                seasons=[{"id": t["id"] * 10 + s, "name": f"Season {s}", "season_number": s, "episode_count": t["episodes"],
                          "air_date": _season_date(t, s), "overview": "", "poster_path": f"/season{t['id']}_{s}.jpg"}
                         for s in range(1, t["seasons"] + 1)],
                last_air_date=_season_date(t, t["seasons"]), status="Ended", type="Scripted", languages=["en"],
                homepage=f"https://www.example.com/tv/{t['id']}", tagline="")


@_tv_route("/credits")
def tv_credits(ctx, t, a, season, ep):
    return {"id": t["id"], "cast": _cast(ctx.data, t["cast"], "t", t["id"]),
            "crew": _director(ctx.data, t["director"], "t", t["id"])}


@_tv_route("/images")
def tv_images(ctx, t, a, season, ep):
    return {"id": t["id"], "backdrops": _images("tvbackdrop", t["id"]), "posters": _images("tvposter", t["id"])}


@_tv_route("/keywords")
def tv_keywords(ctx, t, a, season, ep):
    return {"id": t["id"], "results": [{"id": 900 + h(k, 9000), "name": k} for k in t["keywords"]]}


@_tv_route("/reviews")
def tv_reviews(ctx, t, a, season, ep):
    return _reviews(t["name"], t["id"], a)


def _alike(ctx, t) -> list:
    return sorted((x for x in ctx.data.tv.values() if x["id"] != t["id"]),
                  key=lambda x: (x["genre"]["id"] != t["genre"]["id"], -x["vote_average"], x["id"]))


@_tv_route("/similar")
def tv_similar(ctx, t, a, season, ep):
    return page(_alike(ctx, t), a, tv_brief)


@_tv_route("/recommendations")
def tv_recommendations(ctx, t, a, season, ep):
    return page(sorted(_alike(ctx, t)[:8], key=lambda x: (-x["popularity"], x["id"])), a, tv_brief)


@_tv_route("/season/{season_number}")
def tv_season(ctx, t, a, season, ep):
    return {"_id": f"s{t['id']}x{season}", "id": t["id"] * 10 + season, "name": f"Season {season}", "season_number": season,
            "air_date": _season_date(t, season), "overview": f"Season {season} of {t['name']}.",
            "poster_path": f"/season{t['id']}_{season}.jpg",
            "episodes": [_episode(ctx, t, season, k) for k in range(1, t["episodes"] + 1)]}


@_tv_route("/season/{season_number}/credits")
def tv_season_credits(ctx, t, a, season, ep):
    d = ctx.data
    second = sorted(d.people)[h(f"{t['name']}{season}dir", len(d.people))]
    return {"id": t["id"] * 10 + season, "cast": _cast(d, t["cast"], "t", t["id"]),
            "crew": _director(d, t["director"], "t", t["id"]) + _director(d, second, "t", t["id"])}


@_tv_route("/season/{season_number}/images")
def tv_season_images(ctx, t, a, season, ep):
    return {"id": t["id"] * 10 + season, "posters": _images(f"season{t['id']}_", season)}


@_tv_route("/season/{season_number}/episode/{episode_number}")
def tv_episode(ctx, t, a, season, ep):
    return _episode(ctx, t, season, ep)


@_tv_route("/season/{season_number}/episode/{episode_number}/credits")
def tv_episode_credits(ctx, t, a, season, ep):
    e = _episode(ctx, t, season, ep)
    return {"id": e["id"], "cast": _cast(ctx.data, t["cast"], "t", t["id"]), "crew": e["crew"], "guest_stars": e["guest_stars"]}


@_tv_route("/season/{season_number}/episode/{episode_number}/images")
def tv_episode_images(ctx, t, a, season, ep):
    e = _episode(ctx, t, season, ep)
    return {"id": e["id"], "stills": _images(f"still{t['id']}_{season}_", ep)}


def _tv_list(template: str, key: Callable) -> None:
    """Register ``GET template``: every show ordered by ``key`` (ordered once, kept)."""
    def handler(ctx, p, a):
        return 200, page(ctx.data.ordered(template, lambda: sorted(ctx.data.tv.values(), key=key)), a, tv_brief)
    get(template)(handler)


_tv_list("/tv/popular", lambda t: (-t["popularity"], t["id"]))
_tv_list("/tv/top_rated", lambda t: (-t["vote_average"], t["id"]))
_tv_list("/tv/on_the_air", lambda t: (-t["popularity"] * (0.5 + h(t["name"] + "air", 100) / 100), t["id"]))
_tv_list("/tv/airing_today", lambda t: (-t["popularity"] * (0.5 + h(t["name"] + "today", 100) / 100), t["id"]))


# ------------------------------------------------------------------ collections, companies, networks
def _by_id(template: str, table: str, param: str, fn) -> None:
    entity_route(template, table, param, lambda ctx, k, x, p, a: (200, fn(ctx, x)))


_by_id("/collection/{collection_id}", "collections", "collection_id", lambda ctx, c: {
    "id": c["id"], "name": c["name"], "overview": f"The {c['name'].replace(' Collection', '')} films.",
    "poster_path": f"/coll{c['id']}.jpg", "backdrop_path": f"/collbd{c['id']}.jpg",
    "parts": [movie_brief(ctx.data.movies[m]) for m in c["parts"]]})
_by_id("/collection/{collection_id}/images", "collections", "collection_id", lambda ctx, c: {
    "id": c["id"], "backdrops": _images("collbd", c["id"]), "posters": _images("coll", c["id"])})
_by_id("/company/{company_id}", "companies", "company_id", lambda ctx, c: dict(
    c, description=f"{c['name']} produces films and television.", parent_company=None))
_by_id("/company/{company_id}/images", "companies", "company_id", lambda ctx, c: {
    "id": c["id"], "logos": [dict(x, file_type=".png") for x in _images("logo", c["id"], 1)]})
_by_id("/network/{network_id}", "networks", "network_id", lambda ctx, n: dict(n))
_by_id("/network/{network_id}/images", "networks", "network_id", lambda ctx, n: {
    "id": n["id"], "logos": [dict(x, file_type=".png") for x in _images("network", n["id"], 1)]})


# ------------------------------------------------------------------ the spec's other TMDB endpoints
@get("/genre/tv/list")
def tv_genre_list(ctx, p, a):
    return 200, {"genres": [{"id": i, "name": g} for g, i in sorted(TV_GENRES.items(), key=lambda x: x[1])]}


@get("/tv/latest")
def tv_latest(ctx, p, a):
    t = max(ctx.data.tv.values(), key=lambda t: (t["first_air_date"], t["id"]))
    return 200, tv_details(ctx, t, a, 1, 1)


@get("/discover/tv")
def discover_tv(ctx, p, a):
    rows, wanted = list(ctx.data.tv.values()), genre_ids(a)
    if wanted is not None:
        rows = [t for t in rows if t["genre"]["id"] in wanted]
    if a.get("first_air_date_year") is not None:
        rows = [t for t in rows if t["first_air_date"].startswith(str(a["first_air_date_year"]))]
    rows = sort_by(rows, a, "first_air_date", ("first_air_date",))
    return invalid(f"Invalid sort_by {a['sort_by']!r}.") if rows is None else (200, page(rows, a, tv_brief))


@get("/credit/{credit_id}")
def credit(ctx, p, a):
    m = re.fullmatch(r"([mt])([cd])(\d+)x(\d+)", p["credit_id"])
    d = ctx.data
    table = d.movies if m and m.group(1) == "m" else d.tv
    pid, oid = (int(m.group(3)), int(m.group(4))) if m else (None, None)
    if not m or pid not in d.people or oid not in table:
        return not_found()
    title = table[oid]
    role = ("cast" if pid in title["cast"] else None) if m.group(2) == "c" else ("crew" if title["director"] == pid else None)
    if role is None:
        return not_found()
    return 200, {"id": p["credit_id"], "credit_type": role, "department": "Acting" if role == "cast" else "Directing",
                 "job": "Actor" if role == "cast" else "Director", "media_type": "movie" if m.group(1) == "m" else "tv",
                 "media": movie_brief(title) if m.group(1) == "m" else tv_brief(title),
                 "person": {"id": pid, "name": d.people[pid]["name"]}}


@get("/review/{review_id}")
def review(ctx, p, a):
    m = re.fullmatch(r"rv(\d+)-([12])", p["review_id"])
    d = ctx.data
    oid = int(m.group(1)) if m else None
    title = d.movies.get(oid) or d.tv.get(oid) if m else None
    if title is None:
        return not_found()
    name = title.get("title") or title["name"]
    rv = next(r for r in _reviews(name, oid, {})["results"] if r["id"] == p["review_id"])
    return 200, dict(rv, media_id=oid, media_title=name, media_type="movie" if oid in d.movies else "tv",
                     iso_639_1="en")
