"""Seeded fixture data for the mock tool services (read-only tables, loaded by ``fixtures.py``).

``generate_fixtures(seed)`` is a pure function of the seed (``random.Random``,
sorted iteration, rounded floats), so ``python -m
treegym.envs.tools_common.fixture_data [--check]`` reproduces the shipped
``data/fixtures.json`` byte for byte (ToolBench-v0's build derives its tool
files and tasks from the same tables in memory). Tables are lists of records with a string
id; ``initial_world`` is the mutable part every task starts from (wallet and
bank balances, a portfolio, calendar, inbox, todos, playlists).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

from .fixtures import FIXTURES_FILE

FIXTURE_SEED = 20260302

TODAY = "2026-03-02"
DATES = tuple(f"2026-03-{d:02d}" for d in range(2, 9))

CITIES = [  # name, airport code, country, currency, utc offset (hours), lat, lon
    ("New York", "JFK", "United States", "USD", -5, 40.71, -74.01),
    ("London", "LHR", "United Kingdom", "GBP", 0, 51.51, -0.13),
    ("Paris", "CDG", "France", "EUR", 1, 48.86, 2.35),
    ("Berlin", "BER", "Germany", "EUR", 1, 52.52, 13.41),
    ("Tokyo", "HND", "Japan", "JPY", 9, 35.68, 139.69),
    ("Sydney", "SYD", "Australia", "AUD", 11, -33.87, 151.21),
    ("Toronto", "YYZ", "Canada", "CAD", -5, 43.65, -79.38),
    ("Madrid", "MAD", "Spain", "EUR", 1, 40.42, -3.70),
    ("Rome", "FCO", "Italy", "EUR", 1, 41.90, 12.50),
    ("Zurich", "ZRH", "Switzerland", "CHF", 1, 47.38, 8.54),
    ("Singapore", "SIN", "Singapore", "SGD", 8, 1.35, 103.82),
    ("Dubai", "DXB", "United Arab Emirates", "AED", 4, 25.20, 55.27),
    ("San Francisco", "SFO", "United States", "USD", -8, 37.77, -122.42),
    ("Chicago", "ORD", "United States", "USD", -6, 41.88, -87.63),
    ("Amsterdam", "AMS", "Netherlands", "EUR", 1, 52.37, 4.90),
    ("Seoul", "ICN", "South Korea", "KRW", 9, 37.57, 126.98),
]
USD_PER = {"USD": 1.0, "GBP": 1.27, "EUR": 1.08, "JPY": 0.0067, "AUD": 0.66, "CAD": 0.74, "CHF": 1.13,
           "SGD": 0.75, "AED": 0.27, "KRW": 0.00075}
AIRLINES = ["Aerolux", "BlueJet", "Corvid Air", "Nimbus", "Polaris Airways", "SkyHarbor"]
HOTEL_WORDS = (["Grand", "Royal", "Harbor", "Park", "Central", "Garden", "Riverside", "Summit"],
               ["Hotel", "Inn", "Suites", "Lodge"])
CAR_MODELS = [("Economy", "Fiat 500", 31), ("Compact", "VW Golf", 42), ("SUV", "Toyota RAV4", 64),
              ("Luxury", "BMW 5 Series", 119)]
CAR_COMPANIES = ["Hertzly", "AvisGo", "Sixty"]
WEATHER = ["sunny", "partly cloudy", "cloudy", "light rain", "heavy rain", "windy", "snow"]
PRODUCT_KINDS = [
    ("Electronics", ["Wireless Earbuds", "Bluetooth Speaker", "USB-C Charger", "Smart Watch", "Noise Cancelling Headphones",
                     "Portable SSD", "Webcam", "Mechanical Keyboard"]),
    ("Home", ["Coffee Grinder", "French Press", "Desk Lamp", "Air Purifier", "Electric Kettle", "Throw Blanket"]),
    ("Outdoors", ["Camping Tent", "Hiking Backpack", "Water Bottle", "Sleeping Bag", "Trekking Poles"]),
    ("Books", ["Cookbook", "Travel Guide", "Sci-Fi Novel", "Gardening Handbook"]),
    ("Sports", ["Yoga Mat", "Running Shoes", "Dumbbell Set", "Tennis Racket", "Jump Rope"]),
]
BRANDS = ["Acme", "Borealis", "Cobalt", "Dunewood", "Everpeak", "Fjord"]
COMPANIES = [("ACME", "Acme Robotics", "Technology"), ("BRLS", "Borealis Energy", "Energy"),
             ("CBLT", "Cobalt Health", "Healthcare"), ("DNWD", "Dunewood Foods", "Consumer"),
             ("EVPK", "Everpeak Software", "Technology"), ("FJRD", "Fjord Shipping", "Industrials"),
             ("GLNT", "Gallant Bank", "Financials"), ("HLIX", "Helix Biotech", "Healthcare"),
             ("IONX", "Ionix Semiconductors", "Technology"), ("JNPR", "Juniper Retail", "Consumer"),
             ("KSTL", "Kestrel Aerospace", "Industrials"), ("LUMN", "Lumen Utilities", "Utilities")]
COINS = [("BTC", "Bitcoin", 64000), ("ETH", "Ethereum", 3400), ("SOL", "Solana", 145), ("ADA", "Cardano", 0.62),
         ("DOGE", "Dogecoin", 0.15), ("XRP", "XRP", 0.58)]
FIRST = ["Alice", "Bruno", "Chen", "Dana", "Elif", "Farah", "Gabriel", "Hana", "Ivan", "Julia", "Kofi", "Lena",
         "Marco", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tara"]
LAST = ["Anders", "Baker", "Costa", "Dubois", "Eriksen", "Fischer", "Garcia", "Haddad", "Ito", "Jensen"]
GENRES = ["Drama", "Comedy", "Thriller", "Sci-Fi", "Animation", "Romance", "Documentary"]
TITLE_A = ["Silent", "Crimson", "Last", "Hidden", "Golden", "Broken", "Electric", "Distant", "Midnight", "Paper"]
TITLE_B = ["Harbor", "Garden", "Signal", "Empire", "River", "Letters", "Orbit", "Winter", "Compass", "Lanterns"]
ARTISTS = ["The Velvet Owls", "Mira Sol", "Static Parade", "Jonah Reyes", "Luna Grey", "Northbound", "Ada Kwame",
           "Echo Harbor"]
SONG_WORDS = ["Neon", "Heart", "Highway", "Dreams", "Fire", "Ocean", "Stars", "Paper", "Gold", "Rain", "Echo", "Night"]
CUISINES = ["Italian", "Mexican", "Indian", "Japanese", "French", "Thai"]
INGREDIENTS = ["chicken", "tofu", "salmon", "beef", "mushroom", "chickpea", "spinach", "shrimp"]
TEAMS = ["Harbor City FC", "Northfield United", "Redwood Rovers", "Lakeside Athletic", "Ironbridge Town",
         "Westmere Wanderers"]
LANGS = {"fr": "French", "de": "German", "es": "Spanish", "it": "Italian", "ja": "Japanese"}
WORDS = {"hello": {"fr": "bonjour", "de": "hallo", "es": "hola", "it": "ciao", "ja": "konnichiwa"},
         "thank you": {"fr": "merci", "de": "danke", "es": "gracias", "it": "grazie", "ja": "arigatou"},
         "water": {"fr": "eau", "de": "Wasser", "es": "agua", "it": "acqua", "ja": "mizu"},
         "train station": {"fr": "gare", "de": "Bahnhof", "es": "estacion de tren", "it": "stazione", "ja": "eki"},
         "bread": {"fr": "pain", "de": "Brot", "es": "pan", "it": "pane", "ja": "pan"},
         "friend": {"fr": "ami", "de": "Freund", "es": "amigo", "it": "amico", "ja": "tomodachi"},
         "book": {"fr": "livre", "de": "Buch", "es": "libro", "it": "libro", "ja": "hon"},
         "airport": {"fr": "aeroport", "de": "Flughafen", "es": "aeropuerto", "it": "aeroporto", "ja": "kuukou"}}
DEFINITIONS = {"serendipity": "the occurrence of events by chance in a happy or beneficial way",
               "ephemeral": "lasting for a very short time", "ubiquitous": "present, appearing, or found everywhere",
               "itinerary": "a planned route or journey", "ledger": "a book or file recording financial accounts",
               "quorum": "the minimum number of members needed to make proceedings valid"}


def _r2(x: float) -> float:
    return round(float(x) + 0.0, 2)


def _clock(rng: random.Random) -> str:
    return f"{rng.randrange(6, 22):02d}:{rng.choice((0, 15, 30, 45)):02d}"


def generate_fixtures(seed: int = FIXTURE_SEED) -> dict[str, Any]:
    """All read-only tables plus ``initial_world`` (see module docstring)."""
    rng = random.Random(seed)
    t: dict[str, Any] = {"today": TODAY, "dates": list(DATES)}
    t["cities"] = [{"city": c, "airport": a, "country": co, "currency": cur, "utc_offset": off, "lat": la, "lon": lo}
                   for c, a, co, cur, off, la, lo in CITIES]
    t["fx"] = [{"currency": k, "usd_per_unit": v} for k, v in sorted(USD_PER.items())]
    codes = [c[1] for c in CITIES]
    routes = sorted({tuple(sorted(rng.sample(codes, 2))) for _ in range(40)})
    flights, n = [], 1000
    for a, b in routes:
        for origin, dest in ((a, b), (b, a)):
            base = rng.randrange(90, 900)
            for date in DATES:
                for _ in range(rng.choice((0, 1, 2, 3))):
                    n += 1
                    dep = _clock(rng)
                    flights.append({"flight_id": f"FL-{n}", "airline": rng.choice(AIRLINES), "origin": origin,
                                    "destination": dest, "date": date, "depart": dep,
                                    "duration_min": rng.randrange(60, 900, 5),
                                    "price": _r2(base * rng.uniform(0.7, 1.5)), "cabin": "economy",
                                    "seats": rng.choice((0, 1, 2, 4, 9, 20, 40))})
    t["flights"] = flights
    hotels, n = [], 100
    for c in CITIES:
        for _ in range(4):
            n += 1
            hotels.append({"hotel_id": f"HT-{n}", "name": f"{rng.choice(HOTEL_WORDS[0])} {c[0]} {rng.choice(HOTEL_WORDS[1])}",
                           "city": c[0], "stars": rng.randrange(2, 6), "price_per_night": _r2(rng.randrange(60, 480)),
                           "rating": round(rng.uniform(6.0, 9.8), 1), "rooms": rng.choice((0, 1, 3, 8, 15))})
    t["hotels"] = hotels
    cars, n = [], 300
    for c in CITIES:
        for cls, model, price in rng.sample(CAR_MODELS, 3):
            n += 1
            cars.append({"car_id": f"CR-{n}", "company": rng.choice(CAR_COMPANIES), "city": c[0], "car_class": cls,
                         "model": model, "price_per_day": _r2(price * rng.uniform(0.85, 1.3)),
                         "available": rng.choice((0, 2, 5))})
    t["cars"] = cars
    trains, n = [], 500
    rail = [("Paris", "London"), ("Paris", "Berlin"), ("Paris", "Amsterdam"), ("Berlin", "Amsterdam"),
            ("Madrid", "Paris"), ("Rome", "Zurich"), ("Zurich", "Paris"), ("Tokyo", "Seoul"), ("New York", "Toronto"),
            ("Chicago", "New York")]
    for a, b in rail:
        for origin, dest in ((a, b), (b, a)):
            for date in DATES[:4]:
                n += 1
                trains.append({"train_id": f"TR-{n}", "origin": origin, "destination": dest, "date": date,
                               "depart": _clock(rng), "duration_min": rng.randrange(120, 600, 10),
                               "price": _r2(rng.randrange(40, 220)), "seats": rng.choice((0, 6, 30))})
    t["trains"] = trains
    countries = sorted({c[2] for c in CITIES})
    visa = []
    for p in ("United States", "United Kingdom", "Germany", "Japan", "India", "Brazil"):
        for d in countries:
            if d == p:
                continue
            need = rng.random() < (0.55 if p in ("India", "Brazil") else 0.2)
            visa.append({"passport": p, "destination": d, "visa_required": need,
                         "max_stay_days": 0 if need else rng.choice((30, 90, 180))})
    t["visa_rules"] = visa
    t["insurance_plans"] = [{"plan_id": f"IN-{i + 1}", "name": nm, "price_per_day": p, "medical_cover": cov}
                            for i, (nm, p, cov) in enumerate((("Basic", 3.5, 50000), ("Standard", 6.0, 250000),
                                                              ("Premium", 11.0, 1000000), ("Backpacker", 2.0, 20000)))]
    t["attractions"] = [{"attraction_id": f"AT-{i}", "city": c[0], "name": f"{rng.choice(TITLE_A)} {w}",
                         "kind": w, "entry_fee": _r2(rng.choice((0, 0, 12, 18, 25)))}
                        for i, (c, w) in enumerate((c, w) for c in CITIES for w in ("Museum", "Tower", "Gardens"))]
    # --- commerce
    products, n = [], 0
    for cat, kinds in PRODUCT_KINDS:
        for kind in kinds:
            for brand in rng.sample(BRANDS, 3):
                n += 1
                price = _r2(rng.randrange(8, 300) + rng.choice((0.0, 0.49, 0.99)))
                products.append({"sku": f"SKU-{n:04d}", "name": f"{brand} {kind}", "brand": brand, "category": cat,
                                 "price": price, "rating": round(rng.uniform(2.8, 4.9), 1),
                                 "stock": rng.choice((0, 3, 10, 25, 60)), "weight_kg": round(rng.uniform(0.1, 6), 2),
                                 "price_history": [_r2(price * rng.uniform(0.85, 1.2)) for _ in range(5)] + [price]})
    t["products"] = products
    t["reviews"] = [{"review_id": f"RV-{i}", "sku": p["sku"], "stars": rng.randrange(1, 6),
                     "author": rng.choice(FIRST), "text": rng.choice(("Great value.", "Broke after a week.",
                                                                       "Exactly as described.", "Too small for me.",
                                                                       "Would buy again."))}
                    for i, p in enumerate(p for p in products for _ in range(rng.randrange(1, 4)))]
    t["coupons"] = [{"code": "SAVE10", "percent_off": 10, "min_total": 0.0, "category": ""},
                    {"code": "TECH15", "percent_off": 15, "min_total": 50.0, "category": "Electronics"},
                    {"code": "HOME20", "percent_off": 20, "min_total": 80.0, "category": "Home"},
                    {"code": "BIG25", "percent_off": 25, "min_total": 300.0, "category": ""},
                    {"code": "EXPIRED5", "percent_off": 5, "min_total": 0.0, "category": "", "expired": True}]
    t["stores"] = [{"store_id": f"ST-{i + 1}", "city": c[0], "address": f"{rng.randrange(1, 300)} Market Street",
                    "opens": "09:00", "closes": rng.choice(("18:00", "20:00", "21:00"))}
                   for i, c in enumerate(CITIES[:10])]
    t["shipping_zones"] = [{"country": co, "base": _r2(4 + i % 5 * 3), "per_kg": _r2(1.5 + i % 3)}
                           for i, co in enumerate(countries)]
    t["gift_cards"] = [{"card": f"GC-{1000 + i}", "value": v} for i, v in enumerate((25.0, 50.0, 100.0, 0.0))]
    # --- finance
    stocks = []
    for sym, name, sector in COMPANIES:
        price = rng.uniform(12, 480)
        hist = []
        for d in DATES[:5]:
            price *= rng.uniform(0.95, 1.05)
            hist.append({"date": d, "close": _r2(price)})
        stocks.append({"symbol": sym, "name": name, "sector": sector, "price": hist[-1]["close"], "history": hist,
                       "market_cap_billion": _r2(rng.uniform(2, 900)), "dividend_per_share": _r2(rng.choice((0, 0.4, 1.1, 2.3))),
                       "ceo": f"{rng.choice(FIRST)} {rng.choice(LAST)}", "founded": rng.randrange(1890, 2015)})
    t["stocks"] = stocks
    t["coins"] = [{"symbol": s, "name": nm, "price_usd": _r2(p * rng.uniform(0.9, 1.1))} for s, nm, p in COINS]
    t["market_holidays"] = ["2026-03-06"]
    t["tax_brackets"] = [{"up_to": 11000, "rate": 0.10}, {"up_to": 44725, "rate": 0.12},
                         {"up_to": 95375, "rate": 0.22}, {"up_to": 182100, "rate": 0.24}, {"up_to": None, "rate": 0.32}]
    # --- productivity
    people = []
    for i in range(24):
        f, l = FIRST[i % len(FIRST)], LAST[(i * 7) % len(LAST)]
        people.append({"contact_id": f"CT-{i + 1:03d}", "name": f"{f} {l}", "email": f"{f.lower()}.{l.lower()}@example.com",
                       "phone": f"+1-555-{rng.randrange(1000, 9999)}", "team": rng.choice(("Sales", "Engineering", "Design", "Finance")),
                       "city": rng.choice(CITIES)[0]})
    t["contacts"] = people
    t["rooms"] = [{"room_id": f"RM-{i + 1}", "name": nm, "capacity": cap, "floor": fl}
                  for i, (nm, cap, fl) in enumerate((("Aurora", 4, 2), ("Birch", 8, 2), ("Cedar", 12, 3), ("Delta", 20, 4), ("Ember", 6, 5)))]
    t["holidays"] = [{"country": "United States", "date": "2026-05-25", "name": "Memorial Day"},
                     {"country": "United Kingdom", "date": "2026-04-06", "name": "Easter Monday"},
                     {"country": "France", "date": "2026-05-01", "name": "Labour Day"},
                     {"country": "Germany", "date": "2026-10-03", "name": "German Unity Day"},
                     {"country": "Japan", "date": "2026-04-29", "name": "Showa Day"}]
    t["files"] = [{"file_id": f"FI-{i + 1}", "name": nm, "size_kb": rng.randrange(12, 9000), "owner": "me"}
                  for i, nm in enumerate(("Q1 budget.xlsx", "Roadmap.pdf", "Team photo.jpg", "Contract draft.docx", "Notes.txt"))]
    t["dictionary"] = [{"word": w, "translations": tr} for w, tr in sorted(WORDS.items())]
    t["definitions"] = [{"word": w, "definition": d} for w, d in sorted(DEFINITIONS.items())]
    # --- media & info
    t["people"] = [{"person_id": f"PE-{i + 1}", "name": f"{FIRST[(i * 3) % 20]} {LAST[(i * 5 + 3) % 10]}",
                    "known_for": "Directing" if i < 8 else "Acting", "born": rng.randrange(1950, 2000)} for i in range(24)]
    movies, seen = [], set()
    while len(movies) < 60:
        title = f"The {rng.choice(TITLE_A)} {rng.choice(TITLE_B)}"
        if title in seen:
            continue
        seen.add(title)
        cast = rng.sample(range(8, 24), 3)
        movies.append({"movie_id": f"MV-{len(movies) + 1:03d}", "title": title, "year": rng.randrange(1985, 2026),
                       "genre": rng.choice(GENRES), "rating": round(rng.uniform(4.5, 9.2), 1),
                       "runtime_min": rng.randrange(80, 180), "director_id": f"PE-{rng.randrange(1, 9)}",
                       "cast_ids": [f"PE-{c + 1}" for c in cast]})
    t["movies"] = movies
    albums, tracks = [], []
    for ai, artist in enumerate(ARTISTS):
        for k in range(2):
            alb = {"album_id": f"AL-{ai * 2 + k + 1:02d}", "title": f"{rng.choice(SONG_WORDS)} {rng.choice(TITLE_B)}",
                   "artist": artist, "year": rng.randrange(2005, 2026)}
            albums.append(alb)
            for _ in range(4):
                tracks.append({"track_id": f"TK-{len(tracks) + 1:03d}", "title": f"{rng.choice(SONG_WORDS)} {rng.choice(SONG_WORDS)}",
                               "artist": artist, "album_id": alb["album_id"], "duration_s": rng.randrange(150, 320),
                               "popularity": rng.randrange(10, 100)})
    t["albums"], t["tracks"] = albums, tracks
    t["books"] = [{"isbn": f"978-0-{rng.randrange(100000, 999999)}-{i}", "title": f"{rng.choice(TITLE_A)} {rng.choice(TITLE_B)}",
                   "author": f"{rng.choice(FIRST)} {rng.choice(LAST)}", "year": rng.randrange(1950, 2026),
                   "pages": rng.randrange(120, 900), "genre": rng.choice(GENRES)} for i in range(40)]
    t["news"] = [{"article_id": f"NW-{i + 1}", "topic": topic, "headline": f"{rng.choice(TITLE_A)} {rng.choice(TITLE_B)} {verb}",
                  "source": rng.choice(("Daily Ledger", "Morning Wire", "Global Post")), "date": rng.choice(DATES[:3])}
                 for i, (topic, verb) in enumerate((t_, v) for t_ in ("business", "technology", "sports", "science")
                                                   for v in ("rises", "falls", "returns"))]
    t["weather"] = [{"city": c[0], "date": d, "condition": rng.choice(WEATHER),
                     "high_c": rng.randrange(-5, 35), "low_c": 0, "precip_mm": rng.choice((0, 0, 1, 4, 12))}
                    for c in CITIES for d in DATES]
    for w in t["weather"]:
        w["low_c"] = w["high_c"] - rng.randrange(3, 11)
    t["recipes"] = [{"recipe_id": f"RC-{i + 1}", "name": f"{ing.title()} {dish}", "cuisine": cui, "main_ingredient": ing,
                     "minutes": rng.choice((15, 20, 30, 45, 60, 90)), "calories": rng.randrange(250, 900)}
                    for i, (ing, dish, cui) in enumerate((ing, dish, rng.choice(CUISINES)) for ing in INGREDIENTS
                                                         for dish in ("Curry", "Stir Fry", "Salad"))]
    matches = []
    for i in range(18):
        h, a = rng.sample(TEAMS, 2)
        matches.append({"match_id": f"MT-{i + 1}", "date": DATES[i % 3] if i < 12 else "2026-02-2" + str(i % 8),
                        "home": h, "away": a, "home_goals": rng.randrange(0, 5), "away_goals": rng.randrange(0, 4)})
    t["matches"] = matches
    t["teams"] = [{"team": tm, "city": rng.choice(CITIES)[0], "founded": rng.randrange(1880, 1990),
                   "coach": f"{rng.choice(FIRST)} {rng.choice(LAST)}"} for tm in TEAMS]
    t["unit_factors"] = {"km": 1000.0, "m": 1.0, "mi": 1609.344, "ft": 0.3048, "kg": 1.0, "lb": 0.45359237,
                         "g": 0.001, "l": 1.0, "gal": 3.785411784, "ml": 0.001}
    # --- the mutable world every task starts from
    t["initial_world"] = {
        "wallet": {"balance": 2500.0, "currency": "USD"},
        "accounts": {"ACC-CHK": {"account_id": "ACC-CHK", "name": "Checking", "balance": 3200.0},
                     "ACC-SAV": {"account_id": "ACC-SAV", "name": "Savings", "balance": 12500.0},
                     "ACC-TRV": {"account_id": "ACC-TRV", "name": "Travel", "balance": 410.0}},
        "portfolio": {"cash": 5000.0, "holdings": {"ACME": 10, "GLNT": 25}},
        "events": {"EV-0001": {"event_id": "EV-0001", "title": "Team standup", "date": DATES[1], "start": "09:30",
                               "end": "10:00", "attendees": []},
                   "EV-0002": {"event_id": "EV-0002", "title": "Dentist", "date": DATES[2], "start": "15:00",
                               "end": "16:00", "attendees": []}},
        "inbox": {f"EM-{i + 1:04d}": {"email_id": f"EM-{i + 1:04d}", "from": people[i]["email"],
                                      "subject": subj, "body": body, "date": DATES[0]}
                  for i, (subj, body) in enumerate((("Quarterly report", "The Q1 report is due on 2026-03-06."),
                                                     ("Lunch?", "Are you free for lunch on Thursday?"),
                                                     ("Invoice 4471", "Please pay invoice 4471 of 320.00 USD."),
                                                     ("Offsite venue", "The offsite will be in Lisbon.")))},
        "todos": {"TD-0001": {"todo_id": "TD-0001", "title": "Renew passport", "due": DATES[5], "done": False}},
        "playlists": {"PL-0001": {"playlist_id": "PL-0001", "name": "Morning Run", "tracks": ["TK-001", "TK-010"]},
                      "PL-0002": {"playlist_id": "PL-0002", "name": "Focus", "tracks": []}},
        "wishlist": {}, "cart": {},
        "_counters": {"EV": 2, "EM": 4, "TD": 1, "PL": 2},
    }
    return t


def fixtures_text(seed: int = FIXTURE_SEED) -> str:
    """The text of ``data/fixtures.json`` for ``seed``."""
    return json.dumps(generate_fixtures(seed), ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Write (or --check) the shipped fixture tables " + str(FIXTURES_FILE))
    ap.add_argument("--check", action="store_true", help="compare with the shipped file instead of writing")
    args = ap.parse_args(argv)
    text = fixtures_text()
    if args.check:
        same = FIXTURES_FILE.is_file() and FIXTURES_FILE.read_text(encoding="utf-8") == text
        print("up to date" if same else f"{FIXTURES_FILE} differs; rebuild with python -m treegym.envs.tools_common.fixture_data")
        return 0 if same else 1
    FIXTURES_FILE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURES_FILE.write_text(text, encoding="utf-8")
    print(f"wrote {FIXTURES_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
