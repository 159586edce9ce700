"""The four ToolChain* task domains as pure functions over an immutable world.

Each domain has a function table (name -> parameters, description) and
``apply(world, name, args) -> (world, message)``; a message starting with
``Error`` means the call was not executable and the world is unchanged.
The world is a :class:`~treegym.envs.tools_common.world.WorldState`:

* ``home_search`` / ``trip_booking``: ``criteria`` (the search form, SambaNova
  ToolBench's mock APIs: the location must be set first, then the deal/booking
  type, then the rest); ``search()`` ends the episode and is judged by
  precision/recall of the form against the gold form (success = F1 of 1).
* ``sheets``: ``sheet`` (rows of a small table, row 1 the header) edited with
  ``update_cell``, ``append_row``, ``delete_row``, ``sort_rows``,
  ``set_bold``; ``done()`` ends; success = the sheet and bold cells equal gold.
* ``virtual_home``: ``objects`` (room, state, location) and ``agent`` (room,
  holding); VirtualHome-style ``walk``, ``grab``, ``put``, ``open``, ``close``,
  ``switch_on``, ``switch_off``; ``done()`` ends; success = every goal
  predicate holds.
"""
from __future__ import annotations

import re
from typing import Any, Callable

from treegym.envs.tools_common.world import Tx, WorldState

Fn = dict[str, Any]


def _f(desc: str, *params: str) -> Fn:
    return {"description": desc, "parameters": list(params)}


HOME = {
    "set_location": _f("Set the city to search in. Call first.", "value"),
    "set_buy_or_rent": _f("'buy' or 'rent'. Call right after set_location.", "value"),
    "set_property_type": _f("'house', 'condo' or 'townhouse'.", "value"),
    "set_min_price": _f("Lowest price in USD.", "value"),
    "set_max_price": _f("Highest price in USD.", "value"),
    "set_num_beds": _f("Number of bedrooms.", "value"),
    "set_num_baths": _f("Number of bathrooms.", "value"),
    "set_min_square_feet": _f("Smallest floor area in square feet.", "value"),
    "set_max_square_feet": _f("Largest floor area in square feet.", "value"),
    "search": _f("Run the search with the criteria set so far (ends the task)."),
}
TRIP = {
    "select_booking_type": _f("'flight', 'hotel' or 'car'. Call first.", "value"),
    "set_location_from": _f("Departure city (flights).", "value"),
    "set_location_to": _f("Destination city (flights).", "value"),
    "set_departure_date": _f("Departure date YYYY-MM-DD (flights).", "value"),
    "set_return_date": _f("Return date YYYY-MM-DD (flights, optional).", "value"),
    "set_hotel_location": _f("City of the hotel.", "value"),
    "set_checkin_date": _f("Hotel check-in date YYYY-MM-DD.", "value"),
    "set_checkout_date": _f("Hotel check-out date YYYY-MM-DD.", "value"),
    "set_num_rooms": _f("Number of hotel rooms.", "value"),
    "set_car_location": _f("City to pick the car up.", "value"),
    "set_pickup_date": _f("Car pickup date YYYY-MM-DD.", "value"),
    "set_dropoff_date": _f("Car drop-off date YYYY-MM-DD.", "value"),
    "set_num_adults": _f("Number of adult travellers.", "value"),
    "set_num_children": _f("Number of children.", "value"),
    "search": _f("Run the search with the criteria set so far (ends the task)."),
}
SHEETS = {
    "get_sheet": _f("Read the whole sheet (row 1 is the header)."),
    "update_cell": _f("Write a value to a cell like 'C4'.", "cell", "value"),
    "append_row": _f("Append a row; values as a list in column order.", "values"),
    "delete_row": _f("Delete a row by its number (2 = first data row).", "row"),
    "sort_rows": _f("Sort the data rows by a column letter; ascending true/false.", "column", "ascending"),
    "set_bold": _f("Make a cell bold.", "cell"),
    "done": _f("Finish editing (ends the task)."),
}
HOUSE = {
    "look": _f("Describe the current room and what is in it."),
    "walk": _f("Walk to a room.", "room"),
    "grab": _f("Pick up an object in this room (one hand).", "obj"),
    "put": _f("Put the held object in/on a target in this room.", "obj", "target"),
    "open": _f("Open an object (fridge, cabinet, ...).", "obj"),
    "close": _f("Close an object.", "obj"),
    "switch_on": _f("Switch an appliance on.", "obj"),
    "switch_off": _f("Switch an appliance off.", "obj"),
    "done": _f("Finish (ends the task)."),
}
FUNCTIONS = {"home_search": HOME, "trip_booking": TRIP, "sheets": SHEETS, "virtual_home": HOUSE}
TERMINAL = {"home_search": "search", "trip_booking": "search", "sheets": "done", "virtual_home": "done"}

CITIES = ["Boston", "Austin", "Denver", "Seattle", "Chicago", "Miami", "Portland", "Atlanta", "Phoenix", "San Diego"]
NUMERIC = {"set_min_price", "set_max_price", "set_num_beds", "set_num_baths", "set_min_square_feet", "set_max_square_feet",
           "set_num_rooms", "set_num_adults", "set_num_children"}
DATES = {"set_departure_date", "set_return_date", "set_checkin_date", "set_checkout_date", "set_pickup_date", "set_dropoff_date"}
TRIP_FIELDS = {"flight": {"set_location_from", "set_location_to", "set_departure_date", "set_return_date", "set_num_adults",
                          "set_num_children"},
               "hotel": {"set_hotel_location", "set_checkin_date", "set_checkout_date", "set_num_rooms", "set_num_adults",
                         "set_num_children"},
               "car": {"set_car_location", "set_pickup_date", "set_dropoff_date"}}


def _form(tx: Tx, name: str, args: dict, domain: str) -> str:
    crit = dict(tx.get("criteria", "form", {}))
    value = args.get("value")
    if value is None or value == "":
        return f"Error: {name}() needs value"
    if name in NUMERIC:
        try:
            num = float(value)
        except (TypeError, ValueError):
            return f"Error: {name}() value must be a number, got {value!r}"
        if num < 0:
            return f"Error: {name}() value must not be negative"
        value = int(num) if num.is_integer() else num
    elif name in DATES:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(value)):
            return f"Error: {name}() value must be a date YYYY-MM-DD, got {value!r}"
    else:
        value = str(value).strip()
    if domain == "home_search":
        if name != "set_location" and "location" not in crit:
            return "Error: call set_location first"
        if name not in ("set_location", "set_buy_or_rent") and "buy_or_rent" not in crit:
            return "Error: call set_buy_or_rent right after set_location"
        if name == "set_buy_or_rent" and str(value).lower() not in ("buy", "rent"):
            return "Error: set_buy_or_rent() value must be 'buy' or 'rent'"
        if name == "set_property_type" and str(value).lower() not in ("house", "condo", "townhouse"):
            return "Error: set_property_type() value must be 'house', 'condo' or 'townhouse'"
        if name == "set_location" and str(value).title() not in CITIES:
            return f"Error: unknown location {value!r}; supported: {', '.join(CITIES)}"
    else:
        if name == "select_booking_type":
            if str(value).lower() not in TRIP_FIELDS:
                return "Error: select_booking_type() value must be 'flight', 'hotel' or 'car'"
        elif "booking_type" not in crit:
            return "Error: call select_booking_type first"
        elif name not in TRIP_FIELDS[crit["booking_type"]]:
            return f"Error: {name} does not apply to a {crit['booking_type']} booking"
        if name in ("set_location_from", "set_location_to", "set_hotel_location", "set_car_location") and \
                str(value).title() not in CITIES:
            return f"Error: unknown location {value!r}; supported: {', '.join(CITIES)}"
    key = name[len("set_"):] if name.startswith("set_") else name[len("select_"):]
    crit[key] = value.lower() if isinstance(value, str) and key in ("buy_or_rent", "property_type", "booking_type") else \
        (value.title() if isinstance(value, str) and "location" in key else value)
    tx.put("criteria", "form", crit)
    return f"OK: {key} = {crit[key]!r}"


_CELL = re.compile(r"^([A-Za-z])(\d+)$")


def _sheets(tx: Tx, name: str, args: dict) -> str:
    rows = [list(r) for r in tx.get("sheet", "rows", [])]
    bold = set(tx.get("sheet", "bold", []))
    width = len(rows[0]) if rows else 0
    if name == "get_sheet":
        return "\n".join(f"{i + 1}: " + " | ".join(str(c) for c in r) for i, r in enumerate(rows))
    if name in ("update_cell", "set_bold"):
        m = _CELL.match(str(args.get("cell", "")).strip())
        if not m:
            return f"Error: {name}() cell must look like 'B3', got {args.get('cell')!r}"
        col, row = ord(m.group(1).upper()) - 65, int(m.group(2))
        if col >= width or not 1 <= row <= len(rows):
            return f"Error: cell {args['cell']} is outside the sheet (A1:{chr(64 + width)}{len(rows)})"
        if name == "set_bold":
            bold.add(f"{m.group(1).upper()}{row}")
            tx.put("sheet", "bold", sorted(bold))
            return f"OK: {m.group(1).upper()}{row} is bold"
        if "value" not in args:
            return "Error: update_cell() needs value"
        rows[row - 1][col] = _cell_value(args["value"])
    elif name == "append_row":
        values = args.get("values")
        if not isinstance(values, list) or len(values) != width:
            return f"Error: append_row() needs a list of {width} values"
        rows.append([_cell_value(v) for v in values])
    elif name == "delete_row":
        try:
            n = int(args.get("row"))
        except (TypeError, ValueError):
            return "Error: delete_row() row must be a row number"
        if not 2 <= n <= len(rows):
            return f"Error: row {n} is not a data row (2..{len(rows)})"
        del rows[n - 1]
    elif name == "sort_rows":
        col = str(args.get("column", "")).strip().upper()
        if len(col) != 1 or not 0 <= ord(col) - 65 < width:
            return f"Error: sort_rows() column must be a letter A..{chr(64 + width)}"
        asc = args.get("ascending", True)
        asc = asc if isinstance(asc, bool) else str(asc).lower() != "false"
        i = ord(col) - 65
        rows = [rows[0]] + sorted(rows[1:], key=lambda r: (isinstance(r[i], str), r[i]), reverse=not asc)
    tx.put("sheet", "rows", rows)
    return "OK"


def _cell_value(v: Any) -> Any:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return int(v) if float(v).is_integer() else round(float(v), 4)
    s = str(v).strip()
    try:
        f = float(s)
        return int(f) if f.is_integer() else round(f, 4)
    except ValueError:
        return s


def _house(tx: Tx, name: str, args: dict) -> str:
    agent = tx.get("agent", "me", {"room": "livingroom", "holding": None})
    objects = dict(tx.items("objects"))
    room = agent["room"]
    if name == "look":
        here = sorted(k for k, o in objects.items() if o["room"] == room and o.get("in") is None)
        return f"You are in the {room}. You see: {', '.join(here)}." + (f" You hold {agent['holding']}." if agent["holding"] else "")
    if name == "walk":
        rooms = sorted({o["room"] for o in objects.values()})
        target = str(args.get("room", "")).strip().lower().replace(" ", "")
        if target not in rooms:
            return f"Error: no room {args.get('room')!r}; rooms: {', '.join(rooms)}"
        agent["room"] = target
        tx.put("agent", "me", agent)
        if agent["holding"]:  # what the agent holds goes along
            held = objects[agent["holding"]]
            held["room"] = target
            tx.put("objects", agent["holding"], held)
        return f"OK: you are in the {target}"
    key = str(args.get("obj", "")).strip().lower()
    obj = objects.get(key)
    if obj is None or obj["room"] != room:
        return f"Error: there is no {key or 'object'} here in the {room}"
    if obj.get("in") is not None and objects[obj["in"]].get("open") is False and name != "put":
        return f"Error: the {key} is inside the closed {obj['in']}"
    if name == "grab":
        if not obj.get("grabbable"):
            return f"Error: the {key} cannot be picked up"
        if agent["holding"]:
            return f"Error: you already hold the {agent['holding']}"
        obj["in"] = None
        obj["held"] = True
        agent["holding"] = key
        tx.put("objects", key, obj)
        tx.put("agent", "me", agent)
        return f"OK: you hold the {key}"
    if name == "put":
        if agent["holding"] != key:
            return f"Error: you are not holding the {key}"
        target = str(args.get("target", "")).strip().lower()
        t = objects.get(target)
        if t is None or t["room"] != room or not t.get("container"):
            return f"Error: cannot put things in/on {target!r} here"
        if t.get("open") is False:
            return f"Error: the {target} is closed"
        obj.update({"in": target, "held": False})
        agent["holding"] = None
        tx.put("objects", key, obj)
        tx.put("agent", "me", agent)
        return f"OK: the {key} is in/on the {target}"
    if name in ("open", "close"):
        if "open" not in obj:
            return f"Error: the {key} cannot be opened or closed"
        obj["open"] = name == "open"
        tx.put("objects", key, obj)
        return f"OK: the {key} is {'open' if obj['open'] else 'closed'}"
    if name in ("switch_on", "switch_off"):
        if "on" not in obj:
            return f"Error: the {key} has no switch"
        obj["on"] = name == "switch_on"
        tx.put("objects", key, obj)
        return f"OK: the {key} is {'on' if obj['on'] else 'off'}"
    return f"Error: unknown action {name}"


def apply(domain: str, world: WorldState, name: str, args: dict) -> tuple[WorldState, str]:
    """Run one call; an ``Error...`` message leaves the world unchanged."""
    tx = Tx(world)
    if domain in ("home_search", "trip_booking"):
        msg = "OK" if name == "search" else _form(tx, name, args, domain)
    elif domain == "sheets":
        msg = "OK" if name == "done" else _sheets(tx, name, args)
    else:
        msg = "OK" if name == "done" else _house(tx, name, args)
    if msg.startswith("Error"):
        return world, msg
    return tx.commit(), msg


def dict_f1(pred: dict, gold: dict) -> float:
    """F1 between two flat dicts (a key-value pair counts when both agree), as SambaNova's evaluator."""
    if not pred and not gold:
        return 1.0
    hit = sum(1 for k, v in pred.items() if k in gold and gold[k] == v)
    p = hit / len(pred) if pred else 0.0
    r = hit / len(gold) if gold else 0.0
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def goal_holds(world: WorldState, goal: dict) -> bool:
    """A virtual-home goal predicate: ``{"obj", "in"}``, ``{"obj", "on": bool}``, ``{"obj", "open": bool}``."""
    o = world.get("objects", goal["obj"])
    if o is None:
        return False
    return all(o.get(k) == v for k, v in goal.items() if k != "obj")


SCORERS: dict[str, Callable] = {}
