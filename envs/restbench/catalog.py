"""The RestBench mock world's read-only entities (:class:`RestData`), built once per process.

Two sources: the ToolBench fixtures' movies, people and music (reshaped to
TMDB's integer ids and Spotify's string ids; these ids never change, the
generated tasks refer to them) and the entities RestBench's queries name
(``named.py``), with facts derived deterministically from their names (a hash,
never a random draw or the clock). What the APIs mutate (playlists, the
library, follows, the player) lives in the episode's world state
(``INITIAL_WORLD``).
"""
from __future__ import annotations

import hashlib
import re
from typing import Any, Callable

from treegym.envs.tools_common.fixtures import Fixtures

from . import named

USER_ID = "treegym_user"
KEYWORDS = ("friendship", "betrayal", "based on novel", "revenge", "time travel", "family", "war", "heist",
            "coming of age", "dystopia", "love", "small town", "space", "survival", "detective", "music")
REVIEWERS = ("CinemaSerf", "Filmfanatic", "JPV852", "Wuchak", "msbreviews", "Per Gunnar Jonsson")
TV_GENRES = {"Drama": 18, "Comedy": 35, "Sci-Fi & Fantasy": 10765, "Animation": 16, "Reality": 10764, "Crime": 80}
PLACES = ("London, England, UK", "Los Angeles, California, USA", "New York City, New York, USA", "Tokyo, Japan",
          "Paris, France", "Sydney, Australia", "Toronto, Canada", "Seoul, South Korea")


def h(text: str, mod: int) -> int:
    """A stable number in ``range(mod)`` derived from ``text``."""
    return int(hashlib.md5(text.encode("utf-8")).hexdigest()[:8], 16) % mod


def slug(s: str) -> str:
    return re.sub(r"[^a-z0-9]", "", s.lower())


class RestData:
    """TMDB- and Spotify-shaped entities (see the module docstring); read-only after construction."""

    def __init__(self, fx: Fixtures):
        self.fx = fx
        self.genres = {g: 100 + i for i, g in enumerate(sorted({m["genre"] for m in fx.table("movies")}))}
        self.person_ids = {p["person_id"]: 500 + int(p["person_id"].split("-")[1]) for p in fx.table("people")}
        self.people: dict[int, dict] = {}
        for p in fx.table("people"):
            self._person(p["name"], p["known_for"], p["born"], self.person_ids[p["person_id"]])
        self.movies: dict[int, dict] = {}
        for m in fx.table("movies"):
            mid = 10000 + int(m["movie_id"].split("-")[1])
            self._movie(mid, m["title"], int(m["year"]), self.person_ids[m["director_id"]],
                        [self.person_ids[c] for c in m["cast_ids"]], m["genre"], vote=m["rating"], runtime=m["runtime_min"])
        self.companies: dict[int, dict] = {}
        self.networks: dict[int, dict] = {}
        self.collections: dict[int, dict] = {}
        self.tv: dict[int, dict] = {}
        self._add_named_films()
        self._add_named_tv()
        self.artists: dict[str, dict] = {}
        self.albums: dict[str, dict] = {}
        self.tracks: dict[str, dict] = {}
        self._add_fixture_music(fx)
        self._add_named_music()
        self._ordered: dict[str, tuple] = {}
        self._build_indexes()

    def _build_indexes(self) -> None:
        """Orders and lookups the handlers would otherwise scan for on every call (the data never changes)."""
        by_release = sorted(self.movies.values(), key=lambda m: (m["release_date"], m["id"]))
        cast_of, directed_by = _group(by_release, lambda m: m["cast"]), _group(by_release, lambda m: (m["director"],))
        self._credits = {pid: (cast_of.get(pid, ()), directed_by.get(pid, ())) for pid in self.people}
        self.people_by_popularity = tuple(sorted(self.people, key=lambda k: (-self.people[k]["popularity"], k)))
        self.people_by_id = tuple(sorted(self.people))
        by_number = sorted(self.tracks.values(), key=lambda t: (t["track_number"], t["id"]))
        by_popularity = sorted(self.tracks.values(), key=lambda t: (-t["popularity"], t["id"]))
        newest = sorted(self.albums.values(), key=lambda x: (x["release_date"], x["id"]), reverse=True)
        self._album_tracks = _group(by_number, lambda t: (t["album_id"],))
        self._artist_tracks = _group(by_popularity, lambda t: t["artist_ids"])
        self._artist_albums = _group(newest, lambda x: x["artist_ids"])
        self.albums_newest_first = tuple(newest)
        self.tracks_by_popularity = tuple(t["id"] for t in by_popularity)
        self.artists_by_popularity = tuple(sorted(self.artists, key=lambda x: (-self.artists[x]["popularity"], x)))

    # ------------------------------------------------------------------ TMDB
    def _person(self, name: str, known_for: str, born: int | None = None, pid: int | None = None) -> int:
        for k, p in self.people.items() if pid is None else ():  # the fixtures have namesakes; named people are one each
            if p["name"] == name and k > 1000:
                if known_for == "Directing":
                    p["known_for"] = "Directing"
                return k
        pid = pid if pid is not None else 1001 + len([k for k in self.people if k > 1000])
        self.people[pid] = {"name": name, "known_for": known_for, "born": born or 1940 + h(name, 60),
                            "place_of_birth": PLACES[h(name + "@", len(PLACES))], "gender": 1 + h(name + "g", 2),
                            "popularity": round(5 + h(name + "p", 900) / 10, 1)}
        return pid

    def _movie(self, mid: int, title: str, year: int, director: int, cast: list[int], genre: str,
               vote: float | None = None, runtime: int | None = None, company: int | None = None,
               collection: int | None = None) -> None:
        self.movies[mid] = {"id": mid, "title": title, "release_date": f"{year}-{1 + h(title, 12):02d}-{1 + h(title + 'd', 28):02d}"
                            if mid > 20000 else f"{year}-06-01",
                            "vote_average": vote if vote is not None else round(6 + h(title + "v", 28) / 10, 1),
                            "runtime": runtime or 90 + h(title + "r", 80), "genre": genre, "genre_ids": [self.genres[genre]],
                            "director": director, "cast": cast, "popularity": round(50 + (mid * 37) % 400 / 4, 1),
                            "company": company, "collection": collection,
                            "keywords": sorted({KEYWORDS[h(title + str(i), len(KEYWORDS))] for i in range(3)})}

    def _company(self, name: str) -> int:
        for k, c in self.companies.items():
            if c["name"] == name:
                return k
        hq, country, cid = named.COMPANIES.get(name, (PLACES[h(name, len(PLACES))], "US", None))
        cid = cid or 5000 + len(self.companies)
        self.companies[cid] = {"id": cid, "name": name, "headquarters": hq, "origin_country": country,
                               "homepage": f"https://www.{slug(name)}.com", "logo_path": f"/logo{cid}.png"}
        return cid

    def _add_named_films(self) -> None:
        for name in named.COMPANIES:
            self._company(name)
        by_collection: dict[str, int] = {}
        for i, (title, year, director, cast, company, collection, genre) in enumerate(named.MOVIES):
            did = self._person(director, "Directing")
            cast_ids = [self._person(n.strip(), "Acting") for n in cast.split(",")]
            coll = None
            if collection:
                coll = by_collection.setdefault(collection, 86001 + len(by_collection))
                self.collections.setdefault(coll, {"id": coll, "name": collection, "parts": []})["parts"].append(20001 + i)
            self._movie(20001 + i, title, year, did, cast_ids, genre, company=self._company(company), collection=coll)

    def _add_named_tv(self) -> None:
        for i, (name, year, seasons, episodes, director, cast, network, company) in enumerate(named.TV):
            nid = next((k for k, n in self.networks.items() if n["name"] == network), 1 + len(self.networks))
            self.networks[nid] = {"id": nid, "name": network, "headquarters": PLACES[h(network, len(PLACES))],
                                  "origin_country": "US", "logo_path": f"/network{nid}.png",
                                  "homepage": named.NETWORK_HOMEPAGES.get(network, f"https://www.{slug(network)}.com")}
            tid = 30001 + i
            genre = sorted(TV_GENRES)[h(name, len(TV_GENRES))]
            self.tv[tid] = {"id": tid, "name": name, "first_air_date": f"{year}-{1 + h(name, 12):02d}-{1 + h(name + 'd', 28):02d}",
                            "seasons": seasons, "episodes": episodes, "director": self._person(director, "Directing"),
                            "cast": [self._person(n.strip(), "Acting") for n in cast.split(",")], "network": nid,
                            "company": self._company(company), "genre": {"id": TV_GENRES[genre], "name": genre},
                            "vote_average": round(7 + h(name + "v", 25) / 10, 1), "popularity": round(40 + h(name + "p", 4000) / 10, 1),
                            "keywords": sorted({KEYWORDS[h(name + str(k), len(KEYWORDS))] for k in range(3)})}

    def movie_credits_of(self, pid: int) -> tuple[tuple[dict, ...], tuple[dict, ...]]:
        """(movies ``pid`` plays in, movies ``pid`` directs), oldest first (indexed when the data is built)."""
        return self._credits.get(pid, ((), ()))

    # ------------------------------------------------------------------ Spotify
    def _add_fixture_music(self, fx: Fixtures) -> None:
        names = sorted({t["artist"] for t in fx.table("tracks")})
        ids = {a: f"ar{i + 1:02d}{slug(a)[:6]}" for i, a in enumerate(names)}
        for i, (name, aid) in enumerate(sorted(ids.items())):
            self.artists[aid] = {"id": aid, "name": name, "genres": ["pop"] if i % 2 else ["indie"],
                                 "followers": 1000 * (i + 3), "popularity": 40 + 5 * i}
        album_ids = {a["album_id"]: f"al{a['album_id'][3:]}{slug(a['title'])[:6]}" for a in fx.table("albums")}
        for a in fx.table("albums"):
            self.albums[album_ids[a["album_id"]]] = {"id": album_ids[a["album_id"]], "name": a["title"],
                                                     "artist_ids": [ids[a["artist"]]], "release_date": f"{a['year']}-03-15"}
        for t in fx.table("tracks"):
            tid = f"tr{t['track_id'][3:]}{slug(t['title'])[:6]}"
            self.tracks[tid] = {"id": tid, "name": t["title"], "artist_ids": [ids[t["artist"]]],
                                "album_id": album_ids[t["album_id"]], "duration_ms": t["duration_s"] * 1000,
                                "popularity": t["popularity"], "track_number": 1 + sum(
                                    1 for x in self.tracks.values() if x["album_id"] == album_ids[t["album_id"]])}

    def _add_named_music(self) -> None:
        for name, genre, _ in named.ARTISTS:
            aid = "ar" + slug(name)[:14]
            self.artists[aid] = {"id": aid, "name": name, "genres": [genre], "followers": 10000 + h(name, 90000),
                                 "popularity": 60 + h(name, 40)}
        for name, _, albums in named.ARTISTS:
            aid = "ar" + slug(name)[:14]
            for title, year, songs in albums:
                alid = "al" + slug(title + name)[:14]
                self.albums[alid] = {"id": alid, "name": title, "artist_ids": [aid],
                                     "release_date": f"{year}-{1 + h(title, 12):02d}-{1 + h(title + 'd', 28):02d}"}
                for n, song in enumerate(songs, 1):
                    tid = "tr" + slug(song + name)[:14]
                    extra = ["ar" + slug(named.FEATURING[song])[:14]] if song in named.FEATURING else []
                    self.tracks[tid] = {"id": tid, "name": song, "artist_ids": [aid] + extra, "album_id": alid,
                                        "duration_ms": 150000 + 1000 * h(song, 150), "popularity": 50 + h(song, 50),
                                        "track_number": n}

    def ordered(self, name: str, build: Callable[[], Any]) -> tuple:
        """``build()`` as a tuple, made on first use and kept under ``name`` (one name, one ordering: a
        handler's list of all movies by some key). The data never changes, so every episode shares it."""
        got = self._ordered.get(name)
        if got is None:  # made whole before it is published: server threads share the data
            got = tuple(build())
            self._ordered[name] = got
        return got

    def album_tracks(self, alid: str) -> tuple[dict, ...]:
        """The album's tracks by track number (indexed when the data is built)."""
        return self._album_tracks.get(alid, ())

    def artist_tracks(self, aid: str) -> tuple[dict, ...]:
        """The artist's tracks, most popular first (ties by id; indexed when the data is built)."""
        return self._artist_tracks.get(aid, ())

    def artist_albums(self, aid: str) -> tuple[dict, ...]:
        """The artist's albums, newest first (indexed when the data is built)."""
        return self._artist_albums.get(aid, ())

    def artist_id(self, name: str) -> str:
        return next(k for k, a in self.artists.items() if a["name"] == name)

    def track_id(self, name: str) -> str:
        return next(k for k, t in self.tracks.items() if t["name"] == name)

    def album_id(self, name: str) -> str:
        return next(k for k, a in self.albums.items() if a["name"] == name)


def _group(rows: list[dict], keys_of: Callable[[dict], Any]) -> dict[Any, tuple[dict, ...]]:
    """``{key: rows having it, in the order of rows}``; a key listed twice in one row counts once."""
    out: dict[Any, list[dict]] = {}
    for r in rows:
        for k in dict.fromkeys(keys_of(r)):
            out.setdefault(k, []).append(r)
    return {k: tuple(v) for k, v in out.items()}


def _initial_world() -> dict[str, Any]:
    def tr(song: str, artist: str) -> str:
        return "tr" + slug(song + artist)[:14]

    # shaped like RestGPT's init_spotify (a library, two playlists, follows, an album playing); our songs
    rock = [tr("Come Together", "The Beatles"), tr("Something", "The Beatles"), tr("Let It Be", "The Beatles")]
    rnb = [tr("Heartbreak Hotel", "Whitney Houston"), tr("It's Not Right but It's Okay", "Whitney Houston"),
           tr("When You Believe", "Mariah Carey")]
    return {
        "sp_playlists": {
            "pl0001chill": {"id": "pl0001chill", "name": "Chill Evening", "description": "", "public": True, "tracks": []},
            "pl0002gym": {"id": "pl0002gym", "name": "Gym Power", "description": "", "public": False, "tracks": []},
            "pl0000rnb": {"id": "pl0000rnb", "name": "My R&B", "description": "", "public": True, "tracks": rnb},
            "pl0000rock": {"id": "pl0000rock", "name": "My Rock", "description": "", "public": True, "tracks": rock}},
        "sp_library": {"tracks": [tr("Summertime Sadness", "Lana Del Rey"), tr("Video Games", "Lana Del Rey"),
                                  tr("Quiet Waters", "Lana Del Rey"), tr("Heartbreak Hotel", "Whitney Houston")],
                       "albums": ["al" + slug("Born to Die" + "Lana Del Rey")[:14], "al" + slug("1989" + "Taylor Swift")[:14]],
                       "following": ["ar" + slug(n)[:14] for n in ("Lana Del Rey", "Whitney Houston", "The Beatles")]},
        "sp_player": {"state": {"device_id": "dev-pc", "is_playing": True, "volume_percent": 50, "repeat_state": "off",
                                "shuffle_state": False, "track_id": tr("Video Games", "Lana Del Rey"), "progress_ms": 61000,
                                "context_uri": "spotify:album:" + "al" + slug("Born to Die" + "Lana Del Rey")[:14]},
                      "queue": [tr("Style", "Taylor Swift"), tr("Something", "The Beatles")]},
        "_counters": {"SPL": 4}}


INITIAL_WORLD = _initial_world()
DEVICES = ({"id": "dev-pc", "name": "My PC", "type": "Computer"}, {"id": "dev-phone", "name": "My Phone", "type": "Smartphone"})
