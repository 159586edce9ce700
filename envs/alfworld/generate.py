"""Seeded generator of train-style ALFWorld games for the six task types, fully offline.

A generated game is an ordinary ``game.tw-pddl`` dict (ALFWorld's domain and
grammar from the shipped games, a new PDDL problem), so it plays on the same
engine and loads in the official one too.

How a game is made from ``(task_type, seed)`` (:func:`generate_game`):

* a **room** is taken from a shipped game of the same task type (its
  receptacle types and which are openable; look-at rooms have lamps), with
  fresh ids and locations, so names and positions differ from the shipped game;
* **objects**: the object types of that room, 1-3 instances each, each put in a
  receptacle that can hold it; affordances (pickupable, cleanable, heatable,
  coolable, toggleable, sliceable, receptacle-object) and ``canContain`` come
  from a table read off the 134 shipped games (ALFWorld's own values);
* a **goal** of the task type over types present in the room, in ALFWorld's
  goal formula and one of its sentence forms;
* the game is kept only if it is not won at reset and :func:`~.expert.plan_from`
  finds a plan; otherwise the next attempt (seeded from the same seed) is tried.

Splits (fixed seed sets): ``generated_train`` (seeds 0-5999, task type = seed
mod 6), ``generated_valid`` (seeds 1,000,000-1,000,299). Task ids are
``"gen/<task_type>/<seed>"``.
"""
from __future__ import annotations

import random
import re
from functools import lru_cache
from typing import Any

from .game import TASK_TYPES, Game
from .tasks import shipped_games, task_type_of
from .expert import plan_from
from .state import initial_state

GENERATED_SPLITS = {
    "generated_train": range(0, 6000),
    "generated_valid": range(1_000_000, 1_000_300),
}
UNARY = ("pickupable", "cleanable", "heatable", "coolable", "toggleable", "sliceable", "isreceptacleobject")
SENTENCES = {
    "pick_and_place_simple": ("put a {obj} in {recep}.", "put some {obj} on {recep}."),
    "look_at_obj_in_light": ("look at {obj} under the {toggle}.", "examine the {obj} with the {toggle}."),
    "pick_clean_then_place_in_recep": ("put a clean {obj} in {recep}.", "clean some {obj} and put it in {recep}."),
    "pick_heat_then_place_in_recep": ("put a hot {obj} in {recep}.", "heat some {obj} and put it in {recep}."),
    "pick_cool_then_place_in_recep": ("put a cool {obj} in {recep}.", "cool some {obj} and put it in {recep}."),
    "pick_two_obj_and_place": ("put two {obj} in {recep}.", "find two {obj} and put them in {recep}."),
}
NEEDS = {"pick_clean_then_place_in_recep": ("cleanable", ("SinkBasinType",)),
         "pick_heat_then_place_in_recep": ("heatable", ("MicrowaveType",)),
         "pick_cool_then_place_in_recep": ("coolable", ("FridgeType",))}
_TYPE_RE = re.compile(r"\((objectType|receptacleType) (\?\w+) (\w+)\)")


def split_task_ids(split: str) -> list[str]:
    return [f"gen/{TASK_TYPES[s % 6]}/{s}" for s in GENERATED_SPLITS[split]]


def parse_task_id(task_id: str) -> tuple[str, int]:
    parts = str(task_id).split("/")
    if len(parts) != 3 or parts[0] != "gen" or parts[1] not in TASK_TYPES or not parts[2].isdigit():
        raise ValueError(f"not a generated ALFWorld task id: {task_id!r} (expected gen/<task_type>/<seed>)")
    return parts[1], int(parts[2])


@lru_cache(maxsize=1)
def _tables() -> dict[str, Any]:
    """Affordances, canContain, rooms and goal formulas read off the shipped games (original case)."""
    unary: dict[str, set] = {}
    can_contain: set = set()
    rooms: dict[str, list] = {t: [] for t in TASK_TYPES}
    goals: dict[str, str] = {}
    grammar = domain = None
    for tid, data in shipped_games().items():
        ttype = task_type_of(tid)
        problem = data["pddl_problem"]
        facts = re.findall(r"\((\w+) ([^()\s]+)(?: ([^()\s]+))?\)", problem[problem.index("(:init"):problem.index("(:goal")])
        otype = {a: b for p, a, b in facts if p == "objectType"}
        rtype = {a: b for p, a, b in facts if p == "receptacleType"}
        for p, a, b in facts:
            if p in UNARY and not b and a in otype:
                unary.setdefault(otype[a], set()).add(p)
            elif p == "canContain":
                can_contain.add((a, b))
        openable = {rtype[a] for p, a, b in facts if p == "openable" and a in rtype}
        placed = sorted({(otype[a], rtype[b]) for p, a, b in facts if p == "inReceptacle" and a in otype and b in rtype})
        rooms[ttype].append({"receptacles": sorted(rtype.values()), "openable": sorted(openable),
                             "otypes": sorted(set(otype.values())), "placed": placed})
        goal = problem[problem.index("(:goal"):]
        goals.setdefault(ttype, goal[: goal.rindex(")")])
        grammar, domain = grammar or data["grammar"], domain or data["pddl_domain"]
    # lamps are placed (inReceptacle) although no receptacle type "canContain"s them
    placed_all = {pair for rs in rooms.values() for room in rs for pair in room["placed"]}
    return {"unary": {k: sorted(v) for k, v in unary.items()}, "can_contain": can_contain, "rooms": rooms,
            "placed": placed_all,
            "goals": goals, "grammar": grammar, "domain": domain}


def _coord(rng: random.Random) -> str:
    def num() -> str:
        v = rng.uniform(-3, 3)
        sign = "plus" if v >= 0 else "minus"
        whole, frac = f"{abs(v):05.2f}".split(".")
        return f"_{sign}_{whole}_dot_{frac}"
    return "_bar_".join(num() for _ in range(3))


def _loc(rng: random.Random, used: set) -> str:
    while True:
        parts = [rng.randint(-15, 15), rng.randint(-15, 15), rng.randint(0, 3), rng.choice((0, 30, 45, 60, -30))]
        name = "loc" + "".join(f"_bar_{'_minus_' + str(-p) if p < 0 else p}" for p in parts)
        if name not in used:
            used.add(name)
            return name


def _attempt(task_type: str, rng: random.Random) -> dict | None:
    t = _tables()
    room = rng.choice(t["rooms"][task_type])
    can = t["can_contain"]
    # receptacles, each at its own location
    used_locs: set = set()
    receps: list[tuple[str, str]] = []
    for rt in room["receptacles"]:
        if rt.endswith("BasinType"):  # Sink_bar_..._bar_SinkBasin, as ALFWorld names basins
            rid = f"{rt[:-9]}_bar_{_coord(rng)}_bar_{rt[:-4]}"
        else:
            rid = f"{rt[:-4]}_bar_{_coord(rng)}"
        receps.append((rid, rt))
    loc_of = {rid: _loc(rng, used_locs) for rid, _ in receps}
    start = _loc(rng, used_locs)
    # objects
    objects: list[tuple[str, str]] = []
    where: list[tuple[str, str]] = []
    for ot in room["otypes"]:
        holders = [(rid, rt) for rid, rt in receps if (rt, ot) in can or (ot, rt) in t["placed"]]
        if not holders:
            continue
        toggle = "toggleable" in t["unary"].get(ot, ())
        for _ in range(1 if toggle else rng.randint(1, 3)):
            oid = f"{ot[:-4]}_bar_{_coord(rng)}"
            rid, _rt = rng.choice(holders)
            objects.append((oid, ot))
            where.append((oid, rid))
    otypes_here = {ot for _, ot in objects}
    rtypes_here = {rt for _, rt in receps}
    # goal
    counts: dict[str, int] = {}
    for _, ot in objects:
        counts[ot] = counts.get(ot, 0) + 1
    sub: dict[str, str] = {}
    if task_type == "look_at_obj_in_light":
        lamps = sorted(ot for ot in otypes_here if "toggleable" in t["unary"].get(ot, ()))
        things = sorted(ot for ot in otypes_here if "pickupable" in t["unary"].get(ot, ()))
        if not lamps or not things:
            return None
        lamp, obj = rng.choice(lamps), rng.choice(things)
        sub = {"?ot": lamp, "?o": obj}
        words = {"obj": obj[:-4].lower(), "toggle": lamp[:-4].lower()}
    else:
        prop, appliances = NEEDS.get(task_type, ("pickupable", ()))
        if any(a not in rtypes_here for a in appliances):
            return None
        need = 2 if task_type == "pick_two_obj_and_place" else 1
        choices = sorted(ot for ot in otypes_here if prop in t["unary"].get(ot, ())
                         and "pickupable" in t["unary"].get(ot, ()) and counts[ot] >= need)
        if not choices:
            return None
        obj = rng.choice(choices)
        targets = sorted(rt for rt in rtypes_here if (rt, obj) in can and rt not in appliances)
        if not targets:
            return None
        recep = rng.choice(targets)
        sub = {"?o": obj, "?o1": obj, "?o2": obj, "?r": recep}
        words = {"obj": obj[:-4].lower(), "recep": recep[:-4].lower()}
    goal = _TYPE_RE.sub(lambda m: f"({m.group(1)} {m.group(2)} {sub.get(m.group(2), m.group(3))})",
                        t["goals"][task_type])
    sentence = rng.choice(SENTENCES[task_type]).format(**{"recep": "", "toggle": "", **words})
    # problem text
    init = [f"(atLocation agent1 {start})"]
    for rid, rt in receps:
        init.append(f"(receptacleType {rid} {rt})")
        init.append(f"(receptacleAtLocation {rid} {loc_of[rid]})")
        if rt in room["openable"]:
            init.append(f"(openable {rid})")
    for oid, ot in objects:
        init.append(f"(objectType {oid} {ot})")
        init.extend(f"({p} {oid})" for p in t["unary"].get(ot, ()))
    for oid, rid in where:
        init.append(f"(inReceptacle {oid} {rid})")
        init.append(f"(objectAtLocation {oid} {loc_of[rid]})")
    for rt in sorted(rtypes_here):
        for ot in sorted(otypes_here):
            if (rt, ot) in can:
                init.append(f"(canContain {rt} {ot})")
    decl = (["agent1 - agent"] + [f"{ot} - otype" for ot in sorted(otypes_here)]
            + [f"{rt} - rtype" for rt in sorted(rtypes_here)] + [f"{oid} - object" for oid, _ in objects]
            + [f"{rid} - receptacle" for rid, _ in receps] + [f"{loc} - location" for loc in sorted(used_locs)])
    problem = ("(define (problem generated)\n(:domain alfred)\n(:objects\n" + "\n".join(decl) + "\n)\n(:init\n"
               + "\n".join(init) + "\n)\n" + goal + ")\n")
    grammar = re.sub(r'("task"\s*:\s*\[\s*\{\s*"rhs"\s*:\s*")Your task is to: [^"]*(")',
                     lambda m: f"{m.group(1)}Your task is to: {sentence}{m.group(2)}", t["grammar"], count=1)
    return {"pddl_domain": t["domain"], "grammar": grammar, "pddl_problem": problem, "solvable": True}


def generate_game(task_type: str, seed: int, max_attempts: int = 50) -> dict:
    """A solvable, not-yet-won ``game.tw-pddl`` dict for ``task_type`` (deterministic in ``seed``)."""
    if task_type not in TASK_TYPES:
        raise ValueError(f"unknown task type {task_type!r}; choose one of {TASK_TYPES}")
    rng = random.Random(f"alfworld-gen:{task_type}:{seed}")
    for _ in range(max_attempts):
        data = _attempt(task_type, rng)
        if data is None:
            continue
        game = Game.from_data(data, source=f"gen/{task_type}/{seed}", task_type=task_type)
        state = initial_state(game)
        if state.won:
            continue
        if plan_from(state):
            return data
    raise RuntimeError(f"no solvable {task_type} game after {max_attempts} attempts for seed {seed}")
