"""G1 task templates: one tool per query.

Importing this module registers them (``base.template``).
"""
from __future__ import annotations

from .base import call, city_of, finish, flights_on, pick_city, pick_flight, template


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
    f = pick_flight(rng, fx, pax)
    if f is None:
        return None
    return {"query": f"Book the cheapest flight from {city_of(fx, f['origin'])} ({f['origin']}) to {city_of(fx, f['destination'])} "
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
    if flights_on(fx, a["airport"], b["airport"], d):
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
    c = pick_city(rng, fx)
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
