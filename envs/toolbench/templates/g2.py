"""G2 task templates: several tools of one category per query.

Importing this module registers them (``base.template``).
"""
from __future__ import annotations

from .base import call, finish, fn, pick_flight, plus_minutes, template


@template("flight_in_eur", "G2")
def t_flight_eur(rng, fx):
    pax = rng.choice((1, 2))
    f = pick_flight(rng, fx, pax)
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
                     call("Calendar", "Create Event", title=title, date=d, start=start, end=plus_minutes(start, 60),
                          attendees="$0.results.0.email"),
                     finish(f"Scheduled {{$1.event_id}} '{title}' on {d} at {start} with {c['name']}.")],
            "answer": ["$1.event_id"],
            "state": [{"kind": "count", "collection": "events",
                       "where": {"title": title, "date": d, "start": start, "end": plus_minutes(start, 60),
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
