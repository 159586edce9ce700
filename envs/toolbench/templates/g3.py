"""G3 task templates: tools of several categories per query.

Importing this module registers them (``base.template``).
"""
from __future__ import annotations

from .base import call, finish, pick_city, pick_flight, plus_minutes, template


@template("flight_and_calendar", "G3")
def t_flight_cal(rng, fx):
    f = pick_flight(rng, fx, 1)
    if f is None or f["date"] in fx.data["dates"][1:3]:
        return None
    return {"query": f"Book the cheapest flight from {f['origin']} to {f['destination']} on {f['date']} for me and put it in my calendar "
                     f"as 'Flight <flight id>' from departure time for one hour.", "tools": ["SkyRoutes", "Calendar"],
            "plan": [call("SkyRoutes", "Search Flights", origin=f["origin"], destination=f["destination"], date=f["date"]),
                     call("SkyRoutes", "Book Flight", flight_id="$0.results.0.flight_id", passengers=1),
                     call("Calendar", "Create Event", title="Flight {$1.flight_id}", date=f["date"], start="$0.results.0.depart",
                          end=plus_minutes(f["depart"], 60)),
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
    c = pick_city(rng, fx)
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
