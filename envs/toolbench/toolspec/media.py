"""The Media category of the mock tool catalog (see ``base.py`` for ``A``, ``P`` and the mock specs)."""
from __future__ import annotations

from typing import Any

from .base import A, CITY, D, LIMIT, N, P, S, get, search

TOOLS: list[dict[str, Any]] = [
    {"tool_name": "MovieDB", "tool_description": "Movies, ratings and credits.",
     "api_list": [
         A("Search Movie", "Find movies by title.", [P("query", S, "Words in the title", "Harbor")], [P("year", N, "Release year")],
           **search("movies", {"query": ["title", "contains"], "year": ["year", "eq"]}, "movie_id",
                    fields=["movie_id", "title", "year", "genre", "rating"])),
         A("Movie Details", "Details of a movie.", [P("movie_id", S, "Movie id", "MV-001")],
           **get("movies", "movie_id", "movie", fields=["movie_id", "title", "year", "genre", "rating", "runtime_min"])),
         A("Movie Credits", "Director and cast of a movie.", [P("movie_id", S, "Movie id", "MV-001")], handler="media.credits"),
         A("Top Movies By Genre", "Best rated movies of a genre.", [P("genre", S, "Genre", "Drama")], [LIMIT],
           **search("movies", {"genre": ["genre", "ieq"]}, "-rating", fields=["movie_id", "title", "year", "rating"])),
     ]},
    {"tool_name": "PeopleDB", "tool_description": "Actors and directors.",
     "api_list": [
         A("Search Person", "Find people by name.", [P("name", S, "Part of the name", "Dana")],
           **search("people", {"name": ["name", "contains"]}, "person_id")),
         A("Person Filmography", "Movies a person directed or acted in.", [P("person_id", S, "Person id", "PE-1")], handler="media.filmography"),
     ]},
    {"tool_name": "MusicSearch", "tool_description": "Music catalog: tracks, albums, artists.",
     "api_list": [
         A("Search Track", "Find tracks by title.", [P("query", S, "Words in the title", "Neon")], [P("artist", S, "Artist name")],
           **search("tracks", {"query": ["title", "contains"], "artist": ["artist", "ieq"]}, "track_id")),
         A("Get Album", "An album with its tracks.", [P("album_id", S, "Album id", "AL-01")], handler="media.album"),
         A("Artist Top Tracks", "An artist's most popular tracks.", [P("artist", S, "Artist name", "Mira Sol")], handler="media.top_tracks"),
         A("Artist Albums", "Albums by an artist.", [P("artist", S, "Artist name", "Mira Sol")],
           **search("albums", {"artist": ["artist", "ieq"]}, "year")),
     ]},
    {"tool_name": "Playlists", "tool_description": "Your music playlists.",
     "api_list": [
         A("List Playlists", "Your playlists.", handler="world.list", collection="playlists"),
         A("Create Playlist", "Create an empty playlist.", [P("name", S, "Playlist name", "Road Trip")], method="POST",
           handler="media.create_playlist", mutates=True),
         A("Add Track To Playlist", "Append a track.", [P("playlist_id", S, "Playlist id", "PL-0001"), P("track_id", S, "Track id", "TK-001")],
           method="POST", handler="media.add_track", mutates=True),
         A("Remove Track From Playlist", "Remove a track.", [P("playlist_id", S, "Playlist id", "PL-0001"), P("track_id", S, "Track id", "TK-001")],
           method="POST", handler="media.remove_track", mutates=True),
         A("Get Playlist", "A playlist with track titles.", [P("playlist_id", S, "Playlist id", "PL-0001")], handler="media.get_playlist"),
     ]},
    {"tool_name": "BookFinder", "tool_description": "Books by title and author.",
     "api_list": [
         A("Search Books", "Find books by title.", [P("query", S, "Words in the title", "Garden")],
           **search("books", {"query": ["title", "contains"]}, "year")),
         A("Books By Author", "Books of an author.", [P("author", S, "Author name", "Alice Baker")],
           **search("books", {"author": ["author", "ieq"]}, "year")),
     ]},
    {"tool_name": "NewsWire", "tool_description": "News headlines.",
     "api_list": [
         A("Top Headlines", "Headlines of a topic.", [P("topic", S, "business, technology, sports or science", "business")],
           **search("news", {"topic": ["topic", "ieq"]}, "article_id")),
         A("Search News", "Find headlines.", [P("query", S, "Words", "Harbor")], **search("news", {"query": ["headline", "contains"]}, "article_id")),
     ]},
    {"tool_name": "WeatherNow", "tool_description": "Weather forecasts for world cities (the next 7 days).",
     "api_list": [
         A("Forecast", "The forecast for a city on a date.", [CITY], [P("date", D, "Date, default today")], handler="media.forecast"),
         A("Week Forecast", "Seven-day forecast of a city.", [CITY], **search("weather", {"city": ["city", "ieq"]}, "date")),
     ]},
    {"tool_name": "RecipeBox", "tool_description": "Recipes by ingredient and time.",
     "api_list": [
         A("Search Recipes", "Recipes with a main ingredient, quickest first.", [P("ingredient", S, "Main ingredient", "tofu")],
           [P("max_minutes", N, "Longest cooking time")],
           **search("recipes", {"ingredient": ["main_ingredient", "ieq"], "max_minutes": ["minutes", "lte"]}, "minutes")),
         A("Get Recipe", "One recipe.", [P("recipe_id", S, "Recipe id", "RC-1")], **get("recipes", "recipe_id", "recipe")),
     ]},
    {"tool_name": "SportsScores", "tool_description": "League results and standings.",
     "api_list": [
         A("Team Info", "Facts about a team.", [P("team", S, "Team name", "Harbor City FC")], **get("teams", "team", "team")),
         A("Match Results", "Results of a team's matches.", [P("team", S, "Team name", "Harbor City FC")], handler="media.match_results"),
         A("League Standings", "The league table.", handler="media.standings"),
     ]},
    {"tool_name": "GeoTools", "tool_description": "Geocoding and distances between cities.",
     "api_list": [
         A("Geocode", "Coordinates of a city.", [CITY], handler="geo.geocode"),
         A("Distance Between", "Great-circle distance in km.", [P("from_city", S, "City", "Paris"), P("to_city", S, "City", "Berlin")],
           handler="geo.distance"),
     ]},
    {"tool_name": "UnitConvert", "tool_description": "Unit conversion (length, mass, volume).",
     "api_list": [A("Convert Units", "Convert a value.", [P("value", N, "Value", 10), P("from_unit", S, "km m mi ft kg lb g l gal ml", "km"),
                                                        P("to_unit", S, "Unit", "mi")], handler="util.convert_units")]},
    {"tool_name": "StatsCalc", "tool_description": "Descriptive statistics of a list of numbers.",
     "api_list": [A("Describe Numbers", "Count, sum, mean, median, min and max.", [P("numbers", S, "Comma-separated numbers", "1, 2, 3")],
                    handler="util.statistics")]},
]
