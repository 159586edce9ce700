"""Travel handlers: flights, hotels, cars and trains with seat/room inventory, the travel wallet,
currency, visas, time zones and travel insurance.

Every handler is ``handler(ctx, args)`` (see ``base.py``); importing this module registers them.
"""
from __future__ import annotations

import re
from typing import Any, Mapping

from .base import BadInput, Ctx, Failed, Fixtures, as_count, as_date, as_positive, handler, need_record, r2


def _charge_wallet(ctx: Ctx, amount: float, memo: str) -> float:
    wallet = ctx.tx.get("wallet", "balance", 0.0)
    if amount > wallet + 1e-9:
        raise Failed(f"insufficient funds: the travel wallet holds {wallet:.2f} USD, {amount:.2f} USD needed")
    ctx.tx.put("wallet", "balance", r2(wallet - amount))
    tid = ctx.tx.next_id("WT")
    ctx.tx.put("wallet_log", tid, {"id": tid, "amount": -r2(amount), "memo": memo})
    return r2(wallet - amount)


def _refund_wallet(ctx: Ctx, amount: float, memo: str) -> None:
    ctx.tx.put("wallet", "balance", r2(ctx.tx.get("wallet", "balance", 0.0) + amount))
    tid = ctx.tx.next_id("WT")
    ctx.tx.put("wallet_log", tid, {"id": tid, "amount": r2(amount), "memo": memo})


def _book_inventory(ctx: Ctx, table: str, key: str, count_field: str, live: str, n: int, what: str) -> Mapping:
    rec = ctx.fx.need(table, key, what)
    left = ctx.tx.get(live, rec[Fixtures.KEYS[table]], rec[count_field])
    if left < n:
        raise Failed(f"sold out: {left} left on {what} {rec[Fixtures.KEYS[table]]}, {n} requested")
    ctx.tx.put(live, rec[Fixtures.KEYS[table]], left - n)
    return rec


@handler("travel.book_flight")
def book_flight(ctx: Ctx, args: dict) -> Any:
    n = as_count(args.get("passengers", 1), "passengers")
    rec = _book_inventory(ctx, "flights", args["flight_id"], "seats", "flight_seats", n, "flight")
    total = r2(rec["price"] * n)
    balance = _charge_wallet(ctx, total, f"flight {rec['flight_id']}")
    bid = ctx.tx.next_id("BK")
    booking = {"booking_id": bid, "flight_id": rec["flight_id"], "passengers": n, "total_price": total,
               "status": "confirmed", "date": rec["date"], "origin": rec["origin"], "destination": rec["destination"]}
    ctx.tx.put("flight_bookings", bid, booking)
    return dict(booking, wallet_balance=balance)


@handler("travel.cancel_flight")
def cancel_flight(ctx: Ctx, args: dict) -> Any:
    bid = str(args["booking_id"]).strip().upper()
    b = need_record(ctx, "flight_bookings", bid, f"booking {bid!r} not found")
    if b["status"] == "cancelled":
        raise Failed(f"booking {bid} is already cancelled")
    b["status"] = "cancelled"
    ctx.tx.put("flight_bookings", bid, b)
    rec = ctx.fx.get("flights", b["flight_id"])
    ctx.tx.put("flight_seats", b["flight_id"], ctx.tx.get("flight_seats", b["flight_id"], rec["seats"]) + b["passengers"])
    _refund_wallet(ctx, b["total_price"], f"refund {bid}")
    return {"booking_id": bid, "status": "cancelled", "refunded": b["total_price"]}


@handler("travel.book_hotel")
def book_hotel(ctx: Ctx, args: dict) -> Any:
    nights = as_count(args.get("nights"), "nights")
    check_in = as_date(args.get("check_in"), "check_in")
    rec = _book_inventory(ctx, "hotels", args["hotel_id"], "rooms", "hotel_rooms", 1, "hotel")
    total = r2(rec["price_per_night"] * nights)
    balance = _charge_wallet(ctx, total, f"hotel {rec['hotel_id']}")
    rid = ctx.tx.next_id("HB")
    res = {"reservation_id": rid, "hotel_id": rec["hotel_id"], "hotel": rec["name"], "check_in": check_in,
           "nights": nights, "total_price": total, "status": "confirmed"}
    ctx.tx.put("hotel_bookings", rid, res)
    return dict(res, wallet_balance=balance)


def _cancel_one_unit(ctx: Ctx, args: dict, id_param: str, collection: str, what: str, table: str, live: str,
                     count_field: str) -> Any:
    """Cancel the active record ``args[id_param]`` of ``collection``: one unit back in stock, the price refunded."""
    rid = str(args[id_param]).strip().upper()
    b = ctx.tx.get(collection, rid)
    if b is None or b["status"] == "cancelled":
        raise Failed(f"no active {what} {rid!r}")
    b["status"] = "cancelled"
    ctx.tx.put(collection, rid, b)
    key = b[Fixtures.KEYS[table]]
    ctx.tx.put(live, key, ctx.tx.get(live, key, ctx.fx.get(table, key)[count_field]) + 1)
    _refund_wallet(ctx, b["total_price"], f"refund {rid}")
    return {id_param: rid, "status": "cancelled", "refunded": b["total_price"]}


@handler("travel.cancel_hotel")
def cancel_hotel(ctx: Ctx, args: dict) -> Any:
    return _cancel_one_unit(ctx, args, "reservation_id", "hotel_bookings", "reservation", "hotels", "hotel_rooms", "rooms")


@handler("travel.rent_car")
def rent_car(ctx: Ctx, args: dict) -> Any:
    days = as_count(args.get("days"), "days")
    rec = _book_inventory(ctx, "cars", args["car_id"], "available", "car_available", 1, "car")
    total = r2(rec["price_per_day"] * days)
    balance = _charge_wallet(ctx, total, f"car {rec['car_id']}")
    rid = ctx.tx.next_id("CRB")
    res = {"rental_id": rid, "car_id": rec["car_id"], "model": rec["model"], "pickup_date": as_date(args.get("pickup_date"), "pickup_date"),
           "days": days, "total_price": total, "status": "confirmed"}
    ctx.tx.put("car_rentals", rid, res)
    return dict(res, wallet_balance=balance)


@handler("travel.cancel_car")
def cancel_car(ctx: Ctx, args: dict) -> Any:
    return _cancel_one_unit(ctx, args, "rental_id", "car_rentals", "rental", "cars", "car_available", "available")


@handler("travel.book_train")
def book_train(ctx: Ctx, args: dict) -> Any:
    n = as_count(args.get("passengers", 1), "passengers")
    rec = _book_inventory(ctx, "trains", args["train_id"], "seats", "train_seats", n, "train")
    total = r2(rec["price"] * n)
    balance = _charge_wallet(ctx, total, f"train {rec['train_id']}")
    tid = ctx.tx.next_id("TK")
    res = {"ticket_id": tid, "train_id": rec["train_id"], "passengers": n, "total_price": total, "status": "confirmed"}
    ctx.tx.put("train_tickets", tid, res)
    return dict(res, wallet_balance=balance)


@handler("travel.wallet_balance")
def wallet_balance(ctx: Ctx, args: dict) -> Any:
    return {"balance": ctx.tx.get("wallet", "balance", 0.0), "currency": ctx.tx.get("wallet", "currency", "USD")}


@handler("travel.wallet_top_up")
def wallet_top_up(ctx: Ctx, args: dict) -> Any:
    amount = as_positive(args.get("amount"), "amount")
    if amount > 5000:
        raise Failed("top-ups are limited to 5000.00 USD per request")
    _refund_wallet(ctx, amount, "top-up")
    return {"balance": ctx.tx.get("wallet", "balance", 0.0), "topped_up": r2(amount)}


@handler("travel.wallet_history")
def wallet_history(ctx: Ctx, args: dict) -> Any:
    return {"transactions": [v for _, v in ctx.tx.items("wallet_log")]}


def _usd_per(ctx: Ctx, code: Any) -> float:
    rec = ctx.fx.get("fx", str(code).strip().upper())
    if rec is None:
        raise Failed(f"unsupported currency {code!r}")
    return rec["usd_per_unit"]


@handler("fx.convert")
def fx_convert(ctx: Ctx, args: dict) -> Any:
    amount = float(args["amount"])
    src, dst = str(args["from_currency"]).upper().strip(), str(args["to_currency"]).upper().strip()
    rate = _usd_per(ctx, src) / _usd_per(ctx, dst)
    return {"from": src, "to": dst, "amount": r2(amount), "rate": round(rate, 6), "result": r2(amount * rate)}


@handler("fx.rate")
def fx_rate(ctx: Ctx, args: dict) -> Any:
    src, dst = str(args["base"]).upper().strip(), str(args["target"]).upper().strip()
    return {"base": src, "target": dst, "rate": round(_usd_per(ctx, src) / _usd_per(ctx, dst), 6)}


@handler("fx.latest")
def fx_latest(ctx: Ctx, args: dict) -> Any:
    base = str(args.get("base") or "USD").upper()
    b = _usd_per(ctx, base)
    return {"base": base, "rates": {r["currency"]: round(b / r["usd_per_unit"], 6) for r in ctx.fx.table("fx")}}


@handler("travel.visa")
def visa_check(ctx: Ctx, args: dict) -> Any:
    for r in ctx.fx.table("visa_rules"):
        if r["passport"].lower() == str(args["passport_country"]).strip().lower() and \
                r["destination"].lower() == str(args["destination_country"]).strip().lower():
            return dict(r)
    raise Failed(f"no visa rule for a {args['passport_country']} passport to {args['destination_country']}")


@handler("travel.time_offset")
def time_offset(ctx: Ctx, args: dict) -> Any:
    c = ctx.fx.need("cities", args["city"], "city")
    return {"city": c["city"], "utc_offset_hours": c["utc_offset"]}


@handler("travel.convert_time")
def convert_time(ctx: Ctx, args: dict) -> Any:
    m = re.fullmatch(r"\s*(\d{1,2}):(\d{2})\s*", str(args["time"]))
    if not m or int(m.group(1)) > 23 or int(m.group(2)) > 59:
        raise BadInput(f"time must be HH:MM (24-hour), got {args['time']!r}")
    a = ctx.fx.need("cities", args["from_city"], "city")
    b = ctx.fx.need("cities", args["to_city"], "city")
    minutes = int(m.group(1)) * 60 + int(m.group(2)) + (b["utc_offset"] - a["utc_offset"]) * 60
    day = "same day" if 0 <= minutes < 1440 else ("next day" if minutes >= 1440 else "previous day")
    minutes %= 1440
    return {"time": f"{minutes // 60:02d}:{minutes % 60:02d}", "day": day, "to_city": b["city"]}


@handler("travel.insurance_quote")
def insurance_quote(ctx: Ctx, args: dict) -> Any:
    plan = ctx.fx.need("insurance_plans", args["plan_id"], "plan")
    days = as_count(args["days"], "days")
    travellers = as_count(args.get("travellers", 1), "travellers")
    return {"plan_id": plan["plan_id"], "plan": plan["name"], "days": days, "travellers": travellers,
            "premium": r2(plan["price_per_day"] * days * travellers)}


@handler("travel.insurance_buy")
def insurance_buy(ctx: Ctx, args: dict) -> Any:
    quote = insurance_quote(ctx, args)
    balance = _charge_wallet(ctx, quote["premium"], f"insurance {quote['plan_id']}")
    pid = ctx.tx.next_id("POL")
    policy = dict(quote, policy_id=pid, status="active")
    ctx.tx.put("policies", pid, policy)
    return dict(policy, wallet_balance=balance)
