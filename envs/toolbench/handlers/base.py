"""The handler contract, the registry, argument helpers and the generic handlers of the mock services.

A handler is registered by name (the ``x-mock.handler`` of a tool file) and
called as ``handler(ctx, args)`` with the validated arguments; it reads
fixtures through ``ctx.fx`` and the mutable world through ``ctx.tx`` (a
copy-on-write :class:`~treegym.envs.tools_common.world.Tx`), and returns the JSON
payload of a successful call. Failures a real service would report (sold out,
insufficient funds, unknown id) raise :class:`Failed`; the caller turns it into
``{"status": "failed", "reason": ...}`` (status code 0, a legitimate
observation). A value of the wrong form raises :class:`BadInput` (the caller
answers like ToolBench's service does for a failing function, code 2).

Generic handlers cover the read-only APIs declaratively (``generic.get``,
``generic.search``, ``generic.list``, ``world.list``, ``world.get``; this module);
the rest are written out per category (``travel.py``, ``commerce.py``,
``finance.py``, ``productivity.py``, ``media.py``).
Dispatch is a dictionary lookup: nothing is ever ``eval``-ed.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Mapping

from treegym.envs.tools_common.fixtures import Failed, Fixtures
from treegym.envs.tools_common.world import Tx

__all__ = ["BadInput", "Ctx", "Failed", "Fixtures", "HANDLERS", "Handler", "handler", "r2", "as_date", "as_positive",
           "as_count", "live_record", "need_record", "remove_record", "view_record"]


class BadInput(Exception):
    """An argument has the wrong form (not a date, not a positive number, unknown enum value)."""


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


def as_date(value: Any, what: str = "date") -> str:
    s = str(value).strip()
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", s):
        raise BadInput(f"{what} must be a date as YYYY-MM-DD, got {value!r}")
    return s


def as_positive(value: Any, what: str) -> float:
    if value is None or float(value) <= 0:
        raise BadInput(f"{what} must be a positive number, got {value!r}")
    return float(value)


def as_count(value: Any, what: str) -> int:
    v = as_positive(value, what)
    if v != int(v):
        raise BadInput(f"{what} must be a whole number, got {value!r}")
    return int(v)


def need_record(ctx: Ctx, collection: str, key: str, missing: str) -> Any:
    """A copy of ``key``'s value in a world collection, or :class:`Failed` with ``missing`` when it is not there."""
    value = ctx.tx.get(collection, key)
    if value is None:
        raise Failed(missing)
    return value


def remove_record(ctx: Ctx, collection: str, key: str, missing: str) -> None:
    """Delete ``key`` from a world collection, or :class:`Failed` with ``missing`` when it is not there."""
    if not ctx.tx.has(collection, key):
        raise Failed(missing)
    ctx.tx.delete(collection, key)


def live_record(ctx: Ctx, rec: Mapping[str, Any]) -> dict[str, Any]:
    """A fixture record with its live fields (``x-mock.live``: field -> world collection) filled in."""
    out = dict(rec)
    key_field = Fixtures.KEYS.get(ctx.mock.get("table", ""), "")
    for field, coll in (ctx.mock.get("live") or {}).items():
        out[field] = ctx.tx.get(coll, str(rec[key_field]), rec.get(field))
    return out


def view_record(ctx: Ctx, rec: Mapping[str, Any]) -> dict[str, Any]:
    out = live_record(ctx, rec)
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
    return view_record(ctx, rec)


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
            rec = live_record(ctx, rec) if live else rec
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
    return need_record(ctx, ctx.mock["collection"], key, f"{ctx.mock.get('what', 'record')} {key!r} not found")
