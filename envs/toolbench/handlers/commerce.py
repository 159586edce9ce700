"""Commerce handlers: stock, cart, coupons, checkout, orders, returns, shipping, wishlist, gift cards.

Every handler is ``handler(ctx, args)`` (see ``base.py``); importing this module registers them.
"""
from __future__ import annotations

from typing import Any, Mapping

from .base import BadInput, Ctx, Failed, as_count, as_positive, handler, need_record, r2, remove_record


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
    qty = as_count(args.get("quantity", 1), "quantity")
    have = ctx.tx.get("cart", rec["sku"], 0)
    if have + qty > _stock(ctx, rec):
        raise Failed(f"only {_stock(ctx, rec)} units of {rec['sku']} in stock")
    ctx.tx.put("cart", rec["sku"], have + qty)
    return cart_view(ctx, {})


@handler("shop.cart_remove")
def cart_remove(ctx: Ctx, args: dict) -> Any:
    sku = str(args["sku"]).strip().upper()
    remove_record(ctx, "cart", sku, f"{sku} is not in the cart")
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
    o = need_record(ctx, "orders", oid, f"order {oid!r} not found")
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
    o = need_record(ctx, "orders", oid, f"order {oid!r} not found")
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
    o = need_record(ctx, "orders", str(args["order_id"]).strip().upper(), f"order {args['order_id']!r} not found")
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
    remove_record(ctx, "wishlist", sku, f"{sku} is not on the wishlist")
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
    amount = as_positive(args["amount"], "amount")
    if amount > bal + 1e-9:
        raise Failed(f"insufficient funds: gift card {card['card']} holds {bal:.2f}")
    ctx.tx.put("gift_balances", card["card"], r2(bal - amount))
    return {"card": card["card"], "redeemed": r2(amount), "balance": r2(bal - amount)}
