"""The world state of the mock tool services: immutable values, copy-on-write transactions.

* **Fixtures** (flights, products, movies, ...) are read-only tables loaded once
  per process and shared by every episode; they are never part of a state.
* A :class:`WorldState` holds only what APIs *mutate*: collections such as
  ``flight_bookings``, ``cart``, ``orders``, ``wallet``, ``events``, ``playlists``
  and the id counters, each a ``{key: JSON value}`` map. Values that start from a
  fixture (seats left on a flight, units in stock) are stored only once touched;
  readers pass the fixture value as the default. A state is never mutated after
  it is built, so a snapshot is a reference and states are shared across branches.
* A :class:`Tx` is one API call's view of a state: reads return copies, writes go
  to per-collection copies, and :meth:`Tx.commit` returns a new state (or the same
  object when nothing changed).
* Determinism: no wall clock, no uuid; ids come from per-prefix counters in the
  state (``BK-0001``), numbers are rounded at the API boundary.
* Pickling (snapshots that travel to another process): an initial world built from task
  data (:func:`static_world`) pickles as its content digest, and a world committed from it
  as the digest plus the collections it changed; the receiving process finds the initial
  world among its own (it has made an env on the same data), so a cold restore there
  rebuilds only what the episode changed. Any other world pickles whole.
"""
from __future__ import annotations

import hashlib
import json
import weakref
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

COUNTERS = "_counters"


def _frozen_copy(value: Any) -> Any:
    """A deep copy of a JSON value (tuples become lists), so callers never alias state."""
    if isinstance(value, dict):
        return {str(k): _frozen_copy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_frozen_copy(v) for v in value]
    return value


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return "null" if value is None else "string"


def _template(example: Any) -> Any:
    """The one shape every member of a dict's values or a list's items has, else None (no constraint)."""
    members = list(example.values()) if isinstance(example, dict) else list(example)
    kinds = {_kind(m) for m in members}
    return members[0] if len(kinds) == 1 and members else None


def shape_problem(value: Any, example: Any, where: str = "world") -> str | None:
    """Why JSON ``value`` cannot be a later state of ``example`` (a task's initial world), or None.

    Checked by example, so a restored state a handler could crash on is refused before it is used.
    Under an object's keys: objects stay objects and arrays arrays, numbers stay numbers and booleans
    booleans, strings may become null, and any scalar (not an object or array: a handler would hash or
    compare it) may stand where the example holds null; a key
    the example lacks takes the shape its sibling values share. Array items (table rows and cells,
    lists of ids) only keep the container kind their siblings share: their scalars may change type.
    """
    want, got = _kind(example), _kind(value)
    if want == "null":  # a slot that is empty at the start (an object held by nobody): a scalar or null
        return None if got not in ("object", "array") else f"{where} is {got}, expected a string, number, boolean or null"
    if want == "string" and got in ("string", "null"):
        return None
    if got != want:
        return f"{where} is {got}, expected {want}"
    if want == "object":
        spare = _template(example)
        for key, item in value.items():
            ex = example[key] if key in example else spare
            problem = None if ex is None else shape_problem(item, ex, f"{where}.{key}")
            if problem:
                return problem
    elif want == "array":
        spare = _template(example)
        if _kind(spare) in ("object", "array"):
            for i, item in enumerate(value):
                if _kind(item) != _kind(spare):
                    return f"{where}[{i}] is {_kind(item)}, expected {_kind(spare)}"
    return None


@dataclass(frozen=True, eq=False)
class WorldState:
    """Mutable-world collections as an immutable value (never mutate ``collections``)."""

    collections: Mapping[str, Mapping[str, Any]]

    def get(self, collection: str, key: str, default: Any = None) -> Any:
        """A copy of one value (``default`` when absent)."""
        coll = self.collections.get(collection)
        if coll is None or key not in coll:
            return _frozen_copy(default)
        return _frozen_copy(coll[key])

    def items(self, collection: str) -> list[tuple[str, Any]]:
        """``(key, value copy)`` pairs of a collection, sorted by key."""
        coll = self.collections.get(collection) or {}
        return [(k, _frozen_copy(coll[k])) for k in sorted(coll)]

    def to_json(self) -> dict[str, dict[str, Any]]:
        return {name: {k: _frozen_copy(v) for k, v in sorted(coll.items())}
                for name, coll in sorted(self.collections.items())}

    @classmethod
    def from_json(cls, data: Any) -> "WorldState":
        if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
            raise ValueError("a world state is a JSON object of collections, each a JSON object")
        return cls({str(name): {str(k): _frozen_copy(v) for k, v in coll.items()} for name, coll in data.items()})

    def digest(self) -> str:
        """A content hash (blake2b) of the state: equal states, equal digests."""
        text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, WorldState):
            return NotImplemented
        return self is other or self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash(self.digest())

    def __reduce__(self):
        marks = self.__dict__
        if marks.get(_STATIC):
            return _static_by_digest, (_digest_of(self),)
        root = marks.get(_ROOT)
        if root is not None and root.collections.keys() <= self.collections.keys():
            base = root.collections
            changed = {k: v for k, v in self.collections.items() if base.get(k) is not v}
            return _derived_world, (_digest_of(root), changed)
        return WorldState, (self.collections,)


EMPTY_WORLD = WorldState({})

# Instance-dict marks (not fields): an initial world from task data, the one a committed world derives from, and
# a cached digest. The registry: every static world of this process, and those indexed by digest so far. It is
# keyed by identity, not a WeakSet: a set keeps only one of several equal worlds (WorldState compares by content),
# and once that one is collected the live equal ones could no longer be found.
_STATIC, _ROOT, _DIGEST = "_static", "_root", "_digest_memo"
_STATIC_WORLDS: "weakref.WeakValueDictionary[int, WorldState]" = weakref.WeakValueDictionary()
_BY_DIGEST: "weakref.WeakValueDictionary[str, WorldState]" = weakref.WeakValueDictionary()


def static_world(data: Any) -> WorldState:
    """The initial world of task data (:meth:`WorldState.from_json`), pickled by its content digest and
    found again among this process's static worlds on unpickling (see the module docstring)."""
    world = WorldState.from_json(data)
    world.__dict__[_STATIC] = True
    _STATIC_WORLDS[id(world)] = world
    return world


def _digest_of(world: WorldState) -> str:
    memo = world.__dict__.get(_DIGEST)
    if memo is None:
        memo = world.__dict__[_DIGEST] = world.digest()
    return memo


def _static_by_digest(digest: str) -> WorldState:
    world = _BY_DIGEST.get(digest)
    if world is None:
        for w in list(_STATIC_WORLDS.values()):
            _BY_DIGEST[_digest_of(w)] = w
        world = _BY_DIGEST.get(digest)
    if world is None:
        raise ValueError(f"the tool world {digest} of this snapshot is not loaded in this process: make an env of "
                         "the same family on the same task data before restoring it")
    return world


def _derived_world(root_digest: str, changed: dict) -> WorldState:
    root = _static_by_digest(root_digest)
    merged = dict(root.collections)
    merged.update(changed)
    world = WorldState(merged)
    world.__dict__[_ROOT] = root
    return world


class Tx:
    """One API call's copy-on-write view of a :class:`WorldState` (see module docstring)."""

    def __init__(self, world: WorldState):
        self.base = world
        self.changed: dict[str, dict[str, Any]] = {}

    def _coll(self, collection: str) -> Mapping[str, Any]:
        if collection in self.changed:
            return self.changed[collection]
        return self.base.collections.get(collection) or {}

    def get(self, collection: str, key: str, default: Any = None) -> Any:
        coll = self._coll(collection)
        return _frozen_copy(coll[key]) if key in coll else _frozen_copy(default)

    def has(self, collection: str, key: str) -> bool:
        return key in self._coll(collection)

    def items(self, collection: str) -> Iterator[tuple[str, Any]]:
        coll = self._coll(collection)
        for k in sorted(coll):
            yield k, _frozen_copy(coll[k])

    def _writable(self, collection: str) -> dict[str, Any]:
        if collection not in self.changed:
            self.changed[collection] = dict(self.base.collections.get(collection) or {})
        return self.changed[collection]

    def put(self, collection: str, key: str, value: Any) -> None:
        self._writable(collection)[str(key)] = _frozen_copy(value)

    def delete(self, collection: str, key: str) -> None:
        self._writable(collection).pop(str(key), None)

    def next_id(self, prefix: str, width: int = 4) -> str:
        n = int(self.get(COUNTERS, prefix, 0)) + 1
        self.put(COUNTERS, prefix, n)
        return f"{prefix}-{n:0{width}d}"

    def commit(self) -> WorldState:
        if not self.changed:
            return self.base
        merged = dict(self.base.collections)
        merged.update(self.changed)
        world = WorldState(merged)
        marks = self.base.__dict__
        root = self.base if marks.get(_STATIC) else marks.get(_ROOT)
        if root is not None:  # (pickled as its changes from root)
            world.__dict__[_ROOT] = root
        return world


def changed_collections(before: WorldState, after: WorldState) -> list[str]:
    """Names of collections (counters excluded) whose content differs between two states."""
    names = set(before.collections) | set(after.collections)
    out = []
    for name in sorted(names - {COUNTERS}):
        a = before.collections.get(name) or {}
        b = after.collections.get(name) or {}
        if a is not b and a != b:
            out.append(name)
    return out
