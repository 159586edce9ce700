"""What each ToolTasks domain's handlers (``domains.py``) assume of a world, checked on restore.

``world.shape_problem`` checks a restored world against the task's initial one by example; the
handlers also rely on facts an example cannot show: a search form holds scalars and a known booking
type; a sheet's rows are equally wide lists of strings and numbers (``sort_rows`` compares them);
a house's objects and agent are in rooms (strings), and what holds or contains an object names an
object of the house. :func:`world_problem` says which of them a world breaks, or None.
"""
from __future__ import annotations

from typing import Any

from .domains import TRIP_FIELDS

_SCALAR = (str, int, float, bool)


def _is_number_or_text(v: Any) -> bool:
    return isinstance(v, (str, int, float)) and not isinstance(v, bool)


def _names_one_of(value: Any, objects: dict) -> bool:
    """None, or the name (a string) of one of ``objects``."""
    return value is None or (isinstance(value, str) and value in objects)


def _form_problem(world: dict) -> str | None:
    form = world.get("criteria", {}).get("form")
    if form is None and "form" not in world.get("criteria", {}):
        return None
    if not isinstance(form, dict) or not all(isinstance(v, _SCALAR) for v in form.values()):
        return "world.criteria.form must be an object of strings and numbers"
    if "booking_type" in form and form["booking_type"] not in TRIP_FIELDS:
        return f"world.criteria.form.booking_type must be one of {', '.join(TRIP_FIELDS)}"
    return None


def _sheet_problem(world: dict) -> str | None:
    sheet = world.get("sheet", {})
    rows, bold = sheet.get("rows", []), sheet.get("bold", [])
    if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
        return "world.sheet.rows must be a list of rows (lists)"
    if rows and (not rows[0] or any(len(r) != len(rows[0]) for r in rows)):
        return "world.sheet.rows must all have the header's (non-zero) number of cells"
    if not all(_is_number_or_text(c) for r in rows for c in r):
        return "world.sheet.rows cells must be strings or numbers"
    if not isinstance(bold, list) or not all(isinstance(c, str) for c in bold):
        return "world.sheet.bold must be a list of cell names"
    return None


def _house_problem(world: dict) -> str | None:
    objects = world.get("objects", {})
    agent = world.get("agent", {}).get("me", {"room": "livingroom", "holding": None})
    if not isinstance(agent, dict) or not isinstance(agent.get("room"), str) or \
            not _names_one_of(agent.get("holding"), objects):
        return "world.agent.me must have a room (string) and hold nothing or an object of the house"
    for name, obj in objects.items():
        if not isinstance(obj, dict) or not isinstance(obj.get("room"), str):
            return f"world.objects.{name} must be an object with a room (string)"
        if not _names_one_of(obj.get("in"), objects):
            return f"world.objects.{name}.in must be null or an object of the house"
        flags = [k for k in ("grabbable", "container", "open", "on", "held") if k in obj and not isinstance(obj[k], bool)]
        if flags:
            return f"world.objects.{name}.{flags[0]} must be true or false"
    return None


_CHECKS = {"home_search": _form_problem, "trip_booking": _form_problem, "sheets": _sheet_problem,
           "virtual_home": _house_problem}


def world_problem(domain: str, world: dict) -> str | None:
    """Why the handlers of ``domain`` could not act on JSON ``world`` (one line), or None."""
    return _CHECKS[domain](world)
