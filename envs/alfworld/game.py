"""One ALFWorld game, read from a ``game.tw-pddl`` file: static facts, display names, initial state.

A :class:`Game` is immutable after construction and shared by every state of
every episode on it. It holds what never changes in an episode (receptacle
locations, object/receptacle types, affordances, ``canContain``), the display
names ALFWorld shows ("countertop 1", "loc 25"), the task sentence, and the
initial fluent facts.

Display names follow ALFWorld's demangler (``alfworld.agents.utils.misc``):
every entity that appears in a fact is listed in sorted (lowercased) id order;
within a class (the id's prefix before ``_bar_``, plus ``basin`` for sink and
bathtub basins) the first id in that order gets the highest number.

Two wordings (``style``):

* ``"2.1.1"`` (default; the data of ReAct, Reflexion and most papers):
  ``put X in/on Y``, "You arrive at loc N." (read from the game file's grammar);
* ``"0.4"`` (alfworld >= 0.4): ``move X to Y``, "You arrive at <receptacle>.", ``help``.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping

from .pddl import Fact, PddlError, Problem, formula_constants, index_facts, parse_problem
from .pddl import formula_predicates

STYLES = ("2.1.1", "0.4")

# The six task types (ALFWorld's TASK_TYPES), in its order.
TASK_TYPES = (
    "pick_and_place_simple",
    "look_at_obj_in_light",
    "pick_clean_then_place_in_recep",
    "pick_heat_then_place_in_recep",
    "pick_cool_then_place_in_recep",
    "pick_two_obj_and_place",
)

# Facts that actions change; everything else in :init is static.
FLUENT_PREDICATES = frozenset({
    "atlocation", "inreceptacle", "objectatlocation", "opened", "holds", "isclean", "ishot",
    "iscool", "istoggled", "issliced",
})

_TASK_RE = re.compile(r'"task"\s*:\s*\[\s*\{\s*"rhs"\s*:\s*"((?:[^"\\]|\\.)*)"', re.S)

HELP_TEXT = (
    "\nAvailable commands:\n"
    "  look:                             look around your current location\n"
    "  inventory:                        check your current inventory\n"
    "  go to (receptacle):               move to a receptacle\n"
    "  open (receptacle):                open a receptacle\n"
    "  close (receptacle):               close a receptacle\n"
    "  take (object) from (receptacle):  take an object from a receptacle\n"
    "  move (object) to (receptacle):  place an object in or on a receptacle\n"
    "  examine (something):              examine a receptacle or an object\n"
    "  use (object):                     use an object\n"
    "  heat (object) with (receptacle):  heat an object using a receptacle\n"
    "  clean (object) with (receptacle): clean an object using a receptacle\n"
    "  cool (object) with (receptacle):  cool an object using a receptacle\n"
    "  slice (object) with (object):     slice an object using a sharp object\n"
)


class GameFileError(ValueError):
    """A game file that cannot be played (names the file and what is wrong)."""


def demangle_names(entity_ids: list[str]) -> dict[str, str]:
    """ALFWorld's display names for entity ids (see the module docstring)."""
    ids = sorted(entity_ids)
    counts: Counter = Counter()
    for eid in ids:
        parts = eid.split("_bar_", 1)
        if len(parts) > 1:
            name = parts[0] + ("basin" if "basin" in eid else "")
            counts[name] += 1
    numbers = {name: list(range(1, n + 1)) for name, n in counts.items()}
    names: dict[str, str] = {}
    for eid in ids:
        text = (eid.replace("_bar_", "|").replace("_minus_", "-").replace("_plus_", "+")
                .replace("_dot_", ".").replace("_comma_", ","))
        parts = text.split("|", 1)
        if len(parts) == 1:
            names[eid] = f"{text} "
        else:
            name = parts[0] + ("basin" if "basin" in eid else "")
            names[eid] = f"{name} {numbers[name].pop()}"
    return names


def display_list(items: list[str]) -> str:
    """TextWorld's list rendering: "nothing", "x", "x, and y", "x, y, and z"."""
    if not items:
        return "nothing"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + ", and " + items[-1]


@dataclass(frozen=True, eq=False)
class Game:
    """A parsed game (see the module docstring). Build with :meth:`from_data`."""

    #: every state of a game points at it: size estimates of a state leave it out
    __shared_by_states__ = True

    source: str
    task_type: str
    task_text: str
    style: str
    problem: Problem
    names: Mapping[str, str]
    agent: str
    receptacles: tuple[str, ...]          # sorted ids
    recep_loc: Mapping[str, str]
    rtype: Mapping[str, str]
    otype: Mapping[str, str]
    can_contain: frozenset
    props: Mapping[str, frozenset]        # static unary predicate -> ids
    in_recep_object: tuple[tuple[str, str], ...]
    init_facts: frozenset
    static_facts: tuple[Fact, ...]
    objects_by_type: Mapping[str, list]
    goal_otypes: frozenset = field(default=frozenset())
    goal_rtypes: frozenset = field(default=frozenset())
    task_id: str = ""
    static_index: Mapping[str, frozenset] = field(default_factory=dict, repr=False)
    # How to load this game again (pickling by reference): ``loader(*key)`` returns it (in its 2.1.1
    # wording). ``loader`` must pickle by reference (a module-level function); None = pickle by value.
    loader: Any = field(default=None, repr=False)
    key: tuple = field(default=(), repr=False)

    def __reduce_ex__(self, protocol: Any) -> Any:
        """A game with a ``loader`` pickles as ``(loader, key, style)`` (a few dozen bytes, not the ~40 KB
        of its facts); the unpickling process loads it (from its own cache when the loader caches)."""
        if self.loader is None:
            return object.__reduce_ex__(self, protocol)
        return _load_game, (self.loader, self.key, self.style)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_data(cls, data: Mapping[str, Any], source: str = "<game>", task_type: str | None = None,
                  style: str = "2.1.1", task_id: str | None = None, loader: Any = None,
                  key: tuple = ()) -> "Game":
        if style not in STYLES:
            raise ValueError(f"style must be one of {STYLES}, got {style!r}")
        for part in ("pddl_problem", "grammar"):
            if not isinstance(data.get(part), str):
                raise GameFileError(f"{source}: missing {part!r} (not a game.tw-pddl file?)")
        try:
            problem = parse_problem(data["pddl_problem"])
        except PddlError as exc:
            raise GameFileError(f"{source}: {exc}") from exc
        m = _TASK_RE.search(data["grammar"])
        if not m:
            raise GameFileError(f"{source}: the grammar has no \"task\" sentence")
        task_text = json.loads(f'"{m.group(1)}"')
        agents = [o for o, t in problem.objects.items() if t == "agent"]
        if len(agents) != 1:
            raise GameFileError(f"{source}: expected one agent, found {len(agents)}")
        init = problem.init
        entity_ids = sorted({a for f in init for a in f[1:]})
        names = demangle_names(entity_ids)
        recep_loc = {f[1]: f[2] for f in init if f[0] == "receptacleatlocation"}
        rtype = {f[1]: f[2] for f in init if f[0] == "receptacletype"}
        otype = {f[1]: f[2] for f in init if f[0] == "objecttype"}
        props: dict[str, set] = {}
        for f in init:
            if len(f) == 2 and f[0] not in FLUENT_PREDICATES:
                props.setdefault(f[0], set()).add(f[1])
        fluent = frozenset(f for f in init if f[0] in FLUENT_PREDICATES)
        if sum(1 for f in fluent if f[0] == "atlocation") != 1:
            raise GameFileError(f"{source}: the agent must start at exactly one location")
        static = tuple(f for f in init if f[0] not in FLUENT_PREDICATES)
        by_type: dict[str, list] = {}
        for obj, typ in problem.objects.items():
            by_type.setdefault(typ, []).append(obj)
        consts = formula_constants(problem.goal)
        if task_type is None:
            task_type = guess_task_type(problem.goal)
        return cls(
            source=source, task_type=task_type, task_text=task_text, style=style, problem=problem, names=names,
            agent=agents[0], receptacles=tuple(sorted(recep_loc)), recep_loc=recep_loc, rtype=rtype, otype=otype,
            can_contain=frozenset((f[1], f[2]) for f in init if f[0] == "cancontain"),
            props={k: frozenset(v) for k, v in props.items()},
            in_recep_object=tuple(sorted((f[1], f[2]) for f in init if f[0] == "inreceptacleobject")),
            init_facts=fluent, static_facts=static, objects_by_type={k: sorted(v) for k, v in by_type.items()},
            goal_otypes=frozenset(c for c in consts if c in set(otype.values())),
            goal_rtypes=frozenset(c for c in consts if c in set(rtype.values())),
            task_id=source if task_id is None else task_id,
            static_index={k: frozenset(v) for k, v in index_facts(static).items()},
            loader=loader, key=tuple(key),
        )

    @classmethod
    def from_file(cls, path: str, **kwargs: Any) -> "Game":
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, json.JSONDecodeError) as exc:
            raise GameFileError(f"cannot read the game file {path}: {exc}") from exc
        return cls.from_data(data, source=str(path), **kwargs)

    def with_style(self, style: str) -> "Game":
        if style == self.style:
            return self
        if style not in STYLES:
            raise ValueError(f"style must be one of {STYLES}, got {style!r}")
        from dataclasses import replace
        return replace(self, style=style)

    # ------------------------------------------------------------------ helpers
    def has(self, prop: str, entity: str) -> bool:
        return entity in self.props.get(prop, ())

    def name(self, entity: str) -> str:
        return self.names[entity]

    def put_template(self) -> str:
        return "put {o} in/on {r}" if self.style == "2.1.1" else "move {o} to {r}"


def _load_game(loader: Any, key: tuple, style: str) -> Game:
    """Unpickle a game pickled by reference (:meth:`Game.__reduce_ex__`)."""
    game = loader(*key)
    if not isinstance(game, Game):
        raise GameFileError(f"the game loader {loader!r} returned {type(game).__name__} for {key!r}, not a Game")
    return game.with_style(style)


def guess_task_type(goal: tuple) -> str:
    """The ALFWorld task type a goal formula belongs to (from its predicates)."""
    preds = formula_predicates(goal)
    if "istoggled" in preds:
        return "look_at_obj_in_light"
    if "isclean" in preds:
        return "pick_clean_then_place_in_recep"
    if "ishot" in preds:
        return "pick_heat_then_place_in_recep"
    if "iscool" in preds:
        return "pick_cool_then_place_in_recep"
    if _count_exists(goal) >= 3:
        return "pick_two_obj_and_place"
    return "pick_and_place_simple"


def _count_exists(f: tuple) -> int:
    if f[0] == "exists":
        return len(f[1]) + _count_exists(f[2])
    if f[0] in ("and", "or"):
        return sum(_count_exists(g) for g in f[1:])
    if f[0] == "not":
        return _count_exists(f[1])
    return 0
