"""The ALFWorld expert: shortest goal-directed plans over the engine's own states.

Replaces ALFWorld's fast-downward planner expert (seconds per call there). Two
stages, both reading only the goal formula and the current state:

1. **Structured plans** (the shape of ALFWorld's handcoded expert, but with
   full knowledge of where things are): fetch an object of the goal's type
   (go to its receptacle, open it if closed, take it), apply the required
   appliance (clean/heat/cool), go to a receptacle of the goal's type (open if
   closed) and put it; pick-two fetches two distinct objects into the same
   receptacle; look-at fetches the object and uses a lamp at its location.
   Every choice of object, appliance and target is costed (commands), and the
   cheapest candidates are checked by simulation until one wins.
2. **Breadth-first search** over goal-relevant actions (as a fallback, for
   states the first stage does not cover), deduplicated on facts.

:func:`plan_from` returns the commands (in the state's wording) or None.
"""
from __future__ import annotations

import itertools
from collections import deque

from .state import ALFWorldState, admissible_commands, is_won, step_state
from .pddl import formula_predicates
from .rules import View, applicable, apply

APPLIANCES = {"isclean": ("sinktype", "sinkbasintype"), "ishot": ("microwavetype",), "iscool": ("fridgetype",)}
VERBS = {"isclean": "clean", "ishot": "heat", "iscool": "cool"}
ABILITY = {"isclean": "cleanable", "ishot": "heatable", "iscool": "coolable"}


class _Sim:
    """Where the agent is and what is open/held while a candidate plan is written."""

    def __init__(self, state: ALFWorldState):
        game = state.game
        v = View(game, state.facts)
        self.game = game
        self.loc = v.loc
        self.held = list(v.held)
        self.opened = {f[1] for f in state.facts if f[0] == "opened"}
        self.where = {}  # object -> a receptacle holding it
        for f in sorted(state.facts):
            if f[0] == "inreceptacle":
                self.where.setdefault(f[1], f[2])
        self.cmds: list[str] = []

    def copy(self) -> "_Sim":
        other = object.__new__(_Sim)
        other.game, other.loc, other.held = self.game, self.loc, list(self.held)
        other.opened, other.where, other.cmds = set(self.opened), dict(self.where), list(self.cmds)
        return other

    def n(self, e: str) -> str:
        return self.game.names[e]

    def goto(self, r: str) -> None:
        if self.game.recep_loc[r] != self.loc:
            self.cmds.append(f"go to {self.n(r)}")
            self.loc = self.game.recep_loc[r]

    def open(self, r: str) -> None:
        if self.game.has("openable", r) and r not in self.opened:
            self.cmds.append(f"open {self.n(r)}")
            self.opened.add(r)

    def take(self, o: str) -> bool:
        if o in self.held:
            return True
        if self.held:
            return False
        r = self.where.get(o)
        if r is None:
            return False
        self.goto(r)
        self.open(r)
        self.cmds.append(f"take {self.n(o)} from {self.n(r)}")
        self.held.append(o)
        del self.where[o]
        return True

    def put(self, o: str, r: str) -> bool:
        g = self.game
        if (g.rtype.get(r), g.otype.get(o)) not in g.can_contain:
            return False
        self.goto(r)
        self.open(r)
        self.cmds.append(g.put_template().format(o=self.n(o), r=self.n(r)))
        self.held.remove(o)
        self.where[o] = r
        return True

    def treat(self, o: str, verb: str, appliance: str) -> None:
        self.goto(appliance)
        self.cmds.append(f"{verb} {self.n(o)} with {self.n(appliance)}")


def _free_hands(sim: _Sim, keep: set) -> list[_Sim]:
    """Ways to put down a held object that is not part of the plan (none needed when hands are free)."""
    extra = [o for o in sim.held if o not in keep]
    if not extra:
        return [sim]
    o = extra[0]
    out = []
    g = sim.game
    here = [r for r in g.receptacles if g.recep_loc[r] == sim.loc]
    for r in here + [r for r in g.receptacles if r not in here]:
        s = sim.copy()
        if s.put(o, r):
            out.append(s)
            if len(out) >= 3:
                break
    return out


def _candidates(state: ALFWorldState) -> list[list[str]]:
    game = state.game
    preds = formula_predicates(game.problem.goal)
    objs_of = {}
    for o, t in sorted(game.otype.items()):
        objs_of.setdefault(t, []).append(o)
    base = _Sim(state)
    plans: list[list[str]] = []
    task = game.task_type
    if task == "look_at_obj_in_light":
        lamp_types = {game.otype[o] for o in game.props.get("toggleable", ()) if game.otype.get(o) in game.goal_otypes}
        obj_types = set(game.goal_otypes) - lamp_types
        lamps = [o for t in lamp_types for o in objs_of.get(t, ())]
        targets = [o for t in obj_types for o in objs_of.get(t, ())]
        for o, lamp in itertools.product(targets, lamps):
            lamp_r = base.where.get(lamp)
            if lamp_r is None:
                continue
            for sim in _free_hands(base.copy(), {o}):
                if not sim.take(o):
                    continue
                sim.goto(lamp_r)
                sim.cmds.append(f"use {sim.n(lamp)}")
                plans.append(sim.cmds)
        return plans
    prop = next((p for p in APPLIANCES if p in preds), None)
    targets_r = [r for r in game.receptacles if game.rtype.get(r) in game.goal_rtypes]
    objects = [o for t in game.goal_otypes for o in objs_of.get(t, ())]
    if prop:
        objects = [o for o in objects if game.has(ABILITY[prop], o)]
        appliances = [r for r in game.receptacles if game.rtype.get(r) in APPLIANCES[prop]]
    else:
        appliances = [None]
    if task == "pick_two_obj_and_place":
        for rt in targets_r:
            already = [o for o in objects if base.where.get(o) == rt]
            movable = [o for o in objects if base.where.get(o) != rt]
            need = max(0, 2 - len(already))
            for chosen in itertools.permutations(movable, need):
                for sim in _free_hands(base.copy(), set(chosen)):
                    ok = True
                    for o in chosen:
                        if not (sim.take(o) and sim.put(o, rt)):
                            ok = False
                            break
                    if ok:
                        plans.append(sim.cmds)
        return plans
    for o, app, rt in itertools.product(objects, appliances, targets_r):
        for sim in _free_hands(base.copy(), {o}):
            if not sim.take(o):
                continue
            if prop:
                sim.treat(o, VERBS[prop], app)
            if sim.put(o, rt):
                plans.append(sim.cmds)
    return plans


def _check(state: ALFWorldState, plan: list[str]) -> bool:
    s = state
    for cmd in plan:
        if cmd not in admissible_commands(s):
            return False
        s = step_state(s, cmd)
        if s.won:
            return True
    return s.won


def _won_prefix(state: ALFWorldState, plan: list[str]) -> list[str]:
    s = state
    for i, cmd in enumerate(plan):
        s = step_state(s, cmd)
        if s.won:
            return plan[: i + 1]
    return plan


def plan_from(state: ALFWorldState, max_nodes: int = 50_000) -> list[str] | None:
    """A short goal-directed plan from ``state`` (see the module docstring), or None."""
    if state.won or is_won(state.game, state.facts):
        return []
    for plan in sorted(_candidates(state), key=len)[:20]:
        if _check(state, plan):
            return _won_prefix(state, plan)
    return bfs_plan(state, max_nodes)


def _key(facts: frozenset) -> frozenset:
    return frozenset(f for f in facts if f[0] != "not_inreceptacle")


def bfs_plan(state: ALFWorldState, max_nodes: int = 50_000) -> list[str] | None:
    """Shortest plan over goal-relevant actions by BFS (None past ``max_nodes`` states)."""
    game = state.game
    objs = {o for o, t in game.otype.items() if t in game.goal_otypes}
    preds = formula_predicates(game.problem.goal)
    appliance_types = {t for p, ts in APPLIANCES.items() if p in preds for t in ts}
    receps = {r for r, t in game.rtype.items() if t in game.goal_rtypes or t in appliance_types}
    receps |= {f[2] for f in state.facts if f[0] == "inreceptacle" and f[1] in objs}
    verbs = {VERBS[p] for p in VERBS if p in preds}

    def allowed(action: tuple, held_other: bool) -> bool:
        kind = action[0]
        if kind == "goto":
            return held_other or action[1] in receps
        if kind == "open":
            return action[1] in receps
        if kind == "take":
            return action[1] in objs
        if kind == "put":
            return action[1] not in objs or game.rtype.get(action[2]) in game.goal_rtypes
        if kind in ("clean", "heat", "cool"):
            return kind in verbs and action[1] in objs
        if kind == "use":
            return action[1] in objs
        return False

    start = state.facts
    seen = {_key(start)}
    queue: deque = deque([(start, None)])
    nodes = 0
    while queue:
        facts, trail = queue.popleft()
        nodes += 1
        if nodes > max_nodes:
            return None
        held_other = any(f[0] == "holds" and f[2] not in objs for f in facts)
        emitted = set()
        for cmd, action in applicable(game, facts):
            if cmd in emitted or not allowed(action, held_other):
                continue
            emitted.add(cmd)
            nxt = apply(game, facts, action)
            k = _key(nxt)
            if k in seen:
                continue
            seen.add(k)
            node = (cmd, trail)
            if is_won(game, nxt):
                plan = []
                while node is not None:
                    plan.append(node[0])
                    node = node[1]
                return plan[::-1]
            queue.append((nxt, node))
    return None
