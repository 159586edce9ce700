"""The mock Spotify player (``/me/player/...``, state and queue in the world's ``sp_player``), new releases and recommendations."""
from __future__ import annotations

from .catalog import DEVICES
from .spotify import BASE, album_brief, error, paging, route, track_view


def _state(ctx) -> dict:
    return ctx.tx.get("sp_player", "state", {})


def _save(ctx, state: dict, queue: list | None = None) -> None:
    ctx.tx.put("sp_player", "state", state)
    if queue is not None:
        ctx.tx.put("sp_player", "queue", queue)


def _device(ctx, did: str | None) -> dict:
    s = _state(ctx)
    return next(dict(d, is_active=d["id"] == s.get("device_id"), is_private_session=False, is_restricted=False,
                     supports_volume=True, volume_percent=s.get("volume_percent", 50)) for d in DEVICES if d["id"] == did)


def _playing(ctx) -> dict:
    s = _state(ctx)
    item = track_view(ctx, s["track_id"]) if s.get("track_id") else None
    ctx_uri = s.get("context_uri")
    return {"is_playing": bool(s.get("is_playing")), "progress_ms": s.get("progress_ms", 0), "timestamp": 1700000000000,
            "item": item, "currently_playing_type": "track" if item else "unknown",
            "context": {"uri": ctx_uri, "type": ctx_uri.split(":")[1]} if ctx_uri else None,
            "actions": {"disallows": {"resuming": bool(s.get("is_playing"))}}}


@route("GET", "/me/player")
def player(ctx, p, a):
    s = _state(ctx)
    if not s.get("device_id"):
        return 204, None
    return 200, dict(_playing(ctx), device=_device(ctx, s["device_id"]), repeat_state=s.get("repeat_state", "off"),
                     shuffle_state=bool(s.get("shuffle_state")))


@route("GET", "/me/player/currently-playing")
def currently_playing(ctx, p, a):
    return (200, _playing(ctx)) if _state(ctx).get("track_id") else (204, None)


@route("GET", "/me/player/devices")
def devices(ctx, p, a):
    return 200, {"devices": [_device(ctx, d["id"]) for d in DEVICES]}


@route("GET", "/me/player/queue")
def queue(ctx, p, a):
    s = _state(ctx)
    return 200, {"currently_playing": track_view(ctx, s["track_id"]) if s.get("track_id") else None,
                 "queue": [track_view(ctx, t) for t in ctx.tx.get("sp_player", "queue", [])]}


def _track_id(ctx, uri: str) -> str | None:
    tid = str(uri).rsplit(":", 1)[-1]
    return tid if str(uri).startswith("spotify:track:") and tid in ctx.data.tracks else None


@route("POST", "/me/player/queue")
def add_to_queue(ctx, p, a):
    tid = _track_id(ctx, a["uri"])
    if tid is None:
        return error(400, f"Invalid track uri: {a['uri']}")
    _save(ctx, _state(ctx), ctx.tx.get("sp_player", "queue", []) + [tid])
    return 204, None


def _skip(forward: bool):
    def handler(ctx, p, a):
        s, q = _state(ctx), ctx.tx.get("sp_player", "queue", [])
        if not s.get("device_id"):
            return error(404, "Player command failed: No active device found")
        if forward and q:
            s["track_id"], q = q[0], q[1:]
        elif s.get("track_id"):
            album = [t["id"] for t in ctx.data.album_tracks(ctx.data.tracks[s["track_id"]]["album_id"])]
            k = album.index(s["track_id"]) + (1 if forward else -1)
            s["track_id"] = album[k % len(album)]
        s.update(progress_ms=0, is_playing=True)
        _save(ctx, s, q)
        return 204, None
    return handler


route("POST", "/me/player/next")(_skip(True))
route("POST", "/me/player/previous")(_skip(False))


@route("PUT", "/me/player/pause")
def pause(ctx, p, a):
    s = _state(ctx)
    if a.get("device_id") and a["device_id"] not in {d["id"] for d in DEVICES}:
        return error(404, "Device not found")
    s["is_playing"] = False
    _save(ctx, s)
    return 204, None


@route("PUT", "/me/player/play")
def play(ctx, p, a):
    s = _state(ctx)
    if a.get("device_id"):
        if a["device_id"] not in {d["id"] for d in DEVICES}:
            return error(404, "Device not found")
        s["device_id"] = a["device_id"]
    pos = (a.get("offset") or {}).get("position", 0) if isinstance(a.get("offset"), dict) else 0
    if a.get("uris"):
        uris = a["uris"] if isinstance(a["uris"], list) else str(a["uris"]).split(",")
        ids = [_track_id(ctx, u) for u in uris]
        if None in ids:
            return error(400, "Invalid track uri")
        s.update(track_id=ids[min(int(pos), len(ids) - 1)], context_uri=None)
    elif a.get("context_uri"):
        tracks = _context_tracks(ctx, str(a["context_uri"]))
        if not tracks:
            return error(400, f"Invalid context uri: {a['context_uri']}")
        s.update(track_id=tracks[min(int(pos), len(tracks) - 1)], context_uri=str(a["context_uri"]))
    started = bool(a.get("uris") or a.get("context_uri"))
    s.update(is_playing=True, progress_ms=int(a.get("position_ms") or (0 if started else s.get("progress_ms", 0))))
    _save(ctx, s)
    return 204, None


def _context_tracks(ctx, uri: str) -> list[str]:
    kind, _, oid = uri.partition(":")[2].partition(":")
    if kind == "album" and oid in ctx.data.albums:
        return [t["id"] for t in ctx.data.album_tracks(oid)]
    if kind == "playlist":
        pl = ctx.tx.get("sp_playlists", oid)
        return list(pl["tracks"]) if pl else []
    if kind == "artist" and oid in ctx.data.artists:
        return [t["id"] for t in sorted(ctx.data.tracks.values(), key=lambda t: -t["popularity"]) if oid in t["artist_ids"]]
    return []


@route("PUT", "/me/player/repeat")
def repeat(ctx, p, a):
    if a["state"] not in ("track", "context", "off"):
        return error(400, "state must be track, context or off")
    s = _state(ctx)
    s["repeat_state"] = a["state"]
    _save(ctx, s)
    return 204, None


@route("PUT", "/me/player/volume")
def volume(ctx, p, a):
    v = int(a["volume_percent"])
    if not 0 <= v <= 100:
        return error(400, "volume_percent must be between 0 and 100")
    s = _state(ctx)
    s["volume_percent"] = v
    _save(ctx, s)
    return 204, None


@route("GET", "/me/player/recently-played")
def recently_played(ctx, p, a):
    limit = max(1, min(int(a.get("limit") or 20), 50))
    played = [t for t in ctx.tx.get("sp_library", "tracks", []) if t != _state(ctx).get("track_id")][:limit]
    return 200, {"href": f"{BASE}{ctx.path}?limit={limit}", "limit": limit, "next": None, "total": len(played),
                 "cursors": {"after": None, "before": None},
                 "items": [{"track": track_view(ctx, t), "played_at": f"2024-01-0{1 + i % 9}T12:00:00Z",
                            "context": None} for i, t in enumerate(played)]}


@route("GET", "/browse/new-releases")
def new_releases(ctx, p, a):
    return 200, {"albums": paging(ctx, ctx.data.albums_newest_first, a, view=lambda x: album_brief(ctx, x["id"]))}


@route("GET", "/recommendations")
def recommendations(ctx, p, a):
    seeds = {k: [s.strip().rsplit(":", 1)[-1] for s in str(a.get(f"seed_{k}") or "").split(",") if s.strip()]
             for k in ("artists", "genres", "tracks")}
    if not any(seeds.values()):
        return error(400, "At least one seed (seed_artists, seed_genres or seed_tracks) is required")
    d = ctx.data
    artists = set(seeds["artists"]) | {x for t in seeds["tracks"] if t in d.tracks for x in d.tracks[t]["artist_ids"]}
    genres = set(seeds["genres"]) | {g for x in artists if x in d.artists for g in d.artists[x]["genres"]}
    rows = [t for t in d.tracks.values() if t["id"] not in seeds["tracks"]
            and any(x in artists or set(d.artists[x]["genres"]) & genres for x in t["artist_ids"])]
    limit = max(1, min(int(a.get("limit") or 20), 100))
    return 200, {"tracks": [track_view(ctx, t["id"]) for t in sorted(rows, key=lambda t: (-t["popularity"], t["id"]))[:limit]],
                 "seeds": [{"id": s, "type": k[:-1].upper(), "initialPoolSize": len(rows), "afterFilteringSize": len(rows),
                            "afterRelinkingSize": len(rows), "href": None} for k, v in seeds.items() for s in v]}
