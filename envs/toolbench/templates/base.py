"""The task template contract, its registry and the helpers templates share.

Each template is a function ``(rng, fx) -> dict | None`` (None when the sampled
slots do not fit, e.g. no seats; the generator then draws again) returning:

* ``query``, ``group`` (G1 one tool, G2 several tools of one category, G3
  several categories), ``tools`` (tool names whose APIs the query offers),
* ``plan``: calls with ``$k.path`` references (``tools_common.checks``), ending in Finish,
* ``answer``: references or literals whose values the answer must contain,
* ``state``: state checks (references allowed), ``solvable``.

Gold *values* are not written here: ``tasks.build_tasks`` runs each plan
against the service and resolves every reference from the real responses.
The templates themselves are in ``g1.py``, ``g2.py`` and ``g3.py``.
"""
from __future__ import annotations

import random
from typing import Any, Callable

from treegym.envs.tools_common.fixtures import Fixtures

from ..schema import api_function_name, standardize

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


def pick_city(rng: random.Random, fx: Fixtures) -> dict:
    return rng.choice(fx.table("cities"))


def flights_on(fx: Fixtures, o: str, d: str, date: str) -> list:
    return sorted((f for f in fx.table("flights") if f["origin"] == o and f["destination"] == d and f["date"] == date),
                  key=lambda f: (f["price"], f["flight_id"]))


def pick_flight(rng: random.Random, fx: Fixtures, pax: int, budget: float = 2500.0):
    f = rng.choice(fx.table("flights"))
    best = flights_on(fx, f["origin"], f["destination"], f["date"])[0]
    if best["seats"] < pax or best["price"] * pax > budget:
        return None
    return best


def city_of(fx: Fixtures, code: str) -> str:
    return next(c["city"] for c in fx.table("cities") if c["airport"] == code)


def plus_minutes(hhmm: str, minutes: int) -> str:
    t = min(int(hhmm[:2]) * 60 + int(hhmm[3:]) + minutes, 23 * 60 + 59)
    return f"{t // 60:02d}:{t % 60:02d}"
