"""ToolChain*-style tasks: seeded templates per domain; gold computed by running each reference plan.

``python -m treegym.envs.tooltasks.tasks`` writes ``data/tasks.json``. A task:
``task_id``, ``domain``, ``query``, ``split``, ``initial_world``, ``examples``
(suggested calls) and ``gold``: ``plan`` (the reference calls) plus the gold
final state it produced (``form`` / ``rows`` + ``bold`` / ``goals``). The
build stops when a plan does not run cleanly or an empty episode passes.
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from .domains import CITIES
from treegym.envs.tools_common.world import WorldState
from .domains import FUNCTIONS
from .engine import ToolTasksEngine

DATA_DIR = Path(__file__).with_name("data")
SEED = 5
DATES = [f"2026-04-{d:02d}" for d in range(3, 28)]


def _q(v: Any) -> str:
    return json.dumps(v)


def home_task(rng: random.Random) -> dict:
    city, deal = rng.choice(CITIES), rng.choice(["buy", "rent"])
    plan = [f"set_location({_q(city)})", f"set_buy_or_rent({_q(deal)})"]
    words = [f"{'buy' if deal == 'buy' else 'rent'} a home in {city}"]
    if rng.random() < 0.6:
        ptype = rng.choice(["house", "condo", "townhouse"])
        plan.append(f"set_property_type({_q(ptype)})")
        words[0] = words[0].replace("a home", f"a {ptype}")
    if rng.random() < 0.8:
        beds = rng.randrange(1, 6)
        plan.append(f"set_num_beds({beds})")
        words.append(f"{beds} bedrooms")
    if rng.random() < 0.5:
        baths = rng.randrange(1, 4)
        plan.append(f"set_num_baths({baths})")
        words.append(f"{baths} bathrooms")
    lo, hi = (rng.randrange(2, 8) * 100_000, rng.randrange(8, 20) * 100_000) if deal == "buy" else \
        (rng.randrange(10, 25) * 100, rng.randrange(25, 60) * 100)
    if rng.random() < 0.6:
        plan.append(f"set_min_price({lo})")
        words.append(f"at least ${lo:,}")
    if rng.random() < 0.8:
        plan.append(f"set_max_price({hi})")
        words.append(f"at most ${hi:,}" + (" a month" if deal == "rent" else ""))
    if rng.random() < 0.4:
        sq = rng.randrange(6, 30) * 100
        plan.append(f"set_min_square_feet({sq})")
        words.append(f"at least {sq} square feet")
    plan.append("search()")
    return {"domain": "home_search", "query": "I want to " + words[0] + (", with " + ", ".join(words[1:]) if words[1:] else "") + ".",
            "plan": plan, "initial_world": {}}


def trip_task(rng: random.Random) -> dict:
    kind = rng.choice(["flight", "hotel", "car"])
    d1 = rng.randrange(len(DATES) - 6)
    d2 = d1 + rng.randrange(1, 6)
    a, b = rng.sample(CITIES, 2)
    if kind == "flight":
        adults, kids = rng.randrange(1, 4), rng.choice([0, 0, 1, 2])
        plan = ["select_booking_type(\"flight\")", f"set_location_from({_q(a)})", f"set_location_to({_q(b)})",
                f"set_departure_date({_q(DATES[d1])})"]
        text = f"Find flights from {a} to {b} leaving {DATES[d1]}"
        if rng.random() < 0.5:
            plan.append(f"set_return_date({_q(DATES[d2])})")
            text += f" and coming back {DATES[d2]}"
        plan.append(f"set_num_adults({adults})")
        text += f" for {adults} adult{'s' if adults > 1 else ''}"
        if kids:
            plan.append(f"set_num_children({kids})")
            text += f" and {kids} child{'ren' if kids > 1 else ''}"
    elif kind == "hotel":
        rooms, adults = rng.randrange(1, 3), rng.randrange(1, 5)
        plan = ["select_booking_type(\"hotel\")", f"set_hotel_location({_q(b)})", f"set_checkin_date({_q(DATES[d1])})",
                f"set_checkout_date({_q(DATES[d2])})", f"set_num_rooms({rooms})", f"set_num_adults({adults})"]
        text = (f"Book {rooms} hotel room{'s' if rooms > 1 else ''} in {b} from {DATES[d1]} to {DATES[d2]} "
                f"for {adults} adult{'s' if adults > 1 else ''}")
    else:
        plan = ["select_booking_type(\"car\")", f"set_car_location({_q(a)})", f"set_pickup_date({_q(DATES[d1])})",
                f"set_dropoff_date({_q(DATES[d2])})"]
        text = f"I need a rental car in {a}, picking it up on {DATES[d1]} and returning it on {DATES[d2]}"
    plan.append("search()")
    return {"domain": "trip_booking", "query": text + ".", "plan": plan, "initial_world": {}}


ITEMS = ["Apples", "Bread", "Coffee", "Eggs", "Flour", "Grapes", "Honey", "Juice", "Kale", "Lemons", "Milk", "Nuts"]


def sheet_task(rng: random.Random) -> dict:
    names = rng.sample(ITEMS, 5)
    rows = [["Item", "Qty", "Price"]] + [[n, rng.randrange(1, 20), round(rng.randrange(50, 900) / 100, 2)] for n in names]
    kind = rng.choice(["append", "update", "delete", "sort", "bold"])
    if kind == "append":
        new = rng.choice([i for i in ITEMS if i not in names])
        qty, price = rng.randrange(1, 12), round(rng.randrange(80, 700) / 100, 2)
        q = f"Add a row for {new} with quantity {qty} and price {price} at the end of the sheet."
        plan = [f"append_row({_q([new, qty, price])})"]
    elif kind == "update":
        k = rng.randrange(5)
        price = round(rng.randrange(50, 900) / 100, 2)
        q = f"The price of {names[k]} changed to {price}; update the sheet."
        plan = ["get_sheet()", f"update_cell(\"C{k + 2}\", {price})"]
    elif kind == "delete":
        k = rng.randrange(5)
        q = f"We no longer stock {names[k]}. Remove its row."
        plan = ["get_sheet()", f"delete_row({k + 2})"]
    elif kind == "sort":
        col, asc = rng.choice([("C", False), ("C", True), ("B", False), ("A", True)])
        what = {"A": "item name", "B": "quantity", "C": "price"}[col]
        q = f"Sort the rows by {what}, {'lowest' if asc else 'highest'} first" + (" (A to Z)" if col == "A" else "") + "."
        plan = [f"sort_rows(\"{col}\", {str(asc)})"]
    else:
        q = "Make the header row bold."
        plan = ["set_bold(\"A1\")", "set_bold(\"B1\")", "set_bold(\"C1\")"]
    return {"domain": "sheets", "query": q, "plan": plan + ["done()"],
            "initial_world": {"sheet": {"rows": rows, "bold": []}}}


HOUSE = {"tv": {"room": "livingroom", "on": False}, "sofa": {"room": "livingroom", "container": True},
         "book": {"room": "livingroom", "grabbable": True, "in": None},
         "remote": {"room": "livingroom", "grabbable": True, "in": "sofa"},
         "fridge": {"room": "kitchen", "container": True, "open": False},
         "milk": {"room": "kitchen", "grabbable": True, "in": "fridge"},
         "cup": {"room": "kitchen", "grabbable": True, "in": None}, "sink": {"room": "kitchen", "container": True},
         "table": {"room": "kitchen", "container": True}, "stove": {"room": "kitchen", "on": False},
         "lamp": {"room": "bedroom", "on": False}, "shelf": {"room": "bedroom", "container": True},
         "towel": {"room": "bathroom", "grabbable": True, "in": None},
         "washingmachine": {"room": "bathroom", "container": True, "open": False, "on": False}}
CHORES = {
    "tv": ("turn on the TV", ["walk(\"livingroom\")", "switch_on(\"tv\")"], [{"obj": "tv", "on": True}]),
    "lamp": ("switch on the bedroom lamp", ["walk(\"bedroom\")", "switch_on(\"lamp\")"], [{"obj": "lamp", "on": True}]),
    "cup": ("put the cup in the sink", ["walk(\"kitchen\")", "grab(\"cup\")", "put(\"cup\", \"sink\")"], [{"obj": "cup", "in": "sink"}]),
    "milk": ("take the milk out of the fridge, put it on the kitchen table and close the fridge",
             ["walk(\"kitchen\")", "open(\"fridge\")", "grab(\"milk\")", "put(\"milk\", \"table\")", "close(\"fridge\")"],
             [{"obj": "milk", "in": "table"}, {"obj": "fridge", "open": False}]),
    "book": ("put the book from the living room on the bedroom shelf",
             ["walk(\"livingroom\")", "grab(\"book\")", "walk(\"bedroom\")", "put(\"book\", \"shelf\")"], [{"obj": "book", "in": "shelf"}]),
    "laundry": ("wash the towel: put it in the washing machine, close it and start it",
                ["walk(\"bathroom\")", "grab(\"towel\")", "open(\"washingmachine\")", "put(\"towel\", \"washingmachine\")",
                 "close(\"washingmachine\")", "switch_on(\"washingmachine\")"],
                [{"obj": "towel", "in": "washingmachine"}, {"obj": "washingmachine", "on": True},
                 {"obj": "washingmachine", "open": False}]),
    "remote": ("bring the TV remote from the sofa to the kitchen table",
               ["walk(\"livingroom\")", "grab(\"remote\")", "walk(\"kitchen\")", "put(\"remote\", \"table\")"],
               [{"obj": "remote", "in": "table"}]),
}


def house_task(rng: random.Random) -> dict:
    keys = rng.sample(sorted(CHORES), rng.choice([1, 2, 2]))
    text = " and then ".join(CHORES[k][0] for k in keys)
    plan = [s for k in keys for s in CHORES[k][1]] + ["done()"]
    goals = [g for k in keys for g in CHORES[k][2]]
    return {"domain": "virtual_home", "query": text[0].upper() + text[1:] + ".", "plan": plan, "goals": goals,
            "initial_world": {"objects": HOUSE, "agent": {"me": {"room": "livingroom", "holding": None}}}}


MAKERS = {"home_search": (home_task, 25), "trip_booking": (trip_task, 25), "sheets": (sheet_task, 20),
          "virtual_home": (house_task, 20)}
SAMPLE_ARGS = {"value": ["Boston", 2, "2026-04-10", "rent", "hotel"], "cell": "B2", "values": ["Tea", 1, 2.5], "row": 2,
               "column": "C", "ascending": False, "room": "kitchen", "obj": "cup", "target": "sink"}


def examples(domain: str) -> list[str]:
    """One example call per function of ``domain`` (so every action form has a listed example)."""
    out = []
    for name, fn in FUNCTIONS[domain].items():
        args = []
        for p in fn["parameters"]:
            v = SAMPLE_ARGS[p]
            if p == "value":
                v = 2 if name.replace("set_", "") in ("num_beds", "num_baths", "min_price", "max_price", "min_square_feet",
                                                      "max_square_feet", "num_rooms", "num_adults", "num_children") \
                    else "2026-04-10" if name.endswith("date") else "rent" if name == "set_buy_or_rent" \
                    else "hotel" if name == "select_booking_type" else "condo" if name == "set_property_type" else "Boston"
            if p == "obj":
                v = "fridge" if name in ("open", "close") else "tv" if name.startswith("switch") else "cup"
            args.append(json.dumps(v))
        out.append(f"{name}({', '.join(args)})")
    return out


def build_tasks() -> list[dict]:
    rng = random.Random(SEED)
    tasks = []
    for domain, (maker, n) in MAKERS.items():
        seen: set[str] = set()
        k = 0
        while k < n:
            draft = maker(rng)
            if draft["query"] in seen:
                continue
            seen.add(draft["query"])
            tid = f"{domain}-{k:03d}"
            task = {"task_id": tid, "domain": domain, "query": draft["query"], "split": "dev" if k % 5 == 0 else "test",
                    "initial_world": draft["initial_world"], "examples": examples(domain),
                    "gold": {"plan": draft["plan"], "form": {}, "rows": [], "bold": [], "goals": draft.get("goals", [])}}
            eng = ToolTasksEngine([task], {"all": [tid]})
            state = eng.initial_state(tid, None)
            for step in draft["plan"]:
                state = eng.step(state, step).state
                if state.observation.startswith("Error"):
                    raise RuntimeError(f"{tid}: {step} -> {state.observation}")
            w: WorldState = state.world
            task["gold"]["form"] = w.get("criteria", "form", {})
            task["gold"]["rows"] = w.get("sheet", "rows", [])
            task["gold"]["bold"] = w.get("sheet", "bold", [])
            eng = ToolTasksEngine([task], {"all": [tid]})
            state = eng.initial_state(tid, None)
            for step in draft["plan"]:
                state = eng.step(state, step).state
            if not json.loads(state.evaluation)["pass"]:
                raise RuntimeError(f"{tid}: the reference plan fails its gold")
            final = {"home_search": "search()", "trip_booking": "search()"}.get(domain, "done()")
            empty = eng.step(eng.initial_state(tid, None), final).state
            if json.loads(empty.evaluation)["pass"]:
                raise RuntimeError(f"{tid}: doing nothing passes")
            tasks.append(task)
            k += 1
    return tasks


def main() -> int:
    tasks = build_tasks()
    DATA_DIR.mkdir(exist_ok=True)
    (DATA_DIR / "tasks.json").write_text(json.dumps(tasks, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(tasks)} tasks to {DATA_DIR / 'tasks.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
