"""Media and information handlers: movie credits, albums and playlists, weather, sports standings and
results, geocoding and distances, unit conversion and statistics.

Every handler is ``handler(ctx, args)`` (see ``base.py``); importing this module registers them.
"""
from __future__ import annotations

import math
import re
from typing import Any

from .base import BadInput, Ctx, Failed, as_date, handler, need_record


@handler("media.credits")
def movie_credits(ctx: Ctx, args: dict) -> Any:
    m = ctx.fx.need("movies", args["movie_id"], "movie")
    d = ctx.fx.get("people", m["director_id"])
    cast = [{"person_id": c, "name": ctx.fx.get("people", c)["name"], "order": i} for i, c in enumerate(m["cast_ids"])]
    return {"movie_id": m["movie_id"], "title": m["title"], "director": {"person_id": d["person_id"], "name": d["name"]},
            "cast": cast}


@handler("media.filmography")
def filmography(ctx: Ctx, args: dict) -> Any:
    p = ctx.fx.need("people", args["person_id"], "person")
    rows = [{"movie_id": m["movie_id"], "title": m["title"], "year": m["year"],
             "role": "director" if m["director_id"] == p["person_id"] else "cast"}
            for m in ctx.fx.table("movies") if m["director_id"] == p["person_id"] or p["person_id"] in m["cast_ids"]]
    rows.sort(key=lambda r: (r["year"], r["movie_id"]))
    return {"person_id": p["person_id"], "name": p["name"], "count": len(rows), "movies": rows}


@handler("media.album")
def album(ctx: Ctx, args: dict) -> Any:
    a = ctx.fx.need("albums", args["album_id"], "album")
    return dict(a, tracks=[{"track_id": t["track_id"], "title": t["title"]} for t in ctx.fx.table("tracks")
                           if t["album_id"] == a["album_id"]])


@handler("media.top_tracks")
def top_tracks(ctx: Ctx, args: dict) -> Any:
    name = str(args["artist"]).strip().lower()
    rows = [t for t in ctx.fx.table("tracks") if t["artist"].lower() == name]
    if not rows:
        raise Failed(f"artist {args['artist']!r} not found")
    rows = sorted(rows, key=lambda t: (-t["popularity"], t["track_id"]))[:5]
    return {"artist": rows[0]["artist"], "tracks": [{k: t[k] for k in ("track_id", "title", "popularity")} for t in rows]}


@handler("media.create_playlist")
def create_playlist(ctx: Ctx, args: dict) -> Any:
    name = str(args["name"]).strip()
    if not name:
        raise BadInput("name must not be empty")
    if any(p["name"].lower() == name.lower() for _, p in ctx.tx.items("playlists")):
        raise Failed(f"a playlist named {name!r} already exists")
    pid = ctx.tx.next_id("PL")
    pl = {"playlist_id": pid, "name": name, "tracks": []}
    ctx.tx.put("playlists", pid, pl)
    return pl


def _playlist(ctx: Ctx, pid: Any) -> dict:
    return need_record(ctx, "playlists", str(pid).strip().upper(), f"playlist {pid!r} not found")


@handler("media.add_track")
def add_track(ctx: Ctx, args: dict) -> Any:
    pl = _playlist(ctx, args["playlist_id"])
    t = ctx.fx.need("tracks", args["track_id"], "track")
    if t["track_id"] in pl["tracks"]:
        raise Failed(f"{t['track_id']} is already in playlist {pl['playlist_id']}")
    pl["tracks"].append(t["track_id"])
    ctx.tx.put("playlists", pl["playlist_id"], pl)
    return pl


@handler("media.remove_track")
def remove_track(ctx: Ctx, args: dict) -> Any:
    pl = _playlist(ctx, args["playlist_id"])
    tid = str(args["track_id"]).strip().upper()
    if tid not in pl["tracks"]:
        raise Failed(f"{tid} is not in playlist {pl['playlist_id']}")
    pl["tracks"].remove(tid)
    ctx.tx.put("playlists", pl["playlist_id"], pl)
    return pl


@handler("media.get_playlist")
def get_playlist(ctx: Ctx, args: dict) -> Any:
    pl = _playlist(ctx, args["playlist_id"])
    return dict(pl, tracks=[{"track_id": t, "title": ctx.fx.get("tracks", t)["title"],
                             "artist": ctx.fx.get("tracks", t)["artist"]} for t in pl["tracks"]])


@handler("media.forecast")
def forecast(ctx: Ctx, args: dict) -> Any:
    city, date = str(args["city"]).strip().lower(), as_date(args.get("date") or ctx.fx.data["today"])
    for w in ctx.fx.table("weather"):
        if w["city"].lower() == city and w["date"] == date:
            return dict(w)
    raise Failed(f"no forecast for {args['city']!r} on {date}")


@handler("media.standings")
def standings(ctx: Ctx, args: dict) -> Any:
    table: dict[str, dict[str, int]] = {t["team"]: {"played": 0, "points": 0, "goal_diff": 0} for t in ctx.fx.table("teams")}
    for m in ctx.fx.table("matches"):
        h, a = table[m["home"]], table[m["away"]]
        h["played"] += 1
        a["played"] += 1
        h["goal_diff"] += m["home_goals"] - m["away_goals"]
        a["goal_diff"] += m["away_goals"] - m["home_goals"]
        if m["home_goals"] > m["away_goals"]:
            h["points"] += 3
        elif m["home_goals"] < m["away_goals"]:
            a["points"] += 3
        else:
            h["points"] += 1
            a["points"] += 1
    rows = sorted(({"team": k, **v} for k, v in table.items()), key=lambda r: (-r["points"], -r["goal_diff"], r["team"]))
    return {"standings": [dict(r, position=i + 1) for i, r in enumerate(rows)]}


@handler("media.match_results")
def match_results(ctx: Ctx, args: dict) -> Any:
    team = str(args["team"]).strip().lower()
    rows = [dict(m) for m in ctx.fx.table("matches") if team in (m["home"].lower(), m["away"].lower())]
    if not rows and not any(t["team"].lower() == team for t in ctx.fx.table("teams")):
        raise Failed(f"team {args['team']!r} not found")
    return {"matches": sorted(rows, key=lambda m: (m["date"], m["match_id"]))}


@handler("geo.geocode")
def geocode(ctx: Ctx, args: dict) -> Any:
    c = ctx.fx.need("cities", args["city"], "city")
    return {"city": c["city"], "country": c["country"], "lat": c["lat"], "lon": c["lon"]}


@handler("geo.distance")
def distance(ctx: Ctx, args: dict) -> Any:
    a = ctx.fx.need("cities", args["from_city"], "city")
    b = ctx.fx.need("cities", args["to_city"], "city")
    p1, p2 = math.radians(a["lat"]), math.radians(b["lat"])
    dl = math.radians(b["lon"] - a["lon"])
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    km = 2 * 6371.0 * math.asin(math.sqrt(h))
    return {"from": a["city"], "to": b["city"], "distance_km": round(km, 1)}


@handler("util.convert_units")
def convert_units(ctx: Ctx, args: dict) -> Any:
    f = ctx.fx.data["unit_factors"]
    src, dst = str(args["from_unit"]).strip().lower(), str(args["to_unit"]).strip().lower()
    groups = ({"km", "m", "mi", "ft"}, {"kg", "lb", "g"}, {"l", "gal", "ml"})
    if src not in f or dst not in f or not any(src in g and dst in g for g in groups):
        raise Failed(f"cannot convert {src!r} to {dst!r}")
    value = float(args["value"])
    return {"value": value, "from_unit": src, "to_unit": dst, "result": round(value * f[src] / f[dst], 4)}


@handler("util.statistics")
def statistics_(ctx: Ctx, args: dict) -> Any:
    try:
        nums = [float(x) for x in re.split(r"[,\s]+", str(args["numbers"]).strip()) if x]
    except ValueError:
        raise BadInput(f"numbers must be a comma-separated list of numbers, got {args['numbers']!r}") from None
    if not nums:
        raise BadInput("numbers is empty")
    s = sorted(nums)
    mid = len(s) // 2
    median = s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2
    return {"count": len(s), "sum": round(sum(s), 4), "mean": round(sum(s) / len(s), 4), "median": median,
            "min": s[0], "max": s[-1]}
