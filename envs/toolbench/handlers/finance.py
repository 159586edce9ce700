"""Finance handlers: stock prices and the brokerage portfolio, loans and interest, income tax,
bank accounts and transfers, trading days.

Every handler is ``handler(ctx, args)`` (see ``base.py``); importing this module registers them.
"""
from __future__ import annotations

import math
from typing import Any

from .base import BadInput, Ctx, Failed, as_count, as_date, as_positive, handler, need_record, r2


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
    n = as_count(args["shares"], "shares")
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
    n = as_count(args["shares"], "shares")
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
    p = as_positive(args["principal"], "principal")
    months = as_count(args["months"], "months")
    rate = float(args["annual_rate_percent"]) / 1200
    pay = p / months if rate == 0 else p * rate / (1 - (1 + rate) ** -months)
    return {"monthly_payment": r2(pay), "total_paid": r2(pay * months), "total_interest": r2(pay * months - p)}


@handler("fin.compound")
def compound(ctx: Ctx, args: dict) -> Any:
    p = as_positive(args["principal"], "principal")
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
    key = str(args["account_id"]).strip().upper()
    return need_record(ctx, "accounts", key, f"account {args['account_id']!r} not found")


@handler("fin.transfer")
def transfer(ctx: Ctx, args: dict) -> Any:
    a_id, b_id = str(args["from_account"]).strip().upper(), str(args["to_account"]).strip().upper()
    amount = as_positive(args["amount"], "amount")
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
    d = _dt.date.fromisoformat(as_date(args["date"]))
    ok = d.weekday() < 5 and d.isoformat() not in ctx.fx.data["market_holidays"]
    return {"date": d.isoformat(), "is_trading_day": ok}


@handler("fin.next_trading_day")
def next_trading_day(ctx: Ctx, args: dict) -> Any:
    import datetime as _dt
    d = _dt.date.fromisoformat(as_date(args["date"]))
    for _ in range(10):
        d += _dt.timedelta(days=1)
        if d.weekday() < 5 and d.isoformat() not in ctx.fx.data["market_holidays"]:
            return {"next_trading_day": d.isoformat()}
    raise Failed("no trading day within 10 days")
