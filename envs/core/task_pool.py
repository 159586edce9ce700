"""``TaskPool``: the tasks an env plays, and the one set of rules every treegym env selects them by.

A family builds a pool from whatever its task files say (its shipped data or the
user's own file: a CSV, a query file, a folder of games) as named splits of task
ids, and optionally a ``check`` that turns a user-given id into the family's own
id (``"3"`` -> ``3``) or raises ``ValueError`` naming what is wrong::

    pool = TaskPool({"train": ids[:900], "test": ids[900:], "all": ids}, check=my_check, default="test")

The rules (DESIGN.md, "Environment conventions"):

* **make-kwargs** (:meth:`select`): ``split=`` (the pool's default split when
  omitted) or ``task_ids=``; both together must agree (ids outside the split are
  refused); an empty split or list is refused with what to do instead.
* **reset** (:meth:`choose`): ``options={"task_id": t}`` plays ``t``;
  ``options={"split": s}`` draws from another split; ``reset(seed=s)`` plays the
  selection's task ``s % len``; ``reset()`` the task after the current one
  (wrapping), so seeds ``0..n-1`` walk the selection.
* **listing**: :meth:`counts` (``treegym list``) and :meth:`ids` (``treegym run --split``).

A pool is immutable; envs of one family share it. A split's ids are read when
first needed (:meth:`TaskPool.lazy`), so a pool over a large catalog costs nothing
for the splits an env never plays.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence


class TaskPool:
    """Named splits of task ids and the selection rules (see the module docstring)."""

    __slots__ = ("_names", "_ids_of", "_cache", "_check", "default", "source")

    def __init__(self, splits: Mapping[str, Iterable[Any]], check: Callable[[Any], Any] | None = None,
                 default: str | None = None, source: str = ""):
        """``splits``: split name -> task ids, in order; ``check(task_id)`` -> the canonical id or
        ``ValueError`` (default: membership in some split); ``default``: the split a bare env plays
        (default: the first); ``source``: how messages name the task data (``"the packaged 24.csv"``)."""
        frozen = {str(name): tuple(ids) for name, ids in splits.items()}
        self._init(tuple(frozen), frozen.__getitem__, check, default, source)
        self._cache.update(frozen)

    @classmethod
    def lazy(cls, names: Iterable[str], ids_of: Callable[[str], Iterable[Any]],
             check: Callable[[Any], Any] | None = None, default: str | None = None, source: str = "") -> "TaskPool":
        """A pool whose split ``name`` holds ``ids_of(name)``, read on first use."""
        pool = cls.__new__(cls)
        pool._init(tuple(map(str, names)), ids_of, check, default, source)
        return pool

    def _init(self, names: tuple[str, ...], ids_of: Callable[[str], Iterable[Any]],
              check: Callable[[Any], Any] | None, default: str | None, source: str) -> None:
        if not names:
            raise ValueError(f"{source or 'this task data'} has no splits; give at least one split of task ids")
        if default is not None and default not in names:
            raise ValueError(f"default split {default!r} is not one of {', '.join(map(repr, names))}")
        self._names, self._ids_of, self._cache = names, ids_of, {}
        self.default = default if default is not None else names[0]
        self._check = check
        self.source = source

    # ------------------------------------------------------------------ listing
    def splits(self) -> tuple[str, ...]:
        return self._names

    def ids(self, split: str) -> tuple:
        """The task ids of ``split``, in order; ``ValueError`` naming the splits there are."""
        cached = self._cache.get(split) if isinstance(split, str) else None
        if cached is not None:
            return cached
        if split not in self._names:
            raise ValueError(f"unknown split {split!r}{self._of()}; choose one of {', '.join(self._names)}")
        ids = self._cache[split] = tuple(self._ids_of(split))
        return ids

    def counts(self) -> dict[str, int]:
        """Number of tasks per split (what ``treegym list`` shows)."""
        return {name: len(self.ids(name)) for name in self._names}

    def check(self, task_id: Any) -> Any:
        """The canonical id of ``task_id``, or ``ValueError`` saying what is wrong with it."""
        if self._check is not None:
            return self._check(task_id)
        for name in self._names:
            if task_id in self.ids(name):  # tuple membership: equality, so any id type is safe
                return task_id
        sample = ", ".join(map(repr, self.ids(self.default)[:3]))
        raise ValueError(f"unknown task id {task_id!r}; ids look like {sample}, ...")

    # ------------------------------------------------------------------ selection
    def select(self, split: str | None = None, task_ids: Sequence[Any] | None = None) -> tuple:
        """The tasks an env made with ``split=`` / ``task_ids=`` plays, checked (see the module docstring)."""
        if task_ids is None:
            name = split or self.default
            chosen = self.ids(name)
            if not chosen:
                raise ValueError(f"split {name!r}{self._of()} has no tasks; choose another split or pass task_ids=")
            return chosen
        if isinstance(task_ids, (str, bytes)):
            raise ValueError(f"task_ids must be a sequence of task ids, got {task_ids!r}")
        chosen = tuple(self.check(t) for t in task_ids)
        if not chosen:
            raise ValueError("task_ids is empty; give at least one task id or leave it out to use a split")
        if split is not None:
            allowed = set(self.ids(split))
            outside = [t for t in chosen if t not in allowed]
            if outside:
                raise ValueError(f"task_ids {outside[:10]} are not in split {split!r}; drop split= or fix task_ids")
        return chosen

    def choose(self, selection: Sequence[Any], current: Any, seed: int | None, options: Mapping[str, Any]) -> Any:
        """The task id a ``reset(seed=seed, options=options)`` plays, given the env's ``selection``
        (from :meth:`select`) and the task it is on (``current``, None before the first reset)."""
        if options.get("task_id") is not None:
            return self.check(options["task_id"])
        chosen = self.ids(options["split"]) if options.get("split") else selection
        if not chosen:
            raise ValueError(f"split {options['split']!r}{self._of()} has no tasks; choose another split")
        if seed is not None:
            return chosen[seed % len(chosen)]
        if current is not None and current in chosen:
            return chosen[(chosen.index(current) + 1) % len(chosen)]
        return chosen[0]

    def _of(self) -> str:
        return f" of {self.source}" if self.source else ""

    def __repr__(self) -> str:
        return f"TaskPool({self.counts()}, default={self.default!r})"


def splits_of_records(records: Iterable[Mapping[str, Any]], id_key: str, split_key: str = "split",
                      order: Sequence[str] | None = None, all_split: str | None = "all",
                      all_of: Sequence[str] | None = None) -> dict[str, tuple]:
    """Task ids by the split each record of a task file names (``record[split_key]``), for a :class:`TaskPool`.

    ``all_split`` (default ``"all"``; None for none) holds the ids of the records whose split is in
    ``all_of`` (default: every record). ``order``: the split names in the order wanted (``all_split`` may
    be among them; splits no record names are empty); default: first appearance, then ``all_split``.
    """
    by_split: dict[str, list] = {}
    every: list = []
    for r in records:
        split = r[split_key]
        by_split.setdefault(split, []).append(r[id_key])
        if all_of is None or split in all_of:
            every.append(r[id_key])
    if all_split is not None:
        by_split[all_split] = every
    names = list(order) if order is not None else list(by_split)
    return {name: tuple(by_split.get(name, ())) for name in names}


def engine_pool(engine: Any, source: str = "") -> TaskPool:
    """The :class:`TaskPool` of an :class:`~treegym.envs.core.contract.Engine`: its splits (its optional
    ``default_split`` first played, else its first split); the check is its optional
    ``canonical_task_id(task_id)``, else ``task(task_id)`` (the engine's error for an unknown id)."""
    canonical = getattr(engine, "canonical_task_id", None)

    def check(task_id: Any) -> Any:
        if canonical is not None:
            return canonical(task_id)
        engine.task(task_id)
        return task_id

    names = tuple(engine.splits())  # first: a remote engine learns its default split with them
    return TaskPool.lazy(names, engine.task_ids, check=check, default=getattr(engine, "default_split", None),
                         source=source)
