"""Task templates: seeded slot sampling from fixtures -> query text + reference plan + gold specs.

Each template is a function ``(rng, fx) -> dict | None`` (None when the sampled
slots do not fit, e.g. no seats; the generator then draws again) returning:

* ``query``, ``group`` (G1 one tool, G2 several tools of one category, G3
  several categories), ``tools`` (tool names whose APIs the query offers),
* ``plan``: calls with ``$k.path`` references (see ``gold.py``), ending in Finish,
* ``answer``: references or literals whose values the answer must contain,
* ``state``: state checks (references allowed), ``solvable``.

Gold *values* are not written here: ``tasks.build_tasks`` runs each plan
against the service and resolves every reference from the real responses.
"""
from __future__ import annotations

import random
from typing import Any, Callable

from treegym.envs.tools_common.fixtures import Fixtures

from .schema import api_function_name, standardize

Template = Callable[[random.Random, Fixtures], "dict[str, Any] | None"]
TEMPLATES: dict[str, tuple[str, bool, Template]] = {}  # name -> (group, solvable, fn)


def template(name: str, group: str, solvable: bool = True) -> Callable[[Template], Template]:
    def deco(fn: Template) -> Template:
        TEMPLATES[name] = (group, solvable, fn)
        return fn
    return deco


def fn(tool: str, api: str) -> str:
    return api_function_name(api, standardize(tool))


def call(tool: str, api: str, **arguments: Any) -> dict[str, Any]:
    return {"name": fn(tool, api), "arguments": arguments}


def finish(answer: str) -> dict[str, Any]:
    return {"name": "Finish", "arguments": {"return_type": "give_answer", "final_answer": answer}}


def _city(rng: random.Random, fx: Fixtures) -> dict:
    return rng.choice(fx.table("cities"))


def _flights(fx: Fixtures, o: str, d: str, date: str) -> list:
    return sorted((f for f in fx.table("flights") if f["origin"] == o and f["destination"] == d and f["date"] == date),
                  key=lambda f: (f["price"], f["flight_id"]))


def _pick_flight(rng: random.Random, fx: Fixtures, pax: int, budget: float = 2500.0):
    f = rng.choice(fx.table("flights"))
    best = _flights(fx, f["origin"], f["destination"], f["date"])[0]
    if best["seats"] < pax or best["price"] * pax > budget:
        return None
    return best


def _city_of(fx: Fixtures, code: str) -> str:
    return next(c["city"] for c in fx.table("cities") if c["airport"] == code)


def _plus_minutes(hhmm: str, minutes: int) -> str:
    t = min(int(hhmm[:2]) * 60 + int(hhmm[3:]) + minutes, 23 * 60 + 59)
    return f"{t // 60:02d}:{t % 60:02d}"


# ------------------------------------------------------------------ G1: one tool
@template("weather", "G1")
def t_weather(rng, fx):
    w = rng.choice(fx.table("weather"))
    return {"query": rng.choice(["What's the weather forecast for {c} on {d}? I need the condition and the high.",
                                 "Will it rain in {c} on {d}? Tell me the expected condition and high temperature."]).format(c=w["city"], d=w["date"]),
            "tools": ["WeatherNow"], "plan": [call("WeatherNow", "Forecast", city=w["city"], date=w["date"]),
                                             finish("{$0.condition}, high of {$0.high_c} C")],
            "answer": ["$0.condition", "$0.high_c"]}


@template("weather_missing", "G1", solvable=False)
def t_weather_missing(rng, fx):
    city = rng.choice(["Lisbon", "Nairobi", "Lima", "Oslo", "Cairo", "Hanoi"])
    d = rng.choice(fx.data["dates"])
    return {"query": f"What will the weather be like in {city} on {d}?", "tools": ["WeatherNow"],
            "plan": [call("WeatherNow", "Forecast", city=city, date=d), finish(f"Sorry, no forecast is available for {city}.")]}


@template("book_cheapest_flight", "G1")
def t_book_flight(rng, fx):
    pax = rng.choice((1, 1, 2, 3))
    f = _pick_flight(rng, fx, pax)
    if f is None:
        return None
    return {"query": f"Book the cheapest flight from {_city_of(fx, f['origin'])} ({f['origin']}) to {_city_of(fx, f['destination'])} "
                     f"({f['destination']}) on {f['date']} for {pax} passenger{'s' if pax > 1 else ''}, and tell me the booking id and total price.",
            "tools": ["SkyRoutes"],
            "plan": [call("SkyRoutes", "Search Flights", origin=f["origin"], destination=f["destination"], date=f["date"]),
                     call("SkyRoutes", "Book Flight", flight_id="$0.results.0.flight_id", passengers=pax),
                     finish("Booked {$1.booking_id} on {$1.flight_id}, total {$1.total_price} USD.")],
            "answer": ["$1.booking_id", "$1.total_price"],
            "state": [{"kind": "count", "collection": "flight_bookings",
                       "where": {"flight_id": "$1.flight_id", "passengers": pax, "status": "confirmed"}, "eq": 1},
                      {"kind": "count", "collection": "flight_bookings", "eq": 1},
                      {"kind": "value", "collection": "wallet", "key": "balance", "eq": "$1.wallet_balance", "tol": 0.011}]}


@template("no_flights", "G1", solvable=False)
def t_no_flights(rng, fx):
    a, b = rng.sample(fx.table("cities"), 2)
    d = rng.choice(fx.data["dates"])
    if _flights(fx, a["airport"], b["airport"], d):
        return None
    return {"query": f"Book me the cheapest flight from {a['city']} ({a['airport']}) to {b['city']} ({b['airport']}) on {d}.",
            "tools": ["SkyRoutes"],
            "plan": [call("SkyRoutes", "Search Flights", origin=a["airport"], destination=b["airport"], date=d),
                     finish(f"There are no flights from {a['airport']} to {b['airport']} on {d}, so nothing was booked.")]}


@template("movie_director", "G1")
def t_director(rng, fx):
    m = rng.choice(fx.table("movies"))
    return {"query": rng.choice([f"Who directed the movie '{m['title']}'?", f"I'd like to know the director of {m['title']}."]),
            "tools": ["MovieDB"],
            "plan": [call("MovieDB", "Search Movie", query=m["title"]), call("MovieDB", "Movie Credits", movie_id="$0.results.0.movie_id"),
                     finish("{$1.title} was directed by {$1.director.name}.")],
            "answer": ["$1.director.name"]}


@template("stock_price", "G1")
def t_stock(rng, fx):
    s = rng.choice(fx.table("stocks"))
    return {"query": f"What is the latest share price of {s['name']}?", "tools": ["StockQuotes"],
            "plan": [call("StockQuotes", "Search Symbol", query=s["name"]), call("StockQuotes", "Get Quote", symbol="$0.results.0.symbol"),
                     finish("{$1.name} ({$1.symbol}) trades at {$1.price} USD.")],
            "answer": ["$1.price"]}


@template("add_todo", "G1")
def t_todo(rng, fx):
    title = rng.choice(["Call the plumber", "Renew gym membership", "Send tax documents", "Book dentist appointment",
                        "Water the plants", "Pick up dry cleaning", "Buy a birthday gift for Sam"])
    due = rng.choice(fx.data["dates"][1:])
    return {"query": f"Add a to-do '{title}' due on {due} and give me its id.", "tools": ["TodoList"],
            "plan": [call("TodoList", "Add Todo", title=title, due=due), finish("Added {$0.todo_id}.")],
            "answer": ["$0.todo_id"],
            "state": [{"kind": "count", "collection": "todos", "where": {"title": title, "due": due, "done": False}, "eq": 1},
                      {"kind": "count", "collection": "todos", "eq": 2}]}


@template("convert_currency", "G1")
def t_fx(rng, fx):
    a, b = rng.sample(["USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "SGD"], 2)
    amount = rng.choice((50, 120, 250, 999, 1500, 20000 if a == "JPY" else 75))
    return {"query": f"How much is {amount} {a} in {b}?", "tools": ["CurrencyFX"],
            "plan": [call("CurrencyFX", "Convert Currency", amount=amount, from_currency=a, to_currency=b),
                     finish(f"{amount} {a} is {{$0.result}} {b}.")],
            "answer": ["$0.result"]}


@template("quick_recipe", "G1")
def t_recipe(rng, fx):
    r = rng.choice(fx.table("recipes"))
    limit = r["minutes"] + rng.choice((0, 5, 10))
    return {"query": f"Find me the quickest {r['main_ingredient']} recipe that takes at most {limit} minutes.", "tools": ["RecipeBox"],
            "plan": [call("RecipeBox", "Search Recipes", ingredient=r["main_ingredient"], max_minutes=limit),
                     finish("{$0.results.0.name} takes {$0.results.0.minutes} minutes.")],
            "answer": ["$0.results.0.name"]}


@template("transfer", "G1")
def t_transfer(rng, fx):
    a, b = rng.sample(["ACC-CHK", "ACC-SAV", "ACC-TRV"], 2)
    amount = rng.choice((25, 100, 150, 300, 400))
    names = {"ACC-CHK": "checking", "ACC-SAV": "savings", "ACC-TRV": "travel"}
    return {"query": f"Move {amount} USD from my {names[a]} account ({a}) to my {names[b]} account ({b}) and tell me what is left in {names[a]}.",
            "tools": ["BankAccount"],
            "plan": [call("BankAccount", "Transfer Funds", from_account=a, to_account=b, amount=amount),
                     finish(f"Done: {{$0.from_balance}} USD left in {a}.")],
            "answer": ["$0.from_balance"],
            "state": [{"kind": "value", "collection": "accounts", "key": a, "path": "balance", "eq": "$0.from_balance", "tol": 0.011},
                      {"kind": "value", "collection": "accounts", "key": b, "path": "balance", "eq": "$0.to_balance", "tol": 0.011}]}


@template("transfer_too_much", "G1", solvable=False)
def t_transfer_fail(rng, fx):
    src, dst, amount = rng.choice([("ACC-CHK", "ACC-TRV", rng.choice((5000, 8000, 20000))),
                                   ("ACC-TRV", "ACC-CHK", rng.choice((500, 750, 1000))),
                                   ("ACC-SAV", "ACC-CHK", rng.choice((15000, 30000)))])
    return {"query": f"Transfer {amount} USD from my account {src} to {dst}.", "tools": ["BankAccount"],
            "plan": [call("BankAccount", "Transfer Funds", from_account=src, to_account=dst, amount=amount),
                     finish(f"The transfer cannot be made: insufficient funds in {src}.")]}


@template("book_hotel", "G1")
def t_hotel(rng, fx):
    c = _city(rng, fx)
    stars = rng.choice((3, 4))
    hs = sorted((h for h in fx.table("hotels") if h["city"] == c["city"] and h["stars"] >= stars),
                key=lambda h: (h["price_per_night"], h["hotel_id"]))
    nights = rng.choice((1, 2, 3))
    if not hs or hs[0]["rooms"] < 1 or hs[0]["price_per_night"] * nights > 2500:
        return None
    d = rng.choice(fx.data["dates"])
    return {"query": f"Reserve the cheapest hotel with at least {stars} stars in {c['city']} for {nights} night{'s' if nights > 1 else ''} "
                     f"from {d}; tell me the reservation id and the total.", "tools": ["StayFinder"],
            "plan": [call("StayFinder", "Search Hotels", city=c["city"], min_stars=stars),
                     call("StayFinder", "Book Hotel", hotel_id="$0.results.0.hotel_id", check_in=d, nights=nights),
                     finish("Reserved {$1.reservation_id} at {$1.hotel}, total {$1.total_price} USD.")],
            "answer": ["$1.reservation_id", "$1.total_price"],
            "state": [{"kind": "count", "collection": "hotel_bookings",
                       "where": {"hotel_id": "$1.hotel_id", "check_in": d, "nights": nights, "status": "confirmed"}, "eq": 1},
                      {"kind": "count", "collection": "hotel_bookings", "eq": 1}]}


@template("cart_add", "G1")
def t_cart(rng, fx):
    p = rng.choice([p for p in fx.table("products") if p["stock"] >= 3])
    q = rng.choice((1, 2, 3))
    return {"query": f"Put {q} of {p['sku']} in my shopping cart and tell me the cart subtotal.", "tools": ["ShopCart"],
            "plan": [call("ShopCart", "Add To Cart", sku=p["sku"], quantity=q), finish("Cart subtotal: {$0.subtotal} USD.")],
            "answer": ["$0.subtotal"],
            "state": [{"kind": "value", "collection": "cart", "key": p["sku"], "eq": q}, {"kind": "count", "collection": "cart", "eq": 1}]}


@template("new_playlist", "G1")
def t_playlist(rng, fx):
    name = rng.choice(["Road Trip", "Sunday Chill", "Workout Mix", "Late Night", "Dinner Party", "Study Beats"])
    t1, t2 = rng.sample(fx.table("tracks"), 2)
    return {"query": f"Create a playlist called '{name}' and add the tracks {t1['track_id']} and {t2['track_id']} to it.",
            "tools": ["Playlists"],
            "plan": [call("Playlists", "Create Playlist", name=name),
                     call("Playlists", "Add Track To Playlist", playlist_id="$0.playlist_id", track_id=t1["track_id"]),
                     call("Playlists", "Add Track To Playlist", playlist_id="$0.playlist_id", track_id=t2["track_id"]),
                     finish(f"Created {{$0.playlist_id}} '{name}' with {t1['track_id']} and {t2['track_id']}.")],
            "answer": ["$0.playlist_id"],
            "state": [{"kind": "count", "collection": "playlists", "where": {"name": name, "tracks": [t1["track_id"], t2["track_id"]]}, "eq": 1},
                      {"kind": "count", "collection": "playlists", "eq": 3}]}


@template("city_distance", "G1")
def t_distance(rng, fx):
    a, b = rng.sample(fx.table("cities"), 2)
    return {"query": f"How far is it from {a['city']} to {b['city']} in kilometres?", "tools": ["GeoTools"],
            "plan": [call("GeoTools", "Distance Between", from_city=a["city"], to_city=b["city"]),
                     finish("{$0.distance_km} km.")],
            "answer": [{"ref": "$0.distance_km", "tol": 1.0}]}


# ------------------------------------------------------------------ G2: several tools, one category
@template("flight_in_eur", "G2")
def t_flight_eur(rng, fx):
    pax = rng.choice((1, 2))
    f = _pick_flight(rng, fx, pax)
    if f is None:
        return None
    cur = rng.choice(["EUR", "GBP", "CHF", "JPY"])
    return {"query": f"Book the cheapest {f['origin']} to {f['destination']} flight on {f['date']} for {pax} and tell me the booking id "
                     f"and what the total is in {cur}.", "tools": ["SkyRoutes", "CurrencyFX"],
            "plan": [call("SkyRoutes", "Search Flights", origin=f["origin"], destination=f["destination"], date=f["date"]),
                     call("SkyRoutes", "Book Flight", flight_id="$0.results.0.flight_id", passengers=pax),
                     call("CurrencyFX", "Convert Currency", amount="$1.total_price", from_currency="USD", to_currency=cur),
                     finish(f"Booked {{$1.booking_id}}; the total is {{$2.result}} {cur}.")],
            "answer": ["$1.booking_id", "$2.result"],
            "state": [{"kind": "count", "collection": "flight_bookings", "where": {"flight_id": "$1.flight_id", "passengers": pax}, "eq": 1},
                      {"kind": "count", "collection": "flight_bookings", "eq": 1}]}


@template("order_with_coupon", "G2")
def t_order(rng, fx):
    p = rng.choice([p for p in fx.table("products") if p["stock"] >= 3])
    q = rng.choice((1, 2, 3))
    coupon = rng.choice(["SAVE10", "TECH15", "HOME20"])
    c = fx.get("coupons", coupon)
    if (c["category"] and c["category"] != p["category"]) or p["price"] * q < c["min_total"]:
        coupon = "SAVE10"
    country = rng.choice(["United States", "France", "Japan", "Germany"])
    return {"query": f"Order {q} x '{p['name']}' shipped to {country} using coupon {coupon}, and tell me the order id and total.",
            "tools": ["ShopCatalog", "ShopCart", "ShopOrders"],
            "plan": [call("ShopCatalog", "Search Products", query=p["name"]),
                     call("ShopCart", "Add To Cart", sku="$0.results.0.sku", quantity=q),
                     call("ShopOrders", "Checkout", ship_to_country=country, coupon_code=coupon),
                     finish("Order {$2.order_id} placed, total {$2.total} USD.")],
            "answer": ["$2.order_id", "$2.total"],
            "state": [{"kind": "count", "collection": "orders", "where": {"coupon": coupon, "status": "placed", "ship_to_country": country}, "eq": 1},
                      {"kind": "count", "collection": "orders", "eq": 1}, {"kind": "count", "collection": "cart", "eq": 0},
                      {"kind": "value", "collection": "stock", "key": p["sku"], "eq": p["stock"] - q}]}


@template("order_sold_out", "G2", solvable=False)
def t_sold_out(rng, fx):
    p = rng.choice([p for p in fx.table("products") if p["stock"] == 0])
    return {"query": f"Buy one '{p['name']}' and ship it to the United States.", "tools": ["ShopCatalog", "ShopCart", "ShopOrders"],
            "plan": [call("ShopCatalog", "Search Products", query=p["name"]), call("ShopCart", "Add To Cart", sku=p["sku"], quantity=1),
                     finish(f"Sorry, {p['name']} is sold out, so no order was placed.")]}


@template("buy_shares", "G2")
def t_buy(rng, fx):
    s = rng.choice(fx.table("stocks"))
    n = rng.choice((1, 2, 5, 10))
    if s["price"] * n > 5000:
        return None
    return {"query": f"Buy {n} shares of {s['name']} in my brokerage account and tell me how much cash is left.",
            "tools": ["StockQuotes", "Brokerage"],
            "plan": [call("StockQuotes", "Search Symbol", query=s["name"]), call("Brokerage", "Buy Stock", symbol="$0.results.0.symbol", shares=n),
                     finish("Bought {$1.shares} {$1.symbol} for {$1.amount} USD; cash left {$1.cash} USD.")],
            "answer": ["$1.cash"],
            "state": [{"kind": "value", "collection": "portfolio", "key": "cash", "eq": "$1.cash", "tol": 0.011},
                      {"kind": "count", "collection": "trades", "where": {"symbol": s["symbol"], "shares": n, "side": "buy"}, "eq": 1},
                      {"kind": "count", "collection": "trades", "eq": 1}]}


@template("buy_shares_too_many", "G2", solvable=False)
def t_buy_fail(rng, fx):
    s = rng.choice([s for s in fx.table("stocks") if s["price"] > 60])
    n = 1000
    return {"query": f"Buy {n} shares of {s['name']} for me.", "tools": ["StockQuotes", "Brokerage"],
            "plan": [call("StockQuotes", "Search Symbol", query=s["name"]), call("Brokerage", "Buy Stock", symbol=s["symbol"], shares=n),
                     finish("The purchase cannot be made: insufficient funds.")]}


@template("email_contact", "G2")
def t_email(rng, fx):
    c = rng.choice(fx.table("contacts"))
    first = c["name"].split()[0]
    if sum(1 for x in fx.table("contacts") if c["name"] in x["name"]) != 1:
        return None
    subject = rng.choice(["Project update", "Lunch on Friday", "Slides for Monday", "Budget question"])
    return {"query": f"Email {c['name']} with the subject '{subject}' and a short note saying hi from me.", "tools": ["Contacts", "Mailbox"],
            "plan": [call("Contacts", "Search Contacts", name=c["name"]),
                     call("Mailbox", "Send Email", to="$0.results.0.email", subject=subject, body=f"Hi {first}, hope you're well!"),
                     finish(f"Sent '{subject}' to {{$0.results.0.email}} ({{$1.message_id}}).")],
            "answer": [],
            "state": [{"kind": "count", "collection": "outbox", "where": {"to": "$0.results.0.email", "subject": subject}, "eq": 1},
                      {"kind": "count", "collection": "outbox", "eq": 1}]}


@template("email_unknown_contact", "G2", solvable=False)
def t_email_unknown(rng, fx):
    name = rng.choice(["Zoe Whitfield", "Yusuf Okafor", "Xavier Lund", "Wendy Marsh"])
    return {"query": f"Send {name} an email titled 'Hello' saying we should catch up.", "tools": ["Contacts", "Mailbox"],
            "plan": [call("Contacts", "Search Contacts", name=name), finish(f"I could not find {name} in your contacts, so no email was sent.")]}


@template("meeting_with_contact", "G2")
def t_meeting(rng, fx):
    c = rng.choice(fx.table("contacts"))
    if sum(1 for x in fx.table("contacts") if c["name"] in x["name"]) != 1:
        return None
    d = rng.choice(fx.data["dates"][3:])
    start = rng.choice(("10:00", "11:00", "14:00", "16:30"))
    title = rng.choice(["Planning", "1:1", "Design review", "Quarterly sync"])
    return {"query": f"Schedule a '{title}' meeting with {c['name']} on {d} from {start} for one hour and invite them.",
            "tools": ["Contacts", "Calendar"],
            "plan": [call("Contacts", "Search Contacts", name=c["name"]),
                     call("Calendar", "Create Event", title=title, date=d, start=start, end=_plus_minutes(start, 60),
                          attendees="$0.results.0.email"),
                     finish(f"Scheduled {{$1.event_id}} '{title}' on {d} at {start} with {c['name']}.")],
            "answer": ["$1.event_id"],
            "state": [{"kind": "count", "collection": "events",
                       "where": {"title": title, "date": d, "start": start, "end": _plus_minutes(start, 60),
                                 "attendees": {"$contains": "$0.results.0.email"}}, "eq": 1},
                      {"kind": "count", "collection": "events", "eq": 3}]}


@template("playlist_add_song", "G2")
def t_add_song(rng, fx):
    t = rng.choice(fx.table("tracks"))
    if sum(1 for x in fx.table("tracks") if x["title"] == t["title"] and x["artist"] == t["artist"]) != 1:
        return None
    return {"query": f"Add '{t['title']}' by {t['artist']} to my Focus playlist.", "tools": ["MusicSearch", "Playlists"],
            "plan": [call("Playlists", "List Playlists"), call("MusicSearch", "Search Track", query=t["title"], artist=t["artist"]),
                     call("Playlists", "Add Track To Playlist", playlist_id="PL-0002", track_id="$1.results.0.track_id"),
                     finish(f"Added {t['title']} ({{$1.results.0.track_id}}) to Focus.")],
            "alternatives": [[fn("MusicSearch", "Search Track"), fn("Playlists", "Add Track To Playlist")]],
            "answer": [],
            "state": [{"kind": "value", "collection": "playlists", "key": "PL-0002", "path": "tracks", "eq": [t["track_id"]]}]}


@template("actor_film_count", "G2")
def t_actor(rng, fx):
    m = rng.choice(fx.table("movies"))
    return {"query": f"How many movies in the database feature the lead actor of '{m['title']}'? Name the actor too.",
            "tools": ["MovieDB", "PeopleDB"],
            "plan": [call("MovieDB", "Search Movie", query=m["title"]), call("MovieDB", "Movie Credits", movie_id="$0.results.0.movie_id"),
                     call("PeopleDB", "Person Filmography", person_id="$1.cast.0.person_id"),
                     finish("{$2.name} appears in {$2.count} movies.")],
            "answer": ["$2.name", "$2.count"]}


@template("savings_transfer_eur", "G2")
def t_eur_transfer(rng, fx):
    eur = rng.choice((50, 90, 120, 200, 250, 400, 600))
    cur = rng.choice(("EUR", "GBP", "CHF"))
    src, dst = rng.choice([("ACC-SAV", "ACC-TRV"), ("ACC-SAV", "ACC-CHK")])
    return {"query": f"I need {eur} {cur} moved from {src} to {dst}: convert it to USD at today's rate "
                     f"and transfer that USD amount. What is the balance of {dst} afterwards?", "tools": ["FXRates", "BankAccount"],
            "plan": [call("FXRates", "Convert", amount=eur, from_currency=cur, to_currency="USD"),
                     call("BankAccount", "Transfer Funds", from_account=src, to_account=dst, amount="$0.result"),
                     finish("Transferred {$0.result} USD; " + dst + " now holds {$1.to_balance} USD.")],
            "answer": ["$1.to_balance"],
            "state": [{"kind": "value", "collection": "accounts", "key": dst, "path": "balance", "eq": "$1.to_balance", "tol": 0.011}]}


# ------------------------------------------------------------------ G3: several categories
@template("flight_and_calendar", "G3")
def t_flight_cal(rng, fx):
    f = _pick_flight(rng, fx, 1)
    if f is None or f["date"] in fx.data["dates"][1:3]:
        return None
    return {"query": f"Book the cheapest flight from {f['origin']} to {f['destination']} on {f['date']} for me and put it in my calendar "
                     f"as 'Flight <flight id>' from departure time for one hour.", "tools": ["SkyRoutes", "Calendar"],
            "plan": [call("SkyRoutes", "Search Flights", origin=f["origin"], destination=f["destination"], date=f["date"]),
                     call("SkyRoutes", "Book Flight", flight_id="$0.results.0.flight_id", passengers=1),
                     call("Calendar", "Create Event", title="Flight {$1.flight_id}", date=f["date"], start="$0.results.0.depart",
                          end=_plus_minutes(f["depart"], 60)),
                     finish("Booked {$1.booking_id} ({$1.flight_id}) and added event {$2.event_id}.")],
            "answer": ["$1.booking_id"],
            "state": [{"kind": "count", "collection": "flight_bookings", "where": {"flight_id": f["flight_id"], "passengers": 1}, "eq": 1},
                      {"kind": "count", "collection": "events", "where": {"title": {"$contains": f["flight_id"]}, "date": f["date"],
                                                                         "start": f["depart"]}, "eq": 1}]}


@template("weather_email", "G3")
def t_weather_email(rng, fx):
    c = rng.choice(fx.table("contacts"))
    if sum(1 for x in fx.table("contacts") if c["name"] in x["name"]) != 1:
        return None
    w = rng.choice(fx.table("weather"))
    return {"query": f"Look up the forecast for {w['city']} on {w['date']} and email it to {c['name']} with the subject "
                     f"'Weather in {w['city']}'.", "tools": ["WeatherNow", "Contacts", "Mailbox"],
            "plan": [call("WeatherNow", "Forecast", city=w["city"], date=w["date"]), call("Contacts", "Search Contacts", name=c["name"]),
                     call("Mailbox", "Send Email", to="$1.results.0.email", subject=f"Weather in {w['city']}",
                          body=f"Forecast for {w['city']} on {w['date']}: {{$0.condition}}, high {{$0.high_c}} C."),
                     finish("Emailed the forecast ({$0.condition}, high {$0.high_c} C) to {$1.results.0.email}.")],
            "answer": ["$0.condition"],
            "state": [{"kind": "count", "collection": "outbox", "where": {"to": "$1.results.0.email", "subject": f"Weather in {w['city']}",
                                                                          "body": {"$contains": w["condition"]}}, "eq": 1},
                      {"kind": "count", "collection": "outbox", "eq": 1}]}


@template("product_price_converted", "G3")
def t_price_fx(rng, fx):
    p = rng.choice(fx.table("products"))
    cur = rng.choice(["EUR", "GBP", "JPY", "KRW", "CAD"])
    return {"query": f"What does product {p['sku']} cost in {cur}?", "tools": ["ShopCatalog", "FXRates"],
            "plan": [call("ShopCatalog", "Get Product", sku=p["sku"]),
                     call("FXRates", "Convert", amount="$0.price", from_currency="USD", to_currency=cur),
                     finish(f"{{$0.name}} costs {{$0.price}} USD = {{$1.result}} {cur}.")],
            "answer": ["$1.result"]}


@template("stock_todo", "G3")
def t_stock_todo(rng, fx):
    s = rng.choice(fx.table("stocks"))
    return {"query": f"Check the current price of {s['symbol']} and add a to-do 'Review {s['symbol']} at <price>' with that price.",
            "tools": ["StockQuotes", "TodoList"],
            "plan": [call("StockQuotes", "Get Quote", symbol=s["symbol"]),
                     call("TodoList", "Add Todo", title=f"Review {s['symbol']} at {{$0.price}}"),
                     finish("{$0.symbol} is at {$0.price}; added {$1.todo_id}.")],
            "answer": ["$0.price"],
            "state": [{"kind": "count", "collection": "todos", "where": {"title": {"$contains": s["symbol"]}}, "eq": 1},
                      {"kind": "count", "collection": "todos", "eq": 2}]}


@template("trip_hotel_weather", "G3")
def t_trip(rng, fx):
    c = _city(rng, fx)
    hs = sorted((h for h in fx.table("hotels") if h["city"] == c["city"]), key=lambda h: (h["price_per_night"], h["hotel_id"]))
    if not hs or hs[0]["rooms"] < 1:
        return None
    d = rng.choice(fx.data["dates"])
    return {"query": f"I'm going to {c['city']} on {d}. Tell me the weather there that day and book the cheapest hotel for 2 nights.",
            "tools": ["WeatherNow", "StayFinder"],
            "plan": [call("WeatherNow", "Forecast", city=c["city"], date=d), call("StayFinder", "Search Hotels", city=c["city"]),
                     call("StayFinder", "Book Hotel", hotel_id="$1.results.0.hotel_id", check_in=d, nights=2),
                     finish("Weather: {$0.condition}. Booked {$2.reservation_id} at {$2.hotel}.")],
            "answer": ["$0.condition", "$2.reservation_id"],
            "state": [{"kind": "count", "collection": "hotel_bookings", "where": {"hotel_id": hs[0]["hotel_id"], "check_in": d, "nights": 2},
                       "eq": 1}, {"kind": "count", "collection": "hotel_bookings", "eq": 1}]}


@template("train_for_meeting", "G3")
def t_train(rng, fx):
    t = rng.choice([t for t in fx.table("trains") if t["seats"] > 0])
    best = sorted((x for x in fx.table("trains") if (x["origin"], x["destination"], x["date"]) == (t["origin"], t["destination"], t["date"])),
                  key=lambda x: (x["price"], x["train_id"]))[0]
    if best["seats"] < 1:
        return None
    return {"query": f"Get me a train ticket from {t['origin']} to {t['destination']} on {t['date']} (the cheapest) and set a reminder "
                     f"'Train to {t['destination']}' at the departure time that day.", "tools": ["RailLink", "Reminders"],
            "plan": [call("RailLink", "Search Trains", origin=t["origin"], destination=t["destination"], date=t["date"]),
                     call("RailLink", "Book Train", train_id="$0.results.0.train_id", passengers=1),
                     call("Reminders", "Set Reminder", text=f"Train to {t['destination']}", date=t["date"], time="$0.results.0.depart"),
                     finish("Ticket {$1.ticket_id} on {$1.train_id}; reminder {$2.reminder_id} set for {$0.results.0.depart}.")],
            "answer": ["$1.ticket_id"],
            "state": [{"kind": "count", "collection": "train_tickets", "where": {"train_id": best["train_id"]}, "eq": 1},
                      {"kind": "count", "collection": "reminders", "where": {"date": t["date"], "time": best["depart"]}, "eq": 1}]}


@template("trip_unknown_city", "G3", solvable=False)
def t_trip_unknown(rng, fx):
    city = rng.choice(["Lisbon", "Nairobi", "Lima", "Oslo"])
    return {"query": f"Book the cheapest hotel in {city} for tonight and email the weather there to my first contact.",
            "tools": ["StayFinder", "WeatherNow", "Mailbox"],
            "plan": [call("StayFinder", "Search Hotels", city=city), finish(f"There are no hotels listed in {city}, so nothing was booked.")]}


@template("sold_out_and_email", "G3", solvable=False)
def t_sold_out_email(rng, fx):
    p = rng.choice([p for p in fx.table("products") if p["stock"] == 0])
    c = rng.choice(fx.table("contacts"))
    return {"query": f"Order '{p['name']}' (SKU {p['sku']}) for me and email the order id to {c['name']}.",
            "tools": ["ShopCart", "ShopOrders", "Contacts", "Mailbox"],
            "plan": [call("ShopCart", "Add To Cart", sku=p["sku"], quantity=1),
                     finish(f"{p['name']} is sold out, so I could not place the order or send an email.")]}
