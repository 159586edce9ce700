"""The API handlers of the mock services: pure functions of (fixtures, world, arguments).

A handler is registered by name (the ``x-mock.handler`` of a tool file) and
called as ``handler(ctx, args)`` with the validated arguments; it reads
fixtures through ``ctx.fx`` and the mutable world through ``ctx.tx`` (a
copy-on-write :class:`~treegym.envs.toolbench.world.Tx`), and returns the JSON
payload of a successful call. Failures a real service would report (sold out,
insufficient funds, unknown id) raise :class:`Failed`; the caller turns it into
``{"status": "failed", "reason": ...}`` (status code 0, a legitimate
observation). A value of the wrong form raises :class:`BadInput` (the caller
answers like ToolBench's service does for a failing function, code 2).

Generic handlers cover the read-only APIs declaratively (``generic.get``,
``generic.search``, ``generic.list``); the rest are written out below.
Dispatch is a dictionary lookup: nothing is ever ``eval``-ed.
"""
from __future__ import annotations

import math
import re
from typing import Any, Callable, Mapping

from .world import Tx


class Failed(Exception):
    """A business failure: the service answered, the request could not be honoured."""


class BadInput(Exception):
    """An argument has the wrong form (not a date, not a positive number, unknown enum value)."""


class Fixtures:
    """Read-only tables with a per-table index by primary key (shared by every episode)."""

    KEYS = {"cities": "city", "fx": "currency", "flights": "flight_id", "hotels": "hotel_id", "cars": "car_id",
            "trains": "train_id", "insurance_plans": "plan_id", "attractions": "attraction_id", "products": "sku",
            "reviews": "review_id", "coupons": "code", "stores": "store_id", "shipping_zones": "country",
            "gift_cards": "card", "stocks": "symbol", "coins": "symbol", "contacts": "contact_id", "rooms": "room_id",
            "files": "file_id", "dictionary": "word", "definitions": "word", "people": "person_id",
            "movies": "movie_id", "albums": "album_id", "tracks": "track_id", "books": "isbn",
            "news": "article_id", "recipes": "recipe_id", "matches": "match_id", "teams": "team"}

    def __init__(self, data: Mapping[str, Any]):
        self.data = data
        self.index: dict[str, dict[str, Mapping[str, Any]]] = {}
        for table, key in self.KEYS.items():
            self.index[table] = {str(r[key]).lower(): r for r in data.get(table, [])}
        self._value_index: dict[tuple[str, str], dict[str, list]] = {}

    def table(self, name: str) -> list[Mapping[str, Any]]:
        return self.data[name]

    def by_value(self, table: str, field: str, value: Any) -> list[Mapping[str, Any]]:
        """Records whose ``field`` equals ``value`` case-insensitively (an index built on first use)."""
        key = (table, field)
        index = self._value_index.get(key)
        if index is None:  # built completely before it is published: server threads share fixtures
            index = {}
            for r in self.data[table]:
                index.setdefault(str(r[field]).strip().lower(), []).append(r)
            self._value_index[key] = index
        return index.get(str(value).strip().lower(), [])

    def get(self, table: str, key: Any) -> Mapping[str, Any] | None:
        return self.index[table].get(str(key).strip().lower())

    def need(self, table: str, key: Any, what: str) -> Mapping[str, Any]:
        rec = self.get(table, key)
        if rec is None:
            raise Failed(f"{what} {key!r} not found")
        return rec


class Ctx:
    """What a handler sees: fixtures, the world transaction and its API's mock spec."""

    def __init__(self, fx: Fixtures, tx: Tx, mock: Mapping[str, Any]):
        self.fx, self.tx, self.mock = fx, tx, mock


Handler = Callable[[Ctx, dict], Any]
HANDLERS: dict[str, Handler] = {}


def handler(name: str) -> Callable[[Handler], Handler]:
    def deco(fn: Handler) -> Handler:
        HANDLERS[name] = fn
        return fn
    return deco


def r2(x: float) -> float:
    return round(float(x) + 1e-9, 2) + 0.0


def _date(value: Any, what: str = "date") -> str:
    s = str(value).strip()
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", s):
        raise BadInput(f"{what} must be a date as YYYY-MM-DD, got {value!r}")
    return s


def _positive(value: Any, what: str) -> float:
    if value is None or float(value) <= 0:
        raise BadInput(f"{what} must be a positive number, got {value!r}")
    return float(value)


def _count(value: Any, what: str) -> int:
    v = _positive(value, what)
    if v != int(v):
        raise BadInput(f"{what} must be a whole number, got {value!r}")
    return int(v)


def _live(ctx: Ctx, rec: Mapping[str, Any]) -> dict[str, Any]:
    """A fixture record with its live fields (``x-mock.live``: field -> world collection) filled in."""
    out = dict(rec)
    key_field = Fixtures.KEYS.get(ctx.mock.get("table", ""), "")
    for field, coll in (ctx.mock.get("live") or {}).items():
        out[field] = ctx.tx.get(coll, str(rec[key_field]), rec.get(field))
    return out


def _view(ctx: Ctx, rec: Mapping[str, Any]) -> dict[str, Any]:
    out = _live(ctx, rec)
    fields = ctx.mock.get("fields")
    return {k: out[k] for k in fields if k in out} if fields else out


_OPS = {
    "eq": lambda v, a: str(v) == str(a),
    "ieq": lambda v, a: str(v).strip().lower() == str(a).strip().lower(),
    "contains": lambda v, a: str(a).strip().lower() in str(v).lower(),
    "gte": lambda v, a: float(v) >= float(a),
    "lte": lambda v, a: float(v) <= float(a),
}


@handler("generic.get")
def generic_get(ctx: Ctx, args: dict) -> Any:
    table, param = ctx.mock["table"], ctx.mock["param"]
    rec = ctx.fx.need(table, args[param], ctx.mock.get("what", param.replace("_", " ")))
    return _view(ctx, rec)


@handler("generic.search")
def generic_search(ctx: Ctx, args: dict) -> Any:
    live = ctx.mock.get("live") or {}
    tests = [(field, _OPS[op], args[param]) for param, (field, op) in ctx.mock.get("match", {}).items()
             if args.get(param) is not None and args.get(param) != ""]
    static = [t for t in tests if t[0] not in live]
    dynamic = [t for t in tests if t[0] in live]
    rows = []
    candidates = ctx.fx.table(ctx.mock["table"])
    for i, (field, op, want) in enumerate(static):
        if op in (_OPS["ieq"], _OPS["eq"]):  # narrow by the index, then test the rest
            candidates = ctx.fx.by_value(ctx.mock["table"], field, want)
            break
    for rec in candidates:
        if all(op(rec[field], want) for field, op, want in static):
            rec = _live(ctx, rec) if live else rec
            if all(op(rec[field], want) for field, op, want in dynamic):
                rows.append(rec)
    sort = ctx.mock.get("sort")
    if sort:
        desc = sort.startswith("-")
        field = sort.lstrip("-")
        key_field = Fixtures.KEYS.get(ctx.mock["table"], field)
        rows.sort(key=lambda r: (-r[field] if desc else r[field], str(r.get(key_field, ""))))
    limit = int(args.get("limit") or ctx.mock.get("limit", 5))
    limit = max(1, min(limit, 50))
    fields = ctx.mock.get("fields")
    items = [{k: r[k] for k in fields if k in r} if fields else r for r in rows[:limit]]
    return {"count": len(rows), "results": items}


@handler("generic.list")
def generic_list(ctx: Ctx, args: dict) -> Any:
    fields = ctx.mock.get("fields")
    rows = ctx.fx.table(ctx.mock["table"])
    return {"count": len(rows), "results": [{k: r[k] for k in fields} if fields else dict(r) for r in rows[:50]]}


@handler("world.list")
def world_list(ctx: Ctx, args: dict) -> Any:
    items = [v for _, v in ctx.tx.items(ctx.mock["collection"])]
    return {"count": len(items), "results": items}


@handler("world.get")
def world_get(ctx: Ctx, args: dict) -> Any:
    key = str(args[ctx.mock["param"]]).strip()
    value = ctx.tx.get(ctx.mock["collection"], key)
    if value is None:
        raise Failed(f"{ctx.mock.get('what', 'record')} {key!r} not found")
    return value


# ---------------------------------------------------------------- travel
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
    n = _count(args.get("passengers", 1), "passengers")
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
    b = ctx.tx.get("flight_bookings", bid)
    if b is None:
        raise Failed(f"booking {bid!r} not found")
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
    nights = _count(args.get("nights"), "nights")
    check_in = _date(args.get("check_in"), "check_in")
    rec = _book_inventory(ctx, "hotels", args["hotel_id"], "rooms", "hotel_rooms", 1, "hotel")
    total = r2(rec["price_per_night"] * nights)
    balance = _charge_wallet(ctx, total, f"hotel {rec['hotel_id']}")
    rid = ctx.tx.next_id("HB")
    res = {"reservation_id": rid, "hotel_id": rec["hotel_id"], "hotel": rec["name"], "check_in": check_in,
           "nights": nights, "total_price": total, "status": "confirmed"}
    ctx.tx.put("hotel_bookings", rid, res)
    return dict(res, wallet_balance=balance)


@handler("travel.cancel_hotel")
def cancel_hotel(ctx: Ctx, args: dict) -> Any:
    rid = str(args["reservation_id"]).strip().upper()
    b = ctx.tx.get("hotel_bookings", rid)
    if b is None or b["status"] == "cancelled":
        raise Failed(f"no active reservation {rid!r}")
    b["status"] = "cancelled"
    ctx.tx.put("hotel_bookings", rid, b)
    rec = ctx.fx.get("hotels", b["hotel_id"])
    ctx.tx.put("hotel_rooms", b["hotel_id"], ctx.tx.get("hotel_rooms", b["hotel_id"], rec["rooms"]) + 1)
    _refund_wallet(ctx, b["total_price"], f"refund {rid}")
    return {"reservation_id": rid, "status": "cancelled", "refunded": b["total_price"]}


@handler("travel.rent_car")
def rent_car(ctx: Ctx, args: dict) -> Any:
    days = _count(args.get("days"), "days")
    rec = _book_inventory(ctx, "cars", args["car_id"], "available", "car_available", 1, "car")
    total = r2(rec["price_per_day"] * days)
    balance = _charge_wallet(ctx, total, f"car {rec['car_id']}")
    rid = ctx.tx.next_id("CRB")
    res = {"rental_id": rid, "car_id": rec["car_id"], "model": rec["model"], "pickup_date": _date(args.get("pickup_date"), "pickup_date"),
           "days": days, "total_price": total, "status": "confirmed"}
    ctx.tx.put("car_rentals", rid, res)
    return dict(res, wallet_balance=balance)


@handler("travel.cancel_car")
def cancel_car(ctx: Ctx, args: dict) -> Any:
    rid = str(args["rental_id"]).strip().upper()
    b = ctx.tx.get("car_rentals", rid)
    if b is None or b["status"] == "cancelled":
        raise Failed(f"no active rental {rid!r}")
    b["status"] = "cancelled"
    ctx.tx.put("car_rentals", rid, b)
    rec = ctx.fx.get("cars", b["car_id"])
    ctx.tx.put("car_available", b["car_id"], ctx.tx.get("car_available", b["car_id"], rec["available"]) + 1)
    _refund_wallet(ctx, b["total_price"], f"refund {rid}")
    return {"rental_id": rid, "status": "cancelled", "refunded": b["total_price"]}


@handler("travel.book_train")
def book_train(ctx: Ctx, args: dict) -> Any:
    n = _count(args.get("passengers", 1), "passengers")
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
    amount = _positive(args.get("amount"), "amount")
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
    days = _count(args["days"], "days")
    travellers = _count(args.get("travellers", 1), "travellers")
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


# ---------------------------------------------------------------- commerce
def _stock(ctx: Ctx, rec: Mapping) -> int:
    return ctx.tx.get("stock", rec["sku"], rec["stock"])


@handler("shop.stock")
def shop_stock(ctx: Ctx, args: dict) -> Any:
    rec = ctx.fx.need("products", args["sku"], "product")
    left = _stock(ctx, rec)
    return {"sku": rec["sku"], "in_stock": left > 0, "units": left}


@handler("shop.cart_add")
def cart_add(ctx: Ctx, args: dict) -> Any:
    rec = ctx.fx.need("products", args["sku"], "product")
    qty = _count(args.get("quantity", 1), "quantity")
    have = ctx.tx.get("cart", rec["sku"], 0)
    if have + qty > _stock(ctx, rec):
        raise Failed(f"only {_stock(ctx, rec)} units of {rec['sku']} in stock")
    ctx.tx.put("cart", rec["sku"], have + qty)
    return cart_view(ctx, {})


@handler("shop.cart_remove")
def cart_remove(ctx: Ctx, args: dict) -> Any:
    sku = str(args["sku"]).strip().upper()
    if not ctx.tx.has("cart", sku):
        raise Failed(f"{sku} is not in the cart")
    ctx.tx.delete("cart", sku)
    return cart_view(ctx, {})


@handler("shop.cart_view")
def cart_view(ctx: Ctx, args: dict) -> Any:
    lines, total = [], 0.0
    for sku, qty in ctx.tx.items("cart"):
        p = ctx.fx.get("products", sku)
        lines.append({"sku": sku, "name": p["name"], "quantity": qty, "unit_price": p["price"], "line_total": r2(p["price"] * qty)})
        total += p["price"] * qty
    return {"items": lines, "subtotal": r2(total)}


@handler("shop.cart_clear")
def cart_clear(ctx: Ctx, args: dict) -> Any:
    for sku, _ in list(ctx.tx.items("cart")):
        ctx.tx.delete("cart", sku)
    return {"items": [], "subtotal": 0.0}


def _coupon(ctx: Ctx, code: str, lines: list[dict]) -> tuple[dict, float]:
    c = ctx.fx.get("coupons", code)
    if c is None:
        raise Failed(f"coupon {code!r} does not exist")
    if c.get("expired"):
        raise Failed(f"coupon {c['code']} has expired")
    if ctx.tx.has("coupons_used", c["code"]):
        raise Failed(f"coupon {c['code']} was already used")
    eligible = sum(l["line_total"] for l in lines
                   if not c["category"] or ctx.fx.get("products", l["sku"])["category"] == c["category"])
    if sum(l["line_total"] for l in lines) < c["min_total"] or eligible <= 0:
        raise Failed(f"coupon {c['code']} needs a subtotal of at least {c['min_total']:.2f}"
                     + (f" in {c['category']}" if c["category"] else ""))
    return c, r2(eligible * c["percent_off"] / 100)


@handler("shop.coupon_validate")
def coupon_validate(ctx: Ctx, args: dict) -> Any:
    lines = cart_view(ctx, {})["items"]
    c, discount = _coupon(ctx, str(args["code"]).strip().upper(), lines)
    return {"code": c["code"], "valid": True, "discount": discount}


@handler("shop.checkout")
def checkout(ctx: Ctx, args: dict) -> Any:
    cart = cart_view(ctx, {})
    if not cart["items"]:
        raise Failed("the cart is empty")
    discount, code = 0.0, str(args.get("coupon_code") or "").strip().upper()
    if code:
        _, discount = _coupon(ctx, code, cart["items"])
        ctx.tx.put("coupons_used", code, True)
    for line in cart["items"]:
        rec = ctx.fx.get("products", line["sku"])
        left = _stock(ctx, rec)
        if line["quantity"] > left:
            raise Failed(f"only {left} units of {rec['sku']} in stock")
        ctx.tx.put("stock", rec["sku"], left - line["quantity"])
    country = str(args.get("ship_to_country") or "United States")
    ship = shipping_quote(ctx, {"country": country, "weight_kg": sum(
        ctx.fx.get("products", l["sku"])["weight_kg"] * l["quantity"] for l in cart["items"])})["cost"]
    oid = ctx.tx.next_id("OR")
    order = {"order_id": oid, "items": cart["items"], "subtotal": cart["subtotal"], "discount": discount,
             "shipping": ship, "total": r2(cart["subtotal"] - discount + ship), "status": "placed",
             "ship_to_country": country, "coupon": code}
    ctx.tx.put("orders", oid, order)
    cart_clear(ctx, {})
    return order


@handler("shop.order_cancel")
def order_cancel(ctx: Ctx, args: dict) -> Any:
    oid = str(args["order_id"]).strip().upper()
    o = ctx.tx.get("orders", oid)
    if o is None:
        raise Failed(f"order {oid!r} not found")
    if o["status"] != "placed":
        raise Failed(f"order {oid} is {o['status']} and cannot be cancelled")
    o["status"] = "cancelled"
    for line in o["items"]:
        rec = ctx.fx.get("products", line["sku"])
        ctx.tx.put("stock", rec["sku"], _stock(ctx, rec) + line["quantity"])
    ctx.tx.put("orders", oid, o)
    return {"order_id": oid, "status": "cancelled", "refunded": o["total"]}


@handler("shop.return_create")
def return_create(ctx: Ctx, args: dict) -> Any:
    oid = str(args["order_id"]).strip().upper()
    o = ctx.tx.get("orders", oid)
    if o is None:
        raise Failed(f"order {oid!r} not found")
    sku = str(args["sku"]).strip().upper()
    line = next((l for l in o["items"] if l["sku"] == sku), None)
    if line is None:
        raise Failed(f"order {oid} has no item {sku}")
    rid = ctx.tx.next_id("RT")
    ret = {"return_id": rid, "order_id": oid, "sku": sku, "refund": line["line_total"], "status": "requested",
           "reason": str(args.get("reason") or "")}
    ctx.tx.put("returns", rid, ret)
    return ret


@handler("shop.shipping_quote")
def shipping_quote(ctx: Ctx, args: dict) -> Any:
    zone = ctx.fx.need("shipping_zones", args["country"], "shipping zone")
    w = float(args["weight_kg"])
    if w < 0:
        raise BadInput(f"weight_kg must not be negative, got {w}")
    return {"country": zone["country"], "weight_kg": round(w, 2), "cost": r2(zone["base"] + zone["per_kg"] * w)}


@handler("shop.track")
def track(ctx: Ctx, args: dict) -> Any:
    o = ctx.tx.get("orders", str(args["order_id"]).strip().upper())
    if o is None:
        raise Failed(f"order {args['order_id']!r} not found")
    return {"order_id": o["order_id"], "status": o["status"],
            "carrier": "ParcelNet" if o["status"] == "placed" else None}


@handler("shop.wishlist_add")
def wishlist_add(ctx: Ctx, args: dict) -> Any:
    rec = ctx.fx.need("products", args["sku"], "product")
    ctx.tx.put("wishlist", rec["sku"], {"sku": rec["sku"], "name": rec["name"], "price": rec["price"]})
    return {"wishlist": [v for _, v in ctx.tx.items("wishlist")]}


@handler("shop.wishlist_remove")
def wishlist_remove(ctx: Ctx, args: dict) -> Any:
    sku = str(args["sku"]).strip().upper()
    if not ctx.tx.has("wishlist", sku):
        raise Failed(f"{sku} is not on the wishlist")
    ctx.tx.delete("wishlist", sku)
    return {"wishlist": [v for _, v in ctx.tx.items("wishlist")]}


@handler("shop.price_history")
def price_history(ctx: Ctx, args: dict) -> Any:
    rec = ctx.fx.need("products", args["sku"], "product")
    hist = rec["price_history"]
    return {"sku": rec["sku"], "prices": hist, "lowest": min(hist), "highest": max(hist), "current": rec["price"]}


@handler("shop.review_summary")
def review_summary(ctx: Ctx, args: dict) -> Any:
    rec = ctx.fx.need("products", args["sku"], "product")
    stars = [r["stars"] for r in ctx.fx.table("reviews") if r["sku"] == rec["sku"]]
    return {"sku": rec["sku"], "reviews": len(stars), "average_stars": r2(sum(stars) / len(stars)) if stars else None}


@handler("shop.gift_check")
def gift_check(ctx: Ctx, args: dict) -> Any:
    card = ctx.fx.need("gift_cards", args["card_number"], "gift card")
    return {"card": card["card"], "balance": ctx.tx.get("gift_balances", card["card"], card["value"])}


@handler("shop.gift_redeem")
def gift_redeem(ctx: Ctx, args: dict) -> Any:
    card = ctx.fx.need("gift_cards", args["card_number"], "gift card")
    bal = ctx.tx.get("gift_balances", card["card"], card["value"])
    amount = _positive(args["amount"], "amount")
    if amount > bal + 1e-9:
        raise Failed(f"insufficient funds: gift card {card['card']} holds {bal:.2f}")
    ctx.tx.put("gift_balances", card["card"], r2(bal - amount))
    return {"card": card["card"], "redeemed": r2(amount), "balance": r2(bal - amount)}


# ---------------------------------------------------------------- finance
@handler("fin.price_change")
def price_change(ctx: Ctx, args: dict) -> Any:
    s = ctx.fx.need("stocks", args["symbol"], "symbol")
    first, last = s["history"][0]["close"], s["history"][-1]["close"]
    return {"symbol": s["symbol"], "from": s["history"][0]["date"], "to": s["history"][-1]["date"],
            "change": r2(last - first), "change_percent": r2((last - first) / first * 100)}


@handler("fin.portfolio")
def portfolio(ctx: Ctx, args: dict) -> Any:
    holdings = ctx.tx.get("portfolio", "holdings", {})
    rows = [{"symbol": s, "shares": n, "price": ctx.fx.get("stocks", s)["price"],
             "value": r2(n * ctx.fx.get("stocks", s)["price"])} for s, n in sorted(holdings.items()) if n]
    return {"cash": ctx.tx.get("portfolio", "cash", 0.0), "holdings": rows}


@handler("fin.buy")
def buy_stock(ctx: Ctx, args: dict) -> Any:
    s = ctx.fx.need("stocks", args["symbol"], "symbol")
    n = _count(args["shares"], "shares")
    cost = r2(s["price"] * n)
    cash = ctx.tx.get("portfolio", "cash", 0.0)
    if cost > cash + 1e-9:
        raise Failed(f"insufficient funds: {n} x {s['symbol']} costs {cost:.2f}, cash is {cash:.2f}")
    holdings = ctx.tx.get("portfolio", "holdings", {})
    holdings[s["symbol"]] = holdings.get(s["symbol"], 0) + n
    ctx.tx.put("portfolio", "holdings", holdings)
    ctx.tx.put("portfolio", "cash", r2(cash - cost))
    tid = ctx.tx.next_id("TRD")
    trade = {"trade_id": tid, "side": "buy", "symbol": s["symbol"], "shares": n, "price": s["price"], "amount": cost}
    ctx.tx.put("trades", tid, trade)
    return dict(trade, cash=r2(cash - cost))


@handler("fin.sell")
def sell_stock(ctx: Ctx, args: dict) -> Any:
    s = ctx.fx.need("stocks", args["symbol"], "symbol")
    n = _count(args["shares"], "shares")
    holdings = ctx.tx.get("portfolio", "holdings", {})
    if holdings.get(s["symbol"], 0) < n:
        raise Failed(f"you hold {holdings.get(s['symbol'], 0)} shares of {s['symbol']}, cannot sell {n}")
    holdings[s["symbol"]] -= n
    cash = r2(ctx.tx.get("portfolio", "cash", 0.0) + s["price"] * n)
    ctx.tx.put("portfolio", "holdings", holdings)
    ctx.tx.put("portfolio", "cash", cash)
    tid = ctx.tx.next_id("TRD")
    trade = {"trade_id": tid, "side": "sell", "symbol": s["symbol"], "shares": n, "price": s["price"], "amount": r2(s["price"] * n)}
    ctx.tx.put("trades", tid, trade)
    return dict(trade, cash=cash)


@handler("fin.loan_payment")
def loan_payment(ctx: Ctx, args: dict) -> Any:
    p = _positive(args["principal"], "principal")
    months = _count(args["months"], "months")
    rate = float(args["annual_rate_percent"]) / 1200
    pay = p / months if rate == 0 else p * rate / (1 - (1 + rate) ** -months)
    return {"monthly_payment": r2(pay), "total_paid": r2(pay * months), "total_interest": r2(pay * months - p)}


@handler("fin.compound")
def compound(ctx: Ctx, args: dict) -> Any:
    p = _positive(args["principal"], "principal")
    years = float(args["years"])
    rate = float(args["annual_rate_percent"]) / 100
    n = int(args.get("compounds_per_year") or 12)
    fv = p * (1 + rate / n) ** (n * years)
    return {"future_value": r2(fv), "interest": r2(fv - p)}


@handler("fin.tax")
def income_tax(ctx: Ctx, args: dict) -> Any:
    income = float(args["income"])
    if income < 0:
        raise BadInput("income must not be negative")
    tax, lower = 0.0, 0.0
    for b in ctx.fx.table("tax_brackets"):
        upper = b["up_to"] if b["up_to"] is not None else math.inf
        if income > lower:
            tax += (min(income, upper) - lower) * b["rate"]
        lower = upper
    return {"income": r2(income), "tax": r2(tax), "effective_rate_percent": r2(tax / income * 100) if income else 0.0}


@handler("fin.accounts")
def accounts(ctx: Ctx, args: dict) -> Any:
    return {"accounts": [v for _, v in ctx.tx.items("accounts")]}


@handler("fin.account_balance")
def account_balance(ctx: Ctx, args: dict) -> Any:
    acc = ctx.tx.get("accounts", str(args["account_id"]).strip().upper())
    if acc is None:
        raise Failed(f"account {args['account_id']!r} not found")
    return acc


@handler("fin.transfer")
def transfer(ctx: Ctx, args: dict) -> Any:
    a_id, b_id = str(args["from_account"]).strip().upper(), str(args["to_account"]).strip().upper()
    amount = _positive(args["amount"], "amount")
    a, b = ctx.tx.get("accounts", a_id), ctx.tx.get("accounts", b_id)
    if a is None or b is None:
        raise Failed(f"account {a_id if a is None else b_id!r} not found")
    if a_id == b_id:
        raise Failed("from_account and to_account are the same")
    if amount > a["balance"] + 1e-9:
        raise Failed(f"insufficient funds: {a_id} holds {a['balance']:.2f}")
    a["balance"], b["balance"] = r2(a["balance"] - amount), r2(b["balance"] + amount)
    ctx.tx.put("accounts", a_id, a)
    ctx.tx.put("accounts", b_id, b)
    tid = ctx.tx.next_id("TX")
    t = {"transfer_id": tid, "from_account": a_id, "to_account": b_id, "amount": r2(amount), "memo": str(args.get("memo") or "")}
    ctx.tx.put("transfers", tid, t)
    return dict(t, from_balance=a["balance"], to_balance=b["balance"])


@handler("fin.trading_day")
def trading_day(ctx: Ctx, args: dict) -> Any:
    import datetime as _dt
    d = _dt.date.fromisoformat(_date(args["date"]))
    ok = d.weekday() < 5 and d.isoformat() not in ctx.fx.data["market_holidays"]
    return {"date": d.isoformat(), "is_trading_day": ok}


@handler("fin.next_trading_day")
def next_trading_day(ctx: Ctx, args: dict) -> Any:
    import datetime as _dt
    d = _dt.date.fromisoformat(_date(args["date"]))
    for _ in range(10):
        d += _dt.timedelta(days=1)
        if d.weekday() < 5 and d.isoformat() not in ctx.fx.data["market_holidays"]:
            return {"next_trading_day": d.isoformat()}
    raise Failed("no trading day within 10 days")


# ---------------------------------------------------------------- productivity
def _time(value: Any, what: str) -> str:
    m = re.fullmatch(r"\s*(\d{1,2}):(\d{2})\s*", str(value))
    if not m or int(m.group(1)) > 23 or int(m.group(2)) > 59:
        raise BadInput(f"{what} must be HH:MM (24-hour), got {value!r}")
    return f"{int(m.group(1)):02d}:{m.group(2)}"


@handler("prod.events")
def list_events(ctx: Ctx, args: dict) -> Any:
    date = args.get("date")
    rows = [v for _, v in ctx.tx.items("events") if not date or v["date"] == str(date).strip()]
    rows.sort(key=lambda e: (e["date"], e["start"], e["event_id"]))
    return {"events": rows}


@handler("prod.create_event")
def create_event(ctx: Ctx, args: dict) -> Any:
    date, start, end = _date(args["date"]), _time(args["start"], "start"), _time(args["end"], "end")
    if end <= start:
        raise BadInput(f"end ({end}) must be after start ({start})")
    for _, e in ctx.tx.items("events"):
        if e["date"] == date and start < e["end"] and e["start"] < end:
            raise Failed(f"conflicts with {e['event_id']} '{e['title']}' {e['start']}-{e['end']}")
    attendees = [a.strip() for a in str(args.get("attendees") or "").split(",") if a.strip()]
    eid = ctx.tx.next_id("EV")
    ev = {"event_id": eid, "title": str(args["title"]).strip(), "date": date, "start": start, "end": end,
          "attendees": attendees}
    ctx.tx.put("events", eid, ev)
    return ev


@handler("prod.delete_event")
def delete_event(ctx: Ctx, args: dict) -> Any:
    eid = str(args["event_id"]).strip().upper()
    if not ctx.tx.has("events", eid):
        raise Failed(f"event {eid!r} not found")
    ctx.tx.delete("events", eid)
    return {"event_id": eid, "deleted": True}


@handler("prod.free_slot")
def free_slot(ctx: Ctx, args: dict) -> Any:
    date = _date(args["date"])
    minutes = _count(args.get("duration_minutes", 60), "duration_minutes")
    busy = sorted((e["start"], e["end"]) for _, e in ctx.tx.items("events") if e["date"] == date)
    t = 9 * 60
    for s, e in busy + [("18:00", "18:00")]:
        sm = int(s[:2]) * 60 + int(s[3:])
        if sm - t >= minutes:
            return {"date": date, "start": f"{t // 60:02d}:{t % 60:02d}",
                    "end": f"{(t + minutes) // 60:02d}:{(t + minutes) % 60:02d}"}
        t = max(t, int(e[:2]) * 60 + int(e[3:]))
    raise Failed(f"no free {minutes}-minute slot between 09:00 and 18:00 on {date}")


@handler("prod.inbox")
def inbox(ctx: Ctx, args: dict) -> Any:
    return {"emails": [{k: v[k] for k in ("email_id", "from", "subject", "date")} for _, v in ctx.tx.items("inbox")]}


@handler("prod.search_email")
def search_email(ctx: Ctx, args: dict) -> Any:
    q = str(args["query"]).strip().lower()
    hits = [v for _, v in ctx.tx.items("inbox") if q in (v["subject"] + " " + v["body"] + " " + v["from"]).lower()]
    return {"count": len(hits), "emails": hits}


@handler("prod.send_email")
def send_email(ctx: Ctx, args: dict) -> Any:
    to = str(args["to"]).strip().lower()
    if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[a-z]+", to):
        raise BadInput(f"to must be an email address, got {args['to']!r}")
    mid = ctx.tx.next_id("SE")
    mail = {"message_id": mid, "to": to, "subject": str(args["subject"]).strip(), "body": str(args["body"]).strip()}
    ctx.tx.put("outbox", mid, mail)
    return {"message_id": mid, "status": "sent"}


@handler("prod.add_todo")
def add_todo(ctx: Ctx, args: dict) -> Any:
    tid = ctx.tx.next_id("TD")
    due = _date(args["due"], "due") if args.get("due") else ""
    todo = {"todo_id": tid, "title": str(args["title"]).strip(), "due": due, "done": False}
    ctx.tx.put("todos", tid, todo)
    return todo


@handler("prod.complete_todo")
def complete_todo(ctx: Ctx, args: dict) -> Any:
    tid = str(args["todo_id"]).strip().upper()
    t = ctx.tx.get("todos", tid)
    if t is None:
        raise Failed(f"todo {tid!r} not found")
    t["done"] = True
    ctx.tx.put("todos", tid, t)
    return t


@handler("prod.create_note")
def create_note(ctx: Ctx, args: dict) -> Any:
    nid = ctx.tx.next_id("NT")
    note = {"note_id": nid, "title": str(args["title"]).strip(), "text": str(args["text"]).strip()}
    ctx.tx.put("notes", nid, note)
    return note


@handler("prod.search_notes")
def search_notes(ctx: Ctx, args: dict) -> Any:
    q = str(args["query"]).strip().lower()
    return {"notes": [v for _, v in ctx.tx.items("notes") if q in (v["title"] + " " + v["text"]).lower()]}


@handler("prod.book_room")
def book_room(ctx: Ctx, args: dict) -> Any:
    room = ctx.fx.need("rooms", args["room_id"], "room")
    date, start, end = _date(args["date"]), _time(args["start"], "start"), _time(args["end"], "end")
    if end <= start:
        raise BadInput(f"end ({end}) must be after start ({start})")
    for _, b in ctx.tx.items("room_bookings"):
        if b["room_id"] == room["room_id"] and b["date"] == date and start < b["end"] and b["start"] < end:
            raise Failed(f"room {room['room_id']} is taken {b['start']}-{b['end']} on {date}")
    bid = ctx.tx.next_id("RB")
    b = {"booking_id": bid, "room_id": room["room_id"], "room": room["name"], "date": date, "start": start, "end": end}
    ctx.tx.put("room_bookings", bid, b)
    return b


@handler("prod.cancel_room")
def cancel_room(ctx: Ctx, args: dict) -> Any:
    bid = str(args["booking_id"]).strip().upper()
    if not ctx.tx.has("room_bookings", bid):
        raise Failed(f"room booking {bid!r} not found")
    ctx.tx.delete("room_bookings", bid)
    return {"booking_id": bid, "cancelled": True}


@handler("prod.set_reminder")
def set_reminder(ctx: Ctx, args: dict) -> Any:
    rid = ctx.tx.next_id("RM")
    r = {"reminder_id": rid, "text": str(args["text"]).strip(), "date": _date(args["date"]), "time": _time(args["time"], "time")}
    ctx.tx.put("reminders", rid, r)
    return r


@handler("prod.send_sms")
def send_sms(ctx: Ctx, args: dict) -> Any:
    phone = str(args["phone"]).strip()
    if not re.fullmatch(r"\+?[\d\- ]{7,}", phone):
        raise BadInput(f"phone must be a phone number, got {phone!r}")
    sid = ctx.tx.next_id("SMS")
    ctx.tx.put("sms", sid, {"sms_id": sid, "phone": phone, "text": str(args["text"]).strip()})
    return {"sms_id": sid, "status": "sent"}


@handler("prod.translate")
def translate(ctx: Ctx, args: dict) -> Any:
    entry = ctx.fx.need("dictionary", args["text"], "phrase")
    lang = str(args["target_language"]).strip().lower()
    if lang not in entry["translations"]:
        raise Failed(f"unsupported target language {lang!r}; use one of fr, de, es, it, ja")
    return {"text": entry["word"], "target_language": lang, "translation": entry["translations"][lang]}


@handler("prod.share_file")
def share_file(ctx: Ctx, args: dict) -> Any:
    f = ctx.fx.need("files", args["file_id"], "file")
    email = str(args["email"]).strip().lower()
    shares = ctx.tx.get("file_shares", f["file_id"], [])
    if email not in shares:
        shares.append(email)
    ctx.tx.put("file_shares", f["file_id"], shares)
    return {"file_id": f["file_id"], "shared_with": shares}


@handler("prod.on_call")
def on_call(ctx: Ctx, args: dict) -> Any:
    team = str(args["team"]).strip().lower()
    members = [c for c in ctx.fx.table("contacts") if c["team"].lower() == team]
    if not members:
        raise Failed(f"team {args['team']!r} not found")
    date = _date(args.get("date") or ctx.fx.data["today"])
    person = members[int(date[-2:]) % len(members)]
    return {"team": person["team"], "date": date, "on_call": person["name"], "phone": person["phone"]}


# ---------------------------------------------------------------- media & info
@handler("media.credits")
def movie_credits(ctx: Ctx, args: dict) -> Any:
    m = ctx.fx.need("movies", args["movie_id"], "movie")
    d = ctx.fx.get("people", m["director_id"])
    cast = [{"person_id": c, "name": ctx.fx.get("people", c)["name"], "order": i} for i, c in enumerate(m["cast_ids"])]
    return {"movie_id": m["movie_id"], "title": m["title"], "director": {"person_id": d["person_id"], "name": d["name"]},
            "cast": cast}


@handler("media.filmography")
def filmography(ctx: Ctx, args: dict) -> Any:
    p = ctx.fx.need("people", args["person_id"], "person")
    rows = [{"movie_id": m["movie_id"], "title": m["title"], "year": m["year"],
             "role": "director" if m["director_id"] == p["person_id"] else "cast"}
            for m in ctx.fx.table("movies") if m["director_id"] == p["person_id"] or p["person_id"] in m["cast_ids"]]
    rows.sort(key=lambda r: (r["year"], r["movie_id"]))
    return {"person_id": p["person_id"], "name": p["name"], "count": len(rows), "movies": rows}


@handler("media.album")
def album(ctx: Ctx, args: dict) -> Any:
    a = ctx.fx.need("albums", args["album_id"], "album")
    return dict(a, tracks=[{"track_id": t["track_id"], "title": t["title"]} for t in ctx.fx.table("tracks")
                           if t["album_id"] == a["album_id"]])


@handler("media.top_tracks")
def top_tracks(ctx: Ctx, args: dict) -> Any:
    name = str(args["artist"]).strip().lower()
    rows = [t for t in ctx.fx.table("tracks") if t["artist"].lower() == name]
    if not rows:
        raise Failed(f"artist {args['artist']!r} not found")
    rows = sorted(rows, key=lambda t: (-t["popularity"], t["track_id"]))[:5]
    return {"artist": rows[0]["artist"], "tracks": [{k: t[k] for k in ("track_id", "title", "popularity")} for t in rows]}


@handler("media.create_playlist")
def create_playlist(ctx: Ctx, args: dict) -> Any:
    name = str(args["name"]).strip()
    if not name:
        raise BadInput("name must not be empty")
    if any(p["name"].lower() == name.lower() for _, p in ctx.tx.items("playlists")):
        raise Failed(f"a playlist named {name!r} already exists")
    pid = ctx.tx.next_id("PL")
    pl = {"playlist_id": pid, "name": name, "tracks": []}
    ctx.tx.put("playlists", pid, pl)
    return pl


def _playlist(ctx: Ctx, pid: Any) -> dict:
    pl = ctx.tx.get("playlists", str(pid).strip().upper())
    if pl is None:
        raise Failed(f"playlist {pid!r} not found")
    return pl


@handler("media.add_track")
def add_track(ctx: Ctx, args: dict) -> Any:
    pl = _playlist(ctx, args["playlist_id"])
    t = ctx.fx.need("tracks", args["track_id"], "track")
    if t["track_id"] in pl["tracks"]:
        raise Failed(f"{t['track_id']} is already in playlist {pl['playlist_id']}")
    pl["tracks"].append(t["track_id"])
    ctx.tx.put("playlists", pl["playlist_id"], pl)
    return pl


@handler("media.remove_track")
def remove_track(ctx: Ctx, args: dict) -> Any:
    pl = _playlist(ctx, args["playlist_id"])
    tid = str(args["track_id"]).strip().upper()
    if tid not in pl["tracks"]:
        raise Failed(f"{tid} is not in playlist {pl['playlist_id']}")
    pl["tracks"].remove(tid)
    ctx.tx.put("playlists", pl["playlist_id"], pl)
    return pl


@handler("media.get_playlist")
def get_playlist(ctx: Ctx, args: dict) -> Any:
    pl = _playlist(ctx, args["playlist_id"])
    return dict(pl, tracks=[{"track_id": t, "title": ctx.fx.get("tracks", t)["title"],
                             "artist": ctx.fx.get("tracks", t)["artist"]} for t in pl["tracks"]])


@handler("media.forecast")
def forecast(ctx: Ctx, args: dict) -> Any:
    city, date = str(args["city"]).strip().lower(), _date(args.get("date") or ctx.fx.data["today"])
    for w in ctx.fx.table("weather"):
        if w["city"].lower() == city and w["date"] == date:
            return dict(w)
    raise Failed(f"no forecast for {args['city']!r} on {date}")


@handler("media.standings")
def standings(ctx: Ctx, args: dict) -> Any:
    table: dict[str, dict[str, int]] = {t["team"]: {"played": 0, "points": 0, "goal_diff": 0} for t in ctx.fx.table("teams")}
    for m in ctx.fx.table("matches"):
        h, a = table[m["home"]], table[m["away"]]
        h["played"] += 1
        a["played"] += 1
        h["goal_diff"] += m["home_goals"] - m["away_goals"]
        a["goal_diff"] += m["away_goals"] - m["home_goals"]
        if m["home_goals"] > m["away_goals"]:
            h["points"] += 3
        elif m["home_goals"] < m["away_goals"]:
            a["points"] += 3
        else:
            h["points"] += 1
            a["points"] += 1
    rows = sorted(({"team": k, **v} for k, v in table.items()), key=lambda r: (-r["points"], -r["goal_diff"], r["team"]))
    return {"standings": [dict(r, position=i + 1) for i, r in enumerate(rows)]}


@handler("media.match_results")
def match_results(ctx: Ctx, args: dict) -> Any:
    team = str(args["team"]).strip().lower()
    rows = [dict(m) for m in ctx.fx.table("matches") if team in (m["home"].lower(), m["away"].lower())]
    if not rows and not any(t["team"].lower() == team for t in ctx.fx.table("teams")):
        raise Failed(f"team {args['team']!r} not found")
    return {"matches": sorted(rows, key=lambda m: (m["date"], m["match_id"]))}


@handler("geo.geocode")
def geocode(ctx: Ctx, args: dict) -> Any:
    c = ctx.fx.need("cities", args["city"], "city")
    return {"city": c["city"], "country": c["country"], "lat": c["lat"], "lon": c["lon"]}


@handler("geo.distance")
def distance(ctx: Ctx, args: dict) -> Any:
    a = ctx.fx.need("cities", args["from_city"], "city")
    b = ctx.fx.need("cities", args["to_city"], "city")
    p1, p2 = math.radians(a["lat"]), math.radians(b["lat"])
    dl = math.radians(b["lon"] - a["lon"])
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    km = 2 * 6371.0 * math.asin(math.sqrt(h))
    return {"from": a["city"], "to": b["city"], "distance_km": round(km, 1)}


@handler("util.convert_units")
def convert_units(ctx: Ctx, args: dict) -> Any:
    f = ctx.fx.data["unit_factors"]
    src, dst = str(args["from_unit"]).strip().lower(), str(args["to_unit"]).strip().lower()
    groups = ({"km", "m", "mi", "ft"}, {"kg", "lb", "g"}, {"l", "gal", "ml"})
    if src not in f or dst not in f or not any(src in g and dst in g for g in groups):
        raise Failed(f"cannot convert {src!r} to {dst!r}")
    value = float(args["value"])
    return {"value": value, "from_unit": src, "to_unit": dst, "result": round(value * f[src] / f[dst], 4)}


@handler("util.statistics")
def statistics_(ctx: Ctx, args: dict) -> Any:
    try:
        nums = [float(x) for x in re.split(r"[,\s]+", str(args["numbers"]).strip()) if x]
    except ValueError:
        raise BadInput(f"numbers must be a comma-separated list of numbers, got {args['numbers']!r}") from None
    if not nums:
        raise BadInput("numbers is empty")
    s = sorted(nums)
    mid = len(s) // 2
    median = s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2
    return {"count": len(s), "sum": round(sum(s), 4), "mean": round(sum(s) / len(s), 4), "median": median,
            "min": s[0], "max": s[-1]}
