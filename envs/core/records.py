"""Frozen state records: :func:`replaced`, ``dataclasses.replace`` for the hot path of an engine's step.

Engines keep their states as frozen dataclasses and make one or two new ones per step. The standard
``dataclasses.replace`` walks the class's fields and checks each on every call, which cost about a
tenth of a cheap step (ToolTasks, ToolBench, WebShop); :func:`replaced` reads the class's ``init``
fields once and builds the copy from them. Same result: fields with ``init=False`` start at their
defaults (``__post_init__`` runs), and an unknown field name is a ``TypeError``."""
from __future__ import annotations

import dataclasses
from operator import attrgetter
from typing import Any, Callable, TypeVar

R = TypeVar("R")
# per dataclass: a getter of its init fields' values (in order), each field's position, and whether a
# field is keyword-only (then the class is built by dataclasses.replace)
_LAYOUTS: dict[type, tuple[Callable[[Any], Any], dict[str, int], bool]] = {}


def replaced(record: R, **changes: Any) -> R:
    """A copy of the dataclass instance ``record`` with ``changes`` (as ``dataclasses.replace``)."""
    cls = type(record)
    layout = _LAYOUTS.get(cls)
    if layout is None:
        layout = _LAYOUTS[cls] = _layout(cls)
    values_of, position, keywords_only = layout
    if keywords_only:
        return dataclasses.replace(record, **changes)
    values = list(values_of(record))
    for name, value in changes.items():
        at = position.get(name)
        if at is None:
            raise TypeError(f"{cls.__name__} has no field {name!r}")
        values[at] = value
    return cls(*values)


def _layout(cls: type) -> tuple[Callable[[Any], Any], dict[str, int], bool]:
    fields = [f for f in dataclasses.fields(cls) if f.init]
    names = [f.name for f in fields]
    # attrgetter of one name returns the bare value, of none it cannot be made: a tuple always
    values_of = attrgetter(*names) if len(names) > 1 else (lambda record: tuple(getattr(record, n) for n in names))
    return values_of, {n: i for i, n in enumerate(names)}, any(f.kw_only for f in fields)
