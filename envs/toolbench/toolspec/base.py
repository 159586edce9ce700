"""The vocabulary of the declarative tool catalog: parameter types, ``P`` (a parameter), ``A`` (an API), mock specs.

``get`` and ``search`` make the ``x-mock`` block of the generic handlers
(fixture table, key, match rules); other APIs name their handler in ``A``.
"""
from __future__ import annotations

from typing import Any

S, N, B, D, E, TM = "STRING", "NUMBER", "BOOLEAN", "DATE (YYYY-MM-DD)", "ENUM", "TIME (24-hour HH:MM)"


def P(name: str, type_: str, description: str, default: Any = "") -> dict[str, Any]:
    return {"name": name, "type": type_, "description": description, "default": default}


def A(name: str, description: str, req: list | tuple = (), opt: list | tuple = (), method: str = "GET",
      **mock: Any) -> dict[str, Any]:
    return {"name": name, "description": description, "method": method, "required_parameters": list(req),
            "optional_parameters": list(opt), "x-mock": mock}


def get(table: str, param: str, what: str = "", **kw: Any) -> dict[str, Any]:
    return dict(handler="generic.get", table=table, param=param, what=what or param.replace("_", " "), **kw)


def search(table: str, match: dict, sort: str = "", **kw: Any) -> dict[str, Any]:
    return dict(handler="generic.search", table=table, match=match, sort=sort, **kw)


LIMIT = P("limit", N, "Maximum number of results (1-50, default 5)", 5)
CITY = P("city", S, "City name", "Paris")
