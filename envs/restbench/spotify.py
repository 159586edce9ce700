"""The mock Spotify Web API: one handler per endpoint RestBench uses, over the catalog and the user's world state.

The catalog (artists, albums, tracks) is read-only; what a user changes lives
in the episode's world (``catalog.INITIAL_WORLD``): ``sp_playlists``,
``sp_library`` (saved ``tracks`` and ``albums``, ``following``) and
``sp_player`` (playback ``state`` and ``queue``), written through the call's
:class:`~treegym.envs.tools_common.world.Tx`. Status codes are Spotify's (201 for
a new playlist or added tracks, 204 for player commands and follows) and errors
``{"error": {"status", "message"}}``. ``api.call`` fills the remaining fields
the OpenAPI schema declares.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from .catalog import USER_ID

ROUTES: list[tuple[str, str, Callable]] = []
BASE = "https://api.spotify.com/v1"


def route(method: str, template: str):
    def deco(fn):
        ROUTES.append((method, template, fn))
        return fn
    return deco


def error(status: int, message: str) -> tuple[int, Any]:
    return status, {"error": {"status": status, "message": message}}


def paging(ctx, items: Sequence, a: dict, default_limit: int = 20, view: Callable[[Any], Any] | None = None) -> dict:
    """Spotify's paging object over ``items`` (``limit`` 1-50, ``offset``); ``view`` (when given) turns only
    the asked page's items into the answer's items."""
    limit = max(1, min(int(a.get("limit") or default_limit), 50))
    offset = max(0, int(a.get("offset") or 0))
    href = f"{BASE}{ctx.path}?offset={{}}&limit={limit}"
    shown = list(items[offset: offset + limit])
    return {"href": href.format(offset), "items": [view(x) for x in shown] if view else shown, "limit": limit,
            "next": href.format(offset + limit) if offset + limit < len(items) else None, "offset": offset,
            "previous": href.format(max(0, offset - limit)) if offset > 0 else None, "total": len(items)}


def _links(kind: str, oid: str) -> dict:
    return {"id": oid, "type": kind, "uri": f"spotify:{kind}:{oid}", "href": f"{BASE}/{kind}s/{oid}",
            "external_urls": {"spotify": f"https://open.spotify.com/{kind}/{oid}"}}


def artist_brief(ctx, aid: str) -> dict:
    return dict(_links("artist", aid), name=ctx.data.artists[aid]["name"])


def artist_view(ctx, aid: str) -> dict:
    x = ctx.data.artists[aid]
    return dict(artist_brief(ctx, aid), genres=x["genres"], popularity=x["popularity"], images=[],
                followers={"href": None, "total": x["followers"]})


def album_brief(ctx, alid: str) -> dict:
    x = ctx.data.albums[alid]
    return dict(_links("album", alid), name=x["name"], album_type="album", total_tracks=len(ctx.data.album_tracks(alid)),
                release_date=x["release_date"],
                release_date_precision="day", artists=[artist_brief(ctx, a) for a in x["artist_ids"]], images=[],
                available_markets=["US"])


def track_view(ctx, tid: str, with_album: bool = True) -> dict:
    t = ctx.data.tracks[tid]
    out = dict(_links("track", tid), name=t["name"], duration_ms=t["duration_ms"], popularity=t["popularity"],
               track_number=t["track_number"], disc_number=1, explicit=False, is_local=False, preview_url=None,
               artists=[artist_brief(ctx, a) for a in t["artist_ids"]], available_markets=["US"])
    if with_album:
        out["album"] = album_brief(ctx, t["album_id"])
    return out


def _ids(a: dict, key: str = "ids") -> list[str]:
    raw = a.get(key) or []
    items = raw if isinstance(raw, list) else str(raw).split(",")
    return [str(x).strip().rsplit(":", 1)[-1] for x in items if str(x).strip()]


def _unknown(ids: list[str], table: dict) -> str | None:
    bad = [i for i in ids if i not in table]
    return f"Invalid id(s): {', '.join(bad)}" if bad or not ids else None


# ------------------------------------------------------------------ catalog
@route("GET", "/search")
def search(ctx, p, a):
    q = str(a["q"]).strip().lower()
    kinds = [k.strip() for k in (a["type"] if isinstance(a["type"], list) else str(a["type"]).split(",")) if k.strip()]
    if not kinds or not set(kinds) <= {"track", "artist", "album", "playlist", "show", "episode", "audiobook"}:
        return error(400, f"Bad search type field {a['type']!r}")
    d, out = ctx.data, {}
    if "track" in kinds:
        rows = sorted((t for t in d.tracks.values() if q in t["name"].lower()
                       or any(q in d.artists[x]["name"].lower() for x in t["artist_ids"])), key=lambda t: (-t["popularity"], t["id"]))
        out["tracks"] = paging(ctx, [t["id"] for t in rows], a, 10, lambda i: track_view(ctx, i))
    if "artist" in kinds:
        rows = sorted((x for x in d.artists.values() if q in x["name"].lower()), key=lambda x: (-x["popularity"], x["id"]))
        out["artists"] = paging(ctx, [x["id"] for x in rows], a, 10, lambda i: artist_view(ctx, i))
    if "album" in kinds:
        rows = [x for x in d.albums.values() if q in x["name"].lower() or any(q in d.artists[y]["name"].lower() for y in x["artist_ids"])]
        out["albums"] = paging(ctx, [x["id"] for x in rows], a, 10, lambda i: album_brief(ctx, i))
    if "playlist" in kinds:
        rows = [v for _, v in ctx.tx.items("sp_playlists") if q in v["name"].lower()]
        out["playlists"] = paging(ctx, [_playlist_brief(v) for v in rows], a, 10)
    for k in ("show", "episode", "audiobook"):
        if k in kinds:
            out[k + "s"] = paging(ctx, [], a, 10)
    return 200, out


def _catalog(template: str, table: str, fn: Callable):
    @route("GET", template)
    def handler(ctx, p, a):
        return (200, fn(ctx, p["id"], a)) if p["id"] in getattr(ctx.data, table) else error(404, "Resource not found")
    return handler


_catalog("/artists/{id}", "artists", lambda ctx, i, a: artist_view(ctx, i))
_catalog("/artists/{id}/top-tracks", "artists", lambda ctx, i, a: {
    "tracks": [track_view(ctx, t["id"]) for t in ctx.data.artist_tracks(i)[:10]]})
_catalog("/artists/{id}/albums", "artists", lambda ctx, i, a: paging(
    ctx, ctx.data.artist_albums(i), a, view=lambda x: album_brief(ctx, x["id"])))
_catalog("/artists/{id}/related-artists", "artists", lambda ctx, i, a: {"artists": [artist_view(ctx, x) for x in sorted(
    ctx.data.artists, key=lambda x: (set(ctx.data.artists[x]["genres"]).isdisjoint(ctx.data.artists[i]["genres"]), x)) if x != i][:10]})
_catalog("/albums/{id}", "albums", lambda ctx, i, a: dict(
    album_brief(ctx, i), popularity=50, label="treegym records", genres=[], copyrights=[], external_ids={},
    tracks=paging(ctx, ctx.data.album_tracks(i), a, 50, lambda t: track_view(ctx, t["id"], False))))
_catalog("/albums/{id}/tracks", "albums", lambda ctx, i, a: paging(
    ctx, ctx.data.album_tracks(i), a, view=lambda t: track_view(ctx, t["id"], False)))
_catalog("/tracks/{id}", "tracks", lambda ctx, i, a: track_view(ctx, i))
_catalog("/track/{id}", "tracks", lambda ctx, i, a: track_view(ctx, i))   # RestBench's gold path writes /track/{id}


# ------------------------------------------------------------------ the user
@route("GET", "/me")
def me(ctx, p, a):
    return 200, dict(_links("user", USER_ID), display_name="Treegym User", country="US", product="premium",
                     email="user@treegym.invalid", images=[], followers={"href": None, "total": 3},
                     explicit_content={"filter_enabled": False, "filter_locked": False})


@route("GET", "/me/top/{type}")
def top(ctx, p, a):
    d = ctx.data
    if p["type"] == "artists":
        return 200, paging(ctx, d.artists_by_popularity, a, view=lambda x: artist_view(ctx, x))
    if p["type"] == "tracks":
        return 200, paging(ctx, d.tracks_by_popularity, a, view=lambda t: track_view(ctx, t))
    return error(400, "type must be artists or tracks")


def _library(kind: str, table: str, view: Callable):
    @route("GET", f"/me/{kind}")
    def show(ctx, p, a):
        saved = ctx.tx.get("sp_library", kind, [])
        return 200, paging(ctx, [{"added_at": "2024-01-01T00:00:00Z", kind[:-1]: view(ctx, x)} for x in saved], a)

    def change(add: bool):
        def handler(ctx, p, a):
            ids = _ids(a)
            bad = _unknown(ids, getattr(ctx.data, table))
            if bad:
                return error(400, bad)
            saved = [x for x in ctx.tx.get("sp_library", kind, []) if x not in ids]
            ctx.tx.put("sp_library", kind, (ids + saved) if add else saved)
            return 200, None
        return handler

    route("PUT", f"/me/{kind}")(change(True))
    route("DELETE", f"/me/{kind}")(change(False))


_library("tracks", "tracks", track_view)
_library("albums", "albums", album_brief)


@route("GET", "/me/following")
def following(ctx, p, a):
    if a["type"] != "artist":
        return error(400, "type must be artist")
    items = [artist_view(ctx, x) for x in ctx.tx.get("sp_library", "following", [])]
    page = paging(ctx, items, a)
    return 200, {"artists": {"href": page["href"], "items": page["items"], "limit": page["limit"], "next": page["next"],
                             "cursors": {"after": None, "before": None}, "total": page["total"]}}


def _follow(add: bool, status: int):
    def handler(ctx, p, a):
        if a["type"] not in ("artist", "user"):
            return error(400, "type must be artist or user")
        ids = _ids(a)
        bad = _unknown(ids, ctx.data.artists) if a["type"] == "artist" else None
        if bad:
            return error(400, bad)
        kept = [x for x in ctx.tx.get("sp_library", "following", []) if x not in ids]
        ctx.tx.put("sp_library", "following", (kept + ids) if add else kept)
        return status, None
    return handler


route("PUT", "/me/following")(_follow(True, 204))
route("DELETE", "/me/following")(_follow(False, 200))


# ------------------------------------------------------------------ playlists
def _playlist_brief(pl: dict) -> dict:
    return dict(_links("playlist", pl["id"]), name=pl["name"], description=pl["description"], public=pl["public"],
                collaborative=False, images=[], snapshot_id=f"{pl['id']}-{len(pl['tracks'])}",
                owner=dict(_links("user", USER_ID), display_name="Treegym User"),
                tracks={"href": f"{BASE}/playlists/{pl['id']}/tracks", "total": len(pl["tracks"])})


def _playlist_tracks(ctx, pl: dict, a: dict) -> dict:
    return paging(ctx, [{"added_at": "2024-01-01T00:00:00Z", "is_local": False, "track": track_view(ctx, t),
                         "added_by": _links("user", USER_ID)} for t in pl["tracks"]], a, 100)


def _playlist(fn: Callable):
    def handler(ctx, p, a):
        pl = ctx.tx.get("sp_playlists", p["playlist_id"])
        return error(404, "Not found.") if pl is None else fn(ctx, pl, a)
    return handler


@route("GET", "/me/playlists")
def my_playlists(ctx, p, a):
    return 200, paging(ctx, [_playlist_brief(v) for _, v in ctx.tx.items("sp_playlists")], a)


@route("POST", "/users/{user_id}/playlists")
def create_playlist(ctx, p, a):
    if p["user_id"] != USER_ID:
        return error(403, "You cannot create a playlist for another user")
    if not str(a["name"]).strip():
        return error(400, "Missing required field: name")
    n = int(ctx.tx.get("_counters", "SPL", 0)) + 1
    ctx.tx.put("_counters", "SPL", n)
    pl = {"id": f"pl{n:04d}new", "name": str(a["name"]).strip(), "description": str(a.get("description") or ""),
          "public": bool(a.get("public", True)), "tracks": []}
    ctx.tx.put("sp_playlists", pl["id"], pl)
    return 201, dict(_playlist_brief(pl), followers={"href": None, "total": 0}, tracks=_playlist_tracks(ctx, pl, {}))


route("GET", "/playlists/{playlist_id}")(_playlist(lambda ctx, pl, a: (200, dict(
    _playlist_brief(pl), followers={"href": None, "total": 0}, tracks=_playlist_tracks(ctx, pl, a)))))
route("GET", "/playlists/{playlist_id}/tracks")(_playlist(lambda ctx, pl, a: (200, _playlist_tracks(ctx, pl, a))))


@route("PUT", "/playlists/{playlist_id}")
@_playlist
def change_playlist(ctx, pl, a):
    for k in ("name", "description", "public"):
        if a.get(k) is not None:
            pl[k] = a[k] if k != "name" else str(a[k]).strip()
    ctx.tx.put("sp_playlists", pl["id"], pl)
    return 200, None


def _uris(ctx, values: Any) -> tuple[list[str] | None, str]:
    ids = []
    for u in values if isinstance(values, list) else str(values).split(","):
        u = str(u.get("uri") if isinstance(u, dict) else u).strip()
        if not u.startswith("spotify:track:") or u.rsplit(":", 1)[-1] not in ctx.data.tracks:
            return None, f"Invalid track uri: {u}"
        ids.append(u.rsplit(":", 1)[-1])
    return ids, ""


@route("POST", "/playlists/{playlist_id}/tracks")
@_playlist
def add_tracks(ctx, pl, a):
    ids, err = _uris(ctx, a.get("uris") or [])
    if not ids:
        return error(400, err or "No uris provided")
    at = a.get("position")
    at = len(pl["tracks"]) if at is None else max(0, min(int(at), len(pl["tracks"])))
    pl["tracks"][at:at] = ids
    ctx.tx.put("sp_playlists", pl["id"], pl)
    return 201, {"snapshot_id": f"{pl['id']}-{len(pl['tracks'])}"}


@route("DELETE", "/playlists/{playlist_id}/tracks")
@_playlist
def remove_tracks(ctx, pl, a):
    ids, err = _uris(ctx, a["tracks"])
    if ids is None:
        return error(400, err)
    pl["tracks"] = [t for t in pl["tracks"] if t not in set(ids)]
    ctx.tx.put("sp_playlists", pl["id"], pl)
    return 200, {"snapshot_id": f"{pl['id']}-{len(pl['tracks'])}"}
