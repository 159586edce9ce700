"""ALFWorld's actions and sentences over an immutable fact set (ALFWorld's alfred.pddl + alfred.twl2).

Facts are tuples ``(pred, arg, ...)`` with lowercase ids. A state's facts are
the fluent facts that hold (``atlocation``, ``inreceptacle``, ``holds``,
``opened``, ``isclean``/``ishot``/``iscool``/``istoggled``/``issliced``,
``objectatlocation``) plus ``("not_inreceptacle", o, r)`` for every
``inreceptacle`` an action deleted and none re-added: TextWorld's PDDL state
keeps such negated facts and its ``look`` sentence lists an object "next to" a
receptacle it was taken from when the object is back at that location in
another receptacle. That is the only negated fact any sentence reads.

Quirks of the reference engine that are reproduced on purpose:

* ``go to X`` is not offered when X is at the agent's location (a no-op goto).
* ``examine <object>`` is offered for the held object only.
* Knives and butter knives slice any sliceable object at the agent's location,
  even one inside a closed receptacle.
* A toggled lamp is "on" for ever ("You turn on the X." on every ``use``).
* Invalid commands (anything not in the admissible list, after stripping
  surrounding spaces) answer "Nothing happens." and change nothing.
"""
from __future__ import annotations

from typing import Iterable

from .game import HELP_TEXT, Game, display_list

Action = tuple  # ("goto", r) ("open", r) ("close", r) ("take", o, r) ("put", o, r) ("clean"|"heat"|"cool", o, r)
#                 ("use", o) ("slice", co, ko) ("examine_r", r) ("examine_o", o) ("look",) ("inventory",) ("help",)

SINK_TYPES = ("sinktype", "sinkbasintype")


class View:
    """Read-only queries over one state's facts (built per state, cheap)."""

    __slots__ = ("game", "facts", "loc", "held", "contents")

    def __init__(self, game: Game, facts: frozenset):
        self.game = game
        self.facts = facts
        self.loc = None
        self.held: list[str] = []
        contents: dict[str, list[str]] = {}
        for f in facts:
            p = f[0]
            if p == "atlocation":
                self.loc = f[2]
            elif p == "holds":
                self.held.append(f[2])
            elif p == "inreceptacle":
                contents.setdefault(f[2], []).append(f[1])
        self.held.sort()
        for v in contents.values():
            v.sort()
        self.contents = contents

    def accessible(self, r: str) -> bool:
        return not self.game.has("openable", r) or ("opened", r) in self.facts

    def receptacles_here(self) -> list[str]:
        g = self.game
        return [r for r in g.receptacles if g.recep_loc[r] == self.loc]


def applicable(game: Game, facts: frozenset) -> list[tuple[str, Action]]:
    """Every (command, action) the reference engine offers in this state (unsorted, may repeat commands)."""
    v = View(game, facts)
    g = game
    out: list[tuple[str, Action]] = [("look", ("look",)), ("inventory", ("inventory",))]
    if g.style == "0.4":
        out.append(("help", ("help",)))
    here = v.receptacles_here()
    for r in g.receptacles:
        if g.recep_loc[r] != v.loc:
            out.append((f"go to {g.names[r]}", ("goto", r)))
    put_template = g.put_template()
    for r in here:
        rn = g.names[r]
        out.append((f"examine {rn}", ("examine_r", r)))
        if g.has("openable", r):
            if ("opened", r) in facts:
                out.append((f"close {rn}", ("close", r)))
            else:
                out.append((f"open {rn}", ("open", r)))
        inside = v.contents.get(r, ())
        for o in inside:
            if g.has("toggleable", o):
                out.append((f"use {g.names[o]}", ("use", o)))
        if not v.held and v.accessible(r):
            for o in inside:
                if g.has("pickupable", o):
                    out.append((f"take {g.names[o]} from {rn}", ("take", o, r)))
        for o in v.held:
            on = g.names[o]
            if v.accessible(r) and (g.rtype.get(r), g.otype.get(o)) in g.can_contain:
                out.append((put_template.format(o=on, r=rn), ("put", o, r)))
            rt = g.rtype.get(r)
            if g.has("cleanable", o) and rt in SINK_TYPES and (g.style == "2.1.1" or rt == "sinkbasintype"):
                out.append((f"clean {on} with {rn}", ("clean", o, r)))
            if g.has("heatable", o) and rt == "microwavetype":
                out.append((f"heat {on} with {rn}", ("heat", o, r)))
            if g.has("coolable", o) and rt == "fridgetype":
                out.append((f"cool {on} with {rn}", ("cool", o, r)))
    for ko in v.held:
        out.append((f"examine {g.names[ko]}", ("examine_o", ko)))
        if g.otype.get(ko) in ("knifetype", "butterknifetype"):
            for f in sorted(facts):
                if f[0] == "objectatlocation" and f[2] == v.loc and g.has("sliceable", f[1]):
                    out.append((f"slice {g.names[f[1]]} with {g.names[ko]}", ("slice", f[1], ko)))
    return out


def apply(game: Game, facts: frozenset, action: Action) -> frozenset:
    """The facts after ``action`` (which must be applicable)."""
    rem, add = changes(game, facts, action)
    return facts.difference(rem).union(add) if rem or add else facts


def changes(game: Game, facts: frozenset, action: Action) -> tuple[list, list]:
    """(facts removed, facts added) by ``action`` (which must be applicable); a removed fact may be absent
    (heating removes ``iscool`` whether or not it held). Both empty for actions that change nothing."""
    kind = action[0]
    add: list = []
    rem: list = []
    if kind == "goto":
        for f in facts:
            if f[0] == "atlocation":
                rem.append(f)
        add.append(("atlocation", game.agent, game.recep_loc[action[1]]))
    elif kind == "open":
        add.append(("opened", action[1]))
    elif kind == "close":
        rem.append(("opened", action[1]))
    elif kind == "take":
        _, o, r = action
        loc = next(f[2] for f in facts if f[0] == "atlocation")
        rem += [("inreceptacle", o, r), ("objectatlocation", o, loc)]
        add += [("holds", game.agent, o), ("not_inreceptacle", o, r)]
    elif kind == "put":
        _, o, r = action
        rem += [("holds", game.agent, o), ("not_inreceptacle", o, r)]
        add += [("inreceptacle", o, r), ("objectatlocation", o, game.recep_loc[r])]
    elif kind == "clean":
        add.append(("isclean", action[1]))
    elif kind == "heat":
        add.append(("ishot", action[1]))
        rem.append(("iscool", action[1]))
    elif kind == "cool":
        add.append(("iscool", action[1]))
        rem.append(("ishot", action[1]))
    elif kind == "use":
        add.append(("istoggled", action[1]))
    elif kind == "slice":
        add.append(("issliced", action[1]))
    return rem, add  # look, inventory, examine, help change nothing that matters


def _a(game: Game, items: Iterable[str]) -> list[str]:
    return [f"a {game.names[o]}" for o in items]


def examine_receptacle_text(game: Game, facts: frozenset, r: str) -> str:
    v = View(game, facts)
    rn = game.names[r]
    listing = display_list(_a(game, v.contents.get(r, ())))
    if game.has("openable", r):
        if ("opened", r) in facts:
            return f"The {rn} is open. In it, you see {listing}."
        return f"The {rn} is closed."
    return f"On the {rn}, you see {listing}."


def examine_object_text(game: Game, facts: frozenset, o: str) -> str:
    on = game.names[o]
    if game.has("isreceptacleobject", o):
        inner = [a for a, b in game.in_recep_object if b == o and a != o]
        return f"This is a normal {on}. In it, you see {display_list(_a(game, inner))}."
    clean, hot, cool, sliced = (("isclean", o) in facts, ("ishot", o) in facts, ("iscool", o) in facts,
                                ("issliced", o) in facts)
    if clean and hot and sliced:
        return f"This is a hot and clean sliced {on}."
    if clean and cool and sliced:
        return f"This is a cool and clean sliced {on}."
    if clean and sliced:
        return f"This is a clean sliced {on}."
    if hot and sliced:
        return f"This is a hot sliced {on}."
    if cool and sliced:
        return f"This is a cool sliced {on}."
    if clean and hot:
        return f"This is a hot and clean {on}."
    if clean and cool:
        return f"This is a cool and clean {on}."
    if hot:
        return f"This is a hot {on}."
    if clean:
        return f"This is a clean {on}."
    if cool:
        return f"This is a cold {on}."
    if game.has("toggleable", o) and ("istoggled", o) in facts:
        return f"This {on} is on."
    if game.has("sliceable", o) and sliced:
        return f"This is a sliced {on}."
    return f"There's nothing special about {on}."


def look_text(game: Game, facts: frozenset, intro: bool = False) -> str:
    """The ``look`` sentence. In the intro the location is unbound, so "middle of a room" lists every
    receptacle; after a ``look`` command it is bound to the agent's location, which has none: "nothing"."""
    v = View(game, facts)
    here = v.receptacles_here()
    if not here:
        listed = [f"a {game.names[r]}" for r in game.receptacles] if intro else []
        return f"You are in the middle of a room. Looking quickly around you, you see {display_list(listed)}."
    facing = display_list([game.names[r] for r in here])
    floor = []
    objs_here = sorted(f[1] for f in facts if f[0] == "objectatlocation" and f[2] == v.loc)
    for o in objs_here:
        for r in here:
            if ("not_inreceptacle", o, r) in facts:
                floor.append(f"a {game.names[o]}")
    return f"You are facing the {facing}. Next to it, you see {display_list(floor)}."


def inventory_text(game: Game, facts: frozenset) -> str:
    held = View(game, facts).held
    if not held:
        return "You are not carrying anything."
    return f"You are carrying: {display_list(_a(game, held))}."


def feedback(game: Game, before: frozenset, after: frozenset, action: Action) -> str:
    """The sentence the reference engine prints after ``action`` (derived on the state after it)."""
    g = game
    kind = action[0]
    if kind == "goto":
        r = action[1]
        where = g.names[g.recep_loc[r]] if g.style == "2.1.1" else g.names[r]
        return f"You arrive at {where}. {examine_receptacle_text(g, after, r)}"
    if kind == "open":
        return f"You open the {g.names[action[1]]}. {examine_receptacle_text(g, after, action[1])}"
    if kind == "close":
        return f"You close the {g.names[action[1]]}."
    if kind == "take":
        return f"You pick up the {g.names[action[1]]} from the {g.names[action[2]]}."
    if kind == "put":
        if g.style == "2.1.1":
            return f"You put the {g.names[action[1]]} in/on the {g.names[action[2]]}."
        return f"You move the {g.names[action[1]]} to the {g.names[action[2]]}."
    if kind in ("clean", "heat", "cool"):
        return f"You {kind} the {g.names[action[1]]} using the {g.names[action[2]]}."
    if kind == "use":
        return f"You turn on the {g.names[action[1]]}."
    if kind == "slice":
        return f"You sliced the {g.names[action[1]]} with the {g.names[action[2]]}."
    if kind == "examine_r":
        return examine_receptacle_text(g, after, action[1])
    if kind == "examine_o":
        return examine_object_text(g, after, action[1])
    if kind == "look":
        return look_text(g, after)
    if kind == "inventory":
        return inventory_text(g, after)
    if kind == "help":
        return HELP_TEXT
    raise ValueError(f"unknown action {action!r}")


def intro_text(game: Game, facts: frozenset) -> str:
    return f"-= Welcome to TextWorld, ALFRED! =-\n\n{look_text(game, facts, intro=True)}\n\n{game.task_text}"
